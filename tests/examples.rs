//! The examples (`examples/`), end to end.
//!
//! The GitHub workflows are parsed as YAML; every `run:` step must call one of the example scripts,
//! and the test then executes those very `run:` strings, in order, the way a runner would
//! (`bash --noprofile --norc -eo pipefail -c`, the step's `env:` with its `${{ }}` expressions
//! filled in), in a fixture repository that has `examples/github/` committed as `.github/`. `uses:`
//! steps are GitHub's own actions: the test does what they do (checkout is the fixture; the uploaded
//! artifact becomes what the next run's `gh run download` returns), through a fake `gh`
//! (`tests/support/fake_gh.py`) that records every call. The SQL walkthrough runs over a fixture
//! store, both as its script and command by command from its markdown.
//!
//! Size: one simulated runner (workflow parser, `${{ }}` expansion, fake `gh`, artifacts) serves
//! every workflow test here, the real-package `ckb index` test included; split, each part would
//! need the whole runner.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::fixture_snapshot::sample_store;
use common::*;
use serde_json::Value;
use yaml_rust2::{Yaml, YamlLoader};

const ACTIONS: &[&str] = &[
    "actions/checkout@v4",
    "actions/cache@v4",
    "actions/upload-artifact@v4",
];

fn root() -> PathBuf {
    PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR"))
}

#[derive(Debug)]
enum Step {
    Uses {
        action: String,
        with: BTreeMap<String, String>,
    },
    Run {
        run: String,
        env: BTreeMap<String, String>,
    },
}

struct Workflow {
    doc: Yaml,
    steps: Vec<Step>,
}

fn map(y: &Yaml) -> BTreeMap<String, String> {
    y.as_hash()
        .map(|h| {
            h.iter()
                .map(|(k, v)| {
                    let v = match v {
                        Yaml::String(s) => s.clone(),
                        Yaml::Integer(i) => i.to_string(),
                        Yaml::Boolean(b) => b.to_string(),
                        other => panic!("unexpected value {other:?}"),
                    };
                    (k.as_str().unwrap().to_string(), v)
                })
                .collect()
        })
        .unwrap_or_default()
}

fn workflow(name: &str) -> Workflow {
    let path = root().join("examples/github/workflows").join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut docs = YamlLoader::load_from_str(&text)
        .unwrap_or_else(|e| panic!("{}: invalid YAML: {e}", path.display()));
    assert_eq!(docs.len(), 1);
    let doc = docs.remove(0);
    let jobs = doc["jobs"].as_hash().expect("jobs");
    assert_eq!(jobs.len(), 1, "{name}: one job");
    let job = jobs.values().next().unwrap();
    assert_eq!(job["runs-on"].as_str(), Some("ubuntu-latest"));
    let steps = job["steps"]
        .as_vec()
        .expect("steps")
        .iter()
        .map(|s| match (s["uses"].as_str(), s["run"].as_str()) {
            (Some(action), None) => Step::Uses {
                action: action.to_string(),
                with: map(&s["with"]),
            },
            (None, Some(run)) => Step::Run {
                run: run.to_string(),
                env: map(&s["env"]),
            },
            _ => panic!("{name}: a step needs exactly one of uses / run: {s:?}"),
        })
        .collect();
    Workflow { doc, steps }
}

