//! `ckb mcp`: the query contract for coding agents, as a Model Context Protocol server over stdio.
//!
//! A small hand-written JSON-RPC layer (`rpc.rs`) rather than the `rmcp` SDK: the server answers
//! requests one at a time from synchronous query code and never calls the client, so an async
//! runtime (tokio), a schema-derivation crate and the SDK's dozens of dependencies would add
//! compile time and weight for nothing it needs; the protocol surface it serves — both eras of
//! MCP, below — is a few hundred lines, and the official Python SDK and the MCP Inspector test it
//! end to end (`tests/cli_mcp.rs`), so a protocol revision that changes the wire shows up there.
//!
//! Protocol revisions, decided per request:
//! - 2026-07-28 (current): no handshake; every request carries its protocol version and client
//!   capabilities in `params._meta` (`io.modelcontextprotocol/protocolVersion`,
//!   `…/clientCapabilities`); `server/discover` names the versions and capabilities; results
//!   carry `resultType` and the server's info in `_meta`, list and read results cache hints. A
//!   version the server does not speak is error -32022 naming the ones it does.
//! - 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05: the `initialize` handshake, which echoes a
//!   version it speaks or offers 2025-11-25.
//!
//! Tools (`tools.rs`) are the CLI's query commands, generated from its clap declarations and run
//! through its code; resources (`resources.rs`) are the manifest, the schema and the architecture
//! view. A command's error is a tool result with `isError` and ckb's error envelope (stable code,
//! message, remediation, drilldowns); malformed JSON, unknown methods or tools and bad arguments
//! are answered and the session goes on; a panic in a call is an `INTERNAL_ERROR` result. Each
//! call locates the snapshot again, as `ckb query` does (reading folder names and the working
//! tree's state, not the store's tables), so a snapshot published while the server runs is read
//! by the next call; while the same snapshot is found, its decoded tables stay in memory
//! (`--cache-mib`, see `queries::snapshot::cache`). Closed standard input ends the server with
//! exit 0.

mod resources;
mod rpc;
mod tools;

use std::cell::RefCell;
use std::io::{BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use output_schema::ErrorCode;
use queries::envelope::render::{self, Format};
use queries::{Freshness, QueryError, Snapshot};
use serde_json::{json, Map, Value};

use crate::cmd::query::{Locator, Output};
use crate::locate::locate;
use crate::Failure;
use rpc::{Incoming, Line, RpcError};

/// Arguments of `ckb mcp`.
#[derive(clap::Args)]
pub struct Args {
    /// Repository whose snapshots are served [default: the enclosing repository of the current
    /// folder].
    #[arg(long, value_name = "PATH")]
    repo: Option<PathBuf>,
    /// Snapshot store to serve [default: as `ckb query`: $CKB_STORE, else the repository's].
    #[arg(long, value_name = "DIR")]
    store: Option<PathBuf>,
    /// Serve this one snapshot folder (a newer snapshot is then never picked up).
    #[arg(long, value_name = "DIR", conflicts_with = "store")]
    snapshot: Option<PathBuf>,
    /// Memory for the decoded tables of the snapshot being served, in MiB: a table is decoded
    /// once and answers every later call from memory; 0 reads the files on every call.
    #[arg(long, value_name = "MIB", default_value_t = 1024)]
    cache_mib: usize,
}

/// What the server serves: `ckb mcp`'s `--repo`, `--store` and `--snapshot`.
#[derive(Clone, Debug, Default)]
pub struct Place {
    /// `--snapshot`.
    pub snapshot: Option<PathBuf>,
    /// `--store`.
    pub store: Option<PathBuf>,
    /// `--repo`.
    pub repo: Option<PathBuf>,
}

impl Place {
    /// The same place as `ckb query` options.
    fn argv(&self) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        for (flag, path) in [
            ("--snapshot", &self.snapshot),
            ("--store", &self.store),
            ("--repo", &self.repo),
        ] {
            if let Some(p) = path {
                let text = p
                    .to_str()
                    .ok_or_else(|| format!("{flag} {} is not valid UTF-8", p.display()))?;
                out.extend([flag.to_string(), text.to_string()]);
            }
        }
        Ok(out)
    }
}

