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
pub(crate) mod graph;
pub(crate) mod orders;
pub(crate) mod ranking;
pub(crate) mod record;
pub(crate) mod search_index;
pub(crate) mod slots;
pub(crate) mod snapshot;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use rayon::prelude::*;

use crate::files;
use crate::files::frontmatter;
use crate::files::listing::{Checked, check, list};
use crate::files::watch::{Changes, Watcher};
use crate::fs::Root;
use crate::model::{IssueFilter, IssueMeta, IssueType, StoreError, StoreWarning, StoreWarningCode};
use crate::workspace::Workspace;
use facts::{Counts, GroupBy};
use graph::Graph;
use record::{Fields, Record};
use search_index::{DocText, Query};
use slots::Slots;
use snapshot::FileStamp;

/// Enough to tell that a file changed without reading it (of the entry itself: a link is not
/// followed, so a link's target changing elsewhere cannot matter).
fn stamp(path: &Path) -> Option<FileStamp> {
    let m = std::fs::symlink_metadata(path).ok()?;
    Some(FileStamp::new(m.modified().ok(), m.len()))
}

/// The outcome of reading one file.
enum Loaded {
    Issue(Box<IssueMeta>, FileStamp, DocText),
    Broken(String, Option<FileStamp>),
    Gone,
}

