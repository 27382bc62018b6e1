//! How the server is reached: stdio (the default) or Streamable HTTP. Both serve the same
//! [`App`]; both stop cleanly on SIGINT/SIGTERM, and stdio also on end of input.

mod guards;
pub mod http;
pub(crate) mod listen;

use crate::app::App;

/// Who an HTTP surface answers (the MCP endpoint and the web board share these lists).
#[derive(Debug, Clone, Default)]
pub struct Access {
    /// Accepted `Host` names; an entry without a port accepts any port.
    pub hosts: Vec<String>,
    /// Accepted browser origins for reads, e.g. `http://localhost:*`.
    pub origins: Vec<String>,
    /// Origins other than the board's own that may also write (`--allow-origin`).
    pub write_origins: Vec<String>,
    /// The token a browser presents once (`/?token=`) or a client on every request (bearer).
    pub token: Option<String>,
}

/// Serves `app` over stdin/stdout (the toolkit's guarded stdio transport) until the client
/// closes stdin or a signal arrives.
pub async fn serve_stdio(app: App) -> Result<(), String> {
    app.server().serve_stdio_until(shutdown_signal()).await
}

/// Resolves on SIGINT (Ctrl-C) or SIGTERM. The handlers are installed when this is called (in
/// a runtime), not when first polled: a signal sent right after the server announces itself
/// must not kill it uncleanly.
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let signals = signal(SignalKind::interrupt()).and_then(|i| Ok((i, signal(SignalKind::terminate())?)));
        async move {
            match signals {
                Ok((mut interrupt, mut terminate)) => {
                    tokio::select! { _ = interrupt.recv() => {}, _ = terminate.recv() => {} }
                }
                Err(_) => tokio::signal::ctrl_c().await.unwrap_or(()),
            }
        }
    }
    #[cfg(not(unix))]
    async {
        tokio::signal::ctrl_c().await.unwrap_or(());
    }
}
