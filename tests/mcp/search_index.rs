//! The full-text index and its snapshot, through the real binary: outside edits and deletions
//! are searchable on the next call, a title match ranks first, `totalCount` equals a brute-force
//! count, and the snapshot survives SIGKILL, end of input and SIGTERM.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{RawServer, call, is_error, start, structured, text};
use docket::store::generate::generate_workspace;
use docket::store::{IssueFilter, SortField, SortOrder, Status, Store, StoreOptions, Workspace};
use serde_json::{Value, json};

async fn search(client: &common::Client, args: Value) -> Value {
    let result = call(client, "issues_search", args).await;
    assert!(!is_error(&result), "issues_search failed: {}", text(&result));
    structured(&result)
}

fn ids(found: &Value) -> Vec<String> {
    crate::common::page_records(found).iter().map(|i| i["id"].as_str().expect("id").to_string()).collect()
}

#[tokio::test]
async fn outside_edits_and_deletions_are_searchable_on_the_next_call() {
    let dir = tempfile::tempdir().expect("tmp");
    generate_workspace(dir.path(), 50, 3);
    let client = start(dir.path()).await;
    assert_eq!(search(&client, json!({"query": "zanzibar"})).await["totalCount"], 0);

    let store =
        Store::open(Workspace::at(dir.path()).expect("ws"), StoreOptions { cache: false, ..Default::default() });
    let all = store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).expect("list").value;
    let target = &all[7];
    let mut body = std::fs::read_to_string(&target.path).expect("read");
    body.push_str("\nSeen near the Zanzibar office.\n");
    std::fs::write(&target.path, body).expect("edit outside docket");

    let found = search(&client, json!({"query": "zanzibar", "includeDescription": true})).await;
    assert_eq!(ids(&found), [target.id.as_str()], "the edited body is searchable at once");
    let excerpt = found["issues"][0]["excerpt"].as_str().unwrap_or_default();
    assert!(excerpt.contains("Zanzibar office"), "the excerpt shows the match: {excerpt:?}");

    std::fs::remove_file(&target.path).expect("delete outside docket");
    assert_eq!(search(&client, json!({"query": "zanzibar"})).await["totalCount"], 0, "a deleted file's words are gone");
    let by_id = search(&client, json!({"query": target.id})).await;
    assert!(!ids(&by_id).contains(&target.id), "the deleted issue is not found by its ID either");

    // Our own writes are searchable too, and a changed body forgets its old words.
    let created =
        call(&client, "issues_create", json!({"title": "Quokka sighting", "description": "A marsupial."})).await;
    assert!(!is_error(&created), "{}", text(&created));
    let id = structured(&created)["issue"]["id"].as_str().expect("id").to_string();
    assert_eq!(ids(&search(&client, json!({"query": "marsupial"})).await), [id.as_str()]);
    let updated = call(&client, "issues_update", json!({"id": id, "description": "A wombat."})).await;
    assert!(!is_error(&updated), "{}", text(&updated));
    assert_eq!(search(&client, json!({"query": "marsupial"})).await["totalCount"], 0);
    assert_eq!(ids(&search(&client, json!({"query": "womb"})).await), [id.as_str()], "the last word is a prefix");
    client.cancel().await.expect("stop");
}

#[tokio::test]
async fn a_title_match_ranks_first_and_archived_issues_are_found_when_asked_for() {
    let dir = common::workspace();
    let client = start(dir.path()).await;
    let create = |title: &str, description: &str, status: &str| json!({"title": title, "description": description, "status": status});
    let mut made = Vec::new();
    for args in [
        create("Refactor the exporter", "The pelican pipeline pelican pelican.", "open"),
        create("Pelican migration", "Move the birds.", "open"),
        create("Unrelated", "Nothing to see.", "open"),
        create("Old pelican work", "Done long ago.", "closed"),
    ] {
        let r = call(&client, "issues_create", args).await;
        assert!(!is_error(&r), "{}", text(&r));
        made.push(structured(&r)["issue"]["id"].as_str().expect("id").to_string());
    }
    let found = search(&client, json!({"query": "pelican", "filters": {"status": ["open"]}})).await;
    assert_eq!(ids(&found), [made[1].clone(), made[0].clone()], "the title match comes first");
    let archived = search(&client, json!({"query": "pelican", "filters": {"status": ["closed"]}})).await;
    assert_eq!(ids(&archived), [made[3].clone()], "archived issues are searched when the filter asks");
    let everything = search(&client, json!({"query": "pelican"})).await;
    assert_eq!(everything["totalCount"], 3);
    let by_id = search(&client, json!({"query": made[2]})).await;
    assert_eq!(ids(&by_id)[0], made[2], "an ID finds its issue first");
    client.cancel().await.expect("stop");
}

/// Lower-cased runs of letters and digits.
fn words(s: &str) -> Vec<String> {
    s.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(String::from).collect()
}

