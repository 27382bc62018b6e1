//! The MCP face of docket: an rmcp `ServerHandler` that publishes the generated tool table and
//! routes calls through the generated dispatch, wrapping every result in one envelope.

mod envelope;
mod intelligence;
mod resources;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::error_memory::ErrorMemory;
use crate::generated::{self, ToolHandlers};
use crate::runtime::CallContext;
use crate::store::Store;

/// Serves the tools of `H` (normally [`crate::handlers::Handlers`]).
pub struct DocketServer<H> {
    handlers: Arc<H>,
    store: Arc<Store>,
    memory: Arc<ErrorMemory>,
    tools: Arc<Vec<Tool>>,
    calls: AtomicU64,
}

impl<H: ToolHandlers> DocketServer<H> {
    /// `store` is the one `handlers` work on (the server reads its index state for `_meta`);
    /// `memory` records failed calls and warns before they repeat.
    pub fn new(handlers: Arc<H>, store: Arc<Store>, memory: Arc<ErrorMemory>) -> Self {
        let tools = Arc::new(generated::tool_definitions());
        DocketServer { handlers, store, memory, tools, calls: AtomicU64::new(0) }
    }
}

impl<H: ToolHandlers> ServerHandler for DocketServer<H> {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_completions().enable_resources().enable_tools().build())
            .with_server_info(
                Implementation::new(generated::SERVER_NAME, env!("CARGO_PKG_VERSION"))
                    .with_title(generated::SERVER_TITLE),
            )
            .with_instructions(generated::SERVER_INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // Twenty tools fit one page; several clients ignore nextCursor on tools/list.
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let store = Arc::clone(&self.store);
        let cursor = request.and_then(|r| r.cursor);
        blocking(move || resources::list(&store, cursor.as_deref())).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(resources::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let (store, memory) = (Arc::clone(&self.store), Arc::clone(&self.memory));
        let contents = blocking(move || resources::read(&store, &memory, &request.uri)).await?;
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let store = Arc::clone(&self.store);
        blocking(move || resources::complete(&store, &request)).await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
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
        let context = intelligence::context_of(&name, &args);
        let mut warnings = if self.get_tool(&name).is_some() {
            intelligence::preflight(&self.memory, &name, &context).await
        } else {
            Vec::new()
        };
        match generated::dispatch(self.handlers.as_ref(), &name, args, ctx).await {
            Some(result) => {
                if let Err(e) = &result {
                    tracing::info!(tool = %name, code = e.code.as_str(), "tool call failed");
                    warnings.extend(intelligence::record(&self.memory, &name, e, &context).await);
                }
                let facts = envelope::CallFacts { request_id, started, index: self.store.index_info(), warnings };
                Ok(envelope::call_result(result, &facts).into())
            }
            None => {
                // The name is repeated, but not a megabyte of it.
                let shown: String = name.chars().take(100).collect();
                let shown = if shown.len() < name.len() { format!("{shown}…") } else { shown };
                Err(ErrorData::invalid_params(
                    format!("Unknown tool '{shown}'. Call tools/list to see the {} available tools.", self.tools.len()),
                    None,
                ))
            }
        }
    }
}

/// Runs store work for a protocol request off the async worker threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ErrorData> + Send + 'static,
) -> Result<T, ErrorData> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(ErrorData::internal_error(format!("request stopped: {e}"), None)))
}
