//! The history stage against the git CLI: on a scripted repository with renames (exact, similar,
//! below the threshold, empty files, whole folders), binary files, a merge, deletions, mode and
//! type changes, missing final newlines and CRLF, every commit's rows must equal what
//! `git log -M --numstat` and `--name-status` report (merges diffed against their first parent),
//! and the commit rows must carry git's parents and times.
//!
//! Size: `file_changes_equal_git_log_numstat` (~165 lines) is one comparison against git over a scripted history, kept in one piece.

mod history_support;

use std::collections::BTreeMap;

use history_support::*;

/// (change letter, old path, additions, deletions)
type Change = (String, Option<String>, Option<i64>, Option<i64>);
/// path -> change
type Changes = BTreeMap<String, Change>;

fn lines(n: usize, tag: &str) -> String {
    (0..n).map(|i| format!("{tag} line {i}\n")).collect()
}

/// Builds the fixture.
fn fixture() -> Repo {
    let mut r = Repo::new();
    r.write("a.txt", lines(10, "a"));
    r.write("b.txt", lines(5, "b"));
    r.write("bin.dat", b"\x00\x01\x02binary\x00".as_slice());
    r.write("empty.txt", "");
    r.write("noeol.txt", "x\ny");
    r.write("crlf.txt", "one\r\ntwo\r\n");
    r.write("dir/x.rs", lines(20, "x"));
    r.write("dir/y.rs", lines(3, "y"));
    r.write("tool.sh", "echo hi\n");
    r.write("old/one.txt", lines(4, "one"));
    r.write("old/two.txt", lines(4, "two"));
    // Attributes of the current checkout decide binary-ness, in git and here.
    r.write(".gitattributes", "*.lock -diff\n*.cfg diff=cfgdriver\n");
    r.write("deps.lock", lines(3, "dep"));
    r.write("app.cfg", lines(3, "key"));
    r.commit("c1");

    let mut a: Vec<String> = lines(10, "a").lines().map(String::from).collect();
    a[2] = "changed two".into();
    a[5] = "changed five".into();
    a.extend(["new 1".to_string(), "new 2".into(), "new 3".into()]);
    r.write("a.txt", a.join("\n") + "\n");
    r.git(&["mv", "b.txt", "c.txt"]);
    r.write("noeol.txt", "x\ny\n");
    r.write("crlf.txt", "one\ntwo\r\n");
    r.write("deps.lock", lines(4, "dep"));
    r.write("app.cfg", lines(4, "key"));
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        r.path().join("tool.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    r.commit("c2: modify, exact rename, newline and crlf, mode change");

    let mut x: Vec<String> = lines(20, "x").lines().map(String::from).collect();
    x[0] = "// moved".into();
    x[19] = "// end".into();
    r.remove("dir/x.rs");
    r.write("src/x.rs", x.join("\n") + "\n");
    r.remove("dir/y.rs");
    r.write("bin.dat", b"\x00\x01\x03binary changed\x00".as_slice());
    // A whole folder renamed without changes.
    r.git(&["mv", "old", "new"]);
    r.commit("c3: similar rename, delete, binary modify, folder rename");
    let c3 = r.head();

    r.git(&["checkout", "-q", "-b", "feature"]);
    r.write("feat.txt", lines(3, "feat"));
    r.write(
        "a.txt",
        std::fs::read_to_string(r.path().join("a.txt")).unwrap() + "feature tail\n",
    );
    r.commit("f1");
    r.write("feat.txt", lines(4, "feat"));
    r.commit("f2");
    r.git(&["checkout", "-q", "main"]);
    let _ = c3;
    r.write(
        "a.txt",
        "main head\n".to_string() + &std::fs::read_to_string(r.path().join("a.txt")).unwrap(),
    );
    r.write("main.txt", "main\n");
    r.commit("m1");
    r.time += 3600;
    r.git(&["merge", "-q", "--no-ff", "feature", "-m", "merge feature"]);

    // Exact binary rename, empty-file rename, file replaced by a symlink.
    r.git(&["mv", "bin.dat", "bin2.dat"]);
    r.git(&["mv", "empty.txt", "empty2.txt"]);
    r.remove("tool.sh");
    std::os::unix::fs::symlink("a.txt", r.path().join("tool.sh")).unwrap();
    r.commit("c4: binary rename, empty rename, typechange");

    // Deletion, complete rewrite, rename below the similarity threshold.
    r.remove("a.txt");
    r.write("c.txt", lines(5, "totally different"));
    r.remove("src/x.rs");
    let mut low: Vec<String> = lines(20, "x").lines().map(String::from).collect();
    for l in low.iter_mut().take(15) {
        *l = format!("{l} rewritten");
    }
    r.write("src/low.rs", low.join("\n") + "\n");
    r.commit("c5: delete, rewrite, dissimilar rename");

    // Competing rename candidates: git's exact, same-name and best-score rules decide.
    let base = lines(20, "shared");
    r.write("m/one.txt", base.clone() + "extra 1\nextra 2\n");
    r.write(
        "m/two.txt",
        base.replace("shared 3\n", "x\n")
            .replace("shared 9\n", "y\n"),
    );
    r.write("p/util.rs", lines(20, "util"));
    r.write("s/mod.rs", lines(20, "module"));
    r.write("s/lib.rs", lines(20, "module"));
    r.commit("c5b: candidates");
    r.remove("m/one.txt");
    r.remove("m/two.txt");
    r.write("n/three.txt", base.clone());
    r.remove("p/util.rs");
    r.write("q/other.rs", lines(20, "util"));
    r.write(
        "q/util.rs",
        lines(20, "util").replace("util 1\n", "changed\n"),
    );
    r.remove("s/mod.rs");
    r.remove("s/lib.rs");
    r.write("t/lib.rs", lines(20, "module"));
    r.write("t/mod.rs", lines(20, "module"));
    r.commit("c5c: competing renames");

    // A submodule (gitlink) added, then moved to another commit.
    std::fs::create_dir_all(r.path().join("sub")).unwrap();
    let target = r
        .git(&["rev-list", "--max-parents=0", "HEAD"])
        .trim()
        .to_string();
    r.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{target},sub"),
    ]);
    r.commit("c6: add submodule");
    r.git(&["update-index", "--cacheinfo", &format!("160000,{c3},sub")]);
    r.commit("c7: move submodule");
    r
}

