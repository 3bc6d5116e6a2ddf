//! JSON-RPC 2.0 as MCP's stdio transport carries it: one message per line of UTF-8 JSON, no
//! embedded newlines, requests answered in order.
//!
//! Reading is bounded: a line longer than [`MAX_MESSAGE_BYTES`] is skipped to its end and answered
//! with a parse error, so no input can make the server hold more than that at once. Anything that
//! is not a well-formed request or notification gets the JSON-RPC error the specification names
//! (parse error, invalid request), with the request's `id` when one could be read; responses the
//! client sends (the server asks it nothing) are ignored.

use std::io::{BufRead, ErrorKind};

use serde_json::{json, Map, Value};

/// Invalid JSON.
pub const PARSE_ERROR: i64 = -32700;
/// Not a JSON-RPC request.
pub const INVALID_REQUEST: i64 = -32600;
/// A method the server does not have.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Parameters of the wrong shape (an unknown tool, a missing envelope key).
pub const INVALID_PARAMS: i64 = -32602;
/// A bug in the server.
pub const INTERNAL_ERROR: i64 = -32603;
/// MCP: a resource URI the server does not serve, or cannot serve now.
pub const RESOURCE_NOT_FOUND: i64 = -32002;
/// MCP 2026-07-28: the request's protocol version is not one the server speaks.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// The longest message read; longer lines are refused (16 MiB is far above any real request).
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// What one read from the input gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// One message's bytes, without the line end.
    Message(Vec<u8>),
    /// A line over [`MAX_MESSAGE_BYTES`], skipped to its end.
    TooLong,
    /// The input is closed.
    End,
}

/// Reads the next non-empty line, keeping at most `max` bytes of it.
pub fn read_line(input: &mut impl BufRead, max: usize) -> std::io::Result<Line> {
    loop {
        let mut line: Vec<u8> = Vec::new();
        let mut too_long = false;
        let mut any = false;
        loop {
            let chunk = match input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            any = true;
            let (part, done) = match memchr(chunk) {
                Some(i) => (&chunk[..i], Some(i + 1)),
                None => (chunk, None),
            };
            if !too_long {
                if line.len() + part.len() > max {
                    too_long = true;
                    line = Vec::new();
                } else {
                    line.extend_from_slice(part);
                }
            }
            let used = done.unwrap_or(part.len());
            input.consume(used);
            if done.is_some() {
                break;
            }
        }
        if !any {
            return Ok(Line::End);
        }
        if too_long {
            return Ok(Line::TooLong);
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        return Ok(Line::Message(line));
    }
}

fn memchr(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

/// A JSON-RPC error.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    /// The code.
    pub code: i64,
    /// What went wrong.
    pub message: String,
    /// More about it.
    pub data: Option<Value>,
}

impl RpcError {
    /// An error without data.
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The error with data.
    pub fn with_data(mut self, data: Value) -> RpcError {
        self.data = Some(data);
        self
    }

    fn to_json(&self) -> Value {
        let mut e = json!({"code": self.code, "message": self.message});
        if let Some(d) = &self.data {
            e["data"] = d.clone();
        }
        e
    }
}

/// One message as the server sees it.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    /// A request: answered.
    Request {
        /// Its ID (a string or a number).
        id: Value,
        /// The method.
        method: String,
        /// Its params (an object, or null when absent).
        params: Value,
    },
    /// A notification: never answered.
    Notification,
    /// A response from the client: the server sends no requests, so there is nothing to match.
    Response,
    /// Not a valid message: answered with the error (`id` null when none could be read).
    Invalid {
        /// The request's ID when it had a usable one.
        id: Value,
        /// Why it is invalid.
        error: RpcError,
    },
}

