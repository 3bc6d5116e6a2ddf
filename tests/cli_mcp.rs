//! `ckb mcp` with real clients over stdio, on real snapshots of a fixture repository:
//!
//! - the official Python SDK (`tests/support/mcp_client.py`), in both protocol eras (2026-07-28
//!   through `server/discover`, 2025-11-25 through `initialize`), lists the tools and calls every
//!   one; each result's text must be the bytes `ckb query --format json` prints for the same
//!   question, and its structured content that JSON (errors included: not found, ambiguous,
//!   out-of-range arguments);
//! - the MCP Inspector's CLI mode lists the tools and calls one;
//! - a raw session of 1 000 mixed lines (valid calls, malformed JSON, unknown tools and methods,
//!   bad arguments) is answered line by line, stays up, and its memory stays flat;
//! - the bad-input table of `ckb mcp`: no snapshot yet (then one published while the server runs
//!   is picked up), a panic inside a call, closed standard input (exit 0).

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use common::{ckb, ckb_ok, Fixture};
use serde_json::{json, Value};

const LIB: &str = r#"pub mod shapes;

/// Something with an area.
pub trait Shape {
    fn area(&self) -> f64;
}

pub struct Square {
    pub side: f64,
}

impl Shape for Square {
    fn area(&self) -> f64 {
        square(self.side)
    }
}

pub fn square(x: f64) -> f64 {
    x * x
}

pub fn total(shapes: &[&dyn Shape]) -> f64 {
    shapes.iter().map(|s| s.area()).sum()
}

pub fn describe(shapes: &[&dyn Shape]) -> String {
    format!("{}", total(shapes))
}
"#;

const SHAPES: &str = "pub struct Circle {\n    pub r: f64,\n}\n\nimpl crate::Shape for Circle {\n    fn area(&self) -> f64 {\n        crate::square(self.r) * 3.14\n    }\n}\n";

const TEST: &str =
    "use geo::square;\n\n#[test]\nfn squares() {\n    assert_eq!(square(2.0), 4.0);\n}\n";

/// A repository with two commits, each snapshotted into the repository's store; returns the
/// fixture and both snapshot folders.
fn fixture() -> (Fixture, PathBuf, PathBuf) {
    let f = Fixture::git();
    f.write(".gitignore", ".ckb/\n")
        .write(
            "Cargo.toml",
            "[package]\nname = \"geo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .write("src/lib.rs", LIB)
        .write("src/shapes.rs", SHAPES)
        .write("tests/square.rs", TEST);
    f.commit("shapes");
    let base = snapshot(f.path());
    f.write("src/lib.rs", LIB.replace("x * x", "x.powi(2)"));
    f.commit("powi");
    let head = snapshot(f.path());
    (f, base, head)
}

fn snapshot(repo: &Path) -> PathBuf {
    let out = ckb_ok(repo, &["snapshot", ".", "--progress", "never"]);
    PathBuf::from(out.lines().last().unwrap())
}

fn ckb_bin() -> &'static str {
    env!("CARGO_BIN_EXE_ckb")
}

/// The stable ID of the symbol `name` (unique in the fixture).
fn id_of(repo: &Path, name: &str) -> String {
    let out = ckb_ok(repo, &["query", "--format", "json", "symbol", name]);
    let v: Value = serde_json::from_str(&out).unwrap();
    v["facts"]["symbol"]["id"].as_str().unwrap().to_string()
}

/// One call: the tool, its MCP arguments, and the same question on the command line.
struct Case {
    tool: &'static str,
    arguments: Value,
    cli: Vec<String>,
}

/// A query case: `cli` is what follows `ckb query --format json`.
fn case(tool: &'static str, arguments: Value, cli: &[&str]) -> Case {
    let mut all = vec!["query", "--format", "json"];
    all.extend_from_slice(cli);
    Case {
        tool,
        arguments,
        cli: all.iter().map(|s| s.to_string()).collect(),
    }
}

