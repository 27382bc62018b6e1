//! HTTP middleware around rmcp's service: a cap on open sessions, JSON-RPC errors for bodies
//! that are not JSON or not a message (rmcp answers 415 with plain text), and refusals that
//! say which header was refused and how to allow it (rmcp answers a bare 403).

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::{ErrorCode, ErrorData, RequestId};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

use toolkit_runtime::server::jsonrpc;

/// The largest request body accepted (rmcp's default as well).
pub const MAX_BODY: usize = 4 * 1024 * 1024;

/// How many sessions may be open, and how long an idle one lives.
pub struct SessionCap {
    pub manager: Arc<LocalSessionManager>,
    pub max: usize,
    pub idle: Duration,
    /// New sessions are opened one at a time, so the count cannot be overtaken.
    opening: tokio::sync::Mutex<()>,
}

impl SessionCap {
    pub fn new(manager: Arc<LocalSessionManager>, max: usize, idle: Duration) -> SessionCap {
        SessionCap { manager, max, idle, opening: tokio::sync::Mutex::new(()) }
    }
}

/// Refuses a request that would open a session (a POST without `Mcp-Session-Id`) while
/// [`SessionCap::max`] sessions are open.
pub async fn cap_sessions(State(cap): State<Arc<SessionCap>>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST || request.headers().contains_key("mcp-session-id") {
        return next.run(request).await;
    }
    let _one_at_a_time = cap.opening.lock().await;
    if cap.manager.sessions.read().await.len() < cap.max {
        return next.run(request).await;
    }
    let message = format!(
        "Too many sessions: docket is at its limit of {} open HTTP session{} (--max-sessions). End sessions you no longer use with DELETE /mcp and their Mcp-Session-Id header; idle sessions end by themselves after {} s. Or restart docket serve with a higher --max-sessions.",
        cap.max,
        if cap.max == 1 { "" } else { "s" },
        cap.idle.as_secs()
    );
    let mut response =
        json_rpc_error(StatusCode::SERVICE_UNAVAILABLE, None, ErrorData::new(ErrorCode(-32000), message, None));
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(cap.idle.as_secs().clamp(1, 60)));
    response
}

/// For a JSON POST: a body that is not JSON gets 400 with a parse error (-32700), JSON that rmcp
/// cannot read as a message gets 400 with -32600/-32602 and the request's id, instead of 415.
pub async fn json_errors(request: Request, next: Next) -> Response {
    if request.method() != Method::POST || !is_json(request.headers()) {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match collect(body, MAX_BODY).await {
        Ok(bytes) => bytes,
        Err(response) => return response,
    };
    if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
        return json_rpc_error(StatusCode::BAD_REQUEST, None, jsonrpc::parse_error(&e, "request body"));
    }
    let response = next.run(Request::from_parts(parts, Body::from(bytes.clone()))).await;
    if response.status() != StatusCode::UNSUPPORTED_MEDIA_TYPE {
        return response;
    }
    // The content type was JSON, so rmcp's 415 means the JSON is not a message it can read.
    let why = String::from_utf8_lossy(&collect(response.into_body(), 4096).await.unwrap_or_default()).into_owned();
    let value = serde_json::from_slice(&bytes).unwrap_or_default();
    let (id, error) = jsonrpc::invalid_message(&value, &why).unwrap_or_else(|| {
        (None, ErrorData::invalid_request("Invalid Request: the body is not a JSON-RPC 2.0 message.", None))
    });
    json_rpc_error(StatusCode::BAD_REQUEST, id, error)
}

/// rmcp refuses a foreign `Host` or `Origin` with a bare 403 naming the header; say which value
/// was refused and how to allow it.
pub async fn explain_refusal(request: Request, next: Next) -> Response {
    let (host, origin) = (header_of(&request, header::HOST), header_of(&request, header::ORIGIN));
    let response = next.run(request).await;
    if response.status() != StatusCode::FORBIDDEN {
        return response;
    }
    let said = String::from_utf8_lossy(&collect(response.into_body(), 4096).await.unwrap_or_default()).into_owned();
    let body = match (origin, host) {
        (Some(origin), _) if said.contains("Origin") && said.contains("Invalid") => format!(
            "Forbidden: the origin `{origin}` is not a valid Origin header (scheme://host[:port]) (DNS-rebinding protection). Browsers send it themselves; a non-browser client should leave Origin out."
        ),
        (Some(origin), _) if said.contains("Origin") => format!(
            "Forbidden: requests from origin `{origin}` are refused (DNS-rebinding protection). Only loopback origins are accepted; restart with `docket serve --http ... --allow-origin {origin}` to accept it."
        ),
        (_, Some(host)) if said.contains("Host") => format!(
            "Forbidden: Host `{host}` is not an allowed name for this server (DNS-rebinding protection). Connect through localhost or 127.0.0.1, or restart with `docket serve --http ... --allow-host {}`.",
            host.rsplit_once(':').map_or(host.as_str(), |(h, _)| h)
        ),
        _ => said,
    };
    (StatusCode::FORBIDDEN, body).into_response()
}

fn header_of(request: &Request, name: header::HeaderName) -> Option<String> {
    request.headers().get(name).map(|v| String::from_utf8_lossy(v.as_bytes()).chars().take(200).collect())
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(';').next().unwrap_or_default().trim().eq_ignore_ascii_case("application/json"))
}

/// The whole body, or a 413 once it passes `limit` bytes (or a 400 if it cannot be read).
async fn collect(mut body: Body, limit: usize) -> Result<Bytes, Response> {
    let mut collected = Vec::new();
    while let Some(frame) = std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await {
        let frame = frame.map_err(|e| {
            (StatusCode::BAD_REQUEST, format!("The request body could not be read: {e}")).into_response()
        })?;
        if let Ok(data) = frame.into_data() {
            if collected.len() + data.len() > limit {
                let why = format!(
                    "Payload Too Large: the request body exceeds {limit} bytes. Send one JSON-RPC message per request, and large descriptions in several smaller writes."
                );
                return Err((StatusCode::PAYLOAD_TOO_LARGE, why).into_response());
            }
            collected.extend_from_slice(&data);
        }
    }
    Ok(Bytes::from(collected))
}

fn json_rpc_error(status: StatusCode, id: Option<RequestId>, error: ErrorData) -> Response {
    let body = jsonrpc::error_response(id, error);
    (status, [(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], body).into_response()
}
