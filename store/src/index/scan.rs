//! Keeping the index fresh: listing the issue folders, reading and parsing what changed (in
//! parallel chunks), starting from the last process's snapshot, and taking in one changed file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use rayon::prelude::*;

use super::record::Fields;
use super::search_index::DocText;
use super::slots::{BuiltText, Slots, TextPass};
use super::snapshot;
use super::{Index, note_number};
use crate::files::frontmatter;
use crate::files::listing::{FileStamp, list};
use crate::files::watch::Changes;
use crate::files::{self, iso};
use crate::fs::Root;
use crate::model::{IssueMeta, IssueType, StoreError};
use crate::workspace::Workspace;

/// Enough to tell that a file changed without reading it (of the entry itself: a link is not
/// followed, so a link's target changing elsewhere cannot matter).
pub(super) fn stamp(path: &Path) -> Option<FileStamp> {
    let m = std::fs::symlink_metadata(path).ok()?;
    Some(FileStamp::new(m.modified().ok(), m.len()))
}

/// What the scan learnt about one folder entry that is an issue file.
struct Checked {
    /// Its slot, if the index knows it.
    pub slot: Option<u32>,
    /// Its path, if it must be read (unknown, or its stamp changed).
    pub read: Option<PathBuf>,
    /// Its path, if it is a known broken file.
    pub broken: Option<PathBuf>,
}

/// Whether the file `name` of `dir`, with stamp `now`, must be read: it is unknown to the index
/// (`slots` and the known `broken` files), or its stamp changed.
fn check(
    dir: &Path,
    name: &std::ffi::OsStr,
    now: Option<FileStamp>,
    slots: &Slots,
    broken: &BTreeMap<PathBuf, (Option<FileStamp>, String)>,
) -> Checked {
    let slot = slots.slot_in(dir, name);
    let broken_path = slot.is_none().then(|| dir.join(name)).filter(|p| broken.contains_key(p));
    let known = match (slot, &broken_path) {
        (Some(s), _) => slots.at(s).map(|x| x.stamp),
        (None, Some(p)) => broken.get(p).map(|b| b.0),
        (None, None) => None,
    };
    let read = known.is_none_or(|k| k.is_none() || now != k);
    Checked { slot, read: read.then(|| dir.join(name)), broken: broken_path }
}

/// The outcome of reading one file.
enum Loaded {
    Issue(Box<IssueMeta>, FileStamp, Option<DocText>),
    Broken(String, Option<FileStamp>),
    Gone,
}

