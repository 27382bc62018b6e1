//! The abuse suite: bad input never hurts the server or the data.
//!
//! Every abusive call is generated from the served tools/list (each tool's inputSchema), so a new
//! tool or parameter is covered without touching this file. Each rejected call must come back as
//! an `isError` result (or a JSON-RPC error for protocol problems) whose message names what was
//! wrong, the server must keep answering, and the workspace (every file outside `cache/`, which
//! the error memory legitimately writes) must be byte-for-byte what it was before the call.
//! Run with `--nocapture` to see how many calls each test made.
//!
//! Over 600 lines on purpose: one suite whose helpers (the schema walk, the generated bad values,
//! the workspace snapshot around every call) serve all of its tests; split, they would be shared
//! across files for this suite alone.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use common::{Client, RawServer, checksum, snapshot, snapshot_diff, start, workspace};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Map, Value, json};

/// A call that takes longer than this is a hang.
const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// A rejection's text may name the parameter and list what is valid, but never echo a megabyte.
const MAX_ERROR_TEXT: usize = 4_000;
const MEGABYTE: usize = 1 << 20;
/// Written outside the workspace; no reply may ever contain it.
const CANARY: &str = "CANARY-7f3a";

const TRAVERSAL_IDS: &[&str] = &[
    "../../etc/passwd",
    "/etc/passwd",
    "..\\..\\x",
    "000001/../../x",
    "ISS-000001/../../../outside",
    "%2e%2e%2f",
    "..%2f..%2fetc%2fpasswd",
    "..",
    ".",
    "./ISS-000001",
    "ISS-000001\0.md",
    "~/.ssh/id_rsa",
    "C:\\Windows\\win.ini",
    "\\\\server\\share",
    "ISS-000001%00",
    "cache/errors.db",
];

// ---------------------------------------------------------------------------------------------
// Schema walking

/// A step into the arguments: an object key, or the first item of an array.
#[derive(Clone, Debug, PartialEq)]
enum Seg {
    Key(String),
    First,
}

/// A place in a tool's arguments where a value can go, with its schema.
#[derive(Clone, Debug)]
struct Site {
    path: Vec<Seg>,
    schema: Value,
    /// Required by the object holding it.
    required: bool,
}

impl Site {
    /// The parameter as the server names it: `updates[0].status`, `labels[0]`.
    fn display(&self) -> String {
        let mut out = String::new();
        for seg in &self.path {
            match seg {
                Seg::Key(k) if out.is_empty() => out.push_str(k),
                Seg::Key(k) => {
                    out.push('.');
                    out.push_str(k);
                }
                Seg::First => out.push_str("[0]"),
            }
        }
        out
    }

    fn key(&self) -> &str {
        self.path.iter().rev().find_map(|s| if let Seg::Key(k) = s { Some(k.as_str()) } else { None }).unwrap_or("")
    }

    fn kind(&self) -> &str {
        kind(&self.schema)
    }
}

/// The server's own bound (`max_items` or `max_len`) for a site: the published schemas leave
/// lengths and item counts out, the generated argument rules enforce them.
fn server_bound(tool: &str, site: &Site, max_items: bool) -> Option<u64> {
    use docket::runtime::args::Kind;
    let mut rules = docket::generated::input_rules(tool)?;
    let mut kind: Option<&Kind> = None;
    for seg in &site.path {
        kind = match seg {
            Seg::Key(k) => match kind {
                None => rules.iter().find(|r| r.name == k).map(|r| &r.kind),
                Some(Kind::Object { fields, .. }) => {
                    rules = fields;
                    rules.iter().find(|r| r.name == k).map(|r| &r.kind)
                }
                Some(_) => None,
            },
            Seg::First => match kind {
                Some(Kind::Array { items, .. }) => Some(*items),
                _ => None,
            },
        };
        kind?;
    }
    match (kind?, max_items) {
        (Kind::Array { max_items, .. }, true) => *max_items,
        (Kind::String { max_len, .. }, false) => *max_len,
        _ => None,
    }
}

fn kind(schema: &Value) -> &str {
    schema["type"].as_str().unwrap_or("any")
}

fn is_enum(schema: &Value) -> bool {
    schema["enum"].is_array()
}

fn required_keys(schema: &Value) -> Vec<String> {
    schema["required"].as_array().into_iter().flatten().filter_map(|v| v.as_str().map(String::from)).collect()
}

