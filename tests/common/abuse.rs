//! The abuse suite's shared helpers: the schema walk over the served tools/list, the generated
//! bad values, and the `Abuser` that snapshots the workspace around every call. The suite itself
//! is split by kind: tests/hostile/abuse_values.rs (wrong types, missing, oversize values, unknown tools),
//! tests/hostile/abuse_paths.rs (NUL, control characters and traversal ids), tests/hostile/abuse_yaml.rs
//! (YAML-breaking text round-trips) and tests/hostile/abuse_stdio.rs (protocol abuse on the raw pipe).
//!
//! Every abusive call is generated from the served tools/list (each tool's inputSchema), so a new
//! tool or parameter is covered without touching the suite. Each rejected call must come back as
//! an `isError` result (or a JSON-RPC error for protocol problems) whose message names what was
//! wrong, the server must keep answering, and the workspace (every file outside `cache/`, which
//! the error memory legitimately writes) must be byte-for-byte what it was before the call.
//! Run with `--nocapture` to see how many calls each test made.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use super::{Client, snapshot, snapshot_diff};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use serde_json::{Value, json};
/// A call that takes longer than this is a hang.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// A rejection's text may name the parameter and list what is valid, but never echo a megabyte.
pub const MAX_ERROR_TEXT: usize = 4_000;
pub const MEGABYTE: usize = 1 << 20;
/// Written outside the workspace; no reply may ever contain it.
pub const CANARY: &str = "CANARY-7f3a";

pub const TRAVERSAL_IDS: &[&str] = &[
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
pub enum Seg {
    Key(String),
    First,
}

/// A place in a tool's arguments where a value can go, with its schema.
#[derive(Clone, Debug)]
pub struct Site {
    pub path: Vec<Seg>,
    pub schema: Value,
    /// Required by the object holding it.
    pub required: bool,
}

impl Site {
    /// The parameter as the server names it: `updates[0].status`, `labels[0]`.
    pub fn display(&self) -> String {
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

    pub fn key(&self) -> &str {
        self.path.iter().rev().find_map(|s| if let Seg::Key(k) = s { Some(k.as_str()) } else { None }).unwrap_or("")
    }

    pub fn kind(&self) -> &str {
        kind(&self.schema)
    }
}

/// The server's own bound (`max_items` or `max_len`) for a site: the published schemas leave
/// lengths and item counts out, the generated argument rules enforce them.
pub fn server_bound(tool: &str, site: &Site, max_items: bool) -> Option<u64> {
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

pub fn kind(schema: &Value) -> &str {
    schema["type"].as_str().unwrap_or("any")
}

pub fn is_enum(schema: &Value) -> bool {
    schema["enum"].is_array()
}

pub fn required_keys(schema: &Value) -> Vec<String> {
    schema["required"].as_array().into_iter().flatten().filter_map(|v| v.as_str().map(String::from)).collect()
}

/// Every place a value can go, depth first (properties, nested objects, array items).
pub fn sites(schema: &Value) -> Vec<Site> {
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
pub fn baseline(schema: &Value) -> Value {
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
pub fn arguments_with(tool: &Value, site: &Site, leaf: Option<Value>) -> Value {
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
pub fn wrong_values(schema: &Value) -> Vec<Value> {
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
pub enum Outcome {
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
pub struct Abuser<'a> {
    pub client: &'a Client,
    pub root: &'a Path,
    pub before: BTreeMap<String, Vec<u8>>,
    pub calls: usize,
    pub rejected: usize,
    /// Calls that succeeded (allowed for some classes, e.g. a 1 MB filter string): `tool: label`.
    pub accepted: Vec<String>,
}

impl<'a> Abuser<'a> {
    pub fn new(client: &'a Client, root: &'a Path) -> Self {
        Abuser { client, root, before: snapshot(root), calls: 0, rejected: 0, accepted: Vec::new() }
    }

    pub async fn call(&mut self, tool: &str, args: Value, label: &str) -> Outcome {
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
    pub async fn expect_invalid(&mut self, tool: &str, args: Value, label: &str, needle: &str) {
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
    pub async fn expect_ignored(&mut self, tool: &str, args: Value, label: &str, needle: &str) {
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
    pub async fn assert_alive(&self, expected_tools: usize) {
        let tools = tokio::time::timeout(CALL_TIMEOUT, self.client.list_all_tools())
            .await
            .expect("tools/list answered in time")
            .expect("tools/list");
        assert_eq!(tools.len(), expected_tools, "tools/list still lists every tool");
    }
}

/// "expected an integer, got an integer" tells the caller nothing: what was expected and what
/// was sent must differ in every type error.
pub fn assert_no_contradiction(text: &str, tool: &str, label: &str) {
    for line in text.lines() {
        if let Some((_, rest)) = line.split_once("expected ")
            && let Some((expected, got)) = rest.split_once(", got ")
        {
            let got = got.trim_end_matches('.');
            assert_ne!(expected, got, "{tool} [{label}]: a type error that contradicts itself: {line}");
        }
    }
}

pub fn first_text(r: &CallToolResult) -> String {
    r.content.first().and_then(|c| c.as_text()).map(|t| t.text.clone()).unwrap_or_default()
}

pub fn error_code(r: &CallToolResult) -> String {
    let meta = serde_json::to_value(&r.meta).unwrap_or(Value::Null);
    meta["error"]["code"].as_str().unwrap_or("<no _meta.error.code>").to_string()
}

/// The arguments for a failure message, without megabytes of payload.
pub fn abbreviate(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 300 { format!("{}… ({} bytes)", s.chars().take(300).collect::<String>(), s.len()) } else { s }
}

pub async fn served_tools(client: &Client) -> Vec<Value> {
    let tools = client.list_all_tools().await.expect("tools/list");
    assert!(!tools.is_empty());
    tools.iter().map(|t| serde_json::to_value(t).expect("tool serializes")).collect()
}

pub fn name(tool: &Value) -> &str {
    tool["name"].as_str().expect("tool name")
}

/// A workspace with one real issue (so traversal ids have something to start from) and a file
/// outside the workspace that no id may reach.
pub async fn seeded(client: &Client, root: &Path) {
    let r = super::call(client, "issues_create", json!({"title": "Seed", "description": "seed body"})).await;
    assert!(!super::is_error(&r), "{}", super::text(&r));
    std::fs::create_dir_all(root.join("outside")).expect("mkdir outside");
    let canary = format!("---\nid: ISS-000001\ntitle: {CANARY}\n---\n{CANARY}\n");
    std::fs::write(root.join("outside/secret.md"), canary).expect("canary");
}

pub fn report(test: &str, a: &Abuser<'_>) {
    eprintln!(
        "{test}: {} abusive calls, {} rejected, {} accepted{}",
        a.calls,
        a.rejected,
        a.accepted.len(),
        if a.accepted.is_empty() { String::new() } else { format!(" ({})", a.accepted.join("; ")) }
    );
}

/// An accepted call is fine for this class; a rejection must still be short and coded.
pub fn check_clear_or_accepted(outcome: Outcome, tool: &str, label: &str) {
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

/// Every issue file parses: the store lists them without SKIPPED_FILES or DUPLICATE_ID.
pub fn assert_workspace_parses(root: &Path) -> usize {
    use docket::store::{IssueFilter, SortField, SortOrder, Store, StoreOptions, Workspace};
    let ws = Workspace::at(root).expect("workspace");
    let store = Store::open(ws, StoreOptions { cache: false, ..StoreOptions::default() });
    let listed = store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).expect("list");
    assert!(listed.warnings.is_empty(), "workspace warnings: {:?}", listed.warnings);
    listed.value.len()
}
