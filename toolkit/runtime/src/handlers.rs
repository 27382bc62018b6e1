//! What codegen's `handler_functions` setting builds on: a server whose tools are plain
//! functions of a handler context (`fn(&H, Input) -> ToolResult<Output>`) gets a generated
//! `ToolHandlers` impl that refuses writes on a read-only server and runs each function on
//! tokio's blocking pool, through [`refuse_if_read_only`] and [`run`].

use crate::{ToolError, ToolResult};

/// The handler context of a server with handler functions: what the generated impl asks of it.
pub trait HandlerContext: Clone + Send + Sync + 'static {
    /// Whether writes are refused before their handler runs (a read-only server).
    fn read_only(&self) -> bool;

    /// The error for a write refused because the server is read-only.
    fn refused(&self, tool: &str) -> ToolError;

    /// The error for a handler that panicked or was cancelled; `why` says which.
    fn stopped(&self, why: String) -> ToolError;
}

/// Refuses a call of `tool` that writes when `cx` is read-only.
pub fn refuse_if_read_only<H: HandlerContext>(cx: &H, tool: &str) -> Result<(), ToolError> {
    if cx.read_only() { Err(cx.refused(tool)) } else { Ok(()) }
}

/// Runs a handler function on tokio's blocking pool, off the async worker threads (its work,
/// store or file I/O, blocks); a panic becomes `cx`'s [`HandlerContext::stopped`] error.
pub async fn run<H: HandlerContext, T: Send + 'static>(
    cx: &H,
    work: impl FnOnce(&H) -> ToolResult<T> + Send + 'static,
) -> ToolResult<T> {
    let (worker, caller) = (cx.clone(), cx.clone());
    tokio::task::spawn_blocking(move || work(&worker)).await.unwrap_or_else(|e| Err(caller.stopped(e.to_string())))
}
