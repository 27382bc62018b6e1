//! Abuse by hostile values (see tests/common/abuse.rs): wrong JSON types and out-of-range numbers,
//! missing or null required parameters, oversize arrays and megabyte strings, and unknown tools,
//! each generated from the served tools/list. A rejection names what was wrong, the server keeps
//! answering and a rejected call changes no file.

use crate::common;

use common::abuse::*;
use common::{checksum, start, workspace};
use rmcp::model::CallToolRequestParams;
use serde_json::{Map, Value, json};

#[tokio::test]
async fn wrong_types_and_out_of_range_values_are_rejected_and_unknown_parameters_ignored_by_name() {
    let ws = workspace();
    let client = start(ws.path()).await;
    seeded(&client, ws.path()).await;
    let tools = served_tools(&client).await;
    let mut a = Abuser::new(&client, ws.path());
    for tool in &tools {
        let tool_name = name(tool);
        for site in sites(&tool["inputSchema"]) {
            let param = site.display();
            // Published as JSON text, but any JSON value is taken as its text, as wrangler took any
            // value (docs/compatibility.md): no type is wrong there.
            let any_json = tool_name == "issues_metadata" && param == "value";
            for wrong in wrong_values(&site.schema).into_iter().filter(|_| !any_json) {
                let args = arguments_with(tool, &site, Some(wrong.clone()));
                a.expect_invalid(tool_name, args, &format!("{param} = {wrong}"), &param).await;
            }
            // An unknown key inside a nested object with declared properties is ignored and named
            // with its path.
            if site.kind() == "object" && site.schema["properties"].is_object() {
                let mut obj = baseline(&site.schema);
                obj["bogus_key"] = json!(1);
                let args = arguments_with(tool, &site, Some(obj));
                a.expect_ignored(tool_name, args, "nested unknown key", &format!("'{param}.bogus_key'")).await;
            }
        }
        // Unknown parameters are ignored, as wrangler ignores them, with a warning naming them.
        let mut args = baseline(&tool["inputSchema"]);
        args["bogus_param"] = json!("x");
        a.expect_ignored(tool_name, args, "unknown parameter", "Parameter 'bogus_param' is not a parameter of").await;
        let mut args = baseline(&tool["inputSchema"]);
        args[""] = json!("x");
        a.expect_ignored(tool_name, args, "empty parameter name", "Parameter '' is not a parameter of").await;
        let mut args = baseline(&tool["inputSchema"]);
        args["p".repeat(MEGABYTE)] = json!("x");
        a.expect_ignored(tool_name, args, "1 MB parameter name", "Parameter 'ppp").await;
        a.assert_alive(tools.len()).await;
    }
    report("wrong types", &a);
    assert!(a.accepted.is_empty(), "every call of this class must be rejected: {:?}", a.accepted);
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn each_missing_or_null_required_parameter_is_named() {
    let ws = workspace();
    let client = start(ws.path()).await;
    seeded(&client, ws.path()).await;
    let tools = served_tools(&client).await;
    let mut a = Abuser::new(&client, ws.path());
    for tool in &tools {
        let tool_name = name(tool);
        for site in sites(&tool["inputSchema"]).into_iter().filter(|s| s.required) {
            let param = site.display();
            let expected = format!("Missing required parameter '{param}' for {tool_name}");
            a.expect_invalid(tool_name, arguments_with(tool, &site, None), &format!("no {param}"), &expected).await;
            let args = arguments_with(tool, &site, Some(Value::Null));
            a.expect_invalid(tool_name, args, &format!("{param} = null"), &expected).await;
        }
        a.assert_alive(tools.len()).await;
    }
    report("missing required", &a);
    assert!(a.calls > 20, "the schemas declare required parameters");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn oversize_arrays_and_megabyte_strings_are_rejected_or_harmless() {
    let ws = workspace();
    let client = start(ws.path()).await;
    seeded(&client, ws.path()).await;
    let tools = served_tools(&client).await;
    let mut a = Abuser::new(&client, ws.path());
    let megabyte = "a".repeat(MEGABYTE);
    for tool in &tools {
        let tool_name = name(tool);
        for site in sites(&tool["inputSchema"]) {
            let param = site.display();
            match site.kind() {
                "array" => {
                    let item = baseline(&site.schema["items"]);
                    if let Some(max) = server_bound(tool_name, &site, true) {
                        let n = max as usize + 1;
                        let args = arguments_with(tool, &site, Some(json!(vec![item.clone(); n])));
                        let needle = format!("Invalid {param}: it has {n} items");
                        a.expect_invalid(tool_name, args, &format!("{param} x{n}"), &needle).await;
                    }
                    let args = arguments_with(tool, &site, Some(json!(vec![item; 10_000])));
                    let label = format!("{param} x10000 valid items");
                    match server_bound(tool_name, &site, true) {
                        Some(_) => {
                            let needle = format!("Invalid {param}: it has 10000 items");
                            a.expect_invalid(tool_name, args, &label, &needle).await;
                        }
                        None => check_clear_or_accepted(a.call(tool_name, args, &label).await, tool_name, &label),
                    }
                    // 10,000 items of the wrong type: one clear, bounded message, not 10,000 lines.
                    if let Some(wrong) = wrong_values(&site.schema["items"]).into_iter().next() {
                        let args = arguments_with(tool, &site, Some(json!(vec![wrong; 10_000])));
                        a.expect_invalid(tool_name, args, &format!("{param} x10000 wrong items"), &param).await;
                    }
                }
                "string" => {
                    let args = arguments_with(tool, &site, Some(json!(megabyte)));
                    let label = format!("{param} = 1 MB string");
                    if is_enum(&site.schema) {
                        a.expect_invalid(tool_name, args, &label, &param).await;
                    } else if let Some(max) = server_bound(tool_name, &site, false) {
                        let needle = format!("Invalid {param}: it has {MEGABYTE} characters");
                        a.expect_invalid(tool_name, args, &label, &needle).await;
                        // One past the limit, counted in characters (not bytes).
                        let over = "é".repeat(max as usize + 1);
                        let args = arguments_with(tool, &site, Some(json!(over)));
                        let needle = format!("Invalid {param}: it has {} characters", max + 1);
                        a.expect_invalid(tool_name, args, &format!("{param} = max+1 chars"), &needle).await;
                    } else {
                        check_clear_or_accepted(a.call(tool_name, args, &label).await, tool_name, &label);
                    }
                }
                _ => {}
            }
        }
        a.assert_alive(tools.len()).await;
    }
    report("oversize", &a);
    // Rejected junk is remembered by the error memory, but not at a megabyte a call.
    let cache: u64 = std::fs::read_dir(ws.path().join(".docket/cache"))
        .expect("cache dir")
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    eprintln!("oversize: cache/ holds {cache} bytes after {} rejected calls", a.rejected);
    assert!(cache < 8 * MEGABYTE as u64, "cache/ grew to {cache} bytes");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn unknown_tools_are_json_rpc_errors_naming_the_tool() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let before = checksum(ws.path());
    let huge = "t".repeat(MEGABYTE);
    let names = ["issues_frobnicate", "", " ", "ISSUES_LIST", "issues_list ", "../../etc/passwd", "a\0b", &huge];
    for tool in names {
        let shown: String = tool.chars().take(40).collect();
        let err = client
            .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(Map::new()))
            .await
            .expect_err("an unknown tool is a JSON-RPC error");
        let msg = err.to_string();
        assert!(msg.contains("Unknown tool '"), "{shown:?}: {msg}");
        assert!(msg.contains("tools/list"), "{shown:?}: the error says where the tools are: {msg}");
        assert!(msg.len() <= MAX_ERROR_TEXT, "{shown:?}: {} bytes of error text", msg.len());
    }
    assert_eq!(checksum(ws.path()), before, "unknown tools change nothing");
    assert_eq!(client.list_all_tools().await.expect("tools/list").len(), served_tools(&client).await.len());
    eprintln!("unknown tools: {} abusive calls", names.len());
    client.cancel().await.expect("close");
}
