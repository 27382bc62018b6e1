//! The MCP face of docket: an rmcp `ServerHandler` that publishes the generated tool table and
//! routes calls through the generated dispatch, wrapping every result in one envelope.

mod compat;
mod methods;
pub mod notify;
mod profile;
mod prompts;
mod resources;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, CustomRequest, CustomResult,
    GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams, GetSkillResult, Implementation,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents,
    ServerCapabilities, ServerConfig, Skill, SkillFrontmatter, SkillResource, SkillResources, SubscribeRequestParams,
    Tool, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::codes;
use crate::config::Config;
use crate::error_memory::ErrorMemory;
use crate::generated::{self, ToolHandlers};
use crate::runtime::envelope;
use crate::store::IndexInfo;
use crate::store::served::Served;
use crate::tokens;

pub use crate::config::ToolStyle;

/// docs/skill/SKILL.md as the skills extension (SEP-2640) lists it: one file, with its digest.
fn workflow_skill() -> Skill {
    use crate::agents::{SKILL_MD, SKILL_NAME, SKILL_URI};
    let description = crate::agents::skill_field("description").unwrap_or_default();
    Skill::new(
        SKILL_URI,
        SkillFrontmatter::new(SKILL_NAME, description),
        SkillResources::Files(vec![SkillResource::from_bytes(SKILL_URI, SKILL_MD.as_bytes())]),
    )
}

/// Serves the tools of `H` (normally [`crate::handlers::Handlers`]).
pub struct DocketServer<H> {
    handlers: Arc<H>,
    store: Arc<Served>,
    memory: Arc<ErrorMemory>,
    config: Arc<Config>,
    tools: Arc<Vec<Tool>>,
    calls: AtomicU64,
    listeners: Arc<notify::Listeners>,
    /// Writes made outside MCP, forwarded to this session's subscriptions once it has any.
    writes: Option<tokio::sync::broadcast::Sender<notify::Write>>,
    forwarding: std::sync::atomic::AtomicBool,
    /// This connection's session: the holder of the claims its calls take, renewed while it lives.
    session: Arc<crate::store::holder::Session>,
    /// The ids this session was already told (in `_meta`) are held by more than one file: each
    /// is said once, later answers count them (`workspace_doctor` lists them all).
    told_duplicates: std::sync::Mutex<std::collections::HashSet<String>>,
}

impl<H: ToolHandlers> DocketServer<H> {
    /// `store` is the one `handlers` work on (the server reads its index state for `_meta`);
    /// `memory` records failed calls and warns before they repeat; `config` picks the tool style.
    pub fn new(handlers: Arc<H>, store: Arc<Served>, memory: Arc<ErrorMemory>, config: Arc<Config>) -> Self {
        let mut tools = config.tool_style.tools();
        if !config.structured_content {
            // A result without structuredContent must not be checked against an outputSchema.
            let bare = tools.iter().cloned().map(|mut t| {
                t.output_schema = None;
                t
            });
            tools = Arc::new(bare.collect());
        }
        let listeners = Arc::new(notify::Listeners::default());
        let session = store.open_session();
        DocketServer {
            handlers,
            store,
            memory,
            config,
            tools,
            calls: AtomicU64::new(0),
            listeners,
            writes: None,
            forwarding: Default::default(),
            session,
            told_duplicates: Default::default(),
        }
    }

    /// Also tells this session's subscribers of the writes announced on `writes` (see
    /// `App::writes`).
    pub fn hearing(mut self, writes: tokio::sync::broadcast::Sender<notify::Write>) -> Self {
        self.writes = Some(writes);
        self
    }
}

