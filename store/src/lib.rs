//! The workspace store: markdown issues with YAML frontmatter in wrangler's layout, an always-fresh
//! in-memory index, atomic writes under a workspace lock. It knows nothing of MCP, nor of tools.yaml:
//! it is a crate of its own, so a manifest edit does not recompile it.
//!
//! # Quick start
//!
//! Find the workspace (`.docket/` or `.wrangler/`) above a directory, open a [`Store`] on it,
//! create an issue and list the open ones:
//!
//! ```no_run
//! use docket_store::{
//!     IssueFilter, IssueType, NewIssue, Priority, SortField, SortOrder, Status, Store, StoreOptions, Workspace,
//! };
//!
//! # fn main() -> Result<(), docket_store::StoreError> {
//! // `Workspace::init(dir)` creates `.docket/` instead.
//! let ws = Workspace::discover(&std::env::current_dir().expect("a current directory"))?;
//! let store = Store::open(ws, StoreOptions::default());
//!
//! let issue = store.create(NewIssue {
//!     title: "Retry the billing webhook".into(),
//!     description: "It gives up after one 503.".into(),
//!     issue_type: IssueType::Issue,
//!     status: Status::Open,
//!     priority: Priority::High,
//!     labels: vec!["billing".into()],
//!     assignee: None,
//!     project: None,
//!     context: Default::default(),
//!     blocked_by: vec![],
//! })?;
//! println!("created {} at {}", issue.meta.id, issue.meta.path.display());
//!
//! let open = IssueFilter { status: vec![Status::Open], ..IssueFilter::default() };
//! let listed = store.list(&open, SortField::Updated, SortOrder::Desc)?;
//! for meta in &listed.value {
//!     println!("{} [{}] {}", meta.id, meta.priority, meta.title);
//! }
//! for warning in &listed.warnings {
//!     eprintln!("{}", warning.message); // a skipped file, a duplicate ID, ...
//! }
//! # Ok(())
//! # }
//! ```
//!
//! Reads return a [`Snapshot`]: the value, whether the index served it without reading files,
//! and the workspace's [`StoreWarning`]s. Writes ([`Store::create`], [`Store::update`] with an
//! [`IssuePatch`], [`Store::delete`]) take the workspace lock and change only the frontmatter
//! keys they are asked to; every error is a [`StoreError`] that says what to do next.
//!
//! Its floors, lowest first: `model` (the types every floor shares), [`fs`] (the rooted layer every
//! write goes through), `workspace` (finding and creating a workspace), `files` (issue files, their
//! frontmatter, the folders' listing), then `index` (the in-memory index and its snapshot, finding
//! an ID, filters, searches), [`git`] (ids across branches, the merge driver and its hooks),
//! [`generate`] (demo workspaces) and [`sessions`]. On top, this file: the [`Store`] and its
//! reads, with its writes (`write`), whole-file edits (`editing`), the work graph's operations
//! (`work`), claims (`claiming`), imports (`import`), the layout `init_workspace` checks
//! (`layout`), [`repair`] (`docket doctor`'s check and repairs) and what it does off its callers' path (`background`: the snapshot's writer, the
//! pass for the words). Each floor imports from the floors below it, never from this file's
//! helpers (tests/architecture.rs checks the floors).

#![deny(missing_docs)]

mod background;
#[allow(clippy::result_large_err)] // a refusal carries the claim it names
mod claiming;
mod editing;
mod files;
pub mod fs;
pub mod generate;
pub mod git;
pub mod holder;
mod import;
mod index;
mod layout;
mod model;
pub mod pending;
pub mod repair;
pub mod served;
pub mod sessions;
mod shown;
mod tombstones;
mod unpulled;
mod work;
mod workspace;
mod write;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

pub use claiming::{HeldClaims, ReadyClaims, Released};
pub use editing::EditCopy;
pub use files::MAX_FILE_BYTES;
pub use files::edit::check_issue_text;
pub use files::frontmatter::{IDENTITY_KEY, new_identity};
pub use files::read_text as read_file_safely;
pub use files::version_of;
pub use import::{Imported, KeptLink, Link};
pub use index::facts::{Counts, GroupBy};
pub use index::graph::{ChainLink, cycle_named, cycle_text};
pub use layout::{LayoutReport, SchemaUpdate, Split};
pub use model::*;
pub use tombstones::TOMBSTONE_MAX;
pub use work::{Blockers, Chains, Ready};
pub use workspace::{Workspace, Worktrees};

