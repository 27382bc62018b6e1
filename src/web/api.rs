//! The board's JSON API. Reads come from the store (the in-memory index, kept fresh by the
//! change watcher); every write goes through the tool handlers exactly like an MCP
//! `tools/call` (see [`crate::app::App::call`]), so validation, files, index, error memory and
//! MCP subscribers all see it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::answer::{ApiError, bad, blocking, reply, store_error, workspace_name};
use super::query::{BoardQuery, apart};
use super::{Web, problems, render};
use crate::runtime::ErrorCode;
use crate::store::{IssueFilter, IssueMeta, IssueType, Priority, SortField, SortOrder, Status, Store};

/// Cards a column shows before "show more".
pub const PAGE: usize = 50;
/// Most cards one request returns.
pub const MAX_PAGE: usize = 500;

/// A card: what the board shows of an issue.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Card {
    id: String,
    title: String,
    status: Status,
    priority: Priority,
    #[serde(rename = "type")]
    issue_type: IssueType,
    labels: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    assignee: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    project: Option<String>,
    created_at: String,
    updated_at: String,
    /// Waits on an open or in-progress blocker (its own or a parent's).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    blocked: bool,
    /// The file the card shows (not sent: it marks a duplicated id).
    #[serde(skip)]
    path: PathBuf,
    /// How many files hold this card's id, when more than one does (the card shows a marker).
    #[serde(skip_serializing_if = "Option::is_none")]
    duplicates: Option<usize>,
}

impl Card {
    pub fn of(m: &IssueMeta) -> Card {
        let non_empty = |s: &Option<String>| s.clone().filter(|s| !s.is_empty());
        Card {
            id: m.id.clone(),
            title: m.title.clone(),
            status: m.status,
            priority: m.priority,
            issue_type: m.issue_type,
            labels: m.labels.clone(),
            assignee: non_empty(&m.assignee),
            project: non_empty(&m.project),
            created_at: m.created_at.clone(),
            updated_at: m.updated_at.clone(),
            blocked: false,
            duplicates: None,
            path: m.path.clone(),
        }
    }

    pub fn marked(mut self, marks: &Marks) -> Card {
        self.blocked = marks.blocked.contains(&self.id);
        self.duplicates = marks.duplicates.get(&self.path).copied();
        self
    }
}

/// What the board marks on its cards: the IDs of every issue waiting on an open blocker, and
/// the files whose id other files hold too (with the number of files holding it).
pub struct Marks {
    blocked: HashSet<String>,
    duplicates: HashMap<PathBuf, usize>,
}

/// The [`Marks`] of the workspace as it is now.
pub fn marks(store: &Store) -> Result<Marks, ApiError> {
    let filter = IssueFilter { blocked: Some(true), ..IssueFilter::default() };
    let blocked = store.list(&filter, SortField::Updated, SortOrder::Desc).map_err(store_error)?.value;
    let all = store.list(&IssueFilter::default(), SortField::Updated, SortOrder::Desc).map_err(store_error)?;
    Ok(Marks { blocked: blocked.iter().map(|m| m.id.clone()).collect(), duplicates: duplicate_files(&all.warnings) })
}

/// Every file named by a DUPLICATE_ID warning, with the number of files holding its id.
fn duplicate_files(warnings: &[crate::store::StoreWarning]) -> HashMap<PathBuf, usize> {
    warnings
        .iter()
        .filter(|w| w.code == crate::store::StoreWarningCode::DuplicateId)
        .flat_map(|w| w.paths.iter().map(move |p| (p.clone(), w.paths.len())))
        .collect()
}

