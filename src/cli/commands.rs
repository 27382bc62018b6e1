//! One function per command: flags -> tool arguments -> call -> text. Each returns what goes to
//! stdout, or the message for stderr.

use std::fmt::Write;

use serde_json::{Map, Value, json};

use super::args::{BoardArgs, CreateArgs, LabelChange, ListArgs, ShowArgs, StatsArgs, UpdateArgs, wire_names};
use super::board::{self, Column};
use super::listing::list_table;
use super::table::{self, terminal_width};
use super::{Core, json_text};
use super::{human, style};
use crate::generated::arguments::{
    IssueFilters, IssuesGetInput, IssuesLabelsInput, IssuesListInput, IssuesUpdateInput, ToolArguments,
};
use crate::generated::{IssueField, IssuePriority, IssueStatus, IssuesLabelsOperation, StatsGroupBy, limits};
use crate::handlers::aggregate::LABELS_COUNTED;

pub(super) fn list(core: &Core, a: &ListArgs) -> Result<String, String> {
    let (first, reply) = core.call_as(&a.to_arguments(None))?;
    if a.json && !a.all {
        return Ok(json_text(&reply.data));
    }
    // Where this page starts, for "N more" (the tool reports it in its context).
    let offset = reply.context.as_ref().and_then(|c| c.get("offset")).and_then(Value::as_u64).unwrap_or(0);
    let mut page = first;
    let mut issues = page.issues.take().unwrap_or_default();
    while a.all
        && let Some(cursor) = page.next_cursor.take()
    {
        page = core.call_as(&a.to_arguments(Some(&cursor)))?.0;
        issues.extend(page.issues.take().unwrap_or_default());
    }
    if a.json {
        return Ok(json_text(&json!({"issues": issues, "totalCount": page.total_count})));
    }
    // Files without frontmatter (a README, notes) are not issues: named by their file, apart.
    let named: Vec<(String, String)> =
        issues.iter().map(|r| (r.id.clone(), r.title.clone().unwrap_or_default())).collect();
    let plain = core.plain_among(&named);
    let past_the_end = issues.is_empty();
    let plain_ids: Vec<&String> = plain.iter().map(|(id, _)| id).collect();
    issues.retain(|r| !plain_ids.contains(&&r.id));
    let mut out =
        if issues.is_empty() { String::new() } else { list_table(&issues, terminal_width(), style::enabled()) };
    let mut total = page.total_count.max(0) as u64;
    if page.next_cursor.is_none() && offset == 0 {
        total = total.saturating_sub(plain.len() as u64);
    }
    let defaulted = a.status.is_empty() && !a.json;
    let scope = if defaulted { " open or in progress" } else { "" };
    match &page.next_cursor {
        _ if total == 0 => out = format!("No{scope} issues match.\n"),
        _ if past_the_end => {
            let size = a.limit.unwrap_or(super::args::LIST_PAGE).max(1) as u64;
            let pages = total.div_ceil(size);
            let past = format!(
                "That page is past the end: {total}{scope} issues make {pages} page(s) of {size}. The last: {}.",
                a.page_command(pages as u32)
            );
            out = table::wrap(&past, terminal_width());
        }
        Some(cursor) => {
            let shown = format!("Issues {}-{} of {total}{scope}", offset + 1, offset + issues.len() as u64);
            // The --all reminder only where the line has room; a command too long for the line
            // goes on a line of its own, whole, so it can be copied.
            let command = a.next_page(cursor);
            let next = format!("{shown}. Next page: {command}");
            let more = format!("{next} (or --all for every page).");
            let width = terminal_width();
            let fits = |l: &str| l.chars().count() <= width;
            let _ = match () {
                _ if fits(&more) => writeln!(out, "{more}"),
                _ if fits(&next) => writeln!(out, "{next}"),
                _ if fits(&command) => {
                    writeln!(out, "{}\n{command}", table::wrap(&format!("{shown}. Next page:"), width).trim_end())
                }
                _ => write!(out, "{}", table::wrap(&next, width)),
            };
        }
        None if offset > 0 => {
            let _ = writeln!(out, "Issues {}-{} of {total}{scope}.", offset + 1, offset + issues.len() as u64);
        }
        None => {
            let _ = writeln!(out, "{} of {total}{scope} issues.", issues.len());
        }
    }
    if !plain.is_empty() {
        let files: Vec<&str> = plain.iter().map(|(_, path)| path.as_str()).collect();
        let line = format!("Not issues (files without frontmatter, not counted): {}.", files.join(", "));
        out.push_str(&table::wrap(&line, terminal_width()));
    }
    if defaulted {
        let hint = "Finished work is left out: --status all (or closed, cancelled) lists it.";
        out.push_str(&table::wrap(hint, terminal_width()));
    }
    Ok(out)
}

