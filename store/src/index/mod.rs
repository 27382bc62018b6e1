//! The in-memory index: every issue's frontmatter and words, kept fresh at the start of each call.
//! Its parts: one packed [`record`] per issue in [`slots`], interned [`facts`] and kept [`counts`]
//! and list [`orders`], the full-text [`search_index`] and its [`ranking`], the work [`graph`], and
//! the [`snapshot`] a new process starts from.
//!
//! Populated by the first call (from the last process's snapshot where it can); write-through on
//! our own writes; edits made outside the server are picked up by the [`Watcher`] (or a stat
//! rescan where it cannot tell); a full revalidation after the TTL is the safety net. With the
//! cache off, every call re-reads every file.

pub(crate) mod counts;
pub(crate) mod facts;
pub(crate) mod filter;
pub(crate) mod graph;
pub(crate) mod lookup;
pub(crate) mod orders;
pub(crate) mod ranking;
pub(crate) mod record;
pub(crate) mod scan;
pub(crate) mod search;
pub(crate) mod search_index;
pub(crate) mod slots;
pub(crate) mod snapshot;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crate::files::frontmatter;
use crate::files::listing::FileStamp;
use crate::files::watch::Watcher;
use crate::fs::Root;
use crate::model::{IssueFilter, IssueMeta, IssueType, StoreError, StoreWarning, StoreWarningCode};
use crate::workspace::Workspace;
use facts::{Counts, GroupBy};
use graph::Graph;
use record::Record;
use scan::stamp;
use search_index::{DocText, Query};
use slots::Slots;

pub struct Index {
    ws: Workspace,
    /// The folders issues live in, with their collection's type.
    dirs: Vec<(IssueType, PathBuf)>,
    enabled: bool,
    ttl: Duration,
    slots: Slots,
    /// Files whose frontmatter does not parse: skipped, reported, never rewritten.
    broken: BTreeMap<PathBuf, (Option<FileStamp>, String)>,
    populated: bool,
    last_full: Option<Instant>,
    last_refresh: Option<SystemTime>,
    watcher: Watcher,
    /// Why the last revalidation failed, while the previous state is being served.
    pub stale: Option<String>,
    /// Issue folders that did not exist (or could not be watched) at the last scan: when one
    /// appears, the next call rescans instead of waiting for the TTL.
    unwatched: Vec<PathBuf>,
    /// Highest ID number seen per collection (frontmatter IDs and file names, archived and broken
    /// files included); IDs are allocated above it, so one is never handed out twice.
    max_number: HashMap<IssueType, u64>,
    /// Bumped whenever an entry changes, so a watcher (the web board) can tell cheaply.
    generation: u64,
    /// Changes since the snapshot on disk was written or loaded.
    unsaved: usize,
    /// Enough was read that the snapshot should be written soon (the store does it off-call).
    pub save_wanted: bool,
    /// The work graph as of a generation (rebuilt on the first use after a change).
    graph: Option<(u64, Arc<Graph>)>,
    /// Whether the graph around one issue was built instead of the whole (once a process).
    served_around: bool,
}

impl Index {
    pub fn new(ws: Workspace, enabled: bool, ttl: Duration) -> Index {
        Index {
            dirs: ws.issue_dirs(),
            ws,
            enabled,
            ttl,
            slots: Slots::default(),
            broken: BTreeMap::new(),
            populated: false,
            last_full: None,
            last_refresh: None,
            watcher: Watcher::new(),
            stale: None,
            unwatched: Vec::new(),
            max_number: HashMap::new(),
            generation: 0,
            unsaved: 0,
            save_wanted: false,
            graph: None,
            served_around: false,
        }
    }

    /// Writes the index to a temp file beside the snapshot, if worth keeping; the caller puts it
    /// in place (outside the index lock: that part waits for the disk).
    pub fn write_snapshot(&mut self) -> Option<snapshot::Pending> {
        // Its words first (see [`Index::text_pass`]).
        if !self.enabled || self.slots.len() < snapshot::MIN_ENTRIES || self.slots.text_pending() {
            return None;
        }
        // Reads leave the workspace as they found it: the snapshot goes only into a cache/ that
        // a write (its lock) or init made.
        if !self.ws.cache_dir().is_dir() {
            return None;
        }
        let root = self.ws.dir.clone();
        let rooted = match Root::workspace(&self.ws) {
            Ok(r) => r,
            Err(e) => {
                tracing::debug!(error = %e, "could not write the index snapshot");
                return None;
            }
        };
        match snapshot::write(rooted, &self.ws.cache_dir(), |out| self.slots.encode(out, &root)) {
            Ok(pending) => {
                self.unsaved = 0;
                Some(pending)
            }
            Err(e) => {
                tracing::debug!(error = %e, "could not write the index snapshot");
                None
            }
        }
    }

