//! The store as a library: real wrangler data, concurrency between processes, edits made outside
//! the server, broken files, unsafe ids.

use crate::common;
use crate::on_each_fixture;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use docket_store::{
    IssueFilter, IssuePatch, IssueType, NewIssue, Priority, SortField, SortOrder, Status, Store, StoreError,
    StoreOptions, Workspace,
};

fn new_issue(title: &str) -> NewIssue {
    NewIssue {
        title: title.into(),
        description: format!("Body of {title}."),
        issue_type: IssueType::Issue,
        status: Status::Open,
        priority: Priority::Medium,
        labels: vec![],
        assignee: None,
        project: None,
        context: Default::default(),
        blocked_by: vec![],
    }
}

fn fresh_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tmp");
    let ws = Workspace::init(dir.path()).expect("init");
    (dir, Store::open(ws, StoreOptions::default()))
}

fn all(store: &Store) -> Vec<std::sync::Arc<docket_store::IssueMeta>> {
    store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).expect("list").value
}

/// The store over a wrangler fixture's `.wrangler/` folder.
fn wrangler_store(fx: &common::fixture::Fixture) -> Store {
    let ws = Workspace::resolve(Some(fx.path())).expect("the fixture is a workspace");
    assert!(ws.dir.ends_with(".wrangler"));
    Store::open(ws, StoreOptions::default())
}

on_each_fixture! {
    fn a_wrangler_workspace_is_served_in_place(fx) {
        let store = wrangler_store(&fx);
        let snap = store.list(&IssueFilter::default(), SortField::Updated, SortOrder::Desc).expect("list");
        assert_eq!(snap.value.len(), fx.facts.items, "every markdown issue, spec and idea file is listed");
        let duplicates: Vec<_> =
            snap.warnings.iter().filter(|w| w.code == docket_store::StoreWarningCode::DuplicateId).collect();
        assert!(duplicates.iter().any(|w| w.message.starts_with("ISS-000165 is used by 3 files")), "{duplicates:?}");
        let ids: Vec<&str> = snap.value.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(
            ids.iter().filter(|i| **i == "ISS-000165").count(),
            3,
            "both (all) holders of a duplicate id are listed"
        );
        assert!(ids.contains(&"000037"), "quoted legacy ids are read");
        let first = store.get("ISS-000165").expect("a duplicated id is still readable");
        let again = store.get("ISS-000165").expect("and reads the same file again");
        assert_eq!(first.value.meta.path, again.value.meta.path, "the choice is deterministic");
        let warning = first
            .warnings
            .iter()
            .find(|w| w.code == docket_store::StoreWarningCode::DuplicateId)
            .expect("the duplicate is reported");
        assert_eq!(warning.paths.len(), 3, "{warning:?}");
        assert!(warning.message.contains("doctor"), "{}", warning.message);
        let err = store
            .update("ISS-000165", IssuePatch { priority: Some(Priority::Low), ..Default::default() })
            .expect_err("a write to a duplicated id is refused");
        assert!(matches!(err, StoreError::Ambiguous { ref paths, .. } if paths.len() == 3), "{err}");
        let got = store.get("SPEC-000046").expect("spec by id");
        assert!(
            got.warnings.iter().all(|w| w.code != docket_store::StoreWarningCode::DuplicateId),
            "a lookup only warns about its own id"
        );
        let spec = got.value;
        assert!(spec.meta.title.starts_with("Wrangler MCP Server Modernization"));
        assert_eq!(spec.meta.issue_type, IssueType::Specification);
    }

    fn updating_a_wrangler_file_keeps_its_unknown_keys_and_untouched_body(fx) {
        let store = wrangler_store(&fx);
        let before = store.get("ISS-000119").expect("get").value;
        let original = std::fs::read_to_string(&before.meta.path).expect("read");
        store
            .update("ISS-000119", IssuePatch { priority: Some(Priority::Critical), ..Default::default() })
            .expect("update");
        let after = std::fs::read_to_string(&before.meta.path).expect("read");
        let body = |t: &str| t.splitn(3, "---\n").nth(2).map(str::to_string);
        assert_eq!(body(&after), body(&original), "the body is byte-identical");
        assert!(after.contains("priority: critical"));
        for line in original.lines().skip(1).take_while(|l| *l != "---") {
            let key = line.split(':').next().unwrap_or_default();
            if key.starts_with('#') {
                assert!(after.lines().any(|l| l == line), "the comment line {line:?} survives");
            } else if !key.starts_with(' ') && !key.starts_with('-') && !key.is_empty() {
                assert!(after.contains(&format!("{key}:")), "frontmatter key {key} survives");
            }
        }
    }
}