fn cases(repo: &Path, base: &Path, head: &Path) -> Vec<Case> {
    let square = id_of(repo, "square");
    let shape = id_of(repo, "Shape");
    let sq = square.as_str();
    let sql = "select kind, count(*) as n from symbols group by kind order by kind";
    let (base, head) = (base.to_str().unwrap(), head.to_str().unwrap());
    vec![
        case("status", json!({}), &["status"]),
        case("doctor", json!({}), &["doctor"]),
        case("doctor", json!({"fix": true}), &["doctor", "--fix"]),
        case("symbol", json!({"id": sq}), &["symbol", sq]),
        case(
            "search",
            json!({"query": "a", "kind": ["function"], "limit": 3}),
            &["search", "a", "--kind", "function", "--limit", "3"],
        ),
        case(
            "refs",
            json!({"id": sq, "max-items": 2}),
            &["--max-items", "2", "refs", sq],
        ),
        case(
            "arch",
            json!({"include-external": true}),
            &["arch", "--include-external"],
        ),
        case(
            "impact",
            json!({"id": sq, "depth": 2}),
            &["impact", sq, "--depth", "2"],
        ),
        case("explore", json!({"target": "src"}), &["explore", "src"]),
        case(
            "understand",
            json!({"query": "total"}),
            &["understand", "total"],
        ),
        case(
            "prepare-change",
            json!({"target": sq, "change-type": "rename"}),
            &["prepare-change", sq, "--change-type", "rename"],
        ),
        case(
            "batch-get",
            json!({"ids": [sq, "total", "nope"]}),
            &["batch-get", sq, "total", "nope"],
        ),
        case(
            "batch-search",
            json!({"queries": ["sq", "tot"]}),
            &["batch-search", "sq", "tot"],
        ),
        case(
            "hotspots",
            json!({"window": "all"}),
            &["hotspots", "--window", "all"],
        ),
        case(
            "coupling",
            json!({"path": "src/lib.rs"}),
            &["coupling", "src/lib.rs"],
        ),
        case("ownership", json!({"path": "src"}), &["ownership", "src"]),
        case(
            "dead-code",
            json!({"max-tokens": 800}),
            &["--max-tokens", "800", "dead-code"],
        ),
        case(
            "affected-tests",
            json!({"target": "src/lib.rs"}),
            &["affected-tests", "src/lib.rs"],
        ),
        case(
            "callers",
            json!({"id": sq, "depth": 3}),
            &["callers", sq, "--depth", "3"],
        ),
        case(
            "callees",
            json!({"id": "describe"}),
            &["callees", "describe"],
        ),
        case("hierarchy", json!({"id": shape}), &["hierarchy", &shape]),
        case("sql", json!({"sql": sql}), &["sql", sql]),
        case("canned", json!({}), &["canned"]),
        case(
            "canned",
            json!({"name": "hotspots"}),
            &["canned", "hotspots"],
        ),
        // Errors: each the CLI's error envelope, as a tool error.
        case(
            "symbol",
            json!({"id": "no_such_symbol"}),
            &["symbol", "no_such_symbol"],
        ),
        case("refs", json!({"id": "area"}), &["refs", "area"]),
        case(
            "callers",
            json!({"id": sq, "depth": 11}),
            &["callers", sq, "--depth", "11"],
        ),
        case(
            "search",
            json!({"query": "a", "limit": 0}),
            &["search", "a", "--limit", "0"],
        ),
        Case {
            tool: "diff",
            arguments: json!({"base": base, "head": head}),
            cli: ["diff", base, head, "--format", "json"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
        },
    ]
}

fn tool_names() -> Vec<String> {
    let help = ckb_ok(Path::new("."), &["query", "--help"]);
    let mut names: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // A command's line; its help may wrap onto deeper-indented lines.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next().map(String::from))
        .filter(|n| n != "help")
        .collect();
    names.push("diff".into());
    names
}

#[test]
fn the_python_sdk_gets_the_cli_answers_from_every_tool_in_both_eras() {
    let Some(python) = test_support::mcp_python() else {
        return;
    };
    let (f, base, head) = fixture();
    let repo = f.path();
    let cases = cases(repo, &base, &head);
    let mut specs = Vec::new();
    for c in &cases {
        let args: Vec<&str> = c.cli.iter().map(String::as_str).collect();
        let out = ckb(repo, &args);
        let code = out.status.code();
        assert!(
            matches!(code, Some(0 | 1)),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        specs.push(json!({
            "tool": c.tool,
            "arguments": c.arguments,
            "expected": String::from_utf8(out.stdout).unwrap(),
            "error": code == Some(1),
        }));
    }
    // Every tool is called at least once.
    let called: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.tool).collect();
    let tools = tool_names();
    for t in &tools {
        assert!(called.contains(t.as_str()), "no case calls {t}");
    }
    let manifest = output_schema::verify::read_manifest(&head).unwrap();
    let view = std::fs::read(head.join("views/architecture.json.zst")).unwrap();
    let view: Value =
        serde_json::from_slice(&output_schema::manifest::decompress(&view).unwrap()).unwrap();
    let pretty = |v: &Value| output_schema::json::to_string_pretty(v).unwrap() + "\n";
    let spec = json!({
        "command": [ckb_bin(), "mcp", "--repo", repo.to_str().unwrap()],
        "cwd": repo.to_str().unwrap(),
        "tools": tools,
        "cases": specs,
        "resources": {
            "ckb://snapshot/manifest": pretty(&serde_json::to_value(&manifest).unwrap()),
            "ckb://schema": ckb_ok(repo, &["schema", "--format", "json"]),
            "ckb://snapshot/architecture": pretty(&view),
        },
    });
    // Outside the repository, whose working tree must stay clean for the answers to match.
    let scratch = tempfile::tempdir().unwrap();
    let spec_file = scratch.path().join("mcp-cases.json");
    std::fs::write(&spec_file, serde_json::to_string(&spec).unwrap()).unwrap();
    let manifest_dir =
        std::env::var("CARGO_MANIFEST_DIR").expect("cargo test sets CARGO_MANIFEST_DIR");
    let script = Path::new(&manifest_dir).join("tests/support/mcp_client.py");
    let out = Command::new(python)
        .arg(script)
        .arg(&spec_file)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("all ok"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Both eras, every case.
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("ok ")).count(),
        2 * (1 + cases.len() + 3),
        "{stdout}"
    );
}

