//! The facts wrangler's results carry, in docket's shapes (issue 40): each test makes the calls
//! of one of wrangler's own tests (bacchus-labs/wrangler at b02bd5f, `mcp/__tests__/`, named on
//! each) over stdio and checks the same facts in structuredContent and in the text.

use crate::common;

use common::{Client, call, is_error, start, structured, text, workspace};
use serde_json::{Value, json};

/// Calls `tool` and returns (structuredContent, text); fails on an error result.
async fn ok(client: &Client, tool: &str, args: Value) -> (Value, String) {
    let r = call(client, tool, args).await;
    assert!(!is_error(&r), "{tool}: {}", text(&r));
    (structured(&r), text(&r))
}

/// A full ISO 8601 time, not a date.
fn is_timestamp(v: &Value) -> bool {
    v.as_str()
        .is_some_and(|t| t.len() >= 20 && t.as_bytes()[10] == b'T' && chrono::DateTime::parse_from_rfc3339(t).is_ok())
}

async fn started_session(client: &Client, ws: &std::path::Path) -> String {
    std::fs::write(ws.join("SPEC.md"), "# Spec").expect("spec file");
    let (started, _) = ok(client, "session_start", json!({"specFile": "SPEC.md", "worktree": false})).await;
    started["sessionId"].as_str().expect("sessionId").to_string()
}

/// tools/issues/create.test.ts: the result names the new issue's type and creation time.
#[tokio::test]
async fn issues_create_returns_the_type_and_the_exact_times() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let (created, line) = ok(&client, "issues_create", json!({"title": "Login fails", "description": "Steps."})).await;
    let issue = &created["issue"];
    assert_eq!(issue["type"], "issue", "the default type is named too: {issue}");
    assert!(is_timestamp(&issue["createdAt"]), "{issue}");
    assert!(is_timestamp(&issue["updatedAt"]), "the whole updatedAt, not the date: {issue}");
    let created_at = issue["createdAt"].as_str().expect("createdAt");
    assert_eq!(line, format!("Created issue ISS-000001 open medium Login fails at {created_at}"));

    let (spec, line) =
        ok(&client, "issues_create", json!({"title": "Exports", "description": "x", "type": "specification"})).await;
    assert_eq!(spec["issue"]["type"], "specification");
    assert!(line.starts_with("Created specification SPEC-000001 open medium Exports at "), "{line}");
    client.cancel().await.expect("close");
}

/// tools/session/phase.test.ts: the transition recorded (phase, status, time).
#[tokio::test]
async fn session_phase_returns_the_transition() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let id = started_session(&client, ws.path()).await;
    let (phase, line) =
        ok(&client, "session_phase", json!({"sessionId": id, "phase": "plan", "status": "started"})).await;
    assert_eq!((phase["phase"].as_str(), phase["status"].as_str()), (Some("plan"), Some("started")));
    assert!(is_timestamp(&phase["timestamp"]), "{phase}");
    assert_eq!(phase["timestamp"], phase["session"]["updatedAt"], "one time for the entry and the session");
    let audit = std::fs::read_to_string(ws.path().join(format!(".docket/sessions/{id}/audit.jsonl"))).expect("audit");
    let last: Value = serde_json::from_str(audit.lines().last().expect("an entry")).expect("JSON");
    assert_eq!(last["timestamp"], phase["timestamp"], "the audit entry's time");
    assert!(line.starts_with(&format!("Phase plan started at {}: ", phase["timestamp"].as_str().unwrap())), "{line}");
    client.cancel().await.expect("close");
}

/// tools/session/checkpoint.test.ts: a checkpoint ID (a new one each time) and the step results.
#[tokio::test]
async fn session_checkpoint_returns_its_id_and_step_results() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let id = started_session(&client, ws.path()).await;
    let (got, _) = ok(&client, "session_get", json!({"sessionId": id})).await;
    assert!(got.get("checkpoint").is_some_and(Value::is_null), "an explicit null before any checkpoint: {got}");

    let steps = json!([{"stepName": "build", "status": "passed"}, {"stepName": "lint", "status": "skipped"}]);
    let args = json!({"sessionId": id, "tasksCompleted": ["ISS-000001"], "tasksPending": [], "lastAction": "built",
        "resumeInstructions": "lint", "stepResults": steps});
    let (first, line) = ok(&client, "session_checkpoint", args.clone()).await;
    let checkpoint_id = first["checkpointId"].as_str().expect("checkpointId");
    assert!(checkpoint_id.starts_with("chk-"), "{first}");
    assert_eq!(first["stepResults"], steps);
    assert!(line.starts_with(&format!("Checkpoint saved: {checkpoint_id}; ")), "{line}");
    assert!(line.ends_with("; Steps reported: 2"), "{line}");
    let (got, _) = ok(&client, "session_get", json!({"sessionId": id})).await;
    assert_eq!(got["checkpoint"]["checkpointId"], checkpoint_id, "the ID saved in checkpoint.json");

    let (second, _) = ok(&client, "session_checkpoint", args).await;
    assert_ne!(second["checkpointId"], first["checkpointId"], "each checkpoint has its own ID");
    client.cancel().await.expect("close");
}

/// tools/session/complete.test.ts: the duration and the step execution summary.
#[tokio::test]
async fn session_complete_returns_the_duration_and_the_step_summary() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let id = started_session(&client, ws.path()).await;
    let summary = json!({"totalSteps": 2, "executed": 1, "skipped": 1, "skippedSteps": ["lint"]});
    let (done, line) = ok(
        &client,
        "session_complete",
        json!({"sessionId": id, "status": "completed", "stepExecutionSummary": summary}),
    )
    .await;
    assert!(done["durationMs"].as_i64().is_some_and(|ms| ms >= 0), "{done}");
    assert_eq!(done["stepExecutionSummary"], summary);
    assert!(line.starts_with(&format!("Session completed: {id}, ")), "{line}");
    assert!(line.contains("; Duration: 0 minutes (") && line.ends_with("; Steps: 1/2 executed, 1 skipped"), "{line}");
    let (plain, _) = ok(&client, "session_complete", json!({"sessionId": id, "status": "failed"})).await;
    assert!(plain.get("stepExecutionSummary").is_none(), "none given, none returned: {plain}");
    client.cancel().await.expect("close");
}

/// tools/session/status.test.ts: phases completed as the audit log shows them, and explicit
/// nulls where there is no checkpoint or blocker.
#[tokio::test]
async fn session_status_reads_phases_from_the_audit_log_and_answers_null_for_what_is_missing() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let id = started_session(&client, ws.path()).await;
    for (phase, status) in [("plan", "complete"), ("execute", "complete"), ("verify", "started")] {
        ok(&client, "session_phase", json!({"sessionId": id, "phase": phase, "status": status})).await;
    }
    let (status, line) = ok(&client, "session_status", json!({"sessionId": id})).await;
    assert_eq!(status["phasesCompleted"], json!(["execute", "plan"]), "tracked phases the log shows complete, sorted");
    assert_eq!(status["session"]["phasesCompleted"], json!(["init", "plan", "execute"]), "context.json's own list");
    assert!(line.contains("Phases Done: execute, plan (from audit log)"), "{line}");
    for key in ["checkpoint", "blocker"] {
        assert!(status.get(key).is_some_and(Value::is_null), "{key}: an explicit null: {status}");
    }
    assert_eq!(status["lastActivity"]["phase"], "verify");
    client.cancel().await.expect("close");
}
