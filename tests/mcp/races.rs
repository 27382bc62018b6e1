//! No write is lost to another: parallel label and metadata changes from two server processes and
//! from one client that does not wait, and an editor saving the file while docket updates it.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{call, is_error, structured, text};
use futures::future::join_all;
use serde_json::json;

async fn create(client: &common::Client, title: &str) -> String {
    let created = call(client, "issues_create", json!({"title": title, "description": "body\n"})).await;
    assert!(!is_error(&created), "{}", text(&created));
    structured(&created)["issue"]["id"].as_str().expect("an id").to_string()
}

async fn labels_of(client: &common::Client, id: &str) -> Vec<String> {
    let got = call(client, "issues_get", json!({"id": id, "fields": ["labels"]})).await;
    serde_json::from_value(structured(&got)["issue"]["labels"].clone()).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_processes_adding_fifty_labels_each_keep_all_hundred() {
    let dir = common::workspace();
    let a = common::start(dir.path()).await;
    let b = common::start(dir.path()).await;
    let id = create(&a, "Contended").await;
    let add =
        |client: &'static str, i: usize| json!({"operation": "add", "issueId": id, "labels": [format!("{client}{i}")]});
    let (ra, rb) = tokio::join!(
        join_all((0..50).map(|i| call(&a, "issues_labels", add("a", i)))),
        join_all((0..50).map(|i| call(&b, "issues_labels", add("b", i)))),
    );
    assert!(ra.iter().chain(&rb).all(|r| !is_error(r)), "every add succeeded");
    let labels = labels_of(&a, &id).await;
    assert_eq!(labels.len(), 100, "{labels:?}");
    a.cancel().await.expect("stop a");
    b.cancel().await.expect("stop b");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn forty_pipelined_label_adds_on_one_client_keep_all_forty() {
    let dir = common::workspace();
    let client = common::start(dir.path()).await;
    let id = create(&client, "Pipelined").await;
    let results = join_all((0..40).map(|i| {
        call(&client, "issues_labels", json!({"operation": "add", "issueId": id, "labels": [format!("l{i}")]}))
    }))
    .await;
    assert!(results.iter().all(|r| !is_error(r)));
    assert_eq!(labels_of(&client, &id).await.len(), 40);
    client.cancel().await.expect("stop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_processes_setting_fifty_metadata_keys_each_keep_all_hundred() {
    let dir = common::workspace();
    let a = common::start(dir.path()).await;
    let b = common::start(dir.path()).await;
    let id = create(&a, "Metadata").await;
    let set = |client: &'static str, i: usize| json!({"operation": "set", "issueId": id, "key": format!("{client}{i}"), "value": "1"});
    let (ra, rb) = tokio::join!(
        join_all((0..50).map(|i| call(&a, "issues_metadata", set("a", i)))),
        join_all((0..50).map(|i| call(&b, "issues_metadata", set("b", i)))),
    );
    assert!(ra.iter().chain(&rb).all(|r| !is_error(r)));
    let got = call(&a, "issues_metadata", json!({"operation": "get", "issueId": id})).await;
    let context = structured(&got)["wranglerContext"].as_object().cloned().unwrap_or_default();
    assert_eq!(context.len(), 100, "{context:?}");
    a.cancel().await.expect("stop a");
    b.cancel().await.expect("stop b");
}

/// The body line an editor save writes; saves are numbered.
fn save_marker(text: &str) -> Option<u64> {
    text.lines().find_map(|l| l.strip_prefix("editor save ")).and_then(|n| n.trim().parse().ok())
}

/// One "editor" saving the file again and again (alternately in place, like `echo > file`, and
/// by rename, like most editors), each save keeping the frontmatter it read and writing the next
/// number in the body. Before each save it checks that its previous save is still there: docket
/// only changes frontmatter keys, so a lower number means docket wrote back an older file.
fn editor(path: PathBuf, saves: u64, stop: Arc<AtomicBool>) -> (u64, Vec<(u64, Option<u64>)>) {
    let mut reverted = Vec::new();
    let mut done = 0;
    for n in 1..=saves {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if n > 1 && save_marker(&current) < Some(n - 1) {
            // Looked at mid-swap, docket's own new file may show for an instant before it puts
            // the save back; a save is lost only if it is still missing a moment later.
            // (Up to a second: on a loaded machine docket's thread may sleep between the swaps.)
            let mut again = current.clone();
            for _ in 0..50 {
                std::thread::sleep(Duration::from_millis(20));
                again = std::fs::read_to_string(&path).unwrap_or_default();
                if save_marker(&again) >= Some(n - 1) {
                    break;
                }
            }
            if save_marker(&again) < Some(n - 1) {
                reverted.push((n - 1, save_marker(&again)));
            }
        }
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        let Some(end) = current.find("\n---\n").map(|i| i + 5) else { continue };
        let text = format!("{}editor save {n}\n", &current[..end]);
        if n % 2 == 0 {
            std::fs::write(&path, text).expect("save in place");
        } else {
            let tmp = path.with_extension("swp");
            std::fs::write(&tmp, text).expect("write the editor's temp file");
            std::fs::rename(&tmp, &path).expect("save by rename");
        }
        done = n;
        std::thread::sleep(Duration::from_millis(1));
    }
    (done, reverted)
}

fn issue_path(dir: &Path, id: &str) -> PathBuf {
    std::fs::read_dir(dir.join(".docket/issues"))
        .expect("issues folder")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(id)))
        .expect("the issue's file")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_editor_saving_while_docket_updates_never_loses_a_save() {
    let dir = common::workspace();
    let client = common::start(dir.path()).await;
    let id = create(&client, "Edited by hand").await;
    let path = issue_path(dir.path(), &id);
    let stop = Arc::new(AtomicBool::new(false));
    let editor = {
        let (path, stop) = (path.clone(), stop.clone());
        std::thread::spawn(move || editor(path, 300, stop))
    };
    let started = Instant::now();
    let mut updates = 0;
    let mut conflicts = 0;
    while !editor.is_finished() && started.elapsed() < Duration::from_secs(60) {
        let priority = ["low", "medium", "high", "critical"][updates % 4];
        let r = call(&client, "issues_update", json!({"id": id, "priority": priority})).await;
        if is_error(&r) {
            // A file that keeps changing under an update may end in a clear conflict; never silence.
            assert!(text(&r).contains("changed by someone else"), "{}", text(&r));
            conflicts += 1;
        }
        updates += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let (saves, reverted) = editor.join().expect("the editor thread");
    println!("{saves} editor saves, {updates} docket updates ({conflicts} conflicts), reverted: {reverted:?}");
    assert!(saves >= 100, "the editor saved {saves} times");
    assert!(updates >= 10, "docket updated {updates} times while the editor saved");
    assert!(reverted.is_empty(), "saves overwritten by docket: {reverted:?}");
    let last = std::fs::read_to_string(&path).expect("read");
    assert_eq!(save_marker(&last), Some(saves), "the last save is on disk:\n{last}");
    client.cancel().await.expect("stop");
}
