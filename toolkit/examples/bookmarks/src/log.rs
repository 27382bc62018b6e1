//! A call observer: one line on stderr per tool call, with its outcome and duration (stdout is
//! the MCP protocol's). The runtime calls it around every call, over stdio and HTTP alike.

use std::time::Instant;

use serde_json::{Map, Value};
use toolkit_runtime::call::CallObserver;
use toolkit_runtime::{ToolResult, ToolSpec, Warning};

/// Logs every call.
pub struct CallLog;

impl CallObserver for CallLog {
    type Pending = Instant;

    async fn before(&self, _: &'static ToolSpec, _: &Map<String, Value>) -> (Instant, Vec<Warning>) {
        (Instant::now(), Vec::new())
    }

    async fn after(&self, spec: &'static ToolSpec, started: Instant, result: &ToolResult<Value>) -> Vec<Warning> {
        let outcome = match result {
            Ok(_) => "ok",
            Err(e) => e.code.as_str(),
        };
        eprintln!("bookmarks: {} {outcome} in {} us", spec.name, started.elapsed().as_micros());
        Vec::new()
    }
}
