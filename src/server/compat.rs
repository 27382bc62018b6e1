//! What docket accepts for calls written for wrangler, before the strict argument checks run:
//! parameters a tool does not declare are removed and reported as a visible IGNORED_PARAMETER
//! warning (wrangler's schemas drop unknown keys silently, and prompts written for it send some,
//! e.g. `issues_search({query, type})`: rejecting them would break those prompts, ignoring them
//! silently would hide that a filter did nothing); a lone value where an array is declared
//! becomes a one-item array (`issues_list({status: "open"})`, as wrangler's skills write it).

use serde_json::{Map, Value};

use crate::generated;
use crate::runtime::args::{Ignored, strip_unknown, wrap_lone_values};
use crate::runtime::{Warning, WarningCode};

/// Parameters published as JSON text (one type, as every client accepts) that wrangler took as
/// any JSON value: a value that is not a string is passed on as its JSON text, which the
/// handler parses back, so calls written for wrangler keep working.
const JSON_TEXT: &[(&str, &str)] = &[("issues_metadata", "value")];

/// Removes the parameters `tool` does not declare from `args` (one warning per removed one),
/// wraps lone values given for arrays, and writes JSON values given for JSON text as text.
pub fn normalize(tool: &str, args: &mut Map<String, Value>) -> Vec<Warning> {
    let Some(rules) = generated::input_rules(tool) else { return Vec::new() };
    let warnings = strip_unknown(args, rules).into_iter().map(|i| warning(tool, &i)).collect();
    wrap_lone_values(args, rules);
    for (_, param) in JSON_TEXT.iter().filter(|(t, _)| *t == tool) {
        if let Some(v) = args.get_mut(*param).filter(|v| !v.is_string() && !v.is_null()) {
            *v = Value::String(v.to_string());
        }
    }
    warnings
}

fn warning(tool: &str, i: &Ignored) -> Warning {
    let hint = match i.nested_in {
        Some(object) => format!(" To use it as a filter, pass it inside {object}: {object}.{}.", i.param),
        None => String::new(),
    };
    let allowed = if i.allowed.is_empty() { "none".to_string() } else { i.allowed.join(", ") };
    let more = match i.more {
        0 => String::new(),
        n => format!(" {n} more undeclared parameters beside it were ignored too."),
    };
    Warning::visible(
        WarningCode::IGNORED_PARAMETER,
        format!(
            "Parameter '{}' is not a parameter of {tool} and was ignored.{hint}{more} Valid parameters here: {allowed}.",
            i.param
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_top_level_filter_name_points_at_the_filters_object() {
        let mut args = json!({"query": "auth", "type": "specification"}).as_object().cloned().expect("object");
        let w = normalize("issues_search", &mut args);
        assert_eq!(args, json!({"query": "auth"}).as_object().cloned().expect("object"));
        assert_eq!(w.len(), 1);
        assert!(w[0].visible && w[0].code == WarningCode::IGNORED_PARAMETER);
        assert!(w[0].message.contains("'type' is not a parameter of issues_search"), "{}", w[0].message);
        assert!(w[0].message.contains("filters.type"), "{}", w[0].message);
    }

    #[test]
    fn unknown_tools_and_clean_calls_warn_about_nothing() {
        let mut args = json!({"id": "ISS-000001"}).as_object().cloned().expect("object");
        assert!(normalize("issues_get", &mut args).is_empty());
        assert!(normalize("no_such_tool", &mut args).is_empty());
    }

    #[test]
    fn a_json_value_for_json_text_is_passed_on_as_its_text() {
        let mut args = json!({"operation": "set", "issueId": "ISS-000001", "key": "k", "value": {"round": 1}});
        let map = args.as_object_mut().expect("object");
        assert!(normalize("issues_metadata", map).is_empty());
        assert_eq!(map["value"], json!("{\"round\":1}"));
        let mut text = json!({"operation": "set", "issueId": "ISS-000001", "key": "k", "value": "plain"});
        normalize("issues_metadata", text.as_object_mut().expect("object"));
        assert_eq!(text["value"], "plain", "text stays as it is");
    }
}
