//! What this process has shown of each file: the `updatedAt` an answer gave with the version of
//! the bytes it came from. `ifUpdatedAt` compares a field, and an edit that keeps the field (an
//! editor's save, a merge made before docket's driver was installed) passes it; with this, a
//! write guarded by the `updatedAt` this process answered is refused when the file no longer
//! has the bytes answered with it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Files remembered; past this the memory starts again (a guard then falls back to the field).
const MAX_FILES: usize = 10_000;
/// Versions remembered per `updatedAt` of one file.
const MAX_VERSIONS: usize = 8;

#[derive(Default)]
pub(crate) struct Shown {
    /// File -> the `updatedAt` last answered, and the versions answered with it.
    files: Mutex<HashMap<PathBuf, (String, Vec<String>)>>,
}

impl Shown {
    /// An answer gave `updated_at` for the file at `path`, read as bytes of `version`.
    pub fn note(&self, path: &Path, updated_at: &str, version: &str) {
        let Ok(mut files) = self.files.lock() else { return };
        if files.len() >= MAX_FILES && !files.contains_key(path) {
            files.clear();
        }
        let entry = files.entry(path.to_path_buf()).or_insert_with(|| (updated_at.to_string(), Vec::new()));
        if entry.0 != updated_at {
            *entry = (updated_at.to_string(), Vec::new());
        }
        if !entry.1.iter().any(|v| v == version) {
            if entry.1.len() >= MAX_VERSIONS {
                entry.1.remove(0);
            }
            entry.1.push(version.to_string());
        }
    }

    /// A version answered with `updated_at` for `path` that is not `current`: the file changed
    /// since an answer gave that `updatedAt`, and the field did not.
    pub fn changed_since(&self, path: &Path, updated_at: &str, current: &str) -> Option<String> {
        let files = self.files.lock().ok()?;
        let (at, versions) = files.get(path)?;
        (at == updated_at).then(|| versions.iter().find(|v| *v != current).cloned()).flatten()
    }
}
