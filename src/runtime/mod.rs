//! What docket's tool layer builds on: the generic runtime (`toolkit-runtime`: replies, errors,
//! argument rules, the tool table, the consolidated profile) and docket's own parts: its warning
//! codes, `docket://` URIs, token counts and large bodies.

pub mod bodies;
pub mod tokens;
pub mod uri;

pub use toolkit_runtime::{
    CallContext, ErrorCode, Link, Reply, ResultCounts, Severity, ToolError, ToolResult, ToolSpec, Warning, WarningCode,
    aliases, args, call, consolidated, envelope, server,
};
