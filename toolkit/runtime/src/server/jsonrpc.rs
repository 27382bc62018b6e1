//! What to answer when incoming bytes are not a message rmcp accepts: a parse error (-32700)
//! for bytes that are not JSON, an invalid-request (-32600) or invalid-params (-32602) error for
//! JSON that is not a JSON-RPC message, with the request's id whenever it has a usable one.
//! Shared by the stdio transport and any HTTP guards a server adds (docket's).

use rmcp::model::{ErrorData, RequestId};
use serde_json::{Value, json};

/// An error response as bytes, with `"id": null` when there is no id (JSON-RPC requires the
/// member; rmcp's own serialization leaves it out).
pub fn error_response(id: Option<RequestId>, error: ErrorData) -> Vec<u8> {
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "error": error})).unwrap_or_default()
}

/// The error for bytes that do not parse as JSON; `what` names the unit ("line", "request body").
pub fn parse_error(e: &serde_json::Error, what: &str) -> ErrorData {
    ErrorData::parse_error(
        format!(
            "Parse error: the {what} is not valid JSON ({e}). Send one JSON-RPC 2.0 message per {what}, e.g. {{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\"}}."
        ),
        None,
    )
}

/// The answer to well-formed JSON that is not a JSON-RPC message rmcp accepts (`why` is the
/// deserializer's complaint): the id to answer and the error, or `None` when nothing may be
/// answered (a notification or a response, which get no reply in JSON-RPC).
pub fn invalid_message(value: &Value, why: &str) -> Option<(Option<RequestId>, ErrorData)> {
    let Some(message) = value.as_object() else {
        let error = match value {
            Value::Array(_) => {
                "Invalid Request: JSON-RPC batches (arrays) are not supported; send each message on its own."
                    .to_string()
            }
            other => format!("Invalid Request: a JSON-RPC message is an object, not {}.", kind(other)),
        };
        return Some((None, ErrorData::invalid_request(error, None)));
    };
    let raw_id = message.get("id");
    let id = raw_id.and_then(|v| serde_json::from_value::<RequestId>(v.clone()).ok());
    let Some(method) = message.get("method") else {
        if message.contains_key("result") || message.contains_key("error") {
            return None;
        }
        return Some((
            id,
            ErrorData::invalid_request(
                "Invalid Request: the message has no `method`. A request is {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"...\", \"params\": {...}}.",
                None,
            ),
        ));
    };
    raw_id?; // a notification, however malformed, gets no reply
    let problem = if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        "`jsonrpc` must be \"2.0\"".to_string()
    } else if id.is_none() {
        format!("`id` must be a string or an integer, not {}", kind(raw_id.unwrap_or(&Value::Null)))
    } else if !method.is_string() {
        format!("`method` must be a string, not {}", kind(method))
    } else if let Some(params) = message.get("params").filter(|p| !p.is_object()) {
        let method = method.as_str().unwrap_or_default();
        let shown = crate::text::clip(method, 100);
        return Some((
            id,
            ErrorData::invalid_params(
                format!("Invalid params for {shown}: params must be an object (or left out), not {}.", kind(params)),
                None,
            ),
        ));
    } else {
        let why = crate::text::clip(why, 200);
        format!("the message does not fit JSON-RPC 2.0 ({why})")
    };
    Some((id, ErrorData::invalid_request(format!("Invalid Request: {problem}."), None)))
}

/// "a string", "an array", ... for error messages; a number here is one no id can be.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer too large for an id",
        Value::Number(_) => "a fractional number",
        other => crate::text::json_kind(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(v: Value) -> Option<(Option<RequestId>, i32)> {
        invalid_message(&v, "x").map(|(id, e)| (id, e.code.0))
    }

    #[test]
    fn each_shape_gets_the_error_a_client_can_act_on() {
        let one = Some(RequestId::Number(1));
        assert_eq!(
            code(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "x"})),
            Some((one.clone(), -32602))
        );
        assert_eq!(code(json!({"jsonrpc": "1.0", "id": 1, "method": "ping"})), Some((one.clone(), -32600)));
        assert_eq!(code(json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"})), Some((None, -32600)));
        assert_eq!(code(json!({"jsonrpc": "2.0", "id": 1, "params": {}})), Some((one, -32600)));
        assert_eq!(code(json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])), Some((None, -32600)));
        assert_eq!(code(json!(42)), Some((None, -32600)));
        assert_eq!(code(json!({"jsonrpc": "2.0", "method": "notifications/x", "params": 1})), None, "a notification");
        assert_eq!(code(json!({"jsonrpc": "2.0", "id": 9, "result": 1})), None, "a response");
    }
}
