//! Values that get written are capped, and the caps hold over a real stdio client: a 10 MB body or
//! assignee, 100,000 labels or a 10 MB label sent to the tools that write them come back as
//! INVALID_ARGUMENT naming the field, and the workspace tree (every path and its bytes, outside
//! `cache/`) is what it was before the call. tests/limits/published_limits.rs proves the same caps are in
//! the published schemas.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::{Client, call, is_error, snapshot, snapshot_diff, start, structured, text, workspace};
use serde_json::{Value, json};

/// A call that takes longer than this is a hang: a server that stalls on a huge value fails the
/// test instead of blocking the run.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

const TEN_MB: usize = 10 * 1024 * 1024;
const LABELS: usize = 100_000;

/// Calls `tool` with an oversize value and checks the answer: INVALID_ARGUMENT, a short message
/// naming the field (`needle`: "field: it has N characters"), and the workspace tree (every path and
/// its bytes outside `cache/`) as it was before the call.
async fn assert_refused(client: &Client, root: &Path, tool: &str, args: Value, needle: &str) {
    let before = snapshot(root);
    let r = tokio::time::timeout(CALL_TIMEOUT, call(client, tool, args))
        .await
        .unwrap_or_else(|_| panic!("{tool} {needle}: no answer within {CALL_TIMEOUT:?}"));
    let answer = text(&r);
    assert!(is_error(&r), "{tool} took it: {needle}");
    assert!(answer.starts_with("INVALID_ARGUMENT"), "{tool} {needle}: {}", &answer[..answer.len().min(300)]);
    assert!(answer.contains(&format!("Invalid {needle}")), "{tool}: the error names the field ({needle}): {answer}");
    assert!(answer.len() < 4_000, "{tool} {needle}: {} bytes of error text", answer.len());
    let after = snapshot(root);
    assert!(after == before, "{tool} {needle} changed the workspace: {:?}", snapshot_diff(&before, &after));
}