/// The one line the board says when a write names an id several files hold, instead of every
/// file's path (the problems page and `docket doctor` list them).
async fn held_by_several(web: &Web, id: &str) -> String {
    let store = Arc::clone(&web.app.store);
    let wanted = id.to_string();
    let files = blocking(move || {
        let shown = store.get_meta(&wanted).map_err(store_error)?;
        let all = store.list(&IssueFilter::default(), SortField::Updated, SortOrder::Desc).map_err(store_error)?;
        Ok(duplicate_files(&all.warnings).get(&shown.value.path).copied())
    })
    .await
    .ok()
    .flatten();
    match files {
        Some(n) => format!("{id}: this id is held by {n} files: run `docket doctor --fix`"),
        None => format!("{id}: this id is held by several files: run `docket doctor --fix`"),
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Column {
    status: Status,
    count: usize,
    cards: Vec<Card>,
}

/// `GET /api/board`: the columns with their counts and first cards, the filter choices, and
/// the workspace's warnings folded into one line (`/api/problems` has the details).
pub async fn board(State(web): State<Arc<Web>>, Query(q): Query<BoardQuery>) -> Result<Response, ApiError> {
    let started = Instant::now();
    let store = Arc::clone(&web.app.store);
    let body = blocking(move || {
        let mut items = q.matching(&store)?;
        // Files without frontmatter (a README, notes) are no cards: named apart, by their file.
        let files = apart(&store, &mut items);
        let blocked = marks(&store)?;
        let limit = q.limit.unwrap_or(PAGE).min(MAX_PAGE);
        let columns: Vec<Column> = q
            .statuses()?
            .into_iter()
            .map(|status| {
                let of_status = items.iter().filter(|m| m.status == status);
                Column {
                    status,
                    count: of_status.clone().count(),
                    cards: of_status.take(limit).map(|m| Card::of(m).marked(&blocked)).collect(),
                }
            })
            .collect();
        let all = store.list(&IssueFilter::default(), SortField::Updated, SortOrder::Desc).map_err(store_error)?;
        Ok(json!({
            "columns": columns,
            "total": all.value.iter().filter(|m| m.frontmatter).count(),
            "files": files,
            "facets": facets(&all.value),
            "problems": problems::summary(&all.warnings),
            "workspace": workspace_name(&store),
        }))
    })
    .await?;
    Ok(reply(body, started))
}

/// `GET /api/column?column=open&offset=50`: the next cards of one column.
pub async fn column(State(web): State<Arc<Web>>, Query(q): Query<BoardQuery>) -> Result<Response, ApiError> {
    let started = Instant::now();
    let status = Status::parse_loose(&q.column).ok_or_else(|| {
        bad(format!("unknown column `{}`; use one of: open, in_progress, closed, cancelled", q.column))
    })?;
    let store = Arc::clone(&web.app.store);
    let body = blocking(move || {
        let mut items = q.matching(&store)?;
        apart(&store, &mut items);
        let of_status: Vec<&Arc<IssueMeta>> = items.iter().filter(|m| m.status == status).collect();
        let limit = q.limit.unwrap_or(PAGE).min(MAX_PAGE);
        let blocked = marks(&store)?;
        let cards: Vec<Card> =
            of_status.iter().skip(q.offset).take(limit).map(|m| Card::of(m).marked(&blocked)).collect();
        Ok(json!({"status": status, "count": of_status.len(), "offset": q.offset, "cards": cards}))
    })
    .await?;
    Ok(reply(body, started))
}

/// Labels, assignees and projects in use, most used first.
fn facets(all: &[Arc<IssueMeta>]) -> Value {
    let mut labels: BTreeMap<&str, usize> = BTreeMap::new();
    let mut assignees: BTreeMap<&str, usize> = BTreeMap::new();
    let mut projects: BTreeMap<&str, usize> = BTreeMap::new();
    for m in all {
        for l in &m.labels {
            *labels.entry(l).or_default() += 1;
        }
        if let Some(a) = m.assignee.as_deref().filter(|a| !a.is_empty()) {
            *assignees.entry(a).or_default() += 1;
        }
        if let Some(p) = m.project.as_deref().filter(|p| !p.is_empty()) {
            *projects.entry(p).or_default() += 1;
        }
    }
    let ranked = |m: BTreeMap<&str, usize>| {
        let mut v: Vec<(&str, usize)> = m.into_iter().collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        v.into_iter().map(|(k, n)| json!({"key": k, "count": n})).collect::<Vec<_>>()
    };
    json!({"labels": ranked(labels), "assignees": ranked(assignees), "projects": ranked(projects)})
}

/// A linked issue: enough to show a link with its state.
fn brief(m: &IssueMeta) -> Value {
    json!({"id": m.id, "title": m.title, "status": m.status})
}

/// `GET /api/issues/{id}`: every field, the body and completion notes as safe HTML, the issues it
/// links to and from, and the workflow sessions about it.
pub async fn issue(State(web): State<Arc<Web>>, Path(id): Path<String>) -> Result<Response, ApiError> {
    let started = Instant::now();
    let store = Arc::clone(&web.app.store);
    let body = blocking(move || {
        let snap = store.get(&id).map_err(store_error)?;
        let (meta, body, version) = (snap.value.meta, snap.value.body, snap.value.version);
        let all = store.list(&IssueFilter::default(), SortField::Updated, SortOrder::Desc).map_err(store_error)?.value;
        let by_id: std::collections::HashMap<String, &Arc<IssueMeta>> =
            all.iter().map(|m| (m.id.to_uppercase(), m)).collect();
        let known = |id: &str| by_id.contains_key(&id.to_uppercase());
        let (description, notes) = render::split_notes(&body);
        let parent_id = meta.context.get("parentTaskId").and_then(Value::as_str).map(str::to_string);
        let parent = parent_id.as_deref().map(|p| match by_id.get(&p.to_uppercase()) {
            Some(m) => brief(m),
            None => json!({"id": p}),
        });
        let children: Vec<Value> = all
            .iter()
            .filter(|m| {
                m.context.get("parentTaskId").and_then(Value::as_str).is_some_and(|p| p.eq_ignore_ascii_case(&meta.id))
            })
            .map(|m| brief(m))
            .collect();
        let mut seen: HashSet<String> = HashSet::from([meta.id.to_uppercase()]);
        let mentions: Vec<Value> = render::mentions(&body)
            .into_iter()
            .filter(|m| seen.insert(m.to_uppercase()))
            .filter_map(|m| by_id.get(&m.to_uppercase()).map(|m| brief(m)))
            .collect();
        let graph = store.blockers(&meta).map_err(store_error)?;
        let link = |id: &str| match by_id.get(&id.to_uppercase()) {
            Some(m) => brief(m),
            None => json!({"id": id}),
        };
        let blocked_by: Vec<Value> = meta.blocked_by.iter().map(|b| link(b)).collect();
        let blocks: Vec<Value> = graph.blocks.iter().map(|(b, _)| link(b)).collect();
        let open_blockers: Vec<&String> = graph.open.iter().map(|(b, _)| b).collect();
        let sessions: Vec<Value> =
            store.sessions_about(&meta).iter().map(|s| serde_json::to_value(s).unwrap_or(Value::Null)).collect();
        let relative = meta.path.strip_prefix(&store.workspace().root).unwrap_or(&meta.path).display().to_string();
        Ok(json!({
            "issue": {
                "id": meta.id, "title": meta.title, "type": meta.issue_type, "status": meta.status,
                "priority": meta.priority, "labels": meta.labels, "assignee": meta.assignee, "project": meta.project,
                "createdAt": meta.created_at, "updatedAt": meta.updated_at, "closedAt": meta.closed_at,
                "context": meta.context, "path": relative, "frontmatter": meta.frontmatter,
            },
            "description": description,
            "descriptionHash": super::answer::fingerprint(description),
            "version": version,
            "bodyHtml": render::description(description, &known),
            "notesHtml": notes.map(|n| render::markdown(n, &known)),
            "parent": parent,
            "children": children,
            "mentions": mentions,
            "blockedBy": blocked_by,
            "blocks": blocks,
            "openBlockers": open_blockers,
            "sessions": sessions,
            "warnings": problems::issue_warnings(&store, &meta, &snap.warnings),
            "workspace": workspace_name(&store),
        }))
    })
    .await?;
    Ok(reply(body, started))
}

/// `PATCH /api/issues/{id}` with the fields to change (title, status, priority, labels, assignee,
/// ...) and the guard it requires, `ifVersion` (the file's version the page showed; `ifUpdatedAt`
/// is still taken): issues_update, refused when the issue changed since. The answer adds the
/// issue's `updatedAt`, `version` and `descriptionHash` after the write, for the page's next edit.
pub async fn update(
    State(web): State<Arc<Web>>,
    Path(id): Path<String>,
    Json(mut fields): Json<Map<String, Value>>,
) -> Result<Response, ApiError> {
    let started = Instant::now();
    if !fields.contains_key("ifVersion") && !fields.contains_key("ifUpdatedAt") {
        return Err(ApiError(
            StatusCode::PRECONDITION_REQUIRED,
            format!(
                "a change to {id} must say which version of it the change was made to: send ifVersion, the \
                 version GET /api/issues/{id} gives; nothing was saved"
            ),
        ));
    }
    fields.insert("id".into(), Value::String(id.clone()));
    let answer = call_json(&web, "issues_update", fields).await?;
    Ok(reply(with_state(&web, &id, answer).await, started))
}

/// `answer` with the issue's `updatedAt`, `version` and `descriptionHash` as they are now (just
/// after a write), so the page can send them with its next edit.
pub async fn with_state(web: &Web, id: &str, mut answer: Value) -> Value {
    let store = Arc::clone(&web.app.store);
    let id = id.to_string();
    let state = blocking(move || {
        let issue = store.get(&id).map_err(store_error)?.value;
        let (description, _) = render::split_notes(&issue.body);
        Ok((issue.meta.updated_at, issue.version, super::answer::fingerprint(description)))
    })
    .await;
    if let (Ok((updated_at, version, hash)), Some(o)) = (state, answer.as_object_mut()) {
        o.insert("updatedAt".into(), Value::String(updated_at));
        o.insert("version".into(), Value::String(version));
        o.insert("descriptionHash".into(), Value::String(hash));
    }
    answer
}

/// `POST /api/issues` with issues_create's arguments (the description may be left out).
pub async fn create(
    State(web): State<Arc<Web>>,
    Json(mut fields): Json<Map<String, Value>>,
) -> Result<Response, ApiError> {
    fields.entry("description").or_insert_with(|| Value::String(String::new()));
    let mut r = call(&web, "issues_create", fields).await?;
    *r.status_mut() = StatusCode::CREATED;
    Ok(r)
}

/// `POST /api/problems/fix`: what `docket doctor --fix` repairs, through the workspace_doctor
/// tool with `fix: true` (so a server configured `read_only: true` refuses it, as for an agent):
/// `{"result": {changes, notes, problems, total}, "warnings"}`.
pub async fn fix_problems(State(web): State<Arc<Web>>) -> Result<Response, ApiError> {
    let mut args = serde_json::Map::new();
    args.insert("fix".into(), Value::Bool(true));
    args.insert("response_format".into(), Value::from("json"));
    call(&web, "workspace_doctor", args).await
}

/// Calls `tool` the way an MCP `tools/call` does; answers `{"result", "warnings"}`.
pub async fn call(web: &Web, tool: &str, args: Map<String, Value>) -> Result<Response, ApiError> {
    let started = Instant::now();
    Ok(reply(call_json(web, tool, args).await?, started))
}

/// [`call`]'s answer as JSON.
pub async fn call_json(web: &Web, tool: &str, args: Map<String, Value>) -> Result<Value, ApiError> {
    let request_id = format!("web-{}", web.next_call());
    let id = args.get("id").and_then(Value::as_str).map(str::to_string);
    let called = web
        .app
        .call(tool, args, request_id)
        .await
        .ok_or_else(|| ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("{tool} is not a docket tool")))?;
    let mut warnings: Vec<String> = called.warnings.into_iter().map(|w| w.message).collect();
    match called.result {
        Ok(r) => {
            warnings.extend(r.warnings.into_iter().map(|w| w.message));
            Ok(json!({"result": r.data, "warnings": warnings}))
        }
        Err(e) => {
            let status = match e.code {
                ErrorCode::NotFound => StatusCode::NOT_FOUND,
                ErrorCode::InvalidArgument | ErrorCode::ConfirmationRequired => StatusCode::UNPROCESSABLE_ENTITY,
                ErrorCode::Conflict => StatusCode::CONFLICT,
                ErrorCode::NotImplemented => StatusCode::NOT_IMPLEMENTED,
                ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            };
            if let (true, Some(id)) = (e.template == crate::generated::errors::Template::AmbiguousId.name(), &id) {
                return Err(ApiError(status, held_by_several(web, id).await));
            }
            let message = match warnings.is_empty() {
                true => super::answer::for_a_person(&e.message),
                false => format!("{}\n{}", super::answer::for_a_person(&e.message), warnings.join("\n")),
            };
            Err(ApiError(status, message))
        }
    }
}
