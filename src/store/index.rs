//! The in-memory index: every issue's frontmatter, kept fresh at the start of each call.
//!
//! Populated lazily by the first call; write-through on our own writes; edits made outside the
//! server are picked up by the [`Watcher`] (or a stat rescan where it cannot tell); a full
//! revalidation after the TTL is the safety net. With the cache off, every call re-reads every file.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use rayon::prelude::*;

use super::files;
use super::frontmatter;
use super::model::{IssueMeta, IssueType, StoreError, StoreWarning};
use super::snapshot::{self, FileStamp};
use super::watch::{Changes, Watcher};
use super::workspace::Workspace;

/// Enough to tell that a file changed without reading it (of the entry itself: a link is not
/// followed, so a link's target changing elsewhere cannot matter).
fn stamp(path: &Path) -> Option<FileStamp> {
    let m = std::fs::symlink_metadata(path).ok()?;
    Some(FileStamp::new(m.modified().ok(), m.len()))
}

/// The outcome of reading one file.
enum Loaded {
    Issue(Box<IssueMeta>, FileStamp),
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
        Ok(meta) => Loaded::Issue(Box::new(meta), stamp),
        Err(reason) => Loaded::Broken(reason, Some(stamp)),
    }
}

struct Entry {
    meta: Arc<IssueMeta>,
    stamp: Option<FileStamp>,
}

pub struct Index {
    ws: Workspace,
    /// The folders issues live in, with their collection's type.
    dirs: Vec<(IssueType, PathBuf)>,
    enabled: bool,
    ttl: Duration,
    entries: HashMap<PathBuf, Entry>,
    /// Files whose frontmatter does not parse: skipped, reported, never rewritten.
    broken: BTreeMap<PathBuf, (Option<FileStamp>, String)>,
    /// Upper-cased ID -> files holding it (more than one is a DUPLICATE_ID).
    by_id: HashMap<String, Vec<PathBuf>>,
    /// Every entry, newest update first; rebuilt lazily after a change.
    by_updated: Option<Vec<Arc<IssueMeta>>>,
    populated: bool,
    last_full: Option<Instant>,
    last_refresh: Option<SystemTime>,
    watcher: Watcher,
    /// The snapshot being written in the background, if any.
    saving: Option<std::thread::JoinHandle<()>>,
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
}

impl Index {
    pub fn new(ws: Workspace, enabled: bool, ttl: Duration) -> Index {
        Index {
            dirs: ws.issue_dirs(),
            ws,
            enabled,
            ttl,
            entries: HashMap::new(),
            broken: BTreeMap::new(),
            by_id: HashMap::new(),
            by_updated: None,
            populated: false,
            last_full: None,
            last_refresh: None,
            watcher: Watcher::new(),
            saving: None,
            stale: None,
            unwatched: Vec::new(),
            max_number: HashMap::new(),
            generation: 0,
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
        self.last_refresh = Some(SystemTime::now());
        Ok(reads == 0 && self.enabled)
    }

    fn clear(&mut self) {
        self.max_number.clear();
        self.entries.clear();
        self.broken.clear();
        self.by_id.clear();
        self.by_updated = None;
        self.generation += 1;
    }

    /// Lists every issue folder and re-reads files whose stamp changed; returns the files read.
    fn scan(&mut self) -> Result<usize, StoreError> {
        let mut seen = Vec::new();
        let mut refused_dirs = Vec::new();
        self.unwatched.clear();
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
            let listing = match std::fs::read_dir(&dir) {
                Ok(l) => l,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(StoreError::Io { path: dir, source: e }),
            };
            let paths: Vec<PathBuf> = listing.flatten().map(|e| e.path()).collect();
            if !self.populated {
                remove_abandoned_temp_files(&paths);
            }
            seen.extend(paths.into_iter().filter(|p| self.is_issue_file(p)));
        }
        // Files the index does not know yet are loaded in parallel (the cold build is dominated by
        // reading and parsing thousands of small files); known ones are only re-read if their
        // stamp changed.
        let (unknown, known): (Vec<&PathBuf>, Vec<&PathBuf>) =
            seen.iter().partition(|p| !self.entries.contains_key(*p) && !self.broken.contains_key(*p));
        // A new process starts from the snapshot of the last one, trusting an entry only while
        // its file's stamp is unchanged.
        let saved = if self.populated || !self.enabled || unknown.len() < snapshot::MIN_ENTRIES {
            HashMap::new()
        } else {
            snapshot::load(&self.ws.cache_dir())
        };
        let dirs = &self.dirs;
        let loaded: Vec<(PathBuf, Loaded, bool)> = unknown
            .par_iter()
            .filter_map(|p| {
                let folder_type = dirs.iter().find(|(_, d)| Some(d.as_path()) == p.parent()).map(|(t, _)| *t)?;
                if let Some((s, meta)) = saved.get(*p)
                    && stamp(p) == Some(*s)
                {
                    return Some(((*p).clone(), Loaded::Issue(Box::new(meta.clone()), *s), false));
                }
                Some(((*p).clone(), load(p, folder_type), true))
            })
            .collect();
        let mut reads = loaded.iter().filter(|(_, _, read)| *read).count();
        let fresh_files = reads;
        for (path, result, _) in loaded {
            self.store_loaded(&path, result);
        }
        for path in known {
            reads += self.recheck(path);
        }
        let present: std::collections::HashSet<&PathBuf> = seen.iter().chain(&refused_dirs).collect();
        let gone: Vec<PathBuf> =
            self.entries.keys().chain(self.broken.keys()).filter(|p| !present.contains(p)).cloned().collect();
        for path in gone {
            self.forget(&path);
        }
        self.populated = true;
        self.last_full = Some(Instant::now());
        if fresh_files > 0 {
            self.save_snapshot();
        }
        Ok(reads)
    }

