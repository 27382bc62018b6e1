//! The store's vocabulary: issue metadata and bodies, changes, filters, and what calls return.

use std::path::PathBuf;
use std::str::FromStr;
use std::time::SystemTime;

use serde_json::{Map, Value};

macro_rules! wire_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $wire:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
        pub enum $name { $($(#[$vdoc])* #[serde(rename = $wire)] $variant),+ }
        impl $name {
            /// Every value, in declaration order (the order `Ord` sorts by).
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];
            /// The value as frontmatter writes it (`in_progress`, `specification`): what
            /// `Display` prints and serde reads and writes.
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
    /// Kind of artifact (frontmatter `type`); each has its own folder and ID prefix. A file whose
    /// `type` is missing or unknown has the type of the folder it is in.
    IssueType {
        /// `issue`: a task or a bug, in `issues/`, IDs `ISS-000001`.
        Issue = "issue",
        /// `specification`: a spec, in `specifications/`, IDs `SPEC-000001`.
        Specification = "specification",
        /// `idea`: not yet a spec, in `ideas/`, IDs `IDEA-000001`.
        Idea = "idea",
    }
);
wire_enum!(
    /// Lifecycle state (frontmatter `status`), in workflow order; `open` when missing or unknown.
    Status {
        /// `open`: not started (the default).
        Open = "open",
        /// `in_progress`: someone works on it (a claim sets it, with the assignee).
        InProgress = "in_progress",
        /// `closed`: done; the file lives in `archived/` and `closedAt` says when.
        Closed = "closed",
        /// `cancelled`: dropped; archived like `closed`. `canceled` is read as this too.
        Cancelled = "cancelled",
    }
);
wire_enum!(
    /// Priority (frontmatter `priority`), lowest first; `medium` when missing or unknown.
    Priority {
        /// `low`.
        Low = "low",
        /// `medium` (the default).
        Medium = "medium",
        /// `high`.
        High = "high",
        /// `critical`: first in ready work.
        Critical = "critical",
    }
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
    /// `id` (`ISS-000042`); when missing, the ID the file name starts with (`ISS-000042-...`, or a
    /// legacy `000042-...`), else the file name without `.md`. An unquoted `id: 37` reads as
    /// `000037`.
    pub id: String,
    /// `title`; when missing, the body's first markdown heading, else `Untitled Issue`.
    pub title: String,
    /// `type`, read in any case; when missing or unknown, the type of the file's folder.
    pub issue_type: IssueType,
    /// `status`, read in any case with `-` or space for `_`; `open` when missing or unknown.
    pub status: Status,
    /// `priority`, read in any case; `medium` when missing or unknown.
    pub priority: Priority,
    /// `labels` in file order (a single value reads as one label); empty when missing.
    pub labels: Vec<String>,
    /// `assignee`, as written; `None` when missing or empty.
    pub assignee: Option<String>,
    /// `project`, as written; `None` when missing or empty.
    pub project: Option<String>,
    /// `createdAt` as written (ISO 8601 text, not parsed); when missing, the file's modification
    /// time (RFC 3339 UTC with milliseconds, what docket writes).
    pub created_at: String,
    /// `updatedAt` as written; when missing, `createdAt`, else the file's modification time.
    /// Every docket write sets it to the time of the write.
    pub updated_at: String,
    /// `closedAt`: when the issue was last closed or cancelled; `None` when missing or empty
    /// (reopening removes it).
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
    /// Its frontmatter.
    pub meta: IssueMeta,
    /// The markdown after the frontmatter's closing `---` line, byte for byte (the whole file for
    /// a file without frontmatter).
    pub body: String,
    /// The version of the file's bytes ([`crate::version_of`]), as read or as written: what a
    /// write guarded by [`IssuePatch::if_version`] compares.
    pub version: String,
}

/// What [`Store::create`](crate::Store::create) needs; the ID, `createdAt` and `updatedAt` are
/// the store's to give.
#[derive(Debug, Clone)]
pub struct NewIssue {
    /// `title`; also gives the file name its slug (`ISS-000042-{slug}.md`).
    pub title: String,
    /// The body, written after the frontmatter as given.
    pub description: String,
    /// `type`: the collection (folder and ID prefix) the issue is created in.
    pub issue_type: IssueType,
    /// `status`; closed or cancelled puts the file in `archived/` and sets `closedAt` to now.
    pub status: Status,
    /// `priority`.
    pub priority: Priority,
    /// `labels`, written as given (an empty list is written `labels: []`).
    pub labels: Vec<String>,
    /// `assignee`, trimmed; `None` or blank writes no key.
    pub assignee: Option<String>,
    /// `project`; `None` or empty writes no key.
    pub project: Option<String>,
    /// `wranglerContext` (`parentTaskId` makes the issue a child); empty writes no key.
    pub context: Map<String, Value>,
    /// `blockedBy`, checked like an update's (known IDs, no cycle).
    pub blocked_by: Vec<String>,
}

/// A change: `None` leaves a field alone; `Some(None)` clears an optional one.
#[derive(Debug, Clone, Default)]
pub struct IssuePatch {
    /// A new `title` (the file keeps its name).
    pub title: Option<String>,
    /// A new body, replacing the old one whole.
    pub description: Option<String>,
    /// A new `type`: the file moves to that collection's folder, keeping its name and ID.
    pub issue_type: Option<IssueType>,
    /// A new `status`: closing or cancelling moves the file into `archived/` and sets
    /// `closedAt`; reopening moves it back and removes `closedAt`.
    pub status: Option<Status>,
    /// A new `priority`.
    pub priority: Option<Priority>,
    /// Replaces `labels` whole (before [`add_labels`](Self::add_labels) and
    /// [`remove_labels`](Self::remove_labels) apply).
    pub labels: Option<Vec<String>>,
    /// A new `assignee`, trimmed; `Some(None)` or a blank name removes the key.
    pub assignee: Option<Option<String>>,
    /// A new `project`; `Some(None)` or an empty name removes the key.
    pub project: Option<Option<String>>,
    /// Replaces `wranglerContext`.
    pub context: Option<Map<String, Value>>,
    /// Text appended to the body (completion notes).
    pub append_body: Option<String>,
    /// Labels added to the ones the file has when it is written (read under the lock).
    pub add_labels: Vec<String>,
    /// Labels taken out of the ones the file has when it is written, after `add_labels` (a label
    /// in both ends up removed). Like `add_labels`, refused with [`StoreError::NotEditable`] when
    /// the file's `labels` is not a list.
    pub remove_labels: Vec<String>,
    /// Keys set in `wranglerContext` as it is when written (after [`context`](Self::context)).
    pub set_context: Vec<(String, Value)>,
    /// Keys removed from `wranglerContext` as it is when written, after `set_context`.
    pub remove_context: Vec<String>,
    /// Replaces `blockedBy` (empty removes the key); refused for unknown IDs, the issue itself
    /// or a cycle.
    pub blocked_by: Option<Vec<String>>,
    /// Blockers added to the ones the file has when it is written (read under the lock; to
    /// `blocked_by` when it is given), IDs compared without regard to case, additions last; an ID
    /// also in `remove_blockers` is not added. The list that results is checked as `blocked_by` is.
    pub add_blockers: Vec<String>,
    /// Blockers taken out of the ones the file has when it is written (IDs compared without
    /// regard to case).
    pub remove_blockers: Vec<String>,
    /// Checked under the lock against the file as it is before anything is written.
    pub expect: Option<Expect>,
    /// The `docketKey` the file must have: a claim writes the issue its record is about, and
    /// a merge may give the id to another issue between the two (refused, nothing written).
    pub identity: Option<String>,
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
    /// The issue as read under the lock, just before the write.
    pub before: IssueMeta,
    /// The issue as written (as read, when nothing changed), with its new version.
    pub issue: Issue,
    /// The fields whose value changed, in this order: `title`, `type`, `status`, `priority`,
    /// `labels`, `assignee`, `project`, `wranglerContext`, `blockedBy`, `description` (the
    /// `updatedAt` and `closedAt` that come with them are not listed).
    pub changed: Vec<&'static str>,
}

/// Which issues a query covers; an empty list means "any".
#[derive(Debug, Clone, Default)]
pub struct IssueFilter {
    /// Any of these statuses.
    pub status: Vec<Status>,
    /// Any of these priorities.
    pub priority: Vec<Priority>,
    /// Any of these labels.
    pub labels: Vec<String>,
    /// Only issues whose `assignee` is exactly this (case matters).
    pub assignee: Option<String>,
    /// Only issues whose `project` is exactly this (case matters).
    pub project: Option<String>,
    /// Any of these types (collections).
    pub types: Vec<IssueType>,
    /// Only children of this issue: `wranglerContext.parentTaskId` is exactly this text.
    pub parent_task_id: Option<String>,
    /// Any of these IDs, written in full (`ISS-000042`, any case; no short forms).
    pub ids: Vec<String>,
    /// Only issues with (true) or without (false) an open or in-progress blocker.
    pub blocked: Option<bool>,
}

/// What a list is sorted by; ties go by ID, and markdown files without frontmatter come after
/// the issues in either order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortField {
    /// `createdAt`, compared as text (ISO 8601 times written alike sort by time).
    Created,
    /// `updatedAt`, compared as text; with [`SortOrder::Desc`], the order the index keeps.
    Updated,
    /// Priority, `low` before `critical` in ascending order.
    Priority,
    /// Status in workflow order: `open`, `in_progress`, `closed`, `cancelled` ascending.
    Status,
    /// The ID, compared as text.
    Id,
}

/// Which way a [`SortField`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortOrder {
    /// Smallest (oldest, lowest) first.
    Asc,
    /// Largest (newest, highest) first.
    Desc,
}