pub(super) fn show(core: &Core, a: &ShowArgs) -> Result<String, String> {
    show_at(core, a, terminal_width())
}

/// [`show`] with the body wrapped at `width` (the interactive board's issue window).
pub(super) fn show_at(core: &Core, a: &ShowArgs, width: usize) -> Result<String, String> {
    let (out, reply) = core.call_as(&a.to_arguments())?;
    if a.json {
        return Ok(json_text(&reply.data));
    }
    let r = out.issue;
    let mut text = format!("{}  {}\n", r.id, r.title.clone().unwrap_or_default());
    if let Some(note) = super::duplicate_note(&reply, &r.id) {
        let _ = writeln!(text, "{:<10}{note}", "Duplicate:");
    }
    let mut field = |name: &str, value: Option<String>| {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            let _ = writeln!(text, "{:<10}{v}", format!("{name}:"));
        }
    };
    field("Status", r.status.map(|s| s.to_string()));
    field("Priority", r.priority.map(|p| p.to_string()));
    field("Type", r.r#type.map(|t| t.to_string()));
    field("Labels", r.labels.as_ref().map(|l| l.join(", ")));
    field("Assignee", r.assignee.clone());
    let claim = reply.context.as_ref().and_then(|c| c["claim"].as_str()).map(str::to_string);
    field("Claim", claim);
    field("Project", r.project.clone());
    let now = chrono::Utc::now();
    let when = |d: &Option<String>| d.as_deref().map(|d| human::date(d, now));
    field("Created", when(&r.created_at));
    field("Updated", when(&r.updated_at));
    field("Closed", when(&r.closed_at));
    let context = r.wrangler_context.clone().unwrap_or_default();
    field("Parent", context.get("parentTaskId").map(plain));
    let others: Vec<String> =
        context.iter().filter(|(k, _)| *k != "parentTaskId").map(|(k, v)| format!("{k}={}", plain(v))).collect();
    field("Context", Some(others.join(", ")));
    // The work graph comes with the whole issue (a read of `fields` leaves it out).
    {
        let whole = IssuesGetInput { id: r.id.clone(), ..IssuesGetInput::default() };
        if let Ok((g, _)) = core.call_as(&whole) {
            let g = g.issue;
            let ids = |l: Option<Vec<String>>| l.filter(|l| !l.is_empty()).map(|l| l.join(", "));
            field("Blockers", ids(g.blocked_by));
            // The open ones (a parent's too): what keeps it off `docket ready`.
            field("Waits on", ids(g.open_blockers));
            field("Blocks", ids(g.blocks));
        }
    }
    let body = r.description.clone().unwrap_or_default();
    if !body.trim().is_empty() {
        let _ = write!(text, "\n{}", human::wrap_markdown(body.trim_end(), width));
    }
    if r.truncated == Some(true) {
        let total = r.description_length.unwrap_or_default();
        let note = format!(
            "the description of {} has {total} characters; only the first {} are shown",
            r.id,
            limits::issues_get::MAX_OUTPUT_CHARS
        );
        let _ = writeln!(text, "\n[… {note}]");
        core.warn(&format!("{note}."));
    }
    Ok(text)
}

