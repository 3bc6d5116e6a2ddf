//! Shared helpers of ckb's tests (a dev-dependency only): scripted git repositories with one
//! identity and one date, the rule for a missing external tool (and the indexer versions the
//! tests expect), running a command that must succeed, golden files, hand-built table rows
//! ([`rows`]), a deterministic random stream ([`random`]) and readers of JSON answers ([`json`]).
//! It depends on no ckb crate but `output-schema`, so `pipeline`'s tests build without
//! DuckDB.

pub mod json;
pub mod random;
pub mod rows;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Who commits and when: the identity and date a scripted git command runs with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    pub name: String,
    pub email: String,
    /// Anything git takes as a date (`2024-01-01T12:00:00Z`, `@1704067200 +0000`).
    pub date: String,
}

/// The fixture identity every scripted repository uses unless a test needs several authors.
pub const NAME: &str = "Fixture Author";
/// The fixture identity's email.
pub const EMAIL: &str = "author@example.com";
/// The fixture date every scripted repository uses unless a test needs a clock.
pub const DATE: &str = "2024-01-01T12:00:00Z";

impl Signature {
    /// The fixture identity at the fixture date.
    pub fn fixture() -> Signature {
        Signature::new(NAME, EMAIL, DATE)
    }

    /// An identity at a date.
    pub fn new(name: &str, email: &str, date: &str) -> Signature {
        Signature {
            name: name.into(),
            email: email.into(),
            date: date.into(),
        }
    }

    /// The same identity at another date.
    pub fn at(&self, date: &str) -> Signature {
        Signature {
            date: date.into(),
            ..self.clone()
        }
    }
}

/// A git command in `dir` isolated from the machine: no user or system configuration, no
/// inherited repository variables, and `who` as both author and committer.
pub fn git_command(dir: &Path, who: &Signature) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", &who.name)
        .env("GIT_AUTHOR_EMAIL", &who.email)
        .env("GIT_COMMITTER_NAME", &who.name)
        .env("GIT_COMMITTER_EMAIL", &who.email)
        .env("GIT_AUTHOR_DATE", &who.date)
        .env("GIT_COMMITTER_DATE", &who.date)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
    cmd
}

/// Runs git in `dir` as `who`; panics on failure; returns stdout as it is.
pub fn git_as(dir: &Path, who: &Signature, args: &[&str]) -> String {
    let mut cmd = git_command(dir, who);
    cmd.args(args);
    stdout_of(&run_ok(&mut cmd))
}

/// Runs git in `dir` as the fixture identity at the fixture date; panics on failure; returns
/// stdout trimmed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    git_as(dir, &Signature::fixture(), args).trim().to_string()
}

/// `git init -q -b main` in `dir`.
pub fn git_init(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
}

/// `git add -A && git commit -m <message>` as the fixture; returns the new commit.
pub fn git_commit_all(dir: &Path, message: &str) -> String {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
    git(dir, &["rev-parse", "HEAD"])
}

/// Writes `content` to `dir/rel`, creating folders.
pub fn write_file(dir: &Path, rel: &str, content: impl AsRef<[u8]>) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().expect("a file has a parent folder")).expect("mkdir");
    std::fs::write(&path, content).expect("write fixture file");
}

/// Runs a command and panics, with its stdout and stderr, unless it succeeds.
pub fn run_ok(cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?} does not run: {e}"));
    assert_success(&out, &format!("{cmd:?}"));
    out
}

/// Panics, naming `what` and showing the output, unless `out` is a success.
pub fn assert_success(out: &Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed ({:?}):\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Asserts that `text` contains every one of `parts`, showing the text when one is missing.
#[track_caller]
pub fn assert_mentions(text: &str, parts: &[&str]) {
    for part in parts {
        assert!(text.contains(part), "{part:?} is missing from:\n{text}");
    }
}

/// Asserts that a command failed with exit code 1 and that its stderr mentions every one of
/// `parts` (an error code, the flag or path at fault, …); returns the stderr.
#[track_caller]
pub fn assert_fails_mentioning(out: &Output, parts: &[&str]) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_mentions(&err, parts);
    err
}

