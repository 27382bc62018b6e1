//! `docket prime`: what an agent needs at the start of a session, in at most [`BUDGET`] tokens
//! (o200k_base): the workspace served, the issues this agent holds and when each lease ends, the
//! top ready issues, the counts and the loop line of the skill ([`crate::agents::loop_line`]).
//! `--hook-json` wraps it as Claude Code's SessionStart hook output.
//!
//! Leases come from the claim records as this clone already has them: the common git
//! directory's refs, or with a claims remote the last list a docket process kept and the records
//! already fetched. The remote is never asked: a primer must be fast, and a silent remote would
//! hold up the session's start.
//!
//! It only reads: the store is opened without the tools' side effects (no error memory, no
//! claim refs) and never dropped, since dropping a store saves its index snapshot; a folder
//! without a workspace stays as it was.

use std::fmt::Write as _;

use serde_json::json;

use super::args::PrimeArgs;
use crate::store::{GroupBy, IssueFilter, SortField, SortOrder, Status, Store, StoreOptions, Workspace};

/// The most tokens the primer may take (o200k_base).
pub const BUDGET: usize = 150;

/// Ready issues named at most; fewer when the budget needs it.
const READY_SHOWN: usize = 3;

/// Characters of a title shown at most.
const TITLE_CHARS: usize = 48;

/// The agent's in-progress issues read at most (the rest are counted).
const CLAIMS_READ: usize = 100;

pub(super) fn run(a: &PrimeArgs) -> Result<String, String> {
    let agent = a.agent.as_deref().map(str::trim).filter(|n| !n.is_empty());
    let ws =
        a.ws.resolve_or_pending()
            .map_err(|e| format!("{e}\nRun `docket init` in your repository or pass --workspace PATH."))?;
    let text = primer(ws, agent)?;
    Ok(match a.hook_json {
        true => {
            let hook = json!({
                "hookSpecificOutput": { "hookEventName": "SessionStart", "additionalContext": text }
            });
            format!("{hook}\n")
        }
        false => format!("{text}\n"),
    })
}

/// The primer's text for `ws` and the agent named (no trailing newline).
fn primer(ws: Workspace, agent: Option<&str>) -> Result<String, String> {
    let loop_line = crate::agents::loop_line();
    if !ws.exists() {
        return Ok(format!(
            "docket: no workspace yet; the first issues_create makes {}.\n{loop_line}",
            ws.dir.display()
        ));
    }
    let dir = shown_dir(&ws.dir);
    // The claims remote and the lease length are settings (config/docket.yaml, environment); a
    // setting that does not parse leaves the defaults (doctor and every other command say why).
    let config = crate::config::Config::load(&ws.dir, &[]).ok();
    let options = config.as_ref().map_or_else(StoreOptions::default, crate::config::Config::store_options);
    let mut store = Store::open(ws, StoreOptions { one_shot: true, ..options });
    if let Some(config) = &config {
        store = store.with_claims_remote(config.claims_remote.clone()).with_claim_ttl(config.claim_ttl);
    }
    let facts = gather(&store, agent);
    // A store saves its index snapshot when dropped: this command writes nothing.
    std::mem::forget(store);
    let facts = facts.map_err(|e| e.to_string())?;
    let mut shown = READY_SHOWN;
    let mut title_chars = TITLE_CHARS;
    loop {
        let text = facts.render(&dir, loop_line, shown, title_chars);
        if tokens(&text) <= BUDGET || (shown == 0 && title_chars <= 12) {
            return Ok(text);
        }
        match shown {
            0 => title_chars /= 2,
            _ => shown -= 1,
        }
    }
}

/// The workspace folder as the agent's harness sees it: relative to the current directory when
/// it is inside it (`.docket`), else in full.
fn shown_dir(dir: &std::path::Path) -> String {
    let here = std::env::current_dir().ok().and_then(|c| c.canonicalize().ok());
    let full = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    match here.as_deref().and_then(|h| full.strip_prefix(h).ok()) {
        Some(rel) if !rel.as_os_str().is_empty() => rel.display().to_string(),
        _ => dir.display().to_string(),
    }
}

