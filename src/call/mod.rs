//! One tool call, for every front end: the MCP server (stdio and HTTP), the web board and the
//! CLI run a call through [`run`], the runtime's call path with docket's observer ([`Core`]),
//! which warns before a call that failed the same way before (error memory, [`memory`]),
//! dispatches it to its handler through the generated dispatch, records a failure, and announces
//! a successful write on the instance's write channel, where every MCP session subscribed to the
//! board or the issue hears of it, whoever made the write.
//! Front ends only adapt their input (MCP's consolidated profile and wrangler quirks, the web
//! board's forms, the CLI's flags) and output (the MCP envelope, HTML, tables).

pub(crate) mod memory;

use std::sync::Arc;

use serde_json::{Map, Value};
use tokio::sync::broadcast::Sender;

use crate::codes;
use crate::error_memory::ErrorMemory;
use crate::generated::{self, ToolHandlers};
use crate::runtime::call::CallObserver;
use crate::runtime::{CallContext, ToolError, ToolResult, ToolSpec, Warning};
use crate::store::Workspace;
use crate::store::served::Served;

pub use crate::runtime::call::Called;

/// A successful write, as announced to every MCP session: the tool, its arguments and its output
/// (which issues it touched).
#[derive(Debug, Clone)]
pub struct Write {
    pub tool: &'static ToolSpec,
    pub args: Map<String, Value>,
    pub output: Value,
}

/// Where a call runs: the handlers, the error memory, the channel writes are announced on, and
/// the store served (whose workspace a pending one's first write creates). It is the runtime's
/// observer of the call ([`CallObserver`]): error memory's warning before it, the failure
/// recorded or the write announced after it, and docket's index state in an MCP answer's `_meta`.
pub struct Core<H> {
    pub handlers: Arc<H>,
    pub memory: Arc<ErrorMemory>,
    pub writes: Sender<Write>,
    pub store: Arc<Served>,
    /// `read_only` in the config: every call that writes is refused before it is dispatched.
    pub read_only: bool,
}

/// Runs `spec` with `args`, through the runtime's call path with `core` observing.
pub async fn run<H: ToolHandlers>(
    core: &Core<H>,
    spec: &'static ToolSpec,
    args: Map<String, Value>,
    request_id: String,
) -> Called {
    run_dispatching(core, spec, args, request_id, |args, ctx| {
        generated::dispatch(&*core.handlers, spec.name, args, ctx)
    })
    .await
}

/// [`run`] with `dispatch` in place of the generated dispatch: an operation of the tool layer
/// that is no tool of its own, observed and answered as a call of `spec` (`None`: not implemented).
pub async fn run_dispatching<H: ToolHandlers, F: Future<Output = Option<ToolResult<Value>>>>(
    core: &Core<H>,
    spec: &'static ToolSpec,
    args: Map<String, Value>,
    request_id: String,
    dispatch: impl FnOnce(Map<String, Value>, CallContext) -> F,
) -> Called {
    let ctx = CallContext { tool: spec.name.to_string(), request_id };
    let workspace = core.store.workspace();
    crate::runtime::call::run(core, spec, args, |args| async move {
        let strings: Vec<(String, String)> =
            args.iter().filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string()))).collect();
        match dispatch(args, ctx).await {
            Some(result) => result.map_err(|e| prefix_hint_only_with_prefixes(name_the_field(e, &strings), workspace)),
            None => Err(generated::errors::not_implemented(spec.name)),
        }
    })
    .await
}

/// Runs tool `name` through the generated dispatch, its errors said for `ws`: the field that held
/// an invalid id named, the prefix hint only where ids carry prefixes.
pub async fn dispatch<H: ToolHandlers>(
    handlers: &H,
    name: &str,
    args: Map<String, Value>,
    ctx: CallContext,
    ws: &Workspace,
) -> ToolResult<Value> {
    let strings: Vec<(String, String)> =
        args.iter().filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string()))).collect();
    match generated::dispatch(handlers, name, args, ctx).await {
        Some(result) => result.map_err(|e| prefix_hint_only_with_prefixes(name_the_field(e, &strings), ws)),
        None => Err(generated::errors::not_implemented(name)),
    }
}

/// The NOT_FOUND hint to check an id's prefix (`ISS-000099, not 000099`), only in a workspace
/// whose issue files carry one: wrangler's bare `000099-...` ids have none to check.
fn prefix_hint_only_with_prefixes(mut e: ToolError, ws: &Workspace) -> ToolError {
    const HINT: &str = ", or check that the ID includes the prefix (e.g. ISS-000099, not 000099)";
    if e.template != generated::errors::Template::NotFound.name() || !e.message.contains(HINT) {
        return e;
    }
    let prefixed = |name: &str| {
        let letters = name.bytes().take_while(u8::is_ascii_alphabetic).count();
        letters > 0
            && name.as_bytes().get(letters) == Some(&b'-')
            && name.as_bytes().get(letters + 1).is_some_and(u8::is_ascii_digit)
    };
    let any_prefixed = ws.issue_dirs().iter().any(|(_, dir)| {
        std::fs::read_dir(dir)
            .map(|rd| rd.flatten().any(|f| f.file_name().to_str().is_some_and(prefixed)))
            .unwrap_or(false)
    });
    if !any_prefixed {
        e.message = e.message.replacen(HINT, "", 1);
    }
    e
}

