//! Links the `ckb` binary as a position-dependent executable on Linux with glibc.
//!
//! The binary carries DuckDB, whose C++ vtables and tables make 116 000 relative relocations: a
//! position-independent executable applies them at every start, copying 1.6 MB of relocated data
//! (about 400 pages, each a page fault) before `main` runs. That was half of the start-up of every
//! `ckb query` (tokio: 5 ms of a 12 ms `search`). A position-dependent executable has its
//! addresses fixed at link time and starts in half the time. The cost: the executable's own code
//! is not placed at a random address (shared libraries, heap and stack still are); see
//! SECURITY.md. The objects stay position-independent, so only the final link changes.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
