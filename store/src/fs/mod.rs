//! The rooted file layer: every file docket creates, replaces, renames, appends to or removes
//! goes through a [`Root`], a handle on the workspace's root (or the repository's, or a directory
//! the caller named) that cannot reach outside it.
//!
//! Each path is walked from the root one name at a time with `openat(O_NOFOLLOW)` (what
//! `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` does in one call): `..` and absolute parts are
//! refused before any call, and a symbolic link, FIFO, socket or device where docket expects its
//! own folder or file is refused with [`StoreError::Refused`] naming the path and what to do. A
//! cloned repository can commit links anywhere (`cache/`, `sessions/`, `.worktrees`, `.gitignore`);
//! none of them can make docket write, or block, or read without bound, outside the root. Reads
//! never block (`O_NONBLOCK`) and are bounded by the caller's limit.
//!
//! `tests/hostile/escape.rs` greps the sources: no module but this one calls a `std::fs` function that
//! writes, so a new write site cannot bypass the layer.

mod sys;

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

pub use sys::Rename;

use crate::model::StoreError;

/// A directory handle that every operation resolves beneath, never following a link.
#[derive(Debug)]
pub struct Root {
    dir: File,
    path: PathBuf,
}

/// What is at a path, seen without following a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// Nothing is there.
    Missing,
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A link, FIFO, socket or device: named for the error.
    Other(&'static str),
}