#[test]
fn an_external_edit_is_seen_by_the_next_list() {
    let (_dir, store) = fresh_store();
    let issue = store.create(new_issue("Edited by a human")).expect("create");
    assert_eq!(all(&store)[0].status, Status::Open);
    let text = std::fs::read_to_string(&issue.meta.path).expect("read");
    std::fs::write(&issue.meta.path, text.replace("status: open", "status: in_progress")).expect("edit in place");
    let listed = store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).expect("list");
    assert_eq!(listed.value[0].status, Status::InProgress);
    assert!(!listed.cached, "a changed file had to be re-read");
    assert!(
        store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).expect("list").cached,
        "then it is cached again"
    );
}

#[test]
fn files_added_removed_and_renamed_outside_are_seen() {
    let (dir, store) = fresh_store();
    let a = store.create(new_issue("A")).expect("create");
    assert_eq!(all(&store).len(), 1);
    let issues = dir.path().join(".docket/issues");
    std::fs::write(issues.join("ISS-000050-from-git.md"), "---\nid: ISS-000050\ntitle: From git\n---\nbody")
        .expect("add");
    assert_eq!(all(&store).len(), 2);
    std::fs::rename(&a.meta.path, issues.join("archived/renamed.md")).expect("rename");
    let metas = all(&store);
    assert_eq!(metas.len(), 2);
    assert!(metas.iter().any(|m| m.id == a.meta.id && m.path.ends_with("archived/renamed.md")));
    std::fs::remove_file(issues.join("ISS-000050-from-git.md")).expect("remove");
    assert_eq!(all(&store).len(), 1);
}

#[test]
fn a_broken_file_is_skipped_with_a_warning_and_left_byte_identical() {
    let (dir, store) = fresh_store();
    store.create(new_issue("Good")).expect("create");
    let broken = dir.path().join(".docket/issues/ISS-000009-broken.md");
    let content = "---\ntitle: [unclosed\nstatus: open\n---\nkeep me\n";
    std::fs::write(&broken, content).expect("write");
    let snap = store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).expect("list");
    assert_eq!(snap.value.len(), 1);
    let warning = snap
        .warnings
        .iter()
        .find(|w| w.code == docket_store::StoreWarningCode::SkippedFiles)
        .expect("a SKIPPED_FILES warning");
    assert!(warning.message.contains("ISS-000009-broken.md"), "{}", warning.message);
    assert!(store.update("ISS-000009", IssuePatch { status: Some(Status::Closed), ..Default::default() }).is_err());
    store.create(new_issue("Next")).expect("create after a broken file");
    assert_eq!(std::fs::read_to_string(&broken).expect("read"), content, "never rewritten");
}

#[test]
fn path_traversal_ids_are_rejected() {
    let (_dir, store) = fresh_store();
    for id in ["../../etc/passwd", "/etc/passwd", "ISS-000001/../x", "a\0b", "..", "C:\\x"] {
        let err = store.get(id).expect_err("rejected");
        assert!(matches!(err, StoreError::InvalidId { .. }), "{id:?}: {err}");
        assert!(matches!(store.delete(id), Err(StoreError::InvalidId { .. })), "{id:?}");
    }
}

#[test]
fn short_ids_resolve_when_unambiguous() {
    let (_dir, store) = fresh_store();
    store.create(new_issue("One")).expect("create");
    for short in ["1", "000001", "iss-000001"] {
        assert_eq!(store.get_meta(short).expect("found").value.id, "ISS-000001", "{short}");
    }
}

