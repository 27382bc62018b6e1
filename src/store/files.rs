//! Safe file operations: atomic writes, the workspace lock, file names and ID allocation.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::frontmatter::id_from_file_name;
use super::model::{IssueType, StoreError};
use super::workspace::Workspace;

/// Writes `contents` to `path` so readers see the old file or the new one, never a mix: a temp
/// file in the same directory, fsync, rename, then fsync of the directory.
pub fn write_atomic(path: &Path, contents: &str) -> Result<(), StoreError> {
    let tmp = synced_temp(path, contents)?;
    tmp.persist(path).map_err(|e| StoreError::Io { path: path.to_path_buf(), source: e.error })?;
    sync_dir(path);
    Ok(())
}

/// Like [`write_atomic`] but fails if `path` exists, so a new issue never replaces a file.
pub fn create_atomic(path: &Path, contents: &str) -> Result<(), StoreError> {
    let tmp = synced_temp(path, contents)?;
    tmp.persist_noclobber(path).map_err(|e| StoreError::Io { path: path.to_path_buf(), source: e.error })?;
    sync_dir(path);
    Ok(())
}

/// `contents` in a durable temp file beside `path`, ready to be renamed onto it.
fn synced_temp(path: &Path, contents: &str) -> Result<tempfile::NamedTempFile, StoreError> {
    let dir = path.parent().ok_or_else(|| StoreError::InvalidId {
        id: path.display().to_string(),
        reason: "no parent directory".into(),
    })?;
    std::fs::create_dir_all(dir).map_err(StoreError::io(dir))?;
    let mut tmp =
        tempfile::Builder::new().prefix(".docket-").suffix(".tmp").tempfile_in(dir).map_err(StoreError::io(dir))?;
    tmp.write_all(contents.as_bytes()).map_err(StoreError::io(tmp.path()))?;
    tmp.as_file().sync_all().map_err(StoreError::io(tmp.path()))?;
    Ok(tmp)
}

/// Best effort: makes the rename into `path`'s directory durable on filesystems that need it.
fn sync_dir(path: &Path) {
    if let Some(d) = path.parent().and_then(|dir| File::open(dir).ok()) {
        let _ = d.sync_all();
    }
}

/// An exclusive lock on the workspace, held while allocating IDs and during read-modify-write,
/// so two docket processes never share an ID or lose each other's update. Released on drop.
pub struct WorkspaceLock {
    _file: File,
}

impl WorkspaceLock {
    pub fn acquire(ws: &Workspace) -> Result<WorkspaceLock, StoreError> {
        let dir = ws.cache_dir();
        std::fs::create_dir_all(&dir).map_err(StoreError::io(&dir))?;
        let path = dir.join("docket.lock");
        let file =
            OpenOptions::new().create(true).truncate(false).write(true).open(&path).map_err(StoreError::io(&path))?;
        file.lock().map_err(StoreError::io(&path))?;
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

/// The next ID of a collection: the highest number among its file names (archived included,
/// legacy unprefixed names too) plus one. Call with the workspace lock held.
pub fn next_id(ws: &Workspace, t: IssueType) -> Result<String, StoreError> {
    let mut max = 0u64;
    for dir in [ws.collection(t), ws.collection(t).join("archived")] {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(StoreError::Io { path: dir, source: e }),
        };
        for entry in entries.flatten() {
            if let Some(id) = id_from_file_name(&entry.path()) {
                let digits = id.trim_start_matches(|c: char| !c.is_ascii_digit());
                max = max.max(digits.parse().unwrap_or(0));
            }
        }
    }
    Ok(format!("{}{:06}", t.prefix(), max + 1))
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

    #[test]
    fn next_id_is_one_past_the_highest_file_name_including_archived_and_legacy() {
        let tmp = tempfile::tempdir().expect("tmp");
        let ws = Workspace::init(tmp.path()).expect("init");
        assert_eq!(next_id(&ws, IssueType::Issue).expect("id"), "ISS-000001");
        std::fs::write(ws.collection(IssueType::Issue).join("ISS-000004-a.md"), "").expect("write");
        std::fs::write(ws.collection(IssueType::Issue).join("archived/000009-legacy.md"), "").expect("write");
        assert_eq!(next_id(&ws, IssueType::Issue).expect("id"), "ISS-000010");
        assert_eq!(next_id(&ws, IssueType::Idea).expect("id"), "IDEA-000001");
    }

    #[test]
    fn create_atomic_never_replaces_a_file() {
        let tmp = tempfile::tempdir().expect("tmp");
        let p = tmp.path().join("a.md");
        create_atomic(&p, "one").expect("create");
        assert!(create_atomic(&p, "two").is_err());
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "one");
        write_atomic(&p, "three").expect("replace");
        assert_eq!(std::fs::read_to_string(&p).expect("read"), "three");
    }
}