/// Every place a value can go, depth first (properties, nested objects, array items).
fn sites(schema: &Value) -> Vec<Site> {
    fn walk_object(schema: &Value, path: &[Seg], out: &mut Vec<Site>) {
        let required = required_keys(schema);
        for (key, sub) in schema["properties"].as_object().into_iter().flatten() {
            let mut p = path.to_vec();
            p.push(Seg::Key(key.clone()));
            out.push(Site { path: p.clone(), schema: sub.clone(), required: required.contains(key) });
            walk_value(sub, &p, out);
        }
    }
    fn walk_value(schema: &Value, path: &[Seg], out: &mut Vec<Site>) {
        match kind(schema) {
            "object" => walk_object(schema, path, out),
            "array" if schema["items"].is_object() => {
                let mut p = path.to_vec();
                p.push(Seg::First);
                out.push(Site { path: p.clone(), schema: schema["items"].clone(), required: false });
                walk_value(&schema["items"], &p, out);
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk_object(schema, &[], &mut out);
    out
}

/// The smallest valid value for `schema`: required properties only, minimal lengths and counts.
fn baseline(schema: &Value) -> Value {
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    match kind(schema) {
        "object" => {
            let props = &schema["properties"];
            Value::Object(required_keys(schema).into_iter().map(|k| (k.clone(), baseline(&props[&k]))).collect())
        }
        "array" => {
            let n = schema["minItems"].as_u64().unwrap_or(0) as usize;
            Value::Array(vec![baseline(&schema["items"]); n])
        }
        "string" => json!("x".repeat(schema["minLength"].as_u64().unwrap_or(1).max(1) as usize)),
        "integer" | "number" => json!(schema["minimum"].as_i64().unwrap_or(1).max(1)),
        "boolean" => json!(false),
        _ => json!("x"),
    }
}

/// The tool's minimal valid arguments with `leaf` put at `site` (`None` removes it), creating
/// the objects and array items on the way.
fn arguments_with(tool: &Value, site: &Site, leaf: Option<Value>) -> Value {
    fn place(node: &mut Value, schema: &Value, path: &[Seg], leaf: Option<Value>) {
        let Some((first, rest)) = path.split_first() else { return };
        match first {
            Seg::Key(k) => {
                let sub = &schema["properties"][k];
                let obj = node.as_object_mut().expect("an object on the path");
                if rest.is_empty() {
                    match leaf {
                        Some(v) => {
                            obj.insert(k.clone(), v);
                        }
                        None => {
                            obj.remove(k);
                        }
                    }
                } else {
                    let child = obj.entry(k.clone()).or_insert_with(|| baseline(sub));
                    place(child, sub, rest, leaf);
                }
            }
            Seg::First => {
                let items = &schema["items"];
                let arr = node.as_array_mut().expect("an array on the path");
                if arr.is_empty() {
                    arr.push(baseline(items));
                }
                match (rest.is_empty(), leaf) {
                    (true, Some(v)) => arr[0] = v,
                    (true, None) => {
                        arr.remove(0);
                    }
                    (false, leaf) => place(&mut arr[0], items, rest, leaf),
                }
            }
        }
    }
    let schema = &tool["inputSchema"];
    let mut args = baseline(schema);
    place(&mut args, schema, &site.path, leaf);
    args
}

/// Values of the wrong JSON type for `schema`, and out-of-range numbers.
fn wrong_values(schema: &Value) -> Vec<Value> {
    if is_enum(schema) {
        return vec![json!(7), json!(["open"]), json!("definitely-not-a-valid-value"), json!("")];
    }
    match kind(schema) {
        "string" => vec![json!(42), json!(["x"]), json!({"x": 1}), json!(true)],
        "integer" => {
            let mut v = vec![json!("5"), json!(1.5), json!(true), json!(u64::MAX), json!(-1e300), json!(i64::MIN)];
            if let Some(min) = schema["minimum"].as_i64() {
                v.push(json!(min - 1));
            }
            if let Some(max) = schema["maximum"].as_i64() {
                v.push(json!(max + 1));
            }
            v
        }
        "number" => vec![json!("5"), json!(true)],
        "boolean" => vec![json!("true"), json!(1), json!("false")],
        // A lone string is wrapped into a one-item array (wrangler's skills send them); a boolean
        // is wrapped too and then fails as an item.
        "array" => vec![json!(true), json!({"0": "x"}), json!(5)],
        "object" => vec![json!("x"), json!([1]), json!(5)],
        _ => Vec::new(), // "any": every value is valid
    }
}

// ---------------------------------------------------------------------------------------------
// Calling and checking

/// What an abusive call got back.
#[derive(Debug)]
enum Outcome {
    /// An `isError` tool result: the `_meta.error.code` and the text.
    Rejected {
        code: String,
        text: String,
    },
    Accepted {
        text: String,
    },
    /// A JSON-RPC error.
    Protocol(String),
}

/// Makes abusive calls against one server and workspace, checking after each that the server
/// answered in time and that a rejected call left every file as it was.
struct Abuser<'a> {
    client: &'a Client,
    root: &'a Path,
    before: BTreeMap<String, Vec<u8>>,
    calls: usize,
    rejected: usize,
    /// Calls that succeeded (allowed for some classes, e.g. a 1 MB filter string): `tool: label`.
    accepted: Vec<String>,
}

impl<'a> Abuser<'a> {
    fn new(client: &'a Client, root: &'a Path) -> Self {
        Abuser { client, root, before: snapshot(root), calls: 0, rejected: 0, accepted: Vec::new() }
    }

    async fn call(&mut self, tool: &str, args: Value, label: &str) -> Outcome {
        self.calls += 1;
        let args = args.as_object().cloned().expect("arguments are an object");
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
        let answer = tokio::time::timeout(CALL_TIMEOUT, self.client.call_tool(params))
            .await
            .unwrap_or_else(|_| panic!("{tool} [{label}]: no answer within {CALL_TIMEOUT:?} (hang)"));
        let outcome = match answer {
            Err(e) => Outcome::Protocol(e.to_string()),
            Ok(r) if r.is_error == Some(true) => Outcome::Rejected { code: error_code(&r), text: first_text(&r) },
            Ok(r) => Outcome::Accepted { text: first_text(&r) },
        };
        let after = snapshot(self.root);
        match &outcome {
            Outcome::Accepted { .. } => {
                self.accepted.push(format!("{tool}: {label}"));
                self.before = after;
            }
            _ => {
                self.rejected += 1;
                assert!(
                    after == self.before,
                    "{tool} [{label}] was rejected but changed the workspace: {:?}",
                    snapshot_diff(&self.before, &after)
                );
            }
        }
        outcome
    }

    /// A call that must be rejected as INVALID_ARGUMENT with a short message naming `needle`.
    async fn expect_invalid(&mut self, tool: &str, args: Value, label: &str, needle: &str) {
        match self.call(tool, args.clone(), label).await {
            Outcome::Rejected { code, text } => {
                assert_eq!(code, "INVALID_ARGUMENT", "{tool} [{label}] {args}: {text}");
                assert!(text.contains(needle), "{tool} [{label}]: the message must name {needle:?}: {text}");
                assert!(text.len() <= MAX_ERROR_TEXT, "{tool} [{label}]: {} bytes of error text", text.len());
                assert_no_contradiction(&text, tool, label);
            }
            other => panic!("{tool} [{label}] with {} must be rejected, got {other:?}", abbreviate(&args)),
        }
    }

    /// A call whose undeclared parameter is ignored: whatever the call's outcome, the text says
    /// so (`needle`), the name is clipped (no megabyte echoed), and a success lists the warning
    /// in structuredContent too. Not counted as accepted or rejected.
    async fn expect_ignored(&mut self, tool: &str, args: Value, label: &str, needle: &str) {
        let params =
            CallToolRequestParams::new(tool.to_string()).with_arguments(args.as_object().cloned().expect("object"));
        let r = tokio::time::timeout(CALL_TIMEOUT, self.client.call_tool(params))
            .await
            .unwrap_or_else(|_| panic!("{tool} [{label}]: no answer within {CALL_TIMEOUT:?} (hang)"))
            .unwrap_or_else(|e| panic!("{tool} [{label}]: a protocol error instead of a result: {e}"));
        self.calls += 1;
        let text = first_text(&r);
        let warning = text.lines().find(|l| l.starts_with("Warning: ") && l.contains(needle));
        let warning = warning.unwrap_or_else(|| panic!("{tool} [{label}]: no warning naming {needle:?}: {text}"));
        assert!(warning.len() <= MAX_ERROR_TEXT, "{tool} [{label}]: {} bytes of warning", warning.len());
        if r.is_error != Some(true) {
            let listed = r.structured_content.as_ref().and_then(|sc| sc["warnings"].as_array().cloned());
            let listed = listed.unwrap_or_else(|| panic!("{tool} [{label}]: no warnings in structuredContent"));
            assert!(listed.iter().any(|w| w.as_str().is_some_and(|w| w.contains(needle))), "{tool} [{label}]");
        }
        self.before = snapshot(self.root);
    }

    /// The server still answers tools/list with every tool.
    async fn assert_alive(&self, expected_tools: usize) {
        let tools = tokio::time::timeout(CALL_TIMEOUT, self.client.list_all_tools())
            .await
            .expect("tools/list answered in time")
            .expect("tools/list");
        assert_eq!(tools.len(), expected_tools, "tools/list still lists every tool");
    }
}

/// "expected an integer, got an integer" tells the caller nothing: what was expected and what
/// was sent must differ in every type error.
fn assert_no_contradiction(text: &str, tool: &str, label: &str) {
    for line in text.lines() {
        if let Some((_, rest)) = line.split_once("expected ")
            && let Some((expected, got)) = rest.split_once(", got ")
        {
            let got = got.trim_end_matches('.');
            assert_ne!(expected, got, "{tool} [{label}]: a type error that contradicts itself: {line}");
        }
    }
}

fn first_text(r: &CallToolResult) -> String {
    r.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default()
}

fn error_code(r: &CallToolResult) -> String {
    let meta = serde_json::to_value(&r.meta).unwrap_or(Value::Null);
    meta["error"]["code"].as_str().unwrap_or("<no _meta.error.code>").to_string()
}

/// The arguments for a failure message, without megabytes of payload.
fn abbreviate(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 300 { format!("{}… ({} bytes)", s.chars().take(300).collect::<String>(), s.len()) } else { s }
}

async fn served_tools(client: &Client) -> Vec<Value> {
    let tools = client.list_all_tools().await.expect("tools/list");
    assert!(!tools.is_empty());
    tools.iter().map(|t| serde_json::to_value(t).expect("tool serializes")).collect()
}

fn name(tool: &Value) -> &str {
    tool["name"].as_str().expect("tool name")
}

/// A workspace with one real issue (so traversal ids have something to start from) and a file
/// outside the workspace that no id may reach.
async fn seeded(client: &Client, root: &Path) {
    let r = common::call(client, "issues_create", json!({"title": "Seed", "description": "seed body"})).await;
    assert!(!common::is_error(&r), "{}", common::text(&r));
    std::fs::create_dir_all(root.join("outside")).expect("mkdir outside");
    let canary = format!("---\nid: ISS-000001\ntitle: {CANARY}\n---\n{CANARY}\n");
    std::fs::write(root.join("outside/secret.md"), canary).expect("canary");
}

fn report(test: &str, a: &Abuser<'_>) {
    eprintln!(
        "{test}: {} abusive calls, {} rejected, {} accepted{}",
        a.calls,
        a.rejected,
        a.accepted.len(),
        if a.accepted.is_empty() { String::new() } else { format!(" ({})", a.accepted.join("; ")) }
    );
}

// ---------------------------------------------------------------------------------------------
// Tool-level abuse (rmcp client)

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

/// An accepted call is fine for this class; a rejection must still be short and coded.
fn check_clear_or_accepted(outcome: Outcome, tool: &str, label: &str) {
    match outcome {
        Outcome::Accepted { text } => {
            assert!(text.len() < 2 * MEGABYTE, "{tool} [{label}]: a {} byte reply", text.len());
        }
        Outcome::Rejected { code, text } => {
            assert!(code != "INTERNAL", "{tool} [{label}]: {text}");
            assert!(text.len() <= MAX_ERROR_TEXT, "{tool} [{label}]: {} bytes of error text", text.len());
        }
        Outcome::Protocol(e) => panic!("{tool} [{label}]: a protocol error for a known tool: {e}"),
    }
}

#[tokio::test]
async fn nul_control_characters_and_traversal_ids_never_reach_a_path() {
    let ws = workspace();
    let client = start(ws.path()).await;
    seeded(&client, ws.path()).await;
    let seed_path = ws.path().join(".docket/issues/ISS-000001-seed.md");
    let seed = std::fs::read(&seed_path).expect("the seeded issue");
    let tools = served_tools(&client).await;
    let mut a = Abuser::new(&client, ws.path());
    let id_keys = ["id", "issueId", "sessionId"];
    for tool in &tools {
        let tool_name = name(tool);
        let operations: Vec<Value> =
            tool["inputSchema"]["properties"]["operation"]["enum"].as_array().cloned().unwrap_or_default();
        for site in sites(&tool["inputSchema"]).into_iter().filter(|s| s.kind() == "string") {
            let param = site.display();
            let is_id = id_keys.contains(&site.key()) && !site.path.contains(&Seg::First);
            let mut values: Vec<String> =
                ["a\0b", "\0", "ISS-000001\0", "\u{1b}[31mred\u{1b}[0m", "\u{7f}\u{85}\u{2028}\u{feff}"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
            // Paths (session_start may name a spec file anywhere) vs ids, which must never resolve.
            let path_like = ["specFile", "workingDirectory"].contains(&site.key());
            let id_like = is_id || path_like || ["id", "ids", "issueIds"].contains(&site.key());
            if id_like {
                values.extend(TRAVERSAL_IDS.iter().map(|s| s.to_string()));
            }
            for value in values {
                // A tool with an operation is tried with each, so the id is actually used.
                let ops: Vec<Option<&Value>> = if operations.is_empty() || site.key() == "operation" {
                    vec![None]
                } else {
                    operations.iter().map(Some).collect()
                };
                for op in ops {
                    let mut args = arguments_with(tool, &site, Some(json!(value)));
                    if tool["inputSchema"]["properties"]["confirm"]["type"] == "boolean" {
                        // Past the confirmation, so the id itself is what gets checked.
                        args["confirm"] = json!(true);
                    }
                    if let Some(op) = op {
                        // Give the operation what it needs, so the id is what is tested.
                        args["operation"] = op.clone();
                        let props = &tool["inputSchema"]["properties"];
                        if props["labels"].is_object() && site.key() != "labels" {
                            args["labels"] = json!(["l"]);
                        }
                        if props["key"].is_object() && site.key() != "key" {
                            args["key"] = json!("k");
                        }
                    }
                    let label = format!("{param} = {value:?}{}", op.map(|o| format!(" ({o})")).unwrap_or_default());
                    let before = a.before.clone();
                    let outcome = a.call(tool_name, args, &label).await;
                    if id_like && !path_like {
                        // Accepted or not, an id that resolves to nothing changes nothing.
                        let after = snapshot(ws.path());
                        assert!(after == before, "{tool_name} [{label}]: {:?}", snapshot_diff(&before, &after));
                    }
                    match outcome {
                        Outcome::Rejected { code, text } => {
                            // CONFLICT: an earlier accepted call already created an issue titled "x".
                            let allowed: &[&str] = if is_id {
                                &["INVALID_ARGUMENT", "NOT_FOUND"]
                            } else {
                                &["INVALID_ARGUMENT", "NOT_FOUND", "CONFLICT"]
                            };
                            assert!(allowed.contains(&code.as_str()), "{tool_name} [{label}]: {code}: {text}");
                            assert!(text.len() <= MAX_ERROR_TEXT, "{tool_name} [{label}]: long error");
                            assert!(!text.contains("root:"), "{tool_name} [{label}] leaked a file: {text}");
                        }
                        Outcome::Accepted { text } => {
                            assert!(!text.contains("root:"), "{tool_name} [{label}] leaked a file: {text}");
                            assert!(!text.contains(CANARY), "{tool_name} [{label}] reached outside: {text}");
                            // An id that is used must never resolve to anything.
                            let id_used = is_id && (site.required || op.is_none_or(|o| o != "list"));
                            assert!(
                                !(id_used && value.contains(['/', '\\', '\0', '%'])),
                                "{tool_name} [{label}] accepted an unsafe id: {text}"
                            );
                        }
                        Outcome::Protocol(e) => panic!("{tool_name} [{label}]: protocol error {e}"),
                    }
                }
            }
        }
        a.assert_alive(tools.len()).await;
    }
    report("NUL and traversal", &a);
    // Whatever was accepted (NUL in a title, a filter that matches nothing) left parseable files.
    client.cancel().await.expect("close");
    assert_workspace_parses(ws.path());
    assert!(ws.path().join("outside/secret.md").is_file(), "the canary outside the workspace is untouched");
    assert_eq!(std::fs::read(&seed_path).expect("seed"), seed, "no id reached the seeded issue");
}

/// Every issue file parses: the store lists them without SKIPPED_FILES or DUPLICATE_ID.
fn assert_workspace_parses(root: &Path) -> usize {
    use docket::store::{IssueFilter, SortField, SortOrder, Store, StoreOptions, Workspace};
    let ws = Workspace::at(root).expect("workspace");
    let store = Store::open(ws, StoreOptions { cache: false, ..StoreOptions::default() });
    let listed = store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).expect("list");
    assert!(listed.warnings.is_empty(), "workspace warnings: {:?}", listed.warnings);
    listed.value.len()
}

const YAML_TITLES: &[&str] = &[
    "---",
    "key: value",
    "{a: 1}",
    "[x]",
    "&a *a",
    "!!python/object:os.system",
    "\"",
    "'",
    "#",
    "line\n---",
    "\n---\ntitle: injected\n---\n",
    "emoji 🚀 ✓ 👩‍👩‍👧",
    "null",
    "012",
    "~",
    "yes",
    "0x1F",
    ".inf",
    "1e3",
    "- dash",
    "? question",
    "| literal",
    "> folded",
    "%YAML 1.2",
    "@at `tick`",
    "<<: *a",
    "a: b: c",
    "tab\there",
    " leading and trailing ",
    "\\ backslash \\n",
    "a\0nul",
    "\u{1b}[31mansi",
    "right-to-left \u{202e}txet",
    "...",
    "--- !!binary",
    "title: x\nstatus: closed",
];

#[tokio::test]
async fn yaml_breaking_titles_round_trip_exactly_and_survive_a_restart() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let mut ids = Vec::new();
    for (i, title) in YAML_TITLES.iter().enumerate() {
        // The same hostile strings go into the body, labels, assignee and project of some issues.
        let description = format!("---\n{title}\n---\nbody {i}\n---");
        let mut args = json!({"title": title, "description": description});
        if i % 3 == 0 {
            args["labels"] = json!([title, "---", "a: b"]);
            args["assignee"] = json!(title);
            args["project"] = json!(title);
            args["wranglerContext"] = json!({"agentId": title, "estimatedEffort": "&x *x"});
        }
        let r = common::call(&client, "issues_create", args.clone()).await;
        assert!(!common::is_error(&r), "{title:?} is a valid title: {}", common::text(&r));
        let id = common::structured(&r)["issue"]["id"].as_str().expect("id").to_string();
        ids.push((id, args));
    }
    check_round_trip(&client, &ids, "same server").await;
    client.cancel().await.expect("close");
    assert_eq!(assert_workspace_parses(ws.path()), YAML_TITLES.len(), "every file parses");
    let client = start(ws.path()).await;
    check_round_trip(&client, &ids, "after restart").await;
    let listed = common::call(&client, "issues_list", json!({"limit": 100, "format": "minimal"})).await;
    assert_eq!(common::structured(&listed)["totalCount"], YAML_TITLES.len());
    let meta = serde_json::to_value(&listed.meta).expect("meta");
    assert_eq!(meta["warnings"], json!([]), "no skipped files after the restart");
    // Searching for the hostile strings works too (and finds the issue).
    let r = common::call(&client, "issues_search", json!({"query": "!!python/object", "fields": ["title"]})).await;
    assert_eq!(common::structured(&r)["totalCount"], 1, "{}", common::text(&r));
    client.cancel().await.expect("close");
}

/// Each issue reads back with exactly the values it was created with.
async fn check_round_trip(client: &Client, ids: &[(String, Value)], when: &str) {
    for (id, args) in ids {
        let r = common::call(client, "issues_get", json!({"id": id, "response_format": "json"})).await;
        assert!(!common::is_error(&r), "{when}: {id}: {}", common::text(&r));
        let issue = &common::structured(&r)["issue"];
        for key in ["title", "description", "labels", "assignee", "project", "wranglerContext"] {
            if let Some(sent) = args.get(key) {
                assert_eq!(&issue[key], sent, "{when}: {id} {key} round-trips exactly");
            }
        }
    }
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

// ---------------------------------------------------------------------------------------------
// Protocol-level abuse (raw pipe)

/// Lines no client should send, each with `@ID@` standing for its own request id. Each is
/// followed by a ping that must be answered. Only a few name docket's tools: to any other
/// server (tests/example_server.rs) they are calls of unknown tools.
pub(crate) fn malformed_lines() -> Vec<(&'static str, Vec<u8>)> {
    let call = |args: &[u8]| {
        [
            br#"{"jsonrpc":"2.0","id":@ID@,"method":"tools/call","params":{"name":"issues_get","arguments":"#
                .as_slice(),
            args,
            b"}}",
        ]
        .concat()
    };
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n)).into_bytes();
    let deep_args = |n: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","id":@ID@,"method":"tools/call","params":{{"name":"session_phase","arguments":{{"sessionId":"s","phase":"p","status":"started","metadata":{}1{}}}}}}}"#,
            r#"{"a":"#.repeat(n),
            "}".repeat(n)
        )
        .into_bytes()
    };
    let mut oversize =
        br#"{"jsonrpc":"2.0","id":@ID@,"method":"tools/call","params":{"name":"issues_search","arguments":{"query":""#
            .to_vec();
    oversize.extend(std::iter::repeat_n(b'q', 17 * MEGABYTE));
    oversize.extend(br#""}}}"#);
    let mut megabyte_id = br#"{"jsonrpc":"2.0","id":"#.to_vec();
    megabyte_id.push(b'"');
    megabyte_id.extend(std::iter::repeat_n(b'i', MEGABYTE));
    megabyte_id.extend(br#"","method":"ping"}"#);
    let line = |s: &str| s.as_bytes().to_vec();
    vec![
        ("not json", line("this is not json")),
        ("truncated json", line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"tools/list"  this is not json"#)),
        ("empty line", line("")),
        ("whitespace", line("   \t  ")),
        ("carriage return", line("\r")),
        ("invalid utf-8 bytes", b"\xff\xfe\xfd garbage \xc3\x28".to_vec()),
        ("invalid utf-8 in a string", call(b"{\"id\":\"\xff\xfe\"}")),
        ("raw NUL byte in a string", call(b"{\"id\":\"a\x00b\"}")),
        ("lone surrogate", call(br#"{"id":"\ud800"}"#)),
        ("reversed surrogates", call(br#"{"id":"\udc00\ud800"}"#)),
        ("escaped NUL id", call(br#"{"id":"ISS-000001\u0000"}"#)),
        ("traversal id", call(br#"{"id":"../../etc/passwd"}"#)),
        ("arguments is an array", call(b"[1,2,3]")),
        ("arguments is a string", call(br#""id""#)),
        ("null", line("null")),
        ("number", line("42")),
        ("string", line(r#""ping""#)),
        ("empty object", line("{}")),
        ("empty array", line("[]")),
        ("batch array", line(r#"[{"jsonrpc":"2.0","id":@ID@,"method":"ping"}]"#)),
        ("no jsonrpc field", line(r#"{"id":@ID@,"method":"ping"}"#)),
        ("jsonrpc 1.0", line(r#"{"jsonrpc":"1.0","id":@ID@,"method":"ping"}"#)),
        ("object id", line(r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#)),
        ("float id", line(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#)),
        ("null id", line(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#)),
        ("1 MB string id", megabyte_id),
        ("unknown method", line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"tools/frobnicate","params":{}}"#)),
        ("unknown method, no params", line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"frobnicate"}"#)),
        ("method is a number", line(r#"{"jsonrpc":"2.0","id":@ID@,"method":42}"#)),
        ("unknown notification", line(r#"{"jsonrpc":"2.0","method":"notifications/frobnicated"}"#)),
        ("non-MCP notification", line(r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{}}"#)),
        (
            "cancel of an unknown request",
            line(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9999}}"#),
        ),
        ("response nobody asked for", line(r#"{"jsonrpc":"2.0","id":9998,"result":{}}"#)),
        ("tools/call params a string", line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"tools/call","params":"x"}"#)),
        ("tools/call without params", line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"tools/call"}"#)),
        ("tools/call without name", line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"tools/call","params":{}}"#)),
        ("tools/call name a number", line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"tools/call","params":{"name":42}}"#)),
        (
            "tools/call unknown tool",
            line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#),
        ),
        (
            "resources/read traversal",
            line(
                r#"{"jsonrpc":"2.0","id":@ID@,"method":"resources/read","params":{"uri":"docket://issues/../../etc/passwd"}}"#,
            ),
        ),
        (
            "resources/read file uri",
            line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}"#),
        ),
        (
            "second initialize",
            line(
                r#"{"jsonrpc":"2.0","id":@ID@,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"again","version":"0"}}}"#,
            ),
        ),
        (
            "BOM before a request",
            [b"\xef\xbb\xbf".as_slice(), br#"{"jsonrpc":"2.0","id":@ID@,"method":"ping"}"#].concat(),
        ),
        ("100k-deep array", deep(100_000)),
        ("10k-deep arguments", deep_args(10_000)),
        ("17 MB line", oversize),
    ]
}

/// `line` with its first `@ID@` replaced by `id`.
fn with_id(line: &[u8], id: i64) -> Vec<u8> {
    const MARK: &[u8] = b"@ID@";
    match line.windows(MARK.len()).position(|w| w == MARK) {
        Some(at) => [&line[..at], id.to_string().as_bytes(), &line[at + MARK.len()..]].concat(),
        None => line.to_vec(),
    }
}

#[test]
fn malformed_lines_invalid_utf8_and_unknown_methods_keep_the_server_up() {
    let ws = workspace();
    let seed = "---\nid: ISS-000001\ntitle: Seed\n---\nbody\n";
    std::fs::write(ws.path().join(".docket/issues/ISS-000001-seed.md"), seed).expect("seed");
    let before = snapshot(ws.path());
    let mut server = RawServer::spawn(ws.path());
    let init = server.initialize();
    assert_eq!(init["result"]["serverInfo"]["name"], "docket");
    let lines = malformed_lines();
    let messages = answer_malformed_lines(&mut server, &lines);
    // The answer to each line that carried an id, if any.
    let reply_to = |label: &str| -> Option<&Value> {
        let i = lines.iter().position(|(l, _)| *l == label).expect("known label");
        messages.iter().find(|m| m["id"] == json!(500 + i))
    };
    let tool_error_text = |label: &str| -> String {
        let msg = reply_to(label).unwrap_or_else(|| panic!("{label}: no reply"));
        assert_eq!(msg["result"]["isError"], true, "{label}: {msg}");
        msg["result"]["content"][0]["text"].as_str().unwrap_or_default().to_string()
    };
    assert!(tool_error_text("escaped NUL id").contains("Invalid issue ID"));
    assert!(tool_error_text("traversal id").contains("Invalid issue ID"));
    for label in ["unknown method", "unknown method, no params", "tools/call unknown tool"] {
        let msg = reply_to(label).unwrap_or_else(|| panic!("{label}: no reply"));
        let code = msg["error"]["code"].as_i64().unwrap_or(0);
        assert!([-32601, -32600, -32602].contains(&code), "{label}: method not found / invalid request: {msg}");
    }
    let unknown_tool = reply_to("tools/call unknown tool").expect("reply");
    assert!(unknown_tool["error"]["message"].as_str().unwrap_or("").contains("Unknown tool 'nope'"), "{unknown_tool}");
    for label in ["resources/read traversal", "resources/read file uri"] {
        let msg = reply_to(label).unwrap_or_else(|| panic!("{label}: no reply"));
        assert!(msg.get("error").is_some(), "{label}: must be an error: {msg}");
        assert!(!msg.to_string().contains("root:"), "{label}: leaked /etc/passwd");
    }
    let carried_id = |line: &[u8]| line.windows(4).any(|w| w == b"@ID@");
    let unanswered: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|(i, (_, line))| carried_id(line) && !messages.iter().any(|m| m["id"] == json!(500 + *i as i64)))
        .map(|(_, (l, _))| *l)
        .collect();
    let null_id_errors = messages.iter().filter(|m| m["id"].is_null() && m.get("error").is_some()).count();
    eprintln!(
        "raw protocol: {} malformed lines, {} replies ({null_id_errors} Invalid Request errors with id null); \
         requests without a reply of their own (unparsable or not a request, dropped by rmcp): {unanswered:?}",
        lines.len(),
        messages.len()
    );
    let status = server.close();
    assert!(status.success(), "clean exit on stdin EOF after the abuse: {status}");
    let after = snapshot(ws.path());
    assert!(after == before, "malformed lines changed the workspace: {:?}", snapshot_diff(&before, &after));
}

/// Sends each of `lines` (with its own id) to an initialized `server`, each followed by a ping
/// that must be answered; checks that tools/list is the same after, and that every reply is
/// JSON-RPC 2.0, short (but for a repeated id) and, if an error, has a code and a message.
/// Returns every message that came back but the pongs.
pub(crate) fn answer_malformed_lines(server: &mut RawServer, lines: &[(&'static str, Vec<u8>)]) -> Vec<Value> {
    let tools = server.request(1, "tools/list", json!({}));
    let tool_count = tools["result"]["tools"].as_array().map(Vec::len).expect("tools");
    let mut messages: Vec<Value> = Vec::new();
    for (i, (label, line)) in lines.iter().enumerate() {
        let id = 500 + i as i64;
        assert!(server.send_bytes(&with_id(line, id)), "{label}: the server closed its stdin");
        let ping_id = json!(10_000 + i);
        assert!(server.send(&json!({"jsonrpc": "2.0", "id": ping_id, "method": "ping"})), "{label}: pipe closed");
        let mut seen = server
            .recv_until(&ping_id, Duration::from_secs(30))
            .unwrap_or_else(|| panic!("{label}: the server stopped answering (ping {ping_id} unanswered)"));
        let pong = seen.pop().expect("pong");
        assert_eq!(pong["result"], json!({}), "{label}: ping answered: {pong}");
        messages.extend(seen);
    }
    let tools = server.request(2, "tools/list", json!({}));
    assert_eq!(tools["result"]["tools"].as_array().map(Vec::len), Some(tool_count), "tools/list after the abuse");
    for msg in &messages {
        assert_eq!(msg["jsonrpc"], "2.0", "{msg}");
        // A response repeats its request's id, however long; everything else stays short.
        let mut without_id = msg.clone();
        without_id.as_object_mut().map(|o| o.remove("id"));
        assert!(
            without_id.to_string().len() <= MAX_ERROR_TEXT,
            "a {} byte reply: {}",
            msg.to_string().len(),
            abbreviate(msg)
        );
        if let Some(err) = msg.get("error") {
            assert!(err["code"].is_i64(), "an error has a code: {msg}");
            assert!(err["message"].as_str().is_some_and(|m| !m.is_empty()), "an error has a message: {msg}");
        }
    }
    messages
}
