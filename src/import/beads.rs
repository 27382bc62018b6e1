//! Reading beads: its JSONL export (`issues.jsonl`, one issue a line, as `bd export` writes and
//! `.beads/` keeps in git). The fields and the tables of what maps to what: docs/import.md.

use std::path::Path;

use serde_json::{Map, Value};

use super::{Incoming, Read, timestamp};
use crate::store::{IssueType, NewIssue, Priority, Status};

/// Largest export read (a bound, so that a wrong path never fills the memory).
const MAX_EXPORT_BYTES: u64 = 256 * 1024 * 1024;

/// Counts the export derives from the other fields; docket derives its own.
const DERIVED: [&str; 3] = ["dependency_count", "dependent_count", "comment_count"];

/// Fields read into docket's own fields or the body; every other field is kept in
/// `importedFields`.
const READ: [&str; 17] = [
    "id",
    "title",
    "description",
    "design",
    "acceptance_criteria",
    "notes",
    "close_reason",
    "assignee",
    "labels",
    "created_at",
    "updated_at",
    "closed_at",
    "dependencies",
    "comments",
    "parent",
    "status",
    "priority",
];

/// Where beads keeps its export in a folder: `issues.jsonl`, or `beads.jsonl` before it was
/// renamed; in the `.beads/` folder or in the project holding it.
const EXPORTS: [&str; 4] = ["issues.jsonl", "beads.jsonl", ".beads/issues.jsonl", ".beads/beads.jsonl"];

/// The issues of `path`: a `.beads/` folder (its export), the project holding one, or a JSONL
/// file.
pub(super) fn read(path: &Path) -> Result<Read, String> {
    let file = match path.is_dir() {
        true => EXPORTS.iter().map(|name| path.join(name)).find(|f| f.is_file()).ok_or_else(|| {
            format!(
                "{} holds none of {}. Pass a .beads/ folder, the project holding it, or a JSONL export (`bd export -o issues.jsonl` writes one).",
                path.display(),
                EXPORTS.join(", ")
            )
        })?,
        false => path.to_path_buf(),
    };
    let cannot = |e: &dyn std::fmt::Display| {
        format!(
            "cannot read {}: {e}. Pass a .beads/ folder, the project holding it, or a JSONL export (`bd export -o issues.jsonl` writes one).",
            file.display()
        )
    };
    // The path a person named may be a link (followed: they named it); what it names must be a
    // regular file, read without blocking (a FIFO, /dev/zero) and within a bound.
    let real = file.canonicalize().map_err(|e| cannot(&e))?;
    let bytes = crate::store::fs::read_file(&real, MAX_EXPORT_BYTES).map_err(|e| cannot(&e))?;
    let mut read = Read::default();
    let mut seen = std::collections::HashSet::new();
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&bytes);
    // Line by line: one line that is not UTF-8 is skipped and named, the others are read.
    for (n, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let at = format!("{}:{}", file.display(), n + 1);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let Ok(line) = std::str::from_utf8(raw) else {
            read.skipped.push(format!("{at}: not UTF-8"));
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        let object = match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(o)) => o,
            Ok(_) => {
                read.skipped.push(format!("{at}: not a JSON object"));
                continue;
            }
            Err(e) => {
                read.skipped.push(format!("{at}: not JSON ({e})"));
                continue;
            }
        };
        let Some(id) = object.get("id").and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty()) else {
            read.skipped.push(format!("{at}: no \"id\""));
            continue;
        };
        if !seen.insert(id.to_string()) {
            read.skipped.push(format!("{at}: id {id} again (the first line with it was imported)"));
            continue;
        }
        let mut issue = incoming(&object, id, &mut read);
        issue.at = at;
        read.issues.push(issue);
    }
    // `bd ready` offers a parent whatever its children, docket holds back a parent of open work
    // as a container: an epic stays one, any other parent is marked as work (docs/import.md).
    let parents: std::collections::HashSet<String> =
        read.issues.iter().flat_map(|i| i.parents.iter().cloned()).collect();
    for issue in read.issues.iter_mut().filter(|i| parents.contains(&i.old_id) && i.kind != "epic") {
        issue.new.context.insert("container".into(), Value::Bool(false));
        *read.mapped.entry(format!("parent of kind {} -> container: false", issue.kind)).or_default() += 1;
    }
    Ok(read)
}

fn text<'a>(o: &'a Map<String, Value>, key: &str) -> &'a str {
    o.get(key).and_then(Value::as_str).unwrap_or_default()
}

