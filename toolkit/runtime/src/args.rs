//! Checks raw JSON arguments against a tool's rules before serde sees them, so each mistake is
//! reported with the manifest's message (naming the parameter, the bad value and what is valid)
//! instead of serde's first error.

use serde_json::{Map, Value};

use super::ToolError;

/// One declared parameter or property.
#[derive(Debug, Clone, Copy)]
pub struct ParamRule {
    /// Its name on the wire.
    pub name: &'static str,
    /// Whether a call must give it.
    pub required: bool,
    /// What its value must look like.
    pub kind: Kind,
}

/// What a value must look like. The bounds are inclusive; `None` is unbounded.
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs)] // The bounds' fields say what they are.
pub enum Kind {
    /// A string of `min_len..=max_len` characters.
    String { min_len: Option<u64>, max_len: Option<u64> },
    /// One of these strings.
    Enum(&'static [&'static str]),
    /// An integer in `min..=max`.
    Integer { min: Option<i64>, max: Option<i64> },
    /// A number in `min..=max`.
    Number { min: Option<f64>, max: Option<f64> },
    /// `true` or `false`.
    Boolean,
    /// Any JSON value.
    Any,
    /// A free-form JSON object.
    Map,
    /// An array of `min_items..=max_items` values, each of kind `items`.
    Array { items: &'static Kind, min_items: Option<u64>, max_items: Option<u64> },
    /// An object with declared `fields`; `additional`: whether undeclared ones are allowed.
    Object { fields: &'static [ParamRule], additional: bool },
}

/// One mistake in the arguments; `param` is a path such as `updates[2].status`. The fields are
/// the placeholders of the matching built-in error template.
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)] // Each field is the template placeholder of its name.
pub enum Problem {
    /// A required parameter is missing (`missing_required`).
    Missing { param: String },
    /// A parameter the tool does not declare (`unknown_parameter`).
    Unknown { param: String, allowed: Vec<&'static str> },
    /// A value of the wrong JSON type (`invalid_type`).
    Type { param: String, expected: &'static str, actual: &'static str },
    /// A string outside its enum (`invalid_enum`).
    Enum { param: String, value: String, allowed: &'static [&'static str] },
    /// A number outside its bounds (`out_of_range`).
    Range { param: String, value: String, range: String },
    /// A string too short or too long (`invalid_length`).
    Length { param: String, length: usize, range: String },
    /// An array with too few or too many items (`invalid_item_count`).
    ItemCount { param: String, count: usize, range: String },
}

/// A parameter the call gave that the tool does not declare; it was removed from the arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Ignored {
    /// Its path, e.g. `type` or `filters.bogus` (clipped like error messages).
    pub param: String,
    /// The parameters declared where it was found.
    pub allowed: Vec<&'static str>,
    /// A declared object parameter that has a property of this name (`filters` for `type`).
    pub nested_in: Option<&'static str>,
    /// How many more undeclared parameters of the same object were ignored without a report of
    /// their own (past [`MAX_REPORTED`]).
    pub more: usize,
}

/// The undeclared parameters of one object reported one by one; the rest are counted.
pub const MAX_REPORTED: usize = 10;

/// Removes every undeclared parameter from `args`, at any depth, and reports each one (the first
/// [`MAX_REPORTED`] of an object by name, the rest as a count).
///
/// Opt-in leniency, not the default: without it the checks refuse an undeclared parameter
/// (`unknown_parameter`). A server whose callers were written for another server that drops
/// unknown keys silently calls this before dispatch (in its argument adaptation) and tells the
/// caller what was ignored, say in an [`IGNORED_PARAMETER`](crate::WarningCode::IGNORED_PARAMETER)
/// warning, instead of failing those calls or staying silent.
pub fn strip_unknown(args: &mut Map<String, Value>, rules: &[ParamRule]) -> Vec<Ignored> {
    let mut out = Vec::new();
    strip_object(args, rules, false, "", &mut out);
    out
}

