//! Shared helpers: start the real `docket` binary and talk to it over its stdio pipe.
#![allow(dead_code)]

pub mod abuse;
#[path = "../../store/tests/common/fixture.rs"]
pub mod fixture;
pub mod many;
/// The generated wrangler workspace lives with the store's tests, which run on it too.
#[path = "../../store/tests/common/quirky.rs"]
pub mod quirky;
pub mod samples;
pub mod wrangler;

use std::path::Path;

use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

pub mod http;

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

/// Every file under `dir` except the `cache/` folder (the error memory and the index lock
/// legitimately change on failed calls): relative path -> bytes, in path order.
pub fn snapshot(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            if rel == "cache" || rel.ends_with("/cache") {
                continue;
            }
            if path.is_dir() {
                // Directories count too (an empty directory created by a rejected call is a change).
                out.insert(format!("{rel}/"), Vec::new());
                walk(root, &path, out);
            } else {
                out.insert(rel, std::fs::read(&path).unwrap_or_else(|e| format!("<unreadable: {e}>").into_bytes()));
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// FNV-1a 64 over every path and its bytes in [`snapshot`]: one number for the whole workspace.
pub fn checksum(dir: &Path) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (path, bytes) in snapshot(dir) {
        for b in path.as_bytes().iter().chain([0u8].iter()).chain(bytes.iter()).chain([0xffu8].iter()) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// What differs between two snapshots (for failure messages).
pub fn snapshot_diff(
    before: &std::collections::BTreeMap<String, Vec<u8>>,
    after: &std::collections::BTreeMap<String, Vec<u8>>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (k, v) in before {
        match after.get(k) {
            None => out.push(format!("removed {k}")),
            Some(w) if w != v => out.push(format!("changed {k}")),
            _ => {}
        }
    }
    out.extend(after.keys().filter(|k| !before.contains_key(*k)).map(|k| format!("added {k}")));
    out
}

/// `docket serve` as a raw child process speaking newline-delimited JSON-RPC on its pipes, for
/// bytes no well-behaved client would send. A reader thread collects stdout lines.
pub struct RawServer {
    pub child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<Vec<u8>>,
}

impl RawServer {
    pub fn spawn(workspace: &Path) -> RawServer {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_docket"));
        command.arg("serve").arg("--workspace").arg(workspace).env_remove("DOCKET_WORKSPACE");
        RawServer::spawn_command(command)
    }

    /// Any stdio MCP server (`command` with its arguments and environment), its pipes as above.
    pub fn spawn_command(mut command: std::process::Command) -> RawServer {
        use std::process::Stdio;
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the server");
        let stdin = child.stdin.take();
        let mut stdout = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            loop {
                let mut line = Vec::new();
                match stdout.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        RawServer { child, stdin, lines }
    }

    /// Writes `bytes` and a newline; false if the pipe is closed (the server is gone).
    pub fn send_bytes(&mut self, bytes: &[u8]) -> bool {
        use std::io::Write;
        let Some(stdin) = self.stdin.as_mut() else { return false };
        stdin.write_all(bytes).and_then(|_| stdin.write_all(b"\n")).and_then(|_| stdin.flush()).is_ok()
    }

    pub fn send(&mut self, message: &Value) -> bool {
        self.send_bytes(message.to_string().as_bytes())
    }

    /// The next stdout line as JSON (panics on anything else: stdout carries only JSON-RPC).
    pub fn recv(&self, timeout: std::time::Duration) -> Option<Value> {
        let line = self.lines.recv_timeout(timeout).ok()?;
        Some(
            serde_json::from_slice(&line).unwrap_or_else(|e| {
                panic!("stdout carries only JSON-RPC, got {:?}: {e}", String::from_utf8_lossy(&line))
            }),
        )
    }

    /// Every message up to the response with `id` (which is last); `None` on timeout.
    pub fn recv_until(&self, id: &Value, timeout: std::time::Duration) -> Option<Vec<Value>> {
        let deadline = std::time::Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.checked_duration_since(std::time::Instant::now())?;
            let msg = self.recv(left)?;
            let done = msg.get("id") == Some(id) && (msg.get("result").is_some() || msg.get("error").is_some());
            seen.push(msg);
            if done {
                return Some(seen);
            }
        }
    }

    /// Sends a request and waits (up to 30 s) for its response.
    pub fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        assert!(self.send(&serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})));
        let mut seen = self
            .recv_until(&serde_json::json!(id), std::time::Duration::from_secs(30))
            .unwrap_or_else(|| panic!("no answer to {method} (id {id}) within 30 s"));
        seen.pop().expect("the response")
    }

    /// The MCP handshake; returns the initialize result.
    pub fn initialize(&mut self) -> Value {
        let init = self.request(
            0,
            "initialize",
            serde_json::json!({"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"}}),
        );
        assert!(self.send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"})));
        init
    }

    /// SIGKILL on Unix: no destructors, no flushing, no cleanup.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Closes stdin and waits for the exit status.
    pub fn close(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().expect("wait for docket")
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// How many tools tools.yaml declares (tests compare tools/list with the manifest, never with a
/// number kept by hand).
pub fn manifest_tool_count() -> usize {
    samples::manifest().tools.len()
}

/// The issues of an issues_list or issues_search page as records: `issues` when the page carries
/// records (format full, `fields`), else its `rows` read back (`ISS-000042 open high Title
/// (labels: a, b; updated 2026-02-17)`: ID, status, priority in summary rows, title, then the
/// labels and date in a closing parenthesis).
pub fn page_records(page: &Value) -> Vec<Value> {
    if let Some(issues) = page.get("issues").and_then(Value::as_array) {
        return issues.clone();
    }
    const PRIORITIES: [&str; 4] = ["low", "medium", "high", "critical"];
    let rows = page["rows"].as_array().unwrap_or_else(|| panic!("a page has issues or rows: {page}"));
    rows.iter()
        .map(|row| {
            let row = row.as_str().expect("a row is a line");
            let (id, rest) = row.split_once(' ').expect("ID and status");
            let (status, mut rest) = rest.split_once(' ').unwrap_or((rest, ""));
            let mut record = serde_json::json!({"id": id, "status": status});
            if let Some((p, r)) = rest.split_once(' ').filter(|(p, _)| PRIORITIES.contains(p)) {
                record["priority"] = Value::from(p);
                rest = r;
            }
            let (title, extras) = match rest.rfind(" (").filter(|_| rest.ends_with(')')) {
                Some(at) if rest[at..].contains("updated ") || rest[at..].contains("labels: ") => {
                    (&rest[..at], &rest[at + 2..rest.len() - 1])
                }
                _ => (rest, ""),
            };
            record["title"] = Value::from(title);
            for part in extras.split("; ") {
                if let Some(labels) = part.strip_prefix("labels: ") {
                    record["labels"] = labels.split(", ").collect::<Vec<_>>().into();
                }
            }
            record
        })
        .collect()
}

/// `cmd` (the docket binary, or a wrapper that execs it) made to serve the workspace at `root`:
/// `--workspace ROOT`, run in ROOT, without the caller's workspace variables or git config.
pub fn in_workspace<'a>(cmd: &'a mut std::process::Command, root: &Path) -> &'a mut std::process::Command {
    cmd.arg("--workspace")
        .arg(root)
        .current_dir(root)
        .env_remove("DOCKET_WORKSPACE")
        .env_remove("WRANGLER_WORKSPACE_ROOT")
        .env_remove("DOCKET_BRANCH_AWARE_IDS")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
}