pub(super) fn create(core: &Core, a: &CreateArgs) -> Result<String, String> {
    let body = a.body.read()?;
    let (out, reply) = core.call_as(&a.to_arguments(body))?;
    if a.json {
        return Ok(json_text(&reply.data));
    }
    Ok(format!("{}\n", out.issue.id))
}

pub(super) fn update(core: &Core, a: &UpdateArgs) -> Result<String, String> {
    let labels = a.label_change()?;
    let body = a.body.read()?;
    let args = a.to_arguments(body);
    let (mut lines, mut json) = (Vec::new(), Map::new());
    let mut id = a.id.clone();
    // Label edits alone need no issues_update call (it would say nothing was given to change).
    let id_only = IssuesUpdateInput { id: a.id.clone(), ..IssuesUpdateInput::default() };
    if args != id_only || a.edits_blockers() || !matches!(labels, LabelChange::Edit { .. }) {
        let (out, reply) = match a.edits_blockers() {
            true => core.update_editing_blockers(&args, a.blocker_edit())?,
            false => core.call_as(&args)?,
        };
        json.insert("update".into(), reply.data);
        id = out.issue.id.clone();
        // What was sent for each field the tool says changed (by its name on the wire); for an
        // edit of the blockers, the list the store wrote.
        let mut sent = args.to_map();
        if a.edits_blockers() {
            sent.insert("blockedBy".into(), Value::from(out.issue.blocked_by.clone().unwrap_or_default()));
        }
        for name in &out.changed {
            let value = match (name.as_str(), sent.get(name)) {
                ("description", Some(Value::String(d))) => format!("({} characters)", d.chars().count()),
                (_, Some(v)) => plain(v),
                (_, None) => "(changed)".to_string(),
            };
            let name = if name == "blockedBy" { "blocked by" } else { name.as_str() };
            lines.push(format!("  {name}: {value}"));
        }
        if let Some(unblocked) = out.unblocked.filter(|u| !u.is_empty()) {
            lines.push(format!("  unblocked: {}", unblocked.join(", ")));
        }
    }
    if let LabelChange::Edit { add, remove } = &labels {
        // The labels before, to say what the edit really changed.
        let read = IssuesGetInput {
            id: id.clone(),
            fields: Some(wire_names(&[IssueField::Labels])),
            ..IssuesGetInput::default()
        };
        let before = core.call_as(&read)?.0.issue.labels.unwrap_or_default();
        let had = |l: &String| before.iter().any(|b| b.eq_ignore_ascii_case(l));
        let mut now = None;
        let edits = [(IssuesLabelsOperation::Add, add), (IssuesLabelsOperation::Remove, remove)];
        for (operation, names) in edits.into_iter().filter(|(_, n)| !n.is_empty()) {
            let call = IssuesLabelsInput {
                operation: operation.to_string(),
                issue_id: Some(id.clone()),
                labels: Some(names.clone()),
            };
            let (out, reply) = core.call_as(&call)?;
            now = Some(plain(&Value::from(out.issue_labels.unwrap_or_default())));
            json.insert(format!("labels_{operation}"), reply.data);
        }
        let mut what = Vec::new();
        let (there, added): (Vec<&String>, Vec<&String>) = add.iter().partition(|l| had(l));
        let (removed, absent): (Vec<&String>, Vec<&String>) = remove.iter().partition(|l| had(l));
        let names = |l: &[&String]| l.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ");
        let be = |l: &[&String]| if l.len() == 1 { "was" } else { "were" };
        if !added.is_empty() {
            what.push(format!("added {}", names(&added)));
        }
        if !there.is_empty() {
            what.push(format!("{} {} already there", names(&there), be(&there)));
        }
        if !removed.is_empty() {
            what.push(format!("removed {}", names(&removed)));
        }
        if !absent.is_empty() {
            what.push(format!("{} {} not there", names(&absent), be(&absent)));
        }
        if !a.json && added.is_empty() && removed.is_empty() && lines.is_empty() {
            return Ok(format!("No change to {id}: {}.\n", what.join("; ")));
        }
        lines.push(format!("  labels: {} ({})", now.unwrap_or_default(), what.join("; ")));
    }
    if a.json {
        let only = (json.len() == 1).then(|| json.values().next().cloned()).flatten();
        return Ok(json_text(&only.unwrap_or(Value::Object(json))));
    }
    if lines.is_empty() {
        return Ok(format!("No change to {id}: the values given are already set.\n"));
    }
    Ok(format!("Updated {id}:\n{}\n", lines.join("\n")))
}

