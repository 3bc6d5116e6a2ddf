//! The MCP tools: one per `ckb query` command and one for `ckb diff`, read from the CLI's own
//! clap declarations, and a tool call run as that command line.
//!
//! Nothing here lists commands or arguments by hand. The catalog walks the clap command model
//! (`Cli::command()`): each subcommand of `query` (and `diff`) is a tool named like it, described
//! by its help; each argument is a property named like its long flag (`--max-items` →
//! `max-items`, `--kind` → `kind`) or, for a positional, like its field (`id`, `query`), typed from
//! its action (a switch is a boolean, a repeatable one an array of strings), its possible values
//! (an enum) and its value name (`N`, `SECONDS`: an integer, bounded by the `(lo..=hi)` its help
//! states), described by its help. `query`'s global budget flags belong to every query tool. The
//! arguments the server sets itself ([`SERVER_SET`]) are left out, each with its reason.
//!
//! A call becomes the argv of that command (`ckb query --format json <subcommand> …`, the server's
//! `--repo`/`--store`/`--snapshot` in front), parsed by the same clap declarations and answered by
//! the same code as the CLI (`cmd::query::execute`, `cmd::diff::answer`): the structured result
//! is the answer `ckb query --format json` prints, and its text those very bytes. Since the
//! property names are the flags' names, a drilldown `ckb query refs ID --max-items 40` is the call
//! `refs {"id": ID, "max-items": 40}`.

use clap::{Arg, ArgAction, Command, CommandFactory};
use output_schema::ErrorCode;
use queries::QueryError;
use serde_json::{json, Map, Value};

use crate::cmd::query::{Locator, Output};

/// Arguments of the CLI that tools do not take, and why: the server sets them.
pub const SERVER_SET: &[(&str, &str)] = &[
    (
        "snapshot",
        "the server serves what `ckb mcp --repo/--store/--snapshot` names",
    ),
    (
        "store",
        "the server serves what `ckb mcp --repo/--store/--snapshot` names",
    ),
    (
        "repo",
        "the server serves what `ckb mcp --repo/--store/--snapshot` names",
    ),
    (
        "format",
        "a tool answers the JSON envelope (structured, and the same JSON as text)",
    ),
    ("file", "a tool reads no file: pass the statement as `sql`"),
    (
        "max_chars",
        "it bounds `ckb diff`'s markdown; the tool answers JSON, never truncated",
    ),
];

/// How a tool's argument goes on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Shape {
    /// `--flag` when true.
    Switch,
    /// `--flag value`, repeated for each value.
    Values,
    /// `--flag value`.
    Value,
}

/// One argument of a tool.
#[derive(Clone, Debug)]
pub struct Param {
    /// The property name.
    pub name: String,
    /// `--long`, or `None` for a positional.
    long: Option<String>,
    shape: Shape,
    /// Whether a call must give it.
    pub required: bool,
    /// Its JSON Schema.
    pub schema: Value,
    /// A `query` option (before the subcommand) rather than the subcommand's.
    global: bool,
}

/// One tool.
#[derive(Clone, Debug)]
pub struct Tool {
    /// `symbol`, `prepare-change`, `diff`.
    pub name: String,
    /// The command it runs: `["query", "symbol"]` or `["diff"]`.
    pub command: Vec<String>,
    /// What it is for (the command's help).
    pub description: String,
    /// Its arguments, positionals in order.
    pub params: Vec<Param>,
}

/// Every tool, in the CLI's order.
#[derive(Clone, Debug)]
pub struct Catalog {
    /// The tools.
    pub tools: Vec<Tool>,
}

fn help_of(arg: &Arg) -> String {
    arg.get_long_help()
        .or(arg.get_help())
        .map(|h| h.to_string())
        .unwrap_or_default()
}

fn about_of(cmd: &Command) -> String {
    cmd.get_long_about()
        .or(cmd.get_about())
        .map(|h| h.to_string())
        .unwrap_or_default()
}

/// The `(lo..=hi)` a numeric argument's help states.
fn range_in(help: &str) -> Option<(u64, u64)> {
    let start = help.find('(')?;
    let inner = &help[start + 1..start + help[start..].find(')')?];
    let (lo, hi) = inner.split_once("..=")?;
    let number = |s: &str| s.trim().replace('_', "").parse::<u64>().ok();
    Some((number(lo)?, number(hi)?))
}

/// Whether an argument takes a whole number (its value name says so).
fn is_number(arg: &Arg) -> bool {
    arg.get_value_names()
        .is_some_and(|v| v.iter().any(|n| matches!(n.as_str(), "N" | "SECONDS")))
}