/// What GitHub would put in for each `${{ }}` expression the workflows use; any other expression
/// fails the test, so a workflow cannot grow one the test does not understand.
fn expand(text: &str, ctx: &BTreeMap<&str, String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("}}").expect("closed expression") + start;
        let expr = rest[start + 3..end].trim();
        let value = ctx
            .get(expr)
            .unwrap_or_else(|| panic!("the test does not know the expression {expr:?}"));
        out.push_str(value);
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// One simulated runner: a fixture repository, a fresh RUNNER_TEMP, a fake `gh`.
struct Runner {
    repo: Fixture,
    temp: tempfile::TempDir,
    bin: tempfile::TempDir,
    gh_state: PathBuf,
    /// Variables of the job's environment on top of the runner's (what a workflow's `env:` or a
    /// repository variable would set).
    job_env: Vec<(&'static str, &'static str)>,
}

impl Runner {
    fn new(repo: Fixture, gh_state: &Path) -> Runner {
        let bin = tempfile::tempdir().unwrap();
        let gh = bin.path().join("gh");
        std::fs::write(
            &gh,
            format!(
                "#!/bin/sh\nexec python3 {} \"$@\"\n",
                root().join("tests/support/fake_gh.py").display()
            ),
        )
        .unwrap();
        make_executable(&gh);
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_ckb"), bin.path().join("ckb")).unwrap();
        Runner {
            repo,
            temp: tempfile::tempdir().unwrap(),
            bin,
            gh_state: gh_state.to_path_buf(),
            job_env: Vec::new(),
        }
    }

    /// The same runner with `name=value` in the job's environment.
    fn with_env(mut self, name: &'static str, value: &'static str) -> Runner {
        self.job_env.push((name, value));
        self
    }

    /// The same runner with `CKB_INDEX=off`: snapshots with tree-sitter only. The tests about the
    /// store and the diff use it to stay fast; indexing has its own test over real packages
    /// (`fresh_clones_of_real_packages_go_through_ckb_index_and_ckb_snapshot`).
    fn without_indexing(self) -> Runner {
        self.with_env("CKB_INDEX", "off")
    }

    /// A fresh runner (empty RUNNER_TEMP) on the same repository.
    fn fresh(self) -> Runner {
        Runner {
            temp: tempfile::tempdir().unwrap(),
            ..self
        }
    }

    fn context(&self, pr: Option<(&str, &str, u32)>) -> BTreeMap<&'static str, String> {
        let mut ctx = BTreeMap::from([
            ("github.token", "fake-token".to_string()),
            ("vars.CKB_GIT", String::new()),
            ("vars.CKB_REV", String::new()),
            ("vars.CKB_REV || 'latest'", "latest".to_string()),
            ("runner.os", "Linux".to_string()),
            ("runner.temp", self.temp.path().display().to_string()),
        ]);
        if let Some((base, head, number)) = pr {
            ctx.insert("github.event.pull_request.base.sha", base.to_string());
            ctx.insert("github.event.pull_request.head.sha", head.to_string());
            ctx.insert("github.event.pull_request.number", number.to_string());
        }
        ctx
    }

    /// Runs every step of a workflow; returns the output of each `run:` step and the `with:` of
    /// each `uses:` step (expanded).
    fn run(&self, wf: &Workflow, pr: Option<(&str, &str, u32)>) -> Vec<(String, String)> {
        let ctx = self.context(pr);
        let mut log = Vec::new();
        for step in &wf.steps {
            match step {
                Step::Uses { action, with } => {
                    let with: BTreeMap<String, String> = with
                        .iter()
                        .map(|(k, v)| (k.clone(), expand(v, &ctx)))
                        .collect();
                    log.push((action.clone(), format!("{with:?}")));
                    if action.starts_with("actions/upload-artifact") {
                        for p in with["path"].lines().filter(|l| !l.trim().is_empty()) {
                            assert!(
                                Path::new(p.trim()).exists(),
                                "{action} uploads {p}, which is missing"
                            );
                        }
                    }
                }
                Step::Run { run, env } => {
                    let out = self.bash(run, env, &ctx);
                    let text = format!(
                        "{}{}",
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    );
                    assert!(out.status.success(), "step `{run}` failed:\n{text}");
                    log.push((run.clone(), text));
                }
            }
        }
        log
    }

    fn bash(
        &self,
        run: &str,
        env: &BTreeMap<String, String>,
        ctx: &BTreeMap<&str, String>,
    ) -> Output {
        // What earlier steps added to $GITHUB_PATH comes first, the newest first, as on GitHub.
        let github_path = self.temp.path().join("github-path");
        let added: Vec<String> = std::fs::read_to_string(&github_path)
            .unwrap_or_default()
            .lines()
            .rev()
            .map(String::from)
            .collect();
        let mut path = added;
        path.push(self.bin.path().display().to_string());
        path.push(std::env::var("PATH").unwrap_or_default());
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", run])
            .current_dir(self.repo.path())
            .env("PATH", path.join(":"))
            .env("GITHUB_PATH", &github_path)
            // The indexers CI installed (the install step finds them at their pinned versions and
            // downloads nothing); ckb's cache (the cargo target folder of rust-analyzer) per runner.
            .env("CKB_INDEXERS_DIR", test_support::indexers_dir())
            .env("XDG_CACHE_HOME", self.temp.path().join("cache"))
            .env("RUNNER_TEMP", self.temp.path())
            .env("GITHUB_REPOSITORY", "acme/widget")
            .env("FAKE_GH_STATE", &self.gh_state)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("CKB")
            .env_remove("CKB_STORE");
        for (k, v) in &self.job_env {
            cmd.env(k, v);
        }
        for (k, v) in env {
            cmd.env(k, expand(v, ctx));
        }
        cmd.output().unwrap()
    }

    fn store(&self) -> PathBuf {
        self.temp.path().join("ckb-store")
    }

    /// The repository ID a snapshot of the fixture gets: its folder's name.
    fn repo_id(&self) -> String {
        let dir = self.repo.path();
        let name = dir.file_name().expect("a fixture is a named folder");
        name.to_string_lossy().into_owned()
    }
}