use background::Saver;
use files::frontmatter::Document;
use index::Index;
use index::filter::{is_everything, keep, sort_metas};
use index::lookup::resolve_for_read;
use index::record::{Fields, Record};
use index::search::{ID_MATCH, excerpt_around, named_by_id, parse_search};

/// How the store caches.
#[derive(Debug, Clone, Copy)]
pub struct StoreOptions {
    /// Keep the in-memory index (off: re-read every file on every call, like wrangler).
    pub cache: bool,
    /// Full revalidation interval, a safety net behind the change watcher.
    pub ttl: Duration,
    /// Number new ids above every git branch head and worktree (see `crate::git::ids`).
    pub branch_aware_ids: bool,
    /// The process answers one command and exits (the CLI): no thread saves the snapshot in the
    /// background, [`Store::finish`] saves it at the end only when it drifted by many files, and
    /// the parallel scans use at most [`ONE_SHOT_THREADS`] threads.
    pub one_shot: bool,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions { cache: true, ttl: Duration::from_secs(60), branch_aware_ids: true, one_shot: false }
    }
}

/// Threads a one-shot process scans with: the snapshot is decoded while the folders are listed,
/// and a pool of one per core on a big machine costs more to start than a warm call's work.
pub const ONE_SHOT_THREADS: usize = 2;

/// An open workspace: every read and write of its issues, sessions and claims. One per process
/// is enough (calls from many threads share its index); other processes, editors and git may
/// change the files meanwhile: reads see their changes, and writes never overwrite them.
/// Dropping it puts the index snapshot on disk for the next process ([`Store::flush`]).
pub struct Store {
    ws: Workspace,
    index: Arc<Mutex<Index>>,
    /// The thread that writes the index snapshot a moment after a write, if one was started.
    saver: Mutex<Option<Saver>>,
    /// Held by whoever makes the full-text index's pending pass over the files (one at a time).
    text_builder: Arc<Mutex<()>>,
    branch_aware_ids: bool,
    /// The remote that arbitrates claims (`claims_remote`), if one is named.
    claims_remote: Option<String>,
    /// How long one operation on the claims remote may take (`remote_timeout`).
    remote_timeout: Duration,
    /// The last answer of [`Store::claiming_alone`], and when it was found.
    alone: Mutex<Option<(std::time::Instant, Option<String>)>>,
    /// The claim refs, once a claim needed them (see [`git::claims`]).
    claims: std::sync::OnceLock<Result<Option<git::claims::Claims>, String>>,
    /// How long a claim's lease lasts (`claim_ttl`).
    claim_ttl: std::time::Duration,
    /// The sessions served here, whose claims are renewed while they live.
    sessions: Mutex<Vec<std::sync::Weak<holder::Session>>>,
    /// When this process last looked for tombstones to end (see `tombstones`).
    swept: Mutex<Option<std::time::Instant>>,
    /// The `updatedAt` and version of each file this process's answers gave (for `ifUpdatedAt`).
    shown: shown::Shown,
    one_shot: bool,
}

impl Drop for Store {
    fn drop(&mut self) {
        self.flush();
    }
}

impl Store {
    /// A store on `ws`. Reads nothing yet: the first call loads the index (from the snapshot in
    /// `cache/` when there is one, then the files that changed). With
    /// [`one_shot`](StoreOptions::one_shot) it also sizes the process's rayon pool, unless one
    /// already runs.
    pub fn open(ws: Workspace, opts: StoreOptions) -> Store {
        if opts.one_shot {
            // Fails when a pool already runs (a second store in the process): that one is kept.
            let _ = rayon::ThreadPoolBuilder::new().num_threads(ONE_SHOT_THREADS).build_global();
        }
        let index = Arc::new(Mutex::new(Index::new(ws.clone(), opts.cache, opts.ttl)));
        Store {
            ws,
            index,
            saver: Mutex::new(None),
            text_builder: Arc::new(Mutex::new(())),
            branch_aware_ids: opts.branch_aware_ids,
            claims_remote: None,
            remote_timeout: git::remote::DEFAULT_TIMEOUT,
            alone: Mutex::new(None),
            claims: std::sync::OnceLock::new(),
            claim_ttl: git::claims::DEFAULT_TTL,
            sessions: Mutex::default(),
            swept: Mutex::new(None),
            shown: shown::Shown::default(),
            one_shot: opts.one_shot,
        }
    }