#[test]
fn the_inspector_cli_lists_the_tools_and_calls_one() {
    let Some(inspector) = test_support::mcp_inspector() else {
        return;
    };
    let (f, _, _) = fixture();
    let repo = f.path();
    let scratch = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(&inspector)
            .arg("--cli")
            .args([ckb_bin(), "mcp", "--repo", repo.to_str().unwrap()])
            .args(args)
            .env(
                "MCP_CATALOG_PATH",
                scratch.path().join("inspector-catalog.json"),
            )
            .current_dir(repo)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{args:?}: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_str::<Value>(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
    };
    let listed = run(&["--method", "tools/list"]);
    let names = test_support::json::strs(&listed["tools"], "name");
    assert_eq!(names, tool_names());
    let called = run(&[
        "--method",
        "tools/call",
        "--tool-name",
        "search",
        "--tool-arg",
        "query=square",
    ]);
    let cli: Value = serde_json::from_str(&ckb_ok(
        repo,
        &["query", "--format", "json", "search", "square"],
    ))
    .unwrap();
    assert_eq!(called["structuredContent"], cli, "{called}");
    assert_eq!(called["isError"], json!(false));
}

/// A server on pipes, read line by line, killed if the test outlives a watchdog.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Session {
    fn start(repo: &Path, env: &[(&str, &str)]) -> Session {
        let mut cmd = Command::new(ckb_bin());
        cmd.args(["mcp", "--repo", repo.to_str().unwrap()])
            .current_dir(repo)
            .env_remove("CKB_STORE")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let pid = child.id();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(600));
            let _ = Command::new("kill").arg(pid.to_string()).status();
        });
        Session {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn recv(&mut self) -> Value {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).unwrap();
        assert!(n > 0, "the server closed its output");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        let reply = self.recv();
        assert_eq!(reply["id"], json!(id), "{reply}");
        reply
    }

    fn call(&mut self, id: u64, tool: &str, arguments: Value) -> Value {
        let reply = self.request(
            id,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        );
        reply["result"].clone()
    }

    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap()
    }

    /// Closes standard input and returns the exit code.
    fn close(mut self) -> Option<i32> {
        drop(self.stdin.take());
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "no exit after stdin closed"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn initialize(s: &mut Session) {
    let r = s.request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25");
    s.send(r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#);
}

#[test]
fn a_thousand_mixed_lines_are_all_answered_and_memory_stays_flat() {
    let (f, _, _) = fixture();
    let repo = f.path();
    let square = id_of(repo, "square");
    let mut s = Session::start(repo, &[]);
    initialize(&mut s);
    let mut rss_at_100 = 0;
    let mut rss_at_1000 = 0;
    for i in 1..=1000u64 {
        match i % 8 {
            0 => {
                s.send("{\"jsonrpc\": \"2.0\", \"id\": ");
                let r = s.recv();
                assert_eq!(r["error"]["code"], json!(-32700), "{r}");
            }
            1 => {
                let r = s.request(
                    i,
                    "tools/call",
                    json!({"name": "no-such-tool", "arguments": {}}),
                );
                assert_eq!(r["error"]["code"], json!(-32602), "{r}");
            }
            2 => {
                let r = s.call(i, "callers", json!({"id": square, "depth": 99}));
                assert_eq!(r["isError"], json!(true));
                let e = &r["structuredContent"]["error"];
                assert_eq!(e["code"], "INVALID_PARAMETER");
                assert!(e["message"].as_str().unwrap().contains("--depth"), "{e}");
            }
            3 => {
                let r = s.call(i, "search", json!({"query": "sq", "nope": 1}));
                assert_eq!(r["structuredContent"]["error"]["code"], "INVALID_PARAMETER");
            }
            4 => {
                let r = s.request(i, "no/such/method", json!({}));
                assert_eq!(r["error"]["code"], json!(-32601), "{r}");
            }
            5 => {
                let r = s.call(i, "symbol", json!({"id": square}));
                assert_eq!(
                    r["structuredContent"]["facts"]["symbol"]["id"],
                    json!(square)
                );
            }
            6 => {
                let r = s.call(i, "refs", json!({"id": square}));
                assert_eq!(r["isError"], json!(false), "{r}");
            }
            _ => {
                let r = s.call(i, "search", json!({"query": "s", "limit": 5}));
                assert!(r["structuredContent"]["facts"]["results"].is_array(), "{r}");
            }
        }
        if i == 100 {
            rss_at_100 = s.rss_kib();
        }
        if i == 1000 {
            rss_at_1000 = s.rss_kib();
        }
    }
    eprintln!("RSS after call 100: {rss_at_100} KiB; after call 1000: {rss_at_1000} KiB");
    // Flat: the 900 calls after the 100th add at most a quarter (allocator slack, not a leak).
    assert!(
        rss_at_1000 <= rss_at_100 + rss_at_100 / 4,
        "memory grew from {rss_at_100} KiB to {rss_at_1000} KiB"
    );
    assert_eq!(s.close(), Some(0));
}

#[test]
fn no_snapshot_yet_is_a_tool_error_and_a_published_one_is_picked_up() {
    let f = Fixture::git();
    f.write(".gitignore", ".ckb/\n").write("src/lib.rs", LIB);
    f.commit("one");
    let mut s = Session::start(f.path(), &[]);
    initialize(&mut s);
    let r = s.call(1, "status", json!({}));
    assert_eq!(r["isError"], json!(true));
    let e = &r["structuredContent"]["error"];
    assert_eq!(e["code"], "SNAPSHOT_NOT_FOUND");
    assert!(
        e["remediation"].as_str().unwrap().contains("ckb snapshot"),
        "{e}"
    );
    let r = s.request(
        2,
        "resources/read",
        json!({"uri": "ckb://snapshot/manifest"}),
    );
    assert_eq!(r["error"]["code"], json!(-32002), "{r}");
    assert_eq!(r["error"]["data"]["code"], "SNAPSHOT_NOT_FOUND");
    // Published while the server runs: the next call reads it.
    let first = snapshot(f.path());
    let r = s.call(3, "status", json!({}));
    assert_eq!(r["isError"], json!(false), "{r}");
    let seen = r["structuredContent"]["provenance"]["snapshot"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        first.ends_with(&seen) || seen.ends_with(first.file_name().unwrap().to_str().unwrap()),
        "{seen} vs {first:?}"
    );
    // A newer commit's snapshot replaces it.
    f.write("src/extra.rs", "pub fn extra() {}\n");
    let head = f.commit("two");
    let stale = s.call(4, "status", json!({}));
    assert_eq!(
        stale["structuredContent"]["provenance"]["freshness"]["state"], "behind",
        "{stale}"
    );
    snapshot(f.path());
    let fresh = s.call(5, "status", json!({}));
    let text = fresh["content"][0]["text"].as_str().unwrap();
    assert!(text.contains(&head), "{text}");
    assert_eq!(s.close(), Some(0));
}

#[test]
fn a_panic_in_a_call_is_an_internal_error_and_the_session_goes_on() {
    let (f, _, _) = fixture();
    let mut s = Session::start(f.path(), &[("CKB_FAILPOINT", "mcp-call-panic")]);
    initialize(&mut s);
    for id in 1..=2 {
        let r = s.call(id, "status", json!({}));
        assert_eq!(r["isError"], json!(true));
        assert_eq!(r["structuredContent"]["error"]["code"], "INTERNAL_ERROR");
    }
    let r = s.request(3, "tools/list", json!({}));
    assert!(r["result"]["tools"].as_array().unwrap().len() > 20);
    assert_eq!(s.close(), Some(0));
}

#[test]
fn closed_stdin_ends_the_server_with_exit_0() {
    let (f, _, _) = fixture();
    // Without a single message.
    assert_eq!(Session::start(f.path(), &[]).close(), Some(0));
    // In the middle of a session, after a partial line.
    let mut s = Session::start(f.path(), &[]);
    initialize(&mut s);
    s.stdin
        .as_mut()
        .unwrap()
        .write_all(b"{\"jsonrpc\": \"2.0\", \"id\": 9")
        .unwrap();
    let mut s2 = s;
    drop(s2.stdin.take());
    let r = s2.recv();
    assert_eq!(r["error"]["code"], json!(-32700), "{r}");
    assert_eq!(s2.close(), Some(0));
}