impl<H: ToolHandlers> ServerHandler for DocketServer<H> {
    #[allow(deprecated)] // enable_logging: see notify.rs
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_completions()
                .enable_logging()
                .enable_prompts()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_tools()
                .enable_skills()
                .build(),
        )
        .with_server_info(
            Implementation::new(generated::SERVER_NAME, env!("CARGO_PKG_VERSION")).with_title(generated::SERVER_TITLE),
        )
        .with_instructions(self.config.tool_style.instructions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // Every profile fits one page; several clients ignore nextCursor on tools/list.
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

    async fn list_skills(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        Ok(ListSkillsResult::with_all_items(vec![workflow_skill()]))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        match request.uri == crate::agents::SKILL_URI {
            true => Ok(GetSkillResult::new(workflow_skill())),
            false => Err(ErrorData::invalid_params(
                format!(
                    "No skill at '{}': docket serves one skill, {}. Call skills/list to see it.",
                    request.uri.chars().take(200).collect::<String>(),
                    crate::agents::SKILL_URI
                ),
                None,
            )),
        }
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
        if request.uri == crate::agents::SKILL_URI {
            let skill = ResourceContents::text(crate::agents::SKILL_MD, &request.uri).with_mime_type("text/markdown");
            return Ok(ReadResourceResult::new(vec![skill]).into());
        }
        let (store, memory, config) = (Arc::clone(&self.store), Arc::clone(&self.memory), Arc::clone(&self.config));
        let contents = blocking(move || resources::read(&store, &memory, &config, &request.uri)).await?;
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

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.listeners.subscribe(request.uri)?;
        if let Some(writes) = &self.writes
            && !self.forwarding.swap(true, Ordering::Relaxed)
        {
            notify::forward(writes.subscribe(), Arc::downgrade(&self.listeners), context.peer.clone());
        }
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.listeners.unsubscribe(&request.uri);
        Ok(())
    }

    #[allow(deprecated)] // logging/setLevel: see notify.rs
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.listeners.set_level(request.level);
        Ok(())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(prompts::list()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        Ok(prompts::get(&request.name, &request.arguments.unwrap_or_default())?.into())
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let is_tool = self.tools.iter().any(|t| t.name == request.method);
        Err(methods::custom_request_error(&request.method, request.params.as_ref(), is_tool))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = Instant::now();
        let request_id = format!("req-{}", self.calls.fetch_add(1, Ordering::Relaxed) + 1);
        let requested = request.name.to_string();
        let args = request.arguments.unwrap_or_default();
        // The consolidated profile resolves (tool, action) to the underlying tool first, so error
        // memory, preflight, dispatch and `_meta` all work on the underlying tool.
        let style = self.config.tool_style;
        let (name, args, resolve_error) = match style {
            ToolStyle::Granular => (Some(requested.clone()), args, None),
            ToolStyle::Consolidated => match profile::resolve(&requested, args) {
                Some(r) => (r.tool.map(str::to_string), r.args, r.error),
                None => return Err(self.unknown_tool(&requested)),
            },
        };
        let name = name.unwrap_or_else(|| requested.clone());
        // The tool, resolved once for everything below; `None` for an unknown name or action.
        let spec = generated::TOOLS.iter().find(|t| t.name == name);
        let mut args = args;
        let ignored = if resolve_error.is_none() { compat::normalize(&name, &mut args) } else { Vec::new() };
        let mut warnings = ignored;
        let mut result = match (resolve_error, spec) {
            // A call without a valid action has no underlying tool to remember the failure by.
            (Some(e), _) => Err(e),
            (None, None) => return Err(self.unknown_tool(&requested)),
            (None, Some(spec)) => {
                // Subscribers of this session hear of its own write through the same channel as
                // every other session (call::run announces it); without a channel, directly.
                warnings.extend(crate::call::resolve_again(spec, &self.store, &self.memory));
                let watched = (self.writes.is_none() && self.listeners.wants(spec)).then(|| args.clone());
                let core = crate::call::Core {
                    handlers: self.handlers.as_ref(),
                    memory: &self.memory,
                    writes: self.writes.as_ref(),
                    workspace: self.store.workspace(),
                    read_only: self.config.read_only,
                };
                let session = Arc::clone(&self.session);
                let called = crate::handlers::SESSION
                    .scope(session, crate::call::run(&core, spec, args, request_id.clone()))
                    .await;
                warnings.splice(0..0, called.warnings);
                if let (Ok(reply), Some(args)) = (&called.result, &watched) {
                    self.notify_subscribers(&context, spec, args, &reply.data).await;
                }
                called.result
            }
        };
        if let Err(e) = &result {
            self.listeners.log_failure(&context.peer, &name, e).await;
        }
        if let Ok(reply) = &mut result {
            self.say_duplicates_once(&mut reply.warnings);
        }
        if style == ToolStyle::Consolidated {
            result = profile::rewrite_result(result);
            profile::rewrite_warnings(&mut warnings);
        }
        let facts = envelope::CallFacts {
            request_id,
            started,
            version: env!("CARGO_PKG_VERSION"),
            extra: index_meta(&self.store.index_info()),
            cached: true,
            warnings,
            count_tokens: tokens::count,
        };
        let mut result = envelope::call_result(result, &facts);
        if !self.config.structured_content {
            result.structured_content = None;
        }
        Ok(result.into())
    }
}