fn make_executable(p: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Copies `examples/github/` into the fixture as `.github/`.
fn install_examples(repo: &Fixture) {
    let src = root().join("examples/github");
    for (rel, bytes) in files_of(&src) {
        repo.write(&format!(".github/{rel}"), bytes);
        let p = repo.path().join(".github").join(&rel);
        if rel.ends_with(".sh") {
            make_executable(&p);
        }
    }
}

fn fixture_repo() -> Fixture {
    let repo = Fixture::git();
    install_examples(&repo);
    repo.write(
        "src/lib.rs",
        "pub fn parse(s: &str) -> usize {\n    s.len()\n}\n",
    )
    .write(
        "src/main.rs",
        "fn main() {\n    println!(\"{}\", widget::parse(\"x\"));\n}\n",
    )
    .write(
        "Cargo.toml",
        "[package]\nname = \"widget\"\nversion = \"0.1.0\"\n",
    );
    repo.commit("one");
    repo.write("src/util.rs", "pub fn util() {}\n");
    repo.commit("two");
    repo.write(
        "src/lib.rs",
        "pub fn parse(s: &str) -> usize {\n    s.trim().len()\n}\n",
    );
    repo.commit("three");
    repo
}

fn gh_state(dir: &Path, value: Value) -> PathBuf {
    let p = dir.join("gh-state.json");
    std::fs::write(&p, value.to_string()).unwrap();
    p
}

fn read_state(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// The fake GitHub's comments on issue (pull request) `issue`, oldest first.
fn comments_on(state: &Value, issue: i64) -> Vec<&Value> {
    let comments = state["comments"].as_array().unwrap().iter();
    comments.filter(|c| c["issue"] == issue).collect()
}

fn snapshots_in(store: &Path) -> Vec<String> {
    let mut out: Vec<String> = files_of(store)
        .into_iter()
        .filter(|(p, _)| p.ends_with("manifest.json.zst"))
        .map(|(p, _)| p.trim_end_matches("/manifest.json.zst").to_string())
        .collect();
    out.sort();
    out
}

/// Registers the store that run 1 of the snapshot workflow on `main` uploaded from `runner`.
fn keep_main_store(state: &Path, runner: &Runner, keep: &Path) {
    let store = runner.store();
    keep_artifact(
        state,
        1,
        "ckb-snapshots.yml",
        "main",
        "ckb-store",
        &store,
        keep,
    );
}

/// Registers the artifact a finished run uploaded, as GitHub would keep it.
fn keep_artifact(
    state: &Path,
    id: i64,
    workflow: &str,
    branch: &str,
    name: &str,
    dir: &Path,
    keep: &Path,
) {
    let copy = keep.join(format!("run-{id}-{name}"));
    for (rel, bytes) in files_of(dir) {
        let p = copy.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    let mut v = read_state(state);
    v["runs"].as_array_mut().unwrap().push(serde_json::json!({
        "databaseId": id, "workflow": workflow, "branch": branch, "status": "success",
        "artifacts": { name: copy.display().to_string() }
    }));
    std::fs::write(state, v.to_string()).unwrap();
}

#[test]
fn workflows_are_valid_and_their_run_steps_are_the_example_scripts() {
    let scripts_dir = root().join("examples/github/ckb");
    let mut used = std::collections::BTreeSet::new();
    for name in ["ckb-snapshots.yml", "ckb-pr-diff.yml"] {
        let wf = workflow(name);
        assert!(wf.doc["name"].as_str().is_some(), "{name}: name");
        assert!(!wf.doc["on"].is_badvalue(), "{name}: on");
        let perms = wf.doc["permissions"]
            .as_hash()
            .expect("explicit permissions");
        assert_eq!(
            perms
                .get(&Yaml::String("contents".into()))
                .and_then(Yaml::as_str),
            Some("read"),
            "{name}: read-only contents"
        );
        assert!(
            matches!(wf.steps.first(), Some(Step::Uses { action, .. }) if action == "actions/checkout@v4")
        );
        for step in &wf.steps {
            match step {
                Step::Uses { action, .. } => {
                    assert!(
                        ACTIONS.contains(&action.as_str()),
                        "{name}: unexpected action {action}"
                    )
                }
                Step::Run { run, env } => {
                    assert!(
                        !run.contains("${{"),
                        "{name}: expressions belong in env:, not run: ({run})"
                    );
                    let script = run.strip_prefix("bash .github/ckb/").unwrap_or_else(|| {
                        panic!("{name}: run steps call the example scripts: {run}")
                    });
                    assert!(!script.contains(' '), "{run}");
                    assert!(
                        scripts_dir.join(script).is_file(),
                        "{run}: no examples/github/ckb/{script}"
                    );
                    used.insert(script.to_string());
                    for v in env.values() {
                        // Every expression is one the end-to-end tests fill in.
                        expand(
                            v,
                            &Runner::new(Fixture::plain(), Path::new("/dev/null"))
                                .context(Some(("b", "h", 1))),
                        );
                    }
                }
            }
        }
    }
    // Both workflows install the indexers, cached under the versions the install script pins.
    for name in ["ckb-snapshots.yml", "ckb-pr-diff.yml"] {
        let wf = workflow(name);
        let cache = wf
            .steps
            .iter()
            .find_map(|s| match s {
                Step::Uses { action, with }
                    if action == "actions/cache@v4"
                        && with.get("path").map(String::as_str)
                            == Some("~/.cache/ckb-indexers") =>
                {
                    Some(with["key"].clone())
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("{name}: no cache of ~/.cache/ckb-indexers"));
        for tool in ["scip-typescript", "scip-python"] {
            let pinned = format!("{tool}-{}", test_support::pinned(tool));
            assert!(
                cache.contains(&pinned),
                "{name}: cache key {cache} lacks {pinned}"
            );
        }
        let steps: Vec<&str> = wf
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Run { run, .. } => Some(run.as_str()),
                _ => None,
            })
            .collect();
        let install = steps
            .iter()
            .position(|r| r.ends_with("install-indexers.sh"));
        let last = steps.len() - 1;
        assert!(
            install.is_some_and(|i| i < last),
            "{name}: the indexers are installed before the snapshots: {steps:?}"
        );
    }
    // Every script is used by a workflow and parses; common.sh is sourced by the others.
    for (rel, _) in files_of(&scripts_dir) {
        test_support::run_ok(Command::new("bash").arg("-n").arg(scripts_dir.join(&rel)));
        if rel != "common.sh" {
            assert!(used.contains(&rel), "{rel} is not used by any workflow");
        }
    }
}

#[test]
fn snapshot_workflow_snapshots_each_commit_and_the_next_run_restores_the_store() {
    let keep = tempfile::tempdir().unwrap();
    let state = gh_state(keep.path(), serde_json::json!({"runs": [], "comments": []}));
    let repo = fixture_repo();
    let shas: Vec<String> = repo
        .run_git(&["rev-list", "--reverse", "HEAD"])
        .lines()
        .map(String::from)
        .collect();
    let wf = workflow("ckb-snapshots.yml");
    let runner = Runner::new(repo, &state).without_indexing();
    let log = runner.run(&wf, None);
    let text: String = log.iter().map(|(_, t)| t.as_str()).collect();
    assert!(text.contains("using "), "{text}");
    assert!(text.contains("no earlier successful run"), "{text}");
    assert!(text.contains("3 new snapshot(s)"), "{text}");
    let snaps = snapshots_in(&runner.store());
    let id = runner.repo_id();
    let expected: Vec<String> = shas
        .iter()
        .map(|s| format!("repo={id}/commit={s}"))
        .collect();
    assert_eq!(
        snaps,
        expected
            .iter()
            .cloned()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
    );
    // Each commit was built against the one before it (so identity has a previous snapshot).
    for (i, sha) in shas.iter().enumerate() {
        let m = manifest(&runner.store().join(format!("repo={id}/commit={sha}")));
        assert_eq!(m.repo_state.head_commit.as_deref(), Some(sha.as_str()));
        assert!(!m.repo_state.dirty, "snapshots come from clean worktrees");
        match i {
            0 => assert!(m.previous.is_none()),
            _ => assert_eq!(m.previous.as_ref().unwrap().snapshot_id, shas[i - 1]),
        }
    }
    // The report of the store is the second artifact: one page over the three snapshots.
    let report = std::fs::read_to_string(runner.temp.path().join("ckb-report.html"))
        .expect("the workflow writes ckb-report.html");
    assert!(report.starts_with("<!DOCTYPE html>"));
    assert!(
        report.contains(&format!("ckb report · {id}")),
        "report of the store"
    );
    assert_eq!(
        report.matches("<tr id=\"trend-").count(),
        3,
        "one trend row per snapshot"
    );
    assert!(
        log.iter()
            .any(|(action, with)| action == "actions/upload-artifact@v4"
                && with.contains("ckb-report.html")),
        "the report is uploaded"
    );
    // The checkout is untouched: no worktree left behind.
    assert_eq!(
        runner.repo.run_git(&["worktree", "list"]).lines().count(),
        1
    );
    assert_eq!(runner.repo.run_git(&["status", "--porcelain"]), "");

    // GitHub keeps the uploaded store; the next push runs on a fresh runner and restores it.
    keep_main_store(&state, &runner, keep.path());
    let before: BTreeMap<String, Vec<u8>> = files_of(&runner.store()).into_iter().collect();
    runner.repo.write("src/extra.rs", "pub fn extra() {}\n");
    let sha4 = runner.repo.commit("four");
    let runner = runner.fresh();
    let log = runner.run(&wf, None);
    let text: String = log.iter().map(|(_, t)| t.as_str()).collect();
    test_support::assert_mentions(
        &text,
        &[
            "restored the store of run 1: 3 snapshot(s)",
            "1 new snapshot(s); the store holds 4",
        ],
    );
    let after: BTreeMap<String, Vec<u8>> = files_of(&runner.store()).into_iter().collect();
    // No snapshot was rebuilt. (The scan cache beside them is no snapshot: a later scan adds the
    // files that have settled since.)
    for (p, bytes) in &before {
        // The syntax, SCIP document and table caches are rewritten by every run (they keep what
        // it used).
        let cache = ["/syntax-cache/", "/scip-cache/", "/table-cache/"]
            .iter()
            .any(|c| p.contains(c));
        if !p.ends_with("run.json") && !p.ends_with(pipeline::scan_cache::CACHE_FILE) && !cache {
            assert_eq!(after.get(p), Some(bytes), "{p} was rebuilt");
        }
    }
    let m = manifest(&runner.store().join(format!("repo={id}/commit={sha4}")));
    assert_eq!(m.previous.unwrap().snapshot_id, shas[2]);
    let calls = read_state(&state)["calls"].clone();
    assert!(calls
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c[0] == "run" && c[1] == "download"));
}

#[test]
fn pr_workflow_posts_one_comment_and_updates_it_on_the_next_push() {
    let keep = tempfile::tempdir().unwrap();
    let state = gh_state(
        keep.path(),
        serde_json::json!({"runs": [], "comments": [{"id": 1, "issue": 7, "body": "LGTM"}, {"id": 2, "issue": 8, "body": "<!-- ckb:diff -->\nanother PR"}]}),
    );
    // main's store, from the snapshot workflow.
    let main = Runner::new(fixture_repo(), &state).without_indexing();
    main.run(&workflow("ckb-snapshots.yml"), None);
    keep_main_store(&state, &main, keep.path());
    let fork_point = main.repo.run_git(&["rev-parse", "HEAD"]);

    // A feature branch: a new file, a modified one, a removed one.
    let runner = main.fresh();
    let repo = &runner.repo;
    repo.run_git(&["checkout", "-q", "-b", "feature"]);
    repo.write("src/new.rs", "pub fn fresh() {}\n")
        .write("src/lib.rs", "pub fn parse(s: &str, strict: bool) -> usize {\n    if strict { s.len() } else { s.trim().len() }\n}\n");
    std::fs::remove_file(repo.path().join("src/util.rs")).unwrap();
    let head1 = repo.commit("feature work");
    let pr = workflow("ckb-pr-diff.yml");
    let log = runner.run(&pr, Some((&fork_point, &head1, 7)));
    let text: String = log.iter().map(|(_, t)| t.as_str()).collect();
    assert!(text.contains("created the comment"), "{text}");
    // The base came from main's store: only the head was snapshotted.
    assert_eq!(snapshots_in(&runner.store()).len(), 4, "{text}");

    let v = read_state(&state);
    let mine = comments_on(&v, 7);
    assert_eq!(mine.len(), 2, "LGTM and ckb's");
    let body = mine[1]["body"].as_str().unwrap();
    assert!(
        body.starts_with("<!-- ckb:diff -->\n### ckb diff"),
        "{body}"
    );
    test_support::assert_mentions(body, &["added `src/new.rs`", "removed `src/util.rs`"]);
    assert!(body.chars().count() <= 60_000);
    let comment_id = mine[1]["id"].clone();
    let facts: Value = serde_json::from_str(
        &std::fs::read_to_string(runner.temp.path().join("ckb-diff.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(facts["facts"]["base"]["headCommit"], fork_point.as_str());
    assert_eq!(facts["facts"]["head"]["headCommit"], head1.as_str());

    // main moves on and the branch gets another push: the diff is against the merge base, and the
    // same comment is updated (PR 8's comment with the same marker is left alone).
    let runner = runner.fresh();
    let repo = &runner.repo;
    repo.run_git(&["checkout", "-q", "main"]);
    repo.write("README.md", "# widget\n");
    let main2 = repo.commit("main moves on");
    repo.run_git(&["checkout", "-q", "feature"]);
    repo.write("src/second.rs", "pub fn second() {}\n");
    let head2 = repo.commit("more feature work");
    let log = runner.run(&pr, Some((&main2, &head2, 7)));
    let text: String = log.iter().map(|(_, t)| t.as_str()).collect();
    assert!(
        text.contains(&format!("updated comment {comment_id}")),
        "{text}"
    );
    let v = read_state(&state);
    let mine = comments_on(&v, 7);
    assert_eq!(mine.len(), 2, "still one ckb comment");
    assert_eq!(mine[1]["id"], comment_id);
    let body = mine[1]["body"].as_str().unwrap();
    assert!(body.contains("added `src/second.rs`"), "{body}");
    assert!(
        !body.contains("README.md"),
        "main's own change is not part of the PR: {body}"
    );
    let other = v["comments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["issue"] == 8)
        .unwrap();
    assert_eq!(other["body"], "<!-- ckb:diff -->\nanother PR");
    let facts: Value = serde_json::from_str(
        &std::fs::read_to_string(runner.temp.path().join("ckb-diff.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(facts["facts"]["base"]["headCommit"], fork_point.as_str());
}

/// A fresh clone (as `actions/checkout` makes it) of a repository holding the sources of the real
/// package `name` (from `ci/fetch-example-repos.sh`) and the examples as `.github/`, committed
/// once; `None` when the sources are missing (which fails the test under CI).
fn clone_of_real_package(name: &str) -> Option<Fixture> {
    let src = test_support::example_repo(name)?;
    let origin = Fixture::git();
    for (rel, bytes) in files_of(&src) {
        origin.write(&rel, bytes);
    }
    install_examples(&origin);
    origin.commit(&format!("import {name}"));
    let clone = Fixture::plain();
    let origin_path = origin.path().to_str().unwrap().to_string();
    test_support::git(clone.path(), &["clone", "-q", &origin_path, "."]);
    Some(clone)
}

/// The done-when of the CI path: a fresh clone of a real TypeScript, Python and Rust package each
/// goes through the snapshot workflow — the indexers installed (found at their pinned versions,
/// so nothing is downloaded), `ckb index`, then `ckb snapshot` — and each snapshot reads a SCIP
/// index of its commit that covers every document, from a clean worktree. The Rust one also goes
/// through the pull-request workflow.
#[test]
fn fresh_clones_of_real_packages_go_through_ckb_index_and_ckb_snapshot() {
    let packages = [
        ("immer-10.1.1", "scip-typescript", "typescript"),
        ("tomli-2.0.1", "scip-python", "python"),
        ("heck-0.5.0", "rust-analyzer", "rust"),
    ];
    for (name, tool, language) in packages {
        let (Some(repo), Some(_)) = (
            clone_of_real_package(name),
            test_support::rust_analyzer()
                .and(test_support::npm_indexer("scip-typescript"))
                .and(test_support::npm_indexer("scip-python")),
        ) else {
            return;
        };
        let keep = tempfile::tempdir().unwrap();
        let state = gh_state(keep.path(), serde_json::json!({"runs": [], "comments": []}));
        let sha = repo.run_git(&["rev-parse", "HEAD"]);
        // CKB_PREPARE runs in each commit's checkout before indexing (here: it only says where).
        let runner = Runner::new(repo, &state).with_env(
            "CKB_PREPARE",
            "echo \"prepared $(git rev-parse HEAD) in $PWD\" >> \"$RUNNER_TEMP/prepare.log\"",
        );
        let log = runner.run(&workflow("ckb-snapshots.yml"), None);
        let text: String = log.iter().map(|(_, t)| t.as_str()).collect();
        let prepared = std::fs::read_to_string(runner.temp.path().join("prepare.log")).unwrap();
        assert!(
            prepared.starts_with(&format!("prepared {sha} in "))
                && prepared.trim_end().ends_with("/tree"),
            "{prepared}"
        );
        assert!(
            text.contains(&format!("install-indexers: {tool}")),
            "{name}: {text}"
        );
        assert!(text.contains("1 new snapshot(s)"), "{name}: {text}");
        let id = runner.repo_id();
        let m = manifest(&runner.store().join(format!("repo={id}/commit={sha}")));
        assert!(
            !m.repo_state.dirty,
            "{name}: indexing left the worktree clean"
        );
        let scip: Vec<_> = m.backends.iter().filter(|b| b.kind == "scip").collect();
        assert_eq!(scip.len(), 1, "{name}: {scip:?}\n{text}");
        let b = scip[0];
        assert_eq!(b.tool, tool, "{name}");
        assert_eq!(b.facts["freshness"], "current", "{name}: {b:?}");
        assert!(b.counts["documents"] > 0, "{name}: {b:?}");
        assert_eq!(
            b.counts["documentsUsed"], b.counts["documents"],
            "{name}: every document is a file of the clone"
        );
        let files = m.stages["scan"].breakdown[language]["files"];
        assert_eq!(
            b.counts["documentsUsed"], files,
            "{name}: every {language} file is indexed"
        );

        if tool == "rust-analyzer" {
            // A pull request against it: the head is indexed too, and the diff is posted.
            keep_main_store(&state, &runner, keep.path());
            let runner = runner.fresh();
            let repo = &runner.repo;
            repo.run_git(&["checkout", "-q", "-b", "feature"]);
            repo.write(
                "src/lib.rs",
                format!(
                    "{}\npub fn shout(s: &str) -> String {{\n    s.to_uppercase()\n}}\n",
                    std::fs::read_to_string(repo.path().join("src/lib.rs")).unwrap()
                ),
            );
            let head = repo.commit("add shout");
            let log = runner.run(&workflow("ckb-pr-diff.yml"), Some((&sha, &head, 3)));
            let text: String = log.iter().map(|(_, t)| t.as_str()).collect();
            assert!(text.contains("created the comment"), "{text}");
            let m = manifest(&runner.store().join(format!("repo={id}/commit={head}")));
            let b = m
                .backends
                .iter()
                .find(|b| b.kind == "scip")
                .expect("the head is indexed");
            assert_eq!(b.facts["freshness"], "current");
            let body = read_state(&state)["comments"].to_string();
            assert!(body.contains("shout"), "{body}");
        }
    }
}

/// The folder of the stock DuckDB CLI (empty when it is `PATH`'s); `None` when it is missing (which
/// fails the test under CI).
fn stock_duckdb_dir() -> Option<PathBuf> {
    duckdb_cli().map(|p| p.parent().map(Path::to_path_buf).unwrap_or_default())
}

fn walkthrough_env(cmd: &mut Command) -> &mut Command {
    let mut path = std::env::var("PATH").unwrap_or_default();
    if let Some(d) = stock_duckdb_dir().filter(|d| !d.as_os_str().is_empty()) {
        path = format!("{}:{path}", d.display());
    }
    let bin = Path::new(env!("CARGO_BIN_EXE_ckb")).parent().unwrap();
    cmd.env("PATH", format!("{}:{path}", bin.display()))
        .env_remove("CKB")
        .env_remove("DUCKDB")
}

#[test]
fn sql_walkthrough_runs_over_a_store() {
    let store = sample_store();
    let cwd = tempfile::tempdir().unwrap();
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("examples/sql/walkthrough.sh"))
        .arg(store.path())
        .current_dir(cwd.path());
    let out = walkthrough_env(&mut cmd).output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(
        !text.contains("(skipped") && !text.contains("(failed"),
        "every step runs on a full store:\n{text}"
    );
    for expected in [
        "## 5. The same files with the stock duckdb CLI",
        "src/core.rs",
        "internal_unused",
        "signature-changed",
    ] {
        assert!(text.contains(expected), "{expected}:\n{text}");
    }
    // Step 3 (grew the most): core.rs grew from 120 to 150 lines between acme's last two snapshots.
    assert!(
        text.lines()
            .any(|l| l.starts_with("acme  src/core.rs") && l.contains("120") && l.contains("150")),
        "{text}"
    );

    // The markdown's commands, as written, with STORE set.
    let md = std::fs::read_to_string(root().join("examples/sql/walkthrough.md")).unwrap();
    let mut ran = 0;
    for block in md.split("```sh\n").skip(1) {
        for line in block.split("```").next().unwrap().lines() {
            if line.starts_with("bash examples/sql/walkthrough.sh") {
                continue;
            }
            if line.starts_with("duckdb") && stock_duckdb_dir().is_none() {
                continue;
            }
            let mut cmd = Command::new("bash");
            cmd.args(["-eo", "pipefail", "-c", line])
                .env("STORE", store.path())
                .current_dir(root());
            let out = test_support::run_ok(walkthrough_env(&mut cmd));
            assert!(!out.stdout.is_empty(), "{line}");
            ran += 1;
        }
    }
    assert!(ran >= 4, "{ran}");
    let sql = md
        .split("```sql\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let v: Value = serde_json::from_str(&ckb_ok(
        root().as_path(),
        &[
            "query",
            "--store",
            store.path().to_str().unwrap(),
            "--format",
            "json",
            "sql",
            sql,
        ],
    ))
    .unwrap();
    assert_eq!(v["rows"][0][1], "src/core.rs");
}

#[test]
fn sql_walkthrough_degrades_on_a_store_of_real_files_only_snapshots() {
    let repo = fixture_repo();
    let store = tempfile::tempdir().unwrap();
    snapshot(repo.path(), store.path(), &[]);
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("examples/sql/walkthrough.sh"))
        .arg(store.path());
    let out = walkthrough_env(&mut cmd).output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "steps that need only files pass:\n{text}"
    );
    assert!(
        text.contains("src/lib.rs") || text.contains("rust"),
        "{text}"
    );
}
