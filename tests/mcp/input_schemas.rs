//! Schemas say what is accepted (issue 25), in both tool profiles (granular, and `serve
//! --tool-style consolidated`): every property of every published inputSchema has a type (or an
//! anyOf/oneOf whose every branch has one; Inspector's --strict warns on the rest); every sample
//! call of tools.yaml, in the form the profile publishes, validates against the published schema
//! (JSON Schema 2020-12, the jsonschema crate) and succeeds; and where a call docket would take
//! in the granular profile does not fit the consolidated schema as written (a lone
//! `"status": "in_progress"` where the flat schema publishes a list), docket refuses it and names
//! the form that fits, so no call the schema forbids is quietly taken.

use crate::common;

use common::samples::{Runner, manifest_samples};
use common::{Client, call, is_error, start_with_env, text, workspace};
use docket::generated::TOOLS;
use serde_json::{Map, Value, json};

/// Every schema under `schema` (itself, properties, items, branches) that says nothing of its
/// type, by path.
fn untyped(schema: &Value, path: &str, out: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        out.push(format!("{path} is not a schema object"));
        return;
    };
    let branches: Vec<&Value> =
        ["anyOf", "oneOf"].iter().filter_map(|k| map.get(*k)).filter_map(Value::as_array).flatten().collect();
    let typed = map.get("type").is_some_and(|t| t.is_string() || t.as_array().is_some_and(|a| !a.is_empty()))
        || (!branches.is_empty() && branches.iter().all(|b| b.get("type").is_some()));
    if !typed {
        out.push(format!("{path} has no type: {schema}"));
    }
    for (name, sub) in map.get("properties").and_then(Value::as_object).into_iter().flatten() {
        untyped(sub, &format!("{path}.{name}"), out);
    }
    if let Some(items) = map.get("items") {
        untyped(items, &format!("{path}[]"), out);
    }
    if let Some(extra) = map.get("additionalProperties").filter(|a| a.is_object()) {
        untyped(extra, &format!("{path}.*"), out);
    }
    for (i, b) in branches.iter().enumerate() {
        untyped(b, &format!("{path}|{i}"), out);
    }
}

async fn tools(style: &str) -> (tempfile::TempDir, Client, Vec<Value>) {
    let ws = workspace();
    std::fs::write(ws.path().join("SPEC.md"), "# Spec").expect("spec file");
    let client = start_with_env(ws.path(), &[("DOCKET_TOOL_STYLE", style)]).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let tools = tools.iter().map(|t| serde_json::to_value(t).expect("tool")).collect();
    (ws, client, tools)
}

fn schema_of<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    &tools.iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("{name} is published"))["inputSchema"]
}

/// What the published schema says against `args`, one line per problem.
fn problems(schema: &Value, args: &Value) -> Vec<String> {
    let validator = jsonschema::validator_for(schema).expect("the schema compiles");
    validator.iter_errors(args).map(|e| format!("{e} at {}", e.instance_path())).collect()
}

#[tokio::test]
async fn every_published_property_has_a_type_in_both_profiles() {
    for style in ["granular", "consolidated"] {
        let (_ws, client, tools) = tools(style).await;
        let mut out = Vec::new();
        for t in &tools {
            let name = t["name"].as_str().expect("name");
            untyped(&t["inputSchema"], &format!("{style} {name} inputSchema"), &mut out);
            if let Some(output) = t.get("outputSchema") {
                untyped(output, &format!("{style} {name} outputSchema"), &mut out);
            }
        }
        assert!(out.is_empty(), "untyped properties:\n{}", out.join("\n"));
        client.cancel().await.expect("close");
    }
}

