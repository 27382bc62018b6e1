//! Tool calls from front ends other than MCP (the web board): the same error memory (preflight
//! warnings, failures recorded) and dispatch as `tools/call`, and a successful write is announced
//! on [`App::writes`] so MCP sessions subscribed to the board or the issue hear of it.

use serde_json::{Map, Value};

use super::intelligence;
use crate::app::{App, Write};
use crate::generated::{self, TOOLS};
use crate::runtime::{CallContext, Reply, ToolError, Warning};

/// What a call gave: the reply or the tool's error, and the warnings around it (KNOWN_FAILURE,
/// DEPRECATED_TOOL, ERROR_MEMORY_UNAVAILABLE; the reply carries its own).
pub struct Called {
    pub result: Result<Reply<Value>, ToolError>,
    pub warnings: Vec<Warning>,
}

/// Calls `tool` with `args`; `None` when no such tool exists.
pub async fn call(app: &App, tool: &str, args: Map<String, Value>, request_id: String) -> Option<Called> {
    let spec = TOOLS.iter().find(|t| t.name == tool)?;
    let error_context = intelligence::context_of(tool, &args);
    let mut warnings = intelligence::preflight(&app.memory, tool, &error_context).await;
    warnings.extend(intelligence::deprecation(tool));
    let announce = (!spec.read_only).then(|| args.clone());
    let ctx = CallContext { tool: tool.to_string(), request_id };
    let result = generated::dispatch(app.handlers.as_ref(), tool, args, ctx).await?;
    match &result {
        Err(e) => warnings.extend(intelligence::record(&app.memory, tool, e, &error_context).await),
        Ok(reply) => {
            if let Some(args) = announce {
                // No receiver (no MCP session listening) is not an error.
                let _ = app.writes.send(Write { tool: tool.to_string(), args, output: reply.data.clone() });
            }
        }
    }
    Some(Called { result, warnings })
}