    /// This store with claims arbitrated by git remote `remote` (`claims_remote`).
    pub fn with_claims_remote(mut self, remote: Option<String>) -> Store {
        self.claims_remote = remote.filter(|r| !r.trim().is_empty());
        self
    }

    /// This store with claim leases of `ttl` (`claim_ttl`).
    pub fn with_claim_ttl(mut self, ttl: std::time::Duration) -> Store {
        self.claim_ttl = ttl;
        self
    }

    /// This store giving each operation on the claims remote `timeout` (`remote_timeout`).
    pub fn with_remote_timeout(mut self, timeout: Duration) -> Store {
        self.remote_timeout = timeout;
        self
    }

    /// The workspace this store serves.
    pub fn workspace(&self) -> &Workspace {
        &self.ws
    }

    fn lock(&self) -> MutexGuard<'_, Index> {
        self.index.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The index, brought up to date, and whether that needed no file reads. If revalidation
    /// fails after a good load, the last good index is served and `warnings` says so.
    fn fresh(&self) -> Result<(MutexGuard<'_, Index>, bool), StoreError> {
        let mut index = self.lock();
        let result = match index.refresh() {
            Ok(cached) => {
                index.stale = None;
                Ok(cached)
            }
            Err(e) if index.len() > 0 => {
                index.stale = Some(e.to_string());
                Ok(true)
            }
            Err(e) => Err(e),
        };
        if std::mem::take(&mut index.save_wanted) && !self.one_shot {
            self.save_in_background();
        }
        result.map(|cached| (index, cached))
    }

    /// A number that changes whenever an issue changes (after bringing the index up to date):
    /// cheap to poll, since the change watcher tells what to re-read.
    pub fn generation(&self) -> Result<u64, StoreError> {
        Ok(self.fresh()?.0.generation())
    }

    /// Whether the full-text index still waits for the words a first scan left out (they come
    /// with the first search, or with the snapshot's writer); for tests and benchmarks.
    pub fn words_pending(&self) -> bool {
        self.lock().text_pending()
    }

    /// The index's size, last refresh and whether it is kept, as they are now (nothing is
    /// refreshed).
    pub fn index_info(&self) -> IndexInfo {
        let index = self.lock();
        IndexInfo { entries: index.len(), last_refresh: index.last_refresh(), enabled: index.enabled() }
    }

    /// One issue with its body, read from disk. `id` may be short (`42`, `000042`). An ID held by
    /// several files gives the first of them (not archived before archived, then the one created
    /// first) with a DUPLICATE_ID warning naming the others.
    pub fn get(&self, id: &str) -> Result<Snapshot<Issue>, StoreError> {
        let (index, cached) = self.fresh()?;
        let (path, duplicate) = resolve_for_read(&index, id)?;
        let mut warnings = index.warnings_about(&path);
        drop(index);
        let (meta, doc, version) = self.read(&path)?;
        self.shown.note(&path, &meta.updated_at, &version);
        if let Some(w) = duplicate {
            if w.code == StoreWarningCode::DuplicateId {
                warnings.retain(|o| o.code != StoreWarningCode::DuplicateId);
            }
            warnings.push(w);
        }
        let notes = files::frontmatter::nonstandard_values(&doc);
        if !notes.is_empty() {
            warnings.push(StoreWarning {
                code: StoreWarningCode::NonstandardValue,
                message: format!(
                    "{} ({}): {}. docket keeps these as written unless you change them.",
                    meta.id,
                    self.relative(&path),
                    notes.join("; ")
                ),
                paths: vec![path.clone()],
            });
        }
        Ok(Snapshot { value: Issue { meta, body: doc.body, version }, cached, warnings })
    }

    /// [`Store::get`] without the body, from the index rather than the issue's file.
    pub fn get_meta(&self, id: &str) -> Result<Snapshot<IssueMeta>, StoreError> {
        let (index, cached) = self.fresh()?;
        let (path, duplicate) = resolve_for_read(&index, id)?;
        let meta = index.meta_at(&path).ok_or_else(|| StoreError::NotFound { id: id.to_string() })?;
        let mut warnings = index.warnings_about(&path);
        if let Some(w) = duplicate {
            if w.code == StoreWarningCode::DuplicateId {
                warnings.retain(|o| o.code != StoreWarningCode::DuplicateId);
            }
            warnings.push(w);
        }
        Ok(Snapshot { value: (*meta).clone(), cached, warnings })
    }

