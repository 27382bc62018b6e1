//! How the server is reached: stdio (the default) or Streamable HTTP. Both serve the same
//! [`App`]; both stop cleanly on SIGINT/SIGTERM, and stdio also on end of input.

pub mod http;
mod jsonrpc;
pub mod stdio;

use crate::app::App;
use rmcp::ServiceExt;

/// Serves `app` over stdin/stdout until the client closes stdin or a signal arrives.
pub async fn serve_stdio(app: App) -> Result<(), String> {
    let transport = stdio::LineTransport::new(tokio::io::stdin(), tokio::io::stdout());
    let running = app.server().serve(transport).await.map_err(|e| format!("MCP handshake failed: {e}"))?;
    let cancel = running.cancellation_token();
    tokio::select! {
        quit = running.waiting() => { quit.map_err(|e| format!("server stopped: {e}"))?; }
        _ = shutdown_signal() => { cancel.cancel(); }
    }
    Ok(())
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(s) => s,
            Err(_) => return ctrl_c.await.unwrap_or(()),
        };
        tokio::select! { _ = ctrl_c => {}, _ = term.recv() => {} }
    }
    #[cfg(not(unix))]
    ctrl_c.await.unwrap_or(());
}