/// Protocol revisions with the `initialize` handshake, oldest first.
pub const HANDSHAKE_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// Protocol revisions with the per-request envelope.
pub const MODERN_VERSIONS: &[&str] = &["2026-07-28"];

const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// How long a client may keep the tool list and the server's description (they change only with
/// the binary): an hour.
const STATIC_TTL_MS: u64 = 3_600_000;

const INSTRUCTIONS: &str = "ckb answers questions about one repository's code from a snapshot \
(symbols with stable IDs, references, call graph, type hierarchy, modules, git history). Every \
tool is the `ckb query` command of the same name: its structured result is ckb's answer envelope \
(`facts`; `explanation`; `provenance` with `completeness` {score, reason}, freshness and \
`truncations`; `drilldowns`; `compression`), and its text the same JSON. Answers are bounded: \
lists are cut to budgets (`max-items`, `max-modules`, `max-per-module`, `max-tokens`, \
`max-drilldowns`, or a tool's `limit`), and each cut is a truncation. A drilldown is a command \
line `ckb query <tool> <positional> --<flag> <value>`: call the tool of that name with the \
positional under its argument name and each `--flag` as the argument `flag`. Name symbols by the \
stable IDs answers give (`ckb:<repo>:sym:<hex>`) rather than by names, which may be ambiguous \
(AMBIGUOUS_QUERY lists the candidates). An error is a result with isError and {error: {code, \
message, remediation}}: follow the remediation. Start with `status`, then `search` or \
`understand`; `callers`, `callees` and `hierarchy` walk the call graph and type hierarchy; \
`impact` and `prepare-change` say what a change affects.";

/// Which revision's rules a request follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Era {
    Handshake,
    Modern,
}

/// The server: what it serves and the tools it offers.
struct Server<'l> {
    /// What is served, as `ckb query` options.
    place_argv: Vec<String>,
    place: Place,
    catalog: tools::Catalog,
    locator: &'l Locator<'l>,
}

/// Runs `ckb mcp` until standard input closes.
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let place = Place {
        snapshot: args.snapshot,
        store: args.store,
        repo: args.repo,
    };
    let place_argv = place
        .argv()
        .map_err(|m| super::invalid(m, "pass paths that are valid UTF-8", Format::Human))?;
    // A panic in one call is that call's INTERNAL_ERROR, not the end of the session: the hook
    // main installed would exit the process.
    std::panic::set_hook(Box::new(|info| {
        if !output_schema::contain::is_containing() {
            let _ = writeln!(std::io::stderr(), "ckb mcp: {info}");
        }
    }));
    let last: RefCell<Option<Snapshot>> = RefCell::new(None);
    let cache = args.cache_mib.saturating_mul(1 << 20);
    let reusing = |snapshot: Option<&Path>, store: Option<&Path>, repo: Option<&Path>| {
        locate_reusing(&last, cache, (snapshot, store, repo))
    };
    let server = Server {
        place_argv,
        place,
        catalog: tools::Catalog::from_cli(),
        locator: if cache > 0 { &reusing } else { &locate },
    };
    let stdin = std::io::stdin();
    let result = serve(&server, &mut stdin.lock(), &mut std::io::stdout().lock());
    match result {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(Failure::new(
            QueryError::new(
                ErrorCode::IoError,
                format!("ckb mcp: {e}"),
                "the MCP client's pipe failed; restart the server",
            ),
            Format::Human,
        )),
    }
}

/// [`locate`], run for every call as `ckb query` runs it, keeping the snapshot of the previous
/// call — with its decoded tables — while it is the one found (same folder, same manifest).
fn locate_reusing(
    last: &RefCell<Option<Snapshot>>,
    cache: usize,
    (snapshot, store, repo): (Option<&Path>, Option<&Path>, Option<&Path>),
) -> Result<(Snapshot, Freshness), QueryError> {
    let (found, freshness) = locate(snapshot, store, repo)?;
    let mut last = last.borrow_mut();
    let same = last
        .as_ref()
        .is_some_and(|l| l.dir == found.dir && l.manifest == found.manifest);
    if !same {
        *last = Some(found.with_cache(cache));
    }
    let kept = last.clone().ok_or_else(|| {
        QueryError::new(
            ErrorCode::InternalError,
            "the located snapshot was not kept",
            "report this as a bug in ckb",
        )
    })?;
    Ok((kept, freshness))
}

