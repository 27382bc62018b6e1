//! Reading a Backlog.md project: one markdown file per task with YAML frontmatter, in
//! `backlog/tasks`, `backlog/completed` (done tasks moved out of the board) and `backlog/drafts`.
//! The body (`## Description`, `## Acceptance Criteria` between `<!-- AC:BEGIN -->` markers,
//! `## Implementation Plan`, `## Implementation Notes`, ...) is kept byte for byte. The tables of
//! what maps to what: docs/import.md.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use serde_yaml::Value as Yaml;

use super::{Incoming, Read, timestamp};
use crate::store::{IssueType, NewIssue, Priority, Status};

/// Largest task file read (a bound: one over the store's read cap is cut, see mod.rs).
const MAX_TASK_BYTES: u64 = 256 * 1024 * 1024;

/// The folders imported, with what a file there is.
const FOLDERS: [(&str, Folder); 3] =
    [("tasks", Folder::Tasks), ("completed", Folder::Completed), ("drafts", Folder::Drafts)];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Folder {
    Tasks,
    Completed,
    Drafts,
}

/// Frontmatter keys read into docket's own fields; every other key is kept in `importedFields`.
const READ: [&str; 11] = [
    "id",
    "title",
    "status",
    "assignee",
    "created_date",
    "updated_date",
    "labels",
    "milestone",
    "dependencies",
    "parent_task_id",
    "priority",
];

/// The key an id is matched by: its number when it is `PREFIX-NUMBER[.NUMBER...]` (Backlog.md
/// changed its prefix from `task-` to a configurable one, and old files still name `task-24.1`),
/// drafts apart (`draft-3`); anything else lowercased.
pub(super) fn key(old: &str) -> String {
    let lower = old.trim().to_lowercase();
    let (prefix, number) = match lower.rsplit_once('-') {
        Some((p, n)) => (p, n),
        None => ("", lower.as_str()),
    };
    let numeric =
        !number.is_empty() && number.split('.').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    match (numeric, prefix) {
        (true, "draft") => format!("draft-{number}"),
        (true, p) if p.bytes().all(|b| b.is_ascii_alphabetic()) => number.to_string(),
        _ => lower,
    }
}

/// The tasks of the Backlog.md project at `path` (the project, or its `backlog/` folder).
pub(super) fn read(path: &Path) -> Result<Read, String> {
    let base = if path.join("backlog").is_dir() { path.join("backlog") } else { path.to_path_buf() };
    if !FOLDERS.iter().any(|(f, _)| base.join(f).is_dir()) {
        return Err(format!(
            "{} holds no backlog/tasks, backlog/completed or backlog/drafts folder. Pass the Backlog.md project (the folder holding backlog/).",
            path.display()
        ));
    }
    let mut read = Read { project: Some(project_name(path, &base)), ..Read::default() };
    for (name, folder) in FOLDERS {
        let dir = base.join(name);
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        // What each entry is, as listed (a link is not followed): only a regular file is
        // opened; a link (its text may lie outside the project), a FIFO (an open would wait for
        // a writer) or a device is named for a person and left alone.
        let mut files: Vec<(PathBuf, Option<std::fs::FileType>)> = entries
            .filter_map(|e| e.ok().map(|e| (e.path(), e.file_type().ok())))
            .filter(|(p, _)| p.extension().is_some_and(|x| x == "md"))
            .filter(|(_, t)| !t.is_some_and(|t| t.is_dir()))
            // Backlog.md's folders may hold a readme for people, not a task.
            .filter(|(p, _)| !p.file_name().is_some_and(|n| n.eq_ignore_ascii_case("readme.md")))
            .collect();
        files.sort_by(|a, b| a.0.cmp(&b.0));
        for (file, kind) in files {
            let result = match kind {
                Some(t) if t.is_file() => task(&file, folder, &mut read),
                _ => Err(Skip::from(match std::fs::read_link(&file) {
                    Ok(to) => format!(
                        "a symbolic link (to {}); only regular files are imported: copy the file into {} if it belongs to this project",
                        to.display(),
                        dir.display()
                    ),
                    Err(_) => "not a regular file (a FIFO, socket or device); only regular files are imported".into(),
                })),
            };
            match result {
                Ok(issue) => read.issues.push(issue),
                Err(Skip { line: Some(n), why }) => read.skipped.push(format!("{}:{n}: {why}", file.display())),
                Err(Skip { line: None, why }) => read.skipped.push(format!("{}: {why}", file.display())),
            }
        }
    }
    for extra in ["archive"] {
        if base.join(extra).is_dir() {
            read.notes.push(format!(
                "{} was not imported (archived tasks and drafts are off Backlog.md's board); import them by hand if you want them",
                base.join(extra).display()
            ));
        }
    }
    Ok(read)
}

