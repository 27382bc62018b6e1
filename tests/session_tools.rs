//! The session tools over a real stdio pipe: a whole workflow run and its error paths.

mod common;

use common::{call, is_error, start, structured, text, workspace};
use serde_json::json;

#[tokio::test]
async fn a_session_runs_from_start_to_completion() {
    let ws = workspace();
    std::fs::write(ws.path().join("SPEC.md"), "# Spec").expect("spec file");
    let client = start(ws.path()).await;
    let started = call(&client, "session_start", json!({"specFile": "SPEC.md"})).await;
    assert!(!is_error(&started), "{}", text(&started));
    let id = structured(&started)["session"]["sessionId"].as_str().expect("session id").to_string();
    assert!(text(&started).contains(&format!("Pass sessionId '{id}'")));

    let phase = call(&client, "session_phase", json!({"sessionId": id, "phase": "plan", "status": "complete"})).await;
    assert_eq!(structured(&phase)["session"]["phasesCompleted"], json!(["plan"]));
    let checkpoint = call(
        &client,
        "session_checkpoint",
        json!({"sessionId": id, "tasksCompleted": ["ISS-000001"], "tasksPending": ["ISS-000002"], "lastAction": "wrote tests", "resumeInstructions": "implement ISS-000002"}),
    )
    .await;
    assert!(!is_error(&checkpoint), "{}", text(&checkpoint));

    let got = call(&client, "session_get", json!({})).await;
    let got = structured(&got);
    assert_eq!(got["session"]["sessionId"], id.as_str(), "without sessionId: the most recent incomplete session");
    assert_eq!(got["checkpoint"]["resumeInstructions"], "implement ISS-000002");

    let done = call(
        &client,
        "session_complete",
        json!({"sessionId": id, "status": "completed", "prNumber": 12, "summary": "done"}),
    )
    .await;
    assert_eq!(structured(&done)["session"]["status"], "completed");
    let status = structured(&call(&client, "session_status", json!({})).await);
    assert_eq!(status["session"]["prNumber"], 12);
    assert!(status["durationSeconds"].as_i64().is_some_and(|d| d >= 0));

    let none_left = call(&client, "session_get", json!({})).await;
    assert!(is_error(&none_left));
    assert!(text(&none_left).contains("No incomplete session found. Call session_start"), "{}", text(&none_left));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn session_errors_name_the_next_call() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let missing_spec = call(&client, "session_start", json!({"specFile": "nope.md"})).await;
    assert!(is_error(&missing_spec));
    assert!(text(&missing_spec).contains("nope.md not found"), "{}", text(&missing_spec));
    let unknown = call(
        &client,
        "session_phase",
        json!({"sessionId": "2026-01-01-nogit-abcd", "phase": "plan", "status": "started"}),
    )
    .await;
    assert!(text(&unknown).contains("Session 2026-01-01-nogit-abcd not found. Call session_get"), "{}", text(&unknown));
    let bad_status = call(&client, "session_phase", json!({"sessionId": "x", "phase": "plan", "status": "done"})).await;
    assert!(
        text(&bad_status).contains("Invalid status 'done'. Valid values: started, complete, failed."),
        "{}",
        text(&bad_status)
    );
    client.cancel().await.expect("close");
}
