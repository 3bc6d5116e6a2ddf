//! The scan's cache of file facts: a second scan of settled files reads none of them and gives
//! the same rows as a scan without the cache; a changed file is read again.

use std::path::Path;

use pipeline::scan::{scan, ScanConfig, ScanOutput};
use pipeline::scan_cache::{CACHE_FILE, SETTLE};
use pipeline::NoProgress;

fn scan_with(root: &Path, cache: Option<&Path>) -> ScanOutput {
    let config = ScanConfig {
        max_file_bytes: 1 << 20,
        ignore_globs: Vec::new(),
        excluded_folders: Vec::new(),
        cache_file: cache.map(|c| c.join(CACHE_FILE)),
    };
    let mut out = scan(root, &config, &NoProgress).expect("scan");
    if let Some(update) = out.cache_update.take() {
        update.save();
    }
    out
}

#[test]
fn settled_files_are_described_from_the_cache_and_changes_are_read() {
    let tree = tempfile::tempdir().unwrap();
    let store = tempfile::tempdir().unwrap();
    let root = tree.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/a.rs"), "fn a() {}\n").unwrap();
    std::fs::write(
        root.join("src/b.py"),
        "#!/usr/bin/env python\n# @generated\nx = 1\n",
    )
    .unwrap();
    std::fs::write(root.join("README.md"), "hello\n").unwrap();
    std::fs::write(root.join("data.bin"), [0u8, 159, 146, 150]).unwrap();
    std::thread::sleep(SETTLE + std::time::Duration::from_millis(200));

    let first = scan_with(root, Some(store.path()));
    assert_eq!(first.from_cache, 0);
    assert_eq!(first.files.len(), 3, "the binary file is skipped");
    assert!(store.path().join(CACHE_FILE).is_file());

    let second = scan_with(root, Some(store.path()));
    assert_eq!(second.from_cache, 3, "nothing changed: nothing read");
    assert_eq!(second.files, first.files);
    assert_eq!(second.report, first.report);
    assert_eq!(scan_with(root, None).files, first.files);

    // Same size, new bytes: read again, and only that file.
    std::fs::write(
        root.join("src/b.py"),
        "#!/usr/bin/env python\n# @generated\ny = 2\n",
    )
    .unwrap();
    let third = scan_with(root, Some(store.path()));
    assert_eq!(third.from_cache, 2);
    let plain = scan_with(root, None);
    assert_eq!(third.files, plain.files);
    let b = |s: &ScanOutput| {
        s.files
            .iter()
            .find(|f| f.path == "src/b.py")
            .cloned()
            .unwrap()
    };
    assert_ne!(b(&third).content_hash, b(&first).content_hash);
    assert!(b(&third).is_generated);
    assert_eq!(b(&third).language.as_deref(), Some("python"));
    // The changed file is too fresh to be kept: the next scan reads it again.
    assert_eq!(scan_with(root, Some(store.path())).from_cache, 2);
}
