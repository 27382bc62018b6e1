//! The issue tools over a real stdio pipe: happy paths and the error paths of the seed's testing
//! strategy (formats, fields, pagination, batches, stats, recovery-grade errors).

use crate::common;

use common::{Client, call, is_error, start, structured, text, workspace};
use serde_json::{Value, json};

async fn create(client: &Client, title: &str, extra: Value) -> String {
    let mut args = json!({"title": title, "description": format!("Body of {title}.")});
    if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
        a.extend(e.clone());
    }
    let r = call(client, "issues_create", args).await;
    assert!(!is_error(&r), "create {title}: {}", text(&r));
    structured(&r)["issue"]["id"].as_str().expect("id").to_string()
}

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default();
    k.sort();
    k
}

#[tokio::test]
async fn list_formats_control_the_fields() {
    let ws = workspace();
    let client = start(ws.path()).await;
    create(&client, "Alpha", json!({"labels": ["a"], "assignee": "ann"})).await;
    let minimal = structured(&call(&client, "issues_list", json!({"format": "minimal"})).await);
    let id = &common::page_records(&minimal)[0]["id"];
    assert_eq!(minimal["rows"], json!([format!("{} open Alpha", id.as_str().expect("id"))]));
    let summary = structured(&call(&client, "issues_list", json!({})).await);
    // Summary rows: priority, labels and the date of the last update only (issues_get has the timestamps).
    let row = summary["rows"][0].as_str().expect("a summary row");
    assert!(
        row.starts_with(&format!("{} open medium Alpha (labels: a; updated 20", id.as_str().expect("id"))),
        "{row}"
    );
    assert!(row.ends_with(')') && row.len() == row.rfind("updated ").expect("date") + "updated ".len() + 11, "{row}");
    // fields: records with exactly those fields.
    let picked = structured(&call(&client, "issues_list", json!({"fields": ["assignee", "labels"]})).await);
    assert_eq!(keys(&picked["issues"][0]), ["assignee", "id", "labels"]);
    let full = structured(&call(&client, "issues_list", json!({"format": "full"})).await);
    assert_eq!(full["issues"][0]["description"], "Body of Alpha.");
    assert_eq!(full["issues"][0]["assignee"], "ann");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn list_pages_first_middle_last_and_full_pages_are_smaller() {
    let ws = workspace();
    let client = start(ws.path()).await;
    for i in 0..27 {
        create(&client, &format!("Task {i:02}"), json!({})).await;
    }
    let first = structured(&call(&client, "issues_list", json!({"format": "minimal"})).await);
    assert_eq!(common::page_records(&first).len(), 25);
    assert_eq!(first["totalCount"], 27);
    let cursor = first["nextCursor"].as_str().expect("cursor");
    let last = structured(&call(&client, "issues_list", json!({"format": "minimal", "cursor": cursor})).await);
    assert_eq!(common::page_records(&last).len(), 2);
    assert!(last.get("nextCursor").is_none());
    let full = structured(&call(&client, "issues_list", json!({"format": "full"})).await);
    assert_eq!(full["issues"].as_array().map(Vec::len), Some(10));
    let mut seen: Vec<Value> = common::page_records(&first);
    seen.extend(common::page_records(&last));
    seen.sort_by_key(|i| i["id"].as_str().unwrap_or_default().to_string());
    seen.dedup();
    assert_eq!(seen.len(), 27, "pages neither overlap nor skip");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn garbage_cursor_says_to_restart_without_one() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let r = call(&client, "issues_list", json!({"cursor": "bm9wZQ"})).await;
    assert!(is_error(&r));
    assert!(text(&r).contains("Call issues_list again without cursor"), "{}", text(&r));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn deprecated_offset_still_works_with_a_warning() {
    let ws = workspace();
    let client = start(ws.path()).await;
    for i in 0..3 {
        create(&client, &format!("T{i}"), json!({})).await;
    }
    let r = call(&client, "issues_list", json!({"offset": 2})).await;
    assert_eq!(common::page_records(&structured(&r)).len(), 1);
    let meta = serde_json::to_value(&r.meta).expect("meta");
    assert_eq!(meta["warnings"][0]["code"], "DEPRECATED_PARAMETER");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn get_with_fields_returns_only_those() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let id = create(&client, "Scoped", json!({"labels": ["x"]})).await;
    let r = call(&client, "issues_get", json!({"id": id, "fields": ["status", "labels"]})).await;
    assert_eq!(keys(&structured(&r)["issue"]), ["id", "labels", "status"]);
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn search_ranks_title_hits_first_and_covers_every_issue() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let body_hit = create(&client, "Refactor parser", json!({"description": "The tokenizer needs a rewrite."})).await;
    for i in 0..110 {
        create(&client, &format!("Filler {i}"), json!({})).await;
    }
    let title_hit = create(&client, "Tokenizer crashes on emoji", json!({})).await;
    let r = call(&client, "issues_search", json!({"query": "tokenizer", "includeDescription": true})).await;
    let found = structured(&r);
    assert_eq!(found["totalCount"], 2, "{}", text(&r));
    assert_eq!(found["issues"][0]["id"], title_hit.as_str());
    assert_eq!(found["issues"][1]["id"], body_hit.as_str(), "the oldest issue is still searched");
    assert!(found["issues"][1]["excerpt"].as_str().is_some_and(|e| e.to_lowercase().contains("tokenizer")));
    let plain = structured(&call(&client, "issues_search", json!({"query": "tokenizer"})).await);
    assert!(
        plain.get("issues").is_none() && !plain.to_string().contains("excerpt"),
        "no excerpt unless includeDescription"
    );
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn update_reports_changes_and_closing_archives_the_file() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let id = create(&client, "Archive me", json!({})).await;
    let r = call(&client, "issues_update", json!({"id": id, "status": "closed", "priority": "high"})).await;
    assert!(!is_error(&r), "{}", text(&r));
    let mut changed: Vec<String> = serde_json::from_value(structured(&r)["changed"].clone()).expect("changed");
    changed.sort();
    assert_eq!(changed, ["priority", "status"]);
    let archived = std::fs::read_dir(ws.path().join(".docket/issues/archived")).expect("archived dir").count();
    assert_eq!(archived, 1, "closed issue moved to archived/");
    let reopened = call(&client, "issues_update", json!({"id": id, "status": "open"})).await;
    assert!(!is_error(&reopened), "{}", text(&reopened));
    assert_eq!(std::fs::read_dir(ws.path().join(".docket/issues/archived")).expect("dir").count(), 0);
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn delete_requires_confirm_true() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let id = create(&client, "Delete me", json!({})).await;
    let refused = call(&client, "issues_delete", json!({"id": id})).await;
    assert!(is_error(&refused));
    assert!(
        text(&refused).contains(&format!(
            "Cannot delete issue without confirm: true. Pass {{id: '{id}', confirm: true}} to confirm deletion."
        )),
        "{}",
        text(&refused)
    );
    let deleted = call(&client, "issues_delete", json!({"id": id, "confirm": true})).await;
    assert!(!is_error(&deleted), "{}", text(&deleted));
    assert!(is_error(&call(&client, "issues_get", json!({"id": id})).await));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn duplicate_title_names_the_existing_issue() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let id = create(&client, "Same title", json!({})).await;
    let r = call(&client, "issues_create", json!({"title": "same title ", "description": "again"})).await;
    assert!(is_error(&r));
    assert!(
        text(&r).contains(&format!(
            "An issue with this title already exists ({id}, no project, created in the last 10 minutes): this looks like a retry. Use issues_update to modify {id}"
        )),
        "{}",
        text(&r)
    );
    client.cancel().await.expect("close");
}

/// writing-plans names tasks "Task 1: ..." in every plan: the same title in another project or
/// under another parent is a new issue; the retry protection stays within one project.
#[tokio::test]
async fn a_title_may_repeat_in_another_project_or_under_another_parent() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let title = "Task 1: set up the crate";
    let first = create(&client, title, json!({"project": "plan-a"})).await;
    let other_project = create(&client, title, json!({"project": "plan-b"})).await;
    assert_ne!(first, other_project);
    let parent = create(&client, "Plan C", json!({})).await;
    let under_parent = create(&client, title, json!({"wranglerContext": {"parentTaskId": parent.clone()}})).await;
    assert_ne!(under_parent, first);
    let retried =
        call(&client, "issues_create", json!({"title": title, "description": "x", "project": "plan-a"})).await;
    assert!(is_error(&retried));
    assert!(text(&retried).contains(&format!("({first}, project plan-a,")), "{}", text(&retried));
    let retried = call(
        &client,
        "issues_create",
        json!({"title": title, "description": "x", "wranglerContext": {"parentTaskId": parent}}),
    )
    .await;
    assert!(text(&retried).contains(&format!("({under_parent}, parent ")), "{}", text(&retried));
    client.cancel().await.expect("close");
}

/// The retry window is measured from the existing issue's createdAt: an old open issue with
/// the same title does not block a new one.
#[tokio::test]
async fn an_old_issue_with_the_same_title_does_not_block_a_new_one() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let old = create(&client, "Recurring chore", json!({})).await;
    client.cancel().await.expect("close");
    // Backdate it by hand, as if it were created yesterday.
    let file = std::fs::read_dir(ws.path().join(".docket/issues"))
        .expect("issues")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains(&old))
        .expect("file");
    let text_before = std::fs::read_to_string(&file).expect("read");
    let created = text_before.lines().find(|l| l.starts_with("createdAt:")).expect("createdAt").to_string();
    std::fs::write(&file, text_before.replace(&created, "createdAt: '2020-01-01T00:00:00.000Z'")).expect("write");
    let client = start(ws.path()).await;
    let again = create(&client, "Recurring chore", json!({})).await;
    assert_ne!(again, old);
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn get_batch_returns_partial_results_with_not_found() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let a = create(&client, "A", json!({})).await;
    let b = create(&client, "B", json!({})).await;
    let r = call(&client, "issues_get_batch", json!({"ids": [a, "ISS-000777", b], "fields": ["title"]})).await;
    let out = structured(&r);
    assert_eq!(out["issues"].as_array().map(Vec::len), Some(2));
    assert_eq!(out["notFound"], json!(["ISS-000777"]));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn get_batch_rejects_empty_and_oversize_arrays() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let empty = call(&client, "issues_get_batch", json!({"ids": []})).await;
    assert!(is_error(&empty));
    assert!(
        text(&empty).contains("Invalid ids: it has 0 items and must have between 1 and 50 items"),
        "{}",
        text(&empty)
    );
    let ids: Vec<String> = (1..=51).map(|i| format!("ISS-{i:06}")).collect();
    let over = call(&client, "issues_get_batch", json!({"ids": ids})).await;
    assert!(text(&over).contains("it has 51 items"), "{}", text(&over));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn update_batch_applies_each_item_on_its_own() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let a = create(&client, "A", json!({})).await;
    let b = create(&client, "B", json!({})).await;
    let r = call(
        &client,
        "issues_update_batch",
        json!({"updates": [{"id": a, "status": "in_progress"}, {"id": "ISS-000404", "status": "closed"}, {"id": b, "labels": ["x"]}]}),
    )
    .await;
    assert!(!is_error(&r), "{}", text(&r));
    let out = structured(&r);
    assert_eq!((out["succeeded"].as_i64(), out["failed"].as_i64()), (Some(2), Some(1)));
    assert_eq!(out["updated"], json!([a, b]));
    assert_eq!(out["errors"][0]["id"], "ISS-000404");
    assert!(out["errors"][0]["error"].as_str().is_some_and(|e| e.contains("Issue not found: ISS-000404")));
    assert!(text(&r).contains("Updated 2: ") && text(&r).contains("Failed ISS-000404: "), "{}", text(&r));
    let got = structured(&call(&client, "issues_get", json!({"id": b, "fields": ["labels"]})).await);
    assert_eq!(got["issue"]["labels"], json!(["x"]));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn stats_group_by_every_field() {
    let ws = workspace();
    let client = start(ws.path()).await;
    create(&client, "A", json!({"priority": "high", "project": "p1", "assignee": "ann"})).await;
    create(&client, "B", json!({"priority": "high", "status": "in_progress"})).await;
    create(&client, "C", json!({"type": "idea"})).await;
    let expect = [
        ("status", json!([{"key": "open", "count": 2}, {"key": "in_progress", "count": 1}])),
        ("priority", json!([{"key": "high", "count": 2}, {"key": "medium", "count": 1}])),
        ("project", json!([{"key": "(none)", "count": 2}, {"key": "p1", "count": 1}])),
        ("assignee", json!([{"key": "(none)", "count": 2}, {"key": "ann", "count": 1}])),
        ("type", json!([{"key": "issue", "count": 2}, {"key": "idea", "count": 1}])),
    ];
    for (group_by, groups) in expect {
        let out = structured(&call(&client, "issues_stats", json!({"groupBy": group_by})).await);
        assert_eq!(out["groups"], groups, "groupBy {group_by}");
        assert_eq!(out["total"], 3);
    }
    let filtered = structured(&call(&client, "issues_stats", json!({"groupBy": "status", "priority": ["high"]})).await);
    assert_eq!(filtered["total"], 2);
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn labels_projects_and_metadata_operations() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let id = create(&client, "Meta", json!({"labels": ["a"]})).await;
    let added = structured(
        &call(&client, "issues_labels", json!({"operation": "add", "issueId": id, "labels": ["b", "a"]})).await,
    );
    assert_eq!(added["issueLabels"], json!(["a", "b"]));
    let listed = structured(&call(&client, "issues_labels", json!({"operation": "list"})).await);
    assert_eq!(listed["labels"], json!([{"key": "a", "count": 1}, {"key": "b", "count": 1}]));
    let missing = call(&client, "issues_labels", json!({"operation": "add", "labels": ["c"]})).await;
    assert!(text(&missing).contains("Operation 'add' of issues_labels needs 'issueId'"), "{}", text(&missing));

    let project = structured(
        &call(&client, "issues_projects", json!({"operation": "add", "issueId": id, "project": "core"})).await,
    );
    assert_eq!(project["project"], "core");
    let cleared = structured(&call(&client, "issues_projects", json!({"operation": "remove", "issueId": id})).await);
    assert!(cleared.get("project").is_none());

    let set = structured(
        &call(
            &client,
            "issues_metadata",
            json!({"operation": "set", "issueId": id, "key": "reviewer", "value": {"name": "bo"}}),
        )
        .await,
    );
    assert_eq!(set["wranglerContext"]["reviewer"], json!({"name": "bo"}));
    let removed = structured(
        &call(&client, "issues_metadata", json!({"operation": "remove", "issueId": id, "key": "reviewer"})).await,
    );
    assert!(removed["wranglerContext"].get("reviewer").is_none());
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn mark_complete_closes_and_appends_notes_and_all_complete_agrees() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let a = create(&client, "A", json!({"wranglerContext": {"parentTaskId": "SPEC-000001"}})).await;
    let b = create(&client, "B", json!({"wranglerContext": {"parentTaskId": "SPEC-000001"}})).await;
    let pending = structured(&call(&client, "issues_all_complete", json!({"parentTaskId": "SPEC-000001"})).await);
    assert_eq!(pending["allComplete"], false);
    assert_eq!(pending["incomplete"].as_array().map(Vec::len), Some(2));
    for id in [&a, &b] {
        let r = call(&client, "issues_mark_complete", json!({"id": id, "note": "Done and tested."})).await;
        assert!(!is_error(&r), "{}", text(&r));
    }
    let body = structured(&call(&client, "issues_get", json!({"id": a, "fields": ["description", "status"]})).await);
    assert_eq!(body["issue"]["status"], "closed");
    let description = body["issue"]["description"].as_str().unwrap_or_default();
    assert!(description.starts_with("Body of A.\n\n---\n**Completion Notes ("), "{description}");
    assert!(description.ends_with("):**\nDone and tested."), "{description}");
    let done = structured(&call(&client, "issues_all_complete", json!({"parentTaskId": "SPEC-000001"})).await);
    assert_eq!(done["allComplete"], true);
    assert_eq!(done["total"], 2);
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn empty_workspace_lists_nothing_clearly() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let r = call(&client, "issues_list", json!({})).await;
    assert_eq!(structured(&r)["totalCount"], 0);
    assert_eq!(text(&r), "No issues match.");
    client.cancel().await.expect("close");
}

