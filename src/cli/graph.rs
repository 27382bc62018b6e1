//! The work graph for people: `block`, `unblock`, `claim`, `ready` and `tree`. Like every
//! command, each calls tools (issues_get, issues_update with ifVersion, issues_claim,
//! issues_ready, issues_get_batch, issues_list) and renders their results.

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::args::{BlockArgs, ClaimArgs, ReadyArgs, ReleaseArgs, listed, wire_names};
use super::listing::list_table;
use super::table::terminal_width;
use super::{Core, json_text, style};
use crate::generated::arguments::{
    IssueFilters, IssuesClaimInput, IssuesGetBatchInput, IssuesGetInput, IssuesListInput, IssuesReadyInput,
    IssuesUpdateInput,
};
use crate::generated::{IssueField, IssueRecord, limits};

/// issues_get arguments for the whole issue.
fn whole(id: &str) -> IssuesGetInput {
    IssuesGetInput { id: id.to_string(), ..IssuesGetInput::default() }
}

/// `docket block ID --by X,Y` (`add`) and `docket unblock ID --by X` (not `add`): a
/// read-modify-write of blockedBy made safe by ifVersion, retried when someone wrote between.
pub(super) fn block(core: &Core, a: &BlockArgs, add: bool) -> Result<String, String> {
    for _ in 0..5 {
        let (got, _) = core.call_as(&whole(&a.id))?;
        let mut list = got.issue.blocked_by.clone().unwrap_or_default();
        let same = |x: &String, y: &String| x.eq_ignore_ascii_case(y);
        for b in &a.by {
            match add {
                true if !list.iter().any(|x| same(x, b)) => list.push(b.clone()),
                false => list.retain(|x| !same(x, b)),
                _ => {}
            }
        }
        let args = IssuesUpdateInput {
            id: got.issue.id,
            blocked_by: Some(list.clone()),
            if_version: got.version,
            ..IssuesUpdateInput::default()
        };
        match core.call_as(&args) {
            Ok((out, _)) => {
                let now = out.issue.id;
                return Ok(match (out.changed.is_empty(), list.is_empty()) {
                    (true, _) => format!("No change to {now}: its blockers are already so.\n"),
                    (false, true) => format!("{now} has no blockers now.\n"),
                    (false, false) => format!("{now} is blocked by {}.\n", list.join(", ")),
                });
            }
            Err(e) if e.contains("changed since you read it") => continue,
            Err(e) => return Err(e),
        }
    }
    Err(format!("{} kept changing while its blockers were being written; try again.", a.id))
}

pub(super) fn claim(core: &Core, a: &ClaimArgs) -> Result<String, String> {
    let args = IssuesClaimInput {
        id: a.id.clone(),
        assignee: a.assignee.clone(),
        takeover_reason: a.force.clone(),
        ..IssuesClaimInput::default()
    };
    let (out, reply) = core.call_as(&args)?;
    let Some(issue) = out.issue else { return Ok(format!("{}\n", reply.text.unwrap_or_default())) };
    let title = issue.title.unwrap_or_default();
    Ok(match out.claimed {
        true => format!("Claimed {} for {}: {title}\n", issue.id, a.assignee),
        false => format!("{} is already {}'s and in progress (lease renewed): {title}\n", issue.id, a.assignee),
    })
}

pub(super) fn release(core: &Core, a: &ReleaseArgs) -> Result<String, String> {
    let args = IssuesClaimInput {
        id: Some(a.id.clone()),
        assignee: a.assignee.clone(),
        takeover_reason: a.force.clone(),
        release: Some(true),
        ..IssuesClaimInput::default()
    };
    let (_, reply) = core.call_as(&args)?;
    Ok(format!("{}\n", reply.text.unwrap_or_default()))
}