    /// Changes the snapshot on disk does not have yet.
    pub fn unsaved(&self) -> usize {
        self.unsaved
    }

    /// Write-through after our own write of `meta.path`, with the body written.
    pub fn upsert(&mut self, meta: IssueMeta, body: &str) {
        let s = stamp(&meta.path);
        let words = DocText::new(&meta, body);
        self.put(meta, s, Some(words));
    }

    fn put(&mut self, meta: IssueMeta, stamp: Option<FileStamp>, words: Option<DocText>) {
        self.broken.remove(&meta.path);
        if let Some(t) = self.folder_type(&meta.path) {
            self.note_number(t, &meta.id);
            if let Some(from_name) = frontmatter::id_from_file_name(&meta.path) {
                self.note_number(t, &from_name);
            }
        }
        let path = meta.path.clone();
        let before = self.slots.get(&path).map(|x| x.rec.clone());
        self.slots.insert(meta, stamp, words);
        self.unsaved += 1;
        self.generation += 1;
        let after = self.slots.get(&path).map(|x| x.rec.clone());
        self.patch_graph(before.as_ref(), after.as_ref());
    }

    /// Carries the cached work graph over one file's change when [`Graph::patch`] can; otherwise
    /// it goes stale and is built again on its next use.
    fn patch_graph(&mut self, old: Option<&Record>, new: Option<&Record>) {
        if let Some((generation, graph)) = &mut self.graph
            && *generation + 1 == self.generation
            && graph.can_patch(old, new)
        {
            Arc::make_mut(graph).patch(old, new);
            *generation = self.generation;
        }
    }
    fn note_number(&mut self, folder: IssueType, id: &str) {
        note_number(&mut self.max_number, folder, id);
    }

    /// The next free ID of a collection: one above every number the index has seen for it (call
    /// with the workspace lock held and the index fresh, so other processes' creates are known).
    pub fn next_id(&self, t: IssueType, floor: u64) -> Result<String, StoreError> {
        let highest = self.max_number.get(&t).copied().unwrap_or(0).max(floor);
        crate::model::id_after(t, highest, self.ws.collection(t))
    }

    /// Drops whatever the index knows about `path`.
    pub fn forget(&mut self, path: &Path) {
        self.broken.remove(path);
        if let Some(gone) = self.slots.remove(path) {
            self.unsaved += 1;
            self.generation += 1;
            self.patch_graph(Some(&gone), None);
        }
    }

    fn is_issue_file(&self, path: &Path) -> bool {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        name.ends_with(".md") && !name.starts_with('.') && self.folder_type(path).is_some()
    }

    fn folder_type(&self, path: &Path) -> Option<IssueType> {
        let parent = path.parent()?;
        self.dirs.iter().find(|(_, d)| d == parent).map(|(t, _)| *t)
    }

    /// The work graph of every issue (blockers, parents, what is ready), cached until a change.
    pub fn graph(&mut self) -> Arc<Graph> {
        if let Some((generation, graph)) = &self.graph
            && *generation == self.generation
        {
            return Arc::clone(graph);
        }
        let records: Vec<&Record> = self.slots.entries().map(|(_, x)| &x.rec).collect();
        let graph = Arc::new(Graph::build(records.into_iter()));
        self.graph = Some((self.generation, Arc::clone(&graph)));
        graph
    }

