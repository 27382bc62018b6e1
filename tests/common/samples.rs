//! The manifest's sample calls (tools.yaml `samples:`, printed by `codegen samples`), run in
//! order over a real client. The CI clients (.ci/clients) run the same list the same way.

use std::collections::HashMap;

use rmcp::model::{CallToolResult, ReadResourceRequestParams};
use serde_json::{Value, json};

use super::{Client, call, is_error, structured, text};

/// tools.yaml as codegen reads it.
pub fn manifest() -> codegen::model::Model {
    codegen::load("tools.yaml", include_str!("../../tools.yaml")).unwrap_or_else(|diags| {
        panic!("tools.yaml: {}", diags.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))
    })
}

/// Every tool's samples, in the order they run.
pub fn manifest_samples() -> Vec<Value> {
    manifest().tools.into_iter().flat_map(|t| t.samples).collect()
}

/// One sample's call and what came back.
pub struct Ran {
    pub tool: String,
    pub args: Value,
    pub result: CallToolResult,
    /// The error code the sample expected, when it is a deliberate failure.
    pub error: Option<String>,
}

/// Runs samples in order, keeping the values they save for the later ones.
#[derive(Default)]
pub struct Runner {
    vars: HashMap<String, Value>,
}

impl Runner {
    /// Runs one sample: reads its resource, substitutes variables, calls the tool, checks the
    /// expected error or the `expect` values, saves what it names.
    pub async fn run(&mut self, client: &Client, sample: &Value) -> Ran {
        self.run_as(client, sample, |tool, args| (tool.to_string(), args)).await
    }

    /// Like [`Runner::run`], with the call rewritten first (another profile's tool name and
    /// arguments); `Ran` holds the call as made.
    pub async fn run_as(
        &mut self,
        client: &Client,
        sample: &Value,
        rewrite: impl Fn(&str, Value) -> (String, Value),
    ) -> Ran {
        let tool = sample["tool"].as_str().expect("tool").to_string();
        if let Some(read) = sample.get("read") {
            let uri = read["uri"].as_str().expect("uri");
            let res = client.read_resource(ReadResourceRequestParams::new(uri)).await.expect("read resource");
            let contents = serde_json::to_value(&res).expect("json")["contents"][0]["text"].clone();
            let body: Value = serde_json::from_str(contents.as_str().unwrap_or("null")).expect("resource JSON");
            self.save(&body, &read["save"], &format!("{tool}: {uri}"));
        }
        let (tool, args) = rewrite(&tool, self.substitute(&sample["args"]));
        let result = call(client, &tool, args.clone()).await;
        let error = sample.get("error").and_then(Value::as_str).map(str::to_string);
        if let Some(code) = &error {
            assert!(is_error(&result), "{tool} {args}: expected {code}, got success: {}", text(&result));
            let meta = serde_json::to_value(&result.meta).expect("meta");
            assert_eq!(meta["error"]["code"], json!(code), "{tool} {args}: {}", text(&result));
        } else {
            assert!(!is_error(&result), "{tool} {args} failed: {}", text(&result));
            let data = structured(&result);
            for (pointer, want) in sample.get("expect").and_then(Value::as_object).into_iter().flatten() {
                let want = self.substitute(want);
                assert_eq!(data.pointer(pointer), Some(&want), "{tool} {args}: {pointer} in {data}");
            }
            self.save(&data, &sample["save"], &tool);
        }
        Ran { tool, args, result, error }
    }

    fn save(&mut self, from: &Value, names: &Value, what: &str) {
        for (name, pointer) in names.as_object().into_iter().flatten() {
            let pointer = pointer.as_str().expect("pointer");
            let value = from.pointer(pointer).unwrap_or_else(|| panic!("{what}: nothing at {pointer} in {from}"));
            self.vars.insert(name.clone(), value.clone());
        }
    }

    /// `$name` strings become the saved value; `${name}` inside a string its text.
    fn substitute(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => match s.strip_prefix('$').and_then(|n| self.vars.get(n)) {
                Some(value) => value.clone(),
                None => {
                    let mut out = s.clone();
                    for (name, value) in &self.vars {
                        let text = value.as_str().map_or_else(|| value.to_string(), str::to_string);
                        out = out.replace(&format!("${{{name}}}"), &text);
                    }
                    Value::String(out)
                }
            },
            Value::Array(a) => Value::Array(a.iter().map(|x| self.substitute(x)).collect()),
            Value::Object(o) => Value::Object(o.iter().map(|(k, x)| (k.clone(), self.substitute(x))).collect()),
            other => other.clone(),
        }
    }
}
