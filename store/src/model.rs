//! The store's vocabulary: issue metadata and bodies, changes, filters, and what calls return.

use std::path::PathBuf;
use std::str::FromStr;
use std::time::SystemTime;

use serde_json::{Map, Value};

macro_rules! wire_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $wire:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
        pub enum $name { $(#[serde(rename = $wire)] $variant),+ }
        impl $name {
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];
            pub fn as_str(&self) -> &'static str {
                match self { $(Self::$variant => $wire),+ }
            }
        }
        impl $name {
            /// Reads what humans write too: any case, `-` or space for `_` (`Closed`, `in-progress`).
            pub fn parse_loose(s: &str) -> Option<Self> {
                let norm = s.trim().to_lowercase().replace(['-', ' '], "_");
                Self::ALL.iter().copied().find(|v| v.as_str() == norm || Self::alias(&norm) == Some(*v))
            }
        }
        impl FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                match s.trim() {
                    $($wire => Ok(Self::$variant),)+
                    other => Err(format!("unknown {} `{other}`", stringify!($name))),
                }
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { f.write_str(self.as_str()) }
        }
    };
}

wire_enum!(
    /// Kind of artifact; each has its own folder and ID prefix.
    IssueType { Issue = "issue", Specification = "specification", Idea = "idea" }
);
wire_enum!(
    /// Lifecycle state, in workflow order.
    Status { Open = "open", InProgress = "in_progress", Closed = "closed", Cancelled = "cancelled" }
);
wire_enum!(
    /// Priority, lowest first.
    Priority { Low = "low", Medium = "medium", High = "high", Critical = "critical" }
);

/// The highest id number docket accepts: ids are zero-padded to six digits and grow past six
/// (ISS-1000000) up to nine. A number beyond (`ISS-18446744073709551615` in a cloned repository)
/// is malformed: `docket doctor` lists it, allocation ignores it, and nothing adds to it, so no
/// new id ever wraps around or repeats.
pub const MAX_ID_NUMBER: u64 = 999_999_999;

/// The number in an id's digits, when it is within [`MAX_ID_NUMBER`].
pub fn bounded_id_number(digits: &str) -> Option<u64> {
    if digits.is_empty() || digits.len() > 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok().filter(|n| *n <= MAX_ID_NUMBER)
}

/// The id after `highest`, or why there is none (every number up to [`MAX_ID_NUMBER`] is taken).
pub fn id_after(t: IssueType, highest: u64, folder: PathBuf) -> Result<String, StoreError> {
    match highest.checked_add(1).filter(|n| *n <= MAX_ID_NUMBER) {
        Some(n) => Ok(format!("{}{n:06}", t.prefix())),
        None => Err(StoreError::Refused {
            path: folder,
            reason: format!(
                "a file already holds id number {highest}, the highest docket allocates ({MAX_ID_NUMBER}); \
                 renumber that file to a lower free id, then retry"
            ),
        }),
    }
}

impl IssueType {
    /// Folder of the collection inside the workspace directory.
    pub fn folder(&self) -> &'static str {
        match self {
            IssueType::Issue => "issues",
            IssueType::Specification => "specifications",
            IssueType::Idea => "ideas",
        }
    }

    /// ID prefix, e.g. `ISS-`.
    pub fn prefix(&self) -> &'static str {
        match self {
            IssueType::Issue => "ISS-",
            IssueType::Specification => "SPEC-",
            IssueType::Idea => "IDEA-",
        }
    }
}

impl IssueType {
    fn alias(_: &str) -> Option<Self> {
        None
    }
}

impl Priority {
    fn alias(_: &str) -> Option<Self> {
        None
    }
}

impl Status {
    fn alias(s: &str) -> Option<Self> {
        match s {
            "canceled" => Some(Status::Cancelled),
            "inprogress" => Some(Status::InProgress),
            _ => None,
        }
    }

    /// Closed and cancelled issues live in `archived/`.
    pub fn is_archived(&self) -> bool {
        matches!(self, Status::Closed | Status::Cancelled)
    }
}

/// Everything from an issue's frontmatter, without the body.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IssueMeta {
    pub id: String,
    pub title: String,
    pub issue_type: IssueType,
    pub status: Status,
    pub priority: Priority,
    pub labels: Vec<String>,
    pub assignee: Option<String>,
    pub project: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub closed_at: Option<String>,
    /// `wranglerContext`: agentId, parentTaskId, estimatedEffort and any key set through metadata.
    pub context: Map<String, Value>,
    /// `blockedBy`: IDs of the issues that must be done before this one (any collection).
    #[serde(default)]
    pub blocked_by: Vec<String>,
    /// Absolute path of the file.
    pub path: PathBuf,
    /// Length of the body in characters.
    pub body_len: usize,
    /// False for a markdown file without frontmatter (listed after real issues).
    #[serde(default = "yes")]
    pub frontmatter: bool,
}

