//! The consolidated profile (a server's second tool style): one tool per group, named
//! after the group, whose `action` enum picks one of the group's tools (`issues_get_batch` ->
//! action `get_batch`). Its input schema is one flat object: `action` plus the union of the
//! group's parameters, each described with the actions that take it.
//!
//! Same-named parameters merge into one property. Where their schemas differ the published one is
//! looser (widest bounds, union of enums); the exact rules still run afterwards, in the underlying
//! tool's generated argument parser. Where one action takes a value and another an array of them,
//! the property is the array and resolve unwraps a one-item array for the scalar actions. What the
//! flat schema cannot say (required per action, parameters of other actions) the generated
//! `resolve` checks, with catalogue messages.
//!
//! Consolidated tools publish no outputSchema: structuredContent differs per action (see
//! toolkit/docs/manifest.md for why a merged schema is not published instead).

use proc_macro2::TokenStream;
use quote::quote;
use serde_json::{Map, Value, json};

use super::schema::{Side, published, published_default, published_shape, says_nothing, shape_schema};
use super::types::docs;
use crate::model::{Annotations, Field, Model, Publish, Shape, Tool};

/// How resolve adapts a parameter's value for one action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coerce {
    Keep,
    /// Published as an array, the action takes one value: a one-item array is unwrapped.
    ToScalar,
    /// Published as an array, and the action takes an array: a lone value is refused (the
    /// published schema does not admit it), where the granular tool would read it as a list.
    List,
}

impl Coerce {
    /// The matching variant of the runtime's `consolidated::Coerce`.
    fn runtime_variant(self) -> TokenStream {
        match self {
            Coerce::Keep => quote! { Coerce::Keep },
            Coerce::ToScalar => quote! { Coerce::ToScalar },
            Coerce::List => quote! { Coerce::List },
        }
    }
}

pub struct Action<'m> {
    pub name: String,
    pub tool: &'m Tool,
    /// (parameter, required, coercion), in the tool's order.
    pub params: Vec<(String, bool, Coerce)>,
}

pub struct Param {
    pub wire: String,
    /// Every action that takes it (resolve accepts it for these, published or not).
    pub actions: Vec<String>,
    pub schema: Value,
    /// The actions that publish it: not deprecated, not `publish: none` or `granular` (the others
    /// accept it unpublished, as in granular). Empty: the property is not published.
    pub published_by: Vec<String>,
    /// Every action requires it: the schema's root `required` lists it.
    pub required: bool,
}

/// One consolidated tool.
pub struct Consolidated<'m> {
    pub name: String,
    pub title: String,
    pub description: String,
    pub annotations: Annotations,
    pub actions: Vec<Action<'m>>,
    pub params: Vec<Param>,
}

impl Consolidated<'_> {
    /// The published inputSchema: `action` first, then the merged parameters.
    pub fn input_schema(&self) -> Value {
        let mut props = Map::new();
        let names: Vec<&str> = self.actions.iter().map(|a| a.name.as_str()).collect();
        // The tool description lists the actions.
        props.insert("action".into(), json!({"type": "string", "enum": names}));
        let mut required = vec!["action"];
        for p in self.params.iter().filter(|p| !p.published_by.is_empty()) {
            props.insert(p.wire.clone(), p.schema.clone());
            if p.required {
                required.push(&p.wire);
            }
        }
        json!({"type": "object", "properties": props, "required": required})
    }
}

/// Granular tool name -> how the consolidated profile names that call, e.g. `issues(action=list)`;
/// longest names first so rewriting never stops at a prefix.
pub fn aliases(model: &Model) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = model
        .tools
        .iter()
        .filter(|t| !t.group.is_empty())
        .map(|t| (t.name.clone(), format!("{}(action={})", t.group, t.action())))
        .collect();
    out.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
    out
}

// The runtime's own renaming, so the consolidated texts written at build time and those a
// server rewrites at run time cannot differ.
use toolkit_runtime::aliases;

/// Replaces every whole-word granular tool name in `text` with its consolidated form.
pub fn rewrite(text: &str, aliases: &[(String, String)]) -> String {
    aliases::rewrite(text, aliases, &[])
}

