//! Tools that read and change one issue's attributes besides its text: issues_labels,
//! issues_projects and issues_metadata (wranglerContext). Each `list`/`get` reads from the index;
//! every other operation is a write, applied by the store under the issue's lock.

use super::Handlers;
use super::convert::store_error;
use crate::generated::{
    CountEntry, IssuesLabelsInput, IssuesLabelsOperation, IssuesLabelsOutput, IssuesMetadataInput,
    IssuesMetadataOperation, IssuesMetadataOutput, IssuesProjectsInput, IssuesProjectsOperation, IssuesProjectsOutput,
    errors,
};
use crate::runtime::{Reply, ToolError, ToolResult};
use crate::store::{IssueMeta, IssuePatch, Store};

/// Counts as entries, largest first, then alphabetical.
fn counted(counts: Vec<(String, usize)>) -> Vec<CountEntry> {
    let mut groups: Vec<CountEntry> =
        counts.into_iter().map(|(key, count)| CountEntry { key, count: count as i64 }).collect();
    groups.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key)));
    groups
}

/// A parameter an operation requires although the tool declares it optional.
fn need<'a>(value: &'a Option<String>, tool: &str, operation: &str, param: &str) -> Result<&'a str, ToolError> {
    value
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| errors::missing_operation_param(tool, operation, param))
}

pub fn labels(cx: &Handlers, input: IssuesLabelsInput) -> ToolResult<IssuesLabelsOutput> {
    let store: &Store = &cx.store;
    const TOOL: &str = "issues_labels";
    // With an issue, list is that issue's labels (as wrangler answers); without, every label.
    if let (IssuesLabelsOperation::List, Some(id)) = (input.operation, input.issue_id.as_deref()) {
        let snap = store.get_meta(id).map_err(store_error)?;
        return Ok(issue_labels(snap.value).with_cached(snap.cached));
    }
    if input.operation == IssuesLabelsOperation::List {
        let snap = store.label_counts().map_err(store_error)?;
        let (labels, cached) = (counted(snap.value), snap.cached);
        let text = if labels.is_empty() {
            "No labels yet.".to_string()
        } else {
            format!(
                "{} labels: {}",
                labels.len(),
                labels.iter().map(|l| format!("{} ({})", l.key, l.count)).collect::<Vec<_>>().join(", ")
            )
        };
        let output = IssuesLabelsOutput { labels: Some(labels), issue_id: None, issue_labels: None };
        return Ok(Reply::new(output).with_text(text).with_cached(cached));
    }
    let op = input.operation.as_str();
    let id = need(&input.issue_id, TOOL, op, "issueId")?;
    let given =
        input.labels.filter(|l| !l.is_empty()).ok_or_else(|| errors::missing_operation_param(TOOL, op, "labels"))?;
    // Applied by the store to the labels as they are on disk under the lock, so parallel adds
    // from several calls or processes all survive.
    let patch = if input.operation == IssuesLabelsOperation::Add {
        IssuePatch { add_labels: given, ..IssuePatch::default() }
    } else {
        IssuePatch { remove_labels: given, ..IssuePatch::default() }
    };
    let after = store.update(id, patch).map_err(store_error)?.issue.meta;
    Ok(issue_labels(after))
}

/// One issue's labels, as list with an issueId, add and remove answer.
fn issue_labels(meta: IssueMeta) -> Reply<IssuesLabelsOutput> {
    let text =
        format!("{} labels: {}", meta.id, if meta.labels.is_empty() { "none".into() } else { meta.labels.join(", ") });
    let output = IssuesLabelsOutput { labels: None, issue_id: Some(meta.id), issue_labels: Some(meta.labels) };
    Reply::new(output).with_text(text)
}

pub fn projects(cx: &Handlers, input: IssuesProjectsInput) -> ToolResult<IssuesProjectsOutput> {
    let store: &Store = &cx.store;
    const TOOL: &str = "issues_projects";
    if input.operation == IssuesProjectsOperation::List {
        let snap = store.project_counts().map_err(store_error)?;
        let (projects, cached) = (counted(snap.value), snap.cached);
        let text = if projects.is_empty() {
            "No projects yet.".to_string()
        } else {
            projects.iter().map(|p| format!("{} ({})", p.key, p.count)).collect::<Vec<_>>().join(", ")
        };
        let output = IssuesProjectsOutput { projects: Some(projects), issue_id: None, project: None };
        return Ok(Reply::new(output).with_text(text).with_cached(cached));
    }
    let op = input.operation.as_str();
    let id = need(&input.issue_id, TOOL, op, "issueId")?;
    let project = if input.operation == IssuesProjectsOperation::Add {
        Some(need(&input.project, TOOL, op, "project")?.to_string())
    } else {
        None
    };
    let after = store
        .update(id, IssuePatch { project: Some(project), ..IssuePatch::default() })
        .map_err(store_error)?
        .issue
        .meta;
    let text = match &after.project {
        Some(p) => format!("{} is now in project {p}.", after.id),
        None => format!("{} has no project now.", after.id),
    };
    Ok(Reply::new(IssuesProjectsOutput { projects: None, issue_id: Some(after.id), project: after.project })
        .with_text(text))
}

pub fn metadata(cx: &Handlers, input: IssuesMetadataInput) -> ToolResult<IssuesMetadataOutput> {
    let store: &Store = &cx.store;
    const TOOL: &str = "issues_metadata";
    let patch = match input.operation {
        IssuesMetadataOperation::Get => None,
        IssuesMetadataOperation::Set => {
            let key = need(&input.key, TOOL, "set", "key")?;
            let text = input.value.clone().ok_or_else(|| errors::missing_operation_param(TOOL, "set", "value"))?;
            // JSON text is stored as the value it writes; any other text as a string.
            let value = serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .filter(|v| !v.is_string())
                .unwrap_or(serde_json::Value::String(text));
            Some(IssuePatch { set_context: vec![(key.to_string(), value)], ..IssuePatch::default() })
        }
        IssuesMetadataOperation::Remove => {
            let key = need(&input.key, TOOL, "remove", "key")?;
            Some(IssuePatch { remove_context: vec![key.to_string()], ..IssuePatch::default() })
        }
    };
    // A change is applied by the store to wranglerContext as it is on disk under the lock.
    let meta = match patch {
        Some(patch) => store.update(&input.issue_id, patch).map_err(store_error)?.issue.meta,
        None => store.get_meta(&input.issue_id).map_err(store_error)?.value,
    };
    let context = meta.context.clone();
    let shown = match input.key.as_deref().filter(|_| input.operation == IssuesMetadataOperation::Get) {
        Some(k) => {
            format!("{}.{k} = {}", meta.id, context.get(k).map(|v| v.to_string()).unwrap_or_else(|| "(not set)".into()))
        }
        None => format!("{} wranglerContext: {}", meta.id, serde_json::Value::Object(context.clone())),
    };
    Ok(Reply::new(IssuesMetadataOutput { issue_id: meta.id, wrangler_context: context }).with_text(shown))
}
