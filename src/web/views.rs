//! The list view (a sortable table of the issues the filters match) and the statistics page
//! (counts by status, priority and assignee; created against closed over time).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Query, State};
use axum::response::Response;
use serde_json::{Value, json};

use super::Web;
use super::answer::{ApiError, blocking, reply, workspace_name};
use super::api::{Card, MAX_PAGE, marks};
use super::chart;
use super::query::{BoardQuery, apart, sort_rows};
use crate::store::{IssueMeta, Priority, Status};

/// Rows the list shows before "show more".
const ROWS: usize = 100;

/// `GET /api/list?sort=created&order=asc&offset=0`: one page of the matching issues, sorted.
pub async fn list(State(web): State<Arc<Web>>, Query(q): Query<BoardQuery>) -> Result<Response, ApiError> {
    let started = Instant::now();
    let store = Arc::clone(&web.app.store);
    let body = blocking(move || {
        let mut items = q.matching_shown(&store)?;
        let files = apart(&store, &mut items);
        let key = if q.sort.is_empty() { "updated" } else { q.sort.as_str() };
        let descending = match q.order.as_str() {
            "" => matches!(key, "updated" | "created" | "priority"),
            order => order == "desc",
        };
        sort_rows(&mut items, key, descending)?;
        let blocked = marks(&store)?;
        let limit = q.limit.unwrap_or(ROWS).min(MAX_PAGE);
        let rows: Vec<Card> = items.iter().skip(q.offset).take(limit).map(|m| Card::of(m).marked(&blocked)).collect();
        Ok(json!({
            "rows": rows,
            "count": items.len(),
            "offset": q.offset,
            "sort": key,
            "order": if descending { "desc" } else { "asc" },
            "files": files,
            "workspace": workspace_name(&store),
        }))
    })
    .await?;
    Ok(reply(body, started))
}

/// `GET /api/stats`: for the issues the filters match (every status unless `status` is given),
/// counts by status, priority, type and assignee, and created against closed over time (with
/// the chart as SVG).
pub async fn stats(State(web): State<Arc<Web>>, Query(mut q): Query<BoardQuery>) -> Result<Response, ApiError> {
    let started = Instant::now();
    if q.status.is_empty() {
        q.status = Status::ALL.iter().map(Status::as_str).collect::<Vec<_>>().join(",");
    }
    let store = Arc::clone(&web.app.store);
    let body = blocking(move || {
        let mut items = q.matching_shown(&store)?;
        let files = apart(&store, &mut items);
        let series = chart::Series::of(&items);
        Ok(json!({
            "total": items.len(),
            "files": files,
            "byStatus": counted(Status::ALL.iter().map(|s| s.as_str()), items.iter().map(|m| m.status.as_str())),
            "byPriority": counted(Priority::ALL.iter().rev().map(|p| p.as_str()), items.iter().map(|m| m.priority.as_str())),
            "byType": counted(crate::store::IssueType::ALL.iter().map(|t| t.as_str()), items.iter().map(|m| m.issue_type.as_str())),
            "byAssignee": by_assignee(&items),
            "created": series.created_total(),
            "closed": series.closed_total(),
            "undated": series.undated,
            "chart": series.svg(),
            "workspace": workspace_name(&store),
        }))
    })
    .await?;
    Ok(reply(body, started))
}

/// `[{key, count}]` for every key of `keys` in that order (zeros included).
fn counted<'a>(keys: impl Iterator<Item = &'a str>, values: impl Iterator<Item = &'a str>) -> Vec<Value> {
    let mut n: BTreeMap<&str, usize> = BTreeMap::new();
    for v in values {
        *n.entry(v).or_default() += 1;
    }
    keys.map(|k| json!({"key": k, "count": n.get(k).copied().unwrap_or(0)})).collect()
}

/// Assignees, most issues first, with the unassigned last (`key` null).
fn by_assignee(items: &[Arc<IssueMeta>]) -> Vec<Value> {
    let mut n: BTreeMap<&str, usize> = BTreeMap::new();
    let mut none = 0;
    for m in items {
        match m.assignee.as_deref().filter(|a| !a.is_empty()) {
            Some(a) => *n.entry(a).or_default() += 1,
            None => none += 1,
        }
    }
    let mut ranked: Vec<(&str, usize)> = n.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut out: Vec<Value> = ranked.into_iter().map(|(k, c)| json!({"key": k, "count": c})).collect();
    if none > 0 {
        out.push(json!({"key": null, "count": none}));
    }
    out
}