/// A scope with more unfinished issues than one answer shows: the first 50 (in list order), the
/// exact count, and an issues_list call that pages through every one of them.
#[tokio::test]
async fn all_complete_shows_the_first_unfinished_and_names_the_call_for_the_rest() {
    let dir = tempfile::tempdir().expect("tmp");
    docket::store::generate::generate_workspace(dir.path(), 600, 5);
    let client = start(dir.path()).await;
    let r = call(&client, "issues_all_complete", json!({"labels": ["bug"]})).await;
    assert!(!is_error(&r), "{}", text(&r));
    let sc = structured(&r);
    let count = sc["incompleteCount"].as_i64().expect("incompleteCount");
    assert!(count > 50, "the generated workspace has more than 50 unfinished bugs: {sc}");
    assert!(sc["total"].as_i64() > Some(count), "some bugs are finished: {sc}");
    assert_eq!(sc["allComplete"], false);
    let shown = sc["incomplete"].as_array().expect("incomplete");
    assert_eq!(shown.len(), 50);
    let next = sc["next"].as_str().expect("next names the rest");
    assert!(next.starts_with(&format!("{} more not complete: issues_list ", count - 50)), "{next}");
    assert!(text(&r).contains(next), "the text view names the same call: {}", text(&r));
    // The named call, followed, lists exactly the unfinished bugs, the shown ones first.
    let args: Value = serde_json::from_str(&next[next.find('{').expect("args")..next.rfind('}').expect("args") + 1])
        .expect("the call's arguments are JSON");
    let mut ids = Vec::new();
    let mut args = args.as_object().expect("object").clone();
    args.insert("limit".into(), json!(100));
    loop {
        let page = structured(&call(&client, "issues_list", Value::Object(args.clone())).await);
        assert_eq!(page["totalCount"].as_i64(), Some(count), "{page}");
        ids.extend(common::page_records(&page).iter().map(|r| r["id"].as_str().expect("id").to_string()));
        match page["nextCursor"].as_str() {
            Some(c) => args.insert("cursor".into(), json!(c)),
            None => break,
        };
    }
    assert_eq!(ids.len() as i64, count);
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), ids.len(), "each unfinished bug is listed once: {ids:?}");
    let first: Vec<&str> = shown.iter().map(|r| r["id"].as_str().expect("id")).collect();
    assert_eq!(ids[..50].iter().map(String::as_str).collect::<Vec<_>>(), first);
    // Named IDs bound the answer themselves: all of them are shown.
    let r = structured(&call(&client, "issues_all_complete", json!({"issueIds": ids})).await);
    assert_eq!(r["incompleteCount"].as_i64(), Some(count));
    assert_eq!(r["incomplete"].as_array().map(Vec::len), Some(ids.len()));
    assert!(r.get("next").is_none(), "{r}");
    client.cancel().await.expect("close");
}

