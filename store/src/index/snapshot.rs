//! A copy of the index on disk (`cache/index.bin`), so a new server process starts without
//! parsing every file again: every issue's metadata, the list order and the full-text index. It
//! is only a hint: an entry is used only while its file's stamp (modification time and length)
//! still matches, so an edit made meanwhile is always re-read.
//!
//! The format is a compact binary stream read straight into the index (no second copy in
//! memory): a header, then varint-prefixed fields, then a hash of everything before it. A file
//! that does not check out is ignored. It is written to a locked temp file beside it and renamed
//! into place; temp files whose writer died are removed by the next process.

use std::collections::hash_map::DefaultHasher;
use std::fs::File;
use std::hash::Hasher;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::files::listing::FileStamp;
use crate::fs::{Entry, Rename, Root, Temp};
use crate::model::StoreError;

const MAGIC: &[u8; 8] = b"DOCKETIX";
/// Bumped whenever the layout or what it holds changes; other versions are ignored.
const VERSION: u32 = 7;
/// Below this many issues a cold load is already fast; no snapshot is kept.
pub const MIN_ENTRIES: usize = 200;
const FILE: &str = "index.bin";
const TEMP_PREFIX: &str = "index.bin.";
const TEMP_SUFFIX: &str = ".tmp";
/// Strings and byte runs longer than this mean a damaged file.
const MAX_RUN: u64 = 1 << 30;

pub fn path_in(cache_dir: &Path) -> PathBuf {
    cache_dir.join(FILE)
}

/// Hashes every byte that passes through (in the buffer's large chunks, which is fast).
pub struct Hashing<T> {
    inner: T,
    hash: DefaultHasher,
    /// Bytes still to hash (reading: the trailer that follows is not part of the hash).
    left: u64,
}

impl<T: Write> Write for Hashing<T> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.write(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<T: Read> Read for Hashing<T> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        let hashed = (n as u64).min(self.left) as usize;
        self.hash.write(&buf[..hashed]);
        self.left -= hashed as u64;
        Ok(n)
    }
}

/// Writes values.
pub struct Encoder<W: Write> {
    out: W,
}

impl<W: Write> Encoder<W> {
    fn raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.out.write_all(bytes)
    }

    pub fn varint(&mut self, mut v: u64) -> io::Result<()> {
        let mut buf = [0u8; 10];
        let mut n = 0;
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                buf[n] = byte;
                n += 1;
                break;
            }
            buf[n] = byte | 0x80;
            n += 1;
        }
        self.raw(&buf[..n])
    }

    pub fn bytes(&mut self, b: &[u8]) -> io::Result<()> {
        self.varint(b.len() as u64)?;
        self.raw(b)
    }

    pub fn str(&mut self, s: &str) -> io::Result<()> {
        self.bytes(s.as_bytes())
    }

    pub fn stamp(&mut self, s: &FileStamp) -> io::Result<()> {
        match s.modified {
            Some((secs, nanos)) => {
                self.varint(1)?;
                self.varint(secs)?;
                self.varint(nanos as u64)?;
            }
            None => self.varint(0)?,
        }
        self.varint(s.len)
    }
}

/// Reads values, and refuses implausible lengths.
pub struct Decoder<R: Read> {
    input: R,
}

fn damaged(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("damaged index snapshot: {what}"))
}

impl<R: Read> Decoder<R> {
    fn raw(&mut self, buf: &mut [u8]) -> io::Result<()> {
        self.input.read_exact(buf)
    }

    pub fn varint(&mut self) -> io::Result<u64> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let mut b = [0u8];
            self.raw(&mut b)?;
            v |= ((b[0] & 0x7f) as u64) << shift;
            if b[0] & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(damaged("varint too long"))
    }

    /// A count of items that follow (each at least a byte long).
    pub fn len(&mut self) -> io::Result<usize> {
        let n = self.varint()?;
        if n > MAX_RUN {
            return Err(damaged("count too large"));
        }
        Ok(n as usize)
    }

    fn run(&mut self, n: u64) -> io::Result<Vec<u8>> {
        if n > MAX_RUN {
            return Err(damaged("length too large"));
        }
        if n <= 1 << 16 {
            let mut v = vec![0; n as usize];
            self.input.read_exact(&mut v)?;
            return Ok(v);
        }
        // Grows with what is actually there, so a damaged length cannot allocate much.
        let mut v = Vec::with_capacity(1 << 16);
        (&mut self.input).take(n).read_to_end(&mut v)?;
        if v.len() as u64 != n {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        Ok(v)
    }

    pub fn byte_vec(&mut self) -> io::Result<Vec<u8>> {
        let n = self.varint()?;
        self.run(n)
    }

    pub fn string(&mut self) -> io::Result<String> {
        String::from_utf8(self.byte_vec()?).map_err(|_| damaged("not UTF-8"))
    }

    pub fn stamp(&mut self) -> io::Result<FileStamp> {
        let modified = match self.varint()? {
            0 => None,
            _ => Some((self.varint()?, u32::try_from(self.varint()?).map_err(|_| damaged("nanoseconds"))?)),
        };
        Ok(FileStamp { modified, len: self.varint()? })
    }
}