fn strip_object(
    obj: &mut Map<String, Value>,
    rules: &[ParamRule],
    additional: bool,
    path: &str,
    out: &mut Vec<Ignored>,
) {
    if !additional {
        // One pass (removing keys one by one from an order-keeping map is quadratic: 100,000
        // undeclared parameters got no answer in a minute).
        let mut unknown: Vec<String> = Vec::new();
        obj.retain(|k, _| {
            let known = rules.iter().any(|r| r.name == k.as_str());
            if !known {
                unknown.push(k.clone());
            }
            known
        });
        let more = unknown.len().saturating_sub(MAX_REPORTED);
        let reported = unknown.len().min(MAX_REPORTED);
        for (i, key) in unknown.into_iter().take(MAX_REPORTED).enumerate() {
            let nested_in = rules.iter().find_map(|r| match r.kind {
                Kind::Object { fields, .. } if fields.iter().any(|f| f.name == key) => Some(r.name),
                _ => None,
            });
            out.push(Ignored {
                param: join(path, &clip(&key)),
                allowed: rules.iter().map(|r| r.name).collect(),
                nested_in: if path.is_empty() { nested_in } else { None },
                more: if i + 1 == reported { more } else { 0 },
            });
        }
    }
    for rule in rules {
        let Some(value) = obj.get_mut(rule.name) else { continue };
        strip_value(value, &rule.kind, &join(path, rule.name), out);
    }
}

