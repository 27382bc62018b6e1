//! The MCP face of docket: the toolkit's server (`toolkit_runtime::server::Server`) over
//! docket's tools ([`tools::SessionTools`], each call a call of the connection's session), watched
//! by docket's observer ([`crate::call::Core`]: error memory, write announcements, index `_meta`),
//! with [`DocketServer`] as its inner handler: resources, prompts, skills, completions,
//! subscriptions and logging, and what docket adds to each call (wrangler's argument adaptation,
//! a workspace that appeared, duplicate ids said once, failures logged to the client).

mod compat;
mod methods;
pub mod notify;
mod prompts;
mod resources;
mod tools;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use rmcp::model::{
    CompleteRequestParams, CompleteResult, CustomRequest, CustomResult, GetPromptRequestParams, GetPromptResponse,
    GetSkillRequestParams, GetSkillResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListSkillsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ResourceContents, ServerCapabilities, ServerConfig, Skill, SkillFrontmatter, SkillResource, SkillResources,
    SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};
use toolkit_runtime::server::{Inner, Renaming, Server};
use toolkit_runtime::{ToolResult, ToolSpec, Warning};

use crate::codes;
use crate::config::Config;
use crate::error_memory::ErrorMemory;
use crate::generated::{self, ToolHandlers, consolidated};
use crate::store::served::Served;
use crate::tokens;

pub use crate::config::ToolStyle;

/// docket's MCP server over the tools of `H` (normally [`crate::handlers::Handlers`]), one per
/// stdio connection or HTTP session.
pub type Mcp<H> = Server<tools::SessionTools<H>, crate::call::Core<H>, DocketServer>;

/// Where docket's answers hold its own hints (the call to make next), which the consolidated
/// profile renames; every other string of an answer is user data, kept as it is.
const HINTS: &[&str] = &["next", "issue.next", "issues[].next"];

/// How answers are renamed for the consolidated profile.
const RENAMING: Renaming = Renaming { aliases: consolidated::ALIASES, hints: HINTS };

/// The MCP server of one connection over `handlers`, which work on `store`; `memory` records
/// failed calls and warns before they repeat; `config` picks the tool style; `writes` is the
/// instance's write channel (see `App::writes`), whose writes this session's subscribers hear.
/// The connection gets its own session: the holder of the claims its calls take, renewed while
/// it lives.
pub fn new<H: ToolHandlers>(
    handlers: Arc<H>,
    store: Arc<Served>,
    memory: Arc<ErrorMemory>,
    config: Arc<Config>,
    writes: tokio::sync::broadcast::Sender<notify::Write>,
) -> Mcp<H> {
    let core = crate::call::Core {
        handlers: Arc::clone(&handlers),
        memory: Arc::clone(&memory),
        writes: writes.clone(),
        store: Arc::clone(&store),
        read_only: config.read_only,
    };
    let tools = tools::SessionTools::new(handlers, Arc::clone(&store));
    let style = config.tool_style;
    let structured = config.structured_content;
    let inner = DocketServer {
        store,
        memory,
        config,
        listeners: Default::default(),
        writes,
        forwarding: Default::default(),
        told_duplicates: Default::default(),
    };
    let server = Server::new(tools, env!("CARGO_PKG_VERSION"))
        .with_observer(core)
        .with_inner(inner)
        .with_hints(HINTS)
        .with_instructions(instructions(style))
        .with_token_count(tokens::count)
        .with_cached_meta();
    let server = match style {
        ToolStyle::Granular => server,
        // docket's manifest declares groups, so the profile exists (tests/consolidated.rs).
        ToolStyle::Consolidated => server.consolidated().unwrap_or_else(|e| unreachable!("{e}")),
    };
    if structured { server } else { server.without_structured_content() }
}

/// The server instructions, naming tools as `style` publishes them: tools.yaml's, then the work
/// loop of the skill (docs/skill/SKILL.md, served whole as `skill://docket/SKILL.md`).
fn instructions(style: ToolStyle) -> String {
    let (base, loop_line) = match style {
        ToolStyle::Granular => (generated::SERVER_INSTRUCTIONS, crate::agents::loop_line().to_string()),
        ToolStyle::Consolidated => (consolidated::INSTRUCTIONS, RENAMING.text(crate::agents::loop_line())),
    };
    format!("{}\n{loop_line} Details: {}.", base.trim_end(), crate::agents::SKILL_URI)
}

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

