//! Serving a generated tool set over MCP, on stdio or (feature `http`) Streamable HTTP: an rmcp
//! `ServerHandler` that publishes the tool table, runs every call through [`crate::call::run`]
//! (with the server's [`CallObserver`], if it has one) and wraps every result in the
//! [`crate::envelope`]. A server with more to say (resources, prompts, profiles) writes its own
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
use crate::envelope::{self, CallFacts};
use crate::{CallContext, ErrorCode, ToolError, ToolResult, ToolSpec};

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
}

/// An MCP server of one [`ToolSet`], whose calls an observer `O` may watch. Cloning it is cheap
/// and the clones share the tool set, the observer and the request counter (one per HTTP session).
pub struct Server<S, O = ()> {
    set: Arc<S>,
    observer: Arc<O>,
    tools: Arc<Vec<Tool>>,
    version: &'static str,
    calls: Arc<AtomicU64>,
}

impl<S, O> Clone for Server<S, O> {
    fn clone(&self) -> Self {
        Server {
            set: self.set.clone(),
            observer: self.observer.clone(),
            tools: self.tools.clone(),
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
        Server { set: Arc::new(set), observer: Arc::new(()), tools, version, calls: Arc::new(AtomicU64::new(0)) }
    }
}

impl<S: ToolSet, O: CallObserver + 'static> Server<S, O> {
    /// The same server with `observer` watching every call (see [`crate::call`]).
    pub fn with_observer<P: CallObserver + 'static>(self, observer: P) -> Server<S, P> {
        let Server { set, tools, version, calls, .. } = self;
        Server { set, observer: Arc::new(observer), tools, version, calls }
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
            .with_instructions(S::INSTRUCTIONS)
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
        let name = request.name.to_string();
        let Some(spec) = S::tools().iter().find(|t| t.name == name) else {
            let shown = crate::text::clip(&name, 100);
            return Err(ErrorData::invalid_params(
                format!("Unknown tool '{shown}'. Call tools/list to see the {} available tools.", self.tools.len()),
                None,
            ));
        };
        let ctx = CallContext { tool: name.clone(), request_id: request_id.clone() };
        let args = request.arguments.unwrap_or_default();
        let called = call::run(&*self.observer, spec, args, |args| async move {
            self.set.call(&name, args, ctx).await.unwrap_or_else(|| Err(undispatched(&name)))
        })
        .await;
        let facts = CallFacts {
            request_id,
            started,
            version: self.version,
            extra: Map::new(),
            warnings: called.warnings,
            count_tokens: estimate_tokens,
        };
        Ok(envelope::call_result(called.result, &facts).into())
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
