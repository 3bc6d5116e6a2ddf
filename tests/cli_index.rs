//! `ckb index` from the CLI, with fake indexers on `PATH` (shell scripts that write a real SCIP
//! index, crash, or hang with a grandchild that ignores SIGTERM): the bad-input table of the
//! issue — an indexer not installed, crashing, timing out, an index of another commit — plus
//! `--strict`, up-to-date indexes, `ckb snapshot --index`, Ctrl-C and `ckb query doctor`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;

/// What a fake indexer does when run (its `--version` always answers).
enum Fake {
    /// Copies `<fakes>/<tool>.index` to its `--output`.
    Writes,
    /// Writes half an index, prints 30 lines on stderr, exits 2.
    Crashes,
    /// Writes half an index, starts a grandchild that ignores SIGTERM (its pid in
    /// `<fakes>/grandchild.pid`), and sleeps.
    Hangs,
    /// Writes bytes that are no SCIP index and exits 0.
    WritesGarbage,
    /// Answers `--version` with rustup's error for a component that is not installed.
    IsAProxy,
    /// Marks itself started, then waits up to 5 s for the named fake to have started too before
    /// it writes its index (exit 3 if it never does): both succeed only when they run at once.
    Meets(&'static str),
}

/// A folder of fake indexers, and a log of their runs.
struct Fakes {
    dir: tempfile::TempDir,
}

impl Fakes {
    fn new() -> Fakes {
        Fakes {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn add(&self, tool: &str, fake: Fake, documents: &[&str]) -> &Self {
        let body = match fake {
            Fake::Writes => format!("cp \"$FAKE_DIR/{tool}.index\" \"$out\""),
            Fake::Crashes => "printf partial > \"$out\"\n\
                 i=1; while [ $i -le 30 ]; do echo \"error line $i\" >&2; i=$((i+1)); done\n\
                 exit 2"
                .to_string(),
            Fake::Hangs => "printf partial > \"$out\"\n\
                 sh -c 'trap \"\" TERM; echo $$ > \"$FAKE_DIR/grandchild.pid\"; \
                 while :; do sleep 1; done' &\n\
                 echo waiting; sleep 300"
                .to_string(),
            Fake::WritesGarbage => "printf '\\377\\377\\377 not protobuf' > \"$out\"".to_string(),
            Fake::IsAProxy => String::new(),
            Fake::Meets(other) => format!(
                "touch \"$FAKE_DIR/{tool}.started\"\n\
                 i=0; while [ ! -e \"$FAKE_DIR/{other}.started\" ]; do\n\
                 i=$((i+1)); [ $i -gt 50 ] && {{ echo \"{other} never started\" >&2; exit 3; }}\n\
                 sleep 0.1; done\n\
                 cp \"$FAKE_DIR/{tool}.index\" \"$out\""
            ),
        };
        let version = match fake {
            Fake::IsAProxy => format!(
                "echo \"error: Unknown binary '{tool}' in official toolchain 'stable'.\" >&2; \
                 echo 'To install, run `rustup component add {tool}`' >&2; exit 1"
            ),
            _ => format!("echo '{tool} 0.0.0-fake'; exit 0"),
        };
        let script = format!(
            "#!/bin/sh\nPATH=/usr/bin:/bin\n\
             if [ \"$1\" = --version ]; then {version}; fi\n\
             echo \"{tool} $PWD\" >> \"$FAKE_DIR/runs.log\"\n\
             out=''; prev=''\n\
             for a in \"$@\"; do [ \"$prev\" = --output ] && out=\"$a\"; prev=\"$a\"; done\n\
             {body}\n"
        );
        let path = self.dir.path().join(tool);
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(
            self.dir.path().join(format!("{tool}.index")),
            scip_index(tool, documents),
        )
        .unwrap();
        self
    }

    /// How many times `tool` ran (not counting `--version`).
    fn runs(&self, tool: &str) -> usize {
        std::fs::read_to_string(self.dir.path().join("runs.log"))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.split(' ').next() == Some(tool))
            .count()
    }

    /// The pid the hanging fake's grandchild wrote, once it is there: the shell creates the file
    /// before `echo` writes the number, and a test that read it in between took the empty pid
    /// for a process that never exits (seen on a loaded machine). `None` after a minute.
    fn grandchild_pid(&self) -> Option<u32> {
        let path = self.dir.path().join("grandchild.pid");
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let pid = std::fs::read_to_string(&path).ok();
            if let Some(pid) = pid.and_then(|p| p.trim().parse().ok()) {
                return Some(pid);
            }
            if Instant::now() >= until {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// `ckb` in `repo` with only the fakes on `PATH`.
fn ckb_with(fakes: &Fakes, repo: &Path, args: &[&str]) -> Output {
    command(fakes, repo, args).output().unwrap()
}

fn command(fakes: &Fakes, repo: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ckb"));
    cmd.args(args)
        .current_dir(repo)
        .env("PATH", fakes.dir.path())
        .env("FAKE_DIR", fakes.dir.path())
        .env("XDG_CACHE_HOME", fakes.dir.path().join("cache"))
        .env_remove("CKB_STORE")
        .env_remove("NO_COLOR");
    cmd
}

fn json_of(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "{e}: {text}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn run_of<'a>(report: &'a Value, tool: &str) -> &'a Value {
    report["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["tool"] == tool)
        .unwrap_or_else(|| panic!("no run of {tool}: {report}"))
}

/// Why a run failed, was skipped or is missing, as its report says.
fn reason_of(run: &Value) -> &str {
    run["reason"]
        .as_str()
        .unwrap_or_else(|| panic!("no reason in {run}"))
}

fn polyglot_repo() -> Fixture {
    let repo = Fixture::git();
    repo.write(
        "Cargo.toml",
        "[package]\nname = \"fx\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .write("src/lib.rs", "pub fn parse() -> usize {\n    1\n}\n")
    .write("app.py", "def main():\n    return 1\n")
    .write(
        "web/app.ts",
        "export function render(): number {\n  return 1;\n}\n",
    )
    .write("tool.rb", "def tool\n  1\nend\n");
    repo.commit("one");
    repo
}

fn partial_files(repo: &Path) -> Vec<String> {
    std::fs::read_dir(repo.join(".ckb"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".partial"))
                .collect()
        })
        .unwrap_or_default()
}

fn process_alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .unwrap_or_default()
            .contains(") Z ")
}

#[test]
fn crashed_and_timed_out_indexers_leave_no_index_and_fail_only_with_strict() {
    let repo = polyglot_repo();
    let head = repo.run_git(&["rev-parse", "HEAD"]);
    let fakes = Fakes::new();
    fakes
        .add("rust-analyzer", Fake::Writes, &["src/lib.rs"])
        .add("scip-python", Fake::Crashes, &[])
        .add("scip-typescript", Fake::Hangs, &[]);
    let t0 = Instant::now();
    let out = ckb_with(
        &fakes,
        repo.path(),
        &["index", "--json", "--timeout", "2", "--progress", "never"],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The hang is cut at 2 s (plus the 2 s grace for SIGTERM), not 300.
    assert!(t0.elapsed() < Duration::from_secs(60), "{:?}", t0.elapsed());
    let report = json_of(&out);
    assert_eq!(report["headCommit"], head.as_str());

    let rust = run_of(&report, "rust-analyzer");
    assert_eq!(rust["status"], "indexed");
    assert_eq!(rust["version"], "0.0.0-fake");
    assert_eq!(rust["documents"], 1);
    assert_eq!(rust["index"], ".ckb/rust-analyzer.scip");
    // The sidecar: HEAD (what a snapshot reads), then the state the index was built from.
    let sidecar =
        std::fs::read_to_string(repo.path().join(".ckb/rust-analyzer.scip.commit")).unwrap();
    let lines: Vec<&str> = sidecar.lines().collect();
    assert_eq!(lines[0], head.as_str());
    assert!(
        lines[1].starts_with("state ") && lines.len() == 2,
        "{sidecar}"
    );

    let python = run_of(&report, "scip-python");
    assert_eq!(python["status"], "failed");
    assert_eq!(python["reason"], "exited with status 2");
    let tail = python["outputTail"].as_array().unwrap();
    assert_eq!(tail.len(), 20, "{tail:?}");
    assert_eq!(tail.last().unwrap(), "error line 30");
    assert!(python["command"]
        .as_str()
        .unwrap()
        .contains("--project-name"));

    let ts = run_of(&report, "scip-typescript");
    assert_eq!(ts["status"], "timed-out");
    assert!(reason_of(ts).contains("--timeout"), "{ts}");
    let pid = fakes.grandchild_pid().expect("the grandchild started");
    let until = Instant::now() + Duration::from_secs(10);
    while process_alive(pid) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!process_alive(pid), "the grandchild outlived the timeout");

    // Their partial output is nowhere: no index, no temporary file.
    assert!(!repo.path().join(".ckb/scip-python.scip").exists());
    assert!(!repo.path().join(".ckb/scip-typescript.scip").exists());
    assert_eq!(partial_files(repo.path()), Vec::<String>::new());
    // Ruby: no indexer, no grammar.
    let notices = report["notices"].to_string();
    assert!(
        notices.contains("ruby (1 file): no SCIP indexer and no tree-sitter grammar"),
        "{notices}"
    );

    // --strict: the same run fails, with the report as the error's details (one JSON document).
    let out = ckb_with(
        &fakes,
        repo.path(),
        &["index", "--json", "--strict", "--timeout", "2"],
    );
    let err = error_answer(&out, "INDEXER_FAILED");
    assert_error_says(&err, "message", "scip-python (.: failed)");
    assert_eq!(
        run_of(&err["error"]["details"], "rust-analyzer")["status"],
        "up-to-date",
        "an index of HEAD of a clean checkout is not rebuilt"
    );
    assert_eq!(fakes.runs("rust-analyzer"), 1);
    // For people: the report on stdout (with the failure's last lines), the error on stderr.
    let out = ckb_with(
        &fakes,
        repo.path(),
        &[
            "index",
            "--strict",
            "--timeout",
            "2",
            "--languages",
            "python",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("scip-python 0.0.0-fake: failed"), "{text}");
    assert!(text.contains("    | error line 30"), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("INDEXER_FAILED"));

    // The snapshot reads the one good index; tree-sitter covers Python and TypeScript.
    let store = tempfile::tempdir().unwrap();
    let snap = snapshot(repo.path(), store.path(), &[]);
    let m = manifest(&snap);
    let backends: Vec<_> = m.backends.iter().filter(|b| b.kind == "scip").collect();
    assert_eq!(backends.len(), 1, "{backends:?}");
    assert_eq!(backends[0].tool, "rust-analyzer");
    assert_eq!(
        backends[0].input.as_deref(),
        Some(".ckb/rust-analyzer.scip")
    );
    assert_eq!(backends[0].facts["freshness"], "current");
    assert!(
        !m.repo_state.dirty,
        "indexes and sidecars do not make the tree dirty"
    );
    let syntax = &m.stages["syntax"].breakdown;
    assert!(
        syntax.contains_key("python") && syntax.contains_key("typescript"),
        "{syntax:?}"
    );
    // ckb's own inputs are not files of the repository.
    let files: Vec<output_schema::tables::FileRow> =
        output_schema::parquet_io::read_table(&snap.join("files.parquet")).unwrap();
    assert!(
        files.iter().all(|f| !f.path.starts_with(".ckb/")),
        "{files:?}"
    );
}

#[test]
fn an_index_that_does_not_decode_or_describes_other_files_is_not_used() {
    let repo = polyglot_repo();
    let fakes = Fakes::new();
    fakes.add("scip-typescript", Fake::WritesGarbage, &[]).add(
        "scip-python",
        Fake::Writes,
        &["elsewhere/app.py"],
    );
    let out = ckb_with(&fakes, repo.path(), &["index", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let report = json_of(&out);
    let ts = run_of(&report, "scip-typescript");
    assert_eq!(ts["status"], "failed");
    assert!(
        reason_of(ts).starts_with("it wrote an index ckb cannot read"),
        "{ts}"
    );
    let py = run_of(&report, "scip-python");
    assert_eq!(py["status"], "failed");
    assert_eq!(
        py["reason"],
        "none of the 1 documents of its index is a file the scan kept"
    );
    assert!(!repo.path().join(".ckb/scip-typescript.scip").exists());
    assert!(!repo.path().join(".ckb/scip-python.scip").exists());
    assert_eq!(partial_files(repo.path()), Vec::<String>::new());
    // So the snapshot, which would refuse such an index (SCIP_INVALID), succeeds.
    let store = tempfile::tempdir().unwrap();
    snapshot(repo.path(), store.path(), &[]);
}

#[test]
fn a_missing_indexer_is_a_notice_with_its_install_command() {
    let repo = polyglot_repo();
    let empty = Fakes::new();
    let out = ckb_with(
        &empty,
        repo.path(),
        &["index", "--json", "--languages", "rust,ruby"],
    );
    assert_eq!(out.status.code(), Some(0));
    let report = json_of(&out);
    let rust = run_of(&report, "rust-analyzer");
    assert_eq!(rust["status"], "missing");
    assert_eq!(rust["install"], "rustup component add rust-analyzer");
    assert_eq!(rust["notes"][0], "tree-sitter will cover rust");
    // Only the languages asked for.
    assert_eq!(report["runs"].as_array().unwrap().len(), 1, "{report}");
    let text = ckb_with(&empty, repo.path(), &["index", "--languages", "python"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("install: npm install -g @sourcegraph/scip-python@0.6.6"),
        "{text}"
    );
    assert!(text.contains("tree-sitter will cover python"), "{text}");
    assert!(text.contains("no index written"), "{text}");

    // rustup's proxy is on PATH without the component: missing too, saying why.
    let proxy = Fakes::new();
    proxy.add("rust-analyzer", Fake::IsAProxy, &[]);
    let report = json_of(&ckb_with(
        &proxy,
        repo.path(),
        &["index", "--json", "--languages", "rust"],
    ));
    let rust = run_of(&report, "rust-analyzer");
    assert_eq!(rust["status"], "missing");
    let reason = reason_of(rust);
    assert!(
        reason.contains("`rust-analyzer --version` fails")
            && reason.contains("rustup component add rust-analyzer"),
        "{rust}"
    );
    assert_eq!(proxy.runs("rust-analyzer"), 0);

    // --strict fails only for a language asked for by name.
    assert_eq!(
        ckb_with(&empty, repo.path(), &["index", "--strict"])
            .status
            .code(),
        Some(0)
    );
    let out = ckb_with(
        &empty,
        repo.path(),
        &["index", "--strict", "--json", "--languages", "rust"],
    );
    let err = error_answer(&out, "INDEXER_MISSING");
    assert_error_says(&err, "remediation", "rustup component add rust-analyzer");

    // Bad values are refused before anything runs.
    let out = ckb_with(
        &empty,
        repo.path(),
        &["index", "--json", "--languages", "cobol"],
    );
    let err = error_answer(&out, "INVALID_PARAMETER");
    assert_error_says(&err, "message", "cobol");
    for bad in [["--jobs", "0"], ["--timeout", "0"]] {
        let mut args = vec!["index", "--json"];
        args.extend(bad);
        error_answer(&ckb_with(&empty, repo.path(), &args), "INVALID_PARAMETER");
    }
    assert!(!repo.path().join(".ckb").exists(), "nothing was written");
}

#[test]
fn jobs_runs_indexers_at_once_and_one_job_runs_them_in_catalog_order() {
    let repo = polyglot_repo();
    let meeting = || {
        let fakes = Fakes::new();
        fakes
            .add("rust-analyzer", Fake::Meets("scip-python"), &["src/lib.rs"])
            .add("scip-python", Fake::Meets("rust-analyzer"), &["app.py"]);
        fakes
    };
    let args = ["index", "--json", "--force", "--languages", "rust,python"];
    // Two at once: each sees the other start, both index.
    let fakes = meeting();
    let out = ckb_with(&fakes, repo.path(), &[&args[..], &["--jobs", "2"]].concat());
    assert_eq!(out.status.code(), Some(0));
    let report = json_of(&out);
    for tool in ["rust-analyzer", "scip-python"] {
        assert_eq!(run_of(&report, tool)["status"], "indexed", "{report}");
    }
    // The report keeps catalog order whichever finished first.
    let tools = test_support::json::strs(&report["runs"], "tool");
    assert_eq!(tools, ["rust-analyzer", "scip-python"]);

    // One at a time (the default): rust-analyzer (first in the catalog) waits for scip-python
    // in vain and fails; scip-python then finds it started and indexes.
    let fakes = meeting();
    let report = json_of(&ckb_with(&fakes, repo.path(), &args));
    let rust = run_of(&report, "rust-analyzer");
    assert_eq!(rust["status"], "failed", "{report}");
    assert_eq!(rust["outputTail"][0], "scip-python never started", "{rust}");
    assert_eq!(run_of(&report, "scip-python")["status"], "indexed");
}

#[test]
fn an_index_of_another_commit_is_stale_until_ckb_index_runs_again() {
    let repo = polyglot_repo();
    let fakes = Fakes::new();
    fakes.add("rust-analyzer", Fake::Writes, &["src/lib.rs"]);
    let index = |extra: &[&str]| {
        let mut args = vec!["index", "--json", "--languages", "rust"];
        args.extend_from_slice(extra);
        let out = ckb_with(&fakes, repo.path(), &args);
        assert_eq!(out.status.code(), Some(0));
        json_of(&out)
    };
    assert_eq!(run_of(&index(&[]), "rust-analyzer")["status"], "indexed");
    repo.write("src/lib.rs", "pub fn parse() -> usize {\n    2\n}\n");
    repo.commit("two");

    let store = tempfile::tempdir().unwrap();
    let snap = snapshot(repo.path(), store.path(), &[]);
    let m = manifest(&snap);
    let backend = m.backends.iter().find(|b| b.kind == "scip").unwrap();
    assert_eq!(backend.facts["freshness"], "behind");
    assert!(
        m.stages["scip"]
            .warnings
            .iter()
            .any(|w| w.code == "index-stale"),
        "{:?}",
        m.stages["scip"].warnings
    );
    let scip = snapshot_doctor_check(repo.path(), &snap, "scip");
    assert_eq!(scip["status"], "warn");
    assert!(
        scip["message"].as_str().unwrap().starts_with("INDEX_STALE"),
        "{scip}"
    );
    // The fix reruns the stale index's indexer and those of the main languages without one.
    assert_eq!(
        scip["fix"], "ckb index --languages rust,typescript,python && ckb snapshot --force",
        "{scip}"
    );

    // HEAD moved: the index is rebuilt; then it is up to date until --force or a change.
    assert_eq!(run_of(&index(&[]), "rust-analyzer")["status"], "indexed");
    assert_eq!(run_of(&index(&[]), "rust-analyzer")["status"], "up-to-date");
    assert_eq!(fakes.runs("rust-analyzer"), 2);
    assert_eq!(
        run_of(&index(&["--force"]), "rust-analyzer")["status"],
        "indexed"
    );
    repo.write("src/extra.rs", "pub fn extra() {}\n");
    let dirty = index(&[]);
    assert_eq!(run_of(&dirty, "rust-analyzer")["status"], "indexed");
    assert!(dirty["dirty"].as_bool().unwrap());
    assert!(
        dirty["notices"].to_string().contains("dirty-worktree"),
        "{dirty}"
    );
    assert_eq!(fakes.runs("rust-analyzer"), 4);
    std::fs::remove_file(repo.path().join("src/extra.rs")).unwrap();
    index(&[]);

    let snap = snapshot(repo.path(), store.path(), &["--force"]);
    let backend = manifest(&snap)
        .backends
        .into_iter()
        .find(|b| b.kind == "scip")
        .unwrap();
    assert_eq!(backend.facts["freshness"], "current");
}

#[test]
fn snapshot_with_index_runs_the_indexers_first_and_doctor_names_a_missing_index() {
    let repo = polyglot_repo();
    // Python as a main language: as many files as Rust.
    repo.write("lib/util.py", "def util():\n    return 2\n");
    repo.write("src/util.rs", "pub fn util() {}\n");
    repo.commit("two");
    let fakes = Fakes::new();
    fakes.add(
        "rust-analyzer",
        Fake::Writes,
        &["src/lib.rs", "src/util.rs"],
    );
    let store = tempfile::tempdir().unwrap();
    let out = ckb_with(
        &fakes,
        repo.path(),
        &[
            "snapshot",
            "--index",
            "--json",
            "--out",
            store.path().to_str().unwrap(),
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out);
    assert_eq!(run_of(&v["index"], "rust-analyzer")["status"], "indexed");
    assert_eq!(run_of(&v["index"], "scip-python")["status"], "missing");
    let snap = PathBuf::from(v["snapshot"].as_str().unwrap());
    let m = manifest(&snap);
    let backend = m.backends.iter().find(|b| b.kind == "scip").unwrap();
    assert_eq!(backend.counts["documentsUsed"], 2);
    assert_eq!(backend.facts["freshness"], "current");

    let scip = snapshot_doctor_check(repo.path(), &snap, "scip");
    assert_eq!(scip["status"], "warn", "{scip}");
    assert!(
        scip["message"].as_str().unwrap().contains(
            "no SCIP index for python (2 files, scip-python), typescript (1 file, \
                 scip-typescript)"
        ),
        "{scip}"
    );
    assert_eq!(
        scip["fix"],
        "ckb index --languages rust,typescript,python && ckb snapshot --force"
    );

    // Text mode: the index report goes to stderr, the snapshot's summary to stdout.
    let out = ckb_with(
        &fakes,
        repo.path(),
        &[
            "snapshot",
            "--index",
            "--force",
            "--out",
            store.path().to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("rust-analyzer 0.0.0-fake: up to date"),
        "{err}"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("scip "),
        "summary"
    );
    // --index and --no-scip contradict each other.
    let out = ckb_with(&fakes, repo.path(), &["snapshot", "--index", "--no-scip"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn ctrl_c_stops_the_running_indexers_and_exits_130() {
    let repo = polyglot_repo();
    let fakes = Fakes::new();
    fakes.add("rust-analyzer", Fake::Hangs, &[]);
    let child = command(&fakes, repo.path(), &["index", "--languages", "rust"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = fakes.grandchild_pid().expect("the indexer started");
    test_support::run_ok(Command::new("kill").args(["-INT", &child.id().to_string()]));
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("cancelled"));
    let until = Instant::now() + Duration::from_secs(10);
    while process_alive(pid) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!process_alive(pid), "the indexer's group outlived Ctrl-C");
    assert_eq!(partial_files(repo.path()), Vec::<String>::new());
    assert!(!repo.path().join(".ckb/rust-analyzer.scip").exists());
}