/// Open work nothing blocks, highest priority first then oldest (issues_ready), shown as a table.
pub(super) fn ready(core: &Core, a: &ReadyArgs) -> Result<String, String> {
    let f = &a.filters;
    let wanted_types: Vec<String> = f.issue_type.iter().map(|t| t.trim().to_lowercase()).collect();
    let mut rows: Vec<(String, usize)> = Vec::new();
    let mut cursor: Option<String> = None;
    let (mut total, mut blocked) = (0usize, 0i64);
    // What the claim records left out, and the claims offered again: the tool's own words.
    let mut notes: Vec<String> = Vec::new();
    loop {
        let args = IssuesReadyInput {
            limit: Some(limits::issues_list::MAX_PAGE_SIZE as i64),
            labels: listed(&f.labels),
            project: f.project.clone(),
            assignee: f.assignee.clone(),
            cursor: cursor.take(),
            ..IssuesReadyInput::default()
        };
        let (page, reply) = core.call_as(&args)?;
        blocked = blocked.max(page.blocked);
        if notes.is_empty() {
            notes = left_out_notes(reply.text.as_deref().unwrap_or_default());
        }
        for row in &page.rows {
            if let Some(free) = free_again(row) {
                notes.push(free);
            }
            let mut words = row.split(' ');
            let (id, priority) = (words.next().unwrap_or_default(), words.next().unwrap_or_default());
            let unblocks = row.rsplit_once("unblocks ").and_then(|(_, n)| n.trim_end_matches(')').parse().ok());
            let type_ok = wanted_types.is_empty()
                || wanted_types.iter().any(|t| {
                    let prefix = match t.as_str() {
                        "specification" | "spec" => "SPEC-",
                        "idea" => "IDEA-",
                        _ => "ISS-",
                    };
                    id.starts_with(prefix)
                });
            let priority_ok = f.priority.is_empty() || f.priority.iter().any(|p| p.eq_ignore_ascii_case(priority));
            if type_ok && priority_ok {
                total += 1;
                rows.push((id.to_string(), unblocks.unwrap_or(0)));
            }
        }
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    // Page N (1 is the first) of --limit rows.
    let skip = (a.page.unwrap_or(1) as usize - 1).saturating_mul(a.limit);
    rows.drain(..skip.min(rows.len()));
    let more = rows.len().saturating_sub(a.limit);
    rows.truncate(a.limit);
    let issues = records(core, &rows.iter().map(|r| r.0.clone()).collect::<Vec<_>>())?;
    if a.json {
        let list: Vec<Value> = issues
            .iter()
            .zip(&rows)
            .map(|(r, (_, n))| {
                let mut v = serde_json::to_value(r).unwrap_or_default();
                v["unblocks"] = json!(n);
                v
            })
            .collect();
        return Ok(json_text(&json!({"issues": list, "totalCount": total, "blocked": blocked})));
    }
    if issues.is_empty() && total > 0 {
        let pages = total.div_ceil(a.limit.max(1));
        return Ok(format!(
            "That page is past the end: {total} ready issues make {pages} page(s) of {}. The last: {}.\n",
            a.limit,
            a.page_command(pages as u32)
        ));
    }
    if issues.is_empty() {
        let mut text =
            format!("Nothing is ready: no open, unblocked, unassigned issue matches ({blocked} wait on a blocker).\n");
        notes.iter().for_each(|n| text.push_str(&format!("{n}\n")));
        return Ok(text);
    }
    const HINT: &str = "Take one: docket claim ID --as NAME";
    let width = terminal_width();
    let mut text = list_table(&issues, width, style::enabled());
    let shown = match skip {
        0 => format!("{} of {total} ready issues", issues.len()),
        _ => format!("Ready issues {}-{} of {total}", skip + 1, skip + issues.len()),
    };
    let _ = writeln!(text, "{shown}; {blocked} wait on a blocker.");
    for n in &notes {
        let _ = writeln!(text, "{n}");
    }
    if more > 0 {
        let next = a.page_command(a.page.unwrap_or(1) + 1);
        // A command too long for the line goes on a line of its own, whole, so it can be copied.
        let line = format!("Next page: {next}");
        let _ =
            if line.chars().count() <= width { writeln!(text, "{line}") } else { writeln!(text, "Next page:\n{next}") };
    }
    if HINT.len() <= width {
        let _ = writeln!(text, "{HINT}");
    }
    Ok(text)
}

/// The lines of issues_ready's text that say what the claim records left out ("N more ...").
fn left_out_notes(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()) && l.contains(" more "))
        .map(str::to_string)
        .collect()
}

/// "ID: ann's lease lapsed at T, free to claim" for a ready row that offers a claim again.
fn free_again(row: &str) -> Option<String> {
    let id = row.split(' ').next()?;
    let (_, tail) = row.rsplit_once(" (")?;
    let part = tail.trim_end_matches(')').split("; ").find(|p| p.ends_with("free to claim"))?;
    Some(format!("{id}: {part}"))
}

/// The records of `ids`, in that order (issues_get_batch, 50 at a time).
fn records(core: &Core, ids: &[String]) -> Result<Vec<IssueRecord>, String> {
    use IssueField::*;
    let fields = wire_names(&[Title, Type, Status, Priority, Labels, Assignee, Dates]);
    let mut out = Vec::new();
    for chunk in ids.chunks(limits::issues_get_batch::MAX_BATCH) {
        let args =
            IssuesGetBatchInput { ids: chunk.to_vec(), fields: Some(fields.clone()), ..IssuesGetBatchInput::default() };
        let (batch, _) = core.call_as(&args)?;
        out.extend(batch.issues);
    }
    Ok(out)
}