    /// Reads one file from disk (never from the index), refusing one whose frontmatter is broken
    /// and anything that is not a regular file inside the workspace.
    /// The file's version ([`version_of`]) comes with it.
    fn read(&self, path: &Path) -> Result<(IssueMeta, Document, String), StoreError> {
        let text = files::read_text(path)?;
        let doc = files::frontmatter::parse(&text)
            .map_err(|reason| StoreError::Malformed { path: path.to_path_buf(), reason })?;
        Ok((self.meta_of(path, &doc), doc, version_of(text.as_bytes())))
    }

    /// The version of an issue's file as it is now ([`version_of`] of its bytes).
    pub fn version(&self, meta: &IssueMeta) -> Result<String, StoreError> {
        let version = version_of(&files::read_regular(&meta.path)?);
        self.shown.note(&meta.path, &meta.updated_at, &version);
        Ok(version)
    }

    /// The raw file of an issue (for the `docket://issues/{id}` resource), read safely.
    pub fn read_file(&self, meta: &IssueMeta) -> Result<String, StoreError> {
        files::read_text(&meta.path)
    }

    fn relative(&self, p: &Path) -> String {
        p.strip_prefix(&self.ws.root).unwrap_or(p).display().to_string()
    }

    /// The body of an issue's file as it is on disk now (read from disk, never from the index).
    pub fn read_body(&self, meta: &IssueMeta) -> Result<String, StoreError> {
        Ok(self.read(&meta.path)?.1.body)
    }

    /// Every issue matching `filter`, sorted.
    pub fn list(
        &self,
        filter: &IssueFilter,
        sort: SortField,
        order: SortOrder,
    ) -> Result<Snapshot<Vec<Arc<IssueMeta>>>, StoreError> {
        let snap = self.list_page(filter, sort, order, 0, None)?;
        Ok(Snapshot { value: snap.value.items, cached: snap.cached, warnings: snap.warnings })
    }

    /// A page of the issues matching `filter`, sorted: `limit` of them (all for `None`) after
    /// the first `offset`, and how many match in all. In list order (updated, newest first) it
    /// walks only what the page needs where the kept counts give the total; other orders sort
    /// every match.
    pub fn list_page(
        &self,
        filter: &IssueFilter,
        sort: SortField,
        order: SortOrder,
        offset: usize,
        limit: Option<usize>,
    ) -> Result<Snapshot<Listed>, StoreError> {
        let (mut index, cached) = self.fresh()?;
        let warnings = index.warnings();
        let graph = filter.blocked.map(|_| index.graph());
        let keep = |m: &Record| keep(filter, graph.as_deref(), m);
        let value = if (sort, order) == (SortField::Updated, SortOrder::Desc) {
            let (items, total) = index.page(filter, keep, offset, limit);
            Listed { items, total }
        } else {
            let (mut items, total) = index.page(filter, keep, 0, None);
            sort_metas(&mut items, sort, order);
            let start = offset.min(total);
            let end = limit.map_or(total, |l| start.saturating_add(l).min(total));
            items.truncate(end);
            items.drain(..start);
            Listed { items, total }
        };
        Ok(Snapshot { value, cached, warnings })
    }

    /// The first `limit` issues matching `filter` that are still open or in progress (in list
    /// order), each made into a row by `row`, with how many are unfinished and how many match in
    /// all, from one state of the index. Both totals come from the kept counts where the filter
    /// allows, so a page costs what it returns, not what matches.
    pub fn unfinished<T>(
        &self,
        filter: &IssueFilter,
        limit: usize,
        mut row: impl FnMut(&IssueMeta) -> T,
    ) -> Result<Snapshot<Unfinished<T>>, StoreError> {
        let (mut index, cached) = self.fresh()?;
        let warnings = index.warnings();
        let graph = filter.blocked.map(|_| index.graph());
        let (_, total) = index.page_slots(filter, |m| keep(filter, graph.as_deref(), m), 0, Some(0));
        let unfinished = [Status::Open, Status::InProgress];
        let status: Vec<Status> =
            unfinished.into_iter().filter(|s| filter.status.is_empty() || filter.status.contains(s)).collect();
        let (slots, count) = match status.is_empty() {
            true => (Vec::new(), 0),
            false => {
                let open = IssueFilter { status, ..filter.clone() };
                index.page_slots(&open, |m| keep(&open, graph.as_deref(), m), 0, Some(limit))
            }
        };
        let rows = slots.into_iter().filter_map(|s| index.full_at(s)).map(|m| row(&m)).collect();
        Ok(Snapshot { value: Unfinished { rows, count, total }, cached, warnings })
    }

