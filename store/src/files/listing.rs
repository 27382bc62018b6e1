//! What a scan of the issue folders learns before reading any file: each folder's issue files
//! with their stamps, which of them the index knows (and whether they changed), and the temp
//! files killed writes left behind.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rayon::prelude::*;

use crate::fs::Root;
use crate::index::slots::Slots;
use crate::index::snapshot::FileStamp;

/// What the scan learnt about one folder entry that is an issue file.
pub struct Checked {
    /// Its slot, if the index knows it.
    pub slot: Option<u32>,
    /// Its path, if it must be read (unknown, or its stamp changed).
    pub read: Option<PathBuf>,
    /// Its path, if it is a known broken file.
    pub broken: Option<PathBuf>,
}

/// The issue files of `dir` with their stamps (of the entry itself: a link is not followed),
/// checked a chunk at a time in parallel; on the first scan, old temp files are removed. Without
/// `stamps` (the index knows no file to compare with) every stamp is `None`: each file is read
/// anyway, and stamped by what was read.
pub fn list(
    root: Option<&Root>,
    dir: &Path,
    first: bool,
    stamps: bool,
) -> std::io::Result<Vec<(std::ffi::OsString, Option<FileStamp>)>> {
    let mut listing = std::fs::read_dir(dir)?.flatten();
    let mut out = Vec::new();
    loop {
        let chunk: Vec<std::fs::DirEntry> = listing.by_ref().take(4096).collect();
        if chunk.is_empty() {
            return Ok(out);
        }
        let files: Vec<_> = chunk
            .par_iter()
            .filter_map(|entry| {
                let name = entry.file_name();
                let text = name.to_str().unwrap_or_default();
                if text.starts_with(".docket-") && text.ends_with(".tmp") {
                    if first {
                        remove_abandoned_temp_file(root, &entry.path());
                    }
                    return None;
                }
                if !text.ends_with(".md") || text.starts_with('.') {
                    return None;
                }
                let stamp =
                    stamps.then(|| entry.metadata().ok().map(|m| FileStamp::new(m.modified().ok(), m.len()))).flatten();
                Some((name, stamp))
            })
            .collect();
        out.extend(files);
    }
}

pub fn check(
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

/// Temp files of atomic writes live for milliseconds; one that is minutes old was left by a
/// process killed mid-write (its target file is intact: the rename never happened).
fn remove_abandoned_temp_file(root: Option<&Root>, path: &Path) {
    const ABANDONED_AFTER: Duration = Duration::from_secs(600);
    let old = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > ABANDONED_AFTER));
    if old {
        let Some(root) = root else { return };
        match root.remove_file(path) {
            Ok(()) => tracing::info!(path = %path.display(), "removed a temp file abandoned by a killed write"),
            Err(e) => tracing::debug!(path = %path.display(), error = %e, "could not remove an abandoned temp file"),
        }
    }
}
