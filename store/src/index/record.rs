//! One issue as the index keeps it: every field of its [`IssueMeta`] packed into a single
//! allocation (a few bytes of enums and flags, then length-prefixed text), about a quarter of what
//! the record with its dozen separately allocated strings and maps took. The index hands out an
//! [`IssueMeta`] built from it only for what a call returns; filters, orders, counts and the work
//! graph read the packed fields in place through [`Fields`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Map;

use crate::model::{IssueMeta, IssueType, Priority, Status};

/// What filters, orders, counts and the work graph read of an issue: implemented by the full
/// [`IssueMeta`] and by the packed [`Record`], so the same code serves both.
pub trait Fields {
    fn id(&self) -> &str;
    fn title(&self) -> &str;
    fn issue_type(&self) -> IssueType;
    fn status(&self) -> Status;
    fn priority(&self) -> Priority;
    fn labels(&self) -> impl Iterator<Item = &str>;
    fn assignee(&self) -> Option<&str>;
    fn project(&self) -> Option<&str>;
    fn created_at(&self) -> &str;
    fn updated_at(&self) -> &str;
    /// `wranglerContext.parentTaskId` when it is text.
    fn parent(&self) -> Option<&str>;
    fn blocked_by(&self) -> impl Iterator<Item = &str>;
    fn has_blockers(&self) -> bool;
    fn frontmatter(&self) -> bool;
    /// `wranglerContext.container` when it is a boolean: whether the issue is a container
    /// (never offered as ready work) or work (offered even with open children).
    fn container(&self) -> Option<bool>;
}

impl Fields for IssueMeta {
    fn id(&self) -> &str {
        &self.id
    }
    fn title(&self) -> &str {
        &self.title
    }
    fn issue_type(&self) -> IssueType {
        self.issue_type
    }
    fn status(&self) -> Status {
        self.status
    }
    fn priority(&self) -> Priority {
        self.priority
    }
    fn labels(&self) -> impl Iterator<Item = &str> {
        self.labels.iter().map(String::as_str)
    }
    fn assignee(&self) -> Option<&str> {
        self.assignee.as_deref()
    }
    fn project(&self) -> Option<&str> {
        self.project.as_deref()
    }
    fn created_at(&self) -> &str {
        &self.created_at
    }
    fn updated_at(&self) -> &str {
        &self.updated_at
    }
    fn parent(&self) -> Option<&str> {
        self.context.get("parentTaskId").and_then(|v| v.as_str())
    }
    fn blocked_by(&self) -> impl Iterator<Item = &str> {
        self.blocked_by.iter().map(String::as_str)
    }
    fn has_blockers(&self) -> bool {
        !self.blocked_by.is_empty()
    }
    fn frontmatter(&self) -> bool {
        self.frontmatter
    }
    fn container(&self) -> Option<bool> {
        self.context.get("container").and_then(|v| v.as_bool())
    }
}

/// The packed fields, in this order after the [`HEAD`] bytes: each text is a varint length and
/// its bytes (an optional one: 0 for none, else length + 1); lists are a count, then texts.
const UPDATED: usize = 0;
const ID: usize = 1;
const NAME: usize = 2;
const TITLE: usize = 3;
const CREATED: usize = 4;
const CLOSED: usize = 5;
const ASSIGNEE: usize = 6;
const PROJECT: usize = 7;
const PARENT: usize = 8;
/// `wranglerContext` as JSON (empty: no keys).
const CONTEXT: usize = 9;
const LABELS: usize = 10;
const BLOCKED_BY: usize = 11;
const BODY_LEN: usize = 12;
/// Type, status, priority, flags ([`HAS_FRONTMATTER`], [`HAS_BLOCKERS`], [`HAS_PARENT`]), folder
/// number.
const HEAD: usize = 5;
const HAS_FRONTMATTER: u8 = 1;
/// Set when `blockedBy` is not empty, so the work graph skips most records without a walk to
/// their last field.
const HAS_BLOCKERS: u8 = 2;
const HAS_PARENT: u8 = 4;
/// `wranglerContext.container: true` / `false` (see [`Fields::container`]).
const CONTAINER: u8 = 8;
const NOT_CONTAINER: u8 = 16;

/// An issue packed (see the module). Cloning shares it.
#[derive(Clone, PartialEq, Eq)]
pub struct Record(Arc<[u8]>);

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v: u64 = 0;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= ((b & 0x7f) as u64) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn put_opt(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        None => out.push(0),
        Some(s) => {
            put_varint(out, s.len() as u64 + 1);
            out.extend_from_slice(s.as_bytes());
        }
    }
}

