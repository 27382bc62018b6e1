//! The page and its assets, embedded in the binary at build time.

use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

const PAGE: &str = include_str!("assets/index.html");

/// File name, content type, content.
const FILES: &[(&str, &str, &[u8])] = &[
    ("app.js", "text/javascript; charset=utf-8", include_bytes!("assets/app.js")),
    ("issue.js", "text/javascript; charset=utf-8", include_bytes!("assets/issue.js")),
    ("views.js", "text/javascript; charset=utf-8", include_bytes!("assets/views.js")),
    ("app.css", "text/css; charset=utf-8", include_bytes!("assets/app.css")),
    ("icon.svg", "image/svg+xml", include_bytes!("assets/icon.svg")),
];

/// The one page; the scripts show the board, the list, the statistics, the problems or an
/// issue from the address.
pub async fn page() -> Response {
    let mut r = ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], PAGE).into_response();
    r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

pub async fn file(Path(name): Path<String>) -> Response {
    match FILES.iter().find(|(n, _, _)| *n == name) {
        Some((_, kind, body)) => {
            let mut r = ([(header::CONTENT_TYPE, *kind)], *body).into_response();
            r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
            r
        }
        None => (StatusCode::NOT_FOUND, format!("no asset {name}")).into_response(),
    }
}
