//! Editing an issue's text from its page: the description (the body before any completion
//! notes, which are kept byte for byte), one task-list checkbox, and the markdown preview. Each
//! write requires the file's version the page was built from and is an issues_update tool call
//! with `ifVersion`: refused when the file is no longer the one the page showed (an agent, an
//! editor or a merge changed it meanwhile, with or without `updatedAt`), checked under the
//! workspace lock.

use std::sync::Arc;
use std::time::Instant;

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::answer::{ApiError, blocking, fingerprint, reply, store_error};
use super::api::{call_json, with_state};
use super::{Web, render};
use crate::store::{IssueFilter, SortField, SortOrder, Store};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DescriptionEdit {
    description: String,
    /// The version of the issue's file when the page showed it (required: the guard).
    if_version: String,
    /// The [`fingerprint`] of the description the page showed.
    if_description: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskToggle {
    /// Which checkbox, counted from 0 in the description (`data-task`).
    task: usize,
    checked: bool,
    if_version: String,
    if_description: String,
}

/// The issue's body now, checked against what the page showed: (description, notes suffix).
fn current(store: &Store, id: &str, version: &str, seen: &str) -> Result<(String, String), ApiError> {
    let issue = store.get(id).map_err(store_error)?.value;
    let at = render::notes_start(&issue.body);
    let (description, notes) = issue.body.split_at(at);
    if issue.version != version || fingerprint(description) != seen {
        return Err(ApiError(
            StatusCode::CONFLICT,
            format!(
                "{} changed since this page showed it (version {}); nothing was saved. The page now shows \
                 the current text: make the change again.",
                issue.meta.id, issue.version
            ),
        ));
    }
    Ok((description.to_string(), notes.to_string()))
}

/// issues_update with the whole new body and `ifVersion` (checked again under the lock).
async fn save_body(web: &Web, id: String, body: String, version: String) -> Result<Response, ApiError> {
    let started = Instant::now();
    let args = Map::from_iter([
        ("id".to_string(), Value::String(id.clone())),
        ("description".to_string(), Value::String(body)),
        ("ifVersion".to_string(), Value::String(version)),
    ]);
    let answer = call_json(web, "issues_update", args).await?;
    Ok(reply(with_state(web, &id, answer).await, started))
}

/// `PUT /api/issues/{id}/description`: replaces the description; completion notes stay.
pub async fn description(
    State(web): State<Arc<Web>>,
    Path(id): Path<String>,
    Json(edit): Json<DescriptionEdit>,
) -> Result<Response, ApiError> {
    let store = Arc::clone(&web.app.store);
    let (lookup, seen, version) = (id.clone(), edit.if_description.clone(), edit.if_version.clone());
    let (_, notes) = blocking(move || current(&store, &lookup, &version, &seen)).await?;
    save_body(&web, id, format!("{}{notes}", edit.description), edit.if_version).await
}

/// `POST /api/issues/{id}/task`: checks or unchecks one task-list checkbox of the description;
/// exactly the character between its brackets changes.
pub async fn task(
    State(web): State<Arc<Web>>,
    Path(id): Path<String>,
    Json(toggle): Json<TaskToggle>,
) -> Result<Response, ApiError> {
    let store = Arc::clone(&web.app.store);
    let (lookup, seen, version) = (id.clone(), toggle.if_description.clone(), toggle.if_version.clone());
    let (description, notes) = blocking(move || current(&store, &lookup, &version, &seen)).await?;
    let marks = render::task_markers(&description);
    let Some((_, was)) = marks.get(toggle.task) else {
        return Err(ApiError(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("{id}'s description has {} task checkbox(es); there is no number {}", marks.len(), toggle.task),
        ));
    };
    if *was == toggle.checked {
        let state = if *was { "checked" } else { "unchecked" };
        return Err(ApiError(StatusCode::CONFLICT, format!("task {} of {id} is already {state}", toggle.task + 1)));
    }
    let edited = render::set_task(&description, toggle.task, toggle.checked).unwrap_or(description);
    save_body(&web, id, format!("{edited}{notes}"), toggle.if_version).await
}

#[derive(Debug, Deserialize)]
pub struct Preview {
    markdown: String,
}

/// Longest text the preview renders (a body is rarely a tenth of it).
const PREVIEW_LIMIT: usize = 1 << 20;

/// `POST /api/preview`: markdown as the issue page would show it (sanitized the same way).
pub async fn preview(State(web): State<Arc<Web>>, Json(p): Json<Preview>) -> Result<Response, ApiError> {
    let started = Instant::now();
    if p.markdown.len() > PREVIEW_LIMIT {
        return Err(ApiError(StatusCode::PAYLOAD_TOO_LARGE, "the text is too long to preview".into()));
    }
    let store = Arc::clone(&web.app.store);
    let html = blocking(move || {
        let all = store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).map_err(store_error)?.value;
        let ids: std::collections::HashSet<String> = all.iter().map(|m| m.id.to_uppercase()).collect();
        Ok(render::markdown(&p.markdown, &|id| ids.contains(&id.to_uppercase())))
    })
    .await?;
    Ok(reply(json!({"html": html}), started))
}