fn tokens(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton().encode_ordinary(text).len()
}

/// `(id, priority, title)` of an issue line.
type Line = (String, &'static str, String);

/// What the claim records say of an issue the agent holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Lease {
    /// Outside git: the files alone arbitrate and nothing lapses.
    Files,
    /// Held until then unless renewed.
    Until(chrono::DateTime<chrono::Utc>),
    /// Its lease lapsed then: anyone may take it.
    Lapsed(chrono::DateTime<chrono::Utc>),
    /// A claim made before leases: it does not lapse.
    Forever,
    /// The record names another holder.
    Taken(String),
    /// The record is a tombstone: closed elsewhere.
    Closed,
    /// The files say it is held, but there is no claim record.
    NoRecord,
    /// A claims remote whose list this clone has not kept: not known without asking it.
    Unknown,
}

impl Lease {
    fn of(claim: &crate::store::git::claims::Claim, ttl: std::time::Duration) -> Lease {
        use crate::store::git::claims::State;
        if claim.state == State::Closed {
            return Lease::Closed;
        }
        if let Some(end) = claim.lapsed(ttl) {
            return Lease::Lapsed(end);
        }
        match chrono::DateTime::parse_from_rfc3339(&claim.lease) {
            Ok(end) => Lease::Until(end.with_timezone(&chrono::Utc)),
            Err(_) => Lease::Forever,
        }
    }

    /// What follows the issue in the primer's line of claims.
    fn shown(&self) -> String {
        let now = chrono::Utc::now();
        match self {
            Lease::Files => String::new(),
            Lease::Until(end) if *end <= now => " (lease ending: renew it)".into(),
            Lease::Until(end) => format!(" (lease {} left)", span(*end - now)),
            Lease::Lapsed(end) => format!(" (lease lapsed {} ago: claim it again)", span(now - *end)),
            Lease::Forever => " (no lease)".into(),
            Lease::Taken(holder) => format!(" (now held by {holder})"),
            Lease::Closed => " (closed elsewhere)".into(),
            Lease::NoRecord => " (no claim record)".into(),
            Lease::Unknown => " (lease not known here)".into(),
        }
    }
}

/// A duration in few tokens: `45s`, `14 min`, `3h`.
fn span(d: chrono::Duration) -> String {
    match d.num_seconds().max(0) {
        s if s < 120 => format!("{s}s"),
        s if s < 7_200 => format!("{} min", s / 60),
        s => format!("{}h", s / 3_600),
    }
}

struct Facts {
    total: usize,
    by_status: Vec<(String, usize)>,
    ready: Vec<Line>,
    ready_total: usize,
    blocked: usize,
    agent: Option<String>,
    claims: Vec<(Line, Lease)>,
    claims_total: usize,
}

fn line(m: &crate::store::IssueMeta) -> Line {
    (m.id.clone(), m.priority.as_str(), m.title.clone())
}

fn gather(store: &Store, agent: Option<&str>) -> Result<Facts, crate::store::StoreError> {
    let counts = store.count_by(&IssueFilter::default(), GroupBy::Status)?.value;
    let ready = store.ready(&IssueFilter::default(), agent, 0, READY_SHOWN)?.value;
    let (claims, claims_total) = match agent {
        Some(name) => held(store, name)?,
        None => (Vec::new(), 0),
    };
    let order = ["open", "in_progress", "closed", "cancelled"];
    let mut by_status: Vec<(String, usize)> =
        counts.1.into_iter().filter_map(|(k, n)| Some((k?, n))).filter(|(_, n)| *n > 0).collect();
    by_status.sort_by_key(|(k, _)| order.iter().position(|o| o == k).unwrap_or(order.len()));
    Ok(Facts {
        total: counts.0,
        by_status,
        ready: ready.issues.iter().map(|(m, _)| line(m)).collect(),
        ready_total: ready.total,
        blocked: ready.open_blocked,
        agent: agent.map(str::to_string),
        claims,
        claims_total,
    })
}