/// Answers every message of `input` on `output`, in order, until `input` ends.
fn serve(
    server: &Server<'_>,
    input: &mut impl BufRead,
    output: &mut impl Write,
) -> std::io::Result<()> {
    loop {
        let replies = match rpc::read_line(input, rpc::MAX_MESSAGE_BYTES)? {
            Line::End => return Ok(()),
            Line::TooLong => vec![rpc::error(
                Value::Null,
                &RpcError::new(
                    rpc::PARSE_ERROR,
                    format!("a message is limited to {} bytes", rpc::MAX_MESSAGE_BYTES),
                ),
            )],
            Line::Message(bytes) => server.handle_bytes(&bytes),
        };
        for reply in replies {
            let mut text = serde_json::to_string(&reply).unwrap_or_default();
            text.push('\n');
            output.write_all(text.as_bytes())?;
        }
        output.flush()?;
    }
}

impl Server<'_> {
    /// The replies to one line: none for notifications, one per request, an array for a batch.
    fn handle_bytes(&self, bytes: &[u8]) -> Vec<Value> {
        let message: Value = match serde_json::from_slice(bytes) {
            Ok(v) => v,
            Err(e) => {
                return vec![rpc::error(
                    Value::Null,
                    &RpcError::new(rpc::PARSE_ERROR, format!("not JSON: {e}")),
                )]
            }
        };
        match message {
            // JSON-RPC batches (MCP 2025-03-26 allowed them): each element answered, in order.
            Value::Array(items) if items.is_empty() => vec![rpc::error(
                Value::Null,
                &RpcError::new(rpc::INVALID_REQUEST, "an empty batch"),
            )],
            Value::Array(items) => {
                let replies: Vec<Value> =
                    items.into_iter().filter_map(|m| self.handle(m)).collect();
                if replies.is_empty() {
                    Vec::new()
                } else {
                    vec![Value::Array(replies)]
                }
            }
            m => self.handle(m).into_iter().collect(),
        }
    }

    fn handle(&self, message: Value) -> Option<Value> {
        match rpc::classify(message) {
            Incoming::Request { id, method, params } => {
                Some(match self.request(&method, &params) {
                    Ok(result) => rpc::result(id, result),
                    Err(e) => rpc::error(id, &e),
                })
            }
            // `notifications/initialized`, `notifications/cancelled` (calls are answered in
            // order, so there is nothing running to cancel) and the like need no answer.
            Incoming::Notification | Incoming::Response => None,
            Incoming::Invalid { id, error } => Some(rpc::error(id, &error)),
        }
    }

    fn request(&self, method: &str, params: &Value) -> Result<Value, RpcError> {
        let era = era_of(method, params)?;
        let params = rpc::object(params);
        let (result, ttl) = match method {
            "initialize" => (initialize(&params)?, None),
            "server/discover" => (discover(), Some(STATIC_TTL_MS)),
            "ping" => (json!({}), None),
            "tools/list" => (
                json!({"tools": self.catalog.list_json()}),
                Some(STATIC_TTL_MS),
            ),
            "tools/call" => (self.call(&params)?, None),
            "resources/list" => (json!({"resources": resources::list()}), Some(STATIC_TTL_MS)),
            "resources/templates/list" => (json!({"resourceTemplates": []}), Some(STATIC_TTL_MS)),
            "resources/read" => (self.read(&params)?, Some(0)),
            // Clients ask for prompts whatever the capabilities say; there are none.
            "prompts/list" => (json!({"prompts": []}), Some(STATIC_TTL_MS)),
            _ => {
                return Err(RpcError::new(
                    rpc::METHOD_NOT_FOUND,
                    format!("ckb mcp has no method {method}"),
                ))
            }
        };
        Ok(match era {
            Era::Handshake => result,
            Era::Modern => modern(result, ttl),
        })
    }

    fn call(&self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::new(rpc::INVALID_PARAMS, "tools/call needs a tool `name`"))?;
        let tool = self.catalog.get(name).ok_or_else(|| {
            let names: Vec<&str> = self.catalog.tools.iter().map(|t| t.name.as_str()).collect();
            RpcError::new(rpc::INVALID_PARAMS, format!("unknown tool: {name}"))
                .with_data(json!({"tools": names}))
        })?;
        let outcome = match params.get("arguments") {
            None | Some(Value::Null) => self.run_tool(tool, &Map::new()),
            Some(Value::Object(args)) => self.run_tool(tool, args),
            Some(other) => Err(QueryError::new(
                ErrorCode::InvalidParameter,
                format!("the arguments of {name} must be an object, not {other}"),
                "pass the arguments as a JSON object, as the tool's input schema describes",
            )),
        };
        Ok(tool_result(outcome))
    }

    fn run_tool(
        &self,
        tool: &tools::Tool,
        args: &Map<String, Value>,
    ) -> Result<Output, QueryError> {
        let run = || {
            // Test hook: a bug inside a call must stay that call's error (tests/cli_mcp.rs).
            if std::env::var_os("CKB_FAILPOINT").is_some_and(|v| v == "mcp-call-panic") {
                panic!("failpoint");
            }
            tools::call(tool, args, &self.place_argv, self.locator)
        };
        catch_unwind(AssertUnwindSafe(run)).unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".into());
            Err(QueryError::new(
                ErrorCode::InternalError,
                format!("ckb {} hit a bug in {}: {what}", env!("CARGO_PKG_VERSION"), tool.name),
                "this is a bug in ckb: report it with this message and the call; the server goes on",
            ))
        })
    }

    fn read(&self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let uri = params
            .get("uri")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::new(rpc::INVALID_PARAMS, "resources/read needs a `uri`"))?;
        let text = resources::read(uri, &self.place, self.locator)?;
        Ok(json!({"contents": [{"uri": uri, "mimeType": "application/json", "text": text}]}))
    }
}

