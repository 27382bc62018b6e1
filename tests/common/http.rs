//! `docket serve --http` as a child process on 127.0.0.1:0, for tests that speak HTTP.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceExt, service::RunningService};
use serde_json::{Value, json};

/// A running `docket serve --http 127.0.0.1:0`; killed on drop.
pub struct HttpServer {
    pub child: Child,
    pub url: String,
    /// Every stderr line so far (the server's logs).
    pub stderr: Arc<Mutex<Vec<String>>>,
    _dir: tempfile::TempDir,
}

impl HttpServer {
    pub fn start(extra: &[&str]) -> HttpServer {
        Self::start_on("127.0.0.1:0", extra)
    }

    /// Serves a fresh workspace at `listen` with `extra` arguments.
    pub fn start_on(listen: &str, extra: &[&str]) -> HttpServer {
        Self::spawn(Command::new(env!("CARGO_BIN_EXE_docket")), listen, extra)
    }

    /// Like [`HttpServer::start`], with at most `fds` open file descriptors (`prlimit`), as on
    /// a system with the usual soft limit of 1,024. `None` where prlimit is missing.
    pub fn start_with_fd_limit(fds: u32, extra: &[&str]) -> Option<HttpServer> {
        let probe = Command::new("prlimit").arg("--version").stdout(Stdio::null()).status();
        if !probe.is_ok_and(|s| s.success()) {
            return None;
        }
        let mut command = Command::new("prlimit");
        command.arg(format!("--nofile={fds}")).arg(env!("CARGO_BIN_EXE_docket"));
        Some(Self::spawn(command, "127.0.0.1:0", extra))
    }

    fn spawn(mut command: Command, listen: &str, extra: &[&str]) -> HttpServer {
        let dir = super::workspace();
        let mut child = command
            .args(["serve", "--workspace"])
            .arg(dir.path())
            .args(["--http", listen])
            .args(extra)
            .env_remove("DOCKET_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn docket serve --http");
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut lines = BufReader::new(child.stderr.take().expect("stderr piped")).lines();
        let url = loop {
            let Some(Ok(line)) = lines.next() else {
                let seen = stderr.lock().unwrap().join("\n");
                panic!("the server stopped before announcing its URL: {seen}");
            };
            stderr.lock().unwrap().push(line.clone());
            if let Some(at) = line.find("http://") {
                break line[at..].trim().to_string();
            }
        };
        // Keep draining stderr so the server never blocks on a full pipe.
        let sink = Arc::clone(&stderr);
        std::thread::spawn(move || lines.map_while(Result::ok).for_each(|l| sink.lock().unwrap().push(l)));
        HttpServer { child, url, stderr, _dir: dir }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `host:port` of the server.
    pub fn authority(&self) -> String {
        self.url.trim_start_matches("http://").trim_end_matches("/mcp").to_string()
    }

    pub async fn client(&self, token: Option<&str>) -> RunningService<RoleClient, ()> {
        let mut config = StreamableHttpClientTransportConfig::with_uri(self.url.as_str());
        config.auth_header = token.map(str::to_string);
        ().serve(StreamableHttpClientTransport::from_config(config)).await.expect("initialize over HTTP")
    }

    pub fn logs(&self) -> String {
        self.stderr.lock().unwrap().join("\n")
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn initialize_body() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}})
}

/// A POST to `url` with the headers a Streamable HTTP client sends.
pub fn post(url: &str) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
}

/// The resident set size of process `pid` in bytes (Linux: VmRSS of /proc/PID/status).
pub fn rss_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("read /proc/PID/status");
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/PID/status");
    kb * 1024
}

/// How many file descriptors process `pid` holds open.
pub fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count()).unwrap_or(0)
}