fn param(arg: &Arg, global: bool, required_by_group: bool) -> Param {
    let help = help_of(arg);
    let shape = match arg.get_action() {
        ArgAction::SetTrue => Shape::Switch,
        ArgAction::Append => Shape::Values,
        _ => Shape::Value,
    };
    let mut schema = match shape {
        Shape::Switch => json!({"type": "boolean"}),
        Shape::Values => json!({"type": "array", "items": {"type": "string"}}),
        Shape::Value => {
            let values: Vec<String> = arg
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| v.get_name().to_string())
                .collect();
            if !values.is_empty() {
                json!({"type": "string", "enum": values})
            } else if is_number(arg) {
                match range_in(&help) {
                    Some((lo, hi)) => json!({"type": "integer", "minimum": lo, "maximum": hi}),
                    None => json!({"type": "integer", "minimum": 0}),
                }
            } else {
                json!({"type": "string"})
            }
        }
    };
    let required = (arg.is_required_set() || required_by_group) && !global;
    if shape == Shape::Values && arg.is_positional() && required {
        schema["minItems"] = json!(1);
    }
    schema["description"] = json!(help);
    Param {
        name: arg
            .get_long()
            .map(str::to_string)
            .unwrap_or_else(|| arg.get_id().as_str().to_string()),
        long: arg.get_long().map(str::to_string),
        shape,
        required,
        schema,
        global,
    }
}

fn served(arg: &Arg) -> bool {
    let id = arg.get_id().as_str();
    !matches!(id, "help" | "version") && !SERVER_SET.iter().any(|(s, _)| *s == id)
}

/// The tool for one subcommand; `globals` are the parent's options every tool of it takes.
fn tool(path: &[&str], cmd: &Command, globals: &[Param]) -> Tool {
    // An argument in a required group is required when the group's other members are not served
    // (`sql`'s statement: `sql` or `--file`, and tools take no file).
    let group_required: Vec<String> = cmd
        .get_groups()
        .filter(|g| g.is_required_set())
        .flat_map(|g| {
            let members: Vec<&Arg> = g
                .get_args()
                .filter_map(|id| cmd.get_arguments().find(|a| a.get_id() == id))
                .filter(|a| served(a))
                .collect();
            match members.as_slice() {
                [only] => vec![only.get_id().as_str().to_string()],
                _ => Vec::new(),
            }
        })
        .collect();
    let mut params: Vec<Param> = cmd
        .get_arguments()
        .filter(|a| served(a) && !a.is_global_set())
        .map(|a| {
            let by_group = group_required.iter().any(|g| g == a.get_id().as_str());
            param(a, false, by_group)
        })
        .collect();
    params.extend(globals.iter().cloned());
    Tool {
        name: cmd.get_name().to_string(),
        command: path.iter().map(|s| s.to_string()).collect(),
        description: about_of(cmd),
        params,
    }
}

impl Catalog {
    /// The tools of the CLI this binary is.
    pub fn from_cli() -> Catalog {
        Catalog::from_command(&crate::Cli::command())
    }

    /// The tools of a command model: every subcommand of `query`, then `diff`.
    pub fn from_command(cli: &Command) -> Catalog {
        let mut tools = Vec::new();
        if let Some(query) = cli.find_subcommand("query") {
            let globals: Vec<Param> = query
                .get_arguments()
                .filter(|a| a.is_global_set() && served(a))
                .map(|a| param(a, true, false))
                .collect();
            for sub in query.get_subcommands() {
                tools.push(tool(&["query", sub.get_name()], sub, &globals));
            }
        }
        if let Some(diff) = cli.find_subcommand("diff") {
            tools.push(tool(&["diff"], diff, &[]));
        }
        Catalog { tools }
    }

    /// The tool of that name.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// `tools/list`'s tools.
    pub fn list_json(&self) -> Vec<Value> {
        self.tools.iter().map(Tool::to_json).collect()
    }
}

impl Tool {
    fn to_json(&self) -> Value {
        let properties: Map<String, Value> = self
            .params
            .iter()
            .map(|p| (p.name.clone(), p.schema.clone()))
            .collect();
        let required: Vec<&str> = self
            .params
            .iter()
            .filter(|p| p.required)
            .map(|p| p.name.as_str())
            .collect();
        let mut schema = json!({
            "type": "object",
            "properties": properties,
            "additionalProperties": false,
        });
        if !required.is_empty() {
            schema["required"] = json!(required);
        }
        json!({
            "name": self.name,
            "title": format!("ckb {}", self.command.join(" ")),
            "description": self.description,
            "inputSchema": schema,
            "annotations": {
                "readOnlyHint": true,
                "destructiveHint": false,
                "idempotentHint": true,
                "openWorldHint": false,
            },
        })
    }

