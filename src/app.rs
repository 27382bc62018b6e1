//! One docket instance over one workspace: the store, the error memory and the tool handlers,
//! built once and shared by every front end (the MCP server over stdio or HTTP, and the CLI).

use std::sync::Arc;

use crate::error_memory::{ErrorMemory, Settings};
use crate::handlers::Handlers;
use crate::server::{DocketServer, ToolStyle};
use crate::store::{Store, StoreOptions, Workspace};

/// The core every front end drives.
#[derive(Clone)]
pub struct App {
    pub store: Arc<Store>,
    pub memory: Arc<ErrorMemory>,
    pub handlers: Arc<Handlers>,
}

impl App {
    pub fn open(ws: Workspace) -> App {
        let store = Arc::new(Store::open(ws, StoreOptions::from_env()));
        let memory = Arc::new(ErrorMemory::open(&store.workspace().dir, Settings::from_env()));
        let handlers = Arc::new(Handlers::new(Arc::clone(&store), Arc::clone(&memory)));
        App { store, memory, handlers }
    }

    /// An MCP server over this instance (one per stdio connection or HTTP session).
    pub fn server(&self) -> DocketServer<Handlers> {
        self.server_with_style(ToolStyle::Granular)
    }

    /// An MCP server publishing the tools of `style` (granular or consolidated).
    pub fn server_with_style(&self, style: ToolStyle) -> DocketServer<Handlers> {
        DocketServer::with_style(Arc::clone(&self.handlers), Arc::clone(&self.store), Arc::clone(&self.memory), style)
    }
}
