//! `ckb report` over real snapshots: a Cargo workspace built by the test (three crates, two of
//! them importing each other: a dependency cycle) snapshotted at three commits into one store.
//!
//! The report is opened as a person would open it — in headless Chromium (Debian's, driven by
//! puppeteer-core through `tests/support/report_check.cjs`) with JavaScript on and the network
//! off — and must show no console error, request nothing, hold every section, and draw one graph
//! node per module the `arch` answer shows; clicking a module must bring its table row into view.
//! The screenshot is kept at `$CARGO_TARGET_TMPDIR/ckb-report.png` for a person to look at.
//! A file name that is HTML must show as text (no request, no script). Every bad input of the
//! issue's table is a test here.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use serde_json::Value;

const REPO_ID: &str = "demo";

/// A Cargo workspace: `app` uses `core`; `core` and `util` import each other.
fn workspace() -> Fixture {
    let f = Fixture::git();
    f.write(".gitignore", ".ckb/\ntarget/\n")
        .write("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n")
        .write(
            "crates/core/Cargo.toml",
            "[package]\nname = \"demo-core\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ndemo-util = { path = \"../util\" }\n",
        )
        .write(
            "crates/core/src/lib.rs",
            "use demo_util::trim;\n\npub fn parse(input: &str) -> usize {\n    trim(input).len()\n}\n\npub fn tokenize(input: &str) -> Vec<String> {\n    input.split(' ').map(String::from).collect()\n}\n",
        )
        .write(
            "crates/util/Cargo.toml",
            "[package]\nname = \"demo-util\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ndemo-core = { path = \"../core\" }\n",
        )
        .write(
            "crates/util/src/lib.rs",
            "use demo_core::tokenize;\n\npub fn trim(s: &str) -> &str {\n    s.trim()\n}\n\npub fn words(s: &str) -> usize {\n    tokenize(s).len()\n}\n",
        )
        .write(
            "crates/app/Cargo.toml",
            "[package]\nname = \"demo-app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ndemo-core = { path = \"../core\" }\n",
        )
        .write(
            "crates/app/src/main.rs",
            "use demo_core::parse;\n\nfn main() {\n    println!(\"{}\", parse(\"a b\"));\n}\n",
        )
        // A file name chosen to run code in whoever opens the report: it must show as text.
        .write(HOSTILE, "pub fn x() {}\n");
    f
}

/// A file whose name is HTML that would load an image (a request the browser check sees) and
/// run script if it were not escaped.
const HOSTILE: &str = "crates/app/src/<img src=x onerror=alert(1)>.rs";

fn snapshot(f: &Fixture, store: &Path, previous: Option<&Path>, stages: Option<&str>) -> PathBuf {
    let store_arg = store.to_str().unwrap();
    let mut args = vec![
        "snapshot",
        "--out",
        store_arg,
        "--repo-id",
        REPO_ID,
        "--progress",
        "never",
        "--json",
    ];
    let prev;
    if let Some(p) = previous {
        prev = p.to_str().unwrap().to_string();
        args.extend(["--previous", prev.as_str()]);
    }
    if let Some(s) = stages {
        args.extend(["--stages", s]);
    }
    ckb_ok(f.path(), &args);
    let head = f.run_git(&["rev-parse", "HEAD"]);
    store.join(format!("repo={REPO_ID}/commit={head}"))
}