#[tokio::test]
async fn the_untyped_check_finds_what_inspector_warns_about() {
    let schema = json!({"type": "object", "properties": {
        "value": {"description": "any"},
        "list": {"type": "array", "items": {}},
        "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    }});
    let mut out = Vec::new();
    untyped(&schema, "t", &mut out);
    assert_eq!(out.len(), 2, "{out:?}");
    assert!(out[0].starts_with("t.value ") && out[1].starts_with("t.list[] "), "{out:?}");
}

#[tokio::test]
async fn every_sample_call_fits_the_granular_schemas() {
    let (_ws, client, tools) = tools("granular").await;
    let mut runner = Runner::default();
    let mut misfits = Vec::new();
    for sample in manifest_samples() {
        let ran = runner.run(&client, &sample).await;
        let found = problems(schema_of(&tools, &ran.tool), &ran.args);
        if !found.is_empty() {
            misfits.push(format!("{} {}: {}", ran.tool, ran.args, found.join("; ")));
        }
    }
    assert!(misfits.is_empty(), "sample calls docket takes that its schemas refuse:\n{}", misfits.join("\n"));
    client.cancel().await.expect("close");
}

/// (group, action) of a granular tool.
fn consolidated_name(tool: &str) -> (String, String) {
    let spec = TOOLS.iter().find(|t| t.name == tool).unwrap_or_else(|| panic!("{tool} is in tools.yaml"));
    let action =
        tool.strip_prefix(&format!("{}_", spec.group)).or_else(|| tool.strip_suffix(&format!("_{}", spec.group)));
    (spec.group.to_string(), action.unwrap_or(tool).to_string())
}

/// A granular call as the consolidated profile takes it: the group's tool with `action`, each
/// lone value the flat schema publishes as a list given as a one-item list.
fn consolidated_call(tools: &[Value], tool: &str, args: Value) -> (String, Value) {
    let (group, action) = consolidated_name(tool);
    let schema = schema_of(tools, &group);
    let mut map: Map<String, Value> = args.as_object().cloned().unwrap_or_default();
    for (key, v) in map.iter_mut() {
        if schema["properties"][key]["type"] == "array" && !v.is_array() {
            *v = json!([v.take()]);
        }
    }
    map.insert("action".into(), json!(action));
    (group, Value::Object(map))
}

#[tokio::test]
async fn every_sample_call_fits_the_consolidated_schemas() {
    let (_ws, client, tools) = tools("consolidated").await;
    let mut runner = Runner::default();
    let (mut misfits, mut lists) = (Vec::new(), 0);
    for sample in manifest_samples() {
        let ran = runner.run_as(&client, &sample, |tool, args| consolidated_call(&tools, tool, args)).await;
        let found = problems(schema_of(&tools, &ran.tool), &ran.args);
        if !found.is_empty() {
            misfits.push(format!("{} {}: {}", ran.tool, ran.args, found.join("; ")));
        }
        lists += usize::from(
            ran.args.as_object().into_iter().flatten().any(|(_, v)| v.as_array().is_some_and(|a| a.len() == 1)),
        );
    }
    assert!(misfits.is_empty(), "sample calls docket takes that its schemas refuse:\n{}", misfits.join("\n"));
    assert!(lists > 0, "some samples pass a one-item list");
    client.cancel().await.expect("close");
}

/// The granular form of every sample, sent as is to the consolidated tool (only `action` added):
/// where the flat schema does not admit it, docket refuses it unless the granular schema of the
/// same action publishes that parameter as a list too (a lone value read as a one-item list is
/// the leniency both profiles share, docs/compatibility.md). The known case: `update` with
/// `"status": "in_progress"`.
#[tokio::test]
async fn what_the_consolidated_schemas_do_not_admit_docket_refuses() {
    let (_ws, client, tools) = tools("consolidated").await;
    let granular: Vec<Value> = TOOLS
        .iter()
        .map(|t| json!({"name": t.name, "inputSchema": serde_json::from_str::<Value>(t.input_schema).expect("schema")}))
        .collect();
    let mut runner = Runner::default();
    let (mut taken, mut refused) = (Vec::new(), 0);
    for sample in manifest_samples() {
        let tool = sample["tool"].as_str().expect("tool").to_string();
        // The sample runs in the published form (the samples after it use what it made); then
        // its granular form is tried.
        let ran = runner.run_as(&client, &sample, |tool, args| consolidated_call(&tools, tool, args)).await;
        let mut args = ran.args.clone();
        let (group, action) = consolidated_name(&tool);
        // Back to the granular values: one-item lists where the granular schema takes one value.
        let own = schema_of(&granular, &tool);
        for (key, v) in args.as_object_mut().expect("object").iter_mut() {
            if let Some([one]) = v.as_array().map(Vec::as_slice).filter(|_| own["properties"][key]["type"] != "array") {
                *v = one.clone();
            }
        }
        if problems(schema_of(&tools, &group), &args).is_empty() {
            continue;
        }
        let r = call(&client, &group, args.clone()).await;
        if is_error(&r) {
            assert!(
                text(&r).contains("one-item list"),
                "{group} {args}: the refusal names the form that fits: {}",
                text(&r)
            );
            refused += 1;
        } else {
            taken.push(format!("{group}(action={action}) {args}: {}", text(&r)));
        }
    }
    assert!(taken.is_empty(), "calls the consolidated schemas do not admit, taken:\n{}", taken.join("\n"));
    println!("{refused} sample calls in the granular form refused by the consolidated profile");
    assert!(refused > 0, "some sample passes a lone status or priority");
    let r = call(&client, "issues", json!({"action": "update", "id": "ISS-000001", "status": "in_progress"})).await;
    assert!(is_error(&r), "{}", text(&r));
    // A value of another JSON type than the one published: metadata's value is published as a
    // string (JSON text); the granular tool also takes any JSON value, as wrangler's did.
    let r = call(
        &client,
        "issues",
        json!({"action": "metadata", "operation": "set", "issueId": "ISS-000001", "key": "k", "value": 5}),
    )
    .await;
    assert!(is_error(&r) && text(&r).contains("value: expected a string"), "{}", text(&r));
    let r = call(&client, "issues", json!({"action": "list", "limit": "5"})).await;
    assert!(is_error(&r) && text(&r).contains("limit: expected an integer"), "{}", text(&r));
    // Lone values where an action itself takes a list: the granular tools read them as lists
    // (wrangler's skills write them, docs/compatibility.md); the consolidated schema publishes a
    // list, so the consolidated profile refuses them and names the list.
    for args in [
        json!({"action": "list", "status": "open"}),
        json!({"action": "list", "labels": "bug"}),
        json!({"action": "stats", "groupBy": "status", "priority": "high"}),
        json!({"action": "get_batch", "ids": "ISS-000001"}),
    ] {
        assert!(!problems(schema_of(&tools, "issues"), &args).is_empty(), "the schema does not admit {args}");
        let r = call(&client, "issues", args.clone()).await;
        assert!(is_error(&r) && text(&r).contains("one-item list"), "{args}: {}", text(&r));
        let mut listed = args.as_object().cloned().expect("object");
        for (_, v) in listed.iter_mut().filter(|(k, _)| !["action", "groupBy"].contains(&k.as_str())) {
            *v = json!([v.take()]);
        }
        let listed = Value::Object(listed);
        assert!(problems(schema_of(&tools, "issues"), &listed).is_empty(), "the schema admits {listed}");
        let r = call(&client, "issues", listed.clone()).await;
        assert!(!is_error(&r), "{listed}: {}", text(&r));
    }
    assert!(
        !problems(
            schema_of(&tools, "issues"),
            &json!({"action": "update", "id": "ISS-000001", "status": "in_progress"})
        )
        .is_empty()
    );
    client.cancel().await.expect("close");
}
