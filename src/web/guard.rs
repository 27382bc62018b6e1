//! Who may use the board: the same `Host` and `Origin` allow-lists as `/mcp` (DNS-rebinding
//! protection); with a token, a browser that opened `/?token=…` once (an HttpOnly, SameSite=Strict
//! session cookie) or a client sending `Authorization: Bearer`; writes only from the board's own
//! origin (or an `--allow-origin`) with a JSON body, so another site cannot forge one. Every
//! response carries a Content-Security-Policy that forbids inline script.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::uri::Authority;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

pub use crate::transport::Access;

/// The cookie a browser carries once it has presented the token.
const COOKIE: &str = "docket_session";

pub struct Guard {
    access: Access,
    /// This server's session value (random, per process): what the cookie holds, not the token.
    session: String,
}

impl Guard {
    pub fn new(access: Access) -> Arc<Guard> {
        let bytes: [u8; 24] = rand::random();
        let session = bytes.iter().map(|b| format!("{b:02x}")).collect();
        Arc::new(Guard { access, session })
    }
}

const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; \
                   connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The middleware: refuses what must be refused, then adds the security headers.
pub async fn check(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let page = !request.uri().path().starts_with("/api/");
    let mut response = match admit(&guard, &request) {
        Ok(None) => next.run(request).await,
        Ok(Some(early)) => early,
        Err(refusal) if page => refusal.page(),
        Err(refusal) => refusal.into_response(),
    };
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

/// A refusal: status and a message that says what to do.
pub struct Refusal(StatusCode, String);

impl Refusal {
    /// The refusal as a page, for a person who opened the address in a browser.
    fn page(self) -> Response {
        let Refusal(status, message) = self;
        let title = if status == StatusCode::UNAUTHORIZED { "This board needs its token" } else { "Refused" };
        let html = format!(
            "<!doctype html><meta charset=utf-8><meta name=viewport content=\"width=device-width\"><title>docket: {title}</title>\
             <h1>{title}</h1><p>{}</p>",
            escape(&message)
        );
        let mut r = (status, [(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response();
        if status == StatusCode::UNAUTHORIZED {
            r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"docket\""));
        }
        r
    }
}

/// `text` safe inside HTML (it can hold a Host or Origin header a client made up).
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let Refusal(status, message) = self;
        let mut r = (status, axum::Json(serde_json::json!({"error": message}))).into_response();
        if status == StatusCode::UNAUTHORIZED {
            r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"docket\""));
        }
        r
    }
}

/// `Ok(None)`: go on; `Ok(Some(r))`: answer `r` instead (the token exchange); `Err`: refuse.
fn admit(guard: &Guard, request: &Request) -> Result<Option<Response>, Refusal> {
    let headers = request.headers();
    let host = header_str(headers, header::HOST).ok_or_else(|| forbid("the request has no Host header"))?;
    let authority = Authority::try_from(host).map_err(|_| forbid(&format!("Host `{host}` is not a host name")))?;
    if !host_allowed(&authority, &guard.access.hosts) {
        return Err(forbid(&format!(
            "Host `{host}` is not an allowed name for this server (DNS-rebinding protection). Open the board \
             through localhost or 127.0.0.1, or restart with `--allow-host {}`",
            authority.host()
        )));
    }
    let origin = header_str(headers, header::ORIGIN);
    if let Some(origin) = origin
        && !origin_allowed(origin, &guard.access.origins)
    {
        return Err(forbid(&format!(
            "requests from origin `{origin}` are refused (DNS-rebinding protection). Only loopback origins are \
             accepted; restart with `--allow-origin {origin}` to accept it"
        )));
    }
    if let Some(token) = &guard.access.token {
        if let Some(presented) = query_token(request.uri().query()) {
            if !bool::from(presented.as_bytes().ct_eq(token.as_bytes())) {
                return Err(Refusal(
                    StatusCode::UNAUTHORIZED,
                    "The token in the address is wrong. Open the exact URL that `docket web` or `docket serve` \
                     printed, or ask whoever started the board for it."
                        .into(),
                ));
            }
            return Ok(Some(sign_in(guard, request)));
        }
        if !signed_in(guard, headers, token) {
            return Err(Refusal(
                StatusCode::UNAUTHORIZED,
                "This board needs its token. Open the URL `docket web` printed (it ends in ?token=...) once in \
                 this browser, or send `Authorization: Bearer <token>`."
                    .into(),
            ));
        }
    }
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        check_write(headers, host, origin, &guard.access.write_origins)?;
    }
    Ok(None)
}