/// A part of an issue a search looks in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchField {
    /// The title, and the ID: a query that is an ID (`ISS-000042`, `42`, `#42`) finds its issue.
    Title,
    /// The body.
    Description,
    /// The labels.
    Labels,
}

/// A full-text search: its words, where to look, and which issues it covers.
#[derive(Debug, Clone)]
pub struct SearchQuery {
    /// The words, as a user types them (any case).
    pub text: String,
    /// Where the words are looked for; an empty list finds nothing (pass all three to look
    /// everywhere).
    pub fields: Vec<SearchField>,
    /// Only issues this filter keeps are hits.
    pub filter: IssueFilter,
}

/// A search match; ID matches score above title matches above label matches above body
/// matches. [`Store::excerpt`](crate::Store::excerpt) gives the body around the match.
#[derive(Debug, Clone)]
pub struct SearchHit {
    /// The issue found, from the index.
    pub meta: std::sync::Arc<IssueMeta>,
    /// Its relevance, higher is better; only comparable between hits of one search.
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
    /// The issues of the page, in the order asked for.
    pub items: Vec<std::sync::Arc<IssueMeta>>,
    /// How many issues match the filter, across all pages.
    pub total: usize,
}

/// The first unfinished (open or in progress) issues of a scope as rows, how many of the scope
/// are unfinished, and how many the scope holds in all.
#[derive(Debug, Clone, Default)]
pub struct Unfinished<T> {
    /// The first unfinished issues, newest update first, as the caller's rows.
    pub rows: Vec<T>,
    /// How many issues of the scope are open or in progress.
    pub count: usize,
    /// How many issues the scope holds, whatever their status.
    pub total: usize,
}

