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
    if let (Some(update), Some(dir)) = (out.cache_update.take(), cache) {
        update.save(&dir.join(".cache-commit=test.1"));
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

/// Through a whole snapshot: the cache, encoded while the snapshot is built, is written once the
/// snapshot is published, and a run that fails after its scan writes nothing at all.
#[test]
fn a_snapshot_writes_the_cache_once_published_and_a_failed_one_writes_nothing() {
    use pipeline::store::Store;
    use pipeline::{snapshot, PipelineError, SnapshotOptions};

    let tree = tempfile::tempdir().unwrap();
    let stores = tempfile::tempdir().unwrap();
    let root = tree.path();
    std::fs::write(root.join("a.rs"), "fn a() {}\n").unwrap();
    std::fs::write(root.join("b.py"), "def b():\n    pass\n").unwrap();
    std::thread::sleep(SETTLE + std::time::Duration::from_millis(200));
    let opts = |store: &Path| SnapshotOptions {
        root: root.to_path_buf(),
        out: Some(store.to_path_buf()),
        repo_id: Some("fx".into()),
        stages: Some(vec![
            output_schema::Stage::Scan,
            output_schema::Stage::Syntax,
        ]),
        threads: Some(1),
        lock_timeout: Some(std::time::Duration::ZERO),
        ..SnapshotOptions::default()
    };
    let store_files = |store: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(store.join("repo=fx"))
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };

    // The snapshot's partition, to hold its lock in a second store.
    let first = stores.path().join("first");
    let partition = snapshot(&opts(&first), &NoProgress)
        .expect("snapshot")
        .snapshot()
        .dir
        .file_name()
        .unwrap()
        .to_string_lossy()
        .trim_start_matches("commit=")
        .to_string();
    assert!(first.join("repo=fx").join(CACHE_FILE).is_file());

    let second = stores.path().join("second");
    let lock = Store::new(&second)
        .lock("fx", &partition, std::time::Duration::ZERO)
        .expect("lock");
    let failed = snapshot(&opts(&second), &NoProgress);
    assert!(
        matches!(failed, Err(PipelineError::Locked { .. })),
        "{failed:?}"
    );
    assert_eq!(
        store_files(&second),
        vec![format!(".lock-commit={partition}")],
        "a failed run writes no cache"
    );
    drop(lock);

    snapshot(&opts(&second), &NoProgress).expect("snapshot");
    assert!(store_files(&second).contains(&CACHE_FILE.to_string()));
    assert!(
        !store_files(&second).iter().any(|n| n.contains(".tmp")),
        "{:?}",
        store_files(&second)
    );
    let next = scan_with(root, Some(&second.join("repo=fx")));
    assert_eq!(next.from_cache, 2, "the written cache describes both files");
}
