//! The one call path of a generated tool set, whoever makes the call (an MCP session over stdio
//! or HTTP, or a server's own front ends): a [`CallObserver`] hears of each call before its
//! handler runs and after, may add warnings to it, and may refuse a call that writes. A memory of
//! failed calls ("this call failed the same way before") or announcements of writes to
//! subscribed sessions are observers.

use std::future::Future;

use serde_json::{Map, Value};

use crate::{ToolError, ToolResult, ToolSpec, Warning};

/// Watches every call [`run`] makes. `before` sees the arguments before the handler takes them
/// and hands `after` whatever it needs of them ([`CallObserver::Pending`]); both may return
/// warnings, which go into the result's `_meta.warnings` ahead of the handler's own.
pub trait CallObserver: Send + Sync {
    /// What `before` keeps for `after` of the same call.
    type Pending: Send;

    /// Before the handler runs.
    fn before(
        &self,
        spec: &'static ToolSpec,
        args: &Map<String, Value>,
    ) -> impl Future<Output = (Self::Pending, Vec<Warning>)> + Send;

    /// Refuses a call of `spec` that would write ([`ToolSpec::writes`]), asked after `before` and
    /// instead of the dispatch: a server that does not write (a read-only one) returns its error.
    /// Writes are allowed by default.
    fn refuse_write(&self, spec: &'static ToolSpec) -> Option<ToolError> {
        let _ = spec;
        None
    }

    /// After the handler ran, with its result (the reply or the tool error).
    fn after(
        &self,
        spec: &'static ToolSpec,
        pending: Self::Pending,
        result: &ToolResult<Value>,
    ) -> impl Future<Output = Vec<Warning>> + Send;

    /// The server's own `_meta` entries for a result the MCP server answers (docket: its index
    /// state), put after `timestamp`; asked once per answer, refused calls included.
    fn meta(&self) -> Map<String, Value> {
        Map::new()
    }
}

/// No observer: the calls run and nothing else happens.
impl CallObserver for () {
    type Pending = ();

    async fn before(&self, _: &'static ToolSpec, _: &Map<String, Value>) -> ((), Vec<Warning>) {
        ((), Vec::new())
    }

    async fn after(&self, _: &'static ToolSpec, _: (), _: &ToolResult<Value>) -> Vec<Warning> {
        Vec::new()
    }
}

/// What a call gave: the handler's reply or error, and the observer's warnings about the call.
#[derive(Debug)]
pub struct Called {
    /// The reply (its own warnings inside) or the tool error.
    pub result: ToolResult<Value>,
    /// The observer's warnings, in the order it gave them.
    pub warnings: Vec<Warning>,
}

/// Runs one call of `spec`: the observer's `before`, then `dispatch` with the arguments (the
/// generated dispatch to the handler) unless the observer refuses the call's write, then the
/// observer's `after`.
pub async fn run<O, F>(
    observer: &O,
    spec: &'static ToolSpec,
    args: Map<String, Value>,
    dispatch: impl FnOnce(Map<String, Value>) -> F,
) -> Called
where
    O: CallObserver,
    F: Future<Output = ToolResult<Value>>,
{
    let (pending, mut warnings) = observer.before(spec, &args).await;
    let refused = if spec.writes(&args) { observer.refuse_write(spec) } else { None };
    let result = match refused {
        Some(e) => Err(e),
        None => dispatch(args).await,
    };
    warnings.extend(observer.after(spec, pending, &result).await);
    Called { result, warnings }
}