/// `(tool, arguments, what the error must say)` for `issue` (an existing ID).
fn oversize_writes(issue: &str) -> Vec<(&'static str, Value, String)> {
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
        ("issues_create", create("description", json!(huge)), format!("description: it has {TEN_MB} characters")),
        ("issues_create", create("assignee", json!(huge)), format!("assignee: it has {TEN_MB} characters")),
        ("issues_create", create("labels", json!(many)), format!("labels: it has {LABELS} items")),
        ("issues_create", create("labels", json!([huge])), format!("labels[0]: it has {TEN_MB} characters")),
        ("issues_update", update("description", json!(huge)), format!("description: it has {TEN_MB} characters")),
        ("issues_update", update("assignee", json!(huge)), format!("assignee: it has {TEN_MB} characters")),
        ("issues_update", update("labels", json!(many)), format!("labels: it has {LABELS} items")),
        ("issues_update", update("labels", json!([huge])), format!("labels[0]: it has {TEN_MB} characters")),
        (
            "issues_labels",
            json!({"operation": "add", "issueId": issue, "labels": many}),
            format!("labels: it has {LABELS} items"),
        ),
        (
            "issues_projects",
            json!({"operation": "add", "issueId": issue, "project": huge}),
            format!("project: it has {TEN_MB} characters"),
        ),
        (
            "issues_metadata",
            json!({"operation": "set", "issueId": issue, "key": "k", "value": huge}),
            format!("value: it has {TEN_MB} characters"),
        ),
        ("issues_mark_complete", json!({"id": issue, "note": huge}), format!("note: it has {TEN_MB} characters")),
        (
            "issues_update_batch",
            json!({"updates": [{"id": issue, "assignee": huge}]}),
            format!("updates[0].assignee: it has {TEN_MB} characters"),
        ),
        ("issues_claim", json!({"id": issue, "assignee": huge}), format!("assignee: it has {TEN_MB} characters")),
        (
            "errors_resolve",
            json!({"patternId": 1, "resolution": huge}),
            format!("resolution: it has {TEN_MB} characters"),
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
    for (tool, args, needle) in oversize_writes(&issue) {
        assert_refused(&client, ws.path(), tool, args, &needle).await;
    }
    // The caps leave room for ordinary values: the largest allowed still goes through.
    let body = "b".repeat(1_000_000);
    let labels: Vec<String> = (0..50).map(|i| format!("{i:0>100}")).collect();
    let args = json!({"id": issue, "description": body, "assignee": "x".repeat(200), "labels": labels});
    let r = call(&client, "issues_update", args).await;
    assert!(!is_error(&r), "values at the caps are taken: {}", text(&r));
    client.cancel().await.expect("close");
}

/// The session tools and the nested values (published by name only, enforced all the same).
#[tokio::test]
async fn session_state_and_nested_values_are_capped_too() {
    let ws = workspace();
    std::fs::write(ws.path().join("SPEC.md"), "# Spec").expect("spec file");
    let client = start(ws.path()).await;
    let started = call(&client, "session_start", json!({"specFile": "SPEC.md", "worktree": false})).await;
    assert!(!is_error(&started), "{}", text(&started));
    let id = structured(&started)["session"]["sessionId"].as_str().expect("session id").to_string();
    let seed = call(&client, "issues_create", json!({"title": "Seed", "description": "-"})).await;
    let issue = structured(&seed)["issue"]["id"].as_str().expect("the new issue's id").to_string();
    let huge = "a".repeat(TEN_MB);
    let many: Vec<String> = (0..LABELS).map(|i| format!("t{i}")).collect();
    let checkpoint = |field: &str, value: Value| {
        let mut args = json!({"sessionId": id, "tasksCompleted": [], "tasksPending": [], "lastAction": "a", "resumeInstructions": "r"});
        args[field] = value;
        args
    };
    let cases = [
        (
            "session_phase",
            json!({"sessionId": id, "phase": huge, "status": "started"}),
            format!("phase: it has {TEN_MB} characters"),
        ),
        (
            "session_checkpoint",
            checkpoint("lastAction", json!(huge)),
            format!("lastAction: it has {TEN_MB} characters"),
        ),
        ("session_checkpoint", checkpoint("tasksPending", json!(many)), format!("tasksPending: it has {LABELS} items")),
        (
            // Each with a key the tool does not take: refused whole, not warned about 100,000 times.
            "session_checkpoint",
            checkpoint("stepResults", json!(vec![json!({"stepName": "s", "status": "passed", "extra": 1}); LABELS])),
            format!("stepResults: it has {LABELS} items"),
        ),
        (
            "session_checkpoint",
            checkpoint("stepResults", json!([{"stepName": "build", "status": "passed", "outputSummary": huge}])),
            format!("stepResults[0].outputSummary: it has {TEN_MB} characters"),
        ),
        (
            "session_complete",
            json!({"sessionId": id, "status": "completed", "summary": huge}),
            format!("summary: it has {TEN_MB} characters"),
        ),
        (
            "session_complete",
            json!({"sessionId": id, "status": "completed", "stepExecutionSummary": {"totalSteps": 1, "executed": 1, "skipped": 0, "skippedSteps": many}}),
            format!("stepExecutionSummary.skippedSteps: it has {LABELS} items"),
        ),
        (
            "issues_update",
            json!({"id": issue, "wranglerContext": {"agentId": huge}}),
            format!("wranglerContext.agentId: it has {TEN_MB} characters"),
        ),
    ];
    for (tool, args, needle) in cases {
        assert_refused(&client, ws.path(), tool, args, &needle).await;
    }
    client.cancel().await.expect("close");
}

/// Two values that are only read are capped as well, since what they cost grows with their
/// length: a search query (echoed in the answer) and a section path. An ID has its own limit (100
/// characters), checked when it is looked up, batches included.
#[tokio::test]
async fn a_huge_query_or_section_is_refused_naming_the_field() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let seed =
        call(&client, "issues_create", json!({"title": "Seed", "description": "# A\n\nbody\n\n## B\n\ntext"})).await;
    let issue = structured(&seed)["issue"]["id"].as_str().expect("the new issue's id").to_string();
    let huge = "a".repeat(TEN_MB);
    let cases = [
        ("issues_search", json!({"query": huge}), "query"),
        ("issues_get", json!({"id": issue, "section": huge}), "section"),
        ("issues_get_batch", json!({"ids": [issue], "section": huge}), "section"),
    ];
    for (tool, args, field) in cases {
        assert_refused(&client, ws.path(), tool, args, &format!("{field}: it has {TEN_MB} characters")).await;
    }
    // A field named 100,000 times is searched, and reported, once.
    let r = call(&client, "issues_search", json!({"query": "Seed", "fields": vec!["title"; LABELS]})).await;
    let answer = serde_json::to_string(&r).expect("a result serializes");
    assert!(
        !is_error(&r) && answer.len() < 10_000,
        "a {} byte answer: {}",
        answer.len(),
        &answer[..answer.len().min(300)]
    );
    // A 10 MB ID in a batch is refused for that item, and comes back clipped, promptly.
    let before = snapshot(ws.path());
    for (tool, args) in [
        ("issues_get_batch", json!({"ids": [huge.clone(), issue.clone()]})),
        ("issues_update_batch", json!({"updates": [{"id": huge, "priority": "high"}]})),
    ] {
        let r = tokio::time::timeout(CALL_TIMEOUT, call(&client, tool, args))
            .await
            .unwrap_or_else(|_| panic!("{tool} with a 10 MB ID: no answer within {CALL_TIMEOUT:?}"));
        let answer = serde_json::to_string(&r).expect("a result serializes");
        assert!(answer.len() < 10_000, "{tool}: a {} byte answer to a 10 MB ID", answer.len());
        assert!(answer.contains("longer than 100 characters"), "{tool} says why the ID was refused: {answer}");
    }
    assert!(snapshot(ws.path()) == before, "a refused batch item changed the workspace");
    client.cancel().await.expect("close");
}

/// 100,000 undeclared parameters are ignored in one pass and reported as ten and a count.
#[tokio::test]
async fn a_hundred_thousand_undeclared_parameters_are_counted_not_listed() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let mut args: serde_json::Map<String, Value> = (0..LABELS).map(|i| (format!("k{i}"), json!(1))).collect();
    args.insert("format".into(), json!("minimal"));
    let before = snapshot(ws.path());
    let r = tokio::time::timeout(CALL_TIMEOUT, call(&client, "issues_list", Value::Object(args)))
        .await
        .unwrap_or_else(|_| panic!("100,000 undeclared parameters: no answer within {CALL_TIMEOUT:?}"));
    let answer = serde_json::to_string(&r).expect("a result serializes");
    assert!(!is_error(&r), "{}", text(&r));
    assert!(answer.contains(&format!("{} more undeclared parameters", LABELS - 10)), "{}", text(&r));
    assert!(answer.len() < 20_000, "a {} byte answer", answer.len());
    assert!(snapshot(ws.path()) == before, "ignoring parameters changed the workspace");
    client.cancel().await.expect("close");
}
