//! The consolidated profile's fixed logic: a call `issues(action=list, ...)` checked and resolved
//! to the underlying tool and its arguments. codegen emits only the tables it works on
//! (`generated::consolidated::{GROUPS, ERRORS}`); this is ordinary Rust, tested here.

use serde_json::{Map, Value};

use super::{ToolError, ToolSpec};

type Args = Map<String, Value>;

/// A manifest's consolidated profile, as the generated `consolidated::PROFILE` holds it: what a
/// server needs to publish it and resolve its calls (the runtime's `Server::consolidated`).
#[derive(Clone, Copy)]
pub struct Profile {
    /// One tool per group, as tools/list publishes them.
    pub tools: &'static [ToolSpec],
    /// Every consolidated tool's actions.
    pub groups: &'static [Group],
    /// The manifest's messages for what [`resolve`] refuses.
    pub errors: &'static ActionErrors,
    /// Granular tool name -> its consolidated call, for rewriting messages.
    pub aliases: &'static [(&'static str, &'static str)],
    /// The server instructions, every tool named as its consolidated call.
    pub instructions: &'static str,
}

/// How resolve adapts a value to the published flat schema and the action's own parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coerce {
    /// The value as given.
    Keep,
    /// The property is an array, this action takes one value: a one-item array is unwrapped, and
    /// a lone value is refused (the published schema does not admit it).
    ToScalar,
    /// The property is an array and so is the action's parameter: a lone value is refused (the
    /// published schema does not admit it, though the granular tool would read it as a list).
    List,
}

/// A parameter of one action.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// Its name on the wire.
    pub name: &'static str,
    /// Whether the action needs it.
    pub required: bool,
    /// How its value is adapted to the underlying tool's parameter.
    pub coerce: Coerce,
}

/// An action: the underlying tool and its parameters.
#[derive(Debug, Clone, Copy)]
pub struct Action {
    /// The `action` value (`list` of `issues(action=list)`).
    pub name: &'static str,
    /// The underlying granular tool.
    pub tool: &'static str,
    /// Its parameters.
    pub params: &'static [Param],
}

/// A consolidated tool: its actions, and which actions take each parameter.
#[derive(Debug, Clone, Copy)]
pub struct Group {
    /// The consolidated tool's name (the group's).
    pub tool: &'static str,
    /// Its actions.
    pub actions: &'static [Action],
    /// (parameter, the actions that take it, comma-separated), for error messages.
    pub takers: &'static [(&'static str, &'static str)],
}

/// The manifest's messages for what resolve refuses (its error catalogue, generated).
pub struct ActionErrors {
    /// (tool, actions)
    pub missing_action: fn(&str, &str) -> ToolError,
    /// (tool, action, actions)
    pub unknown_action: fn(&str, &str, &str) -> ToolError,
    /// (tool, action, param, the actions that take it)
    pub param_not_for_action: fn(&str, &str, &str, &str) -> ToolError,
    /// (call, param, allowed)
    pub unknown_parameter: fn(&str, &str, &str) -> ToolError,
    /// (tool, action, param)
    pub missing_action_param: fn(&str, &str, &str) -> ToolError,
    /// (param, expected, actual)
    pub invalid_type: fn(&str, &str, &str) -> ToolError,
}

