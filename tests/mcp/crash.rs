//! The crash test: `kill -9` the server in the middle of a 50-item `issues_update_batch`, then
//! check that every issue file parses and holds either its old bytes or the new values, that no
//! issue was lost or duplicated, and that leftover temp files are ignored.
//!
//! The kill delays include fractions of the batch's measured duration, so some kills land
//! mid-batch on fast and slow machines alike; run with `--nocapture` for the table.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::RawServer;
use docket::store::generate::generate_workspace;
use docket::store::{Issue, IssueFilter, Priority, SortField, SortOrder, Status, Store, StoreOptions, Workspace};
use serde_json::{Value, json};

const ISSUES: usize = 60;
const SEED: u64 = 20_261_123;
const BATCH: usize = 50;
/// Appended to every body so each rewrite (read, render, write, fsync) takes measurable time.
const BODY_PADDING: usize = 128 * 1024;

/// An issue as generated: its file and parsed form.
struct Original {
    path: PathBuf,
    bytes: Vec<u8>,
    issue: Issue,
}

/// What one batch item sets.
#[derive(Clone, Debug)]
struct Change {
    status: Option<Status>,
    priority: Priority,
    labels: Vec<String>,
    assignee: String,
    /// `""` clears the project.
    project: String,
}

fn store(root: &Path) -> Store {
    let ws = Workspace::at(root).expect("a workspace");
    Store::open(ws, StoreOptions { cache: false, ..StoreOptions::default() })
}

/// A generated workspace with padded bodies; every issue's file and parsed form, by id.
fn build(root: &Path) -> BTreeMap<String, Original> {
    let ws = generate_workspace(root, ISSUES, SEED);
    let padding: String = "The quick brown fox jumps over the lazy dog. ".repeat(BODY_PADDING / 45) + "\n";
    for (_, dir) in ws.issue_dirs() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "md") {
                let mut text = std::fs::read_to_string(&path).expect("read generated issue");
                text.push_str(&padding);
                std::fs::write(&path, text).expect("pad generated issue");
            }
        }
    }
    let store = store(root);
    let listed = store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).expect("list");
    assert!(listed.warnings.is_empty(), "{:?}", listed.warnings);
    assert_eq!(listed.value.len(), ISSUES);
    listed
        .value
        .iter()
        .map(|m| {
            // The listed meta is already parsed; a get would scan the workspace again (no cache).
            let issue = Issue { meta: (**m).clone(), body: store.read_body(m).expect("body"), version: String::new() };
            let original = Original { path: m.path.clone(), bytes: std::fs::read(&m.path).expect("read"), issue };
            (m.id.clone(), original)
        })
        .collect()
}

/// 50 changes to the first 50 issues: every field the batch can set, every fifth one moving the
/// file between the collection and `archived/`, every seventh clearing the project.
fn changes(originals: &BTreeMap<String, Original>) -> BTreeMap<String, Change> {
    originals
        .iter()
        .take(BATCH)
        .enumerate()
        .map(|(i, (id, o))| {
            let old = &o.issue.meta;
            let next = Priority::ALL.iter().position(|p| *p == old.priority).map_or(0, |n| (n + 1) % 4);
            let status = (i % 5 == 0).then(|| if old.status.is_archived() { Status::Open } else { Status::Closed });
            let change = Change {
                status,
                priority: Priority::ALL[next],
                labels: vec!["crash".into(), format!("n{i}")],
                assignee: format!("agent-{i}"),
                project: if i % 7 == 0 { String::new() } else { "crash-test".into() },
            };
            (id.clone(), change)
        })
        .collect()
}

fn batch_arguments(changes: &BTreeMap<String, Change>) -> Value {
    let updates: Vec<Value> = changes
        .iter()
        .map(|(id, c)| {
            let mut u = json!({"id": id, "priority": c.priority.as_str(), "labels": c.labels,
                "assignee": c.assignee, "project": c.project});
            if let Some(s) = c.status {
                u["status"] = json!(s.as_str());
            }
            u
        })
        .collect();
    json!({"updates": updates})
}