    /// The work graph as far as it decides `id`'s blockers, what it blocks and whether it is an
    /// epic. The first graph a process needs is only the part [`Graph::around`] the issue (a
    /// cold `issues_get` or `docket show` answers without building the whole one); every later
    /// one is the whole graph, kept and patched as [`Index::graph`] keeps it (a few passes over
    /// every record for each call would cost more than building it once).
    pub fn graph_around(&mut self, id: &str) -> Arc<Graph> {
        match &self.graph {
            Some((generation, graph)) if *generation == self.generation => Arc::clone(graph),
            None if !self.served_around => {
                self.served_around = true;
                let records: Vec<&Record> = self.slots.entries().map(|(_, x)| &x.rec).collect();
                Arc::new(Graph::around(id, records.into_iter()))
            }
            _ => self.graph(),
        }
    }

    /// Every issue, newest update first (ties by ID), with the folder it is in.
    pub fn by_updated(&mut self) -> impl Iterator<Item = (&Record, &Path)> {
        self.slots.by_updated()
    }

    /// The folders records name by number.
    pub fn folders(&self) -> &[PathBuf] {
        self.slots.folders()
    }

    /// Files holding `id` exactly (case-insensitive).
    pub fn paths_of(&self, id: &str) -> Vec<PathBuf> {
        self.slots.paths_of(id)
    }

    /// IDs whose number part (from the first digit on) is exactly `digits`, e.g. `000042`.
    pub fn ids_with_digits(&self, digits: &str) -> Vec<String> {
        self.slots.ids_with_digits(digits)
    }

    pub fn meta_at(&self, path: &Path) -> Option<Arc<IssueMeta>> {
        self.slots.meta_at(path)
    }

    /// Whether the full-text index still waits for the words of a first scan (searching must
    /// wait for [`Index::text_pass`]).
    pub fn text_pending(&self) -> bool {
        self.slots.text_pending()
    }

    /// The pass over the files the full-text index waits for, if it does: run it off the index
    /// lock, then [`Index::install_text`].
    pub fn text_pass(&mut self) -> Option<scan::WordsPass> {
        let pass = self.slots.text_pass()?;
        Some(scan::WordsPass { pass, dirs: self.dirs.clone() })
    }

    /// See [`slots::Slots::install_text`].
    pub fn install_text(&mut self, built: slots::BuiltText) -> bool {
        self.slots.install_text(built)
    }

    /// Runs the pending pass over the files while holding the index (when passes made off it
    /// keep missing: the index was cleared under them).
    pub fn build_text_here(&mut self) {
        if let Some(pass) = self.text_pass() {
            let built = pass.run();
            self.install_text(built);
        }
    }

    /// Issues holding every word of `q` in the `allowed` fields that `keep` accepts, scored.
    pub fn search(&self, q: &Query, allowed: u8, keep: impl Fn(&Record) -> bool) -> Vec<(Arc<IssueMeta>, u32)> {
        debug_assert!(!self.text_pending(), "a search waits for the words");
        self.slots.search(q, allowed, keep)
    }

    /// See [`Slots::page`].
    pub fn page(
        &mut self,
        filter: &IssueFilter,
        keep: impl Fn(&Record) -> bool,
        offset: usize,
        limit: Option<usize>,
    ) -> (Vec<Arc<IssueMeta>>, usize) {
        self.slots.page(filter, keep, offset, limit)
    }

    /// See [`Slots::page_slots`].
    pub fn page_slots(
        &mut self,
        filter: &IssueFilter,
        keep: impl Fn(&Record) -> bool,
        offset: usize,
        limit: Option<usize>,
    ) -> (Vec<u32>, usize) {
        self.slots.page_slots(filter, keep, offset, limit)
    }

    /// See [`Slots::full_at`].
    pub fn full_at(&self, slot: u32) -> Option<Arc<IssueMeta>> {
        self.slots.full_at(slot)
    }

    /// Every label written on some issue, with how often it is written (kept, not counted).
    pub fn label_counts(&self) -> Vec<(String, usize)> {
        self.slots.label_counts()
    }

    /// Every project some issue is in, with its issues (kept, not counted).
    pub fn project_counts(&self) -> Vec<(String, usize)> {
        self.slots.project_counts()
    }

    /// See [`Slots::search_page`].
    #[allow(clippy::too_many_arguments)]
    pub fn search_page(
        &mut self,
        q: &Query,
        allowed: u8,
        keep: Option<&dyn Fn(&Record) -> bool>,
        ids: &[PathBuf],
        id_points: u32,
        offset: usize,
        limit: usize,
    ) -> Option<slots::RankedPage> {
        debug_assert!(!self.text_pending(), "a search waits for the words");
        self.slots.search_page(q, allowed, keep, ids, id_points, offset, limit)
    }

