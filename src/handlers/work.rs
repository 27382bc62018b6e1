//! issues_ready, issues_claim, and the work graph in other tools' answers (issues_get's blockers,
//! what a close unblocked).

use serde_json::json;

use super::Handlers;
use super::convert::store_error;
use super::paging::{Page, Query};
use super::records::Projection;
use super::text;
use crate::generated::{
    IssueRecord, IssuesClaimInput, IssuesClaimOutput, IssuesReadyInput, IssuesReadyOutput, ListFormat, errors, limits,
};
use crate::runtime::{Reply, ResultCounts, ToolError, ToolResult, WarningCode};
use crate::store::{HeldClaims, IssueFilter, Ready, Snapshot, Store};

pub fn ready(cx: &Handlers, input: IssuesReadyInput) -> ToolResult<IssuesReadyOutput> {
    let store: &Store = &cx.store;
    let filter = IssueFilter {
        labels: input.labels.clone().unwrap_or_default(),
        project: input.project.clone(),
        parent_task_id: input.parent_task_id.clone(),
        ..IssueFilter::default()
    };
    let assignee = input.assignee.as_deref().map(str::trim).filter(|a| !a.is_empty());
    let query = Query::new("ready", &json!([assignee, input.labels, input.project, input.parent_task_id]));
    let offset = match &input.cursor {
        Some(c) => query.offset(c).map_err(|why| errors::invalid_cursor("issues_ready", why))?,
        None => 0,
    };
    let size = input.limit.map_or(limits::issues_ready::DEFAULT_PAGE_SIZE, |l| l as usize);
    let held = store.held_claims();
    let hidden_ids = match &held {
        Ok(Some(h)) => h.ids.as_slice(),
        _ => &[],
    };
    let (snap, hidden) = ready_unclaimed(store, &filter, assignee, offset, size, hidden_ids).map_err(store_error)?;
    let ready = snap.value;
    let page = Page::new(offset, size, ready.total);
    let rows: Vec<String> = ready
        .issues
        .iter()
        .map(|(m, unblocks)| {
            let mut extra = Vec::new();
            if let Some(a) = m.assignee.as_deref().filter(|a| !a.trim().is_empty()) {
                extra.push(format!("assignee: {a}"));
            }
            if *unblocks > 0 {
                extra.push(format!("unblocks {unblocks}"));
            }
            let tail = if extra.is_empty() { String::new() } else { format!(" ({})", extra.join("; ")) };
            format!("{} {} {}{tail}", m.id, m.priority, m.title)
        })
        .collect();
    let next = (page.remaining() > 0).then(|| query.cursor(page.offset + page.len));
    let returned = rows.len();
    let mut lines = rows.clone();
    lines.push(text::page_line("ready issues", returned, page.total, page.remaining(), next.as_deref()));
    if ready.open_blocked > 0 {
        lines.push(format!("{} open issue(s) wait on a blocker (issues_list with blocked: true).", ready.open_blocked));
    }
    let text = Some(lines.join("\n"));
    let output = IssuesReadyOutput {
        rows,
        total_count: page.total as i64,
        blocked: ready.open_blocked as i64,
        next: text::next_page(page.remaining(), next.as_deref()),
        next_cursor: next,
    };
    let mut context = json!({"sort": "priority desc, created asc", "page_size": size, "offset": page.offset});
    if let Ok(Some(h)) = &held {
        // How fresh the claim refs are: the remote's list is reused for a moment, and when the
        // remote does not answer, the last list it gave is used.
        context["claims"] = json!({"remote": h.remote, "age_ms": h.age.as_millis() as u64, "hidden": hidden});
        if h.stale.is_some() {
            context["claims"]["stale"] = json!(true);
        }
    }
    let mut reply = Reply::new(output).with_context(context).with_cached(snap.cached).with_results(ResultCounts {
        total: page.total,
        returned,
        truncated: page.remaining() > 0,
    });
    reply.text = text;
    if let Err(why) = &held {
        let message = format!("Claims held elsewhere were not checked: {why}. Some of these may be taken.");
        reply = reply.warn(WarningCode::StaleIndex, message);
    }
    if let Ok(Some(HeldClaims { stale: Some(why), age, .. })) = &held {
        let message = format!(
            "{why}; the claims shown are the last it listed, {} old, so some of these may be taken since.",
            crate::store::git::remote::seconds(std::time::Duration::from_secs(age.as_secs()))
        );
        reply = reply.warn(WarningCode::StaleIndex, message);
    }
    if let Some(remote) = store.claiming_alone() {
        reply = reply.warn(WarningCode::ClaimsRemote, crate::store::pending::alone_warning(&remote));
    }
    Ok(snap.warnings.into_iter().fold(reply, |r, w| r.warn(WarningCode::from(w.code), w.message)))
}

