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
    let ws = Workspace::resolve(options.workspace.as_deref())
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

/// Hands `url` to the desktop's opener; a failure is reported, not fatal (the URL is printed).
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    match std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        Ok(_) => {}
        Err(e) => eprintln!("docket: could not open a browser ({opener}: {e}); open the URL above yourself"),
    }
}