/// Reads and parses one file. Links, FIFOs, devices and oversized files are refused (never
/// opened for reading in a way that could block or follow them out of the workspace).
fn load(path: &Path, folder_type: IssueType) -> Loaded {
    let Some(stamp) = stamp(path) else { return Loaded::Gone };
    let text = match files::read_text(path) {
        Ok(t) => t,
        Err(StoreError::Refused { reason, .. }) => return Loaded::Broken(reason, Some(stamp)),
        Err(StoreError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => return Loaded::Gone,
        Err(e) => return Loaded::Broken(e.to_string(), Some(stamp)),
    };
    let modified = stamp.modified().map(iso).unwrap_or_default();
    match frontmatter::index_meta(&text, path, folder_type, &modified) {
        Ok((meta, body)) => {
            let words = DocText::new(&meta, body);
            Loaded::Issue(Box::new(meta), stamp, words)
        }
        Err(reason) => Loaded::Broken(reason, Some(stamp)),
    }
}

/// Files read in parallel at a time (bounds the memory a cold load holds at once).
const CHUNK: usize = 1024;
/// Changes in one scan above which the list order is rebuilt once rather than kept up to date.
const BULK: usize = 256;

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
        }
    }

    /// Brings the index up to date with the files; true when no file had to be read.
    pub fn refresh(&mut self) -> Result<bool, StoreError> {
        let reads = if !self.enabled {
            self.clear();
            self.scan()?
        } else if !self.populated
            || self.last_full.is_none_or(|t| t.elapsed() >= self.ttl)
            || self.unwatched.iter().any(|d| d.exists())
        {
            self.scan()?
        } else {
            match self.watcher.changes() {
                Changes::Paths(paths) => {
                    let changed: Vec<PathBuf> = paths.into_iter().filter(|p| self.is_issue_file(p)).collect();
                    changed.iter().map(|p| self.recheck(p)).sum()
                }
                Changes::Unknown => self.scan()?,
            }
        };
        self.slots.compact_if_sparse();
        self.last_refresh = Some(SystemTime::now());
        Ok(reads == 0 && self.enabled)
    }

    fn clear(&mut self) {
        self.max_number.clear();
        self.slots.clear();
        self.broken.clear();
        self.generation += 1;
    }

    /// Lists every issue folder and re-reads files whose stamp changed; returns the files read.
    fn scan(&mut self) -> Result<usize, StoreError> {
        let started = Instant::now();
        let first = !self.populated;
        if first
            && self.enabled
            && let Ok(root) = Root::workspace(&self.ws)
        {
            snapshot::remove_abandoned(&root, &self.ws.cache_dir());
        }
        self.unwatched.clear();
        let mut refused_dirs = Vec::new();
        let mut to_list = Vec::new();
        for (_, dir) in self.dirs.clone() {
            if !dir.exists() {
                self.unwatched.push(dir);
                continue;
            }
            if let Err(StoreError::Refused { reason, .. }) = files::ensure_inside(&self.ws, &dir) {
                // Reported like a broken file; never listed, read or written.
                self.broken.insert(dir.clone(), (None, reason));
                refused_dirs.push(dir);
                continue;
            }
            if !self.watcher.watch(&dir) {
                self.unwatched.push(dir.clone());
            }
            to_list.push(dir);
        }
        // A new process reads the last one's snapshot while the folders are listed (one stat
        // per file, relative to its folder): the two take about as long as each other.
        let from_snapshot = first && self.enabled && self.slots.len() == 0;
        let (ws, root, dirs) = (&self.ws, self.ws.dir.clone(), self.dirs.clone());
        let rooted = if first { Root::workspace(ws).ok() } else { None };
        let (decoded, listings) = rayon::join(
            || from_snapshot.then(|| read_snapshot(ws, &root, &dirs)).flatten(),
            || to_list.iter().map(|dir| (dir, list(rooted.as_ref(), dir, first))).collect::<Vec<_>>(),
        );
        if let Some(slots) = decoded {
            self.use_snapshot(slots);
            tracing::debug!(issues = self.slots.len(), ms = started.elapsed().as_millis(), "index snapshot read");
        }
        let mut present = vec![false; self.slots.capacity()];
        let mut broken_seen = Vec::new();
        let mut to_read = Vec::new();
        for (dir, listing) in listings {
            let entries = match listing {
                Ok(entries) => entries,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(StoreError::Io { path: dir.clone(), source: e }),
            };
            let (slots, broken) = (&self.slots, &self.broken);
            let checked: Vec<Checked> =
                entries.par_iter().map(|(name, now)| check(dir, name, *now, slots, broken)).collect();
            for c in checked {
                if let Some(s) = c.slot {
                    present[s as usize] = true;
                }
                if let Some(p) = c.broken {
                    broken_seen.push(p);
                }
                to_read.extend(c.read);
            }
        }
        let gone: Vec<PathBuf> = self
            .slots
            .entries()
            .filter(|(s, _)| !present.get(*s as usize).copied().unwrap_or(true))
            .map(|(_, x)| self.slots.path_of(&x.rec))
            .chain(self.broken.keys().filter(|p| !refused_dirs.contains(p) && !broken_seen.contains(p)).cloned())
            .collect();
        drop(present);
        tracing::debug!(
            to_read = to_read.len(),
            gone = gone.len(),
            ms = started.elapsed().as_millis(),
            "folders checked"
        );
        if to_read.len() + gone.len() > BULK {
            self.slots.unorder();
        }
        for path in &gone {
            self.forget(path);
        }
        // Chunks of files are read and parsed in parallel while the previous chunk is entered
        // into the index (which only one thread can do).
        let dirs = self.dirs.clone();
        let mut previous: Option<(&[PathBuf], Vec<Loaded>)> = None;
        for chunk in to_read.chunks(CHUNK).chain([&[][..]]) {
            let (loaded, ()) = rayon::join(
                || {
                    chunk
                        .par_iter()
                        .map(|p| match dirs.iter().find(|(_, d)| Some(d.as_path()) == p.parent()) {
                            Some((t, _)) => load(p, *t),
                            None => Loaded::Gone,
                        })
                        .collect::<Vec<_>>()
                },
                || {
                    for (path, result) in previous.take().into_iter().flat_map(|(p, r)| p.iter().zip(r)) {
                        self.store_loaded(path, result);
                    }
                },
            );
            previous = Some((chunk, loaded));
        }
        if to_read.len() > BULK {
            self.slots.shrink();
        }
        tracing::debug!(read = to_read.len(), ms = started.elapsed().as_millis(), "index up to date");
        self.populated = true;
        self.last_full = Some(Instant::now());
        if to_read.len() > 64.max(self.slots.len() / 20) {
            self.save_wanted = true;
        }
        Ok(to_read.len())
    }

    /// Starts from the snapshot of the last process (its entries are then checked like any
    /// other known file: trusted only while the stamp matches).
    fn use_snapshot(&mut self, slots: Slots) {
        self.slots = slots;
        let mut numbers = std::mem::take(&mut self.max_number);
        let types: Vec<Option<IssueType>> =
            self.slots.folders().iter().map(|f| self.folder_type(&f.join("x"))).collect();
        for (_, x) in self.slots.entries() {
            let Some(t) = types[x.rec.folder() as usize] else { continue };
            let id = x.rec.id();
            note_number(&mut numbers, t, id);
            // The file name's ID counts too; it is almost always the same one.
            let name = x.rec.name();
            let named = name.strip_prefix(id).is_some_and(|rest| rest.starts_with(['-', '.']));
            if !named && let Some(n) = frontmatter::id_from_file_name(Path::new(name)) {
                note_number(&mut numbers, t, &n);
            }
        }
        self.max_number = numbers;
        self.unsaved = 0;
    }

    /// Writes the index to a temp file beside the snapshot, if worth keeping; the caller puts it
    /// in place (outside the index lock: that part waits for the disk).
    pub fn write_snapshot(&mut self) -> Option<snapshot::Pending> {
        if !self.enabled || self.slots.len() < snapshot::MIN_ENTRIES {
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

    /// Re-reads `path` if it changed (or drops it if it is gone); returns 1 if it was read.
    fn recheck(&mut self, path: &Path) -> usize {
        let Some(now) = stamp(path) else {
            self.forget(path);
            return 0;
        };
        let known = self.slots.get(path).map(|e| e.stamp).or_else(|| self.broken.get(path).map(|b| b.0));
        if known == Some(Some(now)) {
            return 0;
        }
        let Some(folder_type) = self.folder_type(path) else { return 0 };
        let loaded = load(path, folder_type);
        self.store_loaded(path, loaded);
        1
    }

    fn store_loaded(&mut self, path: &Path, loaded: Loaded) {
        match loaded {
            Loaded::Issue(meta, stamp, words) => {
                self.broken.remove(path);
                self.put(*meta, Some(stamp), &words);
            }
            Loaded::Broken(reason, stamp) => {
                self.forget(path);
                if let (Some(t), Some(id)) = (self.folder_type(path), frontmatter::id_from_file_name(path)) {
                    self.note_number(t, &id);
                }
                self.broken.insert(path.to_path_buf(), (stamp, reason));
            }
            Loaded::Gone => self.forget(path),
        }
    }

    /// Write-through after our own write of `meta.path`, with the body written.
    pub fn upsert(&mut self, meta: IssueMeta, body: &str) {
        let s = stamp(&meta.path);
        let words = DocText::new(&meta, body);
        self.put(meta, s, &words);
    }

    fn put(&mut self, meta: IssueMeta, stamp: Option<FileStamp>, words: &DocText) {
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

    /// Issues holding every word of `q` in the `allowed` fields that `keep` accepts, scored.
    pub fn search(&self, q: &Query, allowed: u8, keep: impl Fn(&Record) -> bool) -> Vec<(Arc<IssueMeta>, u32)> {
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
        self.slots.search_page(q, allowed, keep, ids, id_points, offset, limit)
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

/// The snapshot in `cache`, if there is a sound one.
fn read_snapshot(ws: &Workspace, root: &Path, dirs: &[(IssueType, PathBuf)]) -> Option<Slots> {
    let mut input = snapshot::open(&Root::workspace(ws).ok()?, &ws.cache_dir())?;
    match Slots::decode(&mut input, root, dirs).and_then(|s| input.finish().map(|()| s)) {
        Ok(slots) => Some(slots),
        Err(e) => {
            tracing::debug!(error = %e, "ignoring an unreadable index snapshot");
            None
        }
    }
}

/// ISO 8601 with milliseconds, the way wrangler writes dates.
pub fn iso(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
