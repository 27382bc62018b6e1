//! Safe file operations: reads that refuse links, FIFOs and huge files; atomic writes that keep
//! the mode; the workspace lock; file names.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::model::{IssueType, StoreError};
use super::workspace::Workspace;

/// Largest issue file docket reads; bigger ones are skipped with a warning.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Reads a regular file without following a symbolic link, without blocking on a FIFO or device,
/// and without reading more than [`MAX_FILE_BYTES`]. `Err(Refused)` says why a file is not read.
pub fn read_regular(path: &Path) -> Result<Vec<u8>, StoreError> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let refused = |reason: &str| StoreError::Refused { path: path.to_path_buf(), reason: reason.into() };
    let file = OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path);
    let file = match file {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(refused("it is a symbolic link; docket reads and writes only regular files in the workspace"));
        }
        Err(e) => return Err(StoreError::Io { path: path.to_path_buf(), source: e }),
    };
    let md = file.metadata().map_err(StoreError::io(path))?;
    if !md.is_file() {
        return Err(refused("it is not a regular file (a FIFO, socket or device); docket skips it"));
    }
    if md.len() > MAX_FILE_BYTES {
        return Err(refused(&format!(
            "it is {} bytes, over docket's limit of {MAX_FILE_BYTES} bytes for an issue file",
            md.len()
        )));
    }
    let mut bytes = Vec::with_capacity(md.len() as usize);
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).map_err(StoreError::io(path))?;
    Ok(bytes)
}

/// [`read_regular`] as UTF-8 text.
pub fn read_text(path: &Path) -> Result<String, StoreError> {
    String::from_utf8(read_regular(path)?)
        .map_err(|_| StoreError::Refused { path: path.to_path_buf(), reason: "it is not UTF-8 text".into() })
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

/// Writes `contents` to `path` so readers see the old file or the new one, never a mix: a temp
/// file in the same directory, fsync, rename, then fsync of the directory. Keeps the file's mode.
pub fn write_atomic(path: &Path, contents: &str) -> Result<(), StoreError> {
    let tmp = synced_temp(path, contents, mode_of(path))?;
    tmp.persist(path).map_err(|e| StoreError::Io { path: path.to_path_buf(), source: e.error })?;
    sync_dir(path);
    Ok(())
}

/// Like [`write_atomic`] but fails if `path` exists, so a new issue never replaces a file.
pub fn create_atomic(path: &Path, contents: &str) -> Result<(), StoreError> {
    let tmp = synced_temp(path, contents, None)?;
    tmp.persist_noclobber(path).map_err(|e| StoreError::Io { path: path.to_path_buf(), source: e.error })?;
    sync_dir(path);
    Ok(())
}

/// The permission bits of an existing file (a regular file, not a link's target).
pub fn mode_of(path: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::symlink_metadata(path).ok().filter(|m| m.is_file()).map(|m| m.permissions().mode() & 0o7777)
}

/// `contents` in a durable temp file beside `path`, ready to be renamed onto it, with `mode`
/// (new files get 0644, like files an editor creates).
pub fn synced_temp(path: &Path, contents: &str, mode: Option<u32>) -> Result<tempfile::NamedTempFile, StoreError> {
    use std::os::unix::fs::PermissionsExt;
    let dir = path.parent().ok_or_else(|| StoreError::InvalidId {
        id: path.display().to_string(),
        reason: "no parent directory".into(),
    })?;
    std::fs::create_dir_all(dir).map_err(StoreError::io(dir))?;
    let mut tmp =
        tempfile::Builder::new().prefix(".docket-").suffix(".tmp").tempfile_in(dir).map_err(StoreError::io(dir))?;
    tmp.write_all(contents.as_bytes()).map_err(StoreError::io(tmp.path()))?;
    let perms = std::fs::Permissions::from_mode(mode.unwrap_or(0o644));
    tmp.as_file().set_permissions(perms).map_err(StoreError::io(tmp.path()))?;
    tmp.as_file().sync_all().map_err(StoreError::io(tmp.path()))?;
    Ok(tmp)
}

/// Atomically swaps the files at `a` and `b` (Linux `renameat2(RENAME_EXCHANGE)`). `Ok(false)`
/// where the system or filesystem cannot, so the caller falls back to a plain rename.
pub fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    rename2(a, b, RenameMode::Exchange)
}

/// Renames `from` to `to` unless `to` exists (`Ok(false)` where unsupported).
pub fn rename_noreplace(from: &Path, to: &Path) -> std::io::Result<bool> {
    rename2(from, to, RenameMode::NoReplace)
}

enum RenameMode {
    Exchange,
    NoReplace,
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn rename2(a: &Path, b: &Path, mode: RenameMode) -> std::io::Result<bool> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).map_err(std::io::Error::other);
    let (a, b) = (c(a)?, c(b)?);
    let flags = match mode {
        RenameMode::Exchange => libc::RENAME_EXCHANGE,
        RenameMode::NoReplace => libc::RENAME_NOREPLACE,
    };
    // SAFETY: both paths are valid NUL-terminated strings that outlive the call.
    let rc = unsafe { libc::renameat2(libc::AT_FDCWD, a.as_ptr(), libc::AT_FDCWD, b.as_ptr(), flags) };
    if rc == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EINVAL | libc::ENOSYS | libc::ENOTSUP) => Ok(false),
        _ => Err(e),
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn rename2(_a: &Path, _b: &Path, _mode: RenameMode) -> std::io::Result<bool> {
    Ok(false)
}

/// Best effort: makes the rename into `path`'s directory durable on filesystems that need it.
pub fn sync_dir(path: &Path) {
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