impl<H> DocketServer<H> {
    /// Keeps the DUPLICATE_ID warnings of ids this session has not heard of yet; the others
    /// become one warning that counts them.
    fn say_duplicates_once(&self, warnings: &mut Vec<crate::runtime::Warning>) {
        let code = codes::DUPLICATE_ID;
        let mut told = self.told_duplicates.lock().unwrap_or_else(|p| p.into_inner());
        let before = warnings.len();
        warnings.retain(|w| {
            code != w.code || told.insert(w.message.split_whitespace().next().unwrap_or_default().to_uppercase())
        });
        let repeated = before - warnings.len();
        if repeated > 0 {
            warnings.push(crate::runtime::Warning::new(
                code,
                format!(
                    "{repeated} ID(s) this answer met are held by more than one file, as said earlier in this session; workspace_doctor lists them all"
                ),
            ));
        }
    }
}

/// docket's own `_meta` entries: the index's size and last refresh, when the index is on.
fn index_meta(index: &IndexInfo) -> serde_json::Map<String, serde_json::Value> {
    let mut meta = serde_json::Map::new();
    if index.enabled {
        meta.insert("index_size".into(), serde_json::json!(index.entries));
        let updated = index
            .last_refresh
            .map(|t| chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
        meta.insert("index_last_updated".into(), serde_json::json!(updated));
    }
    meta
}

impl<H> DocketServer<H> {
    /// Tells subscribers of what a successful write changed.
    async fn notify_subscribers(
        &self,
        context: &RequestContext<RoleServer>,
        tool: &crate::runtime::ToolSpec,
        args: &serde_json::Map<String, serde_json::Value>,
        output: &serde_json::Value,
    ) {
        for uri in self.listeners.touched(tool, args, output) {
            let param = rmcp::model::ResourceUpdatedNotificationParam::new(uri);
            if let Err(e) = context.peer.notify_resource_updated(param).await {
                tracing::debug!(error = %e, "could not notify a subscriber");
            }
        }
    }

    fn unknown_tool(&self, name: &str) -> ErrorData {
        // The name is repeated, but not a megabyte of it (nor in the hint).
        let shown = crate::util::clip(name, 100);
        let renamed = profile::rewrite(&shown);
        let hint = match self.config.tool_style {
            ToolStyle::Consolidated if renamed != shown => {
                format!(" This server publishes the consolidated profile: call {renamed} instead.")
            }
            _ => String::new(),
        };
        ErrorData::invalid_params(
            format!("Unknown tool '{shown}'. Call tools/list to see the {} available tools.{hint}", self.tools.len()),
            None,
        )
    }
}

/// Runs store work for a protocol request off the async worker threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ErrorData> + Send + 'static,
) -> Result<T, ErrorData> {
    crate::util::blocking(work, |e| ErrorData::internal_error(format!("request stopped: {e}"), None)).await
}