    /// Every label written on some issue with how often it is written (twice in one issue
    /// counts twice), from the counts the index keeps.
    pub fn label_counts(&self) -> Result<Snapshot<Vec<(String, usize)>>, StoreError> {
        let (index, cached) = self.fresh()?;
        Ok(Snapshot { value: index.label_counts(), cached, warnings: index.warnings() })
    }

    /// Every project some issue is in with its number of issues, from the kept counts.
    pub fn project_counts(&self) -> Result<Snapshot<Vec<(String, usize)>>, StoreError> {
        let (index, cached) = self.fresh()?;
        Ok(Snapshot { value: index.project_counts(), cached, warnings: index.warnings() })
    }

    /// How many markdown files without frontmatter (a README, notes) the issue folders hold:
    /// listed after the issues, never counted among them.
    pub fn plain_files(&self) -> Result<usize, StoreError> {
        Ok(self.fresh()?.0.plain_files())
    }

    /// How many issues match `filter` under each label they carry (`None`: no label), and how
    /// many issues in all: an issue with several labels counts once under each, so the groups
    /// can add up to more than the total. Files without frontmatter are not issues: not counted.
    pub fn count_labels(&self, filter: &IssueFilter) -> Result<Snapshot<Counts>, StoreError> {
        let (mut index, cached) = self.fresh()?;
        let warnings = index.warnings();
        let graph = filter.blocked.map(|_| index.graph());
        let mut groups: std::collections::BTreeMap<Option<String>, usize> = Default::default();
        let mut total = 0;
        for (m, _) in index.by_updated().filter(|(m, _)| m.frontmatter() && keep(filter, graph.as_deref(), *m)) {
            let mut seen: Vec<&str> = Vec::new();
            for label in m.labels().filter(|l| !l.is_empty()) {
                if !seen.contains(&label) {
                    seen.push(label);
                    *groups.entry(Some(label.to_string())).or_default() += 1;
                }
            }
            if seen.is_empty() {
                *groups.entry(None).or_default() += 1;
            }
            total += 1;
        }
        Ok(Snapshot { value: (total, groups.into_iter().collect()), cached, warnings })
    }

    /// How many issues match `filter` in each group of `by` (`None`: no assignee or project),
    /// and how many in all. Reads the interned column of the index where the filter allows.
    /// Files without frontmatter are not issues: not counted.
    pub fn count_by(&self, filter: &IssueFilter, by: GroupBy) -> Result<Snapshot<Counts>, StoreError> {
        let (mut index, cached) = self.fresh()?;
        let warnings = index.warnings();
        let graph = filter.blocked.map(|_| index.graph());
        // The kept counts hold the files without frontmatter too: with some, count here.
        let fast = graph.is_none() && index.plain_files() == 0;
        let value = match fast.then(|| index.count_by(filter, by)).flatten() {
            Some(counted) => counted,
            None => {
                let mut groups: std::collections::BTreeMap<Option<String>, usize> = Default::default();
                let mut total = 0;
                let counted = |m: &Record| m.frontmatter() && keep(filter, graph.as_deref(), m);
                for (m, _) in index.by_updated().filter(|(m, _)| counted(m)) {
                    let key = match by {
                        GroupBy::Status => Some(m.status().as_str().to_string()),
                        GroupBy::Priority => Some(m.priority().as_str().to_string()),
                        GroupBy::Type => Some(m.issue_type().as_str().to_string()),
                        GroupBy::Project => m.project().filter(|p| !p.is_empty()).map(str::to_string),
                        GroupBy::Assignee => m.assignee().filter(|a| !a.is_empty()).map(str::to_string),
                    };
                    *groups.entry(key).or_default() += 1;
                    total += 1;
                }
                (total, groups.into_iter().collect())
            }
        };
        Ok(Snapshot { value, cached, warnings })
    }