/// The underlying tool of a call, when its `action` names one.
pub fn underlying(groups: &'static [Group], tool: &str, args: &Args) -> Option<&'static str> {
    let action = args.get("action")?.as_str()?;
    let group = groups.iter().find(|g| g.tool == tool)?;
    group.actions.iter().find(|a| a.name == action).map(|a| a.tool)
}

/// Resolves a call of consolidated tool `name` to (underlying tool, its arguments): checks the
/// action, the action's required parameters and parameters it does not take. `None` when `name`
/// is not a consolidated tool.
pub fn resolve(
    groups: &'static [Group],
    errors: &ActionErrors,
    name: &str,
    args: Args,
) -> Option<Result<(&'static str, Args), ToolError>> {
    let group = groups.iter().find(|g| g.tool == name)?;
    Some(resolve_in(group, errors, args))
}

fn resolve_in(group: &'static Group, errors: &ActionErrors, mut args: Args) -> Result<(&'static str, Args), ToolError> {
    let tool = group.tool;
    let names = || group.actions.iter().map(|a| a.name).collect::<Vec<_>>().join(", ");
    let requested = match args.remove("action") {
        None | Some(Value::Null) => return Err((errors.missing_action)(tool, &names())),
        Some(Value::String(s)) => s,
        Some(other) => return Err((errors.unknown_action)(tool, &other.to_string(), &names())),
    };
    let Some(action) = group.actions.iter().find(|a| a.name == requested) else {
        return Err((errors.unknown_action)(tool, &requested, &names()));
    };
    let takes = |key: &str| action.params.iter().any(|p| p.name == key);
    // Clients that fill every property of a flat schema send null for the others.
    args.retain(|k, v| !v.is_null() || takes(k));
    let mut problems = Vec::new();
    for key in args.keys().filter(|k| !takes(k)) {
        match group.takers.iter().find(|(p, _)| p == key) {
            Some((_, takers)) => problems.push((errors.param_not_for_action)(tool, action.name, key, takers)),
            None => {
                let allowed: Vec<&str> =
                    std::iter::once("action").chain(action.params.iter().map(|p| p.name)).collect();
                let call = format!("{tool}(action={})", action.name);
                problems.push((errors.unknown_parameter)(&call, key, &allowed.join(", ")));
            }
        }
    }
    for p in action.params.iter().filter(|p| p.required) {
        if args.get(p.name).is_none_or(Value::is_null) {
            problems.push((errors.missing_action_param)(tool, action.name, p.name));
        }
    }
    if let Some(error) = ToolError::combine(problems) {
        return Err(error);
    }
    let mut problems = Vec::new();
    for p in action.params {
        let Some(slot) = args.get_mut(p.name) else { continue };
        match p.coerce {
            Coerce::ToScalar => match slot {
                Value::Array(items) if items.len() == 1 => {
                    let item = items.remove(0);
                    *slot = item;
                }
                // The schema publishes the list: a lone value would be a call it does not admit.
                Value::Array(_) | Value::Null => {}
                lone => {
                    let expected = format!(
                        "a one-item list such as [{lone}] ({tool}(action={}) takes one value, in the list form its schema publishes)",
                        action.name
                    );
                    problems.push((errors.invalid_type)(p.name, &expected, &lone.to_string()));
                }
            },
            Coerce::List => {
                if !slot.is_array() && !slot.is_null() {
                    let expected = format!(
                        "a list, such as the one-item list [{slot}] ({tool}(action={}) takes a list here, as its schema publishes)",
                        action.name
                    );
                    problems.push((errors.invalid_type)(p.name, &expected, &slot.to_string()));
                }
            }
            Coerce::Keep => {}
        }
    }
    if let Some(error) = ToolError::combine(problems) {
        return Err(error);
    }
    Ok((action.tool, args))
}

/// Refuses every value whose JSON type is not the one the flat schema `schema` publishes for its
/// property (a number where a string is published, say). Lists are left to [`resolve`], which
/// names the one-item list, and so is `action`; `null` means "not given", as many clients send it.
pub fn check_published_types(schema: &Args, args: &Args, errors: &ActionErrors) -> Result<(), ToolError> {
    let problems: Vec<ToolError> = args
        .iter()
        // `action` is resolve's to judge: its refusal lists the actions.
        .filter(|(key, v)| !v.is_null() && key.as_str() != "action")
        .filter_map(|(key, v)| {
            let published = schema.get("properties")?.get(key)?.get("type")?.as_str()?;
            let fits = match published {
                "string" => v.is_string(),
                "integer" => v.is_i64() || v.is_u64(),
                "number" => v.is_number(),
                "boolean" => v.is_boolean(),
                "object" => v.is_object(),
                _ => true,
            };
            let expected = match published {
                "integer" => "an integer".to_string(),
                "object" => "an object".to_string(),
                t => format!("a {t}"),
            };
            (!fits)
                .then(|| (errors.invalid_type)(key, &format!("{expected}, as the schema publishes it"), &v.to_string()))
        })
        .collect();
    ToolError::combine(problems).map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;
    use serde_json::json;

    fn error(what: &str) -> ToolError {
        ToolError::new(ErrorCode::InvalidArgument, "t", what.to_string())
    }

    const ERRORS: ActionErrors = ActionErrors {
        missing_action: |t, a| error(&format!("missing action of {t}: {a}")),
        unknown_action: |t, x, a| error(&format!("unknown action {x} of {t}: {a}")),
        param_not_for_action: |t, x, p, k| error(&format!("{p} not for {t} {x}, only {k}")),
        unknown_parameter: |c, p, a| error(&format!("unknown {p} for {c}: {a}")),
        missing_action_param: |t, x, p| error(&format!("{t} {x} needs {p}")),
        invalid_type: |p, e, a| error(&format!("{p}: expected {e}, got {a}")),
    };

    const GROUPS: &[Group] = &[Group {
        tool: "items",
        actions: &[
            Action {
                name: "get",
                tool: "items_get",
                params: &[Param { name: "id", required: true, coerce: Coerce::ToScalar }],
            },
            Action {
                name: "list",
                tool: "items_list",
                params: &[Param { name: "id", required: false, coerce: Coerce::List }],
            },
        ],
        takers: &[("id", "get, list"), ("limit", "list")],
    }];

    fn args(v: Value) -> Args {
        v.as_object().cloned().expect("object")
    }

    #[test]
    fn an_action_resolves_to_its_tool_with_values_shaped_for_it() {
        let (tool, got) = resolve(GROUPS, &ERRORS, "items", args(json!({"action": "get", "id": ["A"]})))
            .expect("a group")
            .expect("valid");
        assert_eq!((tool, got), ("items_get", args(json!({"id": "A"}))));
        let (_, got) = resolve(GROUPS, &ERRORS, "items", args(json!({"action": "list", "id": ["A"], "x": null})))
            .expect("a group")
            .expect("valid: a null for a parameter the action does not take is dropped");
        assert_eq!(got, args(json!({"id": ["A"]})));
        assert_eq!(underlying(GROUPS, "items", &args(json!({"action": "list"}))), Some("items_list"));
        assert!(resolve(GROUPS, &ERRORS, "other", Args::new()).is_none());
    }

    #[test]
    fn every_problem_of_a_call_is_named() {
        let refused = |v: Value| resolve(GROUPS, &ERRORS, "items", args(v)).expect("a group").expect_err("refused");
        assert!(refused(json!({})).message.contains("missing action of items: get, list"));
        assert!(refused(json!({"action": 3})).message.contains("unknown action 3"));
        let e = refused(json!({"action": "get", "limit": 1, "zap": 2}));
        assert!(e.message.contains("limit not for items get, only list"), "{}", e.message);
        assert!(e.message.contains("unknown zap for items(action=get): action, id"), "{}", e.message);
        assert!(e.message.contains("items get needs id"), "{}", e.message);
        let lone = refused(json!({"action": "get", "id": "A"}));
        assert!(lone.message.contains("id: expected a one-item list such as [\"A\"]"), "{}", lone.message);
        let schema =
            json!({"properties": {"id": {"type": "string"}, "limit": {"type": "integer"}, "ids": {"type": "array"}}});
        let typed = |v: Value| check_published_types(&args(schema.clone()), &args(v), &ERRORS);
        assert!(typed(json!({"action": "get", "id": "A", "limit": 3, "ids": "lone", "other": 1, "x": null})).is_ok());
        let e = typed(json!({"id": 5, "limit": "3"})).expect_err("refused");
        assert!(e.message.contains("id: expected a string, as the schema publishes it, got 5"), "{}", e.message);
        assert!(e.message.contains("limit: expected an integer"), "{}", e.message);
        let lone = refused(json!({"action": "list", "id": "A"}));
        assert!(lone.message.contains("id: expected a list, such as the one-item list [\"A\"]"), "{}", lone.message);
    }
}