/// Parses `git log -z --format=%H` output into (sha, tokens).
fn split_commits(out: &str) -> Vec<(String, Vec<String>)> {
    let mut commits: Vec<(String, Vec<String>)> = Vec::new();
    for token in out.split('\0') {
        let token = token.trim_start_matches('\n');
        if token.is_empty() {
            continue;
        }
        if token.len() == 40 && token.bytes().all(|b| b.is_ascii_hexdigit()) {
            commits.push((token.to_string(), Vec::new()));
        } else if let Some(last) = commits.last_mut() {
            last.1.push(token.to_string());
        }
    }
    commits
}

fn git_changes(r: &Repo) -> BTreeMap<String, Changes> {
    let base = [
        "log",
        "-M",
        "--diff-merges=first-parent",
        "-z",
        "--format=%H",
    ];
    let numstat = r.git(&[&base[..], &["--numstat"]].concat());
    let status = r.git(&[&base[..], &["--name-status"]].concat());
    let mut out: BTreeMap<String, Changes> = BTreeMap::new();
    for (sha, tokens) in split_commits(&numstat) {
        let changes = out.entry(sha).or_default();
        let mut it = tokens.into_iter();
        while let Some(t) = it.next() {
            let mut parts = t.splitn(3, '\t');
            let num = |s: Option<&str>| s.and_then(|v| v.parse::<i64>().ok());
            let (add, del) = (parts.next(), parts.next());
            let (add, del) = (num(add), num(del));
            let path = parts.next().unwrap_or_default().to_string();
            let (path, old) = if path.is_empty() {
                let old = it.next().unwrap();
                (it.next().unwrap(), Some(old))
            } else {
                (path, None)
            };
            changes.insert(path, (String::new(), old, add, del));
        }
    }
    for (sha, tokens) in split_commits(&status) {
        let changes = out.get_mut(&sha).unwrap();
        let mut it = tokens.into_iter();
        while let Some(letter) = it.next() {
            let first = it.next().unwrap();
            let path = if letter.starts_with('R') {
                it.next().unwrap()
            } else {
                first
            };
            // git's T (type change) is a modification here.
            let letter = match &letter[..1] {
                "T" => "M".to_string(),
                l => l.to_string(),
            };
            changes.get_mut(&path).unwrap().0 = letter;
        }
    }
    out
}

