//! Markdown files with YAML frontmatter: tolerant reading of what humans and wrangler write, and
//! lossless editing (see [`super::yaml_edit`]): an update changes the keys it was asked to change
//! and keeps every other byte of the file.

use std::path::Path;

use serde_json::{Map, Value as Json};
use serde_yaml::{Mapping, Value as Yaml};

use super::yaml_edit::{self, KeyEdit};
use crate::model::{IssueMeta, IssueType, Priority, Status};

const BOM: &str = "\u{feff}";

/// A parsed file: the frontmatter mapping, the body after it, and the exact text around them so
/// the file can be written back unchanged except for the edited keys.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub front: Mapping,
    pub body: String,
    layout: Layout,
}

/// Where the parts of the file came from.
#[derive(Debug, Clone, PartialEq, Default)]
struct Layout {
    bom: bool,
    /// The opening `---` line, the YAML and the closing line, exactly as written; `None` for a
    /// file without frontmatter.
    front: Option<(String, String, String)>,
    crlf: bool,
}

impl Document {
    /// True when the file has a frontmatter block (possibly empty).
    pub fn has_frontmatter(&self) -> bool {
        self.layout.front.is_some()
    }

    /// The line ending the file uses.
    pub fn newline(&self) -> &'static str {
        if self.layout.crlf { "\r\n" } else { "\n" }
    }

    /// The file with `edits` applied to the frontmatter and, if given, a new body; every other
    /// byte as read. Refuses (with the reason) an edit it cannot make without touching other keys.
    pub fn edited(&self, edits: &[KeyEdit], body: Option<&str>) -> Result<String, String> {
        let nl = self.newline();
        let mut out = String::new();
        if self.layout.bom {
            out.push_str(BOM);
        }
        match &self.layout.front {
            Some((open, yaml, close)) => {
                out.push_str(open);
                out.push_str(&yaml_edit::apply(yaml, &self.front, nl, edits)?);
                if close.is_empty() {
                    out.push_str("---");
                    out.push_str(nl);
                } else {
                    out.push_str(close);
                }
            }
            None => {
                out.push_str("---");
                out.push_str(nl);
                out.push_str(&yaml_edit::apply("", &Mapping::new(), nl, edits)?);
                out.push_str("---");
                out.push_str(nl);
            }
        }
        match body {
            Some(b) if self.layout.crlf && !b.contains('\r') => out.push_str(&b.replace('\n', "\r\n")),
            Some(b) => out.push_str(b),
            None => out.push_str(&self.body),
        }
        Ok(out)
    }
}

/// Splits and parses `text`. A file without frontmatter is all body; frontmatter that is not a
/// YAML mapping is an error (the caller skips the file and never rewrites it).
pub fn parse(text: &str) -> Result<Document, String> {
    let (bom, text) = match text.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let crlf = text.split_inclusive('\n').next().is_some_and(|l| l.ends_with("\r\n"));
    let Some(parts) = split(text)? else {
        return Ok(Document {
            front: Mapping::new(),
            body: text.to_string(),
            layout: Layout { bom, front: None, crlf },
        });
    };
    let front = parse_mapping(parts.yaml)?;
    let layout =
        Layout { bom, front: Some((parts.open.to_string(), parts.yaml.to_string(), parts.close.to_string())), crlf };
    Ok(Document { front, body: parts.body.to_string(), layout })
}

fn parse_mapping(yaml: &str) -> Result<Mapping, String> {
    if yaml.trim().is_empty() {
        return Ok(Mapping::new());
    }
    match serde_yaml::from_str::<Yaml>(yaml).map_err(|e| e.to_string())? {
        Yaml::Null => Ok(Mapping::new()),
        Yaml::Mapping(m) => Ok(m),
        other => Err(format!("frontmatter is a {}, not a mapping of keys", kind(&other))),
    }
}

struct Parts<'a> {
    open: &'a str,
    yaml: &'a str,
    close: &'a str,
    body: &'a str,
}

