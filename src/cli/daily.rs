//! The commands of daily use: `search`, `close`, `reopen`, `edit`, `web` and `completions`
//! (`ready` and the other work-graph commands are in graph.rs). Like the others, each turns its
//! flags into tool arguments and renders the result; `edit` and `web` are the exceptions that work on files and serve a page.

use std::fmt::Write as _;

use serde_json::Value;

use super::args::{CloseArgs, Daily, SearchArgs, listed};
use super::listing::list_table;
use super::table::terminal_width;
use super::{Core, json_text, style};
use crate::generated::arguments::{
    IssueFilters, IssuesMarkCompleteInput, IssuesSearchInput, IssuesUpdateInput, SearchFilters,
};
use crate::generated::{IssueStatus, ListFormat};

/// Runs one daily command; `top` builds the whole command line (for completions).
pub(super) fn run(command: &Daily, top: fn() -> clap::Command) -> Result<String, String> {
    match command {
        Daily::Search(a) => Core::open(&a.ws).and_then(|core| search(&core, a)),
        Daily::Close(a) => Core::open(&a.ws).and_then(|core| close(&core, a)),
        Daily::Reopen(a) => Core::open(&a.ws).and_then(|core| set_status(&core, &a.id, IssueStatus::Open, "Reopened")),
        Daily::Edit(a) => super::edit::edit(&a.ws, &a.id),
        Daily::Ready(a) => Core::open(&a.ws).and_then(|core| super::graph::ready(&core, a)),
        Daily::Block(a) => Core::open(&a.ws).and_then(|core| super::graph::block(&core, a, true)),
        Daily::Unblock(a) => Core::open(&a.ws).and_then(|core| super::graph::block(&core, a, false)),
        Daily::Claim(a) => Core::open(&a.ws).and_then(|core| super::graph::claim(&core, a)),
        Daily::Release(a) => Core::open(&a.ws).and_then(|core| super::graph::release(&core, a)),
        Daily::Tree(a) => Core::open(&a.ws).and_then(|core| super::graph::tree(&core, &a.id)),
        Daily::Web(a) => crate::web::run(crate::web::WebOptions {
            workspace: a.workspace.clone(),
            port: a.port,
            open: a.open,
            token: a.token.clone(),
        })
        .map(|()| String::new()),
        Daily::Completions { shell } => {
            let mut out = Vec::new();
            clap_complete::generate(*shell, &mut top(), "docket", &mut out);
            String::from_utf8(out).map_err(|e| format!("the completion script is not UTF-8: {e}"))
        }
    }
}

fn search(core: &Core, a: &SearchArgs) -> Result<String, String> {
    // issues_search takes one type as `type` inside its filters, like issues_list.
    let mut filters = SearchFilters {
        issues: IssueFilters { status: listed(&a.status), ..a.filters.to_arguments() },
        ..SearchFilters::default()
    };
    let mut args = IssuesSearchInput {
        query: a.query.clone(),
        // Records (with excerpts) for the table; the tool's default is one line per hit.
        format: Some(ListFormat::Full.to_string()),
        limit: a.limit,
        cursor: a.cursor.clone(),
        ..IssuesSearchInput::default()
    };
    if let (None, Some(page)) = (&a.cursor, a.page) {
        // A page number is an offset (the tool's older way to page, still taken); the page
        // size is the one asked for, or the configured one.
        let size = a.limit.unwrap_or(core.app.config.limits.search_page_size as i64);
        args.limit = Some(size);
        filters.offset = Some(i64::from(page - 1).saturating_mul(size));
    }
    args.filters = (filters != SearchFilters::default()).then_some(filters);
    let (out, reply) = core.call_as(&args)?;
    if a.json {
        return Ok(json_text(&reply.data));
    }
    let issues = out.issues.unwrap_or_default();
    let total = out.total_count;
    if issues.is_empty() && total > 0 {
        let size = a.limit.unwrap_or(core.app.config.limits.search_page_size as i64).max(1) as u64;
        let pages = (total.max(0) as u64).div_ceil(size);
        let past = format!("That page is past the end: {total} matches make {pages} page(s) of {size}.");
        return Ok(super::table::wrap(&past, terminal_width()));
    }
    if issues.is_empty() {
        return Ok(format!("Nothing matches \"{}\".\n", a.query));
    }
    let mut text = list_table(&issues, terminal_width(), style::enabled());
    let first = page_start(&reply) + 1;
    let last = first + issues.len() - 1;
    let _ = write!(text, "Matches {first}-{last} of {total}.");
    match &out.next_cursor {
        Some(cursor) => {
            let _ = writeln!(text, " Next page: {}", a.next_page(cursor));
        }
        None => text.push('\n'),
    }
    Ok(text)
}

/// How many results come before this page (the tool reports it in its context).
pub(super) fn page_start(reply: &crate::runtime::Reply<Value>) -> usize {
    reply.context.as_ref().and_then(|c| c.get("offset")).and_then(Value::as_u64).unwrap_or(0) as usize
}

fn close(core: &Core, a: &CloseArgs) -> Result<String, String> {
    match (&a.note, a.cancel) {
        (_, true) => set_status(core, &a.id, IssueStatus::Cancelled, "Cancelled"),
        (None, false) => set_status(core, &a.id, IssueStatus::Closed, "Closed"),
        (Some(note), false) => {
            let (out, _) = core.call_as(&IssuesMarkCompleteInput { id: a.id.clone(), note: Some(note.clone()) })?;
            Ok(format!("Closed {} with completion notes: {}\n", out.issue.id, out.issue.title.unwrap_or_default()))
        }
    }
}

fn set_status(core: &Core, id: &str, status: IssueStatus, verb: &str) -> Result<String, String> {
    let args =
        IssuesUpdateInput { id: id.to_string(), status: Some(status.to_string()), ..IssuesUpdateInput::default() };
    let (out, _) = core.call_as(&args)?;
    let title = out.issue.title.unwrap_or_default();
    if out.changed.is_empty() {
        return Ok(format!("{} is already {status}: {title}\n", out.issue.id));
    }
    let unblocked = out.unblocked.map(|u| format!("Unblocked: {}\n", u.join(", "))).unwrap_or_default();
    Ok(format!("{verb} {}: {title}\n{unblocked}", out.issue.id))
}
