//! Requests rmcp could not fit to a method arrive as custom requests: a known method whose
//! params have the wrong shape (answered -32602 with what is wrong and the expected shape), a
//! tool name sent as a method, or a method that does not exist (-32601).

use rmcp::model::ErrorData;
use serde_json::Value;

use crate::util::{clip, json_kind};

#[derive(Clone, Copy)]
enum Kind {
    Text,
    Object,
}

/// A parameter: name, kind, required.
type Param = (&'static str, Kind, bool);

/// Each method docket answers: its params and an example.
const METHODS: &[(&str, &[Param], &str)] = &[
    (
        "initialize",
        &[
            ("protocolVersion", Kind::Text, true),
            ("capabilities", Kind::Object, true),
            ("clientInfo", Kind::Object, true),
        ],
        r#"{"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "my-client", "version": "1.0"}}"#,
    ),
    ("ping", &[], "no params"),
    ("tools/list", &[("cursor", Kind::Text, false)], r#"{} or {"cursor": "..."}"#),
    (
        "tools/call",
        &[("name", Kind::Text, true), ("arguments", Kind::Object, false)],
        r#"{"name": "issues_list", "arguments": {"status": ["open"]}}"#,
    ),
    ("resources/list", &[("cursor", Kind::Text, false)], r#"{} or {"cursor": "..."}"#),
    ("resources/templates/list", &[("cursor", Kind::Text, false)], r#"{} or {"cursor": "..."}"#),
    ("resources/read", &[("uri", Kind::Text, true)], r#"{"uri": "docket://issues/ISS-000001"}"#),
    ("resources/subscribe", &[("uri", Kind::Text, true)], r#"{"uri": "docket://board"}"#),
    ("resources/unsubscribe", &[("uri", Kind::Text, true)], r#"{"uri": "docket://board"}"#),
    ("prompts/list", &[("cursor", Kind::Text, false)], r#"{} or {"cursor": "..."}"#),
    (
        "prompts/get",
        &[("name", Kind::Text, true), ("arguments", Kind::Object, false)],
        r#"{"name": "close_out", "arguments": {"id": "ISS-000001"}}"#,
    ),
    (
        "completion/complete",
        &[("ref", Kind::Object, true), ("argument", Kind::Object, true)],
        r#"{"ref": {"type": "ref/resource", "uri": "docket://issues/{id}"}, "argument": {"name": "id", "value": "ISS"}}"#,
    ),
    ("logging/setLevel", &[("level", Kind::Text, true)], r#"{"level": "warning"}"#),
];

/// The error for a request rmcp handed over as custom; `is_tool` tells whether `method` is the
/// name of a published tool.
pub fn custom_request_error(method: &str, params: Option<&Value>, is_tool: bool) -> ErrorData {
    let shown = clip(method, 100);
    if let Some((_, fields, example)) = METHODS.iter().find(|(m, _, _)| *m == method) {
        let problem = params_problem(params, fields)
            .unwrap_or_else(|| "a value does not have the type or form the method takes".to_string());
        return ErrorData::invalid_params(
            format!("Invalid params for {shown}: {problem}. Expected params: {example}."),
            None,
        );
    }
    let message = if is_tool {
        format!(
            "Method not found: '{shown}' is a tool, not a JSON-RPC method. Call it with method tools/call and params {{\"name\": \"{shown}\", \"arguments\": {{...}}}}."
        )
    } else {
        let known: Vec<&str> = METHODS.iter().map(|(m, _, _)| *m).collect();
        format!("Method not found: '{shown}'. docket answers {}; tools are called with tools/call.", known.join(", "))
    };
    ErrorData::new(rmcp::model::ErrorCode::METHOD_NOT_FOUND, message, None)
}

/// What is wrong with `params` for a method taking `fields`, if a field check can tell.
fn params_problem(params: Option<&Value>, fields: &[Param]) -> Option<String> {
    let map = match params {
        None | Some(Value::Null) if fields.iter().any(|f| f.2) => return Some("params are missing".into()),
        None | Some(Value::Null) => return None,
        Some(Value::Object(map)) => map,
        Some(other) => return Some(format!("params must be an object, not {}", json_kind(other))),
    };
    fields.iter().find_map(|(name, kind, required)| match (map.get(*name), kind) {
        (None, _) if *required => Some(format!("missing field `{name}`")),
        (None, _) | (Some(Value::String(_)), Kind::Text) | (Some(Value::Object(_)), Kind::Object) => None,
        (Some(Value::Null), _) if !required => None,
        (Some(v), Kind::Text) => Some(format!("`{name}` must be a string, not {}", json_kind(v))),
        (Some(v), Kind::Object) => Some(format!("`{name}` must be an object, not {}", json_kind(v))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(method: &str, params: Value) -> (i32, String) {
        let e = custom_request_error(method, Some(&params), false);
        (e.code.0, e.message.to_string())
    }

    #[test]
    fn a_wrong_field_is_named_with_its_type() {
        assert_eq!(message("tools/call", json!({"name": 42})).0, -32602);
        assert!(message("tools/call", json!({"name": 42})).1.contains("`name` must be a string, not an integer"));
        assert!(message("tools/call", json!({})).1.contains("missing field `name`"));
        assert!(
            message("tools/call", json!({"name": "x", "arguments": [1]}))
                .1
                .contains("`arguments` must be an object, not an array")
        );
        assert!(message("resources/read", json!({"uri": 5})).1.contains("`uri` must be a string"));
        let (code, text) = message("frobnicate", json!({}));
        assert_eq!(code, -32601);
        assert!(text.contains("'frobnicate'") && text.contains("tools/call"), "{text}");
        let long = "m".repeat(10_000);
        assert!(message(&long, json!({})).1.len() < 1_000);
    }
}