/// Whether a field holds a list (a count, then texts) or an optional text.
fn is_list(field: usize) -> bool {
    field == LABELS || field == BLOCKED_BY
}

fn is_optional(field: usize) -> bool {
    matches!(field, CLOSED | ASSIGNEE | PROJECT | PARENT)
}

impl Record {
    /// Packs `meta`, whose file is `name` in folder number `folder` (the path is not kept).
    pub fn new(meta: &IssueMeta, folder: u8, name: &str) -> Record {
        let mut out = Vec::with_capacity(96 + meta.title.len() + name.len());
        out.push(code(IssueType::ALL, meta.issue_type));
        out.push(code(Status::ALL, meta.status));
        out.push(code(Priority::ALL, meta.priority));
        let flags = [
            (meta.frontmatter, HAS_FRONTMATTER),
            (!meta.blocked_by.is_empty(), HAS_BLOCKERS),
            (Fields::parent(meta).is_some(), HAS_PARENT),
            (Fields::container(meta) == Some(true), CONTAINER),
            (Fields::container(meta) == Some(false), NOT_CONTAINER),
        ];
        out.push(flags.iter().filter(|(on, _)| *on).map(|(_, bit)| bit).sum());
        out.push(folder);
        put_str(&mut out, &meta.updated_at);
        put_str(&mut out, &meta.id);
        put_str(&mut out, name);
        put_str(&mut out, &meta.title);
        put_str(&mut out, &meta.created_at);
        put_opt(&mut out, meta.closed_at.as_deref());
        put_opt(&mut out, meta.assignee.as_deref());
        put_opt(&mut out, meta.project.as_deref());
        put_opt(&mut out, Fields::parent(meta));
        let context = if meta.context.is_empty() {
            String::new()
        } else {
            serde_json::to_string(&meta.context).unwrap_or_default()
        };
        put_str(&mut out, &context);
        for list in [&meta.labels, &meta.blocked_by] {
            put_varint(&mut out, list.len() as u64);
            for s in list {
                put_str(&mut out, s);
            }
        }
        put_varint(&mut out, meta.body_len as u64);
        Record(Arc::from(out))
    }

    /// A record as [`Record::bytes`] gave it (from the snapshot), if it is well formed: every
    /// field present, text UTF-8, enums in range, a plain file name, nothing after the end.
    pub fn from_bytes(bytes: &[u8]) -> Option<Record> {
        if bytes.len() < HEAD
            || bytes[0] as usize >= IssueType::ALL.len()
            || bytes[1] as usize >= Status::ALL.len()
            || bytes[2] as usize >= Priority::ALL.len()
            || bytes[3] > HAS_FRONTMATTER | HAS_BLOCKERS | HAS_PARENT | CONTAINER | NOT_CONTAINER
            || bytes[3] & (CONTAINER | NOT_CONTAINER) == CONTAINER | NOT_CONTAINER
        {
            return None;
        }
        let flag = |bit: u8| bytes[3] & bit != 0;
        let mut at = HEAD;
        for field in UPDATED..BODY_LEN {
            let n = if is_list(field) { varint(bytes, &mut at)? } else { 1 };
            if field == BLOCKED_BY && (n > 0) != flag(HAS_BLOCKERS) {
                return None;
            }
            for _ in 0..n {
                let mut len = varint(bytes, &mut at)?;
                if is_optional(field) {
                    if field == PARENT && (len > 0) != flag(HAS_PARENT) {
                        return None;
                    }
                    if len == 0 {
                        continue;
                    }
                    len -= 1;
                }
                let end = at.checked_add(usize::try_from(len).ok()?)?;
                let text = std::str::from_utf8(bytes.get(at..end)?).ok()?;
                if field == NAME && (text.is_empty() || text == "." || text == ".." || text.contains('/')) {
                    return None;
                }
                if field == CONTEXT
                    && !text.is_empty()
                    && serde_json::from_str::<Map<String, serde_json::Value>>(text).is_err()
                {
                    return None;
                }
                at = end;
            }
        }
        varint(bytes, &mut at)?;
        (at == bytes.len()).then(|| Record(Arc::from(bytes)))
    }

    /// The packed bytes (what the snapshot stores).
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// The number of the folder the file is in.
    pub fn folder(&self) -> u8 {
        self.0[4]
    }

