//! One docket instance over one workspace: the store, the error memory and the tool handlers,
//! built once and shared by every front end (the MCP server over stdio or HTTP, and the CLI).

use std::sync::Arc;

use serde_json::{Map, Value};

pub use crate::call::{Called, Write};
use crate::config::Config;
use crate::error_memory::ErrorMemory;
use crate::generated::{IssuesUpdateInput, TOOLS};
use crate::handlers::Handlers;
pub use crate::handlers::write::BlockerEdit;
use crate::runtime::Reply;
use crate::store::served::Served;
use crate::store::{Store, StoreOptions, Workspace};

/// The core every front end drives.
#[derive(Clone)]
pub struct App {
    /// The store served: the one opened, or the workspace that appeared in a pending one's folder
    /// before the first write (see [`Served`]).
    pub store: Arc<Served>,
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
        let options = config.store_options();
        App::open_with(ws, config, options)
    }

    /// [`App::load`] for a process that answers one command and exits (the CLI): no thread
    /// left to save the index, the snapshot saved at the end only when it drifted by many files
    /// ([`Store::finish`]), blocking work (every tool's handler, error memory) run on the caller's thread
    /// ([`crate::util::run_blocking_inline`]; tested in `handlers::tests`).
    pub fn load_one_shot(ws: Workspace) -> Result<App, crate::config::ConfigError> {
        let config = Config::load(&ws.dir, &[])?;
        let options = StoreOptions { one_shot: true, ..config.store_options() };
        crate::util::run_blocking_inline();
        Ok(App::open_with(ws, config, options))
    }

    fn open_with(ws: Workspace, config: Config, options: StoreOptions) -> App {
        let timeout = std::time::Duration::from_secs(config.remote_timeout_seconds);
        let (remote, ttl) = (config.claims_remote.clone(), config.claim_ttl);
        let open = move |ws: Workspace| {
            Store::open(ws, options).with_claims_remote(remote.clone()).with_claim_ttl(ttl).with_remote_timeout(timeout)
        };
        let first = open(ws);
        let store = Arc::new(Served::new(first, open));
        let memory = Arc::new(ErrorMemory::open(&store.workspace().dir, config.memory_settings()));
        let handlers = Arc::new(Handlers::new(Arc::clone(&store), Arc::clone(&memory), config.limits));
        let (writes, _) = tokio::sync::broadcast::channel(WRITES_BUFFER);
        App { store, memory, handlers, config: Arc::new(config), writes }
    }

    /// Opens `ws` with its config file, the environment and `overrides` (`KEY=VALUE`).
    pub fn load(ws: Workspace, overrides: &[String]) -> Result<App, crate::config::ConfigError> {
        let config = Config::load(&ws.dir, overrides)?;
        Ok(App::open(ws, config))
    }

    /// An MCP server over this instance (one per stdio connection or HTTP session): its own
    /// session, the holder of the claims it takes, renewed while it lives.
    pub fn server(&self) -> crate::server::Mcp<Handlers> {
        crate::server::new(
            Arc::clone(&self.handlers),
            Arc::clone(&self.store),
            Arc::clone(&self.memory),
            Arc::clone(&self.config),
            self.writes.clone(),
        )
    }

    /// issues_update with `edit`'s blockers added and removed by the store under its lock, to the
    /// ones the issue has when it is written: `docket update --add-blocker/--remove-blocker`, one
    /// call on the path every call takes ([`crate::call::run_dispatching`]), observed as an
    /// issues_update.
    pub async fn update_editing_blockers(
        &self,
        args: Map<String, Value>,
        edit: BlockerEdit,
        request_id: String,
    ) -> Called {
        let spec = TOOLS.iter().find(|t| t.name == "issues_update").expect("issues_update is a tool");
        let switched = crate::call::resolve_again(spec, &self.store, &self.memory);
        let core = self.core();
        let handlers = Arc::clone(&self.handlers);
        let mut called = crate::call::run_dispatching(&core, spec, args, request_id, |args, _| async move {
            let input = match IssuesUpdateInput::from_arguments(args) {
                Ok(input) => input,
                Err(e) => return Some(Err(e)),
            };
            Some(handlers.issues_update_editing_blockers(input, edit).await.and_then(Reply::into_json))
        })
        .await;
        called.warnings.splice(0..0, switched);
        called
    }

    fn core(&self) -> crate::call::Core<Handlers> {
        crate::call::Core {
            handlers: Arc::clone(&self.handlers),
            memory: Arc::clone(&self.memory),
            writes: self.writes.clone(),
            store: Arc::clone(&self.store),
            read_only: self.config.read_only,
        }
    }

    /// A tool call from a front end other than MCP (the web board, the CLI): [`crate::call::run`],
    /// the path every call takes. `None` when no such tool exists.
    pub async fn call(&self, tool: &str, args: Map<String, Value>, request_id: String) -> Option<Called> {
        let spec = TOOLS.iter().find(|t| t.name == tool)?;
        let switched = crate::call::resolve_again(spec, &self.store, &self.memory);
        let mut called = crate::call::run(&self.core(), spec, args, request_id).await;
        called.warnings.splice(0..0, switched);
        Some(called)
    }
}
