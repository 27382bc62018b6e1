//! Tool profiles: the granular tools of tools.yaml, or the consolidated profile that folds each
//! group into one action-parameterised tool (`generated::consolidated`). Both run the same
//! handlers; the consolidated profile resolves (tool, action) to the underlying tool first.

use std::sync::{Arc, OnceLock};

use serde_json::{Map, Value};

use crate::config::ToolStyle;
use crate::generated::{self, consolidated};
use crate::runtime::{self, Reply, ToolError, Warning};

impl ToolStyle {
    /// The tools tools/list publishes in this style, built once per process and shared by
    /// every connection (each HTTP session used to hold its own ~0.5 MB copy).
    pub fn tools(&self) -> Arc<Vec<rmcp::model::Tool>> {
        static GRANULAR: OnceLock<Arc<Vec<rmcp::model::Tool>>> = OnceLock::new();
        static CONSOLIDATED: OnceLock<Arc<Vec<rmcp::model::Tool>>> = OnceLock::new();
        let built = match self {
            ToolStyle::Granular => GRANULAR.get_or_init(|| Arc::new(generated::tool_definitions())),
            ToolStyle::Consolidated => CONSOLIDATED.get_or_init(|| Arc::new(consolidated::tool_definitions())),
        };
        Arc::clone(built)
    }

    /// The server instructions, naming tools as this style publishes them: tools.yaml's, then
    /// the work loop of the skill (docs/skill/SKILL.md, served whole as `skill://docket/SKILL.md`).
    pub fn instructions(&self) -> String {
        let (base, loop_line) = match self {
            ToolStyle::Granular => (generated::SERVER_INSTRUCTIONS, crate::agents::loop_line().to_string()),
            ToolStyle::Consolidated => (consolidated::INSTRUCTIONS, rewrite(crate::agents::loop_line())),
        };
        format!("{}\n{loop_line} Details: {}.", base.trim_end(), crate::agents::SKILL_URI)
    }
}

/// A call after profile resolution: the underlying tool, its arguments, or why it cannot run.
pub struct Resolved {
    /// The underlying tool when known (also for a resolve error of a known action).
    pub tool: Option<&'static str>,
    /// The underlying tool's arguments; after a resolve error, only its error-context ones.
    pub args: Map<String, Value>,
    pub error: Option<ToolError>,
}

/// Resolves a consolidated call; `None` when `name` is not a consolidated tool.
pub fn resolve(name: &str, args: Map<String, Value>) -> Option<Resolved> {
    let underlying = runtime::consolidated::underlying(consolidated::GROUPS, name, &args);
    // Kept for error intelligence, which identifies a failure by the underlying tool's declared
    // context parameters (only those are copied, not the whole call).
    let kept = underlying
        .and_then(|tool| generated::TOOLS.iter().find(|t| t.name == tool))
        .map(|spec| crate::call::memory::context_of(spec, &args))
        .unwrap_or_default();
    let tools = ToolStyle::Consolidated.tools();
    let published = tools.iter().find(|t| t.name == name)?;
    if let Err(e) = runtime::consolidated::check_published_types(&published.input_schema, &args, &consolidated::ERRORS)
    {
        return Some(Resolved { tool: underlying, args: kept, error: Some(e) });
    }
    Some(match runtime::consolidated::resolve(consolidated::GROUPS, &consolidated::ERRORS, name, args)? {
        Ok((tool, args)) => Resolved { tool: Some(tool), args, error: None },
        Err(e) => Resolved { tool: underlying, args: kept, error: Some(e) },
    })
}

/// Names every granular tool in `text` as its consolidated call (`issues_list` ->
/// `issues(action=list)`), so hints in messages point at tools this profile publishes.
pub fn rewrite(text: &str) -> String {
    rewrite_except(text, &[])
}

/// [`rewrite`], leaving every occurrence of a `protected` string (user data) as it is.
fn rewrite_except(text: &str, protected: &[String]) -> String {
    runtime::aliases::rewrite(text, consolidated::ALIASES, protected)
}