/// A command's stdout as text.
pub fn stdout_of(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The first warning of a stage report with this code; panics, listing the report's warnings, if
/// there is none.
pub fn warning<'a>(
    report: &'a output_schema::manifest::StageReport,
    code: &str,
) -> &'a output_schema::manifest::Warning {
    let mut warnings = report.warnings.iter();
    warnings
        .find(|w| w.code == code)
        .unwrap_or_else(|| panic!("no {code} warning: {:?}", report.warnings))
}

/// The codes of a stage report's warnings, in order.
pub fn warning_codes(report: &output_schema::manifest::StageReport) -> Vec<&str> {
    report.warnings.iter().map(|w| w.code.as_str()).collect()
}

/// Whether the tests run under CI (`CI=true`, as `.ci/run` sets it).
pub fn under_ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

/// Called when a test's external tool is missing. Under CI the test fails: `.ci/run` installs
/// every tool, so a missing one is a broken setup, never a pass. Locally the test may go on without
/// the tool, and says so loudly with the command that installs it.
pub fn tool_missing(tool: &str, install: &str) {
    assert!(
        !under_ci(),
        "{tool} is missing under CI; install it with `{install}`"
    );
    eprintln!("SKIPPED (tool missing): {tool}; install it with `{install}`");
}

/// `$<variable>` when set, else `~/<default>`: where an installer put its tools.
fn install_dir(variable: &str, default: &str) -> PathBuf {
    match std::env::var_os(variable) {
        Some(d) => PathBuf::from(d),
        None => home().join(default),
    }
}

/// Another version of a tool than the pinned one: fails under CI (the installer replaces it),
/// is named loudly otherwise.
fn wrong_version(message: &str) {
    assert!(!under_ci(), "{message}");
    eprintln!("NOTICE: {message}");
}

/// Where `ci/install-indexers.sh` (through `examples/github/ckb/install-indexers.sh`) installs
/// the npm indexers (`$CKB_INDEXERS_DIR`, or
/// `~/.cache/ckb-indexers`).
pub fn indexers_dir() -> PathBuf {
    install_dir("CKB_INDEXERS_DIR", ".cache/ckb-indexers")
}

/// The indexers whose real output the tests check; their versions are the catalog's
/// (`output_schema::indexers`), which the install script pins too (a test checks they agree).
pub const TESTED_INDEXERS: &[&str] = &["rust-analyzer", "scip-typescript", "scip-python"];

/// `PATH` with the folder of the npm indexers first: where `ckb index` finds every indexer the
/// install script installed (rust-analyzer comes with rustup, already on `PATH`).
pub fn path_with_indexers() -> std::ffi::OsString {
    let mut dirs = vec![indexers_dir().join("node_modules/.bin")];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).expect("PATH entries without separators")
}

/// Where `ci/fetch-example-repos.sh` unpacks the pinned real packages
/// (`$CKB_EXAMPLE_REPOS_DIR`, or `~/.cache/ckb-example-repos`).
pub fn example_repos_dir() -> PathBuf {
    install_dir("CKB_EXAMPLE_REPOS_DIR", ".cache/ckb-example-repos")
}

/// The unpacked sources of a package `ci/fetch-example-repos.sh` fetches (`immer-10.1.1`,
/// `tomli-2.0.1`, `heck-0.5.0`), or `None` after [`tool_missing`] (which fails under CI).
pub fn example_repo(name: &str) -> Option<PathBuf> {
    let dir = example_repos_dir().join(name);
    if dir.is_dir() {
        Some(dir)
    } else {
        tool_missing(
            &format!("the sources of {name}"),
            "bash ci/fetch-example-repos.sh",
        );
        None
    }
}