/// A JSON value for people: strings bare, lists comma-separated, empty as `(none)`.
fn plain(v: &Value) -> String {
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items.iter().map(plain).collect::<Vec<_>>().join(", "),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    if text.is_empty() { "(none)".to_string() } else { text }
}

/// The mark of a card that waits on an open blocker (its own or a parent's).
pub(super) const BLOCKED_MARK: &str = "⊘";

/// What [`BLOCKED_MARK`] means, said beside a board that shows one.
pub(super) const BLOCKED_LEGEND: &str = "⊘ waits on an open blocker (docket tree ID shows which)";

/// The IDs of the open and in-progress issues that wait on an open blocker (issues_list with
/// `blocked: true`), for marking cards.
pub(super) fn blocked_ids(core: &Core) -> Result<std::collections::HashSet<String>, String> {
    let mut ids = std::collections::HashSet::new();
    let mut cursor: Option<String> = None;
    loop {
        let args = IssuesListInput {
            filters: IssueFilters {
                blocked: Some(true),
                status: Some(wire_names(&[IssueStatus::Open, IssueStatus::InProgress])),
                ..IssueFilters::default()
            },
            fields: Some(wire_names(&[IssueField::Status])),
            limit: Some(limits::issues_list::MAX_PAGE_SIZE as i64),
            cursor: cursor.take(),
            ..IssuesListInput::default()
        };
        let (page, _) = core.call_as(&args)?;
        ids.extend(page.issues.unwrap_or_default().into_iter().map(|r| r.id));
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => return Ok(ids),
        }
    }
}

pub(super) fn board(core: &Core, a: &BoardArgs) -> Result<String, String> {
    let page_size = limits::issues_list::MAX_PAGE_SIZE as i64;
    let blocked = blocked_ids(core)?;
    let mut marked = false;
    let mut columns = Vec::new();
    let mut plain = Vec::new();
    for status in IssueStatus::ALL {
        let closed = matches!(status, IssueStatus::Closed | IssueStatus::Cancelled);
        if *status == IssueStatus::Cancelled && !a.cancelled {
            continue;
        }
        // Closed columns show the most recently closed few (the list's order); the others their
        // highest priority first (as the web board does), capped at --limit.
        let limit = if closed { i64::from(a.closed).max(1) } else { page_size };
        let (mut page, _) = core.call_as(&a.to_arguments(*status, limit, None))?;
        let mut count = page.total_count.max(0) as usize;
        let mut issues = page.issues.take().unwrap_or_default();
        while !closed && let Some(cursor) = page.next_cursor.take() {
            page = core.call_as(&a.to_arguments(*status, limit, Some(&cursor)))?.0;
            issues.extend(page.issues.take().unwrap_or_default());
        }
        // Files without frontmatter (a README, notes) are no cards: named apart, by their file.
        let named: Vec<(String, String)> =
            issues.iter().map(|r| (r.id.clone(), r.title.clone().unwrap_or_default())).collect();
        let apart = core.plain_among(&named);
        issues.retain(|r| !apart.iter().any(|(id, _)| *id == r.id));
        count = count.saturating_sub(apart.len());
        plain.extend(apart.into_iter().map(|(_, path)| path));
        let cap = if closed {
            usize::from(a.closed)
        } else if a.limit == 0 {
            usize::MAX
        } else {
            a.limit
        };
        if !closed {
            // Stable: within a priority, the list's order (latest update first) stays.
            issues.sort_by_key(|r| std::cmp::Reverse(r.priority.map(priority_rank).unwrap_or(0)));
        }
        issues.truncate(cap);
        let cards = issues
            .iter()
            .map(|r| {
                let tag = r.priority.map_or("", priority_tag);
                let mark = if blocked.contains(&r.id) { format!("{BLOCKED_MARK} ") } else { String::new() };
                marked |= !mark.is_empty();
                format!("{} {tag:<4} {mark}{}", r.id, r.title.as_deref().unwrap_or_default())
            })
            .collect::<Vec<_>>();
        let more = count.saturating_sub(cards.len());
        // The list of them all, with the board's filters.
        let hint = (more > 0).then(|| {
            let filters = a.filters.flags().iter().map(|f| super::again::shell_quote(f)).collect::<Vec<_>>();
            format!("docket list --status {status} {}", filters.join(" ")).trim_end().to_string()
        });
        columns.push(Column { name: status.to_string(), count, cards, more, hint });
    }
    // What the mark means, for a person at a terminal; stdout keeps only the columns, which
    // scripts read line by line.
    if marked && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        eprintln!("docket: {BLOCKED_LEGEND}");
    }
    let width = a.width.map_or_else(terminal_width, usize::from);
    let mut out = board::render(&columns, width, style::enabled());
    if !plain.is_empty() {
        let line = format!("Not issues (files without frontmatter, not counted): {}.", plain.join(", "));
        out.push_str(&table::wrap(&line, width));
    }
    Ok(out)
}