/// `docket ARGS --workspace ROOT` ([`in_workspace`]) to its end.
pub fn docket(root: &Path, args: &[&str]) -> std::process::Output {
    in_workspace(std::process::Command::new(env!("CARGO_BIN_EXE_docket")).args(args), root)
        .output()
        .expect("docket runs")
}

/// `git -C dir`, isolated from the user's and the system's git config, with a fixed identity.
pub fn git_command(dir: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new("git");
    cmd.arg("-C")
        .arg(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Tester")
        .env("GIT_AUTHOR_EMAIL", "tester@example.invalid")
        .env("GIT_COMMITTER_NAME", "Tester")
        .env("GIT_COMMITTER_EMAIL", "tester@example.invalid");
    cmd
}

/// `git ARGS` in `dir` ([`git_command`]); must succeed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_command(dir).args(args).output().expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?} in {} failed: {}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `git ARGS` that must succeed; stdout and stderr together (hooks print to stderr).
pub fn git_all(dir: &Path, args: &[&str]) -> String {
    let o = git_command(dir).args(args).output().expect("git runs");
    let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "git {args:?} in {} failed: {all}", dir.display());
    all
}

/// Every child's parentTaskId names the parent its title says (`... of TITLE`); how many
/// children there are (the teams and merge-hook tests title their issues so).
pub fn assert_parents_intact(issues: &[Value]) -> usize {
    let by_id: std::collections::BTreeMap<&str, &Value> =
        issues.iter().map(|i| (i["id"].as_str().expect("id"), i)).collect();
    let mut children = 0;
    for issue in issues {
        let title = issue["title"].as_str().expect("title");
        if let Some((_, parent_title)) = title.split_once(" of ") {
            let parent_id = issue["wranglerContext"]["parentTaskId"].as_str().expect("a parent");
            let parent = by_id.get(parent_id).unwrap_or_else(|| panic!("{title}: parent {parent_id} missing"));
            assert_eq!(parent["title"], parent_title, "{title} points at {parent_id}");
            children += 1;
        }
    }
    children
}

/// The smallest value a tool's argument rules accept for `kind`.
pub fn smallest_valid(kind: &docket::runtime::args::Kind) -> Value {
    use docket::runtime::args::Kind;
    match kind {
        Kind::String { min_len, .. } => serde_json::json!("x".repeat(min_len.unwrap_or(1).max(1) as usize)),
        Kind::Enum(values) => serde_json::json!(values[0]),
        Kind::Integer { min, .. } => serde_json::json!(min.unwrap_or(1).max(1)),
        Kind::Number { min, .. } => serde_json::json!(min.unwrap_or(1.0).max(1.0)),
        Kind::Boolean => serde_json::json!(false),
        Kind::Any => serde_json::json!("x"),
        Kind::Map => serde_json::json!({}),
        Kind::Array { items, min_items, .. } => {
            serde_json::json!(vec![smallest_valid(items); min_items.unwrap_or(0) as usize])
        }
        Kind::Object { fields, .. } => required_only(fields),
    }
}

/// The smallest arguments `rules` accept: each required parameter with its smallest value.
pub fn required_only(rules: &[docket::runtime::args::ParamRule]) -> Value {
    Value::Object(rules.iter().filter(|r| r.required).map(|r| (r.name.to_string(), smallest_valid(&r.kind))).collect())
}