    /// Saves the index for the next process, off the caller's thread.
    fn save_snapshot(&mut self) {
        if !self.enabled || self.entries.len() < snapshot::MIN_ENTRIES {
            return;
        }
        if self.saving.as_ref().is_some_and(|h| !h.is_finished()) {
            return;
        }
        let entries: Vec<(FileStamp, Arc<IssueMeta>)> =
            self.entries.values().filter_map(|e| Some((e.stamp?, Arc::clone(&e.meta)))).collect();
        let cache_dir = self.ws.cache_dir();
        self.saving = Some(std::thread::spawn(move || snapshot::save(&cache_dir, &entries)));
    }

    /// Waits for a snapshot being written (tests and benchmarks).
    pub fn wait_for_snapshot(&mut self) {
        if let Some(h) = self.saving.take() {
            let _ = h.join();
        }
    }

    /// Re-reads `path` if it changed (or drops it if it is gone); returns 1 if it was read.
    fn recheck(&mut self, path: &Path) -> usize {
        let Some(now) = stamp(path) else {
            self.forget(path);
            return 0;
        };
        let known = self.entries.get(path).map(|e| e.stamp).or_else(|| self.broken.get(path).map(|b| b.0));
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
            Loaded::Issue(meta, stamp) => {
                self.broken.remove(path);
                self.put(*meta, Some(stamp));
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

    /// Write-through after our own write of `meta.path`.
    pub fn upsert(&mut self, meta: IssueMeta) {
        let s = stamp(&meta.path);
        self.put(meta, s);
    }

    fn put(&mut self, meta: IssueMeta, stamp: Option<FileStamp>) {
        let path = meta.path.clone();
        self.forget(&path);
        if let Some(t) = self.folder_type(&path) {
            self.note_number(t, &meta.id);
            if let Some(from_name) = frontmatter::id_from_file_name(&path) {
                self.note_number(t, &from_name);
            }
        }
        self.by_id.entry(meta.id.to_uppercase()).or_default().push(path.clone());
        self.entries.insert(path, Entry { meta: Arc::new(meta), stamp });
        self.by_updated = None;
        self.generation += 1;
    }

    /// Raises the collection's high-water mark to `id`'s number. An ID of another collection's
    /// prefix counts for that collection (a SPEC- id filed under issues/ still reserves it).
    fn note_number(&mut self, folder: IssueType, id: &str) {
        let digits_at = id.find(|c: char| c.is_ascii_digit()).unwrap_or(id.len());
        let (prefix, digits) = id.split_at(digits_at);
        let Ok(n) = digits.parse::<u64>() else { return };
        let t = IssueType::ALL.iter().copied().find(|t| t.prefix().eq_ignore_ascii_case(prefix));
        let t = match (t, prefix.is_empty()) {
            (Some(t), _) => t,
            (None, true) => folder,
            (None, false) => return,
        };
        let max = self.max_number.entry(t).or_default();
        *max = (*max).max(n);
    }

    /// The next free ID of a collection: one above every number the index has seen for it (call
    /// with the workspace lock held and the index fresh, so other processes' creates are known).
    pub fn next_id(&self, t: IssueType, floor: u64) -> String {
        let n = self.max_number.get(&t).copied().unwrap_or(0).max(floor) + 1;
        format!("{}{n:06}", t.prefix())
    }

    /// Drops whatever the index knows about `path`.
    pub fn forget(&mut self, path: &Path) {
        self.broken.remove(path);
        if let Some(old) = self.entries.remove(path) {
            let key = old.meta.id.to_uppercase();
            if let Some(paths) = self.by_id.get_mut(&key) {
                paths.retain(|p| p != path);
                if paths.is_empty() {
                    self.by_id.remove(&key);
                }
            }
            self.by_updated = None;
            self.generation += 1;
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

    /// Every issue, newest update first (ties by ID).
    pub fn by_updated(&mut self) -> &[Arc<IssueMeta>] {
        let entries = &self.entries;
        self.by_updated.get_or_insert_with(|| {
            let mut all: Vec<Arc<IssueMeta>> = entries.values().map(|e| Arc::clone(&e.meta)).collect();
            // Markdown files without frontmatter (READMEs, notes) after the real issues.
            all.sort_by(|a, b| {
                b.frontmatter
                    .cmp(&a.frontmatter)
                    .then_with(|| b.updated_at.cmp(&a.updated_at))
                    .then_with(|| a.id.cmp(&b.id))
            });
            all
        })
    }

    /// Files holding `id` exactly (case-insensitive).
    pub fn paths_of(&self, id: &str) -> &[PathBuf] {
        self.by_id.get(&id.to_uppercase()).map(Vec::as_slice).unwrap_or_default()
    }

    pub fn meta_at(&self, path: &Path) -> Option<Arc<IssueMeta>> {
        self.entries.get(path).map(|e| Arc::clone(&e.meta))
    }

    /// Every known ID (for resolving short forms such as `42`).
    pub fn ids(&self) -> impl Iterator<Item = &String> {
        self.by_id.keys()
    }

    /// SKIPPED_FILES for unparseable files, DUPLICATE_ID for IDs held by several files.
    pub fn warnings(&self) -> Vec<StoreWarning> {
        let mut out = Vec::new();
        if !self.broken.is_empty() {
            let paths: Vec<PathBuf> = self.broken.keys().cloned().collect();
            let detail: Vec<String> =
                self.broken.iter().map(|(p, (_, why))| format!("{} ({why})", self.relative(p))).collect();
            out.push(StoreWarning {
                code: "SKIPPED_FILES",
                message: format!("{} file(s) with broken frontmatter were skipped and left untouched: {}. Fix the YAML between the --- lines.", paths.len(), detail.join("; ")),
                paths,
            });
        }
        if let Some(why) = &self.stale {
            out.push(StoreWarning {
                code: "STALE_INDEX",
                message: format!("The workspace could not be re-read ({why}); this answer comes from the last good index and may miss recent edits."),
                paths: Vec::new(),
            });
        }
        let mut dups: Vec<(&String, &Vec<PathBuf>)> = self.by_id.iter().filter(|(_, p)| p.len() > 1).collect();
        dups.sort();
        for (id, paths) in dups {
            let names: Vec<String> = paths.iter().map(|p| self.relative(p)).collect();
            out.push(StoreWarning {
                code: "DUPLICATE_ID",
                message: format!(
                    "{id} is used by {} files: {}. Each is listed; renumber all but one to fix it.",
                    paths.len(),
                    names.join(", ")
                ),
                paths: paths.clone(),
            });
        }
        out
    }

    /// The warnings that concern one file: a stale index, or a duplicate of its ID (a lookup
    /// should not repeat every duplicate of the workspace).
    pub fn warnings_about(&self, path: &Path) -> Vec<StoreWarning> {
        let mut all = self.warnings();
        all.retain(|w| w.code == "STALE_INDEX" || (w.code == "DUPLICATE_ID" && w.paths.iter().any(|p| p == path)));
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
        self.entries.len()
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

/// Temp files of atomic writes live for milliseconds; one that is minutes old was left by a
/// process killed mid-write (its target file is intact: the rename never happened).
fn remove_abandoned_temp_files(paths: &[PathBuf]) {
    const ABANDONED_AFTER: Duration = Duration::from_secs(600);
    for path in paths {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let old = || {
            std::fs::metadata(path)
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > ABANDONED_AFTER))
        };
        if name.starts_with(".docket-") && name.ends_with(".tmp") && old() {
            match std::fs::remove_file(path) {
                Ok(()) => tracing::info!(path = %path.display(), "removed a temp file abandoned by a killed write"),
                Err(e) => {
                    tracing::debug!(path = %path.display(), error = %e, "could not remove an abandoned temp file")
                }
            }
        }
    }
}

/// ISO 8601 with milliseconds, the way wrangler writes dates.
pub fn iso(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
