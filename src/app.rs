//! One docket instance over one workspace: the store, the error memory and the tool handlers,
//! built once and shared by every front end (the MCP server over stdio or HTTP, and the CLI).

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::config::Config;
use crate::error_memory::ErrorMemory;
use crate::generated::{self, TOOLS};
use crate::handlers::Handlers;
use crate::runtime::{CallContext, Reply, ToolError, Warning};
use crate::server::notify::Write;
use crate::server::{DocketServer, intelligence};
use crate::store::{Store, Workspace};

/// The core every front end drives.
#[derive(Clone)]
pub struct App {
    pub store: Arc<Store>,
    pub memory: Arc<ErrorMemory>,
    pub handlers: Arc<Handlers>,
    pub config: Arc<Config>,
    /// Writes made by front ends other than MCP (the web board), so MCP subscribers hear of them.
    pub writes: tokio::sync::broadcast::Sender<Write>,
}

/// Writes a slow subscriber may fall behind by before it misses some (it then hears of the board).
const WRITES_BUFFER: usize = 256;

impl App {
    /// Opens `ws` with the settings of `config` (see [`Config::load`]).
    pub fn open(ws: Workspace, config: Config) -> App {
        let store = Arc::new(Store::open(ws, config.store_options()));
        let memory = Arc::new(ErrorMemory::open(&store.workspace().dir, config.memory_settings()));
        let handlers =
            Arc::new(Handlers::new(Arc::clone(&store), Arc::clone(&memory), config.limits, config.read_only));
        let (writes, _) = tokio::sync::broadcast::channel(WRITES_BUFFER);
        App { store, memory, handlers, config: Arc::new(config), writes }
    }

    /// Opens `ws` with its config file, the environment and `overrides` (`KEY=VALUE`).
    pub fn load(ws: Workspace, overrides: &[String]) -> Result<App, crate::config::ConfigError> {
        let config = Config::load(&ws.dir, overrides)?;
        Ok(App::open(ws, config))
    }

    /// An MCP server over this instance (one per stdio connection or HTTP session).
    pub fn server(&self) -> DocketServer<Handlers> {
        DocketServer::new(
            Arc::clone(&self.handlers),
            Arc::clone(&self.store),
            Arc::clone(&self.memory),
            Arc::clone(&self.config),
        )
        .hearing(self.writes.clone())
    }

    /// A tool call from a front end other than MCP (the web board): the same error memory
    /// (preflight warnings, failures recorded) and dispatch as `tools/call`, and a successful write
    /// is announced on [`App::writes`] so MCP sessions subscribed to the board or the issue hear of
    /// it. `None` when no such tool exists.
    pub async fn call(&self, tool: &str, args: Map<String, Value>, request_id: String) -> Option<Called> {
        let spec = TOOLS.iter().find(|t| t.name == tool)?;
        let error_context = intelligence::context_of(spec, &args);
        let mut warnings = intelligence::preflight(&self.memory, tool, &error_context).await;
        warnings.extend(intelligence::deprecation(spec));
        let announce = (!spec.read_only).then(|| args.clone());
        let ctx = CallContext { tool: tool.to_string(), request_id };
        let result = generated::dispatch(self.handlers.as_ref(), tool, args, ctx).await?;
        match &result {
            Err(e) => warnings.extend(intelligence::record(&self.memory, tool, e, &error_context).await),
            Ok(reply) => {
                if let Some(args) = announce {
                    // No receiver (no MCP session listening) is not an error.
                    let _ = self.writes.send(Write { tool: spec, args, output: reply.data.clone() });
                }
            }
        }
        Some(Called { result, warnings })
    }
}

/// What a call gave: the reply or the tool's error, and the warnings around it (KNOWN_FAILURE,
/// DEPRECATED_TOOL, ERROR_MEMORY_UNAVAILABLE; the reply carries its own).
pub struct Called {
    pub result: Result<Reply<Value>, ToolError>,
    pub warnings: Vec<Warning>,
}
