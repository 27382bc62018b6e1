//! One tool call, for every front end: the MCP server (stdio and HTTP), the web board and the
//! CLI run a call through [`run`], which warns before a call that failed the same way before
//! (error memory, [`memory`]), dispatches it to its handler through the generated dispatch,
//! records a failure, and announces a successful write on the instance's write channel, where
//! every MCP session subscribed to the board or the issue hears of it, whoever made the write.
//! Front ends only adapt their input (MCP's consolidated profile and wrangler quirks, the web
//! board's forms, the CLI's flags) and output (the MCP envelope, HTML, tables).

pub(crate) mod memory;

use serde_json::{Map, Value};
use tokio::sync::broadcast::Sender;

use crate::error_memory::ErrorMemory;
use crate::generated::{self, ToolHandlers};
use crate::runtime::{CallContext, Reply, ToolError, ToolSpec, Warning, WarningCode};
use crate::store::Workspace;

/// A successful write, as announced to every MCP session: the tool, its arguments and its output
/// (which issues it touched).
#[derive(Debug, Clone)]
pub struct Write {
    pub tool: &'static ToolSpec,
    pub args: Map<String, Value>,
    pub output: Value,
}

/// What a call gave: the reply or the tool's error, and the warnings around it (KNOWN_FAILURE,
/// DEPRECATED_TOOL, ERROR_MEMORY_UNAVAILABLE; the reply carries its own).
pub struct Called {
    pub result: Result<Reply<Value>, ToolError>,
    pub warnings: Vec<Warning>,
}

/// Where a call runs: the handlers, the error memory, the channel writes are announced on, and
/// the workspace (which a pending one's first write creates).
pub struct Core<'a, H> {
    pub handlers: &'a H,
    pub memory: &'a std::sync::Arc<ErrorMemory>,
    pub writes: Option<&'a Sender<Write>>,
    pub workspace: &'a Workspace,
}

/// Runs `spec` with `args`.
pub async fn run<H: ToolHandlers>(
    core: &Core<'_, H>,
    spec: &'static ToolSpec,
    args: Map<String, Value>,
    request_id: String,
) -> Called {
    let error_context = memory::context_of(spec, &args);
    let mut warnings = memory::preflight(core.memory, spec.name, &error_context).await;
    warnings.extend(memory::deprecation(spec));
    // A write is announced with its arguments (which issue), kept only when someone may listen.
    let announce = (!spec.read_only && core.writes.is_some_and(|w| w.receiver_count() > 0)).then(|| args.clone());
    let ctx = CallContext { tool: spec.name.to_string(), request_id };
    let result = match generated::dispatch(core.handlers, spec.name, args, ctx).await {
        Some(result) => result,
        None => Err(generated::errors::not_implemented(spec.name)),
    };
    match &result {
        Err(e) => {
            tracing::info!(tool = spec.name, code = e.code.as_str(), "tool call failed");
            warnings.extend(memory::record(core.memory, spec.name, e, &error_context).await);
        }
        Ok(reply) => {
            if let (Some(args), Some(writes)) = (announce, core.writes) {
                // No receiver left (no MCP session listening) is not an error.
                let _ = writes.send(Write { tool: spec, args, output: reply.data.clone() });
            }
            // A read before the first write found nothing because there is nothing yet.
            if !core.workspace.exists() {
                warnings.push(no_workspace_yet(core.workspace));
            }
        }
    }
    Called { result, warnings }
}

/// The one-line hint of a call made before the workspace exists.
pub fn no_workspace_yet(ws: &Workspace) -> Warning {
    Warning::visible(
        WarningCode::NoWorkspace,
        format!(
            "No workspace yet in {}: nothing is stored until the first write creates {} (issues_create, session_start, or init_workspace with fix: true).",
            ws.root.display(),
            ws.dir.display()
        ),
    )
}