/// A page of search hits, and how many hits there are in all.
#[derive(Debug, Clone, Default)]
pub struct SearchPage {
    /// The hits of the page, best first ([`SearchHit::best_first`]).
    pub hits: Vec<SearchHit>,
    /// How many hits the search has, across all pages.
    pub total: usize,
}

/// A result and how it was served.
#[derive(Debug, Clone)]
pub struct Snapshot<T> {
    /// What was asked for.
    pub value: T,
    /// Served from the in-memory index without re-reading files.
    pub cached: bool,
    /// What is wrong in the workspace and bears on this answer (skipped files, a stale index,
    /// duplicate IDs); empty when nothing is.
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
    /// The ID named is the one an imported issue had in its old tracker; the warning names the
    /// docket issue it became.
    ImportedId,
}

/// Something wrong in the workspace that did not stop the call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreWarning {
    /// What kind of problem it is.
    pub code: StoreWarningCode,
    /// One or two sentences for the user: the files concerned (relative to the workspace root)
    /// and what fixes it.
    pub message: String,
    /// The files concerned; empty for a stale index.
    pub paths: Vec<PathBuf>,
}

/// The state of a store's in-memory index ([`Store::index_info`](crate::Store::index_info)).
#[derive(Debug, Clone, Copy)]
pub struct IndexInfo {
    /// Markdown files the index holds (files with broken frontmatter are not counted).
    pub entries: usize,
    /// When the index was last brought up to date; `None` before the first call that needed it.
    pub last_refresh: Option<SystemTime>,
    /// Whether the index is kept between calls ([`StoreOptions::cache`](crate::StoreOptions::cache)).
    pub enabled: bool,
}