/// The version of `name` the tests' exact counts were written against.
pub fn pinned(name: &str) -> &'static str {
    output_schema::indexers::by_tool(name)
        .map(|i| i.version)
        .unwrap_or_else(|| panic!("{name} is not in the indexer catalog"))
}

/// The version `pins` (one of the `PINNED_*` lists) names for the tool `name`.
fn pinned_in(pins: &[(&str, &'static str)], name: &str) -> &'static str {
    pins.iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| *v)
        .unwrap_or_else(|| panic!("{name} has no pinned version"))
}

/// An npm indexer (`scip-typescript`, `scip-python`) where `ci/install-indexers.sh` puts it, or
/// `None` after [`tool_missing`] (which fails under CI). Another version than the pinned one
/// fails under CI (the installer replaces it) and is named loudly otherwise.
pub fn npm_indexer(name: &str) -> Option<PathBuf> {
    let path = indexers_dir().join("node_modules/.bin").join(name);
    if !path.exists() {
        tool_missing(name, "bash ci/install-indexers.sh");
        return None;
    }
    let package = indexers_dir().join(format!("node_modules/@sourcegraph/{name}/package.json"));
    let found = std::fs::read_to_string(package)
        .ok()
        .and_then(|text| json_string_field(&text, "version"))
        .unwrap_or_default();
    let want = pinned(name);
    if found != want {
        wrong_version(&format!(
            "{name} {found} is installed, but the tests' counts were written against {want}; \
             `bash ci/install-indexers.sh` installs it"
        ));
    }
    Some(path)
}

/// The first `"field": "value"` string of a small JSON text (no JSON parser in this crate).
fn json_string_field(text: &str, field: &str) -> Option<String> {
    let rest = &text[text.find(&format!("\"{field}\""))? + field.len() + 2..];
    let rest = &rest[rest.find('"')? + 1..];
    Some(rest[..rest.find('"')?].to_string())
}

/// `rust-analyzer` when it runs (`rust-analyzer --version` succeeds), or `None` after
/// [`tool_missing`] (which fails under CI). It comes with the rustup toolchain, so another version
/// than the pinned one is named loudly (its exact counts may differ) but does not fail.
pub fn rust_analyzer() -> Option<PathBuf> {
    let out = Command::new("rust-analyzer").arg("--version").output();
    let Some(out) = out.ok().filter(|o| o.status.success()) else {
        tool_missing("rust-analyzer", "bash ci/install-indexers.sh");
        return None;
    };
    let found = stdout_of(&out);
    let want = pinned("rust-analyzer");
    if found.split_whitespace().nth(1) != Some(want) {
        eprintln!(
            "NOTICE: {} is installed; the tests' counts were written against rust-analyzer {want}",
            found.trim()
        );
    }
    Some(PathBuf::from("rust-analyzer"))
}

/// The stock DuckDB CLI: `$CKB_DUCKDB`, else the one `ci/install-tools.sh` installs, else `PATH`'s
/// `duckdb` — the first that runs; or `None` after [`tool_missing`] (which fails under CI).
pub fn duckdb_cli() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("CKB_DUCKDB").map(PathBuf::from),
        Some(home().join(".cache/ckb-tools/venv/bin/duckdb")),
        Some(PathBuf::from("duckdb")),
    ];
    let found = candidates
        .into_iter()
        .flatten()
        .find(|c| runs(c, "-version"));
    if found.is_none() {
        tool_missing("the stock duckdb CLI", "bash ci/install-tools.sh");
    }
    found
}

/// Where `ci/install-tools.sh` installs its tools (`$CKB_TOOLS_DIR`, or `~/.cache/ckb-tools`).
pub fn tools_dir() -> PathBuf {
    install_dir("CKB_TOOLS_DIR", ".cache/ckb-tools")
}