/// The workspace at three commits, each snapshotted against the one before.
fn store_of_three() -> (Fixture, tempfile::TempDir, Vec<PathBuf>) {
    let f = workspace();
    let store = tempfile::tempdir().unwrap();
    f.commit("one");
    let s1 = snapshot(&f, store.path(), None, None);
    f.write(
        "crates/core/src/extra.rs",
        "pub fn extra(n: u32) -> u32 {\n    n + 1\n}\n",
    )
    .write(
        "crates/core/src/lib.rs",
        "use demo_util::trim;\n\npub mod extra;\n\npub fn parse(input: &str) -> usize {\n    trim(input).len()\n}\n\npub fn tokenize(input: &str) -> Vec<String> {\n    input.split(' ').map(String::from).collect()\n}\n",
    );
    f.commit("two");
    let s2 = snapshot(&f, store.path(), Some(&s1), None);
    // A breaking change: parse takes a second parameter; app follows, util does not call it.
    f.write(
        "crates/core/src/lib.rs",
        "use demo_util::trim;\n\npub mod extra;\n\npub fn parse(input: &str, strict: bool) -> usize {\n    if strict { trim(input).len() } else { input.len() }\n}\n\npub fn tokenize(input: &str) -> Vec<String> {\n    input.split(' ').map(String::from).collect()\n}\n",
    )
    .write(
        "crates/app/src/main.rs",
        "use demo_core::parse;\n\nfn main() {\n    println!(\"{}\", parse(\"a b\", true));\n}\n",
    );
    f.commit("three");
    let s3 = snapshot(&f, store.path(), Some(&s2), None);
    (f, store, vec![s1, s2, s3])
}

fn report(dir: &Path, args: &[&str]) -> std::process::Output {
    ckb(dir, &[&["report"], args].concat())
}

/// `--store <store> -o <html>`.
fn store_and_output<'a>(store: &'a Path, html: &'a Path) -> [&'a str; 4] {
    let text = |p: &'a Path| p.to_str().unwrap();
    ["--store", text(store), "-o", text(html)]
}

fn report_ok(dir: &Path, args: &[&str]) -> String {
    ckb_ok(dir, &[&["report"], args].concat())
}

