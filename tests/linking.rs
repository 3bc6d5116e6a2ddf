//! What the `ckb` binary does before and around `main`: the C++ standard library is linked into it
//! (see `.cargo/config.toml`), and the functions a query runs are laid out together (`build.rs`).

/// The value `.cargo/config.toml` gives the variable the `cc` crate reads; cargo passes it to the
/// tests too, so an override in the environment (a machine without the static archive) is seen
/// here as it was by the build.
const STDLIB_VARIABLE: &str = "CXXSTDLIB_x86_64_unknown_linux_gnu";

/// Its value there: the static archive, found by the C compiler that links the binary (not
/// bundled into an rlib, which would need its folder on rustc's search path).
const CONFIGURED: &str = "static:-bundle=stdc++";

/// The one target both settings name (`.cargo/config.toml`, `build.rs`).
const LINUX_X86_64_GNU: bool = cfg!(all(
    target_arch = "x86_64",
    target_os = "linux",
    target_env = "gnu"
));

#[test]
fn the_binary_carries_its_cpp_standard_library() {
    if !LINUX_X86_64_GNU {
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
    // The shared libraries the loader maps before `main`: the NEEDED entries.
    let dynamic = binutils("readelf", &["-d"]);
    let needed: Vec<&str> = dynamic.lines().filter(|l| l.contains("(NEEDED)")).collect();
    assert!(!needed.is_empty(), "no NEEDED entries read:\n{dynamic}");
    assert!(
        !needed.iter().any(|l| l.contains("libstdc++.so")),
        "the ckb binary loads libstdc++.so at start-up; .cargo/config.toml links it statically: {needed:?}"
    );
}

/// What a GNU binutils tool prints about the `ckb` binary (binutils come with the C compiler the
/// build needs).
fn binutils(tool: &str, args: &[&str]) -> String {
    let out = std::process::Command::new(tool)
        .args(args)
        .arg(env!("CARGO_BIN_EXE_ckb"))
        .output()
        .unwrap_or_else(|e| panic!("{tool} (GNU binutils) must run: {e}"));
    assert!(out.status.success(), "{tool} failed: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `build.rs` asks the linker to lay out the functions of `link/ckb.order` in that order. In this
/// (test) build, Rust functions carry other hashes than the release build the list was made from,
/// but the C and C++ ones (zstd, DuckDB, libstdc++) keep their names: those must come in order.
#[test]
fn the_functions_a_query_runs_are_laid_out_together() {
    if !LINUX_X86_64_GNU {
        return; // build.rs orders functions for this target only
    }
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true");
    if std::env::var_os("CKB_NO_SYMBOL_ORDER").is_some_and(|v| v == "1") {
        assert!(
            !in_ci,
            "CKB_NO_SYMBOL_ORDER=1 under CI: the ordering is not checked"
        );
        eprintln!("NOTICE: CKB_NO_SYMBOL_ORDER=1: the function order is not checked");
        return;
    }
    let mut address = std::collections::HashMap::new();
    for line in binutils("nm", &["--defined-only"]).lines() {
        if let [at, "t" | "T" | "w" | "W", name] = line.split_whitespace().collect::<Vec<_>>()[..] {
            let at = u64::from_str_radix(at, 16).unwrap();
            address.entry(name.to_string()).or_insert(at);
        }
    }
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR");
    let order =
        std::fs::read_to_string(std::path::Path::new(&root).join("link/ckb.order")).unwrap();
    let placed: Vec<u64> = order
        .lines()
        .filter_map(|n| address.get(n).copied())
        .collect();
    assert!(
        placed.len() >= 100,
        "only {} listed functions found",
        placed.len()
    );
    let ascending = placed.windows(2).filter(|w| w[1] > w[0]).count();
    // Without the ordering about half the neighbours ascend (the linker's own order).
    assert!(
        ascending * 100 >= (placed.len() - 1) * 95,
        "{ascending} of {} neighbouring listed functions come in the list's order",
        placed.len() - 1
    );
}
