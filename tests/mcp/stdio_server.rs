//! The server as its users meet it: the real binary over a real stdio pipe, driven by rmcp's client.

use crate::common;

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use common::{call, is_error, start, structured, text, workspace};
use serde_json::{Value, json};

const READ_ONLY: &[&str] = &[
    "issues_list",
    "issues_search",
    "issues_get",
    "issues_get_batch",
    "issues_stats",
    "issues_all_complete",
    "session_get",
    "session_status",
];
const IDEMPOTENT_WRITES: &[&str] = &[
    "issues_mark_complete",
    "issues_update",
    "session_phase",
    "session_checkpoint",
    "issues_labels",
    "issues_metadata",
    "issues_projects",
    // Not in SPEC section 3's lists, which predate it (issue 6): recording the same fix twice changes nothing.
    "errors_resolve",
    // Creates only what is missing; a second call finds nothing to do.
    "init_workspace",
];
const OTHER_WRITES: &[&str] =
    &["issues_create", "issues_delete", "issues_update_batch", "session_start", "session_complete"];

/// The annotations SPEC section 3 gives the tools it lists. A tool added after it is in none of
/// these lists: the generated tests (tools_tests.rs) pin its annotations to tools.yaml.
#[tokio::test]
async fn tools_list_has_every_manifest_tool_with_the_spec_annotations() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), common::manifest_tool_count());
    for tool in &tools {
        let name = tool.name.as_ref();
        let json = serde_json::to_value(tool).expect("tool serializes");
        assert!(json["title"].as_str().is_some_and(|t| !t.is_empty()), "{name} has a title");
        assert!(json["description"].as_str().is_some_and(|t| !t.is_empty()), "{name} has a description");
        assert_eq!(json["inputSchema"]["type"], "object", "{name} inputSchema");
        assert!(json["inputSchema"]["properties"].is_object(), "{name} inputSchema has properties");
        assert_eq!(json["outputSchema"]["type"], "object", "{name} outputSchema");
        let a = &json["annotations"];
        assert_eq!(a["openWorldHint"], json!(false), "{name} openWorldHint");
        if ![READ_ONLY, IDEMPOTENT_WRITES, OTHER_WRITES].iter().any(|list| list.contains(&name)) {
            continue;
        }
        assert_eq!(a["readOnlyHint"], json!(READ_ONLY.contains(&name)), "{name} readOnlyHint");
        assert_eq!(a["destructiveHint"], json!(name == "issues_delete"), "{name} destructiveHint");
        let idempotent = READ_ONLY.contains(&name) || IDEMPOTENT_WRITES.contains(&name);
        assert_eq!(a["idempotentHint"], json!(idempotent), "{name} idempotentHint");
    }
    // Not in SPEC section 3 (issue 15); since issue 28 `fix: true` repairs, a destructive write
    // (renames, removals) that gives the same result when repeated.
    let doctor = tools.iter().find(|t| t.name == "workspace_doctor").expect("workspace_doctor");
    let a = serde_json::to_value(&doctor.annotations).expect("annotations");
    assert_eq!(
        (&a["readOnlyHint"], &a["destructiveHint"], &a["idempotentHint"]),
        (&json!(false), &json!(true), &json!(true)),
        "{a}"
    );
    let names: BTreeSet<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    for listed in [READ_ONLY, IDEMPOTENT_WRITES, OTHER_WRITES].concat() {
        assert!(names.contains(listed), "{listed} is served");
    }
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn create_get_list_round_trip() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let created = call(
        &client,
        "issues_create",
        json!({"title": "Fix login: redirect loop", "description": "Steps:\n1. log in\n2. loop", "priority": "high", "labels": ["auth", "bug"]}),
    )
    .await;
    assert!(!is_error(&created), "create failed: {}", text(&created));
    let id = structured(&created)["issue"]["id"].as_str().expect("created id").to_string();
    assert_eq!(id, "ISS-000001");

    let got = call(&client, "issues_get", json!({"id": id})).await;
    assert!(!is_error(&got), "get failed: {}", text(&got));
    let issue = &structured(&got)["issue"];
    assert_eq!(issue["title"], "Fix login: redirect loop");
    assert_eq!(issue["priority"], "high");
    assert_eq!(issue["labels"], json!(["auth", "bug"]));
    assert_eq!(issue["description"], "Steps:\n1. log in\n2. loop");
    assert!(text(&got).contains("Fix login: redirect loop"));

    let listed = call(&client, "issues_list", json!({})).await;
    assert!(!is_error(&listed), "list failed: {}", text(&listed));
    let list = structured(&listed);
    assert_eq!(list["totalCount"], 1);
    let rows = common::page_records(&list);
    assert_eq!(rows[0]["id"], id);
    assert_eq!(rows[0]["status"], "open");
    assert!(!list.to_string().contains("Body"), "summary rows leave descriptions out: {list}");
    assert!(text(&listed).contains(&id));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn list_filters_by_status_and_pages_with_a_cursor() {
    let ws = workspace();
    let client = start(ws.path()).await;
    for i in 0..7 {
        let status = if i % 2 == 0 { "open" } else { "in_progress" };
        let r =
            call(&client, "issues_create", json!({"title": format!("Task {i}"), "description": "-", "status": status}))
                .await;
        assert!(!is_error(&r), "{}", text(&r));
    }
    let first = call(&client, "issues_list", json!({"status": ["open"], "limit": 3, "format": "minimal"})).await;
    let page = structured(&first);
    assert_eq!(page["totalCount"], 4);
    assert_eq!(common::page_records(&page).len(), 3);
    let cursor = page["nextCursor"].as_str().expect("a next cursor").to_string();
    assert!(text(&first).contains(&format!("Showing 3 of 4 issues; 1 more match: pass cursor '{cursor}'")));

    let second =
        call(&client, "issues_list", json!({"status": ["open"], "limit": 3, "format": "minimal", "cursor": cursor}))
            .await;
    let page2 = structured(&second);
    assert_eq!(common::page_records(&page2).len(), 1);
    assert!(page2.get("nextCursor").is_none());

    let replayed = call(&client, "issues_list", json!({"status": ["in_progress"], "cursor": cursor})).await;
    assert!(is_error(&replayed));
    assert!(text(&replayed).contains("without cursor"), "{}", text(&replayed));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn invalid_priority_is_a_tool_error_listing_valid_values() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let r = call(&client, "issues_create", json!({"title": "x", "description": "y", "priority": "urgent"})).await;
    assert!(is_error(&r));
    assert!(text(&r).contains("Invalid priority 'urgent'. Valid values: low, medium, high, critical."), "{}", text(&r));
    assert!(r.structured_content.is_none(), "errors carry no structuredContent");
    let meta = serde_json::to_value(&r.meta).expect("meta");
    assert_eq!(meta["error"]["code"], "INVALID_ARGUMENT");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn missing_issue_names_the_recovery_calls() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let r = call(&client, "issues_get", json!({"id": "ISS-000099"})).await;
    assert!(is_error(&r));
    assert!(text(&r).contains("Issue not found: ISS-000099. Use issues_list or issues_search"), "{}", text(&r));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn operational_metadata_stays_out_of_the_text() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let r = call(&client, "issues_list", json!({"format": "minimal"})).await;
    let meta = serde_json::to_value(&r.meta).expect("meta");
    for key in [
        "duration_ms",
        "timestamp",
        "request_id",
        "tool_version",
        "warnings",
        "cached",
        "tokens",
        "index_size",
        "index_last_updated",
    ] {
        assert!(meta.get(key).is_some(), "_meta.{key} present: {meta}");
        assert!(!text(&r).contains(key), "{key} leaked into the text");
    }
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn unknown_tool_is_a_protocol_error() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let args = serde_json::Map::new();
    let err = client
        .call_tool(rmcp::model::CallToolRequestParams::new("issues_frobnicate").with_arguments(args))
        .await
        .expect_err("unknown tool is a JSON-RPC error");
    assert!(err.to_string().contains("Unknown tool 'issues_frobnicate'"), "{err}");
    client.cancel().await.expect("close");
}

