//! Values that get written are capped, and the caps hold over a real stdio client: a 10 MB body or
//! assignee, 100,000 labels or a 10 MB label sent to the tools that write them come back as
//! INVALID_ARGUMENT naming the field, and the workspace tree (every path and its bytes, outside
//! `cache/`) is what it was before the call. tests/published_limits.rs proves the same caps are in
//! the published schemas.

mod common;

use common::{call, is_error, snapshot, snapshot_diff, start, structured, text, workspace};
use serde_json::{Value, json};

const TEN_MB: usize = 10 * 1024 * 1024;
const LABELS: usize = 100_000;

/// `(what, arguments, field the error must name)` for `issue` (an existing ID).
fn oversize_writes(issue: &str) -> Vec<(&'static str, &'static str, Value, String)> {
    let huge = "a".repeat(TEN_MB);
    let many: Vec<String> = (0..LABELS).map(|i| format!("l{i}")).collect();
    let create = |field: &str, value: Value| {
        let mut args = json!({"title": format!("Oversize {field}"), "description": "-"});
        args[field] = value;
        args
    };
    let update = |field: &str, value: Value| {
        let mut args = json!({"id": issue});
        args[field] = value;
        args
    };
    vec![
        (
            "issues_create",
            "description",
            create("description", json!(huge)),
            format!("description: it has {TEN_MB} characters"),
        ),
        ("issues_create", "assignee", create("assignee", json!(huge)), format!("assignee: it has {TEN_MB} characters")),
        ("issues_create", "labels", create("labels", json!(many)), format!("labels: it has {LABELS} items")),
        (
            "issues_create",
            "labels[0]",
            create("labels", json!([huge])),
            format!("labels[0]: it has {TEN_MB} characters"),
        ),
        (
            "issues_update",
            "description",
            update("description", json!(huge)),
            format!("description: it has {TEN_MB} characters"),
        ),
        ("issues_update", "assignee", update("assignee", json!(huge)), format!("assignee: it has {TEN_MB} characters")),
        ("issues_update", "labels", update("labels", json!(many)), format!("labels: it has {LABELS} items")),
        (
            "issues_update",
            "labels[0]",
            update("labels", json!([huge])),
            format!("labels[0]: it has {TEN_MB} characters"),
        ),
        (
            "issues_labels",
            "labels",
            json!({"operation": "add", "issueId": issue, "labels": many}),
            format!("labels: it has {LABELS} items"),
        ),
        (
            "issues_projects",
            "project",
            json!({"operation": "add", "issueId": issue, "project": huge}),
            format!("project: it has {TEN_MB} characters"),
        ),
        (
            "issues_metadata",
            "value",
            json!({"operation": "set", "issueId": issue, "key": "k", "value": huge}),
            format!("value: it has {TEN_MB} characters"),
        ),
        (
            "issues_mark_complete",
            "note",
            json!({"id": issue, "note": huge}),
            format!("note: it has {TEN_MB} characters"),
        ),
        (
            "issues_update_batch",
            "updates[0].assignee",
            json!({"updates": [{"id": issue, "assignee": huge}]}),
            format!("updates[0].assignee: it has {TEN_MB} characters"),
        ),
        (
            "issues_claim",
            "assignee",
            json!({"id": issue, "assignee": huge}),
            format!("assignee: it has {TEN_MB} characters"),
        ),
    ]
}

#[tokio::test]
async fn megabyte_values_and_huge_lists_are_refused_naming_the_field_and_nothing_is_written() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let seed = call(&client, "issues_create", json!({"title": "Seed", "description": "seed body"})).await;
    assert!(!is_error(&seed), "{}", text(&seed));
    let issue = structured(&seed)["issue"]["id"].as_str().expect("the new issue's id").to_string();
    let before = snapshot(ws.path());
    for (tool, field, args, needle) in oversize_writes(&issue) {
        let r = call(&client, tool, args).await;
        let answer = text(&r);
        assert!(is_error(&r), "{tool} took an oversize {field}");
        assert!(answer.starts_with("INVALID_ARGUMENT"), "{tool} {field}: {}", &answer[..answer.len().min(300)]);
        assert!(answer.contains(&format!("Invalid {needle}")), "{tool}: the error names {field}: {answer}");
        assert!(answer.len() < 4_000, "{tool} {field}: {} bytes of error text", answer.len());
        let after = snapshot(ws.path());
        assert!(after == before, "{tool} {field} changed the workspace: {:?}", snapshot_diff(&before, &after));
    }
    // The caps leave room for ordinary values: the largest allowed still goes through.
    let body = "b".repeat(1_000_000);
    let labels: Vec<String> = (0..50).map(|i| format!("{i:0>100}")).collect();
    let args = json!({"id": issue, "description": body, "assignee": "x".repeat(200), "labels": labels});
    let r = call(&client, "issues_update", args).await;
    assert!(!is_error(&r), "values at the caps are taken: {}", text(&r));
    client.cancel().await.expect("close");
}
