//! Ready semantics chosen per issue: a parent of open work is a container and is not offered
//! (the default), `wranglerContext.container: false` offers it as work all the same, and
//! `container: true` holds back an issue with no children at all; a running server follows
//! each change made by another process.

mod common;

use docket::store::{IssuePatch, IssueType, NewIssue, Priority, Status, Store, StoreOptions, Workspace};
use serde_json::{Map, Value, json};

fn new(title: &str, parent: Option<&str>) -> NewIssue {
    let mut context = Map::new();
    if let Some(p) = parent {
        context.insert("parentTaskId".into(), json!(p));
    }
    NewIssue {
        title: title.into(),
        description: String::new(),
        issue_type: IssueType::Issue,
        status: Status::Open,
        priority: Priority::Medium,
        labels: vec![],
        assignee: None,
        project: None,
        context,
        blocked_by: vec![],
    }
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
    let parent = store.create(new("Parent", None)).unwrap().meta.id;
    let child = store.create(new("Child", Some(&parent))).unwrap().meta.id;
    let lone = store.create(new("Lone", None)).unwrap().meta.id;
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
