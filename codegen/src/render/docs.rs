//! `docs/tools.md`: the tool reference, rendered from the model with minijinja.

use minijinja::syntax::SyntaxConfig;
use minijinja::{Environment, UndefinedBehavior, Value as Jinja, context};
use serde_json::{Value, json};

use super::schema::{Side, field_schema};
use crate::model::{Field, Model, Publish};

const TEMPLATE: &str = include_str!("../../templates/tools.md.j2");

pub fn tools_markdown(model: &Model) -> Result<String, String> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    let syntax = SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .keep_trailing_newline(true)
        .build()
        .map_err(|e| e.to_string())?;
    env.set_syntax(syntax);
    env.add_template("tools.md", TEMPLATE).map_err(|e| e.to_string())?;
    let tools: Vec<Value> = model
        .tools
        .iter()
        .map(|t| {
            let errors: Vec<Value> = t
                .errors
                .iter()
                .filter_map(|e| model.errors.iter().find(|x| &x.name == e))
                .map(|e| json!({"name": e.name, "code": e.code, "message": e.message}))
                .collect();
            json!({
                "name": t.name, "title": t.title, "description": t.published_description(), "group": t.group,
                "read_only": t.annotations.read_only, "destructive": t.annotations.destructive,
                "idempotent": t.annotations.idempotent, "open_world": t.annotations.open_world,
                "params": t.input.fields.iter().map(|f| param_row(f, Side::Input)).collect::<Vec<_>>(),
                "outputs": t.output.fields.iter().map(|f| param_row(f, Side::Output)).collect::<Vec<_>>(),
                "limits": t.limits.iter().map(|(k, v)| json!({"name": k, "value": v})).collect::<Vec<_>>(),
                "errors": errors,
            })
        })
        .collect();
    let tmpl = env.get_template("tools.md").map_err(|e| e.to_string())?;
    tmpl.render(context! {
        server => Jinja::from(minijinja::value::Serde(json!({"name": model.server.name, "title": model.server.title}))),
        tools => Jinja::from(minijinja::value::Serde(&tools)),
        groups => model.groups.len(),
        budget => model.server.tools_list_tokens.map(|b| Jinja::from(minijinja::value::Serde(
            json!({"granular": thousands(b.granular), "consolidated": thousands(b.consolidated)})
        ))),
    })
    .map_err(|e| e.to_string())
}

/// `2700` as `2,700`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn param_row(f: &Field, side: Side) -> Value {
    let schema = field_schema(f, side);
    let mut ty = schema.get("type").and_then(Value::as_str).unwrap_or("any").to_string();
    if let Some(items) = schema.get("items").and_then(|i| i.get("type")).and_then(Value::as_str) {
        ty = format!("{items}[]");
    }
    let mut notes = Vec::new();
    if let Some(values) = schema.get("enum").or_else(|| schema.get("items").and_then(|i| i.get("enum"))) {
        let list: Vec<String> =
            values.as_array().into_iter().flatten().filter_map(Value::as_str).map(|s| format!("`{s}`")).collect();
        notes.push(format!("one of {}", list.join(", ")));
    }
    for (key, label) in [
        ("default", "default"),
        ("minimum", "min"),
        ("maximum", "max"),
        ("minLength", "min length"),
        ("maxLength", "max length"),
        ("maxItems", "max items"),
    ] {
        if let Some(v) = schema.get(key) {
            notes.push(format!("{label} `{v}`"));
        }
    }
    if let Some(note) = &f.deprecated {
        notes.push(format!("deprecated ({note}), not published"));
    } else {
        match f.publish {
            Publish::Hidden => notes.push("not published".into()),
            Publish::Granular => notes.push("not published by the consolidated profile".into()),
            Publish::Shallow => notes.push("published without its properties".into()),
            Publish::Full => {}
        }
    }
    json!({
        "name": f.wire, "type": ty, "required": f.required,
        "description": f.description.replace('\n', " ").replace('|', "\\|"),
        "notes": notes.join("; "),
    })
}