/// Every consolidated tool of `model`, in group order; groups without tools are skipped.
pub fn plan(model: &Model) -> Vec<Consolidated<'_>> {
    let aliases = aliases(model);
    model
        .groups
        .iter()
        .filter_map(|g| {
            let tools: Vec<&Tool> = model.tools.iter().filter(|t| t.group == g.name).collect();
            if tools.is_empty() {
                return None;
            }
            // Parameter name -> (action, field) of every tool that takes it, in first-seen order.
            let mut uses: Vec<(String, Vec<(String, &Field)>)> = Vec::new();
            for t in &tools {
                for f in &t.input.fields {
                    match uses.iter_mut().find(|(w, _)| *w == f.wire) {
                        Some((_, v)) => v.push((t.action().to_string(), f)),
                        None => uses.push((f.wire.clone(), vec![(t.action().to_string(), f)])),
                    }
                }
            }
            let mut coercions: Vec<(String, String, Coerce)> = Vec::new();
            let params: Vec<Param> = uses
                .iter()
                .map(|(wire, used)| {
                    let (param, coerce) = merge_param(wire, used, tools.len(), &aliases);
                    coercions.extend(coerce.into_iter().map(|(a, c)| (a, wire.clone(), c)));
                    param
                })
                .collect();
            let actions = tools
                .iter()
                .map(|t| Action {
                    name: t.action().to_string(),
                    tool: t,
                    params: t
                        .input
                        .fields
                        .iter()
                        .map(|f| {
                            let c = coercions
                                .iter()
                                .find(|(a, w, _)| a == t.action() && *w == f.wire)
                                .map_or(Coerce::Keep, |x| x.2);
                            (f.wire.clone(), f.required, c)
                        })
                        .collect(),
                })
                .collect::<Vec<_>>();
            let annotations = Annotations {
                read_only: tools.iter().all(|t| t.annotations.read_only),
                destructive: tools.iter().any(|t| t.annotations.destructive),
                idempotent: tools.iter().all(|t| t.annotations.idempotent),
                open_world: tools.iter().any(|t| t.annotations.open_world),
            };
            let lines: Vec<String> = tools.iter().map(|t| action_line(t, &params, &aliases)).collect();
            let description = format!(
                "{} Actions and their parameters (* = required):\n{}",
                squash(&g.description),
                lines.join("\n")
            );
            Some(Consolidated {
                name: g.name.clone(),
                title: g.title.clone(),
                description,
                annotations,
                actions,
                params,
            })
        })
        .collect()
}

/// `- action: p1*, p2`: the parameters the action publishes, `*` where it requires them, and
/// whether the action is deprecated.
fn action_line(t: &Tool, params: &[Param], aliases: &[(String, String)]) -> String {
    let action = t.action();
    let names: Vec<String> = t
        .input
        .fields
        .iter()
        .filter(|f| params.iter().any(|p| p.wire == f.wire && p.published_by.iter().any(|a| a == action)))
        .map(|f| if f.required { format!("{}*", f.wire) } else { f.wire.clone() })
        .collect();
    let mut line = format!("- {action}");
    if !names.is_empty() {
        line.push_str(&format!(": {}", names.join(", ")));
    }
    if let Some(d) = &t.deprecated {
        line.push_str(&format!(" [DEPRECATED: use {}]", rewrite(&d.replacement, aliases)));
    }
    line
}