/// Reads and parses one file of the folder `folder` is a handle on, with its words unless
/// `words` is false. Links, FIFOs, devices and oversized files are refused (never opened for
/// reading in a way that could block or follow them out of the workspace).
fn load(folder: &Root, path: &Path, folder_type: IssueType, words: bool) -> Loaded {
    thread_local! {
        /// Each reading thread's file buffer: a scan allocates no file-sized buffer per file.
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUFFER.with_borrow_mut(|buffer| {
        let loaded = load_with(folder, path, folder_type, words, buffer);
        // A huge file's room is not kept.
        if buffer.capacity() > 1 << 20 {
            *buffer = Vec::new();
        }
        loaded
    })
}

fn load_with(folder: &Root, path: &Path, folder_type: IssueType, words: bool, buffer: &mut Vec<u8>) -> Loaded {
    let (text, stamp) = match files::read_text_into(folder, path, buffer) {
        Ok((text, md)) => (text, FileStamp::new(md.modified().ok(), md.len())),
        Err(StoreError::Refused { reason, .. }) => return Loaded::Broken(reason, stamp(path)),
        Err(StoreError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => return Loaded::Gone,
        Err(e) => return Loaded::Broken(e.to_string(), stamp(path)),
    };
    let modified = stamp.modified().map(iso).unwrap_or_default();
    match frontmatter::index_meta(text, path, folder_type, &modified) {
        Ok((meta, body)) => {
            let words = words.then(|| DocText::new(&meta, body));
            Loaded::Issue(Box::new(meta), stamp, words)
        }
        Err(reason) => Loaded::Broken(reason, Some(stamp)),
    }
}

/// [`load`] of a file named outside a scan (its folder is opened for it).
fn load_one(path: &Path, folder_type: IssueType) -> Loaded {
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    match Root::open(folder) {
        Ok(root) => load(&root, path, folder_type, true),
        Err(StoreError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => Loaded::Gone,
        Err(e) => Loaded::Broken(e.to_string(), stamp(path)),
    }
}

/// Files read in parallel at a time (bounds the memory a cold load holds at once).
const CHUNK: usize = 1024;

/// Changes in one scan above which the list order is rebuilt once rather than kept up to date.
const BULK: usize = 256;

impl Index {
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
        // With no snapshot to start from, the listing has nothing to compare stamps with.
        let snapshot_exists = from_snapshot && snapshot::path_in(&ws.cache_dir()).exists();
        let stamps = !from_snapshot || snapshot_exists || !self.broken.is_empty();
        let (decoded, listings) = rayon::join(
            || snapshot_exists.then(|| read_snapshot(ws, &root, &dirs).map(|s| (s, started.elapsed()))).flatten(),
            || {
                let listed = to_list.par_iter().map(|dir| (dir, list(rooted.as_ref(), dir, first, stamps))).collect();
                (listed, started.elapsed())
            },
        );
        let (listings, listed_in): (Vec<_>, _) = listings;
        if let Some((slots, decoded_in)) = decoded {
            self.use_snapshot(slots);
            tracing::debug!(
                issues = self.slots.len(),
                decoded_ms = decoded_in.as_secs_f64() * 1e3,
                listed_ms = listed_in.as_secs_f64() * 1e3,
                "index snapshot read"
            );
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
        // A first scan with no snapshot to start from leaves the words out (see `slots::text`).
        // (Not without the cache: each call would scan and pass over the files again.)
        let words = !(self.enabled && self.slots.capacity() == 0 && to_read.len() > BULK);
        if !words {
            self.slots.defer_text();
        }
        // Chunks of files are read and parsed in parallel while the previous chunk is entered
        // into the index (which only one thread can do).
        // One handle per folder for all its files.
        let folders = open_folders(&self.dirs);
        let mut previous: Option<(&[PathBuf], Vec<Loaded>)> = None;
        for chunk in to_read.chunks(CHUNK).chain([&[][..]]) {
            let (loaded, ()) = rayon::join(
                || chunk.par_iter().map(|p| load_in(&folders, p, words)).collect::<Vec<_>>(),
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
        let loaded = load_one(path, folder_type);
        self.store_loaded(path, loaded);
        1
    }

    fn store_loaded(&mut self, path: &Path, loaded: Loaded) {
        match loaded {
            Loaded::Issue(meta, stamp, words) => {
                self.broken.remove(path);
                self.put(*meta, Some(stamp), words);
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
}

/// A pass over the files for the words a first scan left out (see `slots::text`), with the
/// issue folders it reads them in.
pub struct WordsPass {
    pub(super) pass: TextPass,
    pub(super) dirs: Vec<(IssueType, PathBuf)>,
}

impl WordsPass {
    /// Reads the words as a scan reads files: one handle per issue folder.
    pub fn run(self) -> BuiltText {
        let folders = open_folders(&self.dirs);
        self.pass.run(|path| match load_in(&folders, path, true) {
            Loaded::Issue(_, stamp, words) => Some((words?, stamp)),
            _ => None,
        })
    }
}

/// Each issue folder with its type and a handle on it (a folder that cannot be opened now has
/// had its files vanish with it).
type Folder = (IssueType, PathBuf, Option<Root>);

fn open_folders(dirs: &[(IssueType, PathBuf)]) -> Vec<Folder> {
    dirs.iter().map(|(t, d)| (*t, d.clone(), Root::open(d).ok())).collect()
}

/// [`load`] of a file in one of `folders`, through that folder's handle.
fn load_in(folders: &[Folder], path: &Path, words: bool) -> Loaded {
    match folder_of(folders, path) {
        Some((t, _, Some(folder))) => load(folder, path, *t, words),
        Some((t, _, None)) => load_one(path, *t),
        None => Loaded::Gone,
    }
}

/// The issue folder (type, path, handle) `path` is directly in. Most paths are found by their
/// bytes (a scan makes each as `folder.join(name)`), before `Path::parent` compares components.
fn folder_of<'f>(folders: &'f [Folder], path: &Path) -> Option<&'f Folder> {
    use std::os::unix::ffi::OsStrExt;
    let p = path.as_os_str().as_bytes();
    let directly_in = |dir: &Path| {
        let d = dir.as_os_str().as_bytes();
        p.len() > d.len() + 1 && p.starts_with(d) && p[d.len()] == b'/' && !p[d.len() + 1..].contains(&b'/')
    };
    folders
        .iter()
        .find(|(_, d, _)| directly_in(d))
        .or_else(|| folders.iter().find(|(_, d, _)| Some(d.as_path()) == path.parent()))
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::generate::generate_workspace;
    use crate::index::search_index::{BODY, Query};

    /// The scan itself, without the store's snapshot writer (which makes the pass on a thread
    /// of its own as soon as a first start has answered).
    #[test]
    fn a_first_scan_of_many_files_leaves_the_words_for_one_pass() {
        let dir = tempfile::tempdir().expect("tmp");
        let many = generate_workspace(&dir.path().join("many"), 300, 1);
        let mut index = Index::new(many, true, Duration::from_secs(60));
        index.refresh().expect("scan");
        assert_eq!(index.len(), 300);
        assert!(index.text_pending(), "300 files to read and nothing to start from");
        let pass = index.text_pass().expect("a pass");
        assert!(index.install_text(pass.run()));
        assert!(!index.text_pending());
        let hits = index.search(&Query::parse("request"), BODY, |_| true);
        assert!(hits.len() > 250, "the generated bodies hold it: {}", hits.len());

        let few = generate_workspace(&dir.path().join("few"), 100, 1);
        let mut index = Index::new(few, true, Duration::from_secs(60));
        index.refresh().expect("scan");
        assert!(!index.text_pending(), "a small first scan reads the words as it goes");

        let uncached = generate_workspace(&dir.path().join("uncached"), 300, 1);
        let mut index = Index::new(uncached, false, Duration::from_secs(60));
        index.refresh().expect("scan");
        assert!(!index.text_pending(), "without the cache every call reads every file again");
    }
}
