//! Serving a generated tool set over MCP, on stdio or (feature `http`) Streamable HTTP: an rmcp
//! `ServerHandler` that publishes the tool table (or the manifest's consolidated profile), runs
//! every call through [`crate::call::run`] (with the server's [`CallObserver`], if it has one) and
//! wraps every result in the [`crate::envelope`]. A server with more to say (resources, prompts, profiles) writes its own
//! handler on the same parts, as docket does.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value};

use crate::call::{self, CallObserver};
use crate::consolidated::{self, Profile};
use crate::envelope::{self, CallFacts};
use crate::{CallContext, ErrorCode, ToolError, ToolResult, ToolSpec, Warning};

/// A set of tools the runtime can serve: implemented by the generated code's `Tools<H>` for
/// every `H: ToolHandlers`.
pub trait ToolSet: Send + Sync + 'static {
    /// `serverInfo.name`.
    const NAME: &'static str;
    /// `serverInfo.title`.
    const TITLE: &'static str;
    /// The instructions sent to clients at initialization.
    const INSTRUCTIONS: &'static str;

    /// Every tool, as tools/list publishes them.
    fn tools() -> &'static [ToolSpec];

    /// Runs tool `name`; `None` when no such tool is declared.
    fn call(
        &self,
        name: &str,
        args: Map<String, Value>,
        ctx: CallContext,
    ) -> impl Future<Output = Option<ToolResult<Value>>> + Send;

    /// The manifest's consolidated profile (one tool per group, with `action`); `None` for a
    /// manifest without groups.
    fn consolidated() -> Option<&'static Profile> {
        None
    }
}

/// An MCP server of one [`ToolSet`], whose calls an observer `O` may watch. Cloning it is cheap
/// and the clones share the tool set, the observer and the request counter (one per HTTP session).
pub struct Server<S, O = ()> {
    set: Arc<S>,
    observer: Arc<O>,
    /// What tools/list publishes: the granular tools, or the consolidated profile's.
    tools: Arc<Vec<Tool>>,
    /// The consolidated profile, when this server publishes it.
    profile: Option<&'static Profile>,
    version: &'static str,
    calls: Arc<AtomicU64>,
}

impl<S, O> Clone for Server<S, O> {
    fn clone(&self) -> Self {
        Server {
            set: self.set.clone(),
            observer: self.observer.clone(),
            tools: self.tools.clone(),
            profile: self.profile,
            version: self.version,
            calls: self.calls.clone(),
        }
    }
}

impl<S: ToolSet> Server<S> {
    /// Serves `set`; `version` is `serverInfo.version` and `_meta.tool_version`
    /// (`env!("CARGO_PKG_VERSION")` of the server's crate).
    pub fn new(set: S, version: &'static str) -> Self {
        let tools = Arc::new(S::tools().iter().map(ToolSpec::to_tool).collect());
        Server {
            set: Arc::new(set),
            observer: Arc::new(()),
            tools,
            profile: None,
            version,
            calls: Arc::new(AtomicU64::new(0)),
        }
    }
}

