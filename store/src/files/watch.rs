//! Which files changed since the last call. On Linux an inotify queue is drained at every call:
//! the kernel queues events synchronously with the write, so an edit made before the call is
//! always seen, at a cost proportional to the number of changes, not of files. Elsewhere (or if
//! inotify is unavailable or overflows) the answer is "unknown" and the index rescans.

use std::path::{Path, PathBuf};

/// What changed since the last call.
#[derive(Debug, PartialEq, Eq)]
pub enum Changes {
    /// Exactly these paths may have changed (possibly none).
    Paths(Vec<PathBuf>),
    /// Anything may have changed: rescan.
    Unknown,
}

#[cfg(target_os = "linux")]
pub struct Watcher {
    inotify: Option<inotify::Inotify>,
    dirs: std::collections::HashMap<inotify::WatchDescriptor, PathBuf>,
    buffer: Vec<u8>,
}

#[cfg(target_os = "linux")]
impl Watcher {
    pub fn new() -> Watcher {
        let inotify = inotify::Inotify::init()
            .map_err(|e| tracing::warn!("inotify unavailable ({e}); rescanning on every call"))
            .ok();
        Watcher { inotify, dirs: Default::default(), buffer: vec![0; 64 * 1024] }
    }

    /// Starts watching `dir` (idempotent); false if it cannot be watched.
    pub fn watch(&mut self, dir: &Path) -> bool {
        use inotify::WatchMask;
        let Some(inotify) = &self.inotify else { return false };
        let mask = WatchMask::MODIFY
            | WatchMask::CLOSE_WRITE
            | WatchMask::ATTRIB
            | WatchMask::CREATE
            | WatchMask::DELETE
            | WatchMask::MOVED_FROM
            | WatchMask::MOVED_TO
            | WatchMask::DELETE_SELF
            | WatchMask::MOVE_SELF;
        match inotify.watches().add(dir, mask) {
            Ok(wd) => {
                self.dirs.insert(wd, dir.to_path_buf());
                true
            }
            Err(_) => false,
        }
    }

    /// Drains the queue without blocking.
    pub fn changes(&mut self) -> Changes {
        use inotify::EventMask;
        let Some(inotify) = &mut self.inotify else { return Changes::Unknown };
        let mut paths = Vec::new();
        loop {
            let events = match inotify.read_events(&mut self.buffer) {
                Ok(events) => events,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return Changes::Paths(paths),
                Err(_) => return Changes::Unknown,
            };
            let mut any = false;
            for event in events {
                any = true;
                if event.mask.intersects(
                    EventMask::Q_OVERFLOW | EventMask::IGNORED | EventMask::DELETE_SELF | EventMask::MOVE_SELF,
                ) {
                    return Changes::Unknown;
                }
                match (self.dirs.get(&event.wd), event.name) {
                    (Some(dir), Some(name)) => paths.push(dir.join(name)),
                    _ => return Changes::Unknown,
                }
            }
            if !any {
                return Changes::Paths(paths);
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub struct Watcher;

#[cfg(not(target_os = "linux"))]
impl Watcher {
    pub fn new() -> Watcher {
        Watcher
    }
    pub fn watch(&mut self, _dir: &Path) -> bool {
        false
    }
    pub fn changes(&mut self) -> Changes {
        Changes::Unknown
    }
}