/// The frontmatter (if the file has any) and the body after the closing `---` line.
fn split(text: &str) -> Result<Option<Parts<'_>>, String> {
    let Some(first) = text.split_inclusive('\n').next() else { return Ok(None) };
    if first.trim_end_matches(['\r', '\n']).trim_end() != "---" || !first.ends_with('\n') {
        return Ok(None);
    }
    let rest = &text[first.len()..];
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\r', '\n']).trim_end();
        if bare == "---" {
            let body = &rest[offset + line.len()..];
            return Ok(Some(Parts { open: first, yaml: &rest[..offset], close: line, body }));
        }
        offset += line.len();
    }
    Err("the frontmatter has no closing `---` line".into())
}

fn kind(v: &Yaml) -> &'static str {
    match v {
        Yaml::Sequence(_) => "list",
        Yaml::String(_) => "string",
        _ => "scalar",
    }
}

/// The file text of a new issue: frontmatter in wrangler's key order and style, then the body.
pub fn render_new(meta: &IssueMeta, body: &str) -> String {
    render_with_key(meta, None, body)
}

/// The frontmatter key of the random identity docket gives each issue it creates: two clones
/// that create an issue at the same path (same ID, title and instant) give it different keys,
/// so the merge driver keeps both. wrangler ignores the key; files without one are told apart
/// by `createdAt` alone.
pub const IDENTITY_KEY: &str = "docketKey";

/// A new random identity for [`IDENTITY_KEY`]: 16 hex digits.
pub fn new_identity() -> String {
    format!("{:016x}", rand::random::<u64>())
}

/// A new issue's file, as [`render_new`], with its identity ([`IDENTITY_KEY`]) last.
pub fn render_created(meta: &IssueMeta, identity: &str, body: &str) -> String {
    render_with_key(meta, Some(identity), body)
}

fn render_with_key(meta: &IssueMeta, identity: Option<&str>, body: &str) -> String {
    let mut yaml = String::new();
    for (key, value) in meta_values(meta) {
        if let Some(v) = value {
            yaml.push_str(&yaml_edit::render_entry(key, &v, None, "\n"));
        }
    }
    if let Some(identity) = identity {
        yaml.push_str(&yaml_edit::render_entry(IDENTITY_KEY, &Yaml::String(identity.to_string()), None, "\n"));
    }
    format!("---\n{yaml}---\n{body}")
}

/// Each frontmatter key docket writes, in wrangler's order, with its value (`None`: absent).
pub fn meta_values(meta: &IssueMeta) -> Vec<(&'static str, Option<Yaml>)> {
    let s = |v: &str| Some(Yaml::String(v.to_string()));
    let opt = |v: &Option<String>| v.as_deref().filter(|s| !s.is_empty()).and_then(s);
    let context = (!meta.context.is_empty()).then(|| serde_yaml::to_value(&meta.context).ok()).flatten();
    vec![
        ("id", s(&meta.id)),
        ("title", s(&meta.title)),
        ("type", s(meta.issue_type.as_str())),
        ("status", s(meta.status.as_str())),
        ("priority", s(meta.priority.as_str())),
        ("labels", Some(Yaml::Sequence(meta.labels.iter().map(|l| Yaml::String(l.clone())).collect()))),
        ("assignee", opt(&meta.assignee)),
        ("project", opt(&meta.project)),
        ("createdAt", s(&meta.created_at)),
        ("updatedAt", s(&meta.updated_at)),
        ("closedAt", opt(&meta.closed_at)),
        ("wranglerContext", context),
        ("blockedBy", blocked_by_value(&meta.blocked_by)),
    ]
}

/// `blockedBy` as written: a list of IDs, or no key at all when there are none.
pub fn blocked_by_value(ids: &[String]) -> Option<Yaml> {
    (!ids.is_empty()).then(|| Yaml::Sequence(ids.iter().map(|i| Yaml::String(i.clone())).collect()))
}

/// The ID a file name starts with (`ISS-000042-...` or legacy `000042-...`), if any. Numbers
/// past 999999 have more digits, as wrangler writes them.
pub fn id_from_file_name(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let (prefix, rest) = match stem.find(|c: char| c.is_ascii_digit()) {
        Some(i) => stem.split_at(i),
        None => return None,
    };
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let known = prefix.is_empty() || IssueType::ALL.iter().any(|t| t.prefix() == prefix);
    let ends = rest[digits.len()..].is_empty() || rest[digits.len()..].starts_with('-');
    (known && digits.len() >= 6 && ends).then(|| format!("{prefix}{digits}"))
}