/// How one kill left the workspace.
#[derive(Debug, Default)]
struct Verdict {
    /// Issues holding the new values.
    updated: usize,
    /// Issues byte-equal to their old version.
    old: usize,
    /// Old bytes already moved to the new folder (killed between the rename and the rewrite).
    moved_old: usize,
    /// Temp files left by the kill (ignored by the reader).
    temp_files: usize,
}

/// Every issue parses, is there once, and is its old bytes or its new values.
fn verify(root: &Path, originals: &BTreeMap<String, Original>, changes: &BTreeMap<String, Change>) -> Verdict {
    let ws = Workspace::at(root).expect("workspace");
    let mut verdict = Verdict::default();
    let mut md_files = 0;
    for (_, dir) in ws.issue_dirs() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with('.') {
                verdict.temp_files += 1;
            } else if name.ends_with(".md") {
                md_files += 1;
            }
        }
    }
    let store = store(root);
    let listed = store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).expect("list after the kill");
    // No SKIPPED_FILES (every .md file parses), no DUPLICATE_ID (no issue in two files).
    assert!(listed.warnings.is_empty(), "after the kill: {:?}", listed.warnings);
    assert_eq!(md_files, ISSUES, "one .md file per issue, temp files aside");
    let ids: BTreeSet<&str> = listed.value.iter().map(|m| m.id.as_str()).collect();
    let expected: BTreeSet<&str> = originals.keys().map(String::as_str).collect();
    assert_eq!(ids, expected, "no issue lost, none added (temp files are not issues)");
    for meta in &listed.value {
        let id = &meta.id;
        let o = &originals[id];
        let bytes = std::fs::read(&meta.path).expect("read issue");
        if bytes == o.bytes {
            if meta.path == o.path {
                verdict.old += 1;
            } else {
                // Only a status change moves a file; killed after the rename, before the rewrite.
                assert!(changes.get(id).is_some_and(|c| c.status.is_some()), "{id} moved without a status change");
                verdict.moved_old += 1;
            }
            continue;
        }
        let change = changes.get(id).unwrap_or_else(|| panic!("{id} was not in the batch but its file changed"));
        let now = Issue { meta: (**meta).clone(), body: store.read_body(meta).expect("body"), version: String::new() };
        let (old, new) = (&o.issue, &now);
        // What the batch does not touch is exactly as it was, body included.
        assert_eq!(new.body, old.body, "{id}: body");
        assert_eq!(new.meta.title, old.meta.title, "{id}: title");
        assert_eq!(new.meta.created_at, old.meta.created_at, "{id}: createdAt");
        assert_eq!(new.meta.issue_type, old.meta.issue_type, "{id}: type");
        assert_eq!(new.meta.context, old.meta.context, "{id}: wranglerContext");
        // What it sets is all set: a file is never half-updated.
        assert_eq!(new.meta.status, change.status.unwrap_or(old.meta.status), "{id}: status");
        assert_eq!(new.meta.priority, change.priority, "{id}: priority");
        assert_eq!(new.meta.labels, change.labels, "{id}: labels");
        assert_eq!(new.meta.assignee.as_deref(), Some(change.assignee.as_str()), "{id}: assignee");
        let project = (!change.project.is_empty()).then_some(change.project.as_str());
        assert_eq!(new.meta.project.as_deref(), project, "{id}: project");
        assert_ne!(new.meta.updated_at, old.meta.updated_at, "{id}: updatedAt moves");
        let archived = new.meta.status.is_archived();
        assert_eq!(meta.path.parent().is_some_and(|p| p.ends_with("archived")), archived, "{id}: folder");
        assert_eq!(new.meta.closed_at.is_some(), archived, "{id}: closedAt");
        verdict.updated += 1;
    }
    verdict
}

