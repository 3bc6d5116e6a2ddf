//! What the `ckb` binary loads before `main`: the C++ standard library is linked into it (see
//! `.cargo/config.toml`), so a query does not pay for loading and binding one more shared object.

/// The value `.cargo/config.toml` gives the variable the `cc` crate reads; cargo passes it to the
/// tests too, so an override in the environment (a machine without the static archive) is seen
/// here as it was by the build.
const STDLIB_VARIABLE: &str = "CXXSTDLIB_x86_64_unknown_linux_gnu";

/// Its value there: the static archive, found by the C compiler that links the binary (not
/// bundled into an rlib, which would need its folder on rustc's search path).
const CONFIGURED: &str = "static:-bundle=stdc++";

#[test]
fn the_binary_carries_its_cpp_standard_library() {
    if !cfg!(all(
        target_arch = "x86_64",
        target_os = "linux",
        target_env = "gnu"
    )) {
        return; // the setting names this target only; elsewhere the platform default holds
    }
    let setting = std::env::var(STDLIB_VARIABLE).unwrap_or_default();
    assert!(
        !std::env::var("CI").is_ok_and(|v| v == "true") || setting == CONFIGURED,
        "under CI the build must use .cargo/config.toml's {STDLIB_VARIABLE}={CONFIGURED}, got {setting:?}"
    );
    if setting != CONFIGURED {
        eprintln!(
            "NOTICE: {STDLIB_VARIABLE}={setting:?} overrides .cargo/config.toml; not checked"
        );
        return;
    }
    let binary = std::fs::read(env!("CARGO_BIN_EXE_ckb")).unwrap();
    // A shared library the binary needs is named in its dynamic string table.
    let needs_libstdcxx = binary.windows(12).any(|w| w == b"libstdc++.so");
    assert!(
        !needs_libstdcxx,
        "the ckb binary loads libstdc++.so at start-up; .cargo/config.toml links it statically"
    );
}