/// The issues `name` holds with their leases, and how many there are: the in-progress issues
/// assigned to it by the files, each with what its claim record says, then the issues the
/// records say it holds on a live lease that the files here do not show (another worktree's).
fn held(store: &Store, name: &str) -> Result<(Vec<(Line, Lease)>, usize), crate::store::StoreError> {
    let mine =
        IssueFilter { status: vec![Status::InProgress], assignee: Some(name.to_string()), ..IssueFilter::default() };
    let page = store.list_page(&mine, SortField::Updated, SortOrder::Desc, 0, Some(CLAIMS_READ))?.value;
    let records = match store.claim_refs() {
        Ok(Some(refs)) => Some(refs.records_here().map(|(claims, _)| claims)),
        _ => None,
    };
    let ttl = store.claim_ttl();
    let record_of = |id: &str| records.as_ref()?.as_ref()?.iter().find(|c| c.id.eq_ignore_ascii_case(id));
    let mut out: Vec<(Line, Lease)> = page
        .items
        .iter()
        .map(|m| {
            let lease = match (&records, record_of(&m.id)) {
                (None, _) => Lease::Files,
                (Some(None), _) => Lease::Unknown,
                (Some(Some(_)), None) => Lease::NoRecord,
                (_, Some(c)) if c.state == crate::store::git::claims::State::Held && !c.is_held_by(name, "") => {
                    Lease::Taken(c.holder.clone())
                }
                (_, Some(c)) => Lease::of(c, ttl),
            };
            (line(m), lease)
        })
        .collect();
    let mut total = page.total;
    for claim in records.iter().flatten().flatten() {
        let lease = Lease::of(claim, ttl);
        let live = matches!(lease, Lease::Until(_) | Lease::Forever);
        if !live || !claim.is_held_by(name, "") || out.iter().any(|((id, _, _), _)| id.eq_ignore_ascii_case(&claim.id))
        {
            continue;
        }
        if let Ok(issue) = store.get(&claim.id) {
            out.push((line(&issue.value.meta), lease));
            total += 1;
        }
    }
    Ok((out, total))
}

impl Facts {
    fn render(&self, dir: &str, loop_line: &str, shown: usize, title_chars: usize) -> String {
        let mut out = String::new();
        let counts: Vec<String> = self.by_status.iter().map(|(s, n)| format!("{n} {}", s.replace('_', " "))).collect();
        let noun = if self.total == 1 { "issue" } else { "issues" };
        let _ = write!(out, "docket workspace {dir}: {} {noun}", self.total);
        if !counts.is_empty() {
            let _ = write!(out, " ({})", counts.join(", "));
        }
        let _ = writeln!(out, "; {} ready, {} blocked.", self.ready_total, self.blocked);
        let item = |(id, priority, title): &Line| format!("{id} [{priority}] {}", cut(title, title_chars));
        if let Some(name) = &self.agent {
            match self.claims_total {
                0 => {
                    let _ = writeln!(out, "You ({name}) hold nothing.");
                }
                n => {
                    let listed: Vec<String> = self
                        .claims
                        .iter()
                        .take(shown.max(1))
                        .map(|(l, lease)| format!("{}{}", item(l), lease.shown()))
                        .collect();
                    let more = n.saturating_sub(listed.len());
                    let tail = if more > 0 { format!(" (+{more} more)") } else { String::new() };
                    let _ = writeln!(out, "You ({name}) hold: {}{tail}", listed.join("; "));
                }
            }
        }
        if shown > 0 && !self.ready.is_empty() {
            let listed: Vec<String> = self.ready.iter().take(shown).map(item).collect();
            let _ = writeln!(out, "Ready: {}", listed.join("; "));
        }
        out.push_str(loop_line);
        out
    }
}

/// `text` cut to `max` characters, with an ellipsis when cut.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", text[..at].trim_end()),
        None => text.to_string(),
    }
}