/// The frontmatter keys docket reads, each a raw YAML value so no value can make reading fail.
#[derive(Debug, Default, PartialEq)]
struct Front {
    id: Option<Yaml>,
    title: Option<Yaml>,
    kind: Option<Yaml>,
    status: Option<Yaml>,
    priority: Option<Yaml>,
    labels: Option<Yaml>,
    assignee: Option<Yaml>,
    project: Option<Yaml>,
    created_at: Option<Yaml>,
    updated_at: Option<Yaml>,
    closed_at: Option<Yaml>,
    context: Option<Yaml>,
    blocked_by: Option<Yaml>,
}

impl Front {
    /// Looks the known keys up by name; keys that are not strings (`404: x`) are simply not ours.
    fn from_mapping(m: &Mapping) -> Front {
        let get = |k: &str| m.get(k).cloned();
        Front {
            id: get("id"),
            title: get("title"),
            kind: get("type"),
            status: get("status"),
            priority: get("priority"),
            labels: get("labels"),
            assignee: get("assignee"),
            project: get("project"),
            created_at: get("createdAt"),
            updated_at: get("updatedAt"),
            closed_at: get("closedAt"),
            context: get("wranglerContext"),
            blocked_by: get("blockedBy"),
        }
    }
}

/// The issue described by `doc`, with wrangler's defaults for whatever is missing.
pub fn meta(doc: &Document, path: &Path, folder_type: IssueType, modified: &str) -> IssueMeta {
    let front = Front::from_mapping(&doc.front);
    meta_from(front, doc.has_frontmatter(), &doc.body, path, folder_type, modified)
}

/// Reads only what the index needs from a whole file, and the body (for the search index). The
/// frontmatter goes through the line reader in `frontmatter/fast.rs` when it takes it (the
/// common files), else through serde_yaml; both give the same result.
pub fn index_meta<'t>(
    text: &'t str,
    path: &Path,
    folder_type: IssueType,
    modified: &str,
) -> Result<(IssueMeta, &'t str), String> {
    index_meta_with(text, path, folder_type, modified, true)
}

/// [`index_meta`], through the fast reader when `fast` and it takes the frontmatter, else
/// through serde_yaml (the tests compare the two).
fn index_meta_with<'t>(
    text: &'t str,
    path: &Path,
    folder_type: IssueType,
    modified: &str,
    fast: bool,
) -> Result<(IssueMeta, &'t str), String> {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let Some(parts) = split(text)? else {
        return Ok((meta_from(Front::default(), false, text, path, folder_type, modified), text));
    };
    let front = match fast.then(|| fast::front(parts.yaml)).flatten() {
        Some(front) => front,
        None => Front::from_mapping(&parse_mapping(parts.yaml)?),
    };
    Ok((meta_from(front, true, parts.body, path, folder_type, modified), parts.body))
}

fn meta_from(f: Front, has_front: bool, body: &str, path: &Path, folder_type: IssueType, modified: &str) -> IssueMeta {
    let text = |v: &Option<Yaml>| v.as_ref().and_then(scalar_text).filter(|s| !s.is_empty());
    let id =
        f.id.as_ref()
            .and_then(id_text)
            .or_else(|| id_from_file_name(path))
            .unwrap_or_else(|| path.file_stem().and_then(|s| s.to_str()).unwrap_or("unnamed").to_string());
    let list = |v: &Option<Yaml>| -> Vec<String> {
        match v {
            Some(Yaml::Sequence(items)) => items.iter().filter_map(scalar_text).collect(),
            Some(v) => scalar_text(v).filter(|s| !s.is_empty()).map(|s| vec![s]).unwrap_or_default(),
            None => Vec::new(),
        }
    };
    let labels = list(&f.labels);
    let mut blocked_by = list(&f.blocked_by);
    blocked_by.retain(|b| !b.trim().is_empty());
    let context = match f.context.as_ref().map(serde_json::to_value) {
        Some(Ok(Json::Object(m))) => m,
        _ => Map::new(),
    };
    IssueMeta {
        id,
        title: text(&f.title).or_else(|| first_heading(body)).unwrap_or_else(|| "Untitled Issue".into()),
        issue_type: text(&f.kind).and_then(|t| IssueType::parse_loose(&t)).unwrap_or(folder_type),
        status: text(&f.status).and_then(|s| Status::parse_loose(&s)).unwrap_or(Status::Open),
        priority: text(&f.priority).and_then(|p| Priority::parse_loose(&p)).unwrap_or(Priority::Medium),
        labels,
        assignee: text(&f.assignee),
        project: text(&f.project),
        created_at: text(&f.created_at).unwrap_or_else(|| modified.to_string()),
        updated_at: text(&f.updated_at).or_else(|| text(&f.created_at)).unwrap_or_else(|| modified.to_string()),
        closed_at: text(&f.closed_at),
        context,
        blocked_by,
        path: path.to_path_buf(),
        body_len: body.chars().count(),
        frontmatter: has_front,
    }
}