/// A write must come from the board's own page: same origin (or an allowed one), JSON body.
fn check_write(headers: &HeaderMap, host: &str, origin: Option<&str>, extra: &[String]) -> Result<(), Refusal> {
    let own = format!("http://{host}");
    if let Some(origin) = origin
        && !origin.eq_ignore_ascii_case(&own)
        && !extra.iter().any(|o| origin_allowed(origin, std::slice::from_ref(o)))
    {
        return Err(forbid(&format!(
            "writes from origin `{origin}` are refused: only the board's own page ({own}) may change issues \
             (cross-site request forgery protection). Make the change from the board, or restart with \
             `--allow-origin {origin}`"
        )));
    }
    if let Some(site) = header_str(headers, "sec-fetch-site")
        && !matches!(site, "same-origin" | "none")
        && origin.is_none_or(|o| !extra.iter().any(|e| origin_allowed(o, std::slice::from_ref(e))))
    {
        return Err(forbid(&format!(
            "a {site} write is refused (cross-site request forgery protection); make the change from the board itself"
        )));
    }
    let json = header_str(headers, header::CONTENT_TYPE)
        .is_some_and(|t| t.split(';').next().is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json")));
    if !json {
        return Err(Refusal(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "writes take a JSON body: send `Content-Type: application/json`".into(),
        ));
    }
    Ok(())
}

fn forbid(why: &str) -> Refusal {
    Refusal(StatusCode::FORBIDDEN, format!("Forbidden: {why}."))
}

fn header_str(headers: &HeaderMap, name: impl header::AsHeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn signed_in(guard: &Guard, headers: &HeaderMap, token: &str) -> bool {
    let bearer = header_str(headers, header::AUTHORIZATION)
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .is_some_and(|(_, t)| bool::from(t.trim().as_bytes().ct_eq(token.as_bytes())));
    let cookie = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .any(|(name, value)| name == COOKIE && bool::from(value.as_bytes().ct_eq(guard.session.as_bytes())));
    bearer || cookie
}

/// The `token` query parameter, if any.
fn query_token(query: Option<&str>) -> Option<String> {
    url_pairs(query?).find(|(k, _)| k == "token").map(|(_, v)| v)
}

fn url_pairs(query: &str) -> impl Iterator<Item = (String, String)> + '_ {
    serde_urlencoded::from_str::<Vec<(String, String)>>(query).unwrap_or_default().into_iter()
}

/// The token was right: set the session cookie and send the browser to the same address without
/// the token (so it is not left in the history or shown on screen).
fn sign_in(guard: &Guard, request: &Request) -> Response {
    let rest: Vec<(String, String)> =
        request.uri().query().map(|q| url_pairs(q).filter(|(k, _)| k != "token").collect()).unwrap_or_default();
    let mut location = request.uri().path().to_string();
    if !rest.is_empty() {
        location.push('?');
        location.push_str(&serde_urlencoded::to_string(&rest).unwrap_or_default());
    }
    let cookie = format!("{COOKIE}={}; HttpOnly; SameSite=Strict; Path=/", guard.session);
    let mut r = StatusCode::SEE_OTHER.into_response();
    if let (Ok(loc), Ok(cookie)) = (HeaderValue::from_str(&location), HeaderValue::from_str(&cookie)) {
        r.headers_mut().insert(header::LOCATION, loc);
        r.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

fn normalize(host: &str) -> String {
    host.trim_matches(['[', ']']).to_ascii_lowercase()
}

/// rmcp's rule for `/mcp`: the names must match; an allowed entry's port, if it has one, too.
fn host_allowed(host: &Authority, allowed: &[String]) -> bool {
    allowed.iter().any(|a| match Authority::try_from(a.trim()) {
        Ok(a) => {
            normalize(a.host()) == normalize(host.host()) && a.port_u16().is_none_or(|p| host.port_u16() == Some(p))
        }
        Err(_) => normalize(a) == normalize(host.host()),
    })
}

/// rmcp's rule for `/mcp`: scheme and host must match; `:*` or no port accepts any port.
fn origin_allowed(origin: &str, allowed: &[String]) -> bool {
    let Some((scheme, host, port)) = split_origin(origin) else { return false };
    allowed.iter().any(|a| {
        let (base, any_port) = match a.trim().strip_suffix(":*") {
            Some(base) => (base, true),
            None => (a.trim(), false),
        };
        split_origin(base).is_some_and(|(s, h, p)| {
            s == scheme && h == host && (any_port || p.is_none() || p == port.or_else(|| default_port(&scheme)))
        })
    })
}

fn split_origin(origin: &str) -> Option<(String, String, Option<u16>)> {
    let uri = axum::http::Uri::try_from(origin.trim()).ok()?;
    let authority = uri.authority()?;
    Some((uri.scheme_str()?.to_ascii_lowercase(), normalize(authority.host()), authority.port_u16()))
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn hosts_match_by_name_and_port_when_given() {
        let allowed = list(&["localhost", "127.0.0.1", "::1", "example.com:8080"]);
        let ok = |h: &str| host_allowed(&Authority::try_from(h).unwrap(), &allowed);
        assert!(ok("localhost:3000") && ok("127.0.0.1") && ok("[::1]:9") && ok("LOCALHOST:1"));
        assert!(ok("example.com:8080") && !ok("example.com:80") && !ok("evil.test:3000"));
    }

    #[test]
    fn origins_match_scheme_host_and_port() {
        let allowed = list(&["http://localhost:*", "http://127.0.0.1:*", "https://app.example.com:443"]);
        assert!(origin_allowed("http://localhost:5173", &allowed));
        assert!(origin_allowed("https://app.example.com", &allowed));
        assert!(!origin_allowed("https://localhost:5173", &allowed));
        assert!(!origin_allowed("http://evil.test", &allowed));
        assert!(!origin_allowed("null", &allowed));
    }

    #[test]
    fn the_token_is_read_from_the_query() {
        assert_eq!(query_token(Some("a=1&token=s%20t")), Some("s t".to_string()));
        assert_eq!(query_token(Some("a=1")), None);
    }
}