#[test]
fn file_changes_equal_git_log_numstat() {
    let r = fixture();
    let store = tempfile::tempdir().unwrap();
    let snap = snapshot_full(&git_only(r.path(), store.path()));
    let h = read_history(&snap);
    let expected = git_changes(&r);

    // Same commits, parents and times as git.
    let log = r.git(&["log", "--format=%H %ct %at %P"]);
    assert_eq!(h.commits.len(), log.lines().count());
    for line in log.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let c = h
            .commits
            .iter()
            .find(|c| c.sha == f[0])
            .expect("commit present");
        assert_eq!(c.committer_time.to_string(), f[1]);
        assert_eq!(c.author_time.to_string(), f[2]);
        assert_eq!(
            c.parents,
            f[3..]
                .iter()
                .filter(|s| !s.is_empty())
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        );
    }

    let mut seen_kinds = BTreeMap::new();
    for c in &h.commits {
        let want = expected.get(&c.sha).cloned().unwrap_or_default();
        let got: Changes = h
            .file_changes
            .iter()
            .filter(|f| f.sha == c.sha)
            .map(|f| {
                (
                    f.path.clone(),
                    (
                        f.change.clone(),
                        f.old_path.clone(),
                        f.additions,
                        f.deletions,
                    ),
                )
            })
            .collect();
        for (path, (letter, ..)) in &got {
            *seen_kinds.entry(letter.clone()).or_insert(0) += 1;
            let _ = path;
        }
        // Gitlinks differ on purpose: git prints a one-line "Subproject commit" diff.
        let strip_sub = |m: &Changes| -> Changes {
            m.iter()
                .filter(|(p, _)| p.as_str() != "sub")
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        };
        assert_eq!(strip_sub(&got), strip_sub(&want), "commit {}", c.sha);
        assert_eq!(c.files_changed, want.len() as i64, "commit {}", c.sha);
        let sum =
            |f: fn(&Change) -> Option<i64>| strip_sub(&want).values().filter_map(f).sum::<i64>();
        assert_eq!(c.additions, sum(|v| v.2), "commit {}", c.sha);
        assert_eq!(c.deletions, sum(|v| v.3), "commit {}", c.sha);
        if let Some(sub) = got.get("sub") {
            assert_eq!((sub.2, sub.3), (None, None), "gitlinks have no line counts");
            let row = h
                .file_changes
                .iter()
                .find(|f| f.sha == c.sha && f.path == "sub")
                .unwrap();
            assert!(!row.is_binary);
        }
    }
    // The fixture exercised every kind of change, and binaries are flagged.
    assert!(seen_kinds.len() == 4, "{seen_kinds:?}");
    assert!(h.file_changes.iter().filter(|f| f.is_binary).count() >= 3);
    assert!(h
        .file_changes
        .iter()
        .all(|f| f.is_binary == (f.additions.is_none() && f.path != "sub")));
    let subs: Vec<&str> = h
        .file_changes
        .iter()
        .filter(|f| f.path == "sub")
        .map(|f| f.change.as_str())
        .collect();
    assert_eq!(subs.len(), 2);
    assert!(subs.contains(&"A") && subs.contains(&"M"));

    // Spot checks, so the comparison above cannot pass on two equally wrong sides.
    let row = |path: &str, change: &str| {
        h.file_changes
            .iter()
            .find(|f| f.path == path && f.change == change)
            .map(|f| (f.old_path.clone(), f.additions, f.deletions, f.is_binary))
    };
    assert_eq!(
        row("c.txt", "R"),
        Some((Some("b.txt".into()), Some(0), Some(0), false))
    );
    assert_eq!(
        row("src/x.rs", "R"),
        Some((Some("dir/x.rs".into()), Some(2), Some(2), false))
    );
    assert_eq!(
        row("new/one.txt", "R"),
        Some((Some("old/one.txt".into()), Some(0), Some(0), false))
    );
    assert_eq!(
        row("bin2.dat", "R"),
        Some((Some("bin.dat".into()), None, None, true))
    );
    assert_eq!(
        row("empty2.txt", "R"),
        Some((Some("empty.txt".into()), Some(0), Some(0), false))
    );
    assert_eq!(row("noeol.txt", "M"), Some((None, Some(1), Some(1), false)));
    assert_eq!(
        row("deps.lock", "M"),
        Some((None, None, None, true)),
        "-diff attribute"
    );
    assert_eq!(
        row("app.cfg", "M"),
        Some((None, Some(1), Some(0), false)),
        "undefined driver"
    );
    assert_eq!(row("crlf.txt", "M"), Some((None, Some(1), Some(1), false)));
    let tool: Vec<(Option<i64>, Option<i64>)> = h
        .file_changes
        .iter()
        .filter(|f| f.path == "tool.sh")
        .map(|f| (f.additions, f.deletions))
        .collect();
    // A mode change alone, then a file replaced by a symlink (git's type change).
    assert!(
        tool.contains(&(Some(0), Some(0))) && tool.contains(&(Some(1), Some(1))),
        "{tool:?}"
    );
    assert_eq!(row("src/x.rs", "D"), Some((None, Some(0), Some(20), false)));
    assert_eq!(
        row("src/low.rs", "A"),
        Some((None, Some(20), Some(0), false))
    );
    let merge = h.commits.iter().find(|c| c.parents.len() == 2).unwrap();
    let merged: Vec<&str> = h
        .file_changes
        .iter()
        .filter(|f| f.sha == merge.sha)
        .map(|f| f.path.as_str())
        .collect();
    assert_eq!(
        merged,
        vec!["a.txt", "feat.txt"],
        "merge diffed against its first parent"
    );

    let report = git_report(&snap);
    assert_eq!(report.completeness.as_ref().unwrap().reason, "full-history");
    assert_eq!(count(&report, "commits.merges"), 1);
    assert_eq!(count(&report, "commits.diffed"), h.commits.len() as i64);
}
