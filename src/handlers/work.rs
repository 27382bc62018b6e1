//! issues_ready, issues_claim, and the work graph in other tools' answers (issues_get's blockers,
//! what a close unblocked).

use serde_json::json;

use super::Handlers;
use super::convert::store_error;
use super::paging::{Page, Query};
use super::records::Projection;
use super::text;
use crate::codes;
use crate::generated::{
    IssueRecord, IssuesClaimInput, IssuesClaimOutput, IssuesReadyInput, IssuesReadyOutput, ListFormat, errors, limits,
};
use crate::runtime::{Reply, ResultCounts, ToolError, ToolResult};
use crate::store::{IssueFilter, Store};

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
    let (snap, claims) = store.ready_claimable(&filter, assignee, offset, size).map_err(store_error)?;
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
            if let Some((_, lapsed)) = claims.lapsed.iter().find(|(id, _)| id.eq_ignore_ascii_case(&m.id)) {
                extra.push(format!("{lapsed}, free to claim"));
            }
            let tail = if extra.is_empty() { String::new() } else { format!(" ({})", extra.join("; ")) };
            format!("{} {} {}{tail}", m.id, m.priority, m.title)
        })
        .collect();
    let next = (page.remaining() > 0).then(|| query.cursor(page.offset + page.len));
    let returned = rows.len();
    let mut lines = rows.clone();
    lines.push(text::page_line("ready issues", returned, page.total, page.remaining(), next.as_deref()));
    if claims.hidden > 0 {
        lines.push(format!(
            "{} more are ready by their files but claimed (or closed) elsewhere: left out.",
            claims.hidden
        ));
    }
    if claims.duplicates > 0 {
        lines.push(format!(
            "{} more ID(s) are ready but left out: each is held by several files, so a claim would be refused (workspace_doctor names them).",
            claims.duplicates
        ));
    }
    if let (Some(branch), true) = (&claims.branch, claims.closed_upstream > 0) {
        lines.push(format!(
            "{} more are closed on {branch}, which this clone has not pulled yet: left out (`git pull` to see them closed).",
            claims.closed_upstream
        ));
    }
    if let (Some(branch), true) = (&claims.branch, claims.not_pushed > 0) {
        lines.push(format!(
            "{} more were created here and are not on {branch} yet: left out, as a merge may still renumber them; push, then claim them.",
            claims.not_pushed
        ));
    }
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
    if claims.duplicates > 0 {
        context["duplicate_ids_left_out"] = json!(claims.duplicates);
    }
    if claims.checked && claims.unchecked.is_none() {
        // How fresh the claim records are: the remote's list is reused for a moment.
        context["claims"] =
            json!({"remote": claims.remote, "age_ms": claims.age.as_millis() as u64, "hidden": claims.hidden});
        if claims.stale.is_some() {
            context["claims"]["stale"] = json!(true);
        }
        if let Some(branch) = &claims.branch {
            context["claims"]["branch"] = json!(branch);
            context["claims"]["closed_there"] = json!(claims.closed_upstream);
            context["claims"]["not_pushed"] = json!(claims.not_pushed);
        }
    }
    let mut reply = Reply::new(output).with_context(context).with_cached(snap.cached).with_results(ResultCounts {
        total: page.total,
        returned,
        truncated: page.remaining() > 0,
    });
    reply.text = text;
    if let Some(why) = &claims.unchecked {
        let message = format!("Claims held elsewhere were not checked: {why}. Some of these may be taken.");
        reply = reply.warn(codes::STALE_INDEX, message);
    }
    if let Some(why) = &claims.stale {
        let message = format!(
            "{why}; the claims shown are the last it listed, {} old, so some of these may be taken since.",
            crate::store::git::remote::seconds(std::time::Duration::from_secs(claims.age.as_secs()))
        );
        reply = reply.warn(codes::STALE_INDEX, message);
    }
    if let Some(remote) = store.claiming_alone() {
        reply = reply.warn(codes::CLAIMS_REMOTE, crate::store::pending::alone_warning(&remote));
    }
    Ok(snap.warnings.into_iter().fold(reply, |r, w| r.warn(codes::of_store(w.code), w.message)))
}

pub fn claim(cx: &Handlers, input: IssuesClaimInput) -> ToolResult<IssuesClaimOutput> {
    let store: &Store = &cx.store;
    let assignee = input.assignee.trim();
    let takeover = input.takeover_reason.as_deref();
    let record_of = |meta: &crate::store::IssueMeta| {
        let mut record = Projection::format(ListFormat::Summary).record(meta, None);
        record.assignee = meta.assignee.clone();
        record
    };
    if assignee.chars().any(char::is_control) {
        return Err(errors::invalid_type("assignee", "a name without control characters", "one with them"));
    }
    // A release or a takeover is of a named issue; only a plain claim may pick the next one.
    if input.id.is_none() && (input.release == Some(true) || takeover.is_some()) {
        return Err(errors::missing_required("issues_claim", "id"));
    }
    if input.release == Some(true) {
        let Some(id) = input.id.as_deref() else { return Err(errors::missing_required("issues_claim", "id")) };
        let released = store.release(id, assignee, takeover).map_err(store_error)?;
        let record = record_of(&released.updated.issue.meta);
        let text = match &released.claim {
            Some(c) => format!("Released {} ({}); it is open and unassigned again.", record.id, c.describe()),
            None => format!("Released {}; it is open and unassigned again.", record.id),
        };
        return Ok(Reply::new(IssuesClaimOutput { issue: Some(record), claimed: false }).with_text(text));
    }
    let updated = match input.id.as_deref() {
        Some(id) => store.claim_with(id, assignee, takeover).map_err(store_error)?,
        None => {
            let filter = IssueFilter {
                labels: input.labels.clone().unwrap_or_default(),
                project: input.project.clone(),
                parent_task_id: input.parent_task_id.clone(),
                ..IssueFilter::default()
            };
            match store.claim_next(&filter, assignee).map_err(store_error)? {
                Some(updated) => updated,
                None => {
                    let text = "Nothing is ready to claim now: every ready issue is taken or blocked (or, through a claims remote, closed there or not pushed yet). Call issues_ready to see why, or issues_list with blocked: true to see what waits.";
                    return Ok(Reply::new(IssuesClaimOutput { issue: None, claimed: false }).with_text(text));
                }
            }
        }
    };
    let record = record_of(&updated.issue.meta);
    let claimed = !updated.changed.is_empty();
    // Read last: a call paused past its lease gives no "Claimed" for what is someone else's since.
    let held = match claimed {
        true => store.claim_still_ours(&record.id, assignee).map_err(store_error)?,
        false => store.claim_of(&record.id),
    };
    let lease = held
        .filter(|c| !c.lease.is_empty())
        .map(|c| format!(" (lease until {}, renewed while this session lives)", c.lease))
        .unwrap_or_default();
    let text = match claimed {
        true => format!("Claimed {} for {assignee}{lease}: {}", record.id, text::issue_line(&record)),
        false => format!("{} is already yours ({assignee}) and in progress{lease}; nothing changed.", record.id),
    };
    let mut reply = Reply::new(IssuesClaimOutput { issue: Some(record), claimed }).with_text(text);
    if let Some(remote) = store.claiming_alone() {
        reply = reply.warn(codes::CLAIMS_REMOTE, crate::store::pending::alone_warning(&remote));
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