/// Why a store call failed. Each message names what was wrong and what to do next.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// No issue file holds this ID (nor a short form of it: `42`, `000042`).
    #[error("issue {id} not found")]
    NotFound {
        /// The ID as given.
        id: String,
    },
    /// An issue or session ID that cannot be one: empty, over 100 characters, or holding
    /// anything but ASCII letters, digits, `-` and `_`. Checked before the ID comes near a path.
    #[error("invalid id `{id}`: {reason}")]
    InvalidId {
        /// The ID as given (at most its first 100 characters).
        id: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A write named an ID that several files hold (two files with one ID, or a short form such
    /// as `42` matching `ISS-000042` and `SPEC-000042`): a write never picks one at random.
    /// Reads take the first and warn instead ([`StoreWarningCode::DuplicateId`]).
    #[error("id {id} is used by {} files", paths.len())]
    Ambiguous {
        /// The ID as given, trimmed.
        id: String,
        /// Every file holding it.
        paths: Vec<PathBuf>,
    },
    /// No `.wrangler/` or `.docket/` directory at the path named, nor (when discovering) in any
    /// directory above it.
    #[error("no .wrangler/ or .docket/ workspace found in {} or any parent directory", searched_from.display())]
    NoWorkspace {
        /// Where the search started (or the path named explicitly).
        searched_from: PathBuf,
    },
    /// A file does not parse: an issue file's frontmatter is not a YAML mapping or has no
    /// closing `---` line, or a session's `context.json` is not its JSON. The file is left as
    /// it is.
    #[error("{}: frontmatter does not parse: {reason}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        reason: String,
    },
    /// The operating system refused a read or write (permissions, a full disk, a missing file).
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder it was about.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// No session folder with this ID, or (without an ID) no session of the kind asked for.
    #[error("session {} not found", id.as_deref().unwrap_or("(most recent)"))]
    SessionNotFound {
        /// The session ID asked for; `None` when the most recent one was asked for.
        id: Option<String>,
    },
    /// `session_start`'s spec file is not a file.
    #[error("spec file {} not found", path.display())]
    SpecNotFound {
        /// Where it was looked for (symlinks and `..` resolved).
        path: PathBuf,
    },
    /// A path a session was given resolves outside the repository (through `..`, an absolute
    /// path or a symlink).
    #[error("{param} {} is outside the repository {}", path.display(), root.display())]
    OutsideWorkspace {
        /// The parameter that named it (`specFile`, `workingDirectory`).
        param: &'static str,
        /// The path as joined to the workspace root.
        path: PathBuf,
        /// The workspace root the path must lie inside.
        root: PathBuf,
    },
    /// A git command the store needed failed (creating a session's worktree).
    #[error("git failed: {details}")]
    Git {
        /// What git printed on stderr, or why it could not run.
        details: String,
    },
    /// docket will not read or write this path: a symlink, FIFO or device where it expects its
    /// own file or folder, a path outside the workspace, a file over the size limit or not
    /// UTF-8, a name already taken, an ID past [`MAX_ID_NUMBER`], or an import's link to a place
    /// outside its batch.
    #[error("{}: refused: {reason}", path.display())]
    Refused {
        /// The path refused.
        path: PathBuf,
        /// Why, and what to do about it.
        reason: String,
    },
    /// A read-modify-write of a frontmatter key whose value is not what it should be (`labels`
    /// or `blockedBy` that is not a list of values, `wranglerContext` that is not a mapping):
    /// docket will not guess, the file is left as it is.
    #[error(
        "{}: `{key}` is `{value}`, which docket cannot change without guessing. Fix it by hand (for `{key}` a \
         list like `[a, b]`), then retry",
        path.display()
    )]
    NotEditable {
        /// The issue file.
        path: PathBuf,
        /// The frontmatter key.
        key: String,
        /// Its value as YAML (at most 200 characters).
        value: String,
    },
    /// The edit cannot be made to the frontmatter's text without touching other keys' bytes (a
    /// key written twice, anchors or aliases, a flow-style mapping); nothing is written.
    #[error("{}: the frontmatter cannot be edited in place: {reason}. Edit the file by hand, then retry", path.display())]
    Unwritable {
        /// The issue file.
        path: PathBuf,
        /// What stops the edit.
        reason: String,
    },
    /// The file kept changing between docket's read and its rename, on every attempt; nothing
    /// was overwritten.
    #[error(
        "{} was changed by someone else while docket was writing it ({attempts} attempts); nothing was \
         overwritten. Read the issue again and retry",
        path.display()
    )]
    Conflict {
        /// The issue file.
        path: PathBuf,
        /// How many times the update was applied to a fresh read.
        attempts: usize,
    },
    /// A `blockedBy` entry is refused: it is not an ID, no issue holds it, or it is the issue
    /// itself.
    #[error("{id} cannot be blocked by {blocker}: {reason}")]
    BadBlocker {
        /// The issue being written.
        id: String,
        /// The blocker as given, trimmed.
        blocker: String,
        /// Which of the three it is.
        reason: String,
    },
    /// The `blockedBy` given would make the issue wait, through other issues, on itself.
    #[error("blockedBy of {id} would close a cycle: {cycle}")]
    Cycle {
        /// The issue being written.
        id: String,
        /// The cycle as text (`ISS-000001 -> ISS-000002 -> ISS-000001`).
        cycle: String,
    },
    /// A claim ([`Expect::Claim`], the claim refs) is refused: the issue is not open, someone
    /// else holds it, an open issue blocks it, the claim refs cannot be used (the claims remote
    /// cannot be reached, the workspace is not in git), or the call lacks a name or a takeover
    /// reason. Nothing is written.
    #[error("{id} cannot be claimed: {reason}")]
    ClaimRefused {
        /// The issue.
        id: String,
        /// Why, with who holds it and how to take it over where that applies.
        reason: String,
    },
    /// A write from a session whose claim on the issue was taken by someone else since (its lease
    /// lapsed, or it was taken over): fenced off, nothing written.
    #[error("{id} is no longer yours to change: {reason}")]
    ClaimLost {
        /// The issue.
        id: String,
        /// Who holds it now, since when, and the next call.
        reason: String,
    },
    /// A close from a session whose claim was taken since, whose file could not be put back (it
    /// was pushed already, or written again since): it stands beside the new holder's.
    #[error("{id}'s close stands, but the issue is no longer yours: {reason}")]
    CloseStood {
        /// The issue.
        id: String,
        /// Who holds it now, why the close stands, and the next call.
        reason: String,
    },
    /// [`Expect::UpdatedAt`] failed: the file's `updatedAt` is no longer the one expected.
    #[error("{id} changed since it was read: updatedAt is {current}, not {expected}")]
    Stale {
        /// The issue.
        id: String,
        /// Its `updatedAt` now.
        current: String,
        /// The `updatedAt` the caller based the change on.
        expected: String,
    },
    /// [`IssuePatch::if_version`] failed: the file's bytes changed since that version was
    /// read. Also given for [`Expect::UpdatedAt`] when `updatedAt` matches but this process
    /// last showed the caller other bytes.
    #[error("{id} changed since it was read: its version is {current}, not {expected}")]
    StaleVersion {
        /// The issue.
        id: String,
        /// The file's version now ([`crate::version_of`]).
        current: String,
        /// The version the caller based the change on.
        expected: String,
    },
}

impl StoreError {
    /// Makes an `std::io::Error` about `path` a [`StoreError::Io`] (for `map_err`).
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> StoreError {
        let path = path.into();
        move |source| StoreError::Io { path, source }
    }
}