fn strip_value(v: &mut Value, kind: &Kind, path: &str, out: &mut Vec<Ignored>) {
    match (kind, v) {
        (Kind::Object { fields, additional }, Value::Object(o)) => strip_object(o, fields, *additional, path, out),
        // An array over its item cap is refused whole by the checks: its items are not walked
        // (100,000 of them with an unknown key each made a warning each).
        (Kind::Array { max_items: Some(max), .. }, Value::Array(a)) if a.len() > *max as usize => {}
        (Kind::Array { items, .. }, Value::Array(a)) => {
            for (i, item) in a.iter_mut().enumerate() {
                strip_value(item, items, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// Wraps a lone string, number or boolean given where an array is declared into a one-item array
/// (`status: "open"` -> `["open"]`), at any depth; the items are checked as usual afterwards.
/// Opt-in leniency like [`strip_unknown`], for a server whose callers write single values that
/// way; without it such a value is refused (`invalid_type`).
pub fn wrap_lone_values(args: &mut Map<String, Value>, rules: &[ParamRule]) {
    for rule in rules {
        if let Some(value) = args.get_mut(rule.name) {
            wrap_value(value, &rule.kind);
        }
    }
}

fn wrap_value(v: &mut Value, kind: &Kind) {
    match (kind, v) {
        (Kind::Array { items, .. }, v @ (Value::String(_) | Value::Number(_) | Value::Bool(_))) => {
            let lone = v.take();
            *v = Value::Array(vec![lone]);
            if let Value::Array(a) = v {
                a.iter_mut().for_each(|item| wrap_value(item, items));
            }
        }
        (Kind::Array { items, .. }, Value::Array(a)) => a.iter_mut().for_each(|item| wrap_value(item, items)),
        (Kind::Object { fields, .. }, Value::Object(o)) => wrap_lone_values(o, fields),
        _ => {}
    }
}

/// For `Option<Option<T>>` fields of parameters where `null` means "clear": absent stays `None`
/// (through `#[serde(default)]`), `null` becomes `Some(None)`, a value `Some(Some(v))`.
pub fn nullable<'de, T, D>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    T: serde::Deserialize<'de>,
    D: serde::Deserializer<'de>,
{
    <Option<T> as serde::Deserialize>::deserialize(d).map(Some)
}

/// Every problem in `args`, in parameter order (unknown parameters first).
pub fn check(args: &Map<String, Value>, rules: &[ParamRule]) -> Vec<Problem> {
    let mut problems = Vec::new();
    check_object(args, rules, false, "", &mut problems);
    problems
}

fn check_object(obj: &Map<String, Value>, rules: &[ParamRule], additional: bool, path: &str, out: &mut Vec<Problem>) {
    if !additional {
        for key in obj.keys().filter(|k| !rules.iter().any(|r| r.name == k.as_str())) {
            out.push(Problem::Unknown {
                param: join(path, &clip(key)),
                allowed: rules.iter().map(|r| r.name).collect(),
            });
        }
    }
    for rule in rules {
        match obj.get(rule.name) {
            // JSON null is treated as omitted: many clients send null for unset optionals.
            None | Some(Value::Null) if rule.required => out.push(Problem::Missing { param: join(path, rule.name) }),
            None | Some(Value::Null) => {}
            Some(v) => check_value(v, &rule.kind, &join(path, rule.name), out),
        }
    }
}

fn check_value(v: &Value, kind: &Kind, path: &str, out: &mut Vec<Problem>) {
    let type_error =
        |expected: &'static str| Problem::Type { param: path.to_string(), expected, actual: crate::text::json_kind(v) };
    match kind {
        Kind::Any => {}
        Kind::String { min_len, max_len } => match v.as_str() {
            None => out.push(type_error("a string")),
            Some(s) => {
                // A name is judged trimmed, as it is used: `" "` or `"\t"` is no assignee. The
                // upper bound counts every character (the whole string is kept).
                let (len, trimmed) = (s.chars().count(), s.trim().chars().count());
                let short = min_len.is_some_and(|m| (trimmed as u64) < m);
                let judged = if short { trimmed } else { len };
                if let Some(range) = outside(judged as f64, min_len.map(|x| x as f64), max_len.map(|x| x as f64)) {
                    let besides = if short && trimmed < len { " besides whitespace at either end" } else { "" };
                    out.push(Problem::Length {
                        param: path.to_string(),
                        length: judged,
                        range: format!("{range} characters{besides}"),
                    });
                }
            }
        },
        Kind::Enum(allowed) => match v.as_str() {
            Some(s) if allowed.contains(&s) => {}
            Some(s) => out.push(Problem::Enum { param: path.to_string(), value: clip(s), allowed }),
            None => out.push(Problem::Enum { param: path.to_string(), value: clip(&v.to_string()), allowed }),
        },
        Kind::Integer { min, max } => match v.as_i64() {
            Some(n) => {
                if let Some(range) = outside(n as f64, min.map(|x| x as f64), max.map(|x| x as f64)) {
                    out.push(Problem::Range { param: path.to_string(), value: n.to_string(), range });
                }
            }
            // Larger than any i64: an integer, so out of range rather than of the wrong type.
            None if v.is_u64() => {
                let n = v.as_u64().unwrap_or(u64::MAX) as f64;
                let range = outside(n, min.map(|x| x as f64), max.map(|x| x as f64))
                    .unwrap_or_else(|| format!("at most {}", i64::MAX));
                out.push(Problem::Range { param: path.to_string(), value: v.to_string(), range });
            }
            None => out.push(type_error("an integer")),
        },
        Kind::Number { min, max } => match v.as_f64() {
            Some(n) => {
                if let Some(range) = outside(n, *min, *max) {
                    out.push(Problem::Range { param: path.to_string(), value: n.to_string(), range });
                }
            }
            None => out.push(type_error("a number")),
        },
        Kind::Boolean => {
            if !v.is_boolean() {
                out.push(type_error("true or false"));
            }
        }
        Kind::Map => {
            if !v.is_object() {
                out.push(type_error("an object"));
            }
        }
        Kind::Array { items, min_items, max_items } => match v.as_array() {
            None => out.push(type_error("an array")),
            Some(a) => {
                if let Some(range) = outside(a.len() as f64, min_items.map(|x| x as f64), max_items.map(|x| x as f64)) {
                    out.push(Problem::ItemCount {
                        param: path.to_string(),
                        count: a.len(),
                        range: format!("{range} items"),
                    });
                    return; // an oversize array is rejected whole; no need to report each item
                }
                for (i, item) in a.iter().enumerate() {
                    check_value(item, items, &format!("{path}[{i}]"), out);
                }
            }
        },
        Kind::Object { fields, additional } => match v.as_object() {
            None => out.push(type_error("an object")),
            Some(o) => check_object(o, fields, *additional, path, out),
        },
    }
}

/// A rejected value (or unknown parameter name) as the error message repeats it: at most 50 characters, so a megabyte sent
/// for an enum does not come back as a megabyte of error text.
fn clip(value: &str) -> String {
    crate::text::clip_saying(value, 50, crate::text::Whole::Chars)
}

/// `Some("between 1 and 100")` when `x` is outside the bounds.
fn outside(x: f64, min: Option<f64>, max: Option<f64>) -> Option<String> {
    if min.is_some_and(|m| x < m) || max.is_some_and(|m| x > m) {
        Some(match (min, max) {
            (Some(a), Some(b)) => format!("between {a} and {b}"),
            (Some(a), None) => format!("at least {a}"),
            (None, Some(b)) => format!("at most {b}"),
            (None, None) => unreachable!("a bound was crossed"),
        })
    } else {
        None
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_string() } else { format!("{path}.{key}") }
}

/// The manifest's messages for what [`parse`] refuses (its error catalogue, generated as
/// `generated::ARGUMENT_ERRORS`).
pub struct ArgumentErrors {
    /// (tool, param)
    pub missing_required: fn(&str, &str) -> ToolError,
    /// (tool, param, allowed)
    pub unknown_parameter: fn(&str, &str, &str) -> ToolError,
    /// (param, expected, actual)
    pub invalid_type: fn(&str, &str, &str) -> ToolError,
    /// (param, value, allowed)
    pub invalid_enum: fn(&str, &str, &str) -> ToolError,
    /// (param, value, range)
    pub out_of_range: fn(&str, &str, &str) -> ToolError,
    /// (param, length, range)
    pub invalid_length: fn(&str, usize, &str) -> ToolError,
    /// (param, count, range)
    pub invalid_item_count: fn(&str, usize, &str) -> ToolError,
    /// (tool, details): what serde refused after the rules passed.
    pub invalid_arguments: fn(&str, &str) -> ToolError,
}

/// Checks raw arguments against a tool's rules, reporting every problem with the manifest's
/// messages, then deserializes them into the tool's typed input.
pub fn parse<T: serde::de::DeserializeOwned>(
    tool: &str,
    args: Map<String, Value>,
    rules: &'static [ParamRule],
    errors: &ArgumentErrors,
) -> Result<T, ToolError> {
    let problems: Vec<ToolError> = check(&args, rules)
        .into_iter()
        .map(|p| match p {
            Problem::Missing { param } => (errors.missing_required)(tool, &param),
            Problem::Unknown { param, allowed } => (errors.unknown_parameter)(tool, &param, &allowed.join(", ")),
            Problem::Type { param, expected, actual } => (errors.invalid_type)(&param, expected, actual),
            Problem::Enum { param, value, allowed } => (errors.invalid_enum)(&param, &value, &allowed.join(", ")),
            Problem::Range { param, value, range } => (errors.out_of_range)(&param, &value, &range),
            Problem::Length { param, length, range } => (errors.invalid_length)(&param, length, &range),
            Problem::ItemCount { param, count, range } => (errors.invalid_item_count)(&param, count, &range),
        })
        .collect();
    if let Some(error) = ToolError::combine(problems) {
        return Err(error);
    }
    serde_json::from_value(Value::Object(args)).map_err(|e| (errors.invalid_arguments)(tool, &e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PRIORITY: &[&str] = &["low", "medium", "high", "critical"];
    const ITEM: &[ParamRule] = &[
        ParamRule { name: "id", required: true, kind: Kind::String { min_len: Some(1), max_len: None } },
        ParamRule { name: "priority", required: false, kind: Kind::Enum(PRIORITY) },
    ];
    const RULES: &[ParamRule] = &[
        ParamRule { name: "title", required: true, kind: Kind::String { min_len: Some(1), max_len: Some(5) } },
        ParamRule { name: "limit", required: false, kind: Kind::Integer { min: Some(1), max: Some(100) } },
        ParamRule {
            name: "updates",
            required: false,
            kind: Kind::Array {
                items: &Kind::Object { fields: ITEM, additional: false },
                min_items: Some(1),
                max_items: Some(2),
            },
        },
    ];

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("test arguments are an object")
    }

    #[test]
    fn valid_arguments_have_no_problems() {
        assert_eq!(
            check(&args(json!({"title": "ok", "limit": 5, "updates": [{"id": "ISS-1", "priority": "low"}]})), RULES),
            vec![]
        );
    }

    #[test]
    fn missing_and_null_required_are_reported() {
        assert_eq!(check(&args(json!({})), RULES), vec![Problem::Missing { param: "title".into() }]);
        assert_eq!(check(&args(json!({"title": null})), RULES), vec![Problem::Missing { param: "title".into() }]);
    }

    #[test]
    fn unknown_parameters_list_the_valid_ones() {
        let p = check(&args(json!({"title": "ok", "titel": "x"})), RULES);
        assert_eq!(p, vec![Problem::Unknown { param: "titel".into(), allowed: vec!["title", "limit", "updates"] }]);
    }

    #[test]
    fn bounds_are_phrased_for_the_model() {
        let p = check(&args(json!({"title": "too long", "limit": 500})), RULES);
        assert_eq!(
            p,
            vec![
                Problem::Length { param: "title".into(), length: 8, range: "between 1 and 5 characters".into() },
                Problem::Range { param: "limit".into(), value: "500".into(), range: "between 1 and 100".into() },
            ]
        );
    }

    #[test]
    fn nested_problems_carry_their_path() {
        let p = check(&args(json!({"title": "ok", "updates": [{"id": "A"}, {"priority": "urgent", "x": 1}]})), RULES);
        assert_eq!(
            p,
            vec![
                Problem::Unknown { param: "updates[1].x".into(), allowed: vec!["id", "priority"] },
                Problem::Missing { param: "updates[1].id".into() },
                Problem::Enum { param: "updates[1].priority".into(), value: "urgent".into(), allowed: PRIORITY },
            ]
        );
    }

    #[test]
    fn oversize_arrays_are_rejected_whole() {
        let p = check(&args(json!({"title": "ok", "updates": [{"id": "a"}, {"id": "b"}, {"id": 3}]})), RULES);
        assert_eq!(
            p,
            vec![Problem::ItemCount { param: "updates".into(), count: 3, range: "between 1 and 2 items".into() }]
        );
    }

    #[test]
    fn integers_beyond_i64_are_out_of_range_not_of_the_wrong_type() {
        let p = check(&args(json!({"title": "ok", "limit": u64::MAX})), RULES);
        let value = u64::MAX.to_string();
        assert_eq!(p, vec![Problem::Range { param: "limit".into(), value, range: "between 1 and 100".into() }]);
        const UNBOUNDED: &[ParamRule] =
            &[ParamRule { name: "n", required: false, kind: Kind::Integer { min: Some(0), max: None } }];
        let p = check(&args(json!({"n": u64::MAX})), UNBOUNDED);
        let range = format!("at most {}", i64::MAX);
        assert_eq!(p, vec![Problem::Range { param: "n".into(), value: u64::MAX.to_string(), range }]);
    }

    #[test]
    fn a_huge_unknown_parameter_name_is_clipped_in_the_message() {
        let p = check(&args(json!({"title": "ok", "k".repeat(100_000): 1})), RULES);
        let param = format!("{}… (100000 characters)", "k".repeat(50));
        assert_eq!(p, vec![Problem::Unknown { param, allowed: vec!["title", "limit", "updates"] }]);
    }

    #[test]
    fn a_huge_enum_value_is_clipped_in_the_message() {
        const FORMATS: &[&str] = &["minimal", "full"];
        const RULES: &[ParamRule] = &[ParamRule { name: "format", required: false, kind: Kind::Enum(FORMATS) }];
        let p = check(&args(json!({"format": "a".repeat(1_000_000)})), RULES);
        let value = format!("{}… (1000000 characters)", "a".repeat(50));
        assert_eq!(p, vec![Problem::Enum { param: "format".into(), value, allowed: FORMATS }]);
    }

    #[test]
    fn unknown_parameters_are_stripped_at_every_depth_and_reported() {
        const FILTERS: &[ParamRule] =
            &[ParamRule { name: "type", required: false, kind: Kind::Enum(&["issue", "specification"]) }];
        const SEARCH: &[ParamRule] = &[
            ParamRule { name: "query", required: true, kind: Kind::String { min_len: Some(1), max_len: None } },
            ParamRule { name: "filters", required: false, kind: Kind::Object { fields: FILTERS, additional: false } },
        ];
        let mut a = args(json!({"query": "q", "type": "specification", "filters": {"type": "issue", "x": 1}}));
        let ignored = strip_unknown(&mut a, SEARCH);
        assert_eq!(
            ignored,
            vec![
                Ignored {
                    param: "type".into(),
                    allowed: vec!["query", "filters"],
                    nested_in: Some("filters"),
                    more: 0
                },
                Ignored { param: "filters.x".into(), allowed: vec!["type"], nested_in: None, more: 0 },
            ]
        );
        assert_eq!(Value::Object(a.clone()), json!({"query": "q", "filters": {"type": "issue"}}));
        assert_eq!(check(&a, SEARCH), vec![], "what is left checks clean");
        let mut items = args(json!({"title": "ok", "updates": [{"id": "a", "bogus": 1}]}));
        let ignored = strip_unknown(&mut items, RULES);
        assert_eq!(ignored.iter().map(|i| i.param.as_str()).collect::<Vec<_>>(), ["updates[0].bogus"]);
    }

    #[test]
    fn a_lone_value_where_an_array_is_declared_becomes_a_one_item_array() {
        const STATUS: &[&str] = &["open", "closed"];
        const LIST: &[ParamRule] = &[ParamRule {
            name: "status",
            required: false,
            kind: Kind::Array { items: &Kind::Enum(STATUS), min_items: None, max_items: Some(4) },
        }];
        let mut a = args(json!({"status": "open"}));
        wrap_lone_values(&mut a, LIST);
        assert_eq!(Value::Object(a.clone()), json!({"status": ["open"]}));
        assert_eq!(check(&a, LIST), vec![]);
        let mut bad = args(json!({"status": "done"}));
        wrap_lone_values(&mut bad, LIST);
        assert_eq!(
            check(&bad, LIST),
            vec![Problem::Enum { param: "status[0]".into(), value: "done".into(), allowed: STATUS }]
        );
        let mut object = args(json!({"status": {"0": "open"}, "updates": {"id": "a"}}));
        wrap_lone_values(&mut object, LIST);
        assert!(object["status"].is_object(), "an object is not a lone value; the type error stays");
    }

    #[test]
    fn nullable_fields_tell_null_from_absent() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Patch {
            #[serde(default, deserialize_with = "nullable")]
            project: Option<Option<String>>,
        }
        let parse = |v: Value| serde_json::from_value::<Patch>(v).expect("parses").project;
        assert_eq!(parse(json!({})), None);
        assert_eq!(parse(json!({"project": null})), Some(None));
        assert_eq!(parse(json!({"project": "p"})), Some(Some("p".into())));
    }

    #[test]
    fn wrong_types_name_expected_and_actual() {
        let p = check(&args(json!({"title": 7, "limit": "5"})), RULES);
        assert_eq!(
            p,
            vec![
                Problem::Type { param: "title".into(), expected: "a string", actual: "an integer" },
                Problem::Type { param: "limit".into(), expected: "an integer", actual: "a string" },
            ]
        );
    }
}