/// Collapses runs of whitespace (folded YAML keeps some newlines) into single spaces.
fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The merged property of one parameter name, and the actions whose value resolve must adapt.
/// Value adaptation considers every action that takes the parameter; the published property
/// only the actions that publish it (not deprecated, not `publish: none`).
fn merge_param(
    wire: &str,
    used: &[(String, &Field)],
    group_actions: usize,
    aliases: &[(String, String)],
) -> (Param, Vec<(String, Coerce)>) {
    let type_of = |v: &Value| v.get("type").and_then(Value::as_str).map(str::to_string);
    let full: Vec<Value> = used.iter().map(|(_, f)| shape_schema(&f.shape, Side::Input)).collect();
    let widest = type_of(&full[1..].iter().fold(full[0].clone(), |acc, s| merge(&acc, s)));
    let coerce: Vec<(String, Coerce)> = used
        .iter()
        .zip(&full)
        .filter(|_| widest.as_deref() == Some("array"))
        .map(|((a, _), s)| {
            let c = if type_of(s).as_deref() == Some("array") { Coerce::List } else { Coerce::ToScalar };
            (a.clone(), c)
        })
        .collect();
    let actions = used.iter().map(|(a, _)| a.clone()).collect();
    let shown: Vec<&(String, &Field)> =
        used.iter().filter(|(_, f)| published(f) && f.publish != Publish::Granular).collect();
    if shown.is_empty() {
        let param =
            Param { wire: wire.to_string(), actions, schema: json!({}), published_by: Vec::new(), required: false };
        return (param, coerce);
    }
    let shapes: Vec<Value> = shown.iter().map(|(_, f)| outline(f)).collect();
    let mut merged = shapes[1..].iter().fold(shapes[0].clone(), |acc, s| merge(&acc, s));
    let published_type = type_of(&merged);
    let conflict = shapes.iter().any(|s| type_of(s) != type_of(&shapes[0]));
    let first_default = published_default(shown[0].1).cloned();
    let shared_default =
        first_default.is_some() && shown.iter().all(|(_, f)| published_default(f) == first_default.as_ref());
    // Defaults are described per action only where actions disagree on one (format: summary for
    // list, minimal for search); a default only one action has is its natural value (create's
    // status open) and the others have none.
    let defaults = shown.iter().filter(|(_, f)| published_default(f).is_some()).count();
    // What there is to say beyond the name, per action; actions with the same text share it.
    let mut parts: Vec<(Vec<&str>, String)> = Vec::new();
    for ((action, f), shape) in shown.iter().map(|u| (&u.0, u.1)).zip(&shapes) {
        let mut text =
            if says_nothing(wire, &f.description) { String::new() } else { rewrite(&squash(&f.description), aliases) };
        if let Some(keys) = nested_keys(f) {
            text.push_str(&keys);
        }
        if let (false, true, Some(d)) = (shared_default, defaults > 1, published_default(f)) {
            let d = d.as_str().map_or_else(|| d.to_string(), str::to_string);
            text.push_str(&format!(" Default {d}."));
        }
        if conflict && published_type.is_none() {
            text.push_str(&format!(" Type: {}.", type_of(shape).as_deref().unwrap_or("any")));
        }
        let text = text.trim().to_string();
        match parts.iter_mut().find(|(_, t)| *t == text) {
            Some((actions, _)) => actions.push(action),
            None => parts.push((vec![action], text)),
        }
    }
    // The tool description lists each action's parameters; the property says only what applies to
    // all its actions, or "a, b: text" for the actions a text is about.
    let description = match parts.as_slice() {
        [(_, text)] => text.clone(),
        _ => parts
            .iter()
            .filter(|(_, text)| !text.is_empty())
            .map(|(actions, text)| format!("{}: {text}", actions.join(", ")))
            .collect::<Vec<_>>()
            .join(" "),
    };
    let map = merged.as_object_mut().expect("shape schemas are objects");
    if !description.is_empty() {
        map.insert("description".into(), json!(description));
    }
    if shared_default {
        map.insert("default".into(), first_default.clone().expect("checked above"));
    }
    let required = shown.len() == group_actions && shown.iter().all(|(_, f)| f.required);
    let published_by = shown.iter().map(|(a, _)| a.clone()).collect();
    let param = Param { wire: wire.to_string(), actions, schema: merged, published_by, required };
    (param, coerce)
}

/// The published shape of a parameter here: nested objects (and arrays of them) are always
/// published without their properties, as `publish: shallow` does in granular: the flat tool
/// already publishes most of them as parameters of their own (`updates` items are `update`'s
/// fields), and every model pays for each repetition.
fn outline(f: &Field) -> Value {
    let mut shallow = f.clone();
    shallow.publish = Publish::Shallow;
    published_shape(&shallow, Side::Input)
}