fn refused(path: &Path, what: &str, expected: &str) -> StoreError {
    StoreError::Refused {
        path: path.to_path_buf(),
        reason: format!(
            "it is {what} where docket expects its own {expected}; docket reads and writes only real files and \
             folders inside the workspace and never follows a link that could lead outside the workspace. Replace \
             it with a real {expected} (or remove it), then retry"
        ),
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> StoreError + '_ {
    move |source| StoreError::Io { path: path.to_path_buf(), source }
}

impl Root {
    /// A handle on `path`, the trusted anchor the caller chose (the workspace root, the
    /// repository, a directory git or the user named).
    pub fn open(path: &Path) -> Result<Root, StoreError> {
        use std::os::unix::fs::OpenOptionsExt;
        let dir = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
            .open(path)
            .map_err(io_err(path))?;
        Ok(Root { dir, path: path.to_path_buf() })
    }

    /// Like [`Root::open`], creating `path` first if it is missing (`docket init` in a new
    /// directory the user named).
    pub fn open_or_create(path: &Path) -> Result<Root, StoreError> {
        std::fs::create_dir_all(path).map_err(io_err(path))?;
        Root::open(path)
    }

    /// The directory this handle is on, as it was named when opened.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The names from the root to `path`; refuses a path outside the root or with `..`.
    fn names<'a>(&self, path: &'a Path) -> Result<Vec<&'a OsStr>, StoreError> {
        let outside = || StoreError::Refused {
            path: path.to_path_buf(),
            reason: format!(
                "it is outside {}, the only directory docket writes in here; use a path inside it",
                self.path.display()
            ),
        };
        let rel = path.strip_prefix(&self.path).map_err(|_| outside())?;
        let mut names = Vec::new();
        for c in rel.components() {
            match c {
                Component::Normal(n) => names.push(n),
                Component::CurDir => {}
                _ => return Err(outside()),
            }
        }
        Ok(names)
    }

    /// Enters the folder `name` of `dir` (`shown` is its full path, for errors), creating it when
    /// missing and `create`.
    fn enter(dir: &File, name: &OsStr, shown: &Path, create: bool) -> Result<File, StoreError> {
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NONBLOCK;
        match sys::open_at(dir, name, flags, 0) {
            Ok(f) => return Ok(f),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && create => match sys::mkdir_at(dir, name, 0o755) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(io_err(shown)(e)),
            },
            Err(e) if matches!(e.raw_os_error(), Some(libc::ELOOP | libc::ENOTDIR)) => {
                let what = sys::lstat_at(dir, name).ok().flatten().map_or("not a folder", |st| sys::kind_of(&st));
                return Err(refused(shown, what, "folder"));
            }
            Err(e) => return Err(io_err(shown)(e)),
        }
        Self::enter(dir, name, shown, false)
    }

    /// The folder holding `path` (entered name by name; created when `create`) and the last name.
    fn parent<'a>(&self, path: &'a Path, create: bool) -> Result<(File, &'a OsStr), StoreError> {
        let names = self.names(path)?;
        let Some((last, dirs)) = names.split_last() else {
            return Err(refused(path, "the root itself", "file"));
        };
        let mut cur = self.dir.try_clone().map_err(io_err(&self.path))?;
        let mut shown = self.path.clone();
        for n in dirs {
            shown.push(n);
            cur = Self::enter(&cur, n, &shown, create)?;
        }
        Ok((cur, last))
    }

    /// What is at `path` (a link is described, never followed); a link or FIFO on the way there
    /// is an error.
    pub fn entry(&self, path: &Path) -> Result<Entry, StoreError> {
        let (dir, name) = match self.parent(path, false) {
            Ok(x) => x,
            Err(StoreError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Entry::Missing);
            }
            Err(e) => return Err(e),
        };
        Ok(match sys::lstat_at(&dir, name).map_err(io_err(path))? {
            None => Entry::Missing,
            Some(st) => match sys::kind_of(&st) {
                "file" => Entry::File,
                "dir" => Entry::Dir,
                other => Entry::Other(other),
            },
        })
    }

    /// Creates the folder `path` and every missing folder above it (inside the root).
    pub fn create_dir_all(&self, path: &Path) -> Result<(), StoreError> {
        if self.names(path)?.is_empty() {
            return Ok(());
        }
        let (dir, name) = self.parent(path, true)?;
        Self::enter(&dir, name, path, true).map(drop)
    }

    /// The regular file at `path` and its length, opened for reading without following a link
    /// and without blocking on a FIFO.
    pub fn open_regular(&self, path: &Path) -> Result<(File, u64), StoreError> {
        self.open_regular_with_metadata(path).map(|(file, md)| (file, md.len()))
    }

    fn open_regular_with_metadata(&self, path: &Path) -> Result<(File, std::fs::Metadata), StoreError> {
        let flags = libc::O_RDONLY | libc::O_NONBLOCK;
        let opened = match self.names(path)?.as_slice() {
            // A file of the root's own folder (the index reads whole folders this way) needs no
            // walk and no second handle on the folder.
            [name] => sys::open_at(&self.dir, name, flags, 0),
            _ => {
                let (dir, name) = self.parent(path, false)?;
                sys::open_at(&dir, name, flags, 0)
            }
        };
        let file = match opened {
            Ok(f) => f,
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(refused(path, "a symbolic link", "file")),
            Err(e) => return Err(io_err(path)(e)),
        };
        let md = file.metadata().map_err(io_err(path))?;
        if !md.is_file() {
            let what = if md.is_dir() { "a folder" } else { "a FIFO, socket or device" };
            return Err(refused(path, what, "file"));
        }
        Ok((file, md))
    }

    /// The bytes of the regular file at `path`, at most `max` of them (more is refused).
    pub fn read(&self, path: &Path, max: u64) -> Result<Vec<u8>, StoreError> {
        self.read_with_metadata(path, max).map(|(bytes, _)| bytes)
    }

    /// [`Root::read`], with the metadata of the file that was read (taken from the open file, so
    /// it describes what was read even if the name is replaced meanwhile).
    pub fn read_with_metadata(&self, path: &Path, max: u64) -> Result<(Vec<u8>, std::fs::Metadata), StoreError> {
        let mut bytes = Vec::new();
        let md = self.read_into(path, max, &mut bytes)?;
        Ok((bytes, md))
    }

    /// [`Root::read_with_metadata`] into `bytes` (cleared first), so a caller reading many
    /// files reuses one buffer.
    pub fn read_into(&self, path: &Path, max: u64, bytes: &mut Vec<u8>) -> Result<std::fs::Metadata, StoreError> {
        let (file, md) = self.open_regular_with_metadata(path)?;
        let len = md.len();
        if len > max {
            return Err(StoreError::Refused {
                path: path.to_path_buf(),
                reason: format!("it is {len} bytes, over docket's limit of {max} bytes for this file"),
            });
        }
        bytes.clear();
        bytes.reserve(len as usize + 1);
        file.take(max + 1).read_to_end(bytes).map_err(io_err(path))?;
        if bytes.len() as u64 > max {
            return Err(StoreError::Refused {
                path: path.to_path_buf(),
                reason: format!("it grew past docket's limit of {max} bytes while being read"),
            });
        }
        Ok(md)
    }

    /// The permission bits of the regular file at `path`, if there is one.
    pub fn mode_of(&self, path: &Path) -> Option<u32> {
        let (dir, name) = self.parent(path, false).ok()?;
        let st = sys::lstat_at(&dir, name).ok()??;
        (sys::kind_of(&st) == "file").then_some(st.st_mode as u32 & 0o7777)
    }

    /// A new empty temp file `{prefix}{random}{suffix}` beside `path` (its folder created if
    /// missing), open for writing, mode 0600 until the caller sets another.
    pub fn temp_file(&self, path: &Path, prefix: &str, suffix: &str) -> Result<(Temp, File), StoreError> {
        let (dir, _) = self.parent(path, true)?;
        let folder = path.parent().unwrap_or(&self.path).to_path_buf();
        for _ in 0..16 {
            let name = OsString::from(format!("{prefix}{:016x}{suffix}", rand::random::<u64>()));
            let flags = libc::O_RDWR | libc::O_CREAT | libc::O_EXCL;
            match sys::open_at(&dir, &name, flags, 0o600) {
                Ok(file) => return Ok((Temp { dir, path: folder.join(&name), name, armed: true }, file)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(io_err(&folder)(e)),
            }
        }
        Err(io_err(&folder)(std::io::Error::from(std::io::ErrorKind::AlreadyExists)))
    }

    /// `bytes` in a new durable temp file beside `path` (its folder created if missing), with
    /// `mode` (0644 when `None`, like files an editor creates).
    pub fn temp(&self, path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<Temp, StoreError> {
        let (temp, mut file) = self.temp_file(path, ".docket-", ".tmp")?;
        let done = file
            .write_all(bytes)
            .and_then(|()| file.set_permissions(std::fs::Permissions::from_mode(mode.unwrap_or(0o644))))
            .and_then(|()| file.sync_all());
        done.map_err(io_err(&temp.path))?;
        Ok(temp)
    }

    /// Refuses anything but a regular file (or nothing) at `path`, where a write will land.
    fn writable_target(&self, dir: &File, name: &OsStr, path: &Path) -> Result<(), StoreError> {
        match sys::lstat_at(dir, name).map_err(io_err(path))? {
            Some(st) if sys::kind_of(&st) != "file" => Err(refused(path, sys::kind_of(&st), "file")),
            _ => Ok(()),
        }
    }

    /// Writes `bytes` to `path` so readers see the old file or the new one, never a mix; keeps
    /// the mode of the file it replaces (`mode` for a new one, 0644 when `None`).
    pub fn write_atomic(&self, path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<(), StoreError> {
        let tmp = self.temp(path, bytes, self.mode_of(path).or(mode))?;
        self.put_in_place(tmp, path, Rename::Replace)
    }

    /// Like [`Root::write_atomic`] but fails with `AlreadyExists` when `path` exists.
    pub fn create_atomic(&self, path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
        let tmp = self.temp(path, bytes, None)?;
        self.put_in_place(tmp, path, Rename::NoReplace)
    }

    /// Creates the new file `path` with `bytes` (folders created if missing) without a temp file
    /// or fsync: for generated demo workspaces only, where durability does not matter.
    pub fn create_unsynced(&self, path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
        let (dir, name) = self.parent(path, true)?;
        let mut file =
            sys::open_at(&dir, name, libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL, 0o644).map_err(io_err(path))?;
        file.write_all(bytes).map_err(io_err(path))
    }

    /// Renames `tmp` onto `path` (in the same folder) and makes the rename durable.
    pub fn put_in_place(&self, mut tmp: Temp, path: &Path, how: Rename) -> Result<(), StoreError> {
        let (dir, name) = self.parent(path, true)?;
        self.writable_target(&dir, name, path)?;
        let how = match (how, sys::lstat_at(&dir, name).map_err(io_err(path))?) {
            // Without renameat2 (other systems), under docket's lock: checked, then renamed.
            (Rename::NoReplace, Some(_)) => {
                return Err(io_err(path)(std::io::Error::from(std::io::ErrorKind::AlreadyExists)));
            }
            (Rename::NoReplace, None) => Rename::Replace,
            (how, _) => how,
        };
        sys::rename_at(&tmp.dir, &tmp.name, &dir, name, how).map_err(io_err(path))?;
        if how != Rename::Exchange {
            tmp.armed = false;
        }
        let _ = dir.sync_all();
        Ok(())
    }

    /// Renames the file at `from` to `to` (folders of `to` created if missing). `Exchange` swaps
    /// them and fails with `Unsupported` where the system cannot.
    pub fn rename(&self, from: &Path, to: &Path, how: Rename) -> Result<(), StoreError> {
        let (from_dir, from_name) = self.parent(from, false)?;
        let (to_dir, to_name) = self.parent(to, true)?;
        if how != Rename::NoReplace {
            self.writable_target(&to_dir, to_name, to)?;
        }
        let how = match (how, sys::lstat_at(&to_dir, to_name).map_err(io_err(to))?) {
            (Rename::NoReplace, Some(_)) => {
                return Err(io_err(to)(std::io::Error::from(std::io::ErrorKind::AlreadyExists)));
            }
            (Rename::NoReplace, None) => Rename::Replace,
            (how, _) => how,
        };
        sys::rename_at(&from_dir, from_name, &to_dir, to_name, how).map_err(io_err(from))?;
        let _ = to_dir.sync_all();
        if from.parent() != to.parent() {
            let _ = from_dir.sync_all();
        }
        Ok(())
    }

    /// Removes the entry at `path` itself (a link is removed, never followed).
    pub fn remove_file(&self, path: &Path) -> Result<(), StoreError> {
        let (dir, name) = self.parent(path, false)?;
        sys::unlink_at(&dir, name).map_err(io_err(path))
    }

    /// Appends `bytes` in one write to the regular file at `path` (created if missing).
    pub fn append(&self, path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
        let (dir, name) = self.parent(path, true)?;
        let flags = libc::O_WRONLY | libc::O_APPEND | libc::O_CREAT | libc::O_NONBLOCK;
        let mut file = match sys::open_at(&dir, name, flags, 0o644) {
            Ok(f) => f,
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(refused(path, "a symbolic link", "file")),
            Err(e) => return Err(io_err(path)(e)),
        };
        if !file.metadata().map_err(io_err(path))?.is_file() {
            return Err(refused(path, "a FIFO, socket or device", "file"));
        }
        file.write_all(bytes).map_err(io_err(path))
    }

    /// An exclusive lock on the regular file at `path` (created if missing); released on drop.
    pub fn lock(&self, path: &Path) -> Result<File, StoreError> {
        let (dir, name) = self.parent(path, true)?;
        let file = match sys::open_at(&dir, name, libc::O_RDWR | libc::O_CREAT | libc::O_NONBLOCK, 0o644) {
            Ok(f) => f,
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(refused(path, "a symbolic link", "file")),
            Err(e) => return Err(io_err(path)(e)),
        };
        if !file.metadata().map_err(io_err(path))?.is_file() {
            return Err(refused(path, "a FIFO, socket or device", "file"));
        }
        file.lock().map_err(io_err(path))?;
        Ok(file)
    }

    /// A path to `path` for a library that opens files by name (SQLite), once every folder on
    /// the way is a real folder (created if missing) and `path` and each of its `companions`
    /// (`-journal`, `-wal`) beside it is a regular file or missing. The path starts at the
    /// root's real location, so the library can be told to refuse any link in it
    /// (`SQLITE_OPEN_NOFOLLOW`) and a link swapped in afterwards is refused too.
    pub fn real_path(&self, path: &Path, companions: &[&str]) -> Result<PathBuf, StoreError> {
        let (dir, name) = self.parent(path, true)?;
        let mut names = vec![name.to_os_string()];
        names.extend(companions.iter().map(|c| {
            let mut n = name.to_os_string();
            n.push(c);
            n
        }));
        for n in &names {
            self.writable_target(&dir, n, &path.with_file_name(n))?;
        }
        let real = self.path.canonicalize().map_err(io_err(&self.path))?;
        Ok(self.names(path)?.iter().fold(real, |p, n| p.join(n)))
    }
}

impl Root {
    /// The SQLite database at `path`, opened through [`Root::real_path`] with
    /// `SQLITE_OPEN_NOFOLLOW` (its `-journal`, `-wal` and `-shm` files checked too).
    pub fn sqlite(&self, path: &Path) -> Result<rusqlite::Connection, StoreError> {
        let real = self.real_path(path, &["-journal", "-wal", "-shm"])?;
        let flags = rusqlite::OpenFlags::default() | rusqlite::OpenFlags::SQLITE_OPEN_NOFOLLOW;
        rusqlite::Connection::open_with_flags(&real, flags).map_err(|e| StoreError::Refused {
            path: path.to_path_buf(),
            reason: format!("SQLite cannot open it ({e}); remove the file (docket recreates it), then retry"),
        })
    }
}

/// A temp file written by [`Root::temp`]; removed on drop unless persisted.
#[derive(Debug)]
pub struct Temp {
    dir: File,
    name: OsString,
    path: PathBuf,
    armed: bool,
}

impl Temp {
    /// Where the temp file is: in the folder of the path it was made for.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if self.armed {
            let _ = sys::unlink_at(&self.dir, &self.name);
        }
    }
}