/// The text of the first markdown heading, for files that carry no title of their own.
fn first_heading(body: &str) -> Option<String> {
    body.lines()
        .take(50)
        .find_map(|l| l.trim_start().strip_prefix('#').map(|h| h.trim_start_matches('#').trim().to_string()))
        .filter(|h| !h.is_empty())
}

/// An ID as text; an unquoted legacy `id: 000037` is read by YAML as the number 37.
fn id_text(v: &Yaml) -> Option<String> {
    match v {
        Yaml::Number(n) if n.is_u64() => Some(format!("{:06}", n.as_u64().unwrap_or_default())),
        other => scalar_text(other).filter(|s| !s.is_empty()),
    }
}

/// A scalar as text: strings as-is, numbers and booleans as written.
fn scalar_text(v: &Yaml) -> Option<String> {
    match v {
        Yaml::String(s) => Some(s.clone()),
        Yaml::Number(n) => Some(n.to_string()),
        Yaml::Bool(b) => Some(b.to_string()),
        Yaml::Tagged(t) => scalar_text(&t.value),
        _ => None,
    }
}

/// Frontmatter values docket reads but that are not written the canonical way (`Closed`,
/// `in-progress`, `High`, a list-valued title): one note per key, for the caller to report.
pub fn nonstandard_values(doc: &Document) -> Vec<String> {
    let f = &doc.front;
    let mut notes = Vec::new();
    let mut check = |key: &str, canonical: fn(&str) -> Option<&'static str>| {
        let Some(v) = f.get(key) else { return };
        match scalar_text(v) {
            Some(text) => match canonical(&text) {
                Some(c) if c != text => notes.push(format!("{key} `{text}` is read as {c}")),
                Some(_) => {}
                None => notes.push(format!("{key} `{text}` is not a known value; it is kept as written")),
            },
            None => notes.push(format!("{key} is not a single value; it is kept as written")),
        }
    };
    check("status", |s| Status::parse_loose(s).map(|v| v.as_str()));
    check("priority", |s| Priority::parse_loose(s).map(|v| v.as_str()));
    check("type", |s| IssueType::parse_loose(s).map(|v| v.as_str()));
    for key in ["title", "assignee", "project"] {
        if f.get(key).is_some_and(|v| !matches!(v, Yaml::String(_) | Yaml::Null) && scalar_text(v).is_none()) {
            notes.push(format!("{key} is not text; it is kept as written"));
        }
    }
    if f.get("labels").is_some_and(|v| !matches!(v, Yaml::Sequence(_) | Yaml::String(_) | Yaml::Null)) {
        notes.push("labels is not a list; it is kept as written".into());
    }
    notes
}

/// Why a key's current value cannot be read-modify-written (a list operation on something that is
/// not a list), or `None` when it can.
pub fn not_editable(doc: &Document, key: &str) -> Option<String> {
    let v = doc.front.get(key)?;
    let ok = match key {
        "labels" | "blockedBy" => match v {
            Yaml::Sequence(items) => items.iter().all(|i| scalar_text(i).is_some()),
            Yaml::Null | Yaml::String(_) => true,
            _ => false,
        },
        "wranglerContext" => matches!(v, Yaml::Mapping(_) | Yaml::Null),
        _ => true,
    };
    (!ok).then(|| serde_yaml::to_string(v).unwrap_or_default().trim().chars().take(200).collect())
}

mod fast;

#[cfg(test)]
mod tests;
