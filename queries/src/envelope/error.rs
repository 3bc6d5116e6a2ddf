//! Query errors: a stable code, a message, what to do, and next commands.

use output_schema::{ErrorCode, FormatError};
use serde::Serialize;
use serde_json::Value;

use crate::envelope::answer::Drilldown;

/// An error answer. Printed as JSON (`{"error": {...}}`) or text, with a non-zero exit.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[serde(rename_all = "camelCase")]
#[error("{code}: {message}")]
pub struct QueryError {
    /// Stable code.
    #[serde(serialize_with = "ser_code")]
    pub code: ErrorCode,
    /// What happened.
    pub message: String,
    /// What to do about it.
    pub remediation: String,
    /// Commands that may help.
    pub drilldowns: Vec<Drilldown>,
    /// Structured facts about the failure (the top matches of an ambiguous name, when and where
    /// a symbol was deleted, the alias chain of a cycle, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

fn ser_code<S: serde::Serializer>(code: &ErrorCode, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(code.as_str())
}

impl QueryError {
    /// An error with a code, message and remediation.
    pub fn new(
        code: ErrorCode,
        message: impl Into<String>,
        remediation: impl Into<String>,
    ) -> Self {
        QueryError {
            code,
            message: message.into(),
            remediation: remediation.into(),
            drilldowns: Vec::new(),
            details: None,
        }
    }

    /// The value of `flag` (`default` when not given), which must be one of `allowed`; otherwise
    /// `INVALID_PARAMETER`, listing them.
    pub fn one_of<'a>(
        flag: &str,
        given: Option<&'a str>,
        default: &'a str,
        allowed: &[&str],
    ) -> Result<&'a str, QueryError> {
        let value = given.unwrap_or(default);
        if allowed.contains(&value) {
            return Ok(value);
        }
        let (last, rest) = allowed.split_last().expect("a flag allows some values");
        Err(QueryError::new(
            ErrorCode::InvalidParameter,
            format!("{flag} {value:?} is not one of {}", allowed.join(", ")),
            format!("pass {flag} {} or {last}", rest.join(", ")),
        ))
    }

    /// `input` without surrounding white space, or `INVALID_PARAMETER` with this message and
    /// remediation when nothing is left.
    pub fn non_empty<'a>(
        input: &'a str,
        message: &str,
        remediation: &str,
    ) -> Result<&'a str, QueryError> {
        let input = input.trim();
        if input.is_empty() {
            return Err(QueryError::new(
                ErrorCode::InvalidParameter,
                message,
                remediation,
            ));
        }
        Ok(input)
    }

    /// Attaches structured details.
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// Adds a suggested next command.
    pub fn with_drilldown(mut self, command: impl Into<String>, reason: impl Into<String>) -> Self {
        self.drilldowns.push(Drilldown {
            command: command.into(),
            reason: reason.into(),
        });
        self
    }

    /// A damaged or unreadable snapshot file.
    pub fn from_format(what: &str, e: FormatError) -> Self {
        let code = e.code();
        let remediation = match code {
            ErrorCode::SchemaUnsupported => "upgrade ckb, or rebuild the snapshot with this version: ckb snapshot --force",
            _ => "run `ckb verify <snapshot>` to see which file is damaged, then rebuild it with `ckb snapshot --force`",
        };
        QueryError::new(code, format!("{what}: {e}"), remediation)
    }
}