/// An invalid id refused below the handlers (the store checks every id before it comes near a
/// path) says which argument held it: `Invalid issue ID in 'issueId': 'AAAA…': …`.
fn name_the_field(mut e: ToolError, strings: &[(String, String)]) -> ToolError {
    if e.template != generated::errors::Template::InvalidId.name() {
        return e;
    }
    let Some(rest) = e.message.strip_prefix("Invalid issue ID '") else { return e };
    // The store quotes at most the first 100 characters of the id.
    let mut holders = strings.iter().filter(|(_, v)| {
        let clipped: String = v.trim().chars().take(100).collect();
        !clipped.is_empty() && rest.starts_with(&clipped)
    });
    if let (Some((key, _)), None) = (holders.next(), holders.next()) {
        e.message = format!("Invalid issue ID in '{key}': '{rest}");
    }
    e
}

/// What [`Core`] keeps of a call between before and after: the arguments error memory matches
/// on, and the arguments of a write to announce (kept only when someone may listen).
pub struct Pending {
    error_context: Map<String, Value>,
    announce: Option<Map<String, Value>>,
}

impl<H: ToolHandlers> CallObserver for Core<H> {
    type Pending = Pending;

    async fn before(&self, spec: &'static ToolSpec, args: &Map<String, Value>) -> (Pending, Vec<Warning>) {
        let error_context = memory::context_of(spec, args);
        let mut warnings = memory::preflight(&self.memory, spec.name, &error_context).await;
        warnings.extend(memory::deprecation(spec));
        let announce = (!spec.read_only && self.writes.receiver_count() > 0).then(|| args.clone());
        (Pending { error_context, announce }, warnings)
    }

    /// A read-only server refuses every write before its handler runs.
    fn refuse_write(&self, spec: &'static ToolSpec) -> Option<ToolError> {
        self.read_only.then(|| generated::errors::read_only(spec.name))
    }

    async fn after(&self, spec: &'static ToolSpec, pending: Pending, result: &ToolResult<Value>) -> Vec<Warning> {
        let mut warnings = Vec::new();
        match result {
            Err(e) => {
                tracing::info!(tool = spec.name, code = e.code.as_str(), "tool call failed");
                warnings.extend(memory::record(&self.memory, spec.name, e, &pending.error_context).await);
            }
            Ok(reply) => {
                if let Some(args) = pending.announce {
                    // No receiver left (no MCP session listening) is not an error.
                    let _ = self.writes.send(Write { tool: spec, args, output: reply.data.clone() });
                }
                // A read before the first write found nothing because there is nothing yet.
                if !self.store.workspace().exists() {
                    warnings.push(no_workspace_yet(self.store.workspace()));
                }
            }
        }
        warnings
    }

    fn meta(&self) -> Map<String, Value> {
        index_meta(&self.store.index_info())
    }
}

/// docket's own `_meta` entries: the index's size and last refresh, when the index is on.
fn index_meta(index: &crate::store::IndexInfo) -> Map<String, Value> {
    let mut meta = Map::new();
    if index.enabled {
        meta.insert("index_size".into(), serde_json::json!(index.entries));
        let updated = index
            .last_refresh
            .map(|t| chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
        meta.insert("index_last_updated".into(), serde_json::json!(updated));
    }
    meta
}

/// Before a write (a tool that is not read-only): when the process serves a pending workspace and
/// one was made in its folder since it started (`docket init .`), it serves that one from now on,
/// its error memory with it ([`Served::resolve_again`]); the warning that says so, to the one call
/// that switched.
pub fn resolve_again(spec: &ToolSpec, store: &Served, memory: &ErrorMemory) -> Option<Warning> {
    if spec.read_only {
        return None;
    }
    let switched = store.resolve_again()?;
    memory.move_to(&switched.to.dir);
    Some(Warning::visible(codes::WORKSPACE_APPEARED, switched.sentence()))
}

/// The one-line hint of a call made before the workspace exists.
pub fn no_workspace_yet(ws: &Workspace) -> Warning {
    Warning::visible(
        codes::NO_WORKSPACE,
        format!(
            "No workspace yet in {}: nothing is stored until the first write creates {} (issues_create, session_start, or init_workspace with fix: true).",
            ws.root.display(),
            ws.dir.display()
        ),
    )
}
