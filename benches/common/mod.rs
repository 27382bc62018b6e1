//! What the stdio benches share: an MCP client speaking newline-delimited JSON-RPC to a server
//! child over its stdio pipe, and o200k_base token counts of what a model sees of a result.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// One MCP server child (`docket serve`, or another server for comparison) and the JSON-RPC
/// conversation with it.
pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

/// A tool call's result and its timings.
pub struct Call {
    pub result: Value,
    pub client_ms: f64,
    pub server_ms: Option<f64>,
}

impl Server {
    /// Spawns `docket serve --workspace WORKSPACE` and completes the handshake; returns it with the
    /// time from spawn to the initialize response.
    pub fn start(bin: &Path, workspace: &Path) -> (Server, f64) {
        let mut command = Command::new(bin);
        command.args(["serve", "--workspace"]).arg(workspace);
        Server::spawn(command)
    }

    /// Spawns any MCP server command over stdio and completes the handshake.
    pub fn spawn(mut command: Command) -> (Server, f64) {
        let t = Instant::now();
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut server = Server { child, stdin, stdout, next_id: 0 };
        let init = server.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "stdio-bench", "version": "0"}}),
        );
        let startup_ms = ms(t.elapsed());
        assert!(init.get("result").is_some(), "initialize failed: {init}");
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        (server, startup_ms)
    }

    pub fn send(&mut self, msg: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        let mut line = serde_json::to_vec(msg).expect("json");
        line.push(b'\n');
        stdin.write_all(&line).and_then(|()| stdin.flush()).expect("write to the server");
    }

    /// Sends a request and returns the response with the same id (skipping notifications).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        loop {
            line.clear();
            let n = self.stdout.read_line(&mut line).expect("read from the server");
            assert!(n > 0, "the server closed stdout while {method} was pending");
            let reply: Value = serde_json::from_str(&line).expect("a JSON-RPC line");
            if reply.get("id") == Some(&json!(id)) {
                return reply;
            }
        }
    }

    pub fn call(&mut self, tool: &str, arguments: Value) -> Call {
        let t = Instant::now();
        let reply = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        let client_ms = ms(t.elapsed());
        let result = reply.get("result").cloned().unwrap_or_else(|| panic!("{tool} failed: {reply}"));
        assert_ne!(result["isError"], json!(true), "{tool} returned an error: {result}");
        let server_ms = result["_meta"]["duration_ms"].as_f64();
        Call { result, client_ms, server_ms }
    }

    /// (VmRSS, VmHWM) in MB from /proc/PID/status.
    pub fn memory_mb(&self) -> (f64, f64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find(|l| l.starts_with(name))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<f64>().ok())
                .map_or(f64::NAN, |kb| kb / 1024.0)
        };
        (field("VmRSS:"), field("VmHWM:"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        drop(self.stdin.take()); // EOF: the server saves its index snapshot and exits
        for _ in 0..3000 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

pub fn tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton().encode_ordinary(text).len()
}

/// Tokens of the text blocks of a tool result (what a client shows the model).
pub fn text_tokens(result: &Value) -> usize {
    let text: Vec<&str> = result["content"]
        .as_array()
        .map(|blocks| blocks.iter().filter_map(|b| b["text"].as_str()).collect())
        .unwrap_or_default();
    tokens(&text.join("\n"))
}

pub fn structured_tokens(result: &Value) -> usize {
    tokens(&result["structuredContent"].to_string())
}