#[test]
fn closing_archives_and_reopening_restores() {
    let (_dir, store) = fresh_store();
    let issue = store.create(new_issue("Cycle")).expect("create");
    let closed =
        store.update(&issue.meta.id, IssuePatch { status: Some(Status::Closed), ..Default::default() }).expect("close");
    assert!(closed.issue.meta.path.parent().is_some_and(|p| p.ends_with("issues/archived")));
    assert!(closed.issue.meta.closed_at.is_some());
    assert!(!issue.meta.path.exists());
    let reopened =
        store.update(&issue.meta.id, IssuePatch { status: Some(Status::Open), ..Default::default() }).expect("reopen");
    assert_eq!(reopened.issue.meta.path, issue.meta.path);
    assert!(reopened.issue.meta.closed_at.is_none());
    assert_eq!(all(&store).len(), 1);
}

#[test]
fn with_the_cache_off_every_call_reads_the_files() {
    let dir = tempfile::tempdir().expect("tmp");
    let ws = Workspace::init(dir.path()).expect("init");
    let store = Store::open(ws, StoreOptions { cache: false, ..StoreOptions::default() });
    store.create(new_issue("Uncached")).expect("create");
    let first = store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).expect("list");
    let second = store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).expect("list");
    assert_eq!((first.value.len(), first.cached, second.cached), (1, false, false));
    assert!(!store.index_info().enabled);
}

const WORKER_ENV: &str = "DOCKET_TEST_CREATE_WORKER";

/// Run by `two_processes_creating_at_once_never_share_an_id` in child processes.
#[test]
#[ignore = "a worker for the two-process test; it runs only when that test spawns it"]
fn create_worker() {
    let Ok(dir) = std::env::var(WORKER_ENV) else { return };
    let ws = Workspace::resolve(Some(Path::new(&dir))).expect("workspace");
    let store = Store::open(ws, StoreOptions::default());
    let tag = std::process::id();
    for i in 0..200 {
        store.create(new_issue(&format!("Worker {tag} issue {i}"))).expect("create");
    }
}

#[test]
fn two_processes_creating_at_once_never_share_an_id() {
    let dir = tempfile::tempdir().expect("tmp");
    Workspace::init(dir.path()).expect("init");
    let exe = std::env::current_exe().expect("test binary");
    // The harness names a test by its path below the crate: `workspace::create_worker`.
    let worker = module_path!().split_once("::").map_or(String::new(), |(_, m)| format!("{m}::")) + "create_worker";
    let spawn = || {
        Command::new(&exe)
            .args([worker.as_str(), "--exact", "--ignored", "--test-threads=1"])
            .env(WORKER_ENV, dir.path())
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("spawn worker")
    };
    let (mut a, mut b) = (spawn(), spawn());
    assert!(a.wait().expect("worker a").success() && b.wait().expect("worker b").success(), "both workers finish");
    let ws = Workspace::resolve(Some(dir.path())).expect("workspace");
    let store = Store::open(ws, StoreOptions::default());
    let snap = store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).expect("list");
    assert_eq!(snap.value.len(), 400);
    let ids: BTreeSet<&str> = snap.value.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids.len(), 400, "400 distinct ids");
    assert!(snap.warnings.is_empty(), "no broken or duplicate files: {:?}", snap.warnings);
    for meta in &snap.value {
        let issue = store.get(&meta.id).expect("each file parses").value;
        assert_eq!(issue.body, format!("Body of {}.", issue.meta.title), "intact file {}", meta.path.display());
    }
}

