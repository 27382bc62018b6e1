//! Every tool, called with its samples from tools.yaml over stdio, returns structuredContent that
//! validates against the outputSchema it publishes (JSON Schema 2020-12), answers within the
//! manifest's `answer_tokens` budget in each view (text blocks alone; structuredContent alone, as
//! compact JSON, the way JSON.stringify forwards it), and every published schema is itself valid.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use common::samples::{Runner, manifest_samples};
use common::{Client, call, is_error, start, structured, text, workspace};
use docket::generated::limits;
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
        self.validate(tool, &args, &r)
    }

    /// Requires success, validates `r`'s _meta and structuredContent; returns the latter.
    fn validate(&mut self, tool: &str, args: &Value, r: &rmcp::model::CallToolResult) -> Value {
        assert!(!is_error(r), "{tool} {args} failed: {}", text(r));
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
        let data = structured(r);
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

fn tokens(s: &str) -> usize {
    tiktoken_rs::o200k_base_singleton().encode_ordinary(s).len()
}

/// What the model reads of an answer in each view: every text block; structuredContent as compact
/// JSON without ASCII escaping (serde_json, like JSON.stringify).
fn views(r: &rmcp::model::CallToolResult) -> (usize, usize) {
    let text: Vec<String> = r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect();
    (tokens(&text.join("\n")), tokens(&structured(r).to_string()))
}

#[tokio::test]
async fn every_sample_answer_matches_its_output_schema_within_its_token_budget() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let mut c = Checker::new(&client).await;
    let mut runner = Runner::default();
    let mut over = Vec::new();
    for sample in manifest_samples() {
        let ran = runner.run(&client, &sample).await;
        if ran.error.is_some() {
            continue;
        }
        c.validate(&ran.tool, &ran.args, &ran.result);
        let budget = limits::get(&ran.tool, "answer_tokens")
            .unwrap_or_else(|| panic!("{} declares no limits.answer_tokens in tools.yaml", ran.tool));
        let (text_view, structured_view) = views(&ran.result);
        println!(
            "{:>22}: text {text_view:>4}, structured {structured_view:>4} (budget {budget}) {}",
            ran.tool, ran.args
        );
        if text_view.max(structured_view) > budget {
            over.push(format!("{} {}: text {text_view}, structured {structured_view} > {budget}", ran.tool, ran.args));
        }
    }
    // An ignored parameter adds `warnings` to structuredContent; the schema must allow it.
    let warned = c.check(&client, "issues_search", json!({"query": "sample", "type": "specification"})).await;
    assert!(warned["warnings"][0].as_str().is_some_and(|w| w.contains("'type'")), "{warned}");

    let published: BTreeSet<String> = c.schemas.keys().cloned().collect();
    assert_eq!(c.checked, published, "every published tool has a sample that succeeds (tools.yaml samples:)");
    assert!(over.is_empty(), "answers over their tools.yaml answer_tokens budget:\n{}", over.join("\n"));
    client.cancel().await.expect("close");
}