/// For a nested object published whole in granular, the note naming its properties (`*` for
/// required ones); shallow ones name them in their description already.
fn nested_keys(f: &Field) -> Option<String> {
    let (object, each) = match &f.shape {
        Shape::Object(o) => (o, false),
        Shape::Array { items, .. } => match items.as_ref() {
            Shape::Object(o) => (o, true),
            _ => return None,
        },
        _ => return None,
    };
    if f.publish == Publish::Shallow {
        return None;
    }
    let keys: Vec<String> = object
        .fields
        .iter()
        .filter(|x| published(x))
        .map(|x| if x.required { format!("{}*", x.wire) } else { x.wire.clone() })
        .collect();
    Some(format!(" {}: {}.", if each { "Each" } else { "Keys" }, keys.join(", ")))
}

/// A schema every value of `a` and of `b` satisfies, still with at most one `type`: equal schemas
/// stay; same types keep the loosest bounds and the union of enums; a value and an array of
/// values become the array; anything else becomes untyped (the underlying parser still checks).
pub fn merge(a: &Value, b: &Value) -> Value {
    if a == b {
        return a.clone();
    }
    let ty = |v: &Value| v.get("type").and_then(Value::as_str).map(str::to_string);
    match (ty(a), ty(b)) {
        (Some(x), Some(y)) if x == y => {
            let mut m = Map::new();
            m.insert("type".into(), json!(x));
            match x.as_str() {
                "string" => {
                    if let (Some(ea), Some(eb)) =
                        (a.get("enum").and_then(Value::as_array), b.get("enum").and_then(Value::as_array))
                    {
                        let mut values = ea.clone();
                        values.extend(eb.iter().filter(|v| !ea.contains(v)).cloned());
                        m.insert("enum".into(), Value::Array(values));
                    }
                    bounds(&mut m, a, b, "minLength", "maxLength");
                }
                "integer" | "number" => bounds(&mut m, a, b, "minimum", "maximum"),
                "array" => {
                    m.insert("items".into(), merge(&a["items"], &b["items"]));
                    bounds(&mut m, a, b, "minItems", "maxItems");
                }
                _ => {}
            }
            Value::Object(m)
        }
        (Some(x), Some(_)) if x == "array" => array_of(a, b),
        (Some(_), Some(y)) if y == "array" => array_of(b, a),
        _ => json!({}),
    }
}

/// `array` (a schema of type array) widened so that it also covers one `value` as an item.
fn array_of(array: &Value, value: &Value) -> Value {
    let mut m = Map::new();
    m.insert("type".into(), json!("array"));
    m.insert("items".into(), merge(&array["items"], value));
    if let Some(max) = array.get("maxItems") {
        m.insert("maxItems".into(), max.clone());
    }
    Value::Object(m)
}

/// Keeps a lower (upper) bound only when both schemas have one, at the lower (higher) value.
fn bounds(m: &mut Map<String, Value>, a: &Value, b: &Value, lo: &str, hi: &str) {
    let pick = |key: &str, f: fn(f64, f64) -> f64| match (a.get(key), b.get(key)) {
        (Some(x), Some(y)) => {
            let (fx, fy) = (x.as_f64().unwrap_or_default(), y.as_f64().unwrap_or_default());
            Some(if f(fx, fy) == fx { x.clone() } else { y.clone() })
        }
        _ => None,
    };
    if let Some(v) = pick(lo, f64::min) {
        m.insert(lo.into(), v);
    }
    if let Some(v) = pick(hi, f64::max) {
        m.insert(hi.into(), v);
    }
}

/// The tools/list entry of a consolidated tool (what `tool_definitions()` publishes).
pub fn tool_json(c: &Consolidated) -> Value {
    let a = c.annotations;
    json!({
        "name": c.name, "title": c.title, "description": c.description, "inputSchema": c.input_schema(),
        "annotations": {"title": c.title, "readOnlyHint": a.read_only, "destructiveHint": a.destructive,
            "idempotentHint": a.idempotent, "openWorldHint": a.open_world},
    })
}