/// The npm tools the picture tests use and the versions `ci/install-tools.sh` installs (a test
/// in this crate checks the two agree).
pub const PINNED_NODE_TOOLS: &[(&str, &str)] = &[
    ("@mermaid-js/mermaid-cli", "12.2.0"),
    ("puppeteer-core", "25.16.0"),
];

/// The `node_modules` folder holding an installed npm tool of [`PINNED_NODE_TOOLS`] at its pinned
/// version, or `None` after [`tool_missing`] (which fails under CI). Another version fails under
/// CI and is named loudly otherwise.
pub fn node_tool(package: &str) -> Option<PathBuf> {
    let modules = tools_dir().join("node/node_modules");
    let manifest = modules.join(package).join("package.json");
    let Ok(text) = std::fs::read_to_string(&manifest) else {
        tool_missing(package, "bash ci/install-tools.sh");
        return None;
    };
    let want = pinned_in(PINNED_NODE_TOOLS, package);
    let found = json_string_field(&text, "version").unwrap_or_default();
    if found != want {
        wrong_version(&format!(
            "{package} {found} is installed, the tests expect {want}; `bash ci/install-tools.sh` installs it"
        ));
    }
    Some(modules)
}

/// Debian's Chromium (`/usr/bin/chromium`, or `$CKB_CHROMIUM`) when it runs, or `None` after
/// [`tool_missing`] (which fails under CI). Never a browser some npm package downloaded.
pub fn chromium() -> Option<PathBuf> {
    let path = std::env::var_os("CKB_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    if !runs(&path, "--version") {
        tool_missing(
            "chromium",
            "bash ci/install-tools.sh (apt-get install chromium)",
        );
        return None;
    }
    Some(path)
}

/// Whether `program arg` starts and exits 0.
fn runs(program: &Path, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Graphviz's `dot` when it runs, or `None` after [`tool_missing`] (which fails under CI).
pub fn graphviz_dot() -> Option<PathBuf> {
    if !runs(Path::new("dot"), "-V") {
        tool_missing(
            "dot (graphviz)",
            "bash ci/install-tools.sh (apt-get install graphviz)",
        );
        return None;
    }
    Some(PathBuf::from("dot"))
}

/// The MCP clients the tests drive `ckb mcp` with; `ci/install-tools.sh` installs exactly these
/// into `$HOME/.cache/ckb-tools` (a test in this crate checks the two agree).
pub const PINNED_MCP_CLIENTS: &[(&str, &str)] = &[
    // PyPI `mcp`, the official Python SDK, in the tools venv.
    ("mcp-python-sdk", "2.3.0"),
    // npm `@modelcontextprotocol/inspector`, whose `--cli` mode lists and calls tools.
    ("mcp-inspector", "2.12.0"),
];

/// The tools venv's Python when it has the pinned MCP Python SDK, or `None` after
/// [`tool_missing`] (which fails under CI).
pub fn mcp_python() -> Option<PathBuf> {
    let python = tools_dir().join("venv/bin/python");
    let want = pinned_in(PINNED_MCP_CLIENTS, "mcp-python-sdk");
    let found = Command::new(&python)
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('mcp'))",
        ])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| stdout_of(&o).trim().to_string());
    match found {
        Some(v) if v == want => Some(python),
        other => {
            tool_missing(
                &format!("the MCP Python SDK {want} (found {other:?})"),
                "bash ci/install-tools.sh",
            );
            None
        }
    }
}

/// The MCP Inspector's launcher at the pinned version, or `None` after [`tool_missing`] (which
/// fails under CI).
pub fn mcp_inspector() -> Option<PathBuf> {
    let dir = tools_dir().join("inspector");
    let bin = dir.join("node_modules/.bin/mcp-inspector");
    let package = dir.join("node_modules/@modelcontextprotocol/inspector/package.json");
    let found = std::fs::read_to_string(package)
        .ok()
        .and_then(|text| json_string_field(&text, "version"));
    let want = pinned_in(PINNED_MCP_CLIENTS, "mcp-inspector");
    if bin.exists() && found.as_deref() == Some(want) {
        return Some(bin);
    }
    tool_missing(
        &format!("the MCP Inspector {want} (found {found:?})"),
        "bash ci/install-tools.sh",
    );
    None
}

