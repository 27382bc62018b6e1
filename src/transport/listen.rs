//! The HTTP accept loop: at most [`MAX_CONNECTIONS`] open connections (the rest wait in the
//! listen backlog, so descriptors are never exhausted) and a deadline for each request's
//! headers, so half-sent requests do not hold a connection forever (`axum::serve` has neither).
//! Accepted sockets have Nagle's algorithm off ([`prepare`]): hyper writes each response's head
//! and body with one vectored write, and without `TCP_NODELAY` a reply that spans two segments
//! (or a board stream's small event after a previous one) could wait ~40 ms for the client's
//! delayed ACK.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// Connections served at once, well below the usual 1,024 descriptor limit.
pub const MAX_CONNECTIONS: usize = 512;
/// How long open connections may take to finish after shutdown begins.
const DRAIN: Duration = Duration::from_secs(5);

/// Serves `router` on `listener` until `shutdown` resolves, then lets open connections finish
/// (up to a few seconds). `header_timeout` bounds how long a request's head may take to arrive,
/// and how long an idle keep-alive connection stays open.
pub async fn serve(
    listener: TcpListener,
    router: axum::Router,
    header_timeout: Duration,
    shutdown: impl Future<Output = ()>,
) {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    let mut warned_full = false;
    loop {
        let slot = tokio::select! {
            slot = Arc::clone(&slots).acquire_owned() => slot.expect("the semaphore is never closed"),
            _ = &mut shutdown => break,
        };
        if slots.available_permits() == 0 && !warned_full {
            warned_full = true;
            tracing::warn!(MAX_CONNECTIONS, "HTTP connection limit reached; new connections wait until one closes");
        }
        let (stream, _peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // EMFILE and the like: back off instead of spinning.
                    tracing::warn!(error = %e, "could not accept an HTTP connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        prepare(&stream);
        let mut builder = http1::Builder::new();
        builder.timer(TokioTimer::new()).header_read_timeout(header_timeout);
        let connection = builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(router.clone()));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "HTTP connection ended with an error");
            }
            drop(slot);
        });
    }
    drop(listener);
    if tokio::time::timeout(DRAIN, graceful.shutdown()).await.is_err() {
        tracing::debug!("some HTTP connections were still open at exit");
    }
}

/// Sets up an accepted connection: `TCP_NODELAY`, so small replies and stream events go out at
/// once instead of waiting for the peer's delayed ACK.
fn prepare(stream: &tokio::net::TcpStream) {
    if let Err(e) = stream.set_nodelay(true) {
        tracing::debug!(error = %e, "could not set TCP_NODELAY on an HTTP connection");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn accepted_connections_have_nagle_off() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let client = tokio::net::TcpStream::connect(addr);
        let (accepted, client) = tokio::join!(listener.accept(), client);
        let (stream, _) = accepted.expect("accept");
        let _client = client.expect("connect");
        assert!(!stream.nodelay().expect("nodelay"), "the default is Nagle on");
        prepare(&stream);
        assert!(stream.nodelay().expect("nodelay"));
    }
}
