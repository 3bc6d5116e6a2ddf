//! Allocator settings for a process that builds one snapshot (or answers one query) and exits.
//!
//! glibc gives freed memory back to the kernel eagerly: an allocation above 128 KiB (the first
//! threshold) is its own `mmap`, unmapped when freed, and the free top of a heap is trimmed past
//! 128 KiB. A snapshot frees and allocates such blocks all the time (every file's parse state, the
//! zstd contexts of every Parquet column, decoded SCIP documents), so it keeps asking the kernel
//! for fresh pages: each costs a fault on first touch (about 2.5 µs on a 2-core VM) and each unmap
//! an inter-processor interrupt to flush the other workers' TLBs. On a one-file commit of flask
//! that was a quarter of the run's CPU time.
//!
//! [`keep_freed_memory`] makes glibc keep freed memory for reuse instead: blocks up to 32 MiB come
//! from the heaps, heaps are trimmed only past 256 MiB of free space, and a heap grows 16 MiB at a
//! time. The peak does not grow (memory is reused, not added); it is only handed back at exit.
//! Only binaries call it (`ckb snapshot`, `ckb query`, the benchmark drivers that stand in for
//! them): a library must not change its host's allocator.

/// Keeps freed memory in the process for reuse (see the module doc). A no-op where the allocator
/// is not glibc's.
// The only unsafe code in ckb: one call into libc with integer arguments.
#[allow(unsafe_code)]
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::os::raw::c_int;
        // <malloc.h>
        const M_TRIM_THRESHOLD: c_int = -1;
        const M_TOP_PAD: c_int = -2;
        const M_MMAP_THRESHOLD: c_int = -3;
        extern "C" {
            fn mallopt(param: c_int, value: c_int) -> c_int;
        }
        // SAFETY: mallopt only sets allocator parameters, takes plain integers, may be called at
        // any time and refuses (returns 0) a value out of range, leaving the default in place.
        unsafe {
            mallopt(M_MMAP_THRESHOLD, 32 << 20);
            mallopt(M_TRIM_THRESHOLD, 256 << 20);
            mallopt(M_TOP_PAD, 16 << 20);
        }
    }
}