/// A tool's result: the answer's JSON as structured content and as text, or the error envelope
/// with `isError`.
fn tool_result(outcome: Result<Output, QueryError>) -> Value {
    let (text, is_error) = match &outcome {
        Ok(output) => (output.render(Format::Json), false),
        Err(e) => (render::error(e, Format::Json), true),
    };
    let mut result = json!({
        "content": [{"type": "text", "text": text}],
        "isError": is_error,
    });
    // `doctor --fix` answers a shell script, which is no JSON object.
    if let Ok(structured @ Value::Object(_)) = serde_json::from_str::<Value>(&text) {
        result["structuredContent"] = structured;
    }
    result
}

/// The revision a request follows: the 2026-07-28 envelope when `_meta` carries its protocol
/// version (checked: both keys, a version the server speaks), else the handshake's.
fn era_of(method: &str, params: &Value) -> Result<Era, RpcError> {
    let meta = params.get("_meta").and_then(Value::as_object);
    let Some(meta) = meta.filter(|m| m.contains_key(PROTOCOL_VERSION_KEY)) else {
        if method == "server/discover" {
            return Err(RpcError::new(
                rpc::INVALID_PARAMS,
                format!(
                    "server/discover needs params._meta with {PROTOCOL_VERSION_KEY:?} and \
                     {CLIENT_CAPABILITIES_KEY:?}"
                ),
            ));
        }
        return Ok(Era::Handshake);
    };
    // `initialize` belongs to the handshake whatever it carries.
    if method == "initialize" {
        return Ok(Era::Handshake);
    }
    if !meta.contains_key(CLIENT_CAPABILITIES_KEY) {
        return Err(RpcError::new(
            rpc::INVALID_PARAMS,
            format!("params._meta is missing the required envelope key {CLIENT_CAPABILITIES_KEY}"),
        ));
    }
    let Some(version) = meta.get(PROTOCOL_VERSION_KEY).and_then(Value::as_str) else {
        return Err(RpcError::new(
            rpc::INVALID_PARAMS,
            "the protocol-version envelope value must be a string",
        ));
    };
    if !MODERN_VERSIONS.contains(&version) {
        return Err(RpcError::new(
            rpc::UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
        )
        .with_data(json!({"supported": MODERN_VERSIONS, "requested": version})));
    }
    Ok(Era::Modern)
}

fn server_info() -> Value {
    json!({"name": "ckb", "title": "ckb (Code Knowledge Backend)", "version": env!("CARGO_PKG_VERSION")})
}

fn capabilities() -> Value {
    json!({"tools": {"listChanged": false}, "resources": {"listChanged": false, "subscribe": false}})
}