#[tokio::test]
async fn total_count_equals_a_brute_force_count() {
    let dir = tempfile::tempdir().expect("tmp");
    let ws = generate_workspace(dir.path(), 400, 99);
    // Brute force: read every issue from its file and check the words (all required, the last
    // one also as a prefix) in its ID, title, labels and body.
    let store = Store::open(ws, StoreOptions { cache: false, ..Default::default() });
    let all = store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).expect("list").value;
    let docs: Vec<(Status, Vec<String>)> = all
        .iter()
        .map(|m| {
            // Straight from the file: a get would scan the whole workspace again (no cache).
            let body = store.read_body(m).expect("body");
            let text = format!("{} {} {} {}", m.id, m.title, m.labels.join(" "), body);
            (m.status, words(&text))
        })
        .collect();
    let brute = |query: &str, archived_only: bool| {
        let q = words(query);
        let (last, rest) = q.split_last().expect("a word");
        docs.iter()
            .filter(|(status, _)| !archived_only || status.is_archived())
            .filter(|(_, w)| rest.iter().all(|r| w.contains(r)) && w.iter().any(|x| x.starts_with(last.as_str())))
            .count()
    };

    let client = start(dir.path()).await;
    for query in ["webhook", "Billing webh", "regression test", "fix log", "CSV export mobile", "unicode"] {
        let expected = brute(query, false);
        assert!(expected > 0, "{query} occurs in the generated workspace");
        let found = search(&client, json!({"query": query, "limit": 5})).await;
        assert_eq!(found["totalCount"], json!(expected), "totalCount of {query:?}");
        let closed = search(&client, json!({"query": query, "filters": {"status": ["closed", "cancelled"]}})).await;
        assert_eq!(closed["totalCount"], json!(brute(query, true)), "archived totalCount of {query:?}");
    }
    client.cancel().await.expect("stop");
}

const ISSUES: usize = 300;

fn temp_files(cache: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(cache)
        .map(|l| {
            l.flatten()
                .map(|e| e.path())
                .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().ends_with(".tmp")))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// A new server's first `issues_list`: (totalCount, whether it read no file at all).
fn first_list(workspace: &Path) -> (u64, bool) {
    let mut server = RawServer::spawn(workspace);
    server.initialize();
    let reply = server.request(1, "tools/call", json!({"name": "issues_list", "arguments": {}}));
    let total = reply["result"]["structuredContent"]["totalCount"].as_u64().expect("totalCount");
    let cached = reply["result"]["_meta"]["cached"] == json!(true);
    assert!(server.close().success());
    (total, cached)
}

fn create(server: &mut RawServer, id: i64, title: &str) {
    let reply = server.request(
        id,
        "tools/call",
        json!({"name": "issues_create", "arguments": {"title": title, "description": "body"}}),
    );
    assert_ne!(reply["result"]["isError"], json!(true), "{reply}");
}

#[test]
fn the_snapshot_survives_sigkill_end_of_input_and_sigterm() {
    let dir = tempfile::tempdir().expect("tmp");
    let ws = generate_workspace(dir.path(), ISSUES, 5);
    let cache = ws.cache_dir();

    // Killed right after its first call, maybe while writing the snapshot; plus a temp file of a
    // snapshot write that died long ago.
    let mut server = RawServer::spawn(dir.path());
    server.initialize();
    server.request(1, "tools/call", json!({"name": "issues_list", "arguments": {}}));
    server.kill();
    std::fs::create_dir_all(&cache).expect("cache dir");
    std::fs::write(cache.join("index.bin.abandoned.tmp"), b"half a snapshot").expect("plant");
    let leftovers = temp_files(&cache);

    // The next start removes every temp file a dead writer left.
    let mut server = RawServer::spawn(dir.path());
    server.initialize();
    server.request(1, "tools/call", json!({"name": "issues_list", "arguments": {}}));
    let now = temp_files(&cache);
    assert!(leftovers.iter().all(|t| !now.contains(t)), "left behind: {leftovers:?}, now {now:?}");
    create(&mut server, 2, "Made before end of input");
    assert!(server.close().success(), "end of input is a clean exit");
    assert!(temp_files(&cache).is_empty(), "a clean exit leaves no temp file: {:?}", temp_files(&cache));
    assert!(cache.join("index.bin").is_file());
    assert_eq!(first_list(dir.path()), (ISSUES as u64 + 1, true), "the next start needs no file read");

    // SIGTERM: the same.
    let mut server = RawServer::spawn(dir.path());
    server.initialize();
    create(&mut server, 1, "Made before SIGTERM");
    // SAFETY: signalling our own child by its pid.
    assert_eq!(unsafe { libc::kill(server.child.id() as i32, libc::SIGTERM) }, 0);
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = server.child.try_wait().expect("wait") {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "the server did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "SIGTERM is a clean exit: {status:?}");
    assert!(temp_files(&cache).is_empty(), "{:?}", temp_files(&cache));
    assert_eq!(first_list(dir.path()), (ISSUES as u64 + 2, true), "the snapshot has the SIGTERM server's write");

    // A damaged snapshot is ignored, not trusted.
    let snapshot = cache.join("index.bin");
    let mut bytes = std::fs::read(&snapshot).expect("read");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x55;
    std::fs::write(&snapshot, bytes).expect("damage");
    assert_eq!(first_list(dir.path()), (ISSUES as u64 + 2, false), "a damaged snapshot means reading the files");
    assert_eq!(first_list(dir.path()), (ISSUES as u64 + 2, true), "and is replaced by a good one");
}