#[test]
fn concurrent_updates_from_two_stores_lose_nothing() {
    let (dir, store_a) = fresh_store();
    let store_b = Store::open(Workspace::resolve(Some(dir.path())).expect("ws"), StoreOptions::default());
    let id = store_a.create(new_issue("Shared")).expect("create").meta.id;
    std::thread::scope(|s| {
        for (store, label) in [(&store_a, "a"), (&store_b, "b")] {
            let id = id.clone();
            s.spawn(move || {
                for i in 0..25 {
                    let patch = IssuePatch { append_body: Some(format!("\n{label}{i}")), ..Default::default() };
                    store.update(&id, patch).expect("update");
                }
            });
        }
    });
    let body = store_a.get(&id).expect("get").value.body;
    for label in ["a", "b"] {
        for i in 0..25 {
            assert!(body.lines().any(|l| l == format!("{label}{i}")), "append {label}{i} survived");
        }
    }
}

#[test]
fn a_failed_revalidation_serves_the_last_good_index_with_a_stale_warning() {
    let (dir, store) = fresh_store();
    store.create(new_issue("Survivor")).expect("create");
    assert_eq!(all(&store).len(), 1);
    let issues = dir.path().join(".docket/issues");
    std::fs::rename(&issues, dir.path().join("moved-away")).expect("move the folder");
    std::fs::write(&issues, "not a directory").expect("a file where the folder was");
    let snap =
        store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).expect("served from the last good index");
    assert_eq!(snap.value.len(), 1);
    assert!(snap.warnings.iter().any(|w| w.code == docket_store::StoreWarningCode::StaleIndex), "{:?}", snap.warnings);
}

#[test]
fn a_new_process_starts_from_the_snapshot_but_rereads_what_changed() {
    let dir = tempfile::tempdir().expect("tmp");
    let ws = docket_store::generate::generate_workspace(dir.path(), 300, 11);
    let list = |store: &Store| store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).expect("list");

    let first = Store::open(ws.clone(), StoreOptions::default());
    let cold = list(&first);
    assert_eq!(cold.value.len(), 300);
    assert!(!cold.cached, "the first process has to read every file");
    first.wait_for_snapshot();
    assert!(ws.dir.join("cache/index.bin").is_file(), "the snapshot is written for the next process");

    let second = Store::open(ws.clone(), StoreOptions::default());
    let warm = list(&second);
    assert!(warm.cached, "nothing changed, so no file is read");
    let titles = |s: &docket_store::Snapshot<Vec<std::sync::Arc<docket_store::IssueMeta>>>| {
        s.value.iter().map(|m| (m.id.clone(), m.title.clone(), m.status)).collect::<Vec<_>>()
    };
    assert_eq!(titles(&warm), titles(&cold), "the snapshot holds the same issues");

    // An edit made outside any server, between the two processes.
    let target = &cold.value[0];
    let text = std::fs::read_to_string(&target.path).expect("read");
    let edited = text.replacen(&format!("title: {}", target.title), "title: Edited while no server ran", 1);
    assert_ne!(edited, text, "the title line was found");
    std::fs::write(&target.path, edited).expect("write");
    std::fs::remove_file(&cold.value[1].path).expect("remove one");

    let third = Store::open(ws, StoreOptions::default());
    let after = list(&third);
    assert_eq!(after.value.len(), 299, "the removed file is gone");
    assert_eq!(after.value[0].title, "Edited while no server ran", "the edited file is re-read, not served stale");
    assert!(!after.cached, "one file was read");
}

#[test]
fn temp_files_abandoned_by_a_killed_write_are_removed_on_the_next_start() {
    let (dir, store) = fresh_store();
    let issues = dir.path().join(".docket/issues");
    let abandoned = issues.join(".docket-abc123.tmp");
    let in_flight = issues.join(".docket-def456.tmp");
    std::fs::write(&abandoned, "---\nid: ISS-000009\n---\nhalf").unwrap();
    std::fs::write(&in_flight, "---\nid: ISS-000010\n---\nbeing written").unwrap();
    let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options().write(true).open(&abandoned).unwrap().set_modified(an_hour_ago).unwrap();
    assert!(all(&store).is_empty(), "temp files are never issues");
    assert!(!abandoned.exists(), "an hour-old temp file is removed");
    assert!(in_flight.exists(), "a fresh one may belong to a write in progress");
}