/// Every MCP method of a docket connection but the tools' (the toolkit's server answers those),
/// and what docket adds to each tool call ([`Inner`]).
pub struct DocketServer {
    store: Arc<Served>,
    memory: Arc<ErrorMemory>,
    config: Arc<Config>,
    listeners: Arc<notify::Listeners>,
    /// Every write of the instance, forwarded to this session's subscriptions once it has any.
    writes: tokio::sync::broadcast::Sender<notify::Write>,
    forwarding: std::sync::atomic::AtomicBool,
    /// The ids this session was already told (in `_meta`) are held by more than one file: each
    /// is said once, later answers count them (`workspace_doctor` lists them all).
    told_duplicates: std::sync::Mutex<std::collections::HashSet<String>>,
}

impl ServerHandler for DocketServer {
    /// The capabilities; the toolkit's server adds docket's name, version and instructions.
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
        if !self.forwarding.swap(true, Ordering::Relaxed) {
            notify::forward(self.writes.subscribe(), Arc::downgrade(&self.listeners), context.peer.clone());
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
        let published = match self.config.tool_style {
            ToolStyle::Granular => generated::TOOLS,
            ToolStyle::Consolidated => consolidated::TOOLS,
        };
        let is_tool = published.iter().any(|t| t.name == request.method);
        Err(methods::custom_request_error(&request.method, request.params.as_ref(), is_tool))
    }
}

/// What docket adds to each tool call of the toolkit's server.
impl Inner for DocketServer {
    /// Calls written for wrangler ([`compat`]); before a write, the workspace that appeared in a
    /// pending one's folder ([`crate::call::resolve_again`]).
    fn adapt(&self, spec: &'static ToolSpec, args: &mut Map<String, Value>) -> Vec<Warning> {
        let mut warnings = compat::normalize(spec.name, args);
        warnings.extend(crate::call::resolve_again(spec, &self.store, &self.memory));
        warnings
    }

    /// A failure is logged to a client that asked for warnings; duplicate ids are said once.
    async fn answered(&self, tool: &str, result: &mut ToolResult<Value>, context: &RequestContext<RoleServer>) {
        match result {
            Err(e) => self.listeners.log_failure(&context.peer, tool, e).await,
            Ok(reply) => self.say_duplicates_once(&mut reply.warnings),
        }
    }
}

impl DocketServer {
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

/// Runs store work for a protocol request off the async worker threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ErrorData> + Send + 'static,
) -> Result<T, ErrorData> {
    crate::util::blocking(work, |e| ErrorData::internal_error(format!("request stopped: {e}"), None)).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Reply;

    #[test]
    fn rewrite_names_whole_tool_names_only() {
        let rewrite = |text: &str| RENAMING.text(text);
        assert_eq!(
            rewrite("Use issues_list or issues_get_batch, then issues_get."),
            "Use issues(action=list) or issues(action=get_batch), then issues(action=get)."
        );
        assert_eq!(rewrite("my_issues_list and issues_listing stay"), "my_issues_list and issues_listing stay");
        assert_eq!(rewrite("é errors_resolve"), "é errors(action=resolve)");
    }

    #[test]
    fn user_data_in_a_result_is_never_rewritten() {
        let data = serde_json::json!({"issue": {"id": "ISS-000001", "title": "issues_get drops fields",
            "labels": ["session_start"], "wranglerContext": {"note": "see \"issues_list\""}}});
        let text = "Updated ISS-000001: issues_get drops fields (labels: session_start) \
                    {\"note\":\"see \\\"issues_list\\\"\"}. Next: issues_get.";
        let reply = Reply::new(data.clone()).with_text(text);
        let Ok(out) = RENAMING.result(Ok(reply)) else { panic!("still a success") };
        assert_eq!(
            out.text.as_deref(),
            Some(
                "Updated ISS-000001: issues_get drops fields (labels: session_start) \
                 {\"note\":\"see \\\"issues_list\\\"\"}. Next: issues(action=get)."
            )
        );
        assert_eq!(out.data, data, "structuredContent is untouched");
    }
}
