//! The one place a tool result is built: structuredContent, the text block, `isError` and the
//! operational metadata in `_meta` (never mixed into the text the model reads). `tokens` counts
//! the text block, what clients show the model, with the server's counter.

use std::time::Instant;

use rmcp::model::{CallToolResult, ContentBlock, MetaObject, Resource};
use serde_json::{Map, Value, json};

use crate::{Reply, ToolError, Warning};

/// What the envelope needs to know about the call and the server.
pub struct CallFacts<'a> {
    /// `_meta.request_id`.
    pub request_id: String,
    /// When the call arrived (`_meta.duration_ms`).
    pub started: Instant,
    /// `_meta.tool_version`: the server's version.
    pub version: &'a str,
    /// The server's own `_meta` entries, after `timestamp` (an index's state, say).
    pub extra: Map<String, Value>,
    /// Whether `_meta.cached` is written, after the server's entries: for a server whose replies
    /// say whether they came from a cache ([`Reply::cached`], `false` when a reply does not say,
    /// and on errors). Off: no `cached` entry.
    pub cached: bool,
    /// Warnings about the call itself (an observer's), before the handler's own.
    pub warnings: Vec<Warning>,
    /// `_meta.tokens` of a text block.
    pub count_tokens: fn(&str) -> usize,
}

/// The `CallToolResult` of a handler's reply or error, with `_meta`.
pub fn call_result(result: Result<Reply<Value>, ToolError>, facts: &CallFacts) -> CallToolResult {
    let mut meta = Map::new();
    meta.insert("request_id".into(), json!(facts.request_id));
    meta.insert("tool_version".into(), json!(facts.version));
    meta.insert("timestamp".into(), json!(chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)));
    meta.extend(facts.extra.clone());
    let result = match result {
        Ok(reply) => {
            if facts.cached {
                // A reply that does not say read its source, so "not cached" is the honest default.
                meta.insert("cached".into(), json!(reply.cached.unwrap_or(false)));
            }
            if let Some(r) = reply.results {
                meta.insert("results_total".into(), json!(r.total));
                meta.insert("results_returned".into(), json!(r.returned));
                meta.insert("results_truncated".into(), json!(r.truncated));
            }
            let warnings: Vec<&Warning> = facts.warnings.iter().chain(&reply.warnings).collect();
            meta.insert("warnings".into(), json!(warnings));
            if let Some(context) = reply.context {
                meta.insert("tool_context".into(), context);
            }
            let shown = visible(&warnings);
            let mut data = reply.data;
            if let (false, Some(obj)) = (shown.is_empty(), data.as_object_mut()) {
                obj.insert("warnings".into(), json!(shown));
            }
            let text = match reply.text {
                Some(text) => with_warnings(text, &shown),
                None => data.to_string(),
            };
            meta.insert("tokens".into(), json!((facts.count_tokens)(&text)));
            let mut content = vec![ContentBlock::text(text)];
            for link in reply.links {
                let resource = Resource::new(link.uri, link.name)
                    .with_description(link.description)
                    .with_mime_type("text/markdown");
                content.push(ContentBlock::resource_link(resource));
            }
            let mut r = CallToolResult::success(content);
            r.structured_content = Some(data);
            r
        }
        Err(e) => {
            meta.insert("error".into(), json!({"code": e.code.as_str(), "template": e.template}));
            if facts.cached {
                meta.insert("cached".into(), json!(false));
            }
            meta.insert("warnings".into(), json!(facts.warnings));
            // No structuredContent on errors: clients validate it against the success schema.
            let shown = visible(&facts.warnings.iter().collect::<Vec<_>>());
            let text = with_warnings(format!("{}: {}", e.code.as_str(), e.message), &shown);
            meta.insert("tokens".into(), json!((facts.count_tokens)(&text)));
            CallToolResult::error(vec![ContentBlock::text(text)])
        }
    };
    meta.insert("duration_ms".into(), json!(facts.started.elapsed().as_secs_f64() * 1000.0));
    result.with_meta(Some(MetaObject(meta)))
}

/// Messages of the warnings the model must see whatever its client shows (`Warning::visible`).
fn visible(warnings: &[&Warning]) -> Vec<String> {
    warnings.iter().filter(|w| w.visible).map(|w| w.message.clone()).collect()
}

/// The text block with one `Warning: ...` line per visible warning after it.
fn with_warnings(mut text: String, shown: &[String]) -> String {
    for (i, message) in shown.iter().enumerate() {
        text.push_str(if i == 0 { "\n\n" } else { "\n" });
        text.push_str("Warning: ");
        text.push_str(message);
    }
    text
}
