//! Shared helpers: start the real `docket` binary and talk to it over its stdio pipe.
#![allow(dead_code)]

use std::path::Path;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

pub type Client = RunningService<RoleClient, ()>;

/// A fresh `.docket/` workspace in a temporary directory.
pub fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    docket::store::Workspace::init(dir.path()).expect("init workspace");
    dir
}

/// `docket serve --workspace DIR`, spawned as a child process, with an rmcp client on its pipe.
pub async fn start(workspace: &Path) -> Client {
    start_with_env(workspace, &[]).await
}

/// Like [`start`], with extra environment variables for the server.
pub async fn start_with_env(workspace: &Path, env: &[(&str, &str)]) -> Client {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_docket"));
    cmd.arg("serve").arg("--workspace").arg(workspace).env_remove("DOCKET_WORKSPACE").env_remove("DOCKET_TOOL_STYLE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let transport = TokioChildProcess::new(cmd).expect("spawn docket");
    ().serve(transport).await.expect("initialize")
}

/// Calls `tool` with JSON `args` (an object).
pub async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let args = args.as_object().cloned().expect("arguments are an object");
    client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
        .await
        .expect("tools/call answered")
}

/// The text of the first content block.
pub fn text(result: &CallToolResult) -> String {
    result.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default()
}

pub fn is_error(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
}

pub fn structured(result: &CallToolResult) -> Value {
    result.structured_content.clone().unwrap_or(Value::Null)
}
