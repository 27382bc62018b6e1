//! The work graph of issue 41. Whole dependency chains: issues_get names every open blocker down
//! the chain (and what each blocks) and everything the issue holds back down the chain, capped
//! with "+N more"; `docket tree` draws both chains as indented trees. One call, however deep
//! (beads' chains are 10-11). Containers chosen per issue: a parent of open work is not offered
//! as ready (the default), `wranglerContext.container: false` offers it all the same, and
//! `container: true` holds back an issue with no children at all; a running server follows each
//! change made by another process.

use crate::common;

use docket::store::{IssuePatch, IssueType, NewIssue, Priority, Status, Store, StoreOptions, Workspace};
use serde_json::{Map, Value, json};

fn new(title: &str, blocked_by: Vec<String>) -> NewIssue {
    NewIssue {
        title: title.into(),
        description: String::new(),
        issue_type: IssueType::Issue,
        status: Status::Open,
        priority: Priority::Medium,
        labels: vec![],
        assignee: None,
        project: None,
        context: Map::new(),
        blocked_by,
    }
}

fn child_of(parent: &str, title: &str) -> NewIssue {
    let mut issue = new(title, vec![]);
    issue.context.insert("parentTaskId".into(), json!(parent));
    issue
}

/// ISS-000001 <- ISS-000002 <- ... <- ISS-000012: each blocked by the one before.
fn chain_of_twelve(ws: &std::path::Path) -> Vec<String> {
    let store = Store::open(Workspace::at(ws).expect("workspace"), StoreOptions::default());
    let mut ids: Vec<String> = Vec::new();
    for n in 1..=12 {
        let blockers = ids.last().cloned().into_iter().collect();
        ids.push(store.create(new(&format!("Step {n}"), blockers)).expect("create").meta.id);
    }
    ids
}

#[tokio::test(flavor = "multi_thread")]
async fn issues_get_names_the_whole_chain_both_ways_in_one_call() {
    let dir = common::workspace();
    let ids = chain_of_twelve(dir.path());
    let c = common::start(dir.path()).await;
    let last = common::structured(&common::call(&c, "issues_get", json!({"id": ids[11]})).await);
    let mut want = vec![ids[10].clone()];
    want.extend((0..10).rev().map(|n| format!("{} (blocks {})", ids[n], ids[n + 1])));
    assert_eq!(last["issue"]["openBlockers"], json!(want), "{last}");
    let first = common::structured(&common::call(&c, "issues_get", json!({"id": ids[0]})).await);
    let mut want = vec![ids[1].clone()];
    want.extend((2..12).map(|n| format!("{} (via {})", ids[n], ids[n - 1])));
    assert_eq!(first["issue"]["blocks"], json!(want), "{first}");

    // A closed link ends the blocker chain there: what lies behind it holds nothing back.
    let store = Store::open(Workspace::at(dir.path()).expect("workspace"), StoreOptions::default());
    let done = IssuePatch { status: Some(Status::Closed), ..IssuePatch::default() };
    store.update(&ids[5], done).expect("close");
    let last = common::structured(&common::call(&c, "issues_get", json!({"id": ids[11]})).await);
    assert_eq!(last["issue"]["openBlockers"].as_array().map(Vec::len), Some(5), "{last}");
    c.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wide_chain_is_capped_with_how_many_more() {
    let dir = common::workspace();
    let store = Store::open(Workspace::at(dir.path()).expect("workspace"), StoreOptions::default());
    let blockers: Vec<String> = (0..55).map(|n| store.create(new(&format!("B{n}"), vec![])).unwrap().meta.id).collect();
    let held = store.create(new("Held", blockers)).unwrap().meta.id;
    drop(store);
    let c = common::start(dir.path()).await;
    let got = common::structured(&common::call(&c, "issues_get", json!({"id": held})).await);
    let open = got["issue"]["openBlockers"].as_array().expect("openBlockers");
    assert_eq!(open.len(), 51, "{got}");
    assert_eq!(open[50], "+5 more");
    c.cancel().await.unwrap();
}

#[test]
fn docket_tree_draws_both_chains_as_trees() {
    let dir = common::workspace();
    let ids = chain_of_twelve(dir.path());
    let out = common::docket(dir.path(), &["tree", &ids[11]]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("  waits on (the whole chain):\n"), "{text}");
    for (depth, n) in (0..11).rev().enumerate() {
        let line = format!("\n    {}{} open Step {}\n", "  ".repeat(depth), ids[n], n + 1);
        assert!(text.contains(&line), "{line:?} not in:\n{text}");
    }
    let out = common::docket(dir.path(), &["tree", &ids[0]]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("  blocks (the whole chain):\n"), "{text}");
    assert!(text.contains(&format!("\n{}{} open Step 12\n", " ".repeat(4 + 2 * 10), ids[11])), "{text}");
}

fn set_container(store: &Store, id: &str, value: Option<bool>) {
    let patch = match value {
        Some(v) => IssuePatch { set_context: vec![("container".into(), Value::Bool(v))], ..IssuePatch::default() },
        None => IssuePatch { remove_context: vec!["container".into()], ..IssuePatch::default() },
    };
    store.update(id, patch).expect("update");
}

async fn ready(c: &common::Client) -> Vec<String> {
    let out = common::structured(&common::call(c, "issues_ready", json!({})).await);
    let mut ids: Vec<String> = out["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().split(' ').next().unwrap().to_string())
        .collect();
    ids.sort();
    ids
}

#[tokio::test(flavor = "multi_thread")]
async fn containers_are_chosen_per_issue() {
    let dir = common::workspace();
    let store = Store::open(Workspace::at(dir.path()).expect("workspace"), StoreOptions::default());
    let parent = store.create(new("Parent", vec![])).unwrap().meta.id;
    let child = store.create(child_of(&parent, "Child")).unwrap().meta.id;
    let lone = store.create(new("Lone", vec![])).unwrap().meta.id;
    let c = common::start(dir.path()).await;
    assert_eq!(ready(&c).await, [child.clone(), lone.clone()], "a parent of open work is held back");

    set_container(&store, &parent, Some(false));
    assert_eq!(ready(&c).await, [parent.clone(), child.clone(), lone.clone()], "container: false offers it");

    set_container(&store, &lone, Some(true));
    assert_eq!(ready(&c).await, [parent.clone(), child.clone()], "container: true holds it back");

    set_container(&store, &lone, None);
    set_container(&store, &parent, None);
    assert_eq!(ready(&c).await, [child, lone], "without the key, the default again");
    c.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chain_goes_through_parents_too() {
    let dir = common::workspace();
    let store = Store::open(Workspace::at(dir.path()).expect("workspace"), StoreOptions::default());
    let first = store.create(new("First", vec![])).unwrap().meta.id;
    let second = store.create(new("Second", vec![first.clone()])).unwrap().meta.id;
    let epic = store.create(new("Epic", vec![second.clone()])).unwrap().meta.id;
    let task = store.create(child_of(&epic, "Task")).unwrap().meta.id;
    drop(store);
    let c = common::start(dir.path()).await;
    let got = common::structured(&common::call(&c, "issues_get", json!({"id": task})).await);
    let want = json!([format!("{second} (via parent {epic})"), format!("{first} (blocks {second})")]);
    assert_eq!(got["issue"]["openBlockers"], want, "{got}");
    c.cancel().await.unwrap();
}
