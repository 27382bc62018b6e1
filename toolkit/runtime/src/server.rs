//! Serving a generated tool set over MCP, on stdio (the guarded transport of [`stdio`]) or
//! (feature `http`) Streamable HTTP: an rmcp `ServerHandler` that publishes the tool table (or
//! the manifest's consolidated profile), runs every call through [`crate::call::run`] (with the
//! server's [`CallObserver`], if it has one) and wraps every result in the [`crate::envelope`].
//! Every other method (resources, prompts, subscriptions, logging, custom methods) goes to an
//! inner handler ([`Inner`]), as rmcp's `Router` hands on what is not a tool; the inner handler
//! may also adapt a call's arguments before it runs and see its result before it is answered.

mod inner;
pub mod jsonrpc;
mod rename;
pub mod stdio;

pub use inner::{Inner, NoInner};
pub use rename::Renaming;

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use rmcp::model::{CallToolRequestParams, CallToolResponse, Implementation, ServerConfig, Tool};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServiceExt};
use serde_json::{Map, Value};

use crate::call::{self, CallObserver};
use crate::consolidated::{self, Profile};
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

    /// The manifest's consolidated profile (one tool per group, with `action`); `None` for a
    /// manifest without groups.
    fn consolidated() -> Option<&'static Profile> {
        None
    }
}

/// An MCP server of one [`ToolSet`], whose calls an observer `O` may watch and whose other
/// methods an inner handler `I` answers. Cloning it is cheap and the clones share the tool set,
/// the observer, the inner handler and the request counter (one per HTTP session).
pub struct Server<S, O = (), I = NoInner> {
    set: Arc<S>,
    observer: Arc<O>,
    inner: Arc<I>,
    /// Everything else, whatever `S`, `O` and `I` are: a builder that changes one of those moves
    /// this as it is.
    settings: Settings,
}

/// What a [`Server`] publishes and how it answers, apart from its tool set, observer and inner
/// handler; and its request counter, shared by its clones.
#[derive(Clone)]
struct Settings {
    /// What tools/list publishes: the granular tools, or the consolidated profile's.
    tools: Arc<Vec<Tool>>,
    /// The consolidated profile, when this server publishes it.
    profile: Option<&'static Profile>,
    /// Where answers hold the server's own hints (see [`Renaming::hints`]).
    hints: &'static [&'static str],
    instructions: Option<Arc<str>>,
    structured: bool,
    version: &'static str,
    count_tokens: fn(&str) -> usize,
    /// Whether `_meta` says `cached` (for a server whose answers come from a cache it keeps).
    cached: bool,
    calls: Arc<AtomicU64>,
}

impl<S, O, I> Clone for Server<S, O, I> {
    fn clone(&self) -> Self {
        Server {
            set: self.set.clone(),
            observer: self.observer.clone(),
            inner: self.inner.clone(),
            settings: self.settings.clone(),
        }
    }
}

impl<S: ToolSet> Server<S> {
    /// Serves `set`; `version` is `serverInfo.version` and `_meta.tool_version`
    /// (`env!("CARGO_PKG_VERSION")` of the server's crate).
    pub fn new(set: S, version: &'static str) -> Self {
        Server {
            set: Arc::new(set),
            observer: Arc::new(()),
            inner: Arc::new(NoInner),
            settings: Settings {
                tools: published(S::tools(), true),
                profile: None,
                hints: &[],
                instructions: None,
                structured: true,
                version,
                count_tokens: estimate_tokens,
                cached: false,
                calls: Arc::new(AtomicU64::new(0)),
            },
        }
    }
}