/// `docket tree ID`: the issue, its parent, its children, its direct blockers, then the whole
/// chain of what holds it back and the whole chain of what it holds back, each as an indented
/// tree (issues_get names every link of both chains and where it hangs).
pub(super) fn tree(core: &Core, id: &str) -> Result<String, String> {
    let (got, reply) = core.call_as(&whole(id))?;
    let issue = got.issue;
    let duplicate = super::duplicate_note(&reply, &issue.id);
    // A file of a duplicated id naming that id as its parent is not its own parent.
    let parent = issue
        .wrangler_context
        .as_ref()
        .and_then(|c| c.get("parentTaskId"))
        .and_then(Value::as_str)
        .filter(|p| !p.trim().eq_ignore_ascii_case(&issue.id));
    let args = IssuesListInput {
        filters: IssueFilters { parent_task_id: Some(issue.id.clone()), ..IssueFilters::default() },
        fields: Some(wire_names(&[IssueField::Title, IssueField::Status])),
        limit: Some(100),
        ..IssuesListInput::default()
    };
    let (children, _) = core.call_as(&args)?;
    // The other holders of a duplicated id are not its children, and a child is listed once.
    let mut children: Vec<String> = children.issues.unwrap_or_default().into_iter().map(|r| r.id).collect();
    children.retain(|c| !c.eq_ignore_ascii_case(&issue.id));
    let mut once = std::collections::HashSet::new();
    children.retain(|c| once.insert(c.to_ascii_uppercase()));
    let line = |r: &IssueRecord| {
        let status = r.status.map(|s| s.to_string()).unwrap_or_default();
        format!("{} {status} {}", r.id, r.title.clone().unwrap_or_default())
    };
    let waits = chain(issue.open_blockers.as_deref().unwrap_or_default());
    let holds = chain(issue.blocks.as_deref().unwrap_or_default());
    let mut ids: Vec<String> = parent.map(str::to_string).into_iter().chain(children.iter().cloned()).collect();
    ids.extend(issue.blocked_by.iter().flatten().cloned());
    ids.extend(waits.links.iter().chain(&holds.links).map(|l| l.id.clone()));
    let mut seen = std::collections::HashSet::new();
    ids.retain(|i| seen.insert(i.to_ascii_uppercase()));
    let found = records(core, &ids)?;
    let shown = |id: &str| match found.iter().find(|r| r.id.eq_ignore_ascii_case(id)) {
        Some(r) => line(r),
        None => format!("{id} (no such issue)"),
    };
    let mut text = format!("{}\n", line(&issue));
    if let Some(note) = duplicate {
        let _ = writeln!(text, "  duplicate: {note}");
    }
    let groups = [
        ("parent", parent.map(|p| vec![p.to_string()]).unwrap_or_default()),
        ("children", children),
        ("blocked by", issue.blocked_by.clone().unwrap_or_default()),
    ];
    for (name, ids) in groups {
        if ids.is_empty() {
            continue;
        }
        let _ = writeln!(text, "  {name}:");
        for id in &ids {
            let _ = writeln!(text, "    {}", shown(id));
        }
    }
    for (name, c) in [("waits on (the whole chain)", &waits), ("blocks (the whole chain)", &holds)] {
        if c.links.is_empty() && c.more.is_none() {
            continue;
        }
        let _ = writeln!(text, "  {name}:");
        c.render(&mut text, &shown);
    }
    Ok(text)
}

/// A chain as issues_get words it (`ID`, `ID (blocks X)`, `ID (via X)`, `ID (via parent P)`,
/// then `+N more`), as a tree: each link under the one it hangs from.
struct Chain {
    links: Vec<ChainEntry>,
    more: Option<String>,
}

struct ChainEntry {
    id: String,
    /// The link it hangs under (`None`: the top level).
    under: Option<String>,
    /// What is said after the line (`via parent P`).
    note: Option<String>,
}

fn chain(entries: &[String]) -> Chain {
    let mut out = Chain { links: Vec::new(), more: None };
    for e in entries {
        if e.starts_with('+') {
            out.more = Some(e.clone());
            continue;
        }
        let (id, rest) = e.split_once(' ').unwrap_or((e, ""));
        let rest = rest.trim().trim_start_matches('(').trim_end_matches(')');
        let (under, note) = match rest.split_once(' ') {
            Some(("blocks" | "via", x)) if !x.starts_with("parent ") => (Some(x.to_string()), None),
            _ if rest.is_empty() => (None, None),
            _ => (None, Some(rest.to_string())),
        };
        out.links.push(ChainEntry { id: id.to_string(), under, note });
    }
    out
}

impl Chain {
    fn render(&self, text: &mut String, shown: &dyn Fn(&str) -> String) {
        let mut stack: Vec<(&ChainEntry, usize)> =
            self.links.iter().filter(|l| l.under.is_none()).rev().map(|l| (l, 0)).collect();
        let mut done = std::collections::HashSet::new();
        while let Some((l, depth)) = stack.pop() {
            if !done.insert(l.id.as_str()) {
                continue;
            }
            let note = l.note.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
            let _ = writeln!(text, "    {}{}{note}", "  ".repeat(depth), shown(&l.id));
            let under = |c: &&ChainEntry| c.under.as_deref().is_some_and(|u| u.eq_ignore_ascii_case(&l.id));
            stack.extend(self.links.iter().filter(under).rev().map(|c| (c, depth + 1)));
        }
        if let Some(more) = &self.more {
            let _ = writeln!(text, "    {more}");
        }
    }
}
