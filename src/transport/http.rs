//! MCP Streamable HTTP at `/mcp`, on rmcp's tower service: loopback by default, `Host` and
//! `Origin` checked against allow-lists (DNS-rebinding protection), and an optional bearer
//! token compared in constant time.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use subtle::ConstantTimeEq;
use tokio_util::sync::CancellationToken;

use super::{guards, listen};
use crate::app::App;

/// The path the MCP endpoint is served at.
pub const ENDPOINT: &str = "/mcp";

const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "::1", "[::1]"];
const LOOPBACK_ORIGINS: &[&str] = &["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/// How to serve HTTP.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub addr: SocketAddr,
    /// Bearer token every request must carry, if set.
    pub token: Option<String>,
    /// Extra `Host` values to accept (beyond loopback and the bound host).
    pub allowed_hosts: Vec<String>,
    /// Extra browser origins to accept (beyond loopback), e.g. `https://app.example.com:443`.
    pub allowed_origins: Vec<String>,
    /// Serve beyond loopback without a token (a trusted network).
    pub allow_unauthenticated_network: bool,
    /// Sessions open at once; initialize beyond this is refused with 503.
    pub max_sessions: usize,
    /// A session with no request for this long is ended.
    pub session_idle: Duration,
    /// How long a request's headers may take to arrive.
    pub header_timeout: Duration,
}

impl HttpOptions {
    pub const DEFAULT_MAX_SESSIONS: u32 = 64;
    pub const DEFAULT_SESSION_IDLE: Duration = Duration::from_secs(120);
    pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(10);

    /// Loopback-safe defaults for serving at `addr`.
    pub fn new(addr: SocketAddr) -> HttpOptions {
        HttpOptions {
            addr,
            token: None,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            allow_unauthenticated_network: false,
            max_sessions: Self::DEFAULT_MAX_SESSIONS as usize,
            session_idle: Self::DEFAULT_SESSION_IDLE,
            header_timeout: Self::DEFAULT_HEADER_TIMEOUT,
        }
    }

    /// Refuses to listen beyond loopback without a token unless explicitly allowed: any
    /// machine that reaches the port could otherwise read and change the workspace (a `Host:
    /// localhost` header passes the DNS-rebinding check).
    fn check(&self) -> Result<(), String> {
        if self.addr.ip().is_loopback() || self.token.is_some() || self.allow_unauthenticated_network {
            return Ok(());
        }
        Err(format!(
            "--http {} listens beyond loopback without a token: anyone who can reach port {} could read and change this workspace. Set --token TOKEN (or DOCKET_TOKEN) so that clients must send `Authorization: Bearer TOKEN`, or add --allow-unauthenticated-network if every machine on this network is trusted.",
            self.addr,
            self.addr.port()
        ))
    }
}

/// Parses `[HOST:]PORT`: a bare port binds 127.0.0.1; a host binds only when named explicitly.
pub fn parse_listen(spec: &str) -> Result<SocketAddr, String> {
    let bad =
        || format!("--http {spec}: expected PORT or HOST:PORT, e.g. --http 8080 (loopback) or --http 127.0.0.1:8080");
    if let Ok(port) = spec.parse::<u16>() {
        return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
    }
    if let Ok(addr) = spec.parse::<SocketAddr>() {
        return Ok(addr);
    }
    let (host, port) = spec.rsplit_once(':').ok_or_else(bad)?;
    let port: u16 = port.parse().map_err(|_| bad())?;
    match host {
        "localhost" => Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port)),
        _ => Err(format!("{}: the host must be an IP address or localhost", bad())),
    }
}

/// Builds the routes served beside the MCP endpoint, with the same access lists.
pub type Board = fn(App, super::Access, CancellationToken) -> axum::Router;

