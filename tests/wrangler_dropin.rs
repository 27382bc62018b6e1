//! Drop-in, whole (issue 47): what wrangler's own suite (bacchus-labs/wrangler at b02bd5f,
//! `mcp/__tests__/`, named on each test) asks of its server, asked of `docket serve` over stdio.

use crate::common;

use common::{Client, call, is_error, start, text, workspace};
use serde_json::{Value, json};

/// The published inputSchema of every tool, by name.
async fn schemas(client: &Client) -> Vec<(String, Value)> {
    let tools = client.list_all_tools().await.expect("tools/list");
    tools.iter().map(|t| (t.name.to_string(), Value::Object((*t.input_schema).clone()))).collect()
}

fn schema<'a>(all: &'a [(String, Value)], tool: &str) -> &'a Value {
    &all.iter().find(|(n, _)| n == tool).unwrap_or_else(|| panic!("{tool} is published")).1
}

/// tools/workspace/init.test.ts "schema validation", tools/session/complete.test.ts "should
/// reject negative/zero PR number", and the parameters of search.ts and all-complete.ts: every
/// parameter and default wrangler publishes is in docket's schema, and the bounds it sets refuse
/// what wrangler's refuses.
#[tokio::test]
async fn every_parameter_and_default_wrangler_publishes_is_published() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let all = schemas(&client).await;
    let init = schema(&all, "init_workspace");
    assert_eq!(init["properties"]["fix"]["default"], json!(false), "empty params default to fix: false: {init}");
    for param in ["projectRoot", "pluginRoot"] {
        assert_eq!(init["properties"][param]["type"], "string", "init_workspace.{param}: {init}");
    }
    let valid = jsonschema::validator_for(init).expect("compiles");
    assert!(valid.is_valid(&json!({"projectRoot": "/some/path"})) && valid.is_valid(&json!({"pluginRoot": "/p"})));
    assert!(!valid.is_valid(&json!({"fix": "yes"})));

    let complete = schema(&all, "session_complete");
    let valid = jsonschema::validator_for(complete).expect("compiles");
    let args = |n: i64| json!({"sessionId": "s", "status": "completed", "prNumber": n});
    assert!(valid.is_valid(&args(1)), "{complete}");
    for n in [0, -1] {
        assert!(!valid.is_valid(&args(n)), "prNumber {n} is refused by the schema: {complete}");
    }

    let search = schema(&all, "issues_search");
    assert_eq!(search["properties"]["sortBy"]["enum"], json!(["created", "updated", "priority", "status"]));
    assert_eq!(search["properties"]["sortOrder"]["enum"], json!(["asc", "desc"]));
    let scope = schema(&all, "issues_all_complete");
    for param in ["issueIds", "parentTaskId", "labels", "project", "types"] {
        assert!(scope["properties"].get(param).is_some(), "issues_all_complete.{param}: {scope}");
    }
    let start = schema(&all, "session_start");
    for param in ["specFile", "workingDirectory", "workflow", "skipChecks", "skipStepNames"] {
        assert!(start["properties"].get(param).is_some(), "session_start.{param}: {start}");
    }
    client.cancel().await.expect("close");
}

/// tools/workspace/init.test.ts "initWorkspaceTool returns an error when projectRoot is a system
/// directory" and "resolvePluginRoot throws when given a system directory": refused, naming the
/// field, saying it is a system directory and what to call instead; nothing is written.
#[tokio::test]
async fn init_workspace_refuses_system_directories_as_wrangler_does() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let before = common::snapshot(ws.path());
    let up = format!("{}/../../../../../../../..", ws.path().display());
    for (param, path) in [
        ("projectRoot", "/etc"),
        ("projectRoot", "/usr/"),
        ("projectRoot", "/"),
        ("projectRoot", up.as_str()),
        ("pluginRoot", "/var"),
    ] {
        for fix in [false, true] {
            let r = call(&client, "init_workspace", json!({ param: path, "fix": fix })).await;
            let answer = text(&r);
            assert!(is_error(&r), "{param} {path}: {answer}");
            assert!(
                answer.starts_with(&format!("INVALID_ARGUMENT: {param} '{path}' is a system directory")),
                "{answer}"
            );
            assert!(answer.contains("Call init_workspace again"), "the next step: {answer}");
        }
    }
    assert_eq!(common::snapshot(ws.path()), before, "nothing written");
    let r = call(&client, "init_workspace", json!({"projectRoot": ws.path().display().to_string()})).await;
    assert!(!is_error(&r), "the served root itself is fine: {}", text(&r));
    client.cancel().await.expect("close");
}

/// tools/session/complete.test.ts "should reject negative/zero PR number": the server refuses
/// them too, naming the field and the value to send.
#[tokio::test]
async fn session_complete_refuses_a_pr_number_below_1() {
    let ws = workspace();
    let client = start(ws.path()).await;
    std::fs::write(ws.path().join("SPEC.md"), "# Spec").expect("spec file");
    let started = call(&client, "session_start", json!({"specFile": "SPEC.md", "worktree": false})).await;
    let id = common::structured(&started)["sessionId"].as_str().expect("sessionId").to_string();
    for n in [0, -1] {
        let r = call(&client, "session_complete", json!({"sessionId": id, "status": "completed", "prNumber": n})).await;
        assert_eq!(
            text(&r),
            format!("INVALID_ARGUMENT: Invalid prNumber {n}: must be at least 1. Call again with prNumber at least 1.")
        );
    }
    let r = call(&client, "session_complete", json!({"sessionId": id, "status": "completed", "prNumber": 1})).await;
    assert!(!is_error(&r), "{}", text(&r));
    client.cancel().await.expect("close");
}
