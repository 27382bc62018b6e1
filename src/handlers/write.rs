//! issues_update, issues_delete, issues_mark_complete, issues_update_batch.

use super::Handlers;
use super::convert::{issue_type, priority, status, store_error};
use super::records::Projection;
use super::text;
use crate::codes;
use crate::generated::{
    BatchFailure, IssuesDeleteInput, IssuesDeleteOutput, IssuesMarkCompleteInput, IssuesMarkCompleteOutput,
    IssuesUpdateBatchInput, IssuesUpdateBatchOutput, IssuesUpdateInput, IssuesUpdateOutput, ListFormat, errors,
};
use crate::runtime::{Reply, ResultCounts, ToolError, ToolResult};
use crate::store::{Expect, IssueMeta, IssuePatch, Status, Store};

/// `""` (wrangler's convention) or `null` clears an optional text field; absent leaves it.
fn clearable(v: Option<Option<String>>) -> Option<Option<String>> {
    v.map(|s| s.filter(|s| !s.trim().is_empty()))
}

pub fn update(cx: &Handlers, input: IssuesUpdateInput) -> ToolResult<IssuesUpdateOutput> {
    update_editing_blockers(cx, input, BlockerEdit::default())
}

/// Blockers added to and removed from the ones an issue has when it is written: the CLI's
/// `docket update --add-blocker/--remove-blocker` (see [`Handlers::issues_update_editing_blockers`]).
#[derive(Debug, Clone, Default)]
pub struct BlockerEdit {
    pub add: Vec<String>,
    pub remove: Vec<String>,
}

impl BlockerEdit {
    fn is_empty(&self) -> bool {
        self.add.is_empty() && self.remove.is_empty()
    }
}

/// issues_update with `edit` applied by the store under its lock to the blockers the file has
/// then: one write, no read before it, nothing to retry. The reply's record names the blockers
/// written when `edit` is not empty (the caller did not send the list).
pub fn update_editing_blockers(
    cx: &Handlers,
    input: IssuesUpdateInput,
    edit: BlockerEdit,
) -> ToolResult<IssuesUpdateOutput> {
    let store: &Store = &cx.store;
    let edits_blockers = !edit.is_empty();
    let context = input
        .wrangler_context
        .map(|c| serde_json::to_value(c).ok().and_then(|v| v.as_object().cloned()).unwrap_or_default());
    let requested = input.title.is_some()
        || input.description.is_some()
        || input.r#type.is_some()
        || input.status.is_some()
        || input.priority.is_some()
        || input.labels.is_some()
        || input.assignee.is_some()
        || input.project.is_some()
        || context.is_some()
        || input.blocked_by.is_some()
        || edits_blockers;
    let patch = IssuePatch {
        title: input.title,
        description: input.description,
        issue_type: input.r#type.map(issue_type),
        status: input.status.map(status),
        priority: input.priority.map(priority),
        labels: input.labels,
        assignee: clearable(input.assignee),
        project: clearable(input.project),
        context,
        blocked_by: input.blocked_by,
        add_blockers: edit.add,
        remove_blockers: edit.remove,
        expect: input.if_updated_at.map(Expect::UpdatedAt),
        if_version: input.if_version,
        ..IssuePatch::default()
    };
    let (meta, changed) = apply(store, &input.id, patch)?;
    let closed = changed.iter().any(|c| c == "status") && meta.status.is_archived();
    let (unblocked, unblocked_line) = super::work::unblocked(store, &meta.id, closed);
    let projection = Projection::format(ListFormat::Summary);
    let record = if edits_blockers { projection.with_blockers() } else { projection }.record(&meta, None);
    let text = if !requested {
        format!(
            "Nothing to change on {}: the call gave no field to change (null counts as not given, except for \
             assignee and project, where it clears them). Pass the fields to change, e.g. status.",
            meta.id
        )
    } else if changed.is_empty() {
        format!("No change to {}: the values given are already set.", meta.id)
    } else {
        format!("Updated {} ({}): {}{unblocked_line}", meta.id, changed.join(", "), text::issue_line(&record))
    };
    let reply = Reply::new(IssuesUpdateOutput { issue: record, changed, unblocked }).with_text(text);
    Ok(with_queued_release(store, &meta.id, reply))
}

/// `reply` with a warning when the release of `id`'s claim is queued: the claims remote did not
/// take it in time, so other clones still see the claim until the queue is finished.
pub fn with_queued_release<T>(store: &Store, id: &str, reply: Reply<T>) -> Reply<T> {
    let Some(p) = store.pending_claims().into_iter().find(|p| p.id.eq_ignore_ascii_case(id)) else { return reply };
    let why = if p.why.is_empty() { "the claims remote has not taken it yet".to_string() } else { p.why };
    let message = format!(
        "{id} is changed here, but {}'s claim of it is still on the claims remote: {why}. Its release is queued in this workspace and finished by the next issues_claim or issues_ready that reaches the remote, or by `docket doctor --fix`; until then other clones see it claimed.",
        p.holder
    );
    reply.warn(codes::CLAIMS_REMOTE, message)
}