/// The project's name, which tells its `task-1` from another project's: `project_name` of
/// `backlog/config.yml` (the same in every clone), else the name of the folder holding
/// `backlog/`.
fn project_name(path: &Path, base: &Path) -> String {
    let config = crate::store::fs::read_file(&base.join("config.yml"), 1024 * 1024).ok();
    let named = config
        .and_then(|b| serde_yaml::from_slice::<Yaml>(&b).ok())
        .and_then(|y| y.get("project_name").and_then(scalar))
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty());
    named.unwrap_or_else(|| {
        let project = if base == path.join("backlog") { path } else { base.parent().unwrap_or(base) };
        let real = project.canonicalize().unwrap_or_else(|_| project.to_path_buf());
        real.file_name().map_or_else(|| real.display().to_string(), |n| n.to_string_lossy().into_owned())
    })
}

/// The frontmatter (as YAML) and the body of a task file.
fn split(text: &str) -> Result<(&str, &str), String> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("it does not start with a `---` frontmatter line")?;
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Ok((&rest[..at], &rest[at + line.len()..]));
        }
        at += line.len();
    }
    Err("its frontmatter has no closing `---` line".into())
}

/// The frontmatter with what Backlog.md's own parser quotes before reading it as YAML: an
/// `assignee:` or `reporter:` value (`@name`, or a flow list of them) and a `due_date:`, which
/// YAML would refuse (`@` starts no token) or read as something else.
fn as_backlog_reads_it(yaml: &str) -> String {
    let quote = |v: &str| format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\""));
    let mut out = String::with_capacity(yaml.len() + 16);
    for line in yaml.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(b) => (b.strip_suffix('\r').unwrap_or(b), "\n"),
            None => (line, ""),
        };
        let key_end = body.find(':').unwrap_or(0);
        let key = body[..key_end].trim_start();
        let indent = &body[..key_end - key.len()];
        let value = body.get(key_end + 1..).unwrap_or_default().trim();
        let plain = !value.is_empty() && !value.starts_with(['[', '\'', '"', '-']);
        let fixed = match key {
            "assignee" | "reporter" if value.starts_with('[') && value.ends_with(']') => {
                let items: Vec<String> = value[1..value.len() - 1]
                    .split(',')
                    .map(str::trim)
                    .filter(|e| !e.is_empty())
                    .map(|e| if e.starts_with('@') { quote(e) } else { e.to_string() })
                    .collect();
                Some(format!("{indent}{key}: [{}]", items.join(", ")))
            }
            "assignee" | "reporter" if plain => Some(format!("{indent}{key}: {}", quote(value))),
            "due_date"
                if plain && !value.starts_with('#') && !["null", "~"].contains(&value.to_lowercase().as_str()) =>
            {
                Some(format!("{indent}{key}: {}", quote(value)))
            }
            _ => None,
        };
        match fixed {
            Some(f) => out.push_str(&f),
            None => out.push_str(body),
        }
        out.push_str(end);
    }
    out
}

