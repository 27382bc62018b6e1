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
use crate::runtime::ToolResult;
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

    /// What the generated dispatch calls before a tool call that writes.
    pub fn refuse_if_read_only(&self, tool: &str) -> Result<(), crate::runtime::ToolError> {
        if self.read_only { Err(errors::read_only(tool)) } else { Ok(()) }
    }

    /// Runs a handler off the async runtime's worker threads (its store work blocks).
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Handlers) -> ToolResult<T> + Send + 'static,
    ) -> ToolResult<T> {
        let cx = self.clone();
        crate::util::blocking(
            move || work(&cx),
            |e| errors::storage_failed(format!("the operation stopped unexpectedly ({e})")),
        )
        .await
    }
}