/// Reads the regular file at `path` (at most `max` bytes) through its own folder: the file itself
/// is never followed if it is a link, nor opened in a way that blocks if it is a FIFO or device.
pub fn read_file(path: &Path, max: u64) -> Result<Vec<u8>, StoreError> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| refused(path, "not a file name", "file"))?;
    Root::open(dir)?.read(&dir.join(name), max)
}

/// A private temp folder in the system's temp folder (for `serve --demo`), removed on drop.
pub fn scratch_dir() -> Result<tempfile::TempDir, StoreError> {
    tempfile::tempdir().map_err(io_err(&std::env::temp_dir()))
}

/// A file in the temporary folder, removed when dropped ([`scratch_file`]).
pub type Scratch = tempfile::NamedTempFile;

/// A private temp file in the system's temp folder (for `docket edit`'s copy), removed on drop.
pub fn scratch_file(prefix: &str, suffix: &str) -> Result<Scratch, StoreError> {
    tempfile::Builder::new().prefix(prefix).suffix(suffix).tempfile().map_err(io_err(&std::env::temp_dir()))
}

/// Writes `bytes` to the file at `path`, rooted at its own folder (a file the user or git named
/// on the command line, such as the merge driver's `%A`).
pub fn replace_named(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().ok_or_else(|| refused(path, "not a file name", "file"))?;
    Root::open(dir)?.write_atomic(&dir.join(name), bytes, None)
}

#[cfg(test)]
mod tests;
