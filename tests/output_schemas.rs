//! Every tool, called with valid input over stdio, returns structuredContent that validates
//! against the outputSchema it publishes (JSON Schema 2020-12), and every published schema is
//! itself a valid schema.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{Client, call, is_error, start, structured, text, workspace};
use serde_json::{Value, json};

struct Checker {
    schemas: BTreeMap<String, Value>,
    checked: BTreeSet<String>,
}

impl Checker {
    async fn new(client: &Client) -> Checker {
        let mut schemas = BTreeMap::new();
        for tool in client.list_all_tools().await.expect("tools/list") {
            let json = serde_json::to_value(&tool).expect("tool");
            for key in ["inputSchema", "outputSchema"] {
                if let Err(e) = jsonschema::meta::validate(&json[key]) {
                    panic!("{} {key} is not a valid JSON Schema: {e}", tool.name);
                }
            }
            schemas.insert(tool.name.to_string(), json["outputSchema"].clone());
        }
        Checker { schemas, checked: BTreeSet::new() }
    }

    /// Calls `tool`, requires success, validates structuredContent; returns it.
    async fn check(&mut self, client: &Client, tool: &str, args: Value) -> Value {
        let r = call(client, tool, args.clone()).await;
        assert!(!is_error(&r), "{tool} {args} failed: {}", text(&r));
        let meta = serde_json::to_value(&r.meta).expect("meta");
        for key in [
            "tokens",
            "duration_ms",
            "timestamp",
            "request_id",
            "tool_version",
            "warnings",
            "cached",
            "index_size",
            "index_last_updated",
        ] {
            assert!(meta.get(key).is_some(), "{tool}: _meta.{key} missing in {meta}");
        }
        let data = structured(&r);
        let validator = jsonschema::validator_for(&self.schemas[tool]).expect("schema compiles");
        let problems: Vec<String> =
            validator.iter_errors(&data).map(|e| format!("{e} at {}", e.instance_path())).collect();
        assert!(
            problems.is_empty(),
            "{tool} {args}: structuredContent does not match outputSchema:\n{}\n{data}",
            problems.join("\n")
        );
        self.checked.insert(tool.to_string());
        data
    }
}

#[tokio::test]
async fn every_tools_structured_content_matches_its_output_schema() {
    let ws = workspace();
    std::fs::write(ws.path().join("SPEC.md"), "# Spec").expect("spec");
    let client = start(ws.path()).await;
    let mut c = Checker::new(&client).await;

    let a = c
        .check(&client, "issues_create", json!({"title": "Alpha", "description": "Alpha body with webhook", "labels": ["x"], "wranglerContext": {"agentId": "me", "parentTaskId": "SPEC-000001"}}))
        .await["issue"]["id"]
        .as_str()
        .expect("id")
        .to_string();
    let b = c
        .check(&client, "issues_create", json!({"title": "Beta", "description": "Beta", "type": "specification"}))
        .await["issue"]["id"]
        .as_str()
        .expect("id")
        .to_string();
    for format in ["minimal", "summary", "full"] {
        c.check(&client, "issues_list", json!({"format": format, "response_format": "json"})).await;
    }
    c.check(&client, "issues_list", json!({"limit": 1})).await;
    c.check(
        &client,
        "issues_search",
        json!({"query": "webhook", "includeDescription": true, "filters": {"status": ["open"]}}),
    )
    .await;
    c.check(&client, "issues_get", json!({"id": a})).await;
    // An ignored parameter adds `warnings` to structuredContent; the schema must allow it.
    let warned = c.check(&client, "issues_search", json!({"query": "webhook", "type": "specification"})).await;
    assert!(warned["warnings"][0].as_str().is_some_and(|w| w.contains("'type'")), "{warned}");
    c.check(&client, "init_workspace", json!({})).await;
    c.check(&client, "init_workspace", json!({"fix": true})).await;
    c.check(&client, "issues_get", json!({"id": a, "fields": ["dates", "wranglerContext"]})).await;
    c.check(&client, "issues_update", json!({"id": a, "priority": "high", "assignee": "ann", "project": "core"})).await;
    c.check(&client, "issues_labels", json!({"operation": "list"})).await;
    c.check(&client, "issues_labels", json!({"operation": "add", "issueId": a, "labels": ["y"]})).await;
    c.check(&client, "issues_metadata", json!({"operation": "set", "issueId": a, "key": "k", "value": [1, 2]})).await;
    c.check(&client, "issues_metadata", json!({"operation": "get", "issueId": a})).await;
    c.check(&client, "issues_projects", json!({"operation": "list"})).await;
    c.check(&client, "issues_projects", json!({"operation": "remove", "issueId": a})).await;
    c.check(&client, "issues_all_complete", json!({"parentTaskId": "SPEC-000001"})).await;
    c.check(&client, "issues_get_batch", json!({"ids": [a, b, "ISS-000999"], "fields": ["title"]})).await;
    c.check(
        &client,
        "issues_update_batch",
        json!({"updates": [{"id": a, "status": "in_progress"}, {"id": "ISS-000999", "status": "open"}]}),
    )
    .await;
    for group_by in ["status", "priority", "project", "assignee", "type"] {
        c.check(&client, "issues_stats", json!({"groupBy": group_by})).await;
    }
    c.check(&client, "issues_mark_complete", json!({"id": b, "note": "done"})).await;

    let session = c.check(&client, "session_start", json!({"specFile": "SPEC.md", "skipStepNames": ["lint"]})).await["session"]["sessionId"]
        .as_str()
        .expect("session id")
        .to_string();
    c.check(
        &client,
        "session_phase",
        json!({"sessionId": session, "phase": "plan", "status": "started", "metadata": {"n": 1}}),
    )
    .await;
    c.check(
        &client,
        "session_checkpoint",
        json!({"sessionId": session, "tasksCompleted": [a], "tasksPending": [], "lastAction": "x", "resumeInstructions": "y",
               "variables": {"v": true}, "stepResults": [{"stepName": "test", "status": "passed"}]}),
    )
    .await;
    c.check(&client, "session_get", json!({"sessionId": session})).await;
    c.check(&client, "session_status", json!({"sessionId": session})).await;
    c.check(
        &client,
        "session_complete",
        json!({"sessionId": session, "status": "failed", "prUrl": "https://example.invalid/pr/1", "prNumber": 1,
               "stepExecutionSummary": {"totalSteps": 3, "executed": 2, "skipped": 1, "skippedSteps": ["lint"]}}),
    )
    .await;
    let refused = call(&client, "issues_delete", json!({"id": a})).await;
    assert!(is_error(&refused));
    let recent = client
        .read_resource(rmcp::model::ReadResourceRequestParams::new("docket://errors/recent"))
        .await
        .expect("errors/recent");
    let recent: Value = serde_json::from_str(
        serde_json::to_value(&recent).expect("json")["contents"][0]["text"].as_str().expect("text"),
    )
    .expect("json");
    let pattern = recent["patterns"][0]["id"].as_i64().expect("a recorded pattern");
    c.check(&client, "errors_resolve", json!({"patternId": pattern, "resolution": "Pass confirm: true."})).await;
    c.check(&client, "workspace_doctor", json!({})).await;
    c.check(&client, "issues_delete", json!({"id": a, "confirm": true})).await;

    let published: BTreeSet<String> = c.schemas.keys().cloned().collect();
    assert_eq!(c.checked, published, "every published tool was called and validated");
    client.cancel().await.expect("close");
}