/// `issues_labels` list names one issue's labels when given its ID (as wrangler answers), and
/// every label with its count without one.
#[tokio::test]
async fn labels_list_with_an_issue_id_names_that_issues_labels() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let a = create(&client, "A", json!({"labels": ["api", "bug"]})).await;
    create(&client, "B", json!({"labels": ["docs"]})).await;
    let r = call(&client, "issues_labels", json!({"operation": "list", "issueId": a})).await;
    assert!(!is_error(&r), "{}", text(&r));
    let sc = structured(&r);
    assert_eq!((&sc["issueId"], &sc["issueLabels"]), (&json!(a), &json!(["api", "bug"])), "{sc}");
    assert!(sc.get("labels").is_none(), "{sc}");
    assert_eq!(text(&r), format!("{a} labels: api, bug"));
    let all = structured(&call(&client, "issues_labels", json!({"operation": "list"})).await);
    let keys: Vec<&str> = all["labels"].as_array().expect("labels").iter().filter_map(|l| l["key"].as_str()).collect();
    assert_eq!(keys.len(), 3, "{all}");
    let missing = call(&client, "issues_labels", json!({"operation": "list", "issueId": "ISS-999999"})).await;
    assert!(is_error(&missing) && text(&missing).contains("ISS-999999"), "{}", text(&missing));
    client.cancel().await.expect("close");
}