/// The ready page without the issues claim refs say are held (on the claims remote, or by
/// another worktree), and how many ready issues those are; exact across pages.
fn ready_unclaimed(
    store: &Store,
    filter: &IssueFilter,
    assignee: Option<&str>,
    offset: usize,
    size: usize,
    held: &[String],
) -> Result<(Snapshot<Ready>, usize), crate::store::StoreError> {
    if held.is_empty() {
        return Ok((store.ready(filter, assignee, offset, size)?, 0));
    }
    let only_held = IssueFilter { ids: held.to_vec(), ..filter.clone() };
    let hidden = store.ready(&only_held, assignee, 0, held.len())?.value.total;
    let mut snap = store.ready(filter, assignee, 0, offset + size + hidden)?;
    let ready = &mut snap.value;
    ready.issues.retain(|(m, _)| !held.iter().any(|h| h.eq_ignore_ascii_case(&m.id)));
    ready.issues = ready.issues.drain(..).skip(offset).take(size).collect();
    ready.total = ready.total.saturating_sub(hidden);
    Ok((snap, hidden))
}

pub fn claim(cx: &Handlers, input: IssuesClaimInput) -> ToolResult<IssuesClaimOutput> {
    let store: &Store = &cx.store;
    let assignee = input.assignee.trim();
    let updated = store.claim_with(&input.id, assignee, input.takeover_reason.as_deref()).map_err(store_error)?;
    let mut record = Projection::format(ListFormat::Summary).record(&updated.issue.meta, None);
    record.assignee = updated.issue.meta.assignee.clone();
    let claimed = !updated.changed.is_empty();
    let text = match claimed {
        true => format!("Claimed {} for {assignee}: {}", record.id, text::issue_line(&record)),
        false => format!("{} is already yours ({assignee}) and in progress; nothing changed.", record.id),
    };
    let mut reply = Reply::new(IssuesClaimOutput { issue: record, claimed }).with_text(text);
    if let Some(remote) = store.claiming_alone() {
        reply = reply.warn(WarningCode::ClaimsRemote, crate::store::pending::alone_warning(&remote));
    }
    Ok(reply)
}

/// How many issues of each chain an answer names; beads' real chains are 10-11 deep, rarely wide.
pub const CHAIN_CAP: usize = 50;

/// `record` with the whole chain of its open blockers (its own, its parents', theirs) and the
/// whole chain of the issues it blocks: a blocker beyond the first level names the issue it
/// blocks (`ISS-3 (blocks ISS-2)`), one inherited from a parent names the parent, one further
/// down what it blocks names the issue it is reached through (`ISS-6 (via ISS-5)`); at most
/// [`CHAIN_CAP`] each, then `+N more`.
pub fn with_graph(store: &Store, mut record: IssueRecord) -> Result<IssueRecord, ToolError> {
    let meta = store.get_meta(&record.id).map_err(store_error)?.value;
    let chains = store.chains(&meta, CHAIN_CAP).map_err(store_error)?;
    let more = |n: usize| (n > 0).then(|| format!("+{n} more"));
    let (links, hidden) = chains.blockers;
    let open: Vec<String> = links
        .iter()
        .map(|l| match (&l.via, l.via_parent) {
            (None, _) => l.id.clone(),
            (Some(p), true) => format!("{} (via parent {p})", l.id),
            (Some(b), false) => format!("{} (blocks {b})", l.id),
        })
        .chain(more(hidden))
        .collect();
    record.open_blockers = (!open.is_empty()).then_some(open);
    let (links, hidden) = chains.blocks;
    let blocks: Vec<String> = links
        .iter()
        .map(|l| match &l.via {
            None => l.id.clone(),
            Some(b) => format!("{} (via {b})", l.id),
        })
        .chain(more(hidden))
        .collect();
    record.blocks = (!blocks.is_empty()).then_some(blocks);
    Ok(record)
}

/// After an update that closed an issue: the open issues it left unblocked, and a line saying so.
pub fn unblocked(store: &Store, id: &str, closed: bool) -> (Option<Vec<String>>, String) {
    if !closed {
        return (None, String::new());
    }
    match store.unblocked_by(id) {
        Ok(ids) if !ids.is_empty() => {
            let line = format!("\nUnblocked (now ready unless taken): {}", ids.join(", "));
            (Some(ids), line)
        }
        _ => (None, String::new()),
    }
}
