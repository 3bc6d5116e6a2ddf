//! One module per subcommand.

pub mod diff;
pub mod index;
pub mod init;
pub mod mcp;
pub mod query;
pub mod report;
pub mod schema;
pub mod snapshot;
pub mod verify;

use output_schema::ErrorCode;
use queries::envelope::render::Format;
use queries::QueryError;

use crate::Failure;

/// Turns a pipeline error into the user-facing error shape.
pub fn pipeline_failure(e: pipeline::PipelineError, format: Format) -> Failure {
    Failure::new(
        QueryError::new(e.code(), e.to_string(), e.remediation()),
        format,
    )
}

/// An invalid command-line value.
pub fn invalid(message: impl Into<String>, remediation: &str, format: Format) -> Failure {
    Failure::new(
        QueryError::new(ErrorCode::InvalidParameter, message, remediation),
        format,
    )
}
