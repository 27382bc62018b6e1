//! Issue files as they are on disk. Here: safe reads that refuse links, FIFOs and huge files; the
//! workspace lock; file names; the date format. Below: the frontmatter format ([`frontmatter`])
//! and its lossless editing ([`yaml_edit`]), the check of a whole-file edit made outside the tools
//! ([`edit`]), the scan of the issue folders ([`listing`]) and the change watcher ([`watch`]).
//! Writes go through the rooted layer ([`crate::fs`]). The index reads this floor; this floor
//! knows nothing of the index.

pub(crate) mod edit;
pub(crate) mod frontmatter;
pub(crate) mod listing;
pub(crate) mod watch;
pub(crate) mod yaml_edit;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::fs::Root;
use crate::model::{IssueType, StoreError};
use crate::workspace::Workspace;

/// Largest issue file docket reads; bigger ones are skipped with a warning.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Reads a regular file without following a symbolic link, without blocking on a FIFO or device,
/// and without reading more than [`MAX_FILE_BYTES`]. `Err(Refused)` says why a file is not read.
pub fn read_regular(path: &Path) -> Result<Vec<u8>, StoreError> {
    crate::fs::read_file(path, MAX_FILE_BYTES)
}

/// Reads the file at `path` as UTF-8 text, as docket reads an issue file: only a regular file
/// (never through a symbolic link, never blocking on a FIFO or device), at most 8 MiB;
/// `Err(Refused)` says why a file is not read.
pub fn read_text(path: &Path) -> Result<String, StoreError> {
    String::from_utf8(read_regular(path)?).map_err(|_| not_utf8(path))
}

fn not_utf8(path: &Path) -> StoreError {
    StoreError::Refused { path: path.to_path_buf(), reason: "it is not UTF-8 text".into() }
}

/// [`read_text`] of a file in the folder `folder` is a handle on, with the file's metadata (the
/// index reads whole folders through one handle, and stamps each file by what it read), into
/// `buffer` (cleared first: a scan reads many files in a row), the text borrowed from it.
pub fn read_text_into<'b>(
    folder: &Root,
    path: &Path,
    buffer: &'b mut Vec<u8>,
) -> Result<(&'b str, std::fs::Metadata), StoreError> {
    let md = folder.read_into(path, MAX_FILE_BYTES, buffer)?;
    Ok((std::str::from_utf8(buffer).map_err(|_| not_utf8(path))?, md))
}

/// Refuses a directory that resolves outside the workspace directory (a symlinked `archived/` or
/// `sessions/` in a cloned repository must not make docket write elsewhere). Missing directories
/// are judged by their nearest existing ancestor.
pub fn ensure_inside(ws: &Workspace, dir: &Path) -> Result<(), StoreError> {
    let base = ws.dir.canonicalize().map_err(StoreError::io(&ws.dir))?;
    let existing = dir.ancestors().find(|a| a.exists()).unwrap_or(dir);
    let real = existing.canonicalize().map_err(StoreError::io(existing))?;
    if real.starts_with(&base) {
        Ok(())
    } else {
        Err(StoreError::Refused {
            path: dir.to_path_buf(),
            reason: format!(
                "it resolves to {}, outside the workspace {}; docket never follows links out of the workspace. \
                 Replace the link with a real directory",
                real.display(),
                base.display()
            ),
        })
    }
}

/// An exclusive lock on the workspace, held while allocating IDs and during read-modify-write,
/// so two docket processes never share an ID or lose each other's update. Released on drop.
pub struct WorkspaceLock {
    _file: File,
}

impl WorkspaceLock {
    /// Takes the lock, creating a pending workspace's folder first: every write takes it.
    pub fn acquire(ws: &Workspace) -> Result<WorkspaceLock, StoreError> {
        ws.create_if_missing()?;
        let file = Root::workspace(ws)?.lock(&ws.cache_dir().join("docket.lock"))?;
        Ok(WorkspaceLock { _file: file })
    }

    /// Takes the lock of a workspace that exists, creating nothing (the repairs: a pending
    /// workspace has nothing to repair, and an error says the lock was not taken).
    pub fn acquire_existing(ws: &Workspace) -> Result<WorkspaceLock, StoreError> {
        let file = Root::workspace(ws)?.lock(&ws.cache_dir().join("docket.lock"))?;
        Ok(WorkspaceLock { _file: file })
    }
}

/// wrangler's slug: lowercase, characters other than word characters, spaces and dashes removed,
/// runs of space/underscore/dash collapsed to `-`, at most 50 characters, `issue` when empty.
pub fn slug(title: &str) -> String {
    let kept: String =
        title.to_lowercase().chars().filter(|c| c.is_alphanumeric() || matches!(c, '_' | ' ' | '-')).collect();
    let mut out = String::new();
    for c in kept.chars() {
        if matches!(c, ' ' | '_' | '-') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c);
        }
    }
    let out: String = out.chars().take(50).collect();
    let out = out.trim_matches('-').to_string();
    if out.is_empty() { "issue".into() } else { out }
}

/// The version of some bytes (an issue's file, a body): the 16 hex digits of their 64-bit FNV-1a
/// hash. Any change to the bytes changes it (but for a 1 in 2^64 chance), and the same bytes give
/// the same version in every process and release, so a version read by one process guards a
/// write made by another.
pub fn version_of(bytes: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash = (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// Checks an ID from a caller before it is used near a path: no separators, no `..`, no NUL.
pub fn validate_id(id: &str) -> Result<(), StoreError> {
    let reason = if id.is_empty() {
        Some("it is empty")
    } else if id.len() > 100 {
        Some("it is longer than 100 characters")
    } else if id.contains(['/', '\\', '\0']) || id.contains("..") {
        Some("it contains a path separator, `..` or NUL")
    } else if !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        Some("only letters, digits, `-` and `_` are allowed")
    } else {
        None
    };
    match reason {
        Some(r) => Err(StoreError::InvalidId { id: id.chars().take(100).collect(), reason: r.into() }),
        None => Ok(()),
    }
}

/// ISO 8601 with milliseconds, the way wrangler writes dates.
pub fn iso(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The file a new issue gets: `{collection}/[archived/]{ID}-{slug}.md`.
pub fn new_path(ws: &Workspace, t: IssueType, archived: bool, id: &str, title: &str) -> PathBuf {
    let dir = if archived { ws.collection(t).join("archived") } else { ws.collection(t) };
    dir.join(format!("{id}-{}.md", slug(title)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_wranglers_rules() {
        assert_eq!(slug("Fix login: redirect loop!"), "fix-login-redirect-loop");
        assert_eq!(slug("  __a  --  b__ "), "a-b");
        assert_eq!(slug("!!!"), "issue");
        assert_eq!(slug(&"x".repeat(80)).len(), 50);
    }

    #[test]
    fn path_traversal_and_odd_ids_are_rejected() {
        for bad in ["../etc/passwd", "/abs", "a/b", "ISS-1\0", "..", "", "ISS 1", "ISS-000001/../../x"] {
            assert!(validate_id(bad).is_err(), "{bad:?} must be rejected");
        }
        for good in ["ISS-000001", "000037", "SPEC-000050", "99"] {
            assert!(validate_id(good).is_ok(), "{good:?} is fine");
        }
    }
}