    /// The command line of a call, or `INVALID_PARAMETER` naming the argument that is wrong.
    pub fn argv(
        &self,
        arguments: &Map<String, Value>,
        server: &[String],
    ) -> Result<Vec<String>, QueryError> {
        for key in arguments.keys() {
            if !self.params.iter().any(|p| &p.name == key) {
                let known: Vec<&str> = self.params.iter().map(|p| p.name.as_str()).collect();
                return Err(bad(
                    format!("{} has no argument `{key}`", self.name),
                    format!("its arguments are: {}", known.join(", ")),
                ));
            }
        }
        let (mut before, mut after, mut positionals) = (Vec::new(), Vec::new(), Vec::new());
        for p in &self.params {
            let value = arguments.get(&p.name).filter(|v| !v.is_null());
            let Some(value) = value else {
                if p.required {
                    return Err(bad(
                        format!("{} needs the argument `{}`", self.name, p.name),
                        format!(
                            "pass `{}`: {}",
                            p.name,
                            p.schema["description"].as_str().unwrap_or_default()
                        ),
                    ));
                }
                continue;
            };
            let words = words(p, value)?;
            let out = if p.global { &mut before } else { &mut after };
            match (&p.long, &p.shape) {
                (Some(long), Shape::Switch) => {
                    if words.first().is_some_and(|w| w == "true") {
                        out.push(format!("--{long}"));
                    }
                }
                (Some(long), _) => {
                    for w in words {
                        out.push(format!("--{long}"));
                        out.push(w);
                    }
                }
                (None, _) => positionals.extend(words),
            }
        }
        let mut argv = vec!["ckb".to_string(), self.command[0].clone()];
        if self.command[0] == "query" {
            argv.extend(server.iter().cloned());
        }
        argv.extend(["--format".to_string(), "json".to_string()]);
        argv.extend(before);
        argv.extend(self.command[1..].iter().cloned());
        argv.extend(after);
        if !positionals.is_empty() {
            // Values that start with `-` stay values.
            argv.push("--".into());
            argv.extend(positionals);
        }
        Ok(argv)
    }
}

fn bad(message: String, remediation: String) -> QueryError {
    QueryError::new(ErrorCode::InvalidParameter, message, remediation)
}

/// An argument's value as command-line words, checked against its shape.
fn words(p: &Param, value: &Value) -> Result<Vec<String>, QueryError> {
    let wrong = |what: &str| {
        bad(
            format!("argument `{}` must be {what}, not {value}", p.name),
            format!(
                "pass `{}` as {what}: {}",
                p.name,
                p.schema["description"].as_str().unwrap_or_default()
            ),
        )
    };
    let scalar = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    match p.shape {
        Shape::Switch => match value {
            Value::Bool(b) => Ok(vec![b.to_string()]),
            _ => Err(wrong("true or false")),
        },
        Shape::Values => match value {
            Value::Array(items) => items
                .iter()
                .map(|v| scalar(v).ok_or_else(|| wrong("a list of strings")))
                .collect(),
            v => scalar(v)
                .map(|s| vec![s])
                .ok_or_else(|| wrong("a list of strings")),
        },
        Shape::Value => {
            let integer = p.schema["type"] == "integer";
            match value {
                // A whole number written as a string is what the CLI parses anyway.
                Value::Number(_) | Value::String(_) => Ok(vec![scalar(value).unwrap_or_default()]),
                _ if integer => Err(wrong("a whole number")),
                _ => Err(wrong("a string")),
            }
        }
    }
}