fn incoming(o: &Map<String, Value>, id: &str, read: &mut Read) -> Incoming {
    let old_status = text(o, "status");
    let status = match old_status {
        "" | "open" => Status::Open,
        "in_progress" | "hooked" => Status::InProgress,
        "closed" => Status::Closed,
        "tombstone" => Status::Cancelled,
        // blocked: docket derives blocked from the edges; deferred, pinned: see docs/import.md.
        "blocked" | "deferred" | "pinned" => Status::Open,
        other => {
            read.notes.push(format!("{id}: status `{other}` is not one of beads' own; imported as open"));
            Status::Open
        }
    };
    read.tally(format!("status {} -> {status}", if old_status.is_empty() { "(none)" } else { old_status }));
    let old_priority = o.get("priority");
    let priority = match old_priority.and_then(Value::as_i64) {
        Some(0) => Priority::Critical,
        Some(1) => Priority::High,
        Some(2) => Priority::Medium,
        Some(3 | 4) => Priority::Low,
        _ => Priority::Medium,
    };
    let shown = old_priority.map_or("(none)".to_string(), Value::to_string);
    read.tally(format!("priority {shown} -> {priority}"));
    let kind = match text(o, "issue_type") {
        "" => "task".to_string(),
        k => k.to_string(),
    };
    if o.get("ephemeral").and_then(Value::as_bool) == Some(true) && matches!(status, Status::Open | Status::InProgress)
    {
        read.tally("ephemeral (wisp), still open: imported as work".into());
    }

    let mut fields = Map::new();
    for (k, v) in o {
        if !READ.contains(&k.as_str()) && !DERIVED.contains(&k.as_str()) {
            fields.insert(k.clone(), v.clone());
        }
    }
    // The old values, whatever they mapped to.
    for k in ["status", "priority"] {
        if let Some(v) = o.get(k) {
            fields.insert(k.into(), v.clone());
        }
    }
    let mut context = Map::new();
    context.insert("importedFields".into(), Value::Object(fields));

    let (mut blockers, mut parents, mut links) = (Vec::new(), Vec::new(), Vec::new());
    for dep in o.get("dependencies").and_then(Value::as_array).into_iter().flatten() {
        let on = dep.get("depends_on_id").and_then(Value::as_str).unwrap_or_default().trim();
        if on.is_empty() {
            read.notes.push(format!("{id}: a dependency without depends_on_id, left out: {dep}"));
            continue;
        }
        // An edge stored on the other end (issue_id is not this issue) reads the other way.
        let from = dep.get("issue_id").and_then(Value::as_str).unwrap_or(id);
        let kind = dep.get("type").and_then(Value::as_str).unwrap_or("blocks");
        if from != id {
            links.push((format!("{kind} (from {from})"), on.to_string()));
            continue;
        }
        match kind {
            // conditional-blocks holds the issue back in `bd ready` as blocks does.
            "blocks" | "conditional-blocks" => blockers.push(on.to_string()),
            "parent-child" => parents.push(on.to_string()),
            other => links.push((other.to_string(), on.to_string())),
        }
    }
    let parent_field = text(o, "parent").trim();
    if !parent_field.is_empty() && !parents.iter().any(|p| p == parent_field) {
        parents.push(parent_field.to_string());
    }

    let mut times = |key: &str| -> Option<String> {
        let raw = text(o, key);
        if raw.is_empty() {
            return None;
        }
        let t = timestamp(raw);
        if t.is_none() {
            read.notes.push(format!("{id}: {key} `{raw}` is not a time docket reads; kept in importedFields"));
        }
        t
    };
    let created_at = times("created_at");
    let updated_at = times("updated_at");
    let closed_at = times("closed_at");
    for (key, t) in [("created_at", &created_at), ("updated_at", &updated_at), ("closed_at", &closed_at)] {
        if t.is_none()
            && let (Some(v), Value::Object(f)) = (o.get(key), context.get_mut("importedFields").expect("set above"))
        {
            f.insert(key.into(), v.clone());
        }
    }
    let created_at = created_at.or_else(|| updated_at.clone()).unwrap_or_else(now);
    let updated_at = updated_at.unwrap_or_else(|| created_at.clone());
    let closed_at = match status.is_archived() {
        true => closed_at.or_else(|| Some(updated_at.clone())),
        false => closed_at,
    };

    // The kind, where a person and the list and search filters see it: a label `kind:KIND`.
    let mut labels: Vec<String> = o
        .get("labels")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|l| l.as_str().map(str::to_string))
        .collect();
    let kind_label = format!("kind:{kind}");
    read.tally(format!("issue_type {kind} -> label {kind_label}"));
    if !labels.contains(&kind_label) {
        labels.push(kind_label);
    }
    let mut title = text(o, "title").to_string();
    if title.trim().is_empty() {
        read.notes.push(format!("{id}: no title; its id is the title"));
        title = id.to_string();
    }
    Incoming {
        at: String::new(),
        old_id: id.to_string(),
        kind,
        new: NewIssue {
            title,
            description: body(o),
            issue_type: IssueType::Issue,
            status,
            priority,
            labels,
            assignee: Some(text(o, "assignee").to_string()).filter(|a| !a.trim().is_empty()),
            project: None,
            context,
            blocked_by: Vec::new(),
        },
        created_at,
        updated_at,
        closed_at,
        full_text: None,
        blockers,
        parents,
        links,
    }
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The description, then each text field beads keeps apart under its own heading, then the
/// comments, oldest first.
fn body(o: &Map<String, Value>) -> String {
    let mut out = text(o, "description").trim_end().to_string();
    let mut section = |heading: &str, content: &str| {
        if content.trim().is_empty() {
            return;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(&format!("## {heading}\n\n{}", content.trim_end()));
    };
    section("Design", text(o, "design"));
    section("Acceptance Criteria", text(o, "acceptance_criteria"));
    section("Notes", text(o, "notes"));
    section("Close Reason", text(o, "close_reason"));
    let comments: Vec<String> = o
        .get("comments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| {
            let who = c.get("author").and_then(Value::as_str).unwrap_or("unknown");
            let when = c.get("created_at").and_then(Value::as_str).unwrap_or_default();
            let said = c.get("text").and_then(Value::as_str).unwrap_or_default();
            format!("### {who}, {when}\n\n{}", said.trim_end())
        })
        .collect();
    section("Comments", &comments.join("\n\n"));
    if !out.is_empty() {
        out.push('\n');
    }
    out
}
