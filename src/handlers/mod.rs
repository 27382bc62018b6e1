//! The handwritten side of the tool layer: one function per tool of tools.yaml (its `handler:`),
//! taking the [`Handlers`] context and the tool's typed input, returning its typed output. The
//! generated `impl ToolHandlers for Handlers` runs each on tokio's blocking pool.

pub(crate) mod aggregate;
pub(crate) mod attributes;
mod convert;
pub(crate) mod doctor;
pub(crate) mod issues;
pub(crate) mod memory;
mod paging;
mod reading;
mod records;
pub(crate) mod search;
pub(crate) mod session;
mod text;
pub(crate) mod work;
pub(crate) mod workspace;
pub(crate) mod write;

use std::sync::Arc;

use crate::config::ResponseLimits;
use crate::error_memory::ErrorMemory;
use crate::generated::*;
use crate::store::Store;

/// What every tool's handler works with: one store, one error memory, the response limits.
#[derive(Clone)]
pub struct Handlers {
    store: Arc<Store>,
    memory: Arc<ErrorMemory>,
    limits: ResponseLimits,
    /// `read_only` in the config: every write is refused before its handler runs.
    read_only: bool,
}

impl Handlers {
    pub fn new(store: Arc<Store>, memory: Arc<ErrorMemory>, limits: ResponseLimits, read_only: bool) -> Self {
        Handlers { store, memory, limits, read_only }
    }
}

/// What the generated `impl ToolHandlers for Handlers` asks of it: the runtime refuses writes of
/// a read-only server and runs each handler on the blocking pool (its store work blocks).
impl crate::runtime::handlers::HandlerContext for Handlers {
    fn read_only(&self) -> bool {
        self.read_only
    }

    fn refused(&self, tool: &str) -> crate::runtime::ToolError {
        errors::read_only(tool)
    }

    fn stopped(&self, why: String) -> crate::runtime::ToolError {
        errors::storage_failed(format!("the operation stopped unexpectedly ({why})"))
    }
}