fn yes() -> bool {
    true
}

/// An issue with its markdown body (the description).
#[derive(Debug, Clone, PartialEq)]
pub struct Issue {
    pub meta: IssueMeta,
    pub body: String,
    /// The version of the file's bytes ([`crate::version_of`]), as read or as written: what a
    /// write guarded by [`IssuePatch::if_version`] compares.
    pub version: String,
}

/// What `create` needs.
#[derive(Debug, Clone)]
pub struct NewIssue {
    pub title: String,
    pub description: String,
    pub issue_type: IssueType,
    pub status: Status,
    pub priority: Priority,
    pub labels: Vec<String>,
    pub assignee: Option<String>,
    pub project: Option<String>,
    pub context: Map<String, Value>,
    /// `blockedBy`, checked like an update's (known IDs, no cycle).
    pub blocked_by: Vec<String>,
}

/// A change: `None` leaves a field alone; `Some(None)` clears an optional one.
#[derive(Debug, Clone, Default)]
pub struct IssuePatch {
    pub title: Option<String>,
    pub description: Option<String>,
    pub issue_type: Option<IssueType>,
    pub status: Option<Status>,
    pub priority: Option<Priority>,
    pub labels: Option<Vec<String>>,
    pub assignee: Option<Option<String>>,
    pub project: Option<Option<String>>,
    /// Replaces `wranglerContext`.
    pub context: Option<Map<String, Value>>,
    /// Text appended to the body (completion notes).
    pub append_body: Option<String>,
    /// Labels added to the ones the file has when it is written (read under the lock).
    pub add_labels: Vec<String>,
    pub remove_labels: Vec<String>,
    /// Keys set in / removed from `wranglerContext` as it is when written.
    pub set_context: Vec<(String, Value)>,
    pub remove_context: Vec<String>,
    /// Replaces `blockedBy` (empty removes the key); refused for unknown IDs, the issue itself
    /// or a cycle.
    pub blocked_by: Option<Vec<String>>,
    /// Checked under the lock against the file as it is before anything is written.
    pub expect: Option<Expect>,
    /// The version of the file the change was based on: refused (nothing written) when the
    /// file's bytes are no longer those, whoever changed them (docket, an editor, a merge).
    pub if_version: Option<String>,
}

/// A condition an update needs, checked under the workspace lock (compare-and-set).
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// The file's `updatedAt` is still this one.
    UpdatedAt(String),
    /// A claim by this assignee: the issue is open, unassigned or already theirs, and unblocked
    /// (or already in progress by them: the claim is repeated, nothing changes).
    Claim(String),
}

/// What an update did: the issue just before (read under the lock) and after, and which fields
/// changed (empty: nothing to change, the file was not written).
#[derive(Debug, Clone)]
pub struct Updated {
    pub before: IssueMeta,
    pub issue: Issue,
    pub changed: Vec<&'static str>,
}

