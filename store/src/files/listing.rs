//! What a scan of the issue folders learns before reading any file: each folder's issue files
//! with their stamps (which the index compares with the stamps it keeps), and the temp files
//! killed writes left behind.

use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::fs::Root;

/// Modification time (seconds, nanoseconds since the epoch) and length of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileStamp {
    pub modified: Option<(u64, u32)>,
    pub len: u64,
}

impl FileStamp {
    pub fn new(modified: Option<SystemTime>, len: u64) -> FileStamp {
        let modified =
            modified.and_then(|t| t.duration_since(UNIX_EPOCH).ok()).map(|d| (d.as_secs(), d.subsec_nanos()));
        FileStamp { modified, len }
    }

    pub fn modified(&self) -> Option<SystemTime> {
        self.modified.map(|(s, n)| UNIX_EPOCH + Duration::new(s, n))
    }
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