    /// Every issue matching the filter that holds all the words of the query (case-insensitive;
    /// the last word also as a prefix, any word inside longer words when that finds nothing),
    /// and the issue the query names if it is an ID; scored like BM25 (rare words weigh more)
    /// with field weights (title above labels above body), then boosted: the issue the query
    /// names by ID first, then titles that are the query word for word, then titles holding it
    /// as a phrase, shorter titles first. From the index: no file is read.
    pub fn search(&self, q: &SearchQuery) -> Result<Snapshot<Vec<SearchHit>>, StoreError> {
        let (mut index, cached) = self.fresh_with_text()?;
        let warnings = index.warnings();
        let graph = q.filter.blocked.map(|_| index.graph());
        let (query, allowed) = parse_search(q);
        let mut hits = index.search(&query, allowed, |m| keep(&q.filter, graph.as_deref(), m));
        for meta in named_by_id(&index, q, allowed, graph.as_deref()) {
            match hits.iter_mut().find(|(m, _)| m.path == meta.path) {
                Some(hit) => hit.1 += ID_MATCH,
                None => hits.push((meta, ID_MATCH)),
            }
        }
        drop(index);
        let value = hits.into_iter().map(|(meta, score)| SearchHit { meta, score }).collect();
        Ok(Snapshot { value, cached, warnings })
    }

    /// A page of [`Store::search`]'s hits best first (highest score, then newest update, then
    /// ID, then path): `limit` of them after the first `offset`, and how many hits in all. Only
    /// the page's hits are built and only the best `offset + limit` sorted.
    pub fn search_page(
        &self,
        q: &SearchQuery,
        offset: usize,
        limit: usize,
    ) -> Result<Snapshot<SearchPage>, StoreError> {
        let (mut index, cached) = self.fresh_with_text()?;
        let warnings = index.warnings();
        let graph = q.filter.blocked.map(|_| index.graph());
        let (query, allowed) = parse_search(q);
        let ids: Vec<PathBuf> =
            named_by_id(&index, q, allowed, graph.as_deref()).into_iter().map(|m| m.path.clone()).collect();
        let everything = is_everything(&q.filter);
        let keep = |m: &Record| keep(&q.filter, graph.as_deref(), m);
        let keep: Option<&dyn Fn(&Record) -> bool> = if everything { None } else { Some(&keep) };
        let ranked = index.search_page(&query, allowed, keep, &ids, ID_MATCH, offset, limit);
        drop(index);
        let value = match ranked {
            Some((page, total)) => {
                SearchPage { hits: page.into_iter().map(|(meta, score)| SearchHit { meta, score }).collect(), total }
            }
            None => {
                // Files without frontmatter break the ties differently: every hit is sorted.
                let mut hits = self.search(q)?.value;
                hits.sort_by(SearchHit::best_first);
                let total = hits.len();
                SearchPage { hits: hits.into_iter().skip(offset).take(limit).collect(), total }
            }
        };
        Ok(Snapshot { value, cached, warnings })
    }

    /// About 200 characters of the body around the first word of `query` it holds (read from
    /// disk: call it for the page of results shown, not for every hit).
    pub fn excerpt(&self, meta: &IssueMeta, query: &str) -> Option<String> {
        let body = self.read_body(meta).ok()?;
        let query = index::search_index::Query::parse(query);
        let (at, len) = index::search_index::first_match(&body, &query)?;
        Some(excerpt_around(&body, at, len))
    }

    /// Every open or in-progress issue of type `t` titled `title` (ignoring case and surrounding
    /// space), most recently updated first; found through the title words rather than a pass
    /// over every issue.
    pub fn open_issues_titled(&self, t: IssueType, title: &str) -> Result<Vec<Arc<IssueMeta>>, StoreError> {
        let wanted = title.trim().to_lowercase();
        let same = |m: &Record| {
            matches!(m.status(), Status::Open | Status::InProgress)
                && m.issue_type() == t
                && m.title().trim().to_lowercase() == wanted
        };
        let (mut index, _) = self.fresh()?;
        let query = index::search_index::Query::exact(&wanted);
        // While the words wait (a first start), one pass over the records rather than a wait.
        let mut hits: Vec<Arc<IssueMeta>> = if query.is_empty() || index.text_pending() {
            index.by_updated().filter(|(m, _)| same(m)).map(|(m, dir)| Arc::new(m.meta(m.path_in(dir)))).collect()
        } else {
            index.search(&query, index::search_index::TITLE, same).into_iter().map(|(m, _)| m).collect()
        };
        hits.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then_with(|| a.id.cmp(&b.id)));
        Ok(hits)
    }
}