pub(super) fn priority_rank(p: IssuePriority) -> u8 {
    match p {
        IssuePriority::Critical => 3,
        IssuePriority::High => 2,
        IssuePriority::Medium => 1,
        IssuePriority::Low => 0,
    }
}

/// A card's priority, four characters at most.
pub(super) fn priority_tag(p: IssuePriority) -> &'static str {
    match p {
        IssuePriority::Critical => "crit",
        IssuePriority::High => "high",
        IssuePriority::Medium => "med",
        IssuePriority::Low => "low",
    }
}

/// The groupings `stats` shows, in order.
const STATS_GROUPS: [StatsGroupBy; 3] = [StatsGroupBy::Status, StatsGroupBy::Priority, StatsGroupBy::Type];

pub(super) fn stats(core: &Core, a: &StatsArgs) -> Result<String, String> {
    let mut json = Map::new();
    let mut text = String::new();
    let groups = match a.by.as_slice() {
        [] => STATS_GROUPS.to_vec(),
        named => named
            .iter()
            .map(|n| {
                let n = n.trim().to_lowercase();
                let n = if n == "label" { "labels".to_string() } else { n };
                StatsGroupBy::ALL.iter().copied().find(|g| g.as_str() == n).ok_or_else(|| {
                    let all: Vec<&str> = StatsGroupBy::ALL.iter().map(|g| g.as_str()).collect();
                    format!("--by {n} is not a field stats counts by; use one of {}", all.join(", "))
                })
            })
            .collect::<Result<Vec<_>, _>>()?,
    };
    for group in groups {
        let (out, reply) = core.call_as(&a.to_arguments(group))?;
        json.insert(group.to_string(), reply.data);
        let count = |n: i64| format!("{n:>5}");
        let mut rows: Vec<Vec<String>> = out.groups.iter().map(|g| vec![g.key.clone(), count(g.count)]).collect();
        rows.push(vec!["total".to_string(), count(out.total)]);
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&table::render(&[&group.as_str().to_uppercase(), "COUNT"], &rows));
        if group == StatsGroupBy::Labels {
            let _ = writeln!(text, "{}: the counts add up to more than the total.", LABELS_COUNTED);
        }
    }
    let plain = core.plain_files();
    if !a.json && plain > 0 {
        let _ = writeln!(text, "\n{plain} file(s) without frontmatter are not issues and not counted.");
    }
    if a.json {
        return Ok(json_text(&Value::Object(json)));
    }
    Ok(text)
}