/// Runs a tool call: the argv parsed by the CLI's declarations, answered by the CLI's code.
pub fn call(
    tool: &Tool,
    arguments: &Map<String, Value>,
    server: &[String],
    locator: &Locator<'_>,
) -> Result<Output, QueryError> {
    let argv = tool.argv(arguments, server)?;
    let cli = <crate::Cli as clap::Parser>::try_parse_from(&argv).map_err(|e| {
        let text = e.to_string();
        let first = text.lines().next().unwrap_or_default();
        bad(
            first.trim_start_matches("error: ").to_string(),
            format!(
                "check the arguments of {} against its input schema",
                tool.name
            ),
        )
    })?;
    match cli.command {
        crate::Command::Query(args) => crate::cmd::query::execute(&args, locator),
        crate::Command::Diff(args) => {
            crate::cmd::diff::answer(&args).map(|a| Output::Answer(Box::new(a)))
        }
        _ => Err(QueryError::new(
            ErrorCode::InternalError,
            format!("tool {} maps to no query", tool.name),
            "report this as a bug in ckb",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_subcommand_has_a_tool_and_every_tool_a_command() {
        let cli = crate::Cli::command();
        let query = cli
            .find_subcommand("query")
            .expect("ckb has a query command");
        let mut subcommands: Vec<String> = query
            .get_subcommands()
            .map(|s| s.get_name().to_string())
            .collect();
        subcommands.push("diff".into());
        let catalog = Catalog::from_cli();
        let tools: Vec<String> = catalog.tools.iter().map(|t| t.name.clone()).collect();
        assert_eq!(tools, subcommands);
        for t in &catalog.tools {
            let mut path = vec!["ckb"];
            path.extend(t.command.iter().map(String::as_str));
            assert!(!t.description.is_empty(), "{} has no description", t.name);
            let sub = t.command[1..]
                .iter()
                .fold(cli.find_subcommand(&t.command[0]), |c, n| {
                    c.and_then(|c| c.find_subcommand(n))
                });
            assert!(
                sub.is_some(),
                "{} runs {:?}, which the CLI lacks",
                t.name,
                path
            );
        }
        for expected in [
            "status",
            "doctor",
            "symbol",
            "search",
            "refs",
            "arch",
            "impact",
            "explore",
            "understand",
            "prepare-change",
            "batch-get",
            "batch-search",
            "hotspots",
            "coupling",
            "ownership",
            "dead-code",
            "affected-tests",
            "callers",
            "callees",
            "hierarchy",
            "sql",
            "canned",
            "diff",
        ] {
            assert!(catalog.get(expected).is_some(), "no tool {expected}");
        }
    }

    #[test]
    fn schemas_follow_the_declarations() {
        let catalog = Catalog::from_cli();
        let search = catalog.get("search").unwrap().to_json();
        let props = &search["inputSchema"]["properties"];
        assert_eq!(search["inputSchema"]["required"], json!(["query"]));
        assert_eq!(props["kind"]["type"], "array");
        assert_eq!(props["limit"]["type"], "integer");
        assert_eq!(
            (
                props["limit"]["minimum"].clone(),
                props["limit"]["maximum"].clone()
            ),
            (json!(1), json!(1000))
        );
        assert_eq!(props["max-tokens"]["minimum"], json!(500));
        assert!(props.get("format").is_none() && props.get("snapshot").is_none());
        let doctor = catalog.get("doctor").unwrap().to_json();
        assert_eq!(
            doctor["inputSchema"]["properties"]["fix"]["type"],
            "boolean"
        );
        let sql = catalog.get("sql").unwrap().to_json();
        assert_eq!(sql["inputSchema"]["required"], json!(["sql"]));
        assert!(sql["inputSchema"]["properties"].get("file").is_none());
        let batch = catalog.get("batch-get").unwrap().to_json();
        assert_eq!(
            batch["inputSchema"]["properties"]["ids"]["minItems"],
            json!(1)
        );
        let diff = catalog.get("diff").unwrap().to_json();
        assert_eq!(diff["inputSchema"]["required"], json!(["base", "head"]));
        assert!(diff["inputSchema"]["properties"].get("max-chars").is_none());
        // Every whole-number argument states its range, so its schema is bounded.
        for t in &catalog.tools {
            for p in &t.params {
                if p.schema["type"] == "integer" {
                    assert!(
                        p.schema.get("maximum").is_some(),
                        "{}.{} states no range",
                        t.name,
                        p.name
                    );
                }
            }
        }
    }

    #[test]
    fn calls_become_the_cli_command_line() {
        let catalog = Catalog::from_cli();
        let server = vec!["--store".to_string(), "/s".to_string()];
        let argv = |tool: &str, args: Value| {
            catalog
                .get(tool)
                .unwrap()
                .argv(args.as_object().unwrap(), &server)
        };
        for (tool, args, line) in [
            (
                "search",
                json!({"query": "-x", "kind": ["function", "method"], "limit": 5, "max-items": "7"}),
                "ckb query --store /s --format json --max-items 7 search --kind function --kind method --limit 5 -- -x",
            ),
            ("doctor", json!({"fix": true}), "ckb query --store /s --format json doctor --fix"),
            ("diff", json!({"base": "a", "head": "b"}), "ckb diff --format json -- a b"),
        ] {
            assert_eq!(argv(tool, args).unwrap().join(" "), line);
        }
        for (tool, args, says) in [
            ("symbol", json!({}), "needs the argument `id`"),
            (
                "symbol",
                json!({"id": "x", "nope": 1}),
                "has no argument `nope`",
            ),
            ("doctor", json!({"fix": "yes"}), "must be true or false"),
            (
                "search",
                json!({"query": "x", "limit": [1]}),
                "must be a whole number",
            ),
        ] {
            let e = argv(tool, args).unwrap_err();
            assert_eq!(e.code, ErrorCode::InvalidParameter);
            assert!(e.message.contains(says), "{}", e.message);
        }
    }

    #[test]
    fn ranges_are_read_from_help() {
        assert_eq!(
            range_in("Results to return (1..=1000) [default: x]."),
            Some((1, 1000))
        );
        assert_eq!(range_in("Depth (0..=32)."), Some((0, 32)));
        assert_eq!(range_in("no range (here)"), None);
    }
}