/// A snapshot being read: call [`Decoder::finish`] once everything is decoded.
pub type Input = Decoder<BufReader<Hashing<File>>>;

impl Input {
    /// Checks that everything was read and that the hash at the end matches it.
    pub fn finish(mut self) -> io::Result<()> {
        let mut stored = [0u8; 8];
        self.input.read_exact(&mut stored)?;
        let mut rest = [0u8; 1];
        if self.input.read(&mut rest)? != 0 || self.input.get_ref().left != 0 {
            return Err(damaged("trailing bytes"));
        }
        if u64::from_le_bytes(stored) != self.input.get_ref().hash.finish() {
            return Err(damaged("hash mismatch"));
        }
        Ok(())
    }
}

/// The snapshot of `cache_dir`, positioned after its header, when there is one of this version
/// (a regular file: a link or FIFO committed in its place is never opened).
pub fn open(root: &Root, cache_dir: &Path) -> Option<Input> {
    let (file, len) = root.open_regular(&path_in(cache_dir)).ok()?;
    let hashed = Hashing { inner: file, hash: DefaultHasher::new(), left: len.checked_sub(8)? };
    let mut d = Decoder { input: BufReader::with_capacity(256 * 1024, hashed) };
    let mut magic = [0u8; 8];
    d.raw(&mut magic).ok()?;
    let version = d.varint().ok()?;
    (magic == *MAGIC && version == VERSION as u64).then_some(d)
}

/// A snapshot written to its temp file but not yet in place.
pub struct Pending {
    root: Root,
    tmp: Temp,
    file: File,
    cache_dir: PathBuf,
}

/// Writes a snapshot to a new temp file in `cache_dir` with `write`. The temp file is locked
/// while it exists, so another process never mistakes it for an abandoned one.
pub fn write(
    root: Root,
    cache_dir: &Path,
    write: impl FnOnce(&mut Output<'_>) -> io::Result<()>,
) -> Result<Pending, StoreError> {
    let at = path_in(cache_dir);
    let (tmp, file) = root.temp_file(&at, TEMP_PREFIX, TEMP_SUFFIX)?;
    let failed = |e: io::Error| StoreError::Io { path: tmp.path().to_path_buf(), source: e };
    file.try_lock().map_err(|e| failed(io::Error::other(e.to_string())))?;
    let written = (|| {
        let hashed = Hashing { inner: &file, hash: DefaultHasher::new(), left: 0 };
        let mut enc = Encoder { out: BufWriter::with_capacity(256 * 1024, hashed) };
        enc.raw(MAGIC)?;
        enc.varint(VERSION as u64)?;
        write(&mut enc)?;
        let mut hashed = enc.out.into_inner().map_err(|e| e.into_error())?;
        let hash = hashed.hash.finish();
        hashed.inner.write_all(&hash.to_le_bytes())
    })();
    written.map_err(failed)?;
    Ok(Pending { root, tmp, file, cache_dir: cache_dir.to_path_buf() })
}

/// Where a snapshot is written.
pub type Output<'f> = Encoder<BufWriter<Hashing<&'f File>>>;

impl Pending {
    /// Makes the snapshot durable and puts it in place of the last one.
    pub fn commit(self) -> Result<(), StoreError> {
        let Pending { root, tmp, file, cache_dir } = self;
        file.sync_all().map_err(|e| StoreError::Io { path: tmp.path().to_path_buf(), source: e })?;
        root.put_in_place(tmp, &path_in(&cache_dir), Rename::Replace)?;
        // The JSON snapshot of earlier versions is never read again.
        let _ = root.remove_file(&cache_dir.join("index.json"));
        Ok(())
    }
}

/// Removes temp files left by snapshot writes whose process died (their lock is gone), and the
/// unlocked ones of earlier versions once they are old enough that no writer can still be on it.
pub fn remove_abandoned(root: &Root, cache_dir: &Path) {
    if root.entry(cache_dir).ok() != Some(Entry::Dir) {
        return;
    }
    let Ok(listing) = std::fs::read_dir(cache_dir) else { return };
    for entry in listing.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let path = entry.path();
        let abandoned = if name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX) {
            root.open_regular(&path).is_ok_and(|(f, _)| f.try_lock().is_ok())
        } else if name.starts_with(".tmp") {
            let age = entry.metadata().and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok());
            age.is_some_and(|a| a > Duration::from_secs(600))
        } else {
            false
        };
        if abandoned {
            match root.remove_file(&path) {
                Ok(()) => {
                    tracing::info!(path = %path.display(), "removed an index snapshot abandoned by a killed write")
                }
                Err(e) => tracing::debug!(path = %path.display(), error = %e, "could not remove an abandoned snapshot"),
            }
        }
    }
}