/// A restarted server serves every issue and can write again (no stale lock).
fn restart_and_check(root: &Path, originals: &BTreeMap<String, Original>) {
    let mut server = RawServer::spawn(root);
    server.initialize();
    let ids: Vec<&String> = originals.keys().collect();
    for (n, chunk) in ids.chunks(BATCH).enumerate() {
        let r = server.request(
            10 + n as i64,
            "tools/call",
            json!({"name": "issues_get_batch", "arguments": {"ids": chunk, "fields": ["status"]}}),
        );
        assert_eq!(r["result"]["isError"], false, "{r}");
        assert_eq!(r["result"]["structuredContent"]["notFound"], json!([]), "every issue is served");
        assert_eq!(r["result"]["_meta"]["warnings"], json!([]), "no skipped files or duplicate ids");
    }
    let r = server.request(
        20,
        "tools/call",
        json!({"name": "issues_update", "arguments": {"id": ids[0], "assignee": "after-crash"}}),
    );
    assert_eq!(r["result"]["isError"], false, "a write after the crash: {r}");
    assert!(server.close().success());
}

/// One run: fresh workspace, warm server, the batch, then SIGKILL after `delay` (or after the
/// reply when `None`). Returns the verdict and how long the batch took when it finished.
fn run(delay: Option<Duration>) -> (Verdict, Option<Duration>) {
    let dir = tempfile::tempdir().expect("tmp");
    let originals = build(dir.path());
    let changes = changes(&originals);
    let mut server = RawServer::spawn(dir.path());
    server.initialize();
    // Load the index first, so the delay measures the batch, not the cold start.
    let warm = server.request(1, "tools/call", json!({"name": "issues_list", "arguments": {"limit": 1}}));
    assert_eq!(warm["result"]["isError"], false, "{warm}");
    let request = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "issues_update_batch", "arguments": batch_arguments(&changes)}});
    assert!(server.send(&request));
    let started = Instant::now();
    let took = match delay {
        Some(d) => {
            std::thread::sleep(d);
            server.kill();
            None
        }
        None => {
            let reply = server.recv_until(&json!(2), Duration::from_secs(60)).expect("the batch finishes");
            let took = started.elapsed();
            let result = &reply.last().expect("reply")["result"];
            assert_eq!(result["structuredContent"]["succeeded"], BATCH, "{result}");
            server.kill();
            Some(took)
        }
    };
    let verdict = verify(dir.path(), &originals, &changes);
    restart_and_check(dir.path(), &originals);
    (verdict, took)
}

#[test]
fn kill_9_mid_batch_leaves_every_issue_old_or_new() {
    // After the reply first: every update is on disk, and the batch's duration sizes the delays.
    let (verdict, took) = run(None);
    let took = took.expect("duration");
    assert_eq!(verdict.updated, BATCH, "after the reply every update is on disk: {verdict:?}");
    let mut table = vec![(format!("after reply ({took:?})"), verdict)];
    let mut delays: Vec<Duration> = [0, 1, 2, 5, 10, 20, 50].iter().map(|ms| Duration::from_millis(*ms)).collect();
    delays.extend([0.25, 0.5, 0.75].iter().map(|f| took.mul_f64(*f)));
    for delay in delays {
        let (verdict, _) = run(Some(delay));
        table.push((format!("{delay:?}"), verdict));
    }
    // Timing varies with the machine: keep trying mid-batch points until one lands (bounded).
    let mut extra = 0;
    while !table.iter().any(|(_, v)| mid_batch(v)) && extra < 6 {
        let delay = took.mul_f64(0.1 + 0.15 * extra as f64);
        let (verdict, _) = run(Some(delay));
        table.push((format!("{delay:?} (extra)"), verdict));
        extra += 1;
    }
    eprintln!("kill delay -> issues updated / old / old-but-moved / temp files left");
    for (delay, v) in &table {
        eprintln!("  {delay:>24}: {:>2} / {:>2} / {} / {}", v.updated, v.old, v.moved_old, v.temp_files);
    }
    let mid = table.iter().filter(|(_, v)| mid_batch(v)).count();
    eprintln!("{} kills, {mid} landed mid-batch (0 < updated < {BATCH})", table.len() - 1);
    assert!(mid >= 1, "no kill landed mid-batch; the test proved nothing");
}

fn mid_batch(v: &Verdict) -> bool {
    v.updated > 0 && v.updated < BATCH
}