/// Classifies one decoded message.
pub fn classify(message: Value) -> Incoming {
    let Value::Object(mut m) = message else {
        return invalid(Value::Null, "a message must be a JSON object");
    };
    let id = m.remove("id");
    let usable_id = match &id {
        Some(v @ (Value::String(_) | Value::Number(_))) => Some(v.clone()),
        _ => None,
    };
    if m.get("jsonrpc") != Some(&json!("2.0")) {
        return invalid(
            usable_id.unwrap_or(Value::Null),
            "the message must carry \"jsonrpc\": \"2.0\"",
        );
    }
    let method = match m.remove("method") {
        Some(Value::String(s)) => s,
        Some(_) => {
            return invalid(
                usable_id.unwrap_or(Value::Null),
                "\"method\" must be a string",
            )
        }
        None if m.contains_key("result") || m.contains_key("error") => return Incoming::Response,
        None => {
            return invalid(
                usable_id.unwrap_or(Value::Null),
                "the message has no \"method\"",
            )
        }
    };
    let params = match m.remove("params") {
        None | Some(Value::Null) => Value::Null,
        Some(p @ Value::Object(_)) => p,
        Some(_) => {
            return match usable_id {
                Some(id) => Incoming::Invalid {
                    id,
                    error: RpcError::new(INVALID_PARAMS, "\"params\" must be an object"),
                },
                None if id.is_none() => Incoming::Notification,
                None => invalid(Value::Null, "\"params\" must be an object"),
            };
        }
    };
    match (id, usable_id) {
        (None, _) => Incoming::Notification,
        (Some(_), Some(id)) => Incoming::Request { id, method, params },
        (Some(_), None) => invalid(Value::Null, "a request \"id\" must be a string or a number"),
    }
}

fn invalid(id: Value, message: &str) -> Incoming {
    Incoming::Invalid {
        id,
        error: RpcError::new(INVALID_REQUEST, message),
    }
}

/// A result response.
pub fn result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response.
pub fn error(id: Value, error: &RpcError) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": error.to_json()})
}

/// The params' object (empty for null params).
pub fn object(params: &Value) -> Map<String, Value> {
    params.as_object().cloned().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<Line> {
        let mut r = std::io::BufReader::with_capacity(4, input);
        let mut out = Vec::new();
        loop {
            let l = read_line(&mut r, max).unwrap();
            let end = l == Line::End;
            out.push(l);
            if end {
                return out;
            }
        }
    }

    #[test]
    fn lines_are_split_bounded_and_blank_ones_skipped() {
        let got = lines(b"{\"a\":1}\r\n\n  \nabcdefghij\nxy", 8);
        assert_eq!(
            got,
            vec![
                Line::Message(b"{\"a\":1}".to_vec()),
                Line::TooLong,
                Line::Message(b"xy".to_vec()),
                Line::End
            ]
        );
        assert_eq!(lines(b"", 8), vec![Line::End]);
    }

    #[test]
    fn messages_are_classified_like_the_specification_says() {
        let req = classify(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
        assert_eq!(
            req,
            Incoming::Request {
                id: json!(1),
                method: "tools/list".into(),
                params: Value::Null
            }
        );
        assert!(matches!(
            classify(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
            Incoming::Notification
        ));
        assert_eq!(
            classify(json!({"jsonrpc": "2.0", "id": 3, "result": {}})),
            Incoming::Response
        );
        for (bad, id) in [
            (json!([1, 2]), Value::Null),
            (json!({"id": 4, "method": "x"}), json!(4)),
            (json!({"jsonrpc": "2.0", "id": 5}), json!(5)),
            (
                json!({"jsonrpc": "2.0", "id": {"x": 1}, "method": "x"}),
                Value::Null,
            ),
            (json!({"jsonrpc": "2.0", "id": 6, "method": 7}), json!(6)),
        ] {
            match classify(bad.clone()) {
                Incoming::Invalid { id: got, error } => {
                    assert_eq!(got, id, "{bad}");
                    assert_eq!(error.code, INVALID_REQUEST, "{bad}");
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
        match classify(json!({"jsonrpc": "2.0", "id": 8, "method": "x", "params": [1]})) {
            Incoming::Invalid { id, error } => {
                assert_eq!((id, error.code), (json!(8), INVALID_PARAMS))
            }
            other => panic!("{other:?}"),
        }
    }
}
