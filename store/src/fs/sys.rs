//! The system calls under the rooted layer: every one takes a directory handle and a single name
//! (never a path with a separator), so the kernel resolves nothing but that one entry, and
//! `O_NOFOLLOW` makes a symbolic link there an error instead of a way out.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;

fn c_name(name: &OsStr) -> io::Result<CString> {
    if name.is_empty() || name == "." || name == ".." || name.as_bytes().contains(&b'/') {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a single file name"));
    }
    CString::new(name.as_bytes()).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "NUL in a file name"))
}

fn check(rc: libc::c_int) -> io::Result<libc::c_int> {
    if rc < 0 { Err(io::Error::last_os_error()) } else { Ok(rc) }
}

/// `openat(dir, name, flags | O_NOFOLLOW | O_CLOEXEC, mode)`.
pub fn open_at(dir: &File, name: &OsStr, flags: libc::c_int, mode: u32) -> io::Result<File> {
    let c = c_name(name)?;
    let flags = flags | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    // SAFETY: `c` is a valid NUL-terminated string; the returned descriptor is owned by the File.
    let fd = check(unsafe { libc::openat(dir.as_raw_fd(), c.as_ptr(), flags, mode as libc::c_uint) })?;
    // SAFETY: `fd` was just opened and is owned by nobody else.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// The entry's own metadata (a link is not followed); `None` when there is no such entry.
pub fn lstat_at(dir: &File, name: &OsStr) -> io::Result<Option<libc::stat>> {
    let c = c_name(name)?;
    // SAFETY: an all-zero `stat` is a valid value for the kernel to overwrite.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: valid descriptor, NUL-terminated name, and a writable `stat`.
    let rc = unsafe { libc::fstatat(dir.as_raw_fd(), c.as_ptr(), &mut st, libc::AT_SYMLINK_NOFOLLOW) };
    match check(rc) {
        Ok(_) => Ok(Some(st)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

pub fn mkdir_at(dir: &File, name: &OsStr, mode: u32) -> io::Result<()> {
    let c = c_name(name)?;
    // SAFETY: valid descriptor and NUL-terminated name.
    check(unsafe { libc::mkdirat(dir.as_raw_fd(), c.as_ptr(), mode as libc::mode_t) }).map(|_| ())
}

pub fn unlink_at(dir: &File, name: &OsStr) -> io::Result<()> {
    let c = c_name(name)?;
    // SAFETY: valid descriptor and NUL-terminated name.
    check(unsafe { libc::unlinkat(dir.as_raw_fd(), c.as_ptr(), 0) }).map(|_| ())
}

/// How a rename treats an entry already at the destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rename {
    /// Replaces a file already at the destination (plain `rename`).
    Replace,
    /// Fails with `AlreadyExists` when the destination exists.
    NoReplace,
    /// Swaps the two entries; `Unsupported` where the system cannot.
    Exchange,
}

pub fn rename_at(from_dir: &File, from: &OsStr, to_dir: &File, to: &OsStr, how: Rename) -> io::Result<()> {
    let (a, b) = (c_name(from)?, c_name(to)?);
    let (fa, fb) = (from_dir.as_raw_fd(), to_dir.as_raw_fd());
    match how {
        // SAFETY: valid descriptors and NUL-terminated names.
        Rename::Replace => check(unsafe { libc::renameat(fa, a.as_ptr(), fb, b.as_ptr()) }).map(|_| ()),
        Rename::NoReplace | Rename::Exchange => rename2(fa, &a, fb, &b, how),
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn rename2(fa: libc::c_int, a: &CString, fb: libc::c_int, b: &CString, how: Rename) -> io::Result<()> {
    let flags = if how == Rename::Exchange { libc::RENAME_EXCHANGE } else { libc::RENAME_NOREPLACE };
    // SAFETY: valid descriptors and NUL-terminated names.
    match check(unsafe { libc::renameat2(fa, a.as_ptr(), fb, b.as_ptr(), flags) }) {
        Ok(_) => Ok(()),
        Err(e) if matches!(e.raw_os_error(), Some(libc::EINVAL | libc::ENOSYS | libc::ENOTSUP)) => {
            Err(io::Error::new(io::ErrorKind::Unsupported, e))
        }
        Err(e) => Err(e),
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn rename2(_fa: libc::c_int, _a: &CString, _fb: libc::c_int, _b: &CString, _how: Rename) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// What kind of entry a `stat` describes.
pub fn kind_of(st: &libc::stat) -> &'static str {
    match st.st_mode & libc::S_IFMT {
        libc::S_IFREG => "file",
        libc::S_IFDIR => "dir",
        libc::S_IFLNK => "a symbolic link",
        libc::S_IFIFO => "a FIFO",
        libc::S_IFSOCK => "a socket",
        libc::S_IFCHR | libc::S_IFBLK => "a device",
        _ => "not a regular file",
    }
}
