//! Compact markdown for the model: one line per issue, no tables or pretty JSON (tokens cost).

use std::fmt::Write;

use crate::generated::IssueRecord;
use crate::handlers::uri::ResourceUri;

/// `ISS-000042 open high Title (labels: a, b; updated 2026-02-17)`; fields absent from the
/// record are left out, so the same function serves every format. Status and priority are bare
/// enum words: brackets around them cost two tokens a row and say nothing the words do not.
pub fn issue_line(r: &IssueRecord) -> String {
    let mut line = r.id.clone();
    for word in [r.status.map(|s| s.as_str()), r.priority.map(|p| p.as_str())].into_iter().flatten() {
        let _ = write!(line, " {word}");
    }
    if let Some(t) = &r.title {
        let _ = write!(line, " {t}");
    }
    let mut extra = Vec::new();
    if let Some(t) = r.r#type.filter(|t| t.as_str() != "issue") {
        extra.push(t.as_str().to_string());
    }
    if let Some(labels) = r.labels.as_ref().filter(|l| !l.is_empty()) {
        extra.push(format!("labels: {}", labels.join(", ")));
    }
    if let Some(a) = &r.assignee {
        extra.push(format!("assignee: {a}"));
    }
    if let Some(p) = &r.project {
        extra.push(format!("project: {p}"));
    }
    if let Some(u) = &r.updated_at {
        extra.push(format!("updated {}", u.get(..10).unwrap_or(u)));
    }
    if let Some(p) = &r.path {
        extra.push(format!("file {p}"));
    }
    if !extra.is_empty() {
        let _ = write!(line, " ({})", extra.join("; "));
    }
    line
}

/// The whole record as a short markdown document (issues_get): a line like its list row, with
/// the exact times and the facts a row leaves out, then the body. `ISS-000042 open high Title
/// (labels: a, b; updated 2026-07-13T09:04:30Z; parent SPEC-000001)`, `SPEC-000001 open medium
/// specification Title (...)`: no heading mark, no line per fact, no type word for the default
/// type, so a whole issue's frame costs no more than wrangler's `**Key:** value` lines even with
/// the exact update time (which wrangler leaves out and `ifUpdatedAt` needs).
pub fn issue_document(r: &IssueRecord) -> String {
    let mut out = r.id.clone();
    // "open medium specification Spec: exports": the kind reads as one phrase before the title.
    let kind = [r.status.map(|s| s.as_str()), r.priority.map(|p| p.as_str())].into_iter().flatten();
    for word in kind.chain(r.r#type.map(|t| t.as_str()).filter(|t| *t != "issue")) {
        let _ = write!(out, " {word}");
    }
    if let Some(t) = &r.title {
        let _ = write!(out, " {t}");
    }
    let mut facts = Vec::new();
    let mut fact = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            facts.push(format!("{k} {v}"));
        }
    };
    fact("labels:", r.labels.as_ref().filter(|l| !l.is_empty()).map(|l| l.join(", ")));
    fact("assignee:", r.assignee.clone());
    fact("project:", r.project.clone());
    fact("created", r.created_at.clone());
    fact("updated", r.updated_at.clone());
    fact("closed", r.closed_at.clone());
    for (key, value) in r.wrangler_context.iter().flatten() {
        let name = if key == "parentTaskId" { "parent" } else { key };
        fact(name, Some(value.as_str().map_or_else(|| value.to_string(), str::to_string)));
    }
    fact("blocked by", r.blocked_by.as_ref().map(|b| b.join(", ")));
    fact("waiting on", r.open_blockers.as_ref().map(|b| b.join(", ")));
    fact("blocks", r.blocks.as_ref().map(|b| b.join(", ")));
    fact("file", r.path.clone());
    if !facts.is_empty() {
        let _ = write!(out, " ({})", facts.join("; "));
    }
    if let Some(d) = &r.description {
        let _ = write!(out, "\n\n{d}");
    }
    if let Some(notice) = truncation_notice(r) {
        let _ = write!(out, "\n\n{notice}");
    }
    out
}

/// For a cut description: its size, the call that reads on, and the resource that also holds it.
pub fn truncation_notice(r: &IssueRecord) -> Option<String> {
    if r.truncated != Some(true) {
        return None;
    }
    let kept = r.description.as_ref().map_or(0, |d| d.chars().count());
    let total = r.description_length.unwrap_or_default() as usize;
    Some(format!(
        "[Cut at {kept} of {total} characters. Next: {}, or outline: true for its sections (also resources/read {}).]",
        r.next.clone().unwrap_or_else(|| super::reading::call(&r.id, None, Some(kept), None)),
        ResourceUri::Chunk(&r.id, &format!("{kept}-{}", (kept + CHUNK).min(total))),
    ))
}

/// Characters suggested per chunk read, the default output limit.
const CHUNK: usize = 25_000;

pub fn issue_uri(id: &str) -> String {
    ResourceUri::Issue(id).to_string()
}

/// The structured view's paging instruction: how many more match and the cursor that returns them
/// (tool-neutral: the consolidated profile reaches the same handler under another name).
/// The cursor itself is `nextCursor`, beside it: a page names it once.
pub fn next_page(remaining: usize, next: Option<&str>) -> Option<String> {
    next.filter(|_| remaining > 0).map(|_| format!("{remaining} more match: pass nextCursor as cursor."))
}

/// The explicit paging line models need ("N more match: pass cursor ...").
pub fn page_line(noun: &str, returned: usize, total: usize, remaining: usize, next: Option<&str>) -> String {
    match next {
        Some(cursor) if remaining > 0 => {
            format!("Showing {returned} of {total} {noun}; {remaining} more match: pass cursor '{cursor}'.",)
        }
        _ if total == 0 => format!("No {noun} match."),
        _ => format!("Showing {returned} of {total} {noun}."),
    }
}