impl<S: ToolSet, O: CallObserver + 'static> Server<S, O> {
    /// The same server with `observer` watching every call (see [`crate::call`]).
    pub fn with_observer<P: CallObserver + 'static>(self, observer: P) -> Server<S, P> {
        let Server { set, tools, profile, version, calls, .. } = self;
        Server { set, observer: Arc::new(observer), tools, profile, version, calls }
    }

    /// The same server publishing the manifest's consolidated profile instead of its tools: one
    /// tool per group, whose `action` names the underlying tool. Calls are checked and resolved
    /// by [`consolidated::resolve`], and tool names in error messages and warnings are rewritten
    /// to their consolidated calls (answers' text is left as the handler wrote it). An error when
    /// the manifest declares no groups.
    pub fn consolidated(self) -> Result<Self, String> {
        let profile = S::consolidated().ok_or_else(|| {
            format!("{} declares no groups, so it has no consolidated profile: serve its tools as they are", S::NAME)
        })?;
        let tools = Arc::new(profile.tools.iter().map(ToolSpec::to_tool).collect());
        Ok(Server { tools, profile: Some(profile), ..self })
    }

    /// The tool a call of `name` runs, with its arguments: in the consolidated profile, the
    /// underlying tool of its action. `Err` for a name this server does not publish; `Ok(Err)`
    /// for a call the profile refuses (no action, a parameter the action does not take, ...).
    #[allow(clippy::type_complexity)]
    fn resolve(
        &self,
        name: &str,
        args: Map<String, Value>,
    ) -> Result<Result<(&'static ToolSpec, Map<String, Value>), ToolError>, ErrorData> {
        let unknown = || {
            let shown = crate::text::clip(name, 100);
            let count = self.tools.len();
            ErrorData::invalid_params(
                format!("Unknown tool '{shown}'. Call tools/list to see the {count} available tools."),
                None,
            )
        };
        let spec = |tool: &str| S::tools().iter().find(|t| t.name == tool);
        let Some(profile) = self.profile else {
            return spec(name).map(|s| Ok((s, args))).ok_or_else(unknown);
        };
        let published = self.tools.iter().find(|t| t.name == name).ok_or_else(unknown)?;
        if let Err(e) = consolidated::check_published_types(&published.input_schema, &args, profile.errors) {
            return Ok(Err(e));
        }
        match consolidated::resolve(profile.groups, profile.errors, name, args) {
            Some(Ok((tool, args))) => Ok(spec(tool).map(|s| (s, args)).ok_or_else(|| undispatched(tool))),
            Some(Err(e)) => Ok(Err(e)),
            None => Err(unknown()),
        }
    }

    /// `text` with every tool named as this server publishes it.
    fn renamed(&self, text: &str) -> String {
        match self.profile {
            Some(profile) => crate::aliases::rewrite(text, profile.aliases, &[]),
            None => text.to_string(),
        }
    }

    /// A result's error message and warnings in this server's tool names.
    fn rename(&self, result: ToolResult<Value>, warnings: &mut [Warning]) -> ToolResult<Value> {
        for w in warnings.iter_mut() {
            w.message = self.renamed(&w.message);
        }
        match result {
            Ok(mut reply) => {
                for w in &mut reply.warnings {
                    w.message = self.renamed(&w.message);
                }
                Ok(reply)
            }
            Err(mut e) => {
                e.message = self.renamed(&e.message);
                Err(e)
            }
        }
    }

    /// Serves MCP over stdin/stdout until the client closes stdin.
    pub async fn serve_stdio(self) -> Result<(), String> {
        let running = match self.serve(rmcp::transport::stdio()).await {
            Ok(running) => running,
            // stdin closed before a client said hello: nothing was asked, so nothing failed.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
            Err(e) => return Err(format!("MCP handshake failed: {e}")),
        };
        running.waiting().await.map(|_| ()).map_err(|e| format!("server stopped: {e}"))
    }

    /// Serves MCP over Streamable HTTP at `/mcp` on `listener` until the process stops. Each HTTP
    /// session gets a clone of this server. As rmcp does by default, requests must name a loopback
    /// `Host` (a guard against DNS rebinding): bind a loopback address.
    #[cfg(feature = "http")]
    pub async fn serve_http(self, listener: tokio::net::TcpListener) -> Result<(), String> {
        use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
        use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

        let service = StreamableHttpService::new(
            move || Ok(self.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let router = axum::Router::new().nest_service("/mcp", service);
        axum::serve(listener, router).await.map_err(|e| format!("HTTP server stopped: {e}"))
    }
}

impl<S: ToolSet, O: CallObserver + 'static> ServerHandler for Server<S, O> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(S::NAME, self.version).with_title(S::TITLE))
            .with_instructions(self.profile.map_or(S::INSTRUCTIONS, |p| p.instructions))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = Instant::now();
        let request_id = format!("req-{}", self.calls.fetch_add(1, Ordering::Relaxed) + 1);
        let args = request.arguments.unwrap_or_default();
        let mut facts = CallFacts {
            request_id: request_id.clone(),
            started,
            version: self.version,
            extra: Map::new(),
            cached: false,
            warnings: Vec::new(),
            count_tokens: estimate_tokens,
        };
        let (spec, args) = match self.resolve(&request.name, args)? {
            Ok(found) => found,
            Err(refused) => {
                let refused = self.rename(Err(refused), &mut []);
                return Ok(envelope::call_result(refused, &facts).into());
            }
        };
        let ctx = CallContext { tool: spec.name.to_string(), request_id };
        let called = call::run(&*self.observer, spec, args, |args| async move {
            self.set.call(spec.name, args, ctx).await.unwrap_or_else(|| Err(undispatched(spec.name)))
        })
        .await;
        facts.warnings = called.warnings;
        let result = self.rename(called.result, &mut facts.warnings);
        Ok(envelope::call_result(result, &facts).into())
    }
}

/// A tool in the table that the tool set's dispatch does not know: the generated code keeps the
/// two in step, so this is a bug of the server, said as one.
fn undispatched(name: &str) -> ToolError {
    ToolError::new(
        ErrorCode::Internal,
        "undispatched",
        format!("The tool '{name}' is listed but this server has no dispatch for it: a bug of the server; report it."),
    )
}

/// A rough token count for `_meta.tokens`: a token per four bytes of text, as BPE tokenizers
/// average on English and JSON.
pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}