/// Rewrites the texts of a result (message, text block, warnings) for the consolidated profile;
/// structuredContent stays exactly the underlying tool's but for its `next` hints, which name
/// the call to make next. User data is never rewritten: every
/// string of structuredContent that names a tool (an issue titled "issues_get fails") is kept
/// as is wherever the text repeats it.
pub fn rewrite_result(result: Result<Reply<Value>, ToolError>) -> Result<Reply<Value>, ToolError> {
    match result {
        Ok(mut reply) => {
            // `next` is the server's own hint (the call that reads on), not user data.
            let hints = take_hints(&mut reply.data);
            let mut protected = Vec::new();
            user_strings(&reply.data, &mut protected);
            put_hints(&mut reply.data, hints);
            reply.text = reply.text.map(|t| rewrite_except(&t, &protected));
            for w in &mut reply.warnings {
                w.message = rewrite_except(&w.message, &protected);
            }
            Ok(reply)
        }
        Err(mut e) => {
            e.message = rewrite(&e.message);
            Err(e)
        }
    }
}

/// The `next` hints of a result and of its records (`issue`, `issues[]`), taken out with
/// their places, so that they are not protected as user data.
fn take_hints(data: &mut Value) -> Vec<(Vec<Value>, String)> {
    let mut out = Vec::new();
    let mut take = |at: &mut Value, path: Vec<Value>| {
        if let Some(Value::String(s)) = at.as_object_mut().and_then(|o| o.remove("next")) {
            out.push((path, s));
        }
    };
    take(data, vec![]);
    if let Some(issue) = data.get_mut("issue") {
        take(issue, vec!["issue".into()]);
    }
    if let Some(Value::Array(items)) = data.get_mut("issues") {
        for (i, item) in items.iter_mut().enumerate() {
            take(item, vec!["issues".into(), i.into()]);
        }
    }
    out
}

/// Puts the hints back, each in this profile's tool names.
fn put_hints(data: &mut Value, hints: Vec<(Vec<Value>, String)>) {
    for (path, hint) in hints {
        let mut at = &mut *data;
        for step in &path {
            at = match step {
                Value::String(k) => &mut at[k.as_str()],
                _ => &mut at[step.as_u64().unwrap_or_default() as usize],
            };
        }
        if let Some(o) = at.as_object_mut() {
            o.insert("next".into(), Value::String(rewrite(&hint)));
        }
    }
}

/// The strings (and object keys) of `data` that [`rewrite`] would change, in the forms a text
/// may repeat them: as they are, each line alone, and JSON-escaped (a context shown as JSON).
fn user_strings(data: &Value, out: &mut Vec<String>) {
    match data {
        Value::String(s) => protect(s, out),
        Value::Array(items) => items.iter().for_each(|v| user_strings(v, out)),
        Value::Object(map) => {
            for (k, v) in map {
                protect(k, out);
                user_strings(v, out);
            }
        }
        _ => {}
    }
}

fn protect(s: &str, out: &mut Vec<String>) {
    if rewrite(s) == s {
        return;
    }
    out.push(s.to_string());
    out.extend(s.lines().filter(|l| rewrite(l) != *l).map(str::to_string));
    let escaped = Value::String(s.to_string()).to_string();
    let escaped = &escaped[1..escaped.len() - 1];
    if escaped != s {
        out.push(escaped.to_string());
    }
}

pub fn rewrite_warnings(warnings: &mut [Warning]) {
    for w in warnings {
        w.message = rewrite(&w.message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrite_names_whole_tool_names_only() {
        assert_eq!(
            rewrite("Use issues_list or issues_get_batch, then issues_get."),
            "Use issues(action=list) or issues(action=get_batch), then issues(action=get)."
        );
        assert_eq!(rewrite("my_issues_list and issues_listing stay"), "my_issues_list and issues_listing stay");
        assert_eq!(rewrite("é errors_resolve"), "é errors(action=resolve)");
    }

    #[test]
    fn user_data_in_a_result_is_never_rewritten() {
        let data = serde_json::json!({"issue": {"id": "ISS-000001", "title": "issues_get drops fields",
            "labels": ["session_start"], "wranglerContext": {"note": "see \"issues_list\""}}});
        let text = "Updated ISS-000001: issues_get drops fields (labels: session_start) \
                    {\"note\":\"see \\\"issues_list\\\"\"}. Next: issues_get.";
        let reply = Reply::new(data.clone()).with_text(text);
        let Ok(out) = rewrite_result(Ok(reply)) else { panic!("still a success") };
        assert_eq!(
            out.text.as_deref(),
            Some(
                "Updated ISS-000001: issues_get drops fields (labels: session_start) \
                 {\"note\":\"see \\\"issues_list\\\"\"}. Next: issues(action=get)."
            )
        );
        assert_eq!(out.data, data, "structuredContent is untouched");
    }
}