    /// The byte range of the `k`th text of `field` (0 for a single text), `None` for an absent
    /// optional one.
    fn span(&self, field: usize, k: usize) -> Option<(usize, usize)> {
        let b = &self.0[..];
        let mut at = HEAD;
        for f in UPDATED..=field {
            let n = if is_list(f) { varint(b, &mut at)? as usize } else { 1 };
            for i in 0..n {
                let mut len = varint(b, &mut at)? as usize;
                if is_optional(f) {
                    if len == 0 {
                        if f == field {
                            return None;
                        }
                        continue;
                    }
                    len -= 1;
                }
                if f == field && i == k {
                    return Some((at, at + len));
                }
                at += len;
            }
            if f == field {
                return None;
            }
        }
        None
    }

    fn text(&self, field: usize) -> Option<&str> {
        let (a, b) = self.span(field, 0)?;
        // Checked when packed or read back (`from_bytes`).
        std::str::from_utf8(&self.0[a..b]).ok()
    }

    fn list(&self, field: usize) -> impl Iterator<Item = &str> {
        let b = &self.0[..];
        // Where the list starts: after every field before it.
        let mut at = HEAD;
        let mut ok = true;
        for f in UPDATED..field {
            let n = if is_list(f) { varint(b, &mut at).unwrap_or(0) as usize } else { 1 };
            for _ in 0..n {
                let mut len = varint(b, &mut at).unwrap_or(0) as usize;
                if is_optional(f) {
                    len = len.saturating_sub(1);
                }
                at += len;
            }
        }
        let mut n = varint(b, &mut at).unwrap_or_else(|| {
            ok = false;
            0
        });
        std::iter::from_fn(move || {
            if n == 0 {
                return None;
            }
            n -= 1;
            let len = varint(b, &mut at)? as usize;
            let s = std::str::from_utf8(b.get(at..at + len)?).ok()?;
            at += len;
            Some(s)
        })
    }

    /// The tracker an issue was imported from and the id it had there: `wranglerContext.importedFrom`
    /// split at its `:` (`("backlog", "BACK-12")` of `backlog:BACK-12`), if it has one.
    pub fn imported(&self) -> Option<(String, String)> {
        let context = self.text(CONTEXT)?;
        if !context.contains("\"importedFrom\"") {
            return None;
        }
        let map: serde_json::Map<String, serde_json::Value> = serde_json::from_str(context).ok()?;
        let from = map.get("importedFrom")?.as_str()?;
        let (source, old) = from.split_once(':')?;
        let old = old.trim();
        (!old.is_empty()).then(|| (source.trim().to_string(), old.to_string()))
    }

    /// The file name (in its folder).
    pub fn name(&self) -> &str {
        self.text(NAME).unwrap_or_default()
    }

    /// The issue's path: the file name in `folder`.
    pub fn path_in(&self, folder: &Path) -> PathBuf {
        folder.join(self.name())
    }

    /// The whole [`IssueMeta`], at `path` (its folder joined with [`Record::name`]); one pass
    /// over the fields.
    pub fn meta(&self, path: PathBuf) -> IssueMeta {
        let b = &self.0[..];
        let mut at = HEAD;
        // Checked when packed or read back (`from_bytes`), so these never fall back.
        let mut next = |optional: bool| -> Option<String> {
            let mut len = varint(b, &mut at).unwrap_or(0) as usize;
            if optional {
                if len == 0 {
                    return None;
                }
                len -= 1;
            }
            let s = std::str::from_utf8(b.get(at..at + len)?).ok()?.to_string();
            at += len;
            Some(s)
        };
        let updated_at = next(false).unwrap_or_default();
        let id = next(false).unwrap_or_default();
        let _name = next(false);
        let title = next(false).unwrap_or_default();
        let created_at = next(false).unwrap_or_default();
        let closed_at = next(true);
        let assignee = next(true);
        let project = next(true);
        let _parent = next(true);
        let context = match next(false) {
            Some(c) if !c.is_empty() => serde_json::from_str(&c).unwrap_or_default(),
            _ => Map::new(),
        };
        let mut list = || {
            let n = varint(b, &mut at).unwrap_or(0) as usize;
            let mut out = Vec::with_capacity(n.min(64));
            for _ in 0..n {
                let len = varint(b, &mut at).unwrap_or(0) as usize;
                out.extend(b.get(at..at + len).and_then(|t| std::str::from_utf8(t).ok()).map(str::to_string));
                at += len;
            }
            out
        };
        let labels = list();
        let blocked_by = list();
        let body_len = varint(b, &mut at).unwrap_or(0) as usize;
        IssueMeta {
            id,
            title,
            issue_type: Fields::issue_type(self),
            status: Fields::status(self),
            priority: Fields::priority(self),
            labels,
            assignee,
            project,
            created_at,
            updated_at,
            closed_at,
            context,
            blocked_by,
            path,
            body_len,
            frontmatter: Fields::frontmatter(self),
        }
    }
}