/// Applies `patch` (under the store's lock, to the file as it is now) and reports which fields
/// changed compared with the issue just before.
fn apply(store: &Store, id: &str, patch: IssuePatch) -> Result<(IssueMeta, Vec<String>), ToolError> {
    let updated = store.update(id, patch).map_err(store_error)?;
    Ok((updated.issue.meta, updated.changed.into_iter().map(String::from).collect()))
}

pub fn delete(cx: &Handlers, input: IssuesDeleteInput) -> ToolResult<IssuesDeleteOutput> {
    let store: &Store = &cx.store;
    if !input.confirm {
        return Err(errors::confirmation_required(&input.id));
    }
    let meta = store.delete(&input.id).map_err(store_error)?;
    let text = format!("Deleted {} ({}).", meta.id, meta.title);
    let id = meta.id.clone();
    Ok(with_queued_release(
        store,
        &id,
        Reply::new(IssuesDeleteOutput { id: meta.id, title: meta.title }).with_text(text),
    ))
}

pub fn mark_complete(cx: &Handlers, input: IssuesMarkCompleteInput) -> ToolResult<IssuesMarkCompleteOutput> {
    let store: &Store = &cx.store;
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let append_body = input
        .note
        .filter(|n| !n.trim().is_empty())
        .map(|note| format!("\n\n---\n**Completion Notes ({now}):**\n{note}"));
    let patch = IssuePatch { status: Some(Status::Closed), append_body, ..IssuePatch::default() };
    let updated = store.update(&input.id, patch).map_err(store_error)?;
    let closed = updated.changed.contains(&"status");
    let issue = updated.issue;
    let (unblocked, unblocked_line) = super::work::unblocked(store, &issue.meta.id, closed);
    let record = Projection::format(ListFormat::Summary).record(&issue.meta, None);
    let text = format!("Closed {}{unblocked_line}", text::issue_line(&record));
    let id = record.id.clone();
    Ok(with_queued_release(
        store,
        &id,
        Reply::new(IssuesMarkCompleteOutput { issue: record, unblocked }).with_text(text),
    ))
}

pub fn update_batch(cx: &Handlers, input: IssuesUpdateBatchInput) -> ToolResult<IssuesUpdateBatchOutput> {
    let store: &Store = &cx.store;
    let total = input.updates.len();
    let (mut updated, mut unchanged, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    let mut closed: Vec<String> = Vec::new();
    for item in input.updates {
        let patch = IssuePatch {
            status: item.status.map(status),
            priority: item.priority.map(priority),
            labels: item.labels,
            assignee: clearable(item.assignee),
            project: clearable(item.project),
            if_version: item.if_version,
            ..IssuePatch::default()
        };
        match apply(store, &item.id, patch) {
            Ok((meta, changed)) if changed.is_empty() => unchanged.push(meta.id),
            Ok((meta, changed)) => {
                if changed.iter().any(|c| c == "status") && meta.status.is_archived() {
                    closed.push(meta.id.clone());
                }
                updated.push(meta.id);
            }
            // An ID is at most 100 characters (longer ones are refused): a longer one comes back
            // clipped, not as a megabyte of answer.
            Err(e) => errors.push(BatchFailure { id: crate::util::clip(&item.id, 100), error: e.message }),
        }
    }
    // Asked once every update is in: an issue two closes of the batch were blocking is ready
    // only after both, and one the batch itself closed is not offered.
    let mut unblocked: Vec<String> = Vec::new();
    for id in &closed {
        for ready in super::work::unblocked(store, id, true).0.into_iter().flatten() {
            if !unblocked.contains(&ready) && !closed.contains(&ready) {
                unblocked.push(ready);
            }
        }
    }
    // The model asked for the changes; what it needs back is which IDs took them and why others did not.
    let mut lines = Vec::new();
    for (label, ids) in [("Updated", &updated), ("Unchanged (already so)", &unchanged)] {
        if !ids.is_empty() {
            lines.push(format!("{label} {}: {}", ids.len(), ids.join(", ")));
        }
    }
    lines.extend(errors.iter().map(|f| format!("Failed {}: {}", f.id, f.error)));
    if !unblocked.is_empty() {
        lines.push(format!("Unblocked (now ready unless taken): {}", unblocked.join(", ")));
    }
    let non_empty = |v: Vec<String>| (!v.is_empty()).then_some(v);
    let output = IssuesUpdateBatchOutput {
        succeeded: (updated.len() + unchanged.len()) as i64,
        failed: errors.len() as i64,
        updated: non_empty(updated),
        unchanged: non_empty(unchanged),
        errors: (!errors.is_empty()).then_some(errors),
        unblocked: non_empty(unblocked),
    };
    Ok(Reply::new(output).with_text(lines.join("\n")).with_results(ResultCounts {
        total,
        returned: total,
        truncated: false,
    }))
}