/// Serves `app` until `shutdown` resolves; then open sessions are closed and the listener stops.
/// `board` builds what is served at `/` besides MCP (the web board, `docket::web::router`).
pub async fn serve_http(
    app: App,
    options: HttpOptions,
    board: Board,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), String> {
    options.check()?;
    let listener = tokio::net::TcpListener::bind(options.addr)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}. Pick another port or stop what holds it.", options.addr))?;
    let local = listener.local_addr().map_err(|e| format!("cannot read the bound address: {e}"))?;
    let cancel = CancellationToken::new();
    let router = router(app, &options, board, local, cancel.child_token());
    if !local.ip().is_loopback() && options.token.is_none() {
        tracing::warn!(%local, "serving beyond loopback without a token (--allow-unauthenticated-network): anyone who can reach this port can read and change the workspace");
    }
    // Tests and scripts read the URL from this line (port 0 picks a free port).
    // One write: a script that stops the server as soon as it reads the URL finds it serving.
    eprintln!(
        "docket: serving MCP over Streamable HTTP at http://{local}{ENDPOINT}\ndocket: the web board is at http://{local}/"
    );
    listen::serve(listener, router, options.header_timeout, async move {
        shutdown.await;
        cancel.cancel();
    })
    .await;
    Ok(())
}

fn router(app: App, options: &HttpOptions, board: Board, local: SocketAddr, cancel: CancellationToken) -> axum::Router {
    let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|h| h.to_string()).collect();
    if !local.ip().is_unspecified() && !local.ip().is_loopback() {
        hosts.push(local.ip().to_string());
    }
    hosts.extend(options.allowed_hosts.iter().cloned());
    let origins: Vec<String> =
        LOOPBACK_ORIGINS.iter().map(|o| o.to_string()).chain(options.allowed_origins.iter().cloned()).collect();
    // The web board at `/`: the same allow-lists and token, its own checks.
    let access = super::Access {
        hosts: hosts.clone(),
        origins: origins.clone(),
        write_origins: options.allowed_origins.clone(),
        token: options.token.clone(),
    };
    let board = board(app.clone(), access, cancel.child_token());
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(cancel)
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .with_max_request_body_bytes(guards::MAX_BODY)
        .enforce_origin_validation();
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.keep_alive = Some(options.session_idle);
    let sessions = Arc::new(sessions);
    let cap = Arc::new(guards::SessionCap::new(Arc::clone(&sessions), options.max_sessions, options.session_idle));
    let service = StreamableHttpService::new(move || Ok(app.server()), sessions, config);
    // Layers run outside in: the token first, then the body, the session cap, Host/Origin.
    let router = axum::Router::new()
        .nest_service(ENDPOINT, service)
        .layer(axum::middleware::from_fn(guards::explain_refusal))
        .layer(axum::middleware::from_fn_with_state(cap, guards::cap_sessions))
        .layer(axum::middleware::from_fn(guards::json_errors));
    let router = match &options.token {
        Some(token) => {
            router.layer(axum::middleware::from_fn_with_state(Arc::new(token.clone().into_bytes()), require_bearer))
        }
        None => router,
    };
    router.merge(board)
}

/// Refuses a request unless it carries `Authorization: Bearer <token>`.
async fn require_bearer(State(token): State<Arc<Vec<u8>>>, request: Request, next: Next) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, t)| t.trim().as_bytes());
    match presented {
        Some(t) if bool::from(t.ct_eq(token.as_slice())) => next.run(request).await,
        found => {
            let what = if found.is_some() { "The bearer token is wrong" } else { "No bearer token was sent" };
            let body = format!(
                "{what}. This server requires `Authorization: Bearer <token>` with the token given to `docket serve --token` (or DOCKET_TOKEN); configure your MCP client to send that header."
            );
            let mut response = (StatusCode::UNAUTHORIZED, body).into_response();
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"docket\""));
            response
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_port_binds_loopback_and_a_host_is_taken_only_when_named() {
        assert_eq!(parse_listen("8080").unwrap(), "127.0.0.1:8080".parse().unwrap());
        assert_eq!(parse_listen("0.0.0.0:9000").unwrap(), "0.0.0.0:9000".parse().unwrap());
        assert_eq!(parse_listen("localhost:7").unwrap(), "127.0.0.1:7".parse().unwrap());
        assert_eq!(parse_listen("[::1]:7").unwrap(), "[::1]:7".parse().unwrap());
        let e = parse_listen("example.com:80").unwrap_err();
        assert!(e.contains("HOST:PORT") && e.contains("IP address"), "{e}");
        assert!(parse_listen("http").unwrap_err().contains("expected PORT or HOST:PORT"));
    }
}
