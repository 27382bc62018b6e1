//! A copy of the index on disk (`cache/index.json`), so a new server process does not have to
//! parse every file again. It is only a hint: an entry is used only when its file's stamp
//! (modification time and length) still matches, so an edit made meanwhile is always re-read.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::model::IssueMeta;

/// Bumped whenever `IssueMeta` or the entry layout changes; other versions are ignored.
const VERSION: u32 = 2;
/// Below this many issues a cold load is already fast; no snapshot is kept.
pub const MIN_ENTRIES: usize = 200;

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

#[derive(Serialize)]
struct SnapshotRef<'a> {
    version: u32,
    entries: Vec<(FileStamp, &'a IssueMeta)>,
}

#[derive(Deserialize)]
struct Snapshot {
    version: u32,
    entries: Vec<(FileStamp, IssueMeta)>,
}

fn path_in(cache_dir: &Path) -> PathBuf {
    cache_dir.join("index.json")
}

/// The saved entries by path; empty when there is no usable snapshot.
pub fn load(cache_dir: &Path) -> HashMap<PathBuf, (FileStamp, IssueMeta)> {
    let Ok(bytes) = std::fs::read(path_in(cache_dir)) else { return HashMap::new() };
    match serde_json::from_slice::<Snapshot>(&bytes) {
        Ok(s) if s.version == VERSION => {
            s.entries.into_iter().map(|(stamp, meta)| (meta.path.clone(), (stamp, meta))).collect()
        }
        Ok(_) => HashMap::new(),
        Err(e) => {
            tracing::debug!(error = %e, "ignoring an unreadable index snapshot");
            HashMap::new()
        }
    }
}

/// Writes the snapshot atomically (temp file + rename); failures only cost the next cold start.
pub fn save(cache_dir: &Path, entries: &[(FileStamp, Arc<IssueMeta>)]) {
    let snapshot = SnapshotRef { version: VERSION, entries: entries.iter().map(|(s, m)| (*s, m.as_ref())).collect() };
    let result = std::fs::create_dir_all(cache_dir).and_then(|()| {
        let mut tmp = tempfile::NamedTempFile::new_in(cache_dir)?;
        serde_json::to_writer(std::io::BufWriter::new(tmp.as_file_mut()), &snapshot)?;
        tmp.persist(path_in(cache_dir)).map(drop).map_err(|e| e.error)
    });
    if let Err(e) = result {
        tracing::debug!(error = %e, "could not save the index snapshot");
    }
}
