//! Serving a generated tool set over MCP: an rmcp `ServerHandler` that publishes the tool table,
//! parses and dispatches calls through the generated code and wraps every result in the
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

use crate::envelope::{self, CallFacts};
use crate::{CallContext, ToolResult, ToolSpec};

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

/// An MCP server of one [`ToolSet`].
pub struct Server<S> {
    set: Arc<S>,
    tools: Arc<Vec<Tool>>,
    version: &'static str,
    calls: AtomicU64,
}

impl<S: ToolSet> Server<S> {
    /// Serves `set`; `version` is `serverInfo.version` and `_meta.tool_version`
    /// (`env!("CARGO_PKG_VERSION")` of the server's crate).
    pub fn new(set: S, version: &'static str) -> Self {
        let tools = Arc::new(S::tools().iter().map(ToolSpec::to_tool).collect());
        Server { set: Arc::new(set), tools, version, calls: AtomicU64::new(0) }
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
}

impl<S: ToolSet> ServerHandler for Server<S> {
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
        let ctx = CallContext { tool: name.clone(), request_id: request_id.clone() };
        let args = request.arguments.unwrap_or_default();
        let Some(result) = self.set.call(&name, args, ctx).await else {
            let shown = crate::text::clip(&name, 100);
            return Err(ErrorData::invalid_params(
                format!("Unknown tool '{shown}'. Call tools/list to see the {} available tools.", self.tools.len()),
                None,
            ));
        };
        let facts = CallFacts {
            request_id,
            started,
            version: self.version,
            extra: Map::new(),
            warnings: Vec::new(),
            count_tokens: estimate_tokens,
        };
        Ok(envelope::call_result(result, &facts).into())
    }
}

/// A rough token count for `_meta.tokens`: a token per four bytes of text, as BPE tokenizers
/// average on English and JSON.
pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}
