//! `docket serve --http` and `docket web` as child processes on 127.0.0.1:0, for the tests that
//! speak HTTP (tests/web/http.rs, tests/web/board.rs, the browser tests).

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
    dir: tempfile::TempDir,
}

impl HttpServer {
    pub fn start(extra: &[&str]) -> HttpServer {
        Self::start_on("127.0.0.1:0", extra)
    }

    /// Serves a fresh workspace at `listen` with `extra` arguments.
    pub fn start_on(listen: &str, extra: &[&str]) -> HttpServer {
        Self::spawn(Command::new(env!("CARGO_BIN_EXE_docket")), super::workspace(), listen, extra)
    }

    /// Serves the workspace in `dir` (a generated one, say) on 127.0.0.1:0 with `extra` arguments.
    pub fn start_in(dir: tempfile::TempDir, extra: &[&str]) -> HttpServer {
        Self::spawn(Command::new(env!("CARGO_BIN_EXE_docket")), dir, "127.0.0.1:0", extra)
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
        Some(Self::spawn(command, super::workspace(), "127.0.0.1:0", extra))
    }

    fn spawn(mut command: Command, dir: tempfile::TempDir, listen: &str, extra: &[&str]) -> HttpServer {
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
        HttpServer { child, url, stderr, dir }
    }

    /// The served workspace's root.
    pub fn dir(&self) -> &std::path::Path {
        self.dir.path()
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

    /// Waits (up to `within`) for a stderr line holding `needle`; whether one came.
    pub fn wait_for_log(&self, needle: &str, within: std::time::Duration) -> bool {
        let deadline = std::time::Instant::now() + within;
        loop {
            if self.stderr.lock().unwrap().iter().any(|l| l.contains(needle)) {
                return true;
            }
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A running `docket web --workspace ROOT ARGS`; killed on drop.
pub struct WebBoard {
    pub child: Child,
    /// The URL it printed (with `?token=` when it has one).
    pub url: String,
}

impl WebBoard {
    pub fn start(root: &std::path::Path, extra: &[&str]) -> WebBoard {
        let mut child = Command::new(env!("CARGO_BIN_EXE_docket"))
            .args(["web", "--workspace"])
            .arg(root)
            .args(extra)
            .env_remove("DOCKET_TOKEN")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn docket web");
        let mut lines = BufReader::new(child.stdout.take().expect("stdout piped")).lines();
        let line = lines.next().expect("docket web prints its URL").expect("UTF-8");
        let url = line[line.find("http://").expect("a URL")..].trim().to_string();
        std::thread::spawn(move || lines.for_each(drop));
        WebBoard { child, url }
    }

    /// `http://127.0.0.1:PORT`, without path or query.
    pub fn origin(&self) -> String {
        origin(&self.url)
    }
}

impl Drop for WebBoard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `http://host:port` of a URL.
pub fn origin(url: &str) -> String {
    let end = url[7..].find('/').map_or(url.len(), |i| i + 7);
    url[..end].to_string()
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
