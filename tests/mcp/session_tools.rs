//! The session tools over a real stdio pipe: a whole workflow run and its error paths.

use crate::common;

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
    assert_eq!(structured(&phase)["session"]["phasesCompleted"], json!(["init", "plan"]));
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
    let status = structured(&call(&client, "session_status", json!({"sessionId": id})).await);
    assert_eq!(status["session"]["prNumber"], 12);
    assert!(status["durationSeconds"].as_i64().is_some_and(|d| d >= 0));
    assert_eq!(status["activeStep"], "complete just completed, waiting for next step");
    assert_eq!(status["auditEntryCount"], 4, "init, plan, checkpoint, complete");

    let none_left = call(&client, "session_get", json!({})).await;
    assert!(!is_error(&none_left), "nothing incomplete is an answer, as wrangler's: {}", text(&none_left));
    assert_eq!(structured(&none_left)["found"], false);
    assert!(text(&none_left).contains("No incomplete sessions found. Call session_start"), "{}", text(&none_left));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn session_errors_name_the_next_call() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let missing_spec = call(&client, "session_start", json!({"specFile": "nope.md"})).await;
    assert!(is_error(&missing_spec));
    assert!(
        text(&missing_spec).contains("Spec file not found: ")
            && text(&missing_spec).contains("nope.md. Pass the spec's ID"),
        "{}",
        text(&missing_spec)
    );
    let unknown = call(
        &client,
        "session_phase",
        json!({"sessionId": "2026-01-01-nogit-abcd", "phase": "plan", "status": "started"}),
    )
    .await;
    assert!(
        text(&unknown).contains("Session not found: 2026-01-01-nogit-abcd. Call session_get"),
        "{}",
        text(&unknown)
    );
    let bad_status = call(&client, "session_phase", json!({"sessionId": "x", "phase": "plan", "status": "done"})).await;
    assert!(
        text(&bad_status).contains("Invalid status 'done'. Valid values: started, complete, failed."),
        "{}",
        text(&bad_status)
    );
    client.cancel().await.expect("close");
}

fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// wrangler's session_start (mcp/src/tools/session/start.ts): a worktree at
/// `.worktrees/{spec name}` on a new branch `wrangler/{spec name}/{session id}`, a suffixed
/// path when that folder exists, and the fields it returns, auditPath included.
#[tokio::test]
async fn session_start_creates_wranglers_worktree_and_branch_in_a_git_repository() {
    let ws = workspace();
    let root = ws.path();
    std::fs::create_dir_all(root.join("specs")).expect("mkdir");
    std::fs::write(root.join("specs/SPEC-000042-Auth System.md"), "# Auth").expect("spec");
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "init"]);
    let client = start(root).await;

    let first = call(&client, "session_start", json!({"specFile": "specs/SPEC-000042-Auth System.md"})).await;
    assert!(!is_error(&first), "{}", text(&first));
    let sc = structured(&first);
    let id = sc["sessionId"].as_str().expect("sessionId").to_string();
    assert_eq!(sc["session"]["sessionId"], id.as_str());
    assert_eq!(sc["worktreeCreated"], true);
    assert_eq!(sc["branchName"], format!("wrangler/auth-system/{id}"));
    assert_eq!((sc["status"].as_str(), sc["currentPhase"].as_str()), (Some("running"), Some("init")));
    let worktree = std::path::PathBuf::from(sc["worktreePath"].as_str().expect("worktreePath"));
    assert!(worktree.ends_with(".worktrees/auth-system"), "{}", worktree.display());
    assert!(worktree.join("specs/SPEC-000042-Auth System.md").is_file(), "the worktree is a checkout");
    assert_eq!(git(&worktree, &["rev-parse", "--abbrev-ref", "HEAD"]), format!("wrangler/auth-system/{id}"));
    let audit = std::path::PathBuf::from(sc["auditPath"].as_str().expect("auditPath"));
    assert!(audit.ends_with(format!(".docket/sessions/{id}/audit.jsonl")) && audit.is_file(), "{}", audit.display());
    let t = text(&first);
    assert!(
        t.contains(&format!("Worktree: {}", worktree.display())) && t.contains("Branch: wrangler/auth-system/"),
        "{t}"
    );

    let second =
        structured(&call(&client, "session_start", json!({"specFile": "specs/SPEC-000042-Auth System.md"})).await);
    let id2 = second["sessionId"].as_str().expect("sessionId");
    let suffix = id2.rsplit('-').next().expect("hex");
    assert!(
        second["worktreePath"].as_str().is_some_and(|p| p.ends_with(&format!(".worktrees/auth-system-{suffix}"))),
        "an existing worktree folder gets the session's suffix: {second}"
    );
    let in_place = structured(
        &call(&client, "session_start", json!({"specFile": "specs/SPEC-000042-Auth System.md", "worktree": false}))
            .await,
    );
    assert_eq!((in_place["worktreeCreated"].as_bool(), in_place["branchName"].as_str()), (Some(false), Some("main")));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn session_start_outside_git_works_in_place_and_says_so() {
    let ws = workspace();
    std::fs::write(ws.path().join("SPEC.md"), "# Spec").expect("spec file");
    let client = start(ws.path()).await;
    let r = call(&client, "session_start", json!({"specFile": "SPEC.md"})).await;
    assert!(!is_error(&r), "{}", text(&r));
    let sc = structured(&r);
    assert_eq!((sc["worktreeCreated"].as_bool(), sc["branchName"].as_str()), (Some(false), Some("current")));
    assert!(text(&r).contains("not in a git repository: no worktree or branch was created"), "{}", text(&r));
    assert!(sc["warnings"][0].as_str().is_some_and(|w| w.contains("not in a git repository")), "{sc}");
    client.cancel().await.expect("close");
}

/// When git refuses the branch (here a branch `wrangler/spec` blocks every `wrangler/spec/...`),
/// the error says so and names the way out, instead of silently working in the main checkout
/// (wrangler's fallback).
#[tokio::test]
async fn session_start_in_a_repository_git_cannot_branch_fails_with_the_next_step() {
    let ws = workspace();
    std::fs::write(ws.path().join("SPEC.md"), "# Spec").expect("spec file");
    git(ws.path(), &["init", "-q"]);
    git(ws.path(), &["add", "-A"]);
    git(ws.path(), &["commit", "-q", "-m", "init"]);
    git(ws.path(), &["branch", "wrangler/spec"]);
    let client = start(ws.path()).await;
    let before = common::snapshot(ws.path());
    let r = call(&client, "session_start", json!({"specFile": "SPEC.md"})).await;
    assert!(is_error(&r), "{}", text(&r));
    assert!(text(&r).contains("git could not create the session worktree"), "{}", text(&r));
    assert!(text(&r).contains("pass worktree: false"), "{}", text(&r));
    let after = common::snapshot(ws.path());
    let sessions: Vec<&String> = after.keys().filter(|k| k.contains("sessions/") && !before.contains_key(*k)).collect();
    assert!(sessions.iter().all(|k| !k.ends_with("context.json")), "no session was recorded: {sessions:?}");
    let in_place = call(&client, "session_start", json!({"specFile": "SPEC.md", "worktree": false})).await;
    assert!(!is_error(&in_place), "{}", text(&in_place));
    client.cancel().await.expect("close");
}
