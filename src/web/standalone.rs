//! `docket web`: the board alone (no `/mcp`), on loopback, at a free port unless one is given.

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use tokio_util::sync::CancellationToken;

use super::Access;
use crate::app::App;
use crate::store::Workspace;

/// Loopback names the board answers to, and the browser origins it accepts.
pub const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "::1", "[::1]"];
pub const LOOPBACK_ORIGINS: &[&str] = &["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

#[derive(Debug, Clone, Default)]
pub struct WebOptions {
    pub workspace: Option<PathBuf>,
    /// 0 picks a free port.
    pub port: u16,
    /// Open the board in the default browser.
    pub open: bool,
    pub token: Option<String>,
}

/// Serves the board until SIGINT/SIGTERM. Prints the URL to open on stdout (with the token, so
/// it can be clicked once).
pub fn run(options: WebOptions) -> Result<(), String> {
    // Where `docket serve` starts, the board starts: with no workspace yet, the first write
    // creates `.wrangler/` in the folder wrangler's server would use.
    let ws = Workspace::resolve_or_pending(options.workspace.as_deref(), None)
        .map_err(|e| format!("{e}\nRun `docket init` in your repository or pass --workspace PATH."))?;
    let app = App::load(ws, &[]).map_err(|e| e.to_string())?;
    let runtime = tokio::runtime::Runtime::new().map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let outcome = runtime.block_on(serve(app, options));
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    outcome
}

async fn serve(app: App, options: WebOptions) -> Result<(), String> {
    let addr = SocketAddr::new(Ipv4Addr::LOCALHOST.into(), options.port);
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
        format!("cannot listen on {addr}: {e}. Pick another port with --port N, or leave it out for a free one.")
    })?;
    let local = listener.local_addr().map_err(|e| format!("cannot read the bound address: {e}"))?;
    let access = Access {
        hosts: LOOPBACK_HOSTS.iter().map(|h| h.to_string()).collect(),
        origins: LOOPBACK_ORIGINS.iter().map(|o| o.to_string()).collect(),
        write_origins: Vec::new(),
        token: options.token.clone(),
    };
    let cancel = CancellationToken::new();
    let router = super::router(app, access, cancel.clone());
    let url = match &options.token {
        Some(t) => format!("http://{local}/?{}", serde_urlencoded::to_string([("token", t)]).unwrap_or_default()),
        None => format!("http://{local}/"),
    };
    // Scripts and tests read this line.
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "docket: board at {url}").and_then(|()| out.flush());
    drop(out);
    eprintln!("docket: press Ctrl-C to stop");
    if options.open {
        open_browser(&url);
    }
    // The accept loop of `serve --http`: bounded connections, a deadline for request headers.
    let header_timeout = crate::transport::http::HttpOptions::DEFAULT_HEADER_TIMEOUT;
    crate::transport::listen::serve(listener, router, header_timeout, async move {
        crate::transport::shutdown_signal().await;
        cancel.cancel();
    })
    .await;
    Ok(())
}

/// Hands `url` to the desktop's opener. Without a display (over SSH, in a container) or when the
/// opener fails, says so in one line on stderr: the URL is printed above either way.
fn open_browser(url: &str) {
    if let Some(why) = no_display() {
        eprintln!("docket: --open: no browser to open ({why}); open {url} yourself");
        return;
    }
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    let spawned = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match spawned {
        // The opener returns once the browser has the URL; a failure is reported when it comes.
        Ok(mut child) => {
            let url = url.to_string();
            std::thread::spawn(move || match child.wait() {
                Ok(status) if !status.success() => {
                    eprintln!("docket: --open: {opener} could not open a browser ({status}); open {url} yourself")
                }
                _ => {}
            });
        }
        Err(e) => eprintln!("docket: --open: could not run {opener} ({e}); open {url} yourself"),
    }
}

/// Why no browser can be shown here, on systems whose browsers need a display server.
fn no_display() -> Option<&'static str> {
    if cfg!(any(target_os = "macos", windows)) {
        return None;
    }
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    (!set("DISPLAY") && !set("WAYLAND_DISPLAY")).then_some("no display: DISPLAY and WAYLAND_DISPLAY are not set")
}