    /// See [`Slots::plain_files`].
    pub fn plain_files(&self) -> usize {
        self.slots.plain_files()
    }

    /// See [`Slots::count_by`].
    pub fn count_by(&self, filter: &IssueFilter, by: GroupBy) -> Option<Counts> {
        self.slots.count_by(filter, by)
    }

    /// SKIPPED_FILES for unparseable files, DUPLICATE_ID for IDs held by several files.
    pub fn warnings(&self) -> Vec<StoreWarning> {
        let mut out = Vec::new();
        if !self.broken.is_empty() {
            let paths: Vec<PathBuf> = self.broken.keys().cloned().collect();
            let detail: Vec<String> =
                self.broken.iter().map(|(p, (_, why))| format!("{} ({why})", self.relative(p))).collect();
            out.push(StoreWarning {
                code: StoreWarningCode::SkippedFiles,
                message: format!("{} file(s) with broken frontmatter were skipped and left untouched: {}. Fix the YAML between the --- lines.", paths.len(), detail.join("; ")),
                paths,
            });
        }
        if let Some(why) = &self.stale {
            out.push(StoreWarning {
                code: StoreWarningCode::StaleIndex,
                message: format!("The workspace could not be re-read ({why}); this answer comes from the last good index and may miss recent edits."),
                paths: Vec::new(),
            });
        }
        for (id, paths) in self.slots.duplicates() {
            let names: Vec<String> = paths.iter().map(|p| self.relative(p)).collect();
            out.push(StoreWarning {
                code: StoreWarningCode::DuplicateId,
                message: format!(
                    "{id} is used by {} files: {}. Each is listed; renumber all but one to fix it.",
                    paths.len(),
                    names.join(", ")
                ),
                paths,
            });
        }
        out
    }

    /// The warnings that concern one file: a stale index, or a duplicate of its ID (a lookup
    /// should not repeat every duplicate of the workspace).
    pub fn warnings_about(&self, path: &Path) -> Vec<StoreWarning> {
        let mut all = self.warnings();
        all.retain(|w| {
            w.code == StoreWarningCode::StaleIndex
                || (w.code == StoreWarningCode::DuplicateId && w.paths.iter().any(|p| p == path))
        });
        all
    }

    fn relative(&self, p: &Path) -> String {
        p.strip_prefix(&self.ws.root).unwrap_or(p).display().to_string()
    }

    /// The directory paths are shown relative to.
    pub fn root(&self) -> &Path {
        &self.ws.root
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    pub fn last_refresh(&self) -> Option<SystemTime> {
        self.last_refresh
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }
}

/// Raises the collection's high-water mark to `id`'s number. An ID of another collection's
/// prefix counts for that collection (a SPEC- id filed under issues/ still reserves it).
/// Two sorted sequences as one: `a`'s next goes first while `first(a's, b's)` says so.
fn merge(a: &[u32], b: &[u32], first: impl Fn(u32, u32) -> bool) -> Vec<u32> {
    let mut merged = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if first(a[i], b[j]) {
            merged.push(a[i]);
            i += 1;
        } else {
            merged.push(b[j]);
            j += 1;
        }
    }
    merged.extend_from_slice(&a[i..]);
    merged.extend_from_slice(&b[j..]);
    merged
}

fn note_number(max_number: &mut HashMap<IssueType, u64>, folder: IssueType, id: &str) {
    let digits_at = id.find(|c: char| c.is_ascii_digit()).unwrap_or(id.len());
    let (prefix, digits) = id.split_at(digits_at);
    // A number beyond the format's range is malformed (doctor lists it) and reserves nothing.
    let Some(n) = crate::model::bounded_id_number(digits) else { return };
    let t = IssueType::ALL.iter().copied().find(|t| t.prefix().eq_ignore_ascii_case(prefix));
    let t = match (t, prefix.is_empty()) {
        (Some(t), _) => t,
        (None, true) => folder,
        (None, false) => return,
    };
    let max = max_number.entry(t).or_default();
    *max = (*max).max(n);
}