/// Raw JSON-RPC over the pipe: a malformed line must not stop the server.
#[test]
fn server_survives_a_malformed_json_line() {
    let ws = workspace();
    let mut child = Command::new(env!("CARGO_BIN_EXE_docket"))
        .args(["serve", "--workspace"])
        .arg(ws.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn docket");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut send = |line: &str| writeln!(stdin, "{line}").and_then(|_| stdin.flush()).expect("write");
    let mut read = || {
        let mut line = String::new();
        stdout.read_line(&mut line).expect("read");
        serde_json::from_str::<Value>(&line)
            .unwrap_or_else(|e| panic!("stdout carries only JSON-RPC, got {line:?}: {e}"))
    };
    send(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#,
    );
    let init = read();
    assert_eq!(init["result"]["serverInfo"]["name"], "docket");
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"  this is not json"#);
    send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{}}"#);
    let mut answered = read();
    if answered.get("id") != Some(&json!(3)) {
        // The malformed line may be answered with a parse error first.
        assert!(answered.get("error").is_some(), "a non-answer to id 3 must be an error: {answered}");
        answered = read();
    }
    assert_eq!(answered["id"], 3);
    assert_eq!(answered["result"]["tools"].as_array().map(Vec::len), Some(common::manifest_tool_count()));
    drop(stdin);
    let status = child.wait().expect("docket exits on EOF");
    assert!(status.success(), "clean exit on stdin EOF: {status}");
}

/// `cargo run -p codegen -- schema [--consolidated]` (what docs and reviews read) prints exactly
/// the tools/list the server publishes in each profile.
#[tokio::test]
async fn codegen_schema_is_the_served_tools_list() {
    let manifest = include_str!("../../tools.yaml");
    for (style, expected) in [
        ("granular", codegen::tool_list_json("tools.yaml", manifest)),
        ("consolidated", codegen::consolidated_list_json("tools.yaml", manifest)),
    ] {
        let expected = expected.unwrap_or_else(|_| panic!("tools.yaml is valid"));
        let ws = workspace();
        let client = common::start_with_env(ws.path(), &[("DOCKET_TOOL_STYLE", style)]).await;
        let served = serde_json::to_value(client.list_all_tools().await.expect("tools/list")).expect("json");
        client.cancel().await.expect("close");
        assert_eq!(json!({"tools": served}), expected, "{style}");
    }
}

/// A person who starts `docket serve` by hand sees what it serves and that it waits; Ctrl-D
/// before any client spoke is a quiet, successful exit, not a handshake failure.
#[test]
fn serve_says_it_waits_and_end_of_input_before_initialize_exits_cleanly() {
    let out = Command::new(env!("CARGO_BIN_EXE_docket"))
        .args(["serve", "--demo"])
        .stdin(Stdio::null())
        .output()
        .expect("docket runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
    assert!(out.stdout.is_empty(), "stdout belongs to the protocol: {:?}", String::from_utf8_lossy(&out.stdout));
    let first = stderr.lines().next().unwrap_or_default();
    assert!(first.contains("serving ") && first.contains("waiting for an MCP client on stdin"), "{stderr}");
    assert!(!stderr.contains("handshake failed"), "{stderr}");
}