fn home() -> PathBuf {
    PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
}

/// The environment variable that makes golden checks rewrite their files instead of comparing.
pub const UPDATE_GOLDEN: &str = "CKB_UPDATE_GOLDEN";

/// Compares `actual` with the golden file at `path`; with `CKB_UPDATE_GOLDEN` set, writes `actual`
/// there instead (folders made). A mismatch or a missing file is an error message naming the
/// file, the difference and how to regenerate (for tests that collect several before failing).
pub fn check_golden(path: &Path, actual: &str) -> Result<(), String> {
    if std::env::var_os(UPDATE_GOLDEN).is_some() {
        std::fs::create_dir_all(path.parent().expect("a golden file has a folder")).expect("mkdir");
        std::fs::write(path, actual).expect("write golden");
        return Ok(());
    }
    match std::fs::read_to_string(path) {
        Ok(want) if want == actual => Ok(()),
        Ok(want) => Err(format!(
            "{} differs from the golden ({UPDATE_GOLDEN}=1 regenerates it; review the diff)\n\
             --- want\n{want}\n--- got\n{actual}",
            path.display()
        )),
        Err(e) => Err(format!(
            "{}: {e} ({UPDATE_GOLDEN}=1 writes it)",
            path.display()
        )),
    }
}

/// [`check_golden`], panicking on a mismatch.
pub fn assert_golden(path: &Path, actual: &str) {
    if let Err(message) = check_golden(path, actual) {
        panic!("{message}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn installer_script(installer: &str) -> String {
        std::fs::read_to_string(
            Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo test"))
                .join("..")
                .join(installer),
        )
        .unwrap_or_else(|e| panic!("{installer}: {e}"))
    }

    /// Asserts that `<installer>` (a path in the repository) sets `<NAME>_VERSION=<version>` for each pin (`NAME` without
    /// an npm scope such as `@mermaid-js/`).
    fn assert_installer_pins(installer: &str, pins: &[(&str, &str)]) {
        let script = installer_script(installer);
        for (name, version) in pins {
            let var = format!(
                "{}_VERSION={version}",
                name.trim_start_matches("@mermaid-js/")
                    .replace('-', "_")
                    .to_uppercase()
            );
            assert!(script.contains(&var), "{installer} lacks {var}");
        }
    }

    #[test]
    fn the_installer_pins_the_versions_the_tests_expect() {
        let pins: Vec<(&str, &str)> = TESTED_INDEXERS.iter().map(|n| (*n, pinned(n))).collect();
        assert_installer_pins("examples/github/ckb/install-indexers.sh", &pins);
    }

    #[test]
    fn the_tool_installer_pins_the_node_tools_the_tests_expect() {
        assert_installer_pins("ci/install-tools.sh", PINNED_NODE_TOOLS);
        let script = installer_script("ci/install-tools.sh");
        for (name, _) in PINNED_NODE_TOOLS {
            let spec = format!("{name}@${{");
            assert!(
                script.contains(&spec),
                "install-tools.sh does not install {name}"
            );
        }
    }

    #[test]
    fn the_tools_installer_pins_the_mcp_clients_the_tests_expect() {
        assert_installer_pins("ci/install-tools.sh", PINNED_MCP_CLIENTS);
    }

    #[test]
    fn reads_a_package_version() {
        let text = r#"{"name": "@sourcegraph/scip-python", "version": "0.6.6", "x": 1}"#;
        assert_eq!(json_string_field(text, "version").as_deref(), Some("0.6.6"));
        assert_eq!(json_string_field(text, "missing"), None);
    }
}
