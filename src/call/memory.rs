//! Between tool calls and the error memory: which arguments identify a failure, how a failure is
//! classified, and the warnings an agent gets before repeating one.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::codes;
use crate::error_memory::{ErrorMemory, Pattern};
use crate::runtime::{ErrorCode, Severity, ToolError, ToolSpec, Warning, WarningCode};

/// The declared error-context parameters of `tool` present in `args` (nothing else is kept),
/// each clipped to [`MAX_CONTEXT_VALUE`] bytes.
pub fn context_of(tool: &ToolSpec, args: &Map<String, Value>) -> Map<String, Value> {
    tool.error_context.iter().filter_map(|p| args.get(*p).map(|v| (p.to_string(), bounded(v)))).collect()
}

/// Longest context value stored as sent. A rejected megabyte (say, a 1 MB `type`) is stored as
/// its first characters and its size, so junk arguments cannot grow `cache/errors.db` by a
/// megabyte per call; the same junk still maps to the same pattern.
const MAX_CONTEXT_VALUE: usize = 200;

fn bounded(v: &Value) -> Value {
    let text = match v {
        Value::String(s) => std::borrow::Cow::Borrowed(s.as_str()),
        other => std::borrow::Cow::Owned(other.to_string()),
    };
    if text.len() <= MAX_CONTEXT_VALUE {
        return v.clone();
    }
    Value::String(crate::util::clip_saying(&text, 100, crate::util::Whole::Bytes))
}

/// validation, not_found, conflict, confirmation_required, io or internal.
pub fn classify(e: &ToolError) -> &'static str {
    use crate::generated::errors::Template;
    match (e.code, Template::of(e)) {
        (ErrorCode::InvalidArgument, _) => "validation",
        (ErrorCode::NotFound, _) => "not_found",
        (ErrorCode::Conflict, _) => "conflict",
        (ErrorCode::ConfirmationRequired, _) => "confirmation_required",
        (ErrorCode::Internal, Some(Template::StorageFailed | Template::GitFailed)) => "io",
        (ErrorCode::Internal | ErrorCode::NotImplemented, _) => "internal",
    }
}

/// The warning for a call to a tool the manifest deprecates, naming its replacement.
pub fn deprecation(spec: &ToolSpec) -> Option<Warning> {
    let (tool, replacement) = (spec.name, spec.deprecated_by?);
    Some(Warning {
        code: WarningCode::DEPRECATED_TOOL,
        message: format!("{tool} is deprecated and will be removed; call {replacement} instead (same operation)."),
        severity: Severity::Warning,
        visible: false,
    })
}

fn unavailable(why: String) -> Warning {
    Warning {
        code: codes::ERROR_MEMORY_UNAVAILABLE,
        message: format!("Error intelligence is off for this call: {why}. Tools work without it."),
        severity: Severity::Info,
        visible: false,
    }
}

fn known_failure(p: &Pattern, days: i64) -> Warning {
    let advice = match &p.resolution {
        Some(fix) => format!("Known fix: {fix}"),
        None => {
            format!("No fix recorded yet; when you find one, call errors_resolve with patternId {} and the fix.", p.id)
        }
    };
    Warning {
        code: codes::KNOWN_FAILURE,
        message: format!(
            "{} failed {} times in the last {days} days with these arguments ({}: {}). {advice}",
            p.operation, p.frequency, p.error_class, p.message
        ),
        severity: Severity::Warning,
        // The fix is for the model: many clients never show it `_meta`.
        visible: true,
    }
}

/// Warnings for a call about to repeat a frequent failure.
pub async fn preflight(memory: &Arc<ErrorMemory>, tool: &str, context: &Map<String, Value>) -> Vec<Warning> {
    let (memory, tool, context) = (Arc::clone(memory), tool.to_string(), context.clone());
    let days = memory.settings().window_days;
    match crate::util::spawn_blocking(move || memory.preflight(&tool, &context)).await {
        Ok(Ok(patterns)) => patterns.iter().map(|p| known_failure(p, days)).collect(),
        Ok(Err(why)) => vec![unavailable(why)],
        Err(e) => vec![unavailable(e.to_string())],
    }
}

/// Records a failed call; a warning if the memory could not take it.
pub async fn record(
    memory: &Arc<ErrorMemory>,
    tool: &str,
    error: &ToolError,
    context: &Map<String, Value>,
) -> Option<Warning> {
    // A claim refused because someone else holds the issue is a lost race, normal traffic with
    // many agents, not a failure of the arguments.
    if crate::generated::errors::Template::of(error) == Some(crate::generated::errors::Template::ClaimConflict) {
        return None;
    }
    let (memory, tool, context) = (Arc::clone(memory), tool.to_string(), context.clone());
    let (class, message) = (classify(error), error.message.clone());
    match crate::util::spawn_blocking(move || memory.record(&tool, class, &message, &context)).await {
        Ok(Ok(())) => None,
        Ok(Err(why)) => Some(unavailable(why)),
        Err(e) => Some(unavailable(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generated::TOOLS;
    use serde_json::json;

    #[test]
    fn context_values_are_clipped_to_a_few_hundred_bytes() {
        let args: Map<String, Value> = json!({"type": "x".repeat(1_000_000), "status": "open", "title": "not context"})
            .as_object()
            .cloned()
            .unwrap_or_default();
        let spec = |name: &str| TOOLS.iter().find(|t| t.name == name).expect("declared");
        let ctx = context_of(spec("issues_create"), &args);
        assert_eq!(ctx["status"], "open");
        assert_eq!(ctx["type"], json!(format!("{}… (1000000 bytes)", "x".repeat(100))));
        assert!(!ctx.contains_key("title"), "only declared error-context parameters");
        let fields = json!(vec!["title"; 10_000]);
        let args: Map<String, Value> = json!({"fields": fields}).as_object().cloned().unwrap_or_default();
        assert!(context_of(spec("issues_get"), &args)["fields"].as_str().is_some_and(|s| s.len() < 200));
    }

    #[test]
    fn a_deprecated_tool_warns_and_names_its_replacement() {
        let current = TOOLS.iter().find(|t| t.name == "issues_search").copied().expect("issues_search is declared");
        let old = ToolSpec { name: "issues_find", deprecated_by: Some("issues_search"), ..current };
        let w = deprecation(&old).expect("a warning");
        assert_eq!(w.code, WarningCode::DEPRECATED_TOOL);
        assert!(w.message.contains("call issues_search instead"), "{}", w.message);
        assert!(deprecation(&current).is_none());
        assert!(TOOLS.iter().all(|t| deprecation(t).is_some() == t.deprecated_by.is_some()));
    }
}
