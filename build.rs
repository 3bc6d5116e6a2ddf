//! Lays out the `ckb` binary's start-up and query code together (x86_64 Linux, where rustc links
//! with lld): `link/ckb.order` lists the functions a `ckb query` runs, hottest first, and the
//! linker places them side by side, so a query touches fewer pages of the 100 MB binary (each
//! first touch is a page fault). `ci/symbol-order.sh` writes the list from a profile; names that
//! a build does not have (another compiler, other versions) are passed over, so an old list only
//! costs speed. `CKB_NO_SYMBOL_ORDER=1` leaves the flag out, for a linker without it (GNU ld).

fn main() {
    println!("cargo:rerun-if-changed=link/ckb.order");
    println!("cargo:rerun-if-env-changed=CKB_NO_SYMBOL_ORDER");
    let target = std::env::var("TARGET").unwrap_or_default();
    let opted_out = std::env::var_os("CKB_NO_SYMBOL_ORDER").is_some_and(|v| v == "1");
    if target != "x86_64-unknown-linux-gnu" || opted_out {
        return;
    }
    // The linker reads a copy in the build's own folder, not the checkout's file: a target folder
    // that several checkouts share (CI's, under `$HOME/.cache`) keeps this script's output, and
    // the checkout it named may be gone by the time another one links.
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let order = std::path::Path::new(&out).join("ckb.order");
    if let Err(e) = std::fs::copy(std::path::Path::new(&root).join("link/ckb.order"), &order) {
        println!("cargo:warning=link/ckb.order not copied ({e}): linked without a symbol order");
        return;
    }
    println!(
        "cargo:rustc-link-arg-bin=ckb=-Wl,--symbol-ordering-file={}",
        order.display()
    );
    println!("cargo:rustc-link-arg-bin=ckb=-Wl,--no-warn-symbol-ordering");
}