/// The handshake: the client's version when the server speaks it, else the newest handshake one.
fn initialize(params: &Map<String, Value>) -> Result<Value, RpcError> {
    let asked = params
        .get("protocolVersion")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            RpcError::new(rpc::INVALID_PARAMS, "initialize needs a `protocolVersion`")
        })?;
    let version = if HANDSHAKE_VERSIONS.contains(&asked) {
        asked
    } else {
        HANDSHAKE_VERSIONS[HANDSHAKE_VERSIONS.len() - 1]
    };
    Ok(json!({
        "protocolVersion": version,
        "capabilities": capabilities(),
        "serverInfo": server_info(),
        "instructions": INSTRUCTIONS,
    }))
}

fn discover() -> Value {
    json!({
        "supportedVersions": MODERN_VERSIONS,
        "capabilities": capabilities(),
        "instructions": INSTRUCTIONS,
    })
}

/// A result as 2026-07-28 shapes it: `resultType`, the server's info, and cache hints for list
/// and read results (private: they describe the user's repository).
fn modern(mut result: Value, ttl: Option<u64>) -> Value {
    result["resultType"] = json!("complete");
    result["_meta"] = json!({SERVER_INFO_KEY: server_info()});
    if let Some(ttl) = ttl {
        result["cacheScope"] = json!("private");
        result["ttlMs"] = json!(ttl);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(input: &str) -> Vec<Value> {
        let no_snapshot: &Locator<'_> = &|_, _, _| {
            Err(QueryError::new(
                ErrorCode::SnapshotNotFound,
                "no snapshot",
                "create one with `ckb snapshot`",
            ))
        };
        let server = Server {
            place_argv: Vec::new(),
            place: Place::default(),
            catalog: tools::Catalog::from_cli(),
            locator: no_snapshot,
        };
        let mut out = Vec::new();
        serve(&server, &mut input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn both_eras_are_served_and_bad_input_answered() {
        let modern_meta = r#""_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}"#;
        let input = [
            r#"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}"#.to_string(),
            r#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#.to_string(),
            r#"{"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": "2099-01-01"}}"#.to_string(),
            format!(r#"{{"jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {{{modern_meta}}}}}"#),
            r#"{"jsonrpc": "2.0", "id": 4, "method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2025-01-01", "io.modelcontextprotocol/clientCapabilities": {}}}}"#.to_string(),
            "{not json".to_string(),
            r#"{"jsonrpc": "2.0", "id": 5, "method": "nope"}"#.to_string(),
            r#"{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "nope"}}"#.to_string(),
            format!(r#"{{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {{"name": "status", {modern_meta}}}}}"#),
            r#"[{"jsonrpc": "2.0", "id": 8, "method": "ping"}, {"jsonrpc": "2.0", "method": "x"}]"#.to_string(),
        ]
        .join("\n");
        let r = session(&input);
        assert_eq!(r.len(), 9, "{r:#?}");
        assert_eq!(r[0]["result"]["protocolVersion"], "2025-06-18");
        assert_eq!(r[0]["result"]["serverInfo"]["name"], "ckb");
        assert_eq!(r[1]["result"]["protocolVersion"], "2025-11-25");
        assert_eq!(r[2]["result"]["supportedVersions"], json!(["2026-07-28"]));
        assert_eq!(r[2]["result"]["resultType"], "complete");
        assert_eq!(
            r[3]["error"]["code"],
            json!(rpc::UNSUPPORTED_PROTOCOL_VERSION)
        );
        assert_eq!(r[3]["error"]["data"]["requested"], "2025-01-01");
        assert_eq!(r[4]["error"]["code"], json!(rpc::PARSE_ERROR));
        assert_eq!(r[5]["error"]["code"], json!(rpc::METHOD_NOT_FOUND));
        assert_eq!(r[6]["error"]["code"], json!(rpc::INVALID_PARAMS));
        // No snapshot: a tool error carrying the code and the command that makes one.
        let call = &r[7]["result"];
        assert_eq!(call["isError"], json!(true));
        assert_eq!(
            call["structuredContent"]["error"]["code"],
            "SNAPSHOT_NOT_FOUND"
        );
        assert_eq!(call["resultType"], "complete");
        assert_eq!(r[8], json!([{"jsonrpc": "2.0", "id": 8, "result": {}}]));
    }
}
