//! Containing a panic of the `parquet`/`arrow` decoders on a damaged file, so it becomes an error.
//!
//! The decoders trust parts of a file's encoding: fuzzing (fuzz/, `table_parquet`) found inputs on
//! which they panic (e.g. "Decoder for dict should have been set") instead of returning an error.
//! A file ckb reads back may come from anywhere (a previous snapshot from an artifact store, a
//! snapshot a query opens), so every decode of such a file runs inside [`decoding`], which turns a
//! panic into [`FormatError::Damaged`]. Only code between ckb and those crates runs inside it; a
//! bug of ckb's own elsewhere is still `INTERNAL_ERROR`.
//!
//! The binary's panic hook asks [`is_containing`] first and stays silent for a contained panic
//! (the hook runs before unwinding reaches `catch_unwind`, on the panicking thread: a decode that
//! fans out to rayon workers wraps each worker's part too).

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::FormatError;

thread_local! {
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Whether the current thread is inside [`decoding`]: a panic hook that sees `true` should
/// return without reporting, because the panic becomes an error where it is caught.
pub fn is_containing() -> bool {
    DEPTH.with(|d| d.get() > 0)
}

/// Runs `decode` (reading `what`, named in the error), turning a panic into
/// [`FormatError::Damaged`].
pub fn decoding<R>(
    what: &str,
    decode: impl FnOnce() -> Result<R, FormatError>,
) -> Result<R, FormatError> {
    DEPTH.with(|d| d.set(d.get() + 1));
    let result = catch_unwind(AssertUnwindSafe(decode));
    DEPTH.with(|d| d.set(d.get() - 1));
    result.unwrap_or_else(|payload| {
        let why = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "the decoder failed".into());
        Err(FormatError::Damaged {
            what: what.to_string(),
            why,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_inside_is_an_error_and_the_depth_unwinds() {
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let r: Result<(), _> = decoding("t.parquet", || {
            panic!("Decoder for dict should have been set")
        });
        std::panic::set_hook(hook);
        let e = r.unwrap_err();
        assert!(e.to_string().contains("t.parquet"), "{e}");
        assert!(e.to_string().contains("Decoder for dict"), "{e}");
        assert!(!is_containing());
        assert_eq!(decoding("x", || Ok(3)).unwrap(), 3);
    }
}