/// Which issues a query covers; an empty list means "any".
#[derive(Debug, Clone, Default)]
pub struct IssueFilter {
    pub status: Vec<Status>,
    pub priority: Vec<Priority>,
    /// Any of these labels.
    pub labels: Vec<String>,
    pub assignee: Option<String>,
    pub project: Option<String>,
    pub types: Vec<IssueType>,
    pub parent_task_id: Option<String>,
    pub ids: Vec<String>,
    /// Only issues with (true) or without (false) an open or in-progress blocker.
    pub blocked: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortField {
    Created,
    Updated,
    Priority,
    Status,
    Id,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortOrder {
    Asc,
    Desc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchField {
    Title,
    Description,
    Labels,
}

#[derive(Debug, Clone)]
pub struct SearchQuery {
    pub text: String,
    pub fields: Vec<SearchField>,
    pub filter: IssueFilter,
}

/// A search match; ID matches score above title matches above label matches above body
/// matches. [`Store::excerpt`](crate::Store::excerpt) gives the body around the match.
#[derive(Debug, Clone)]
pub struct SearchHit {
    pub meta: std::sync::Arc<IssueMeta>,
    pub score: u32,
}

impl SearchHit {
    /// The order of [`crate::Store::search_page`]'s hits: highest score first, then newest
    /// update, then ID, then path.
    pub fn best_first(a: &SearchHit, b: &SearchHit) -> std::cmp::Ordering {
        b.score
            .cmp(&a.score)
            .then_with(|| b.meta.updated_at.cmp(&a.meta.updated_at))
            .then_with(|| a.meta.id.cmp(&b.meta.id))
            .then_with(|| a.meta.path.cmp(&b.meta.path))
    }
}

/// A page of a list, and how many issues matched in all.
#[derive(Debug, Clone, Default)]
pub struct Listed {
    pub items: Vec<std::sync::Arc<IssueMeta>>,
    pub total: usize,
}

/// The first unfinished (open or in progress) issues of a scope as rows, how many of the scope
/// are unfinished, and how many the scope holds in all.
#[derive(Debug, Clone, Default)]
pub struct Unfinished<T> {
    pub rows: Vec<T>,
    pub count: usize,
    pub total: usize,
}

/// A page of search hits, and how many hits there are in all.
#[derive(Debug, Clone, Default)]
pub struct SearchPage {
    pub hits: Vec<SearchHit>,
    pub total: usize,
}

/// A result and how it was served.
#[derive(Debug, Clone)]
pub struct Snapshot<T> {
    pub value: T,
    /// Served from the in-memory index without re-reading files.
    pub cached: bool,
    pub warnings: Vec<StoreWarning>,
}

/// What a [`StoreWarning`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StoreWarningCode {
    /// Files the index could not read (broken frontmatter, not UTF-8).
    SkippedFiles,
    /// The index may miss an edit made outside the server.
    StaleIndex,
    /// Two files claim one ID.
    DuplicateId,
    /// A frontmatter value docket does not recognise, kept as written.
    NonstandardValue,
}

/// Something wrong in the workspace that did not stop the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreWarning {
    pub code: StoreWarningCode,
    pub message: String,
    pub paths: Vec<PathBuf>,
}

#[derive(Debug, Clone, Copy)]
pub struct IndexInfo {
    pub entries: usize,
    pub last_refresh: Option<SystemTime>,
    pub enabled: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("issue {id} not found")]
    NotFound { id: String },
    #[error("invalid id `{id}`: {reason}")]
    InvalidId { id: String, reason: String },
    #[error("id {id} is used by {} files", paths.len())]
    Ambiguous { id: String, paths: Vec<PathBuf> },
    #[error("no .wrangler/ or .docket/ workspace found in {} or any parent directory", searched_from.display())]
    NoWorkspace { searched_from: PathBuf },
    #[error("{}: frontmatter does not parse: {reason}", path.display())]
    Malformed { path: PathBuf, reason: String },
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("session {} not found", id.as_deref().unwrap_or("(most recent)"))]
    SessionNotFound { id: Option<String> },
    #[error("spec file {} not found", path.display())]
    SpecNotFound { path: PathBuf },
    #[error("{param} {} is outside the repository {}", path.display(), root.display())]
    OutsideWorkspace { param: &'static str, path: PathBuf, root: PathBuf },
    #[error("git failed: {details}")]
    Git { details: String },
    #[error("{}: refused: {reason}", path.display())]
    Refused { path: PathBuf, reason: String },
    #[error(
        "{}: `{key}` is `{value}`, which docket cannot change without guessing. Fix it by hand (for `{key}` a \
         list like `[a, b]`), then retry",
        path.display()
    )]
    NotEditable { path: PathBuf, key: String, value: String },
    #[error("{}: the frontmatter cannot be edited in place: {reason}. Edit the file by hand, then retry", path.display())]
    Unwritable { path: PathBuf, reason: String },
    #[error(
        "{} was changed by someone else while docket was writing it ({attempts} attempts); nothing was \
         overwritten. Read the issue again and retry",
        path.display()
    )]
    Conflict { path: PathBuf, attempts: usize },
    #[error("{id} cannot be blocked by {blocker}: {reason}")]
    BadBlocker { id: String, blocker: String, reason: String },
    #[error("blockedBy of {id} would close a cycle: {cycle}")]
    Cycle { id: String, cycle: String },
    #[error("{id} cannot be claimed: {reason}")]
    ClaimRefused { id: String, reason: String },
    #[error("{id} changed since it was read: updatedAt is {current}, not {expected}")]
    Stale { id: String, current: String, expected: String },
    #[error("{id} changed since it was read: its version is {current}, not {expected}")]
    StaleVersion { id: String, current: String, expected: String },
}

impl StoreError {
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> StoreError {
        let path = path.into();
        move |source| StoreError::Io { path, source }
    }
}
