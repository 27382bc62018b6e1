use std::os::unix::fs::symlink;

use super::*;

fn root() -> (tempfile::TempDir, Root) {
    let dir = tempfile::tempdir().expect("tmp");
    let root = Root::open(dir.path()).expect("root");
    (dir, root)
}

#[test]
fn create_atomic_never_replaces_a_file_and_write_atomic_keeps_the_mode() {
    let (dir, root) = root();
    let p = dir.path().join("a/b.md");
    root.create_atomic(&p, b"one").expect("create");
    assert!(root.create_atomic(&p, b"two").is_err());
    assert_eq!(std::fs::read_to_string(&p).expect("read"), "one");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    root.write_atomic(&p, b"three", None).expect("replace");
    assert_eq!(std::fs::read_to_string(&p).expect("read"), "three");
    assert_eq!(root.mode_of(&p), Some(0o640));
}

#[test]
fn links_on_the_way_or_at_the_end_are_refused_and_nothing_is_written_outside() {
    let (dir, root) = root();
    let outside = tempfile::tempdir().expect("outside");
    symlink(outside.path(), dir.path().join("cache")).expect("link a folder");
    symlink(outside.path().join("victim"), dir.path().join("file")).expect("link a file");
    for p in [dir.path().join("cache/x.json"), dir.path().join("file"), dir.path().join("cache/deep/x")] {
        let e = root.write_atomic(&p, b"x", None).expect_err("refused");
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(root.append(&p, b"x").is_err());
        assert!(root.lock(&p).is_err());
    }
    assert!(root.create_dir_all(&dir.path().join("cache/sub")).is_err());
    assert!(root.read(&dir.path().join("cache/x"), 10).is_err());
    assert_eq!(std::fs::read_dir(outside.path()).expect("outside").count(), 0);
    for bad in [dir.path().join("../x"), PathBuf::from("/etc/passwd")] {
        assert!(root.write_atomic(&bad, b"x", None).is_err(), "{}", bad.display());
    }
}

#[test]
fn a_fifo_is_refused_without_blocking_and_reads_are_bounded() {
    let (dir, root) = root();
    let fifo = dir.path().join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().expect("utf8")).expect("c");
    // SAFETY: a valid path string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    assert!(root.read(&fifo, 100).is_err());
    assert!(root.append(&fifo, b"x").is_err());
    assert!(root.lock(&fifo).is_err());
    assert!(root.write_atomic(&fifo, b"x", None).is_err());
    std::fs::write(dir.path().join("big"), vec![b'x'; 100]).expect("big");
    assert!(root.read(&dir.path().join("big"), 99).is_err());
    assert_eq!(root.read(&dir.path().join("big"), 100).expect("read").len(), 100);
}
