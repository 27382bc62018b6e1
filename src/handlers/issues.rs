//! issues_create, issues_get, issues_list.

use serde_json::json;

use super::Handlers;
use super::convert::{issue_filter, issue_type, priority, status, store_error};
use super::paging::{Page, Query};
use super::reading;
use super::records::Projection;
use super::text;
use crate::codes;
use crate::config::ResponseLimits;
use crate::generated::{
    IssueField, IssueRecord, IssuesCreateInput, IssuesCreateOutput, IssuesGetInput, IssuesGetOutput, IssuesListInput,
    IssuesListOutput, ListFormat, ResponseFormat, errors, limits,
};
use crate::handlers::bodies;
use crate::runtime::{Reply, ResultCounts, ToolError, ToolResult, WarningCode};
use crate::store::{IssueMeta, NewIssue, SortField, SortOrder, Store, StoreWarning, StoreWarningCode};

pub fn create(cx: &Handlers, input: IssuesCreateInput) -> ToolResult<IssuesCreateOutput> {
    let store: &Store = &cx.store;
    let context = input
        .wrangler_context
        .map(|c| serde_json::to_value(c).ok().and_then(|v| v.as_object().cloned()).unwrap_or_default())
        .unwrap_or_default();
    let new = NewIssue {
        title: input.title,
        description: input.description,
        issue_type: issue_type(input.r#type),
        status: status(input.status),
        priority: priority(input.priority),
        labels: input.labels.unwrap_or_default(),
        assignee: input.assignee.filter(|a| !a.is_empty()),
        project: input.project.filter(|p| !p.is_empty()),
        context,
        blocked_by: input.blocked_by.unwrap_or_default(),
    };
    if let Some(existing) = retried_create(store, &new)? {
        let scope = match (&new.project, parent_of(&new.context)) {
            (Some(p), _) => format!("project {p}"),
            (None, Some(parent)) => format!("parent {parent}"),
            (None, None) => "no project".to_string(),
        };
        return Err(errors::duplicate_title(existing, scope, RETRY_WINDOW_MINUTES));
    }
    let issue = store.create(new).map_err(store_error)?;
    // The summary fields plus what wrangler's answer carries: the type and the exact times.
    let record = Projection::fields(Some(CREATED_FIELDS)).record(&issue.meta, None);
    // `Created issue ISS-000001 open medium Title (labels: a) at 2026-11-27T21:55:00Z`.
    let row = IssueRecord { r#type: None, created_at: None, updated_at: None, ..record.clone() };
    let kind = record.r#type.map_or("issue", |t| t.as_str());
    let text = format!("Created {kind} {} at {}", text::issue_line(&row), record.created_at.as_deref().unwrap_or("?"));
    Ok(Reply::new(IssuesCreateOutput { issue: record }).with_text(text))
}

/// What issues_create answers with.
const CREATED_FIELDS: &[IssueField] = &[
    IssueField::Title,
    IssueField::Type,
    IssueField::Status,
    IssueField::Priority,
    IssueField::Labels,
    IssueField::Dates,
];

/// How long after a create the same create again reads as an agent's retry.
const RETRY_WINDOW_MINUTES: i64 = 10;

/// The ID of an open or in-progress issue that this create would repeat: same type and title
/// (ignoring case and surrounding space), same project and same parent, created in the last
/// [`RETRY_WINDOW_MINUTES`]. A title repeated in another project or under another parent ("Task
/// 1: ..." in every plan), or long after, is a new issue.
fn retried_create(store: &Store, new: &NewIssue) -> Result<Option<String>, ToolError> {
    let found = store.open_issues_titled(new.issue_type, &new.title).map_err(store_error)?;
    let since = chrono::Utc::now() - chrono::Duration::minutes(RETRY_WINDOW_MINUTES);
    let recent = |m: &IssueMeta| {
        chrono::DateTime::parse_from_rfc3339(&m.created_at).is_ok_and(|at| at.with_timezone(&chrono::Utc) >= since)
    };
    let normalize = |s: Option<&str>| s.map(str::trim).filter(|s| !s.is_empty()).map(str::to_lowercase);
    let same_place = |m: &IssueMeta| {
        normalize(m.project.as_deref()) == normalize(new.project.as_deref())
            && normalize(parent_of(&m.context)) == normalize(parent_of(&new.context))
    };
    Ok(found.iter().find(|m| same_place(m) && recent(m)).map(|m| m.id.clone()))
}

fn parent_of(context: &serde_json::Map<String, serde_json::Value>) -> Option<&str> {
    context.get("parentTaskId").and_then(|v| v.as_str()).filter(|s| !s.trim().is_empty())
}

pub fn get(cx: &Handlers, input: IssuesGetInput) -> ToolResult<IssuesGetOutput> {
    let (store, limits): (&Store, &ResponseLimits) = (&cx.store, &cx.limits);
    let request = reading::Request {
        outline: input.outline.unwrap_or(false),
        depth: input.depth.map(|d| d.clamp(1, 6) as usize),
        section: input.section.as_deref(),
        offset: input.offset.map(|o| o.max(0) as usize),
        version: input.version.as_deref(),
    };
    if request.is_structured() {
        let snap = store.get(&input.id).map_err(store_error)?;
        let part = part_record(
            &snap.value.meta,
            &snap.value.body,
            input.fields.as_deref(),
            &request,
            limits.character_limit,
            &store.workspace().root,
        )?;
        let version = snap.value.version;
        let text = match input.response_format {
            ResponseFormat::Markdown => Some(reading::document(&part.record, part.note.as_deref())),
            ResponseFormat::Json => None,
        };
        let output = IssuesGetOutput { issue: part.record, version: Some(version) };
        let mut reply = Reply::new(output).with_cached(snap.cached);
        reply = snap.warnings.into_iter().fold(reply, |r, w| r.warn_visibly(codes::of_store(w.code), w.message));
        reply = part.warnings.into_iter().fold(reply, |r, (code, w)| r.warn_visibly(code, w));
        reply.text = text;
        return Ok(reply);
    }
    let projection = match input.fields.as_deref() {
        None => Projection::whole(),
        fields => Projection::fields(fields),
    }
    .paths_from(&store.workspace().root)
    .limit(limits.character_limit);
    let (record, version, cached, warnings) = if projection.needs_body() {
        let snap = store.get(&input.id).map_err(store_error)?;
        let record = projection.record(&snap.value.meta, Some(&snap.value.body));
        (record, snap.value.version, snap.cached, snap.warnings)
    } else {
        let snap = store.get_meta(&input.id).map_err(store_error)?;
        let version = store.version(&snap.value).map_err(store_error)?;
        (projection.record(&snap.value, None), version, snap.cached, snap.warnings)
    };
    // The whole issue shows where it stands in the work graph.
    let record = if input.fields.is_none() { super::work::with_graph(store, record)? } else { record };
    // Who holds it, from the claim record (the file's assignee may lag in another clone).
    let wants = input.fields.as_ref().is_none_or(|f| f.contains(&crate::generated::IssueField::Assignee));
    let claim = wants.then(|| store.claim_of(&record.id).map(|c| claim_line(&c, store.claim_ttl()))).flatten();
    let text = match input.response_format {
        ResponseFormat::Markdown => Some(text::issue_document(&record))
            .map(|t| claim.as_ref().map_or_else(|| t.clone(), |c| format!("{t}\nClaim: {c}"))),
        ResponseFormat::Json => None,
    };
    let link = record.truncated.map(|_| link_to(&record.id));
    // About this one issue, so the model sees each warning whatever its client shows.
    let mut reply = warnings
        .into_iter()
        .fold(Reply::new(IssuesGetOutput { issue: record, version: Some(version) }).with_cached(cached), |r, w| {
            r.warn_visibly(codes::of_store(w.code), w.message)
        });
    reply.text = text;
    if let Some(c) = claim {
        reply = reply.with_context(serde_json::json!({ "claim": c }));
    }
    Ok(link.into_iter().fold(reply, with_whole_body))
}

/// A claim record in words: holder, since, lease end, or whose lease lapsed, or the tombstone.
fn claim_line(c: &crate::store::git::claims::Claim, ttl: std::time::Duration) -> String {
    match c.lapsed(ttl) {
        Some(end) => format!(
            "free to claim: the lease of {} lapsed at {}",
            c.holder,
            end.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        ),
        None => c.describe(),
    }
}

/// One issue's answer to an outline, section or offset request.
pub struct Part {
    pub record: IssueRecord,
    /// What the outline leaves out, for the text's header.
    pub note: Option<String>,
    /// What the caller should know about the part (a section no heading or several match, a
    /// body changed between pages).
    pub warnings: Vec<(WarningCode, String)>,
}

/// The record for a part of an issue: the fields asked for (the title when none are), and the
/// outline, section or page (issues_get, issues_get_batch).
pub fn part_record(
    meta: &IssueMeta,
    body: &str,
    fields: Option<&[IssueField]>,
    request: &reading::Request,
    limit: usize,
    root: &std::path::Path,
) -> Result<Part, ToolError> {
    let fields: Vec<IssueField> = match fields {
        Some(f) => f.iter().copied().filter(|f| *f != IssueField::Description).collect(),
        None => vec![IssueField::Title],
    };
    let mut record = Projection::fields(Some(&fields)).paths_from(root).record(meta, None);
    let mut piece = reading::read(&meta.id, &bodies::shown(body), request, limit)
        .map_err(|p| errors::offset_past_end(p.offset.to_string(), meta.id.clone(), p.end.to_string()))?;
    let note = piece.outline_note.clone();
    let warnings = std::mem::take(&mut piece.warnings);
    reading::fill(&mut record, piece);
    Ok(Part { record, note, warnings })
}

pub fn list(cx: &Handlers, input: IssuesListInput) -> ToolResult<IssuesListOutput> {
    let (store, limits): (&Store, &ResponseLimits) = (&cx.store, &cx.limits);
    let filter = issue_filter(&input.filters);
    let query = Query::new("updated:desc", &json!(input.filters));
    let mut warnings = Vec::new();
    let offset = match (&input.cursor, input.offset) {
        (Some(c), _) => query.offset(c).map_err(|why| errors::invalid_cursor("issues_list", why))?,
        (None, Some(o)) => {
            warnings.push((
                WarningCode::DEPRECATED_PARAMETER,
                "offset is deprecated; pass the cursor from the previous page instead.".to_string(),
            ));
            o.max(0) as usize
        }
        (None, None) => 0,
    };
    let size = match (input.limit, input.format) {
        // The argument rules hold it to tools.yaml's minimum and maximum.
        (Some(l), _) => l as usize,
        (None, ListFormat::Full) => limits.full_page_size,
        (None, _) => limits.page_size,
    };
    let snap =
        store.list_page(&filter, SortField::Updated, SortOrder::Desc, offset, Some(size)).map_err(store_error)?;
    let page = Page::new(offset, size, snap.value.total);
    // Rows (one line each) are what a model reads; records are for format full and for `fields`.
    let projection = match &input.fields {
        Some(fields) => Projection::fields(Some(fields)),
        None => Projection::format(input.format),
    }
    .paths_from(&store.workspace().root)
    .limit(limits::issues_list::DESCRIPTION_CHARS);
    let mut issues = Vec::with_capacity(page.len);
    for meta in &snap.value.items {
        let body = if projection.needs_body() { Some(store.read_body(meta).map_err(store_error)?) } else { None };
        issues.push(projection.record(meta, body.as_deref()));
    }
    let next = (page.remaining() > 0).then(|| query.cursor(page.offset + page.len));
    let returned = issues.len();
    let as_rows = input.fields.is_none() && input.format != ListFormat::Full;
    let rows: Vec<String> = if as_rows { issues.iter().map(text::issue_line).collect() } else { Vec::new() };
    let text = match input.response_format {
        ResponseFormat::Markdown => {
            // Records with a description read as documents; every other page as one line each.
            let documents = projection.needs_body();
            let mut lines = match (as_rows, documents) {
                (true, _) => rows.clone(),
                (false, true) => issues.iter().map(text::issue_document).collect(),
                (false, false) => issues.iter().map(text::issue_line).collect(),
            };
            let mut line = text::page_line("issues", returned, page.total, page.remaining(), next.as_deref());
            // The default differs from `docket list`'s (open and in progress): say which applied.
            if page.total > 0 && input.filters.status.as_ref().is_none_or(|s| s.is_empty()) {
                line.push_str(" Any status (no status filter).");
            }
            lines.push(line);
            Some(lines.join(if documents { "\n\n---\n\n" } else { "\n" }))
        }
        ResponseFormat::Json => None,
    };
    let links: Vec<_> = issues.iter().filter(|r| r.truncated.is_some()).map(|r| link_to(&r.id)).collect();
    let output = IssuesListOutput {
        rows: as_rows.then_some(rows),
        issues: (!as_rows).then_some(issues),
        total_count: page.total as i64,
        next: text::next_page(page.remaining(), next.as_deref()),
        next_cursor: next,
    };
    let context = json!({"sort": "updated desc", "format": input.format, "page_size": size, "offset": page.offset});
    let mut reply = Reply::new(output).with_context(context).with_cached(snap.cached).with_results(ResultCounts {
        total: page.total,
        returned,
        truncated: page.remaining() > 0,
    });
    reply.text = text;
    for (code, message) in warnings {
        reply = reply.warn_visibly(code, message);
    }
    for link in links {
        reply = with_whole_body(reply, link);
    }
    Ok(with_warnings(reply, snap.warnings))
}

/// Carries the store's warnings (skipped files, duplicate IDs) into `_meta.warnings`, and one
/// line that counts them where the model sees it (the full list is `workspace_doctor`'s job).
fn with_warnings<T>(reply: Reply<T>, warnings: Vec<StoreWarning>) -> Reply<T> {
    let count = |code| warnings.iter().filter(|w| w.code == code).count();
    let (duplicates, skipped) =
        (count(StoreWarningCode::DuplicateId), warnings.iter().find(|w| w.code == StoreWarningCode::SkippedFiles));
    let mut parts = Vec::new();
    if duplicates > 0 {
        parts.push(format!("{duplicates} ID(s) held by more than one file"));
    }
    if let Some(w) = skipped {
        parts.push(format!("{} file(s) skipped", w.paths.len()));
    }
    let summary = (!parts.is_empty())
        .then(|| format!("The workspace has {}; call workspace_doctor for the list and fixes.", parts.join(" and ")));
    let reply = warnings.into_iter().fold(reply, |r, w| r.warn(codes::of_store(w.code), w.message));
    match summary {
        Some(s) => reply.warn_visibly(codes::WORKSPACE_PROBLEMS, s),
        None => reply,
    }
}

/// The resource holding an issue's whole body, for a reply that cut it.
pub fn link_to(id: &str) -> (String, String, String) {
    (
        text::issue_uri(id),
        id.to_string(),
        format!("The whole of {id}; its chunk/{{start}}-{{end}} and structure resources read parts."),
    )
}

/// Points `reply` at the whole of a body it cut ([`link_to`]), and says so in a visible TRUNCATED
/// warning.
pub fn with_whole_body<T>(reply: Reply<T>, (uri, name, about): (String, String, String)) -> Reply<T> {
    let message =
        format!("The description of {name} was cut to the character limit; read {uri} or its chunks for the rest.");
    reply.with_link(uri, name, about).warn_visibly(WarningCode::TRUNCATED, message)
}