impl std::fmt::Debug for Record {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Record").field("id", &self.id()).field("name", &self.name()).finish()
    }
}

fn code<T: PartialEq>(all: &[T], v: T) -> u8 {
    all.iter().position(|x| *x == v).unwrap_or(0) as u8
}

impl Fields for Record {
    fn id(&self) -> &str {
        self.text(ID).unwrap_or_default()
    }
    fn title(&self) -> &str {
        self.text(TITLE).unwrap_or_default()
    }
    fn issue_type(&self) -> IssueType {
        IssueType::ALL[self.0[0] as usize]
    }
    fn status(&self) -> Status {
        Status::ALL[self.0[1] as usize]
    }
    fn priority(&self) -> Priority {
        Priority::ALL[self.0[2] as usize]
    }
    fn labels(&self) -> impl Iterator<Item = &str> {
        self.list(LABELS)
    }
    fn assignee(&self) -> Option<&str> {
        self.text(ASSIGNEE)
    }
    fn project(&self) -> Option<&str> {
        self.text(PROJECT)
    }
    fn created_at(&self) -> &str {
        self.text(CREATED).unwrap_or_default()
    }
    fn updated_at(&self) -> &str {
        self.text(UPDATED).unwrap_or_default()
    }
    fn parent(&self) -> Option<&str> {
        if self.0[3] & HAS_PARENT == 0 { None } else { self.text(PARENT) }
    }
    fn blocked_by(&self) -> impl Iterator<Item = &str> {
        self.list(BLOCKED_BY)
    }
    fn has_blockers(&self) -> bool {
        self.0[3] & HAS_BLOCKERS != 0
    }
    fn frontmatter(&self) -> bool {
        self.0[3] & HAS_FRONTMATTER != 0
    }
    fn container(&self) -> Option<bool> {
        match self.0[3] & (CONTAINER | NOT_CONTAINER) {
            CONTAINER => Some(true),
            NOT_CONTAINER => Some(false),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> IssueMeta {
        let mut context = Map::new();
        context.insert("parentTaskId".into(), json!("SPEC-000001"));
        context.insert("estimatedEffort".into(), json!(3.5));
        IssueMeta {
            id: "ISS-000042".into(),
            title: "Fix the ünïcode title".into(),
            issue_type: IssueType::Idea,
            status: Status::Cancelled,
            priority: Priority::Critical,
            labels: vec!["bug".into(), "".into(), "bug".into()],
            assignee: Some(String::new()),
            project: Some("core".into()),
            created_at: "2026-01-01T00:00:00.000Z".into(),
            updated_at: "2026-02-01T00:00:00.000Z".into(),
            closed_at: None,
            context,
            blocked_by: vec!["ISS-000001".into()],
            path: PathBuf::from("/w/.docket/ideas/ISS-000042-fix.md"),
            body_len: 123_456,
            frontmatter: false,
        }
    }

    #[test]
    fn a_record_gives_back_the_meta_it_packed() {
        let m = sample();
        let r = Record::new(&m, 3, "ISS-000042-fix.md");
        assert_eq!(r.meta(m.path.clone()), m);
        assert_eq!(r.folder(), 3);
        assert_eq!(r.parent(), Some("SPEC-000001"));
        assert_eq!(r.labels().collect::<Vec<_>>(), ["bug", "", "bug"]);
        assert!(r.has_blockers());
        let plain = IssueMeta { context: Map::new(), blocked_by: Vec::new(), labels: Vec::new(), ..m };
        let r = Record::new(&plain, 0, "x.md");
        assert_eq!(r.meta(plain.path.clone()), plain);
        assert_eq!(r.parent(), None);
        assert!(!r.has_blockers());
    }

    #[test]
    fn only_well_formed_bytes_make_a_record() {
        let r = Record::new(&sample(), 1, "ISS-000042-fix.md");
        assert_eq!(Record::from_bytes(r.bytes()), Some(r.clone()));
        let bytes = r.bytes();
        for cut in 0..bytes.len() {
            assert!(Record::from_bytes(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        let mut extra = bytes.to_vec();
        extra.push(0);
        assert!(Record::from_bytes(&extra).is_none());
        let traversal = Record::new(&sample(), 1, "../x.md");
        assert!(Record::from_bytes(traversal.bytes()).is_none());
    }
}