impl<S: ToolSet, O: CallObserver + 'static, I: Inner> Server<S, O, I> {
    /// The same server with `observer` watching every call (see [`crate::call`]).
    pub fn with_observer<P: CallObserver + 'static>(self, observer: P) -> Server<S, P, I> {
        let Server { set, inner, settings, .. } = self;
        Server { set, observer: Arc::new(observer), inner, settings }
    }

    /// The same server handing every method but the tools' to `inner` (its `get_info` gives the
    /// capabilities besides tools), which may also adapt each call and see each result.
    pub fn with_inner<J: Inner>(self, inner: J) -> Server<S, O, J> {
        let Server { set, observer, settings, .. } = self;
        Server { set, observer, inner: Arc::new(inner), settings }
    }

    /// The same server publishing the manifest's consolidated profile instead of its tools: one
    /// tool per group, whose `action` names the underlying tool. Calls are checked and resolved
    /// by [`consolidated::resolve`], and tool names in answers are renamed to their consolidated
    /// calls, user data excepted ([`Renaming`]). An error when the manifest declares no groups.
    pub fn consolidated(mut self) -> Result<Self, String> {
        let profile = S::consolidated().ok_or_else(|| {
            format!("{} declares no groups, so it has no consolidated profile: serve its tools as they are", S::NAME)
        })?;
        self.settings.profile = Some(profile);
        Ok(self.republished())
    }

    /// The same server renaming, in the consolidated profile, the hints its answers hold at
    /// `hints` (see [`Renaming::hints`]) instead of keeping them as user data.
    pub fn with_hints(mut self, hints: &'static [&'static str]) -> Self {
        self.settings.hints = hints;
        self
    }

    /// The same server sending `instructions` at initialization instead of the manifest's.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.settings.instructions = Some(Arc::from(instructions.into()));
        self
    }

    /// The same server answering without structuredContent and publishing no outputSchema (a
    /// result without structuredContent must not be checked against one), for clients that
    /// show structuredContent instead of the text.
    pub fn without_structured_content(mut self) -> Self {
        self.settings.structured = false;
        self.republished()
    }

    /// The same server counting `_meta.tokens` with `count` instead of [`estimate_tokens`].
    pub fn with_token_count(mut self, count: fn(&str) -> usize) -> Self {
        self.settings.count_tokens = count;
        self
    }

    /// The same server saying `_meta.cached` in every answer (its answers come from a cache).
    pub fn with_cached_meta(mut self) -> Self {
        self.settings.cached = true;
        self
    }

    fn republished(mut self) -> Self {
        let table = self.settings.profile.map_or(S::tools(), |p| p.tools);
        self.settings.tools = published(table, self.settings.structured);
        self
    }

    /// The renaming of answers, in the consolidated profile.
    fn renaming(&self) -> Option<Renaming> {
        self.settings.profile.map(|p| Renaming { aliases: p.aliases, hints: self.settings.hints })
    }

    /// What initialize answers: the inner handler's capabilities with tools, this server's name,
    /// version and instructions.
    fn info(&self) -> ServerConfig {
        let mut info = rmcp::ServerHandler::get_info(&*self.inner);
        info.capabilities.tools.get_or_insert_with(Default::default);
        info.server_info = Implementation::new(S::NAME, self.settings.version).with_title(S::TITLE);
        let instructions = match &self.settings.instructions {
            Some(text) => text.to_string(),
            None => self.settings.profile.map_or(S::INSTRUCTIONS, |p| p.instructions).to_string(),
        };
        info.with_instructions(instructions)
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
        let spec = |tool: &str| S::tools().iter().find(|t| t.name == tool);
        let Some(profile) = self.settings.profile else {
            return spec(name).map(|s| Ok((s, args))).ok_or_else(|| self.unknown(name));
        };
        let published = self.settings.tools.iter().find(|t| t.name == name).ok_or_else(|| self.unknown(name))?;
        if let Err(e) = consolidated::check_published_types(&published.input_schema, &args, profile.errors) {
            return Ok(Err(e));
        }
        match consolidated::resolve(profile.groups, profile.errors, name, args) {
            Some(Ok((tool, args))) => Ok(spec(tool).map(|s| (s, args)).ok_or_else(|| undispatched(tool))),
            Some(Err(e)) => Ok(Err(e)),
            None => Err(self.unknown(name)),
        }
    }

    /// The protocol error for a tool this server does not publish; in the consolidated profile,
    /// a granular name gets the call to make instead.
    fn unknown(&self, name: &str) -> ErrorData {
        // The name is repeated, but not a megabyte of it (nor in the hint).
        let shown = crate::text::clip(name, 100);
        let hint = match self.renaming().map(|r| r.text(&shown)) {
            Some(renamed) if renamed != shown => {
                format!(" This server publishes the consolidated profile: call {renamed} instead.")
            }
            _ => String::new(),
        };
        let count = self.settings.tools.len();
        ErrorData::invalid_params(
            format!("Unknown tool '{shown}'. Call tools/list to see the {count} available tools.{hint}"),
            None,
        )
    }

    /// tools/call: resolve, adapt (the inner handler), run (observed), let the inner handler see
    /// the result, rename it for the profile, and wrap it in the envelope.
    async fn call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let started = Instant::now();
        let request_id = format!("req-{}", self.settings.calls.fetch_add(1, Ordering::Relaxed) + 1);
        let requested = request.name;
        let args = request.arguments.unwrap_or_default();
        // A refused call of a known action is told by its underlying tool.
        let underlying = self.settings.profile.and_then(|p| consolidated::underlying(p.groups, &requested, &args));
        let mut warnings = Vec::new();
        let (tool, mut result) = match self.resolve(&requested, args)? {
            Ok((spec, mut args)) => {
                let adapted = self.inner.adapt(spec, &mut args);
                let ctx = CallContext { tool: spec.name.to_string(), request_id: request_id.clone() };
                let called = call::run(&*self.observer, spec, args, |args| async move {
                    self.set.call(spec.name, args, ctx).await.unwrap_or_else(|| Err(undispatched(spec.name)))
                })
                .await;
                warnings = called.warnings;
                warnings.extend(adapted);
                (spec.name, called.result)
            }
            Err(refused) => (underlying.unwrap_or(&requested), Err(refused)),
        };
        self.inner.answered(tool, &mut result, &context).await;
        if let Some(renaming) = self.renaming() {
            result = renaming.result(result);
            renaming.warnings(&mut warnings);
        }
        let facts = CallFacts {
            request_id,
            started,
            version: self.settings.version,
            extra: self.observer.meta(),
            cached: self.settings.cached,
            warnings,
            count_tokens: self.settings.count_tokens,
        };
        let mut result = envelope::call_result(result, &facts);
        if !self.settings.structured {
            result.structured_content = None;
        }
        Ok(result.into())
    }

    /// Serves MCP over stdin/stdout ([`stdio::LineTransport`]) until the client closes stdin.
    pub async fn serve_stdio(self) -> Result<(), String> {
        self.serve_stdio_until(std::future::pending()).await
    }

    /// [`Server::serve_stdio`], stopping cleanly when `stop` resolves (a signal) too.
    pub async fn serve_stdio_until(self, stop: impl Future<Output = ()>) -> Result<(), String> {
        let transport = stdio::LineTransport::new(tokio::io::stdin(), tokio::io::stdout());
        let running = match self.serve(transport).await {
            Ok(running) => running,
            // stdin closed before a client said hello (Ctrl-D at a terminal, or a client that gave
            // up): nothing was asked, so nothing failed.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
                tracing::info!("stdin closed before an MCP client initialized; stopping");
                return Ok(());
            }
            Err(e) => return Err(format!("MCP handshake failed: {e}")),
        };
        let cancel = running.cancellation_token();
        tokio::select! {
            quit = running.waiting() => { quit.map_err(|e| format!("server stopped: {e}"))?; }
            _ = stop => { cancel.cancel(); }
        }
        Ok(())
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

/// The rmcp tools of `table` (without outputSchema unless `structured`), built once per process
/// and shared by every server of the table (each HTTP session would otherwise hold its own copy).
fn published(table: &'static [ToolSpec], structured: bool) -> Arc<Vec<Tool>> {
    type Built = Vec<(usize, bool, Arc<Vec<Tool>>)>;
    static BUILT: OnceLock<Mutex<Built>> = OnceLock::new();
    let key = table.as_ptr() as usize;
    let mut built = BUILT.get_or_init(Mutex::default).lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, _, tools)) = built.iter().find(|(k, s, _)| *k == key && *s == structured) {
        return Arc::clone(tools);
    }
    let tools = table.iter().map(ToolSpec::to_tool).map(|mut t| {
        if !structured {
            t.output_schema = None;
        }
        t
    });
    let tools = Arc::new(tools.collect::<Vec<_>>());
    built.push((key, structured, Arc::clone(&tools)));
    tools
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