fn scalar(v: &Yaml) -> Option<String> {
    match v {
        Yaml::String(s) => Some(s.clone()),
        Yaml::Number(n) => Some(n.to_string()),
        Yaml::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn strings(v: Option<&Yaml>) -> Vec<String> {
    match v {
        Some(Yaml::Sequence(items)) => items.iter().filter_map(scalar).collect(),
        Some(other) => scalar(other).into_iter().filter(|s| !s.trim().is_empty()).collect(),
        None => Vec::new(),
    }
}

/// Why a file was skipped, with the line it is about when there is one.
struct Skip {
    line: Option<usize>,
    why: String,
}

impl From<String> for Skip {
    fn from(why: String) -> Skip {
        Skip { line: None, why }
    }
}

impl From<&str> for Skip {
    fn from(why: &str) -> Skip {
        Skip { line: None, why: why.into() }
    }
}

fn task(file: &Path, folder: Folder, read: &mut Read) -> Result<Incoming, Skip> {
    // Never through a link, never blocking, within a bound (a task over the store's cap is
    // cut in mod.rs, its whole text kept beside it).
    let bytes = crate::store::fs::read_file(file, MAX_TASK_BYTES).map_err(|e| format!("cannot read it ({e})"))?;
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let bad = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..bad].iter().filter(|b| **b == b'\n').count() + 1;
            return Err(Skip { line: Some(line), why: "not UTF-8".into() });
        }
    };
    let (yaml, body) = split(text.trim_start_matches('\u{feff}'))?;
    let fm: serde_yaml::Mapping = match serde_yaml::from_str::<Yaml>(&as_backlog_reads_it(yaml)) {
        Ok(Yaml::Mapping(m)) => m,
        Ok(_) => return Err("its frontmatter is not a mapping".into()),
        Err(e) => return Err(format!("its frontmatter is not YAML ({e})").into()),
    };
    let get = |k: &str| fm.get(k);
    let get_text = |k: &str| get(k).and_then(scalar).map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    let id = get_text("id").ok_or("its frontmatter has no id")?;

    let old_status = get_text("status");
    let mapped = match old_status.as_deref().map(|s| s.to_lowercase().replace(['-', '_'], " ")) {
        Some(s) if s == "to do" || s == "todo" => Some(Status::Open),
        Some(s) if s == "in progress" => Some(Status::InProgress),
        Some(s) if s == "done" => Some(Status::Closed),
        Some(s) if s == "won't do" || s == "wont do" || s == "cancelled" || s == "canceled" => Some(Status::Cancelled),
        None => Some(Status::Open),
        _ => None,
    };
    let status = match (folder, mapped) {
        (Folder::Completed, _) => Status::Closed,
        (_, Some(s)) => s,
        (_, None) => {
            read.notes.push(format!(
                "{id}: status `{}` is not To Do, In Progress or Done; imported as open",
                old_status.as_deref().unwrap_or_default()
            ));
            Status::Open
        }
    };
    let place = match folder {
        Folder::Tasks => "",
        Folder::Completed => " in completed/",
        Folder::Drafts => " in drafts/",
    };
    read.tally(format!("status {}{place} -> {status}", old_status.as_deref().unwrap_or("(none)")));

    let old_priority = get_text("priority");
    let priority = match old_priority.as_deref().map(str::to_lowercase).as_deref() {
        Some("high") => Priority::High,
        Some("low") => Priority::Low,
        _ => Priority::Medium,
    };
    read.tally(format!("priority {} -> {priority}", old_priority.as_deref().unwrap_or("(none)")));

    let assignees = strings(get("assignee"));
    let mut fields = Map::new();
    for (k, v) in &fm {
        let Some(k) = k.as_str() else { continue };
        if !READ.contains(&k) {
            fields.insert(k.to_string(), serde_json::to_value(v).unwrap_or(Value::Null));
        }
    }
    for k in ["status", "priority", "created_date", "updated_date"] {
        if let Some(v) = get(k) {
            fields.insert(k.into(), serde_json::to_value(v).unwrap_or(Value::Null));
        }
    }
    if assignees.len() > 1 {
        // docket has one assignee: the first; the list as it was is kept.
        fields.insert("assignee".into(), serde_json::to_value(get("assignee")).unwrap_or(Value::Null));
        read.tally("assignees beyond the first -> importedFields.assignee".into());
    }
    let mut context = Map::new();
    context.insert("importedFields".into(), Value::Object(fields));
    if folder == Folder::Drafts {
        // Backlog.md keeps drafts off its board: held back from the ready queue, as a container
        // is (remove `container` to offer one as work).
        context.insert("container".into(), Value::Bool(true));
        read.tally("draft -> container: true (off the ready queue)".into());
    }

    let created_at = get_text("created_date").as_deref().and_then(timestamp);
    let updated_at = get_text("updated_date").as_deref().and_then(timestamp);
    let completed = get_text("completed_date").as_deref().and_then(timestamp);
    let created_at = created_at.or_else(|| updated_at.clone()).unwrap_or_else(|| file_time(file));
    let updated_at = updated_at.unwrap_or_else(|| created_at.clone());
    let closed_at = status.is_archived().then(|| completed.unwrap_or_else(|| updated_at.clone()));

    let title = get_text("title").unwrap_or_else(|| {
        read.notes.push(format!("{id}: no title; its id is the title"));
        id.clone()
    });
    Ok(Incoming {
        at: file.display().to_string(),
        old_id: id,
        kind: match folder {
            Folder::Drafts => "draft".into(),
            _ => "task".into(),
        },
        new: NewIssue {
            title,
            description: body.to_string(),
            // A draft is not yet work: docket's ideas.
            issue_type: if folder == Folder::Drafts { IssueType::Idea } else { IssueType::Issue },
            status,
            priority,
            labels: strings(get("labels")),
            assignee: assignees.first().cloned(),
            project: get_text("milestone"),
            context,
            blocked_by: Vec::new(),
        },
        created_at,
        updated_at,
        closed_at,
        full_text: None,
        blockers: strings(get("dependencies")),
        parents: get_text("parent_task_id").into_iter().collect(),
        links: Vec::new(),
    })
}

/// The file's modification time, for a task without dates.
fn file_time(file: &Path) -> String {
    let t = std::fs::metadata(file).and_then(|m| m.modified()).unwrap_or_else(|_| std::time::SystemTime::now());
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_match_across_the_prefix_change() {
        assert_eq!(key("task-24.1"), key("BACK-24.1"));
        assert_eq!(key("back-7"), "7");
        assert_eq!(key("345"), "345");
        assert_ne!(key("DRAFT-3"), key("task-3"));
        assert_eq!(key("weird id"), "weird id");
    }

    #[test]
    fn at_names_are_read_as_backlog_md_reads_them() {
        let fixed = as_backlog_reads_it("id: BACK-1\nassignee: @MrLesk\nreporter: [@a, \"b\"]\nx:\n  assignee: []\n");
        assert_eq!(fixed, "id: BACK-1\nassignee: \"@MrLesk\"\nreporter: [\"@a\", \"b\"]\nx:\n  assignee: []\n");
        assert!(serde_yaml::from_str::<Yaml>(&fixed).is_ok());
    }

    #[test]
    fn the_body_after_the_frontmatter_is_kept_as_it_is() {
        let (fm, body) = split("---\nid: BACK-1\n---\n\n## Description\n\n---\nx\n").unwrap();
        assert_eq!(fm, "id: BACK-1\n");
        assert_eq!(body, "\n## Description\n\n---\nx\n");
    }
}