/// What Chromium saw (see tests/support/report_check.cjs), or `None` when a tool is missing
/// (which fails under CI).
fn open_in_chromium(html: &Path, screenshot: &Path) -> Option<Value> {
    let modules = test_support::node_tool("puppeteer-core")?;
    let chromium = test_support::chromium()?;
    let script = Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo test"))
        .join("tests/support/report_check.cjs");
    let out = Command::new("node")
        .arg(script)
        .arg(&modules)
        .arg(&chromium)
        .arg(html)
        .arg(screenshot)
        .output()
        .expect("node runs");
    test_support::assert_success(&out, "report_check.cjs (headless chromium)");
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .map(|x| x.as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn the_report_of_a_store_opens_in_chromium_with_every_section_and_no_error() {
    let (f, store, snaps) = store_of_three();
    let out_dir = tempfile::tempdir().unwrap();
    let html = out_dir.path().join("report.html");
    let printed = report_ok(
        f.path(),
        &[
            "--store",
            store.path().to_str().unwrap(),
            "--output",
            html.to_str().unwrap(),
        ],
    );
    assert!(printed.starts_with("wrote "), "{printed}");
    let text = std::fs::read_to_string(&html).unwrap();

    // Self-contained: nothing is loaded from anywhere, and the page forbids it.
    assert!(text.contains("Content-Security-Policy\" content=\"default-src 'none'"));
    for outside in [
        "src=\"http",
        "href=\"http",
        "<link",
        "@import",
        "url(http",
        "<iframe",
    ] {
        assert!(
            !text.contains(outside),
            "the page refers outside: {outside}"
        );
    }
    assert!(text.len() < 2 * 1024 * 1024);
    // A hostile file name is text, never markup.
    assert!(
        text.contains("&lt;img src=x onerror=alert(1)&gt;.rs"),
        "the hostile file is listed"
    );
    assert!(!text.contains("<img"), "and never markup");
    // Byte-deterministic: the same store gives the same page.
    let again = out_dir.path().join("again.html");
    report_ok(f.path(), &store_and_output(store.path(), &again));
    assert_eq!(text, std::fs::read_to_string(&again).unwrap());

    // The modules the arch answer shows (the report's graph budget) are the graph's nodes.
    let arch: Value = serde_json::from_str(&query_json_ok(
        f.path(),
        snaps[2].to_str().unwrap(),
        &["--max-modules", "40", "--max-items", "1000", "arch"],
    ))
    .unwrap();
    let mut expected: Vec<String> = arch["facts"]["modules"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect();
    expected.sort();
    assert!(
        expected.len() >= 3,
        "the workspace has modules: {expected:?}"
    );
    assert!(
        !arch["facts"]["cycles"].as_array().unwrap().is_empty(),
        "core and util import each other: {}",
        arch["facts"]
    );

    let screenshot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ckb-report.png");
    let Some(seen) = open_in_chromium(&html, &screenshot) else {
        return;
    };
    eprintln!("screenshot of the report: {}", screenshot.display());
    assert_eq!(
        strings(&seen["consoleErrors"]),
        Vec::<String>::new(),
        "{seen}"
    );
    assert_eq!(strings(&seen["pageErrors"]), Vec::<String>::new(), "{seen}");
    assert_eq!(strings(&seen["requests"]), Vec::<String>::new(), "{seen}");
    if !seen["consoleWarnings"].as_array().is_none_or(Vec::is_empty) {
        eprintln!("console warnings: {}", seen["consoleWarnings"]);
    }
    assert_eq!(seen["title"], format!("ckb report · {REPO_ID}"));
    assert_eq!(
        strings(&seen["sections"]),
        [
            "architecture",
            "modules",
            "cycles",
            "hotspots",
            "changes",
            "trend",
            "sources"
        ]
    );
    let mut drawn = strings(&seen["architecture"]["modules"]);
    drawn.sort();
    assert_eq!(drawn, expected, "one node per module shown");
    assert!(
        seen["architecture"]["cycleEdges"].as_u64().unwrap() >= 2,
        "{seen}"
    );
    assert!(seen["architecture"]["width"].as_f64().unwrap() > 100.0);
    assert_eq!(seen["lineCharts"], 6);
    assert_eq!(seen["trendRows"], 3);
    assert!(seen["scatterPoints"].as_u64().unwrap() >= 1);
    assert!(
        seen["impact"]["modules"]
            .as_array()
            .is_some_and(|m| !m.is_empty()),
        "{seen}"
    );
    for card in seen["cards"].as_array().unwrap() {
        assert_eq!(
            card["target"], true,
            "every summary number links to its table: {card}"
        );
    }
    assert!(
        seen["afterClick"]["target"]
            .as_str()
            .is_some_and(|t| t.starts_with("module-")),
        "clicking a module shows its row: {seen}"
    );
    assert_eq!(seen["afterClick"]["selected"], 1);
    assert!(std::fs::metadata(&screenshot).unwrap().len() > 10_000);
}

#[test]
fn without_the_modules_stage_the_report_says_so_and_shows_the_rest() {
    let f = workspace();
    f.commit("one");
    let store = tempfile::tempdir().unwrap();
    let s = snapshot(&f, store.path(), None, Some("scan,syntax,git,identity"));
    let out = tempfile::tempdir().unwrap();
    let html = out.path().join("r.html");
    report_ok(
        f.path(),
        &[
            "--snapshot",
            s.to_str().unwrap(),
            "--output",
            html.to_str().unwrap(),
        ],
    );
    let text = std::fs::read_to_string(&html).unwrap();
    assert!(
        text.contains("no architecture view: the modules stage did not run"),
        "missing note"
    );
    assert!(!text.contains("id=\"architecture-graph\""));
    assert!(
        text.contains("id=\"hotspot-table\""),
        "hotspots still shown"
    );
    assert!(text.contains("One snapshot (pass <code>--store</code>"));
    assert!(text.contains("no trend to draw"));
    let Some(seen) = open_in_chromium(&html, &out.path().join("r.png")) else {
        return;
    };
    assert_eq!(
        strings(&seen["consoleErrors"]),
        Vec::<String>::new(),
        "{seen}"
    );
    assert_eq!(strings(&seen["pageErrors"]), Vec::<String>::new(), "{seen}");
    assert_eq!(seen["lineCharts"], 0);
    assert!(seen["architecture"].is_null());
}

#[test]
fn a_store_with_one_snapshot_has_a_note_instead_of_a_trend() {
    let f = workspace();
    f.commit("one");
    let store = tempfile::tempdir().unwrap();
    snapshot(&f, store.path(), None, None);
    let out = tempfile::tempdir().unwrap();
    let html = out.path().join("one.html");
    report_ok(f.path(), &store_and_output(store.path(), &html));
    let text = std::fs::read_to_string(&html).unwrap();
    assert!(text.contains("The store holds one snapshot of this repository: no trend to draw"));
    assert!(!text.contains("class=\"chart line\""));
    assert!(text.contains("there is nothing to compare it with"));
    assert!(text.contains("id=\"architecture-graph\""));
}

#[test]
fn an_unwritable_output_is_an_error_naming_the_path_and_nothing_is_half_written() {
    let (f, store, _) = {
        let f = workspace();
        f.commit("one");
        let store = tempfile::tempdir().unwrap();
        let s = snapshot(&f, store.path(), None, None);
        (f, store, s)
    };
    let store_arg = store.path().to_str().unwrap();
    let out = tempfile::tempdir().unwrap();

    // A folder that does not exist.
    let missing = out.path().join("no/such/folder/r.html");
    let o = report(
        f.path(),
        &["--store", store_arg, "-o", missing.to_str().unwrap()],
    );
    test_support::assert_fails_mentioning(&o, &["PATH_NOT_FOUND", missing.to_str().unwrap()]);

    // A folder where the file should go; and a file where a folder should be.
    let folder = out.path().join("taken");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("keep"), "x").unwrap();
    let o = report(
        f.path(),
        &["--store", store_arg, "-o", folder.to_str().unwrap()],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err.contains("IO_ERROR") && err.contains(folder.to_str().unwrap()),
        "{err}"
    );
    let file = out.path().join("plain");
    std::fs::write(&file, "keep me").unwrap();
    let under_file = file.join("r.html");
    let o = report(
        f.path(),
        &["--store", store_arg, "-o", under_file.to_str().unwrap()],
    );
    test_support::assert_fails_mentioning(&o, &["IO_ERROR", under_file.to_str().unwrap()]);

    // Nothing half-written: only what was there before.
    let mut left: Vec<String> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["plain", "taken"]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");

    // An existing report is replaced whole.
    let html = out.path().join("r.html");
    std::fs::write(&html, "old").unwrap();
    report_ok(
        f.path(),
        &["--store", store_arg, "-o", html.to_str().unwrap()],
    );
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .starts_with("<!DOCTYPE html>"));
}

#[test]
fn a_store_of_several_repositories_needs_a_repo_id_and_bad_flags_are_errors() {
    let f = workspace();
    f.commit("one");
    let store = tempfile::tempdir().unwrap();
    snapshot(&f, store.path(), None, Some("scan"));
    let store_arg = store.path().to_str().unwrap();
    ckb_ok(
        f.path(),
        &[
            "snapshot",
            "--out",
            store_arg,
            "--repo-id",
            "other",
            "--progress",
            "never",
            "--stages",
            "scan",
        ],
    );
    let out = tempfile::tempdir().unwrap();
    let html = out.path().join("r.html");
    let o = report(
        f.path(),
        &["--store", store_arg, "-o", html.to_str().unwrap()],
    );
    test_support::assert_fails_mentioning(&o, &["INVALID_PARAMETER", "demo, other"]);
    report_ok(
        f.path(),
        &[
            "--store",
            store_arg,
            "--repo-id",
            "other",
            "-o",
            html.to_str().unwrap(),
        ],
    );
    assert!(std::fs::read_to_string(&html)
        .unwrap()
        .contains("ckb report · other"));
    let o = report(
        f.path(),
        &[
            "--store",
            store_arg,
            "--repo-id",
            "nope",
            "-o",
            html.to_str().unwrap(),
        ],
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("SNAPSHOT_NOT_FOUND"));
    let o = report(f.path(), &["--store", store_arg, "--max-modules", "0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--max-modules"));
    let o = report(
        f.path(),
        &["--store", out.path().join("none").to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("SNAPSHOT_NOT_FOUND"));
}
