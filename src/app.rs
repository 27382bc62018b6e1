//! One docket instance over one workspace: the store, the error memory and the tool handlers,
//! built once and shared by every front end (the MCP server over stdio or HTTP, and the CLI).

use std::sync::Arc;

use crate::config::Config;
use crate::error_memory::ErrorMemory;
use crate::handlers::Handlers;
use crate::server::DocketServer;
use crate::store::{Store, Workspace};

/// The core every front end drives.
#[derive(Clone)]
pub struct App {
    pub store: Arc<Store>,
    pub memory: Arc<ErrorMemory>,
    pub handlers: Arc<Handlers>,
    pub config: Arc<Config>,
}

impl App {
    /// Opens `ws` with the settings of `config` (see [`Config::load`]).
    pub fn open(ws: Workspace, config: Config) -> App {
        let store = Arc::new(Store::open(ws, config.store_options()));
        let memory = Arc::new(ErrorMemory::open(&store.workspace().dir, config.memory_settings()));
        let handlers = Arc::new(Handlers::new(Arc::clone(&store), Arc::clone(&memory), config.limits));
        App { store, memory, handlers, config: Arc::new(config) }
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
    }
}