/// `pub mod consolidated`: the profile's tool table, instructions, aliases and `resolve`.
pub fn module(model: &Model, rt: &TokenStream) -> TokenStream {
    let plan = plan(model);
    let aliases = aliases(model);
    let instructions = rewrite(&model.server.instructions, &aliases);
    let specs = plan.iter().map(|c| {
        let (name, title, description) = (&c.name, &c.title, &c.description);
        let a = c.annotations;
        let (ro, de, id, ow) = (a.read_only, a.destructive, a.idempotent, a.open_world);
        let input = c.input_schema().to_string();
        quote! {
            ToolSpec {
                name: #name, title: #title, description: #description, group: #name,
                read_only: #ro, destructive: #de, idempotent: #id, open_world: #ow,
                deprecated_by: None, input_schema: #input, output_schema: "",
                error_context: &[], writes_when: None,
            }
        }
    });
    let groups = plan.iter().map(|c| {
        let tool = &c.name;
        let actions = c.actions.iter().map(|a| {
            let (name, underlying) = (&a.name, &a.tool.name);
            let params = a.params.iter().map(|(p, required, coerce)| {
                let coerce = coerce.runtime_variant();
                quote! { Param { name: #p, required: #required, coerce: #coerce } }
            });
            quote! { Action { name: #name, tool: #underlying, params: &[ #( #params ),* ] } }
        });
        let takers = c.params.iter().map(|p| {
            let (wire, actions) = (&p.wire, p.actions.join(", "));
            quote! { (#wire, #actions) }
        });
        quote! { Group { tool: #tool, actions: &[ #( #actions ),* ], takers: &[ #( #takers ),* ] } }
    });
    let alias_rows = aliases.iter().map(|(from, to)| quote! { (#from, #to) });
    let doc = docs(
        "The consolidated profile (`--tool-style consolidated`): one tool per group with an `action`\n\
         parameter, resolved to the underlying tool before dispatch. Generated from the same groups\n\
         and tools as the granular profile.",
    );
    quote! {
        #doc
        pub mod consolidated {
            use super::errors;
            use #rt::ToolSpec;
            use #rt::consolidated::{Action, ActionErrors, Coerce, Group, Param, Profile};

            /// Server instructions with every tool named as its consolidated call.
            pub const INSTRUCTIONS: &str = #instructions;

            /// One tool per group, in manifest order. They publish no outputSchema: structuredContent is
            /// the underlying tool's and differs per action.
            pub const TOOLS: &[ToolSpec] = &[ #( #specs ),* ];

            /// Granular tool name -> its consolidated call, longest names first (for rewriting texts).
            pub const ALIASES: &[(&str, &str)] = &[ #( #alias_rows ),* ];

            /// Every consolidated tool's actions.
            pub const GROUPS: &[Group] = &[ #( #groups ),* ];

            /// The rmcp tool definitions of [`TOOLS`], as tools/list publishes them.
            pub fn tool_definitions() -> ::std::vec::Vec<::rmcp::model::Tool> {
                TOOLS.iter().map(ToolSpec::to_tool).collect()
            }

            /// The manifest's messages for the action checks of the runtime's `consolidated::resolve`.
            pub const ERRORS: ActionErrors = ActionErrors {
                missing_action: |tool, actions| errors::missing_action(tool, actions),
                unknown_action: |tool, action, actions| errors::unknown_action(tool, action, actions),
                param_not_for_action: |tool, action, param, actions| errors::param_not_for_action(tool, action, param, actions),
                unknown_parameter: |call, param, allowed| errors::unknown_parameter(call, param, allowed),
                missing_action_param: |tool, action, param| errors::missing_action_param(tool, action, param),
                invalid_type: |param, expected, actual| errors::invalid_type(param, expected, actual),
            };

            /// The whole profile, for the runtime's `Server::consolidated`.
            pub const PROFILE: Profile =
                Profile { tools: TOOLS, groups: GROUPS, errors: &ERRORS, aliases: ALIASES, instructions: INSTRUCTIONS };
        }
    }
}
