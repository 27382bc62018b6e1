//! What every handler of the board's API answers with: JSON that is never cached, the errors a
//! page shows, the blocking pool for store work, the workspace's name every page shows, and the
//! fingerprint of a description that an edit compares before it writes.

use std::hash::{Hash, Hasher};
use std::time::Instant;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::json;

use crate::store::Store;

/// An error as the page shows it: the message (from the tool or the store) and a status.
pub struct ApiError(pub StatusCode, pub String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut r = (self.0, Json(json!({"error": self.1}))).into_response();
        r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        r
    }
}

/// Advice the tools write for an agent's next call, and what the board's person does instead
/// (the page shows the issue again after a failed save). One `{id}` (a word) per phrase.
const FOR_A_PERSON: [(&str, &str); 6] = [
    ("blockedBy would close a cycle", "These blockers would close a cycle"),
    ("drop the blocker that closes it (issues_get {id} shows its blockers).", "remove the blocker that closes it."),
    (
        "call again with blockedBy listing only existing IDs of other issues.",
        "add only existing issues other than this one.",
    ),
    ("Call issues_get {id} to see the change, then ", "The page shows it as it is now; "),
    ("repeat the update with ifUpdatedAt {id} if it still applies.", "make your change again if it still applies."),
    ("repeat the update with ifVersion {id} if it still applies.", "make your change again if it still applies."),
];

/// A tool's error `message` as the board's save line says it: the advice for an agent's next
/// call (issues_get, blockedBy, ifUpdatedAt, ifVersion) becomes what a person does on the page.
pub fn for_a_person(message: &str) -> String {
    FOR_A_PERSON.iter().fold(message.to_string(), |m, (from, to)| crate::util::replace_phrase(&m, from, to))
}

pub fn bad(message: String) -> ApiError {
    ApiError(StatusCode::BAD_REQUEST, message)
}

/// JSON that is never cached, with the time the server spent (`Server-Timing`).
pub fn reply(value: impl Serialize, started: Instant) -> Response {
    let mut r = Json(value).into_response();
    let h = r.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    let timing = format!("app;dur={:.2}", started.elapsed().as_secs_f64() * 1000.0);
    if let Ok(v) = HeaderValue::from_str(&timing) {
        h.insert("server-timing", v);
    }
    r
}

/// Runs store work off the async workers.
pub async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    crate::util::blocking(work, |e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("the request stopped: {e}")))
        .await
}

pub fn store_error(e: crate::store::StoreError) -> ApiError {
    use crate::store::StoreError as E;
    let status = match &e {
        E::NotFound { .. } => StatusCode::NOT_FOUND,
        E::InvalidId { .. } => StatusCode::BAD_REQUEST,
        E::Ambiguous { .. } | E::Conflict { .. } => StatusCode::CONFLICT,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    ApiError(status, e.to_string())
}

/// The name shown in the page's header: the repository's folder.
pub fn workspace_name(store: &Store) -> Option<String> {
    store.workspace().root.file_name().map(|n| n.to_string_lossy().into_owned())
}

/// A fingerprint of a description, sent with the page and back with an edit: a hand edit does
/// not change `updatedAt`, so that alone cannot tell that the text changed.
pub fn fingerprint(description: &str) -> String {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    description.hash(&mut h);
    format!("{:016x}", h.finish())
}
