//! JSON Schema for tools/list, built from the model: flat and inline (no `$ref`/`$defs`), one
//! `type` per property, valid under 2020-12 and draft-07, so every client accepts every tool.

use serde_json::{Map, Value, json};

use crate::model::{Field, Object, Publish, Shape};

/// Which side of a tool a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// Arguments (inputSchema). `additionalProperties` is never published here: the server accepts
    /// parameters a tool does not declare (it ignores them with a visible IGNORED_PARAMETER
    /// warning), so `false` would be untrue, and every model pays for it on every request.
    Input,
    /// Results (outputSchema): objects publish `additionalProperties` as declared.
    Output,
}

/// The inputSchema of a tool.
pub fn input_schema(obj: &Object) -> Value {
    object_schema(obj, Side::Input)
}

/// The schema of an input or output object (the root of inputSchema / outputSchema).
pub fn object_schema(obj: &Object, side: Side) -> Value {
    let mut props = Map::new();
    for f in obj.fields.iter().filter(|f| published(f)) {
        props.insert(f.wire.clone(), field_schema(f, side));
    }
    let mut out = Map::new();
    out.insert("type".into(), json!("object"));
    out.insert("properties".into(), Value::Object(props));
    let required: Vec<&str> = obj.fields.iter().filter(|f| f.required).map(|f| f.wire.as_str()).collect();
    if !required.is_empty() {
        out.insert("required".into(), json!(required));
    }
    if let (Some(additional), Side::Output) = (obj.additional, side) {
        out.insert("additionalProperties".into(), json!(additional));
    }
    Value::Object(out)
}

/// The outputSchema of a tool: its declared output plus `warnings`, which the server adds to
/// structuredContent when a call has warnings the model must see (e.g. an ignored parameter).
pub fn output_schema(obj: &Object) -> Value {
    let mut schema = object_schema(obj, Side::Output);
    schema["properties"][WARNINGS] = json!({
        "type": "array",
        "items": {"type": "string"},
        "description": "Warnings to read (also at the end of the text)."
    });
    schema
}

/// The output property every tool gets (see [`output_schema`]); a tool may not declare it.
pub const WARNINGS: &str = "warnings";

/// Whether a property appears in the published schema. Deprecated parameters and those marked
/// `publish: none` are still accepted and checked (the generated argument rules keep them) but not
/// published: every model pays for each published property on every request, and only prompts
/// written for the old or second name send them.
pub fn published(f: &Field) -> bool {
    f.deprecated.is_none() && f.publish != Publish::Hidden
}

/// The published shape of a field: `publish: shallow` objects (and arrays of them) lose their
/// properties, which the description names instead; the argument rules still check them.
pub(super) fn published_shape(f: &Field, side: Side) -> Value {
    fn outline(shape: &Shape, side: Side) -> Value {
        match shape {
            Shape::Object(_) => json!({"type": "object"}),
            Shape::Array { items, min_items, max_items } => {
                let mut m = Map::new();
                m.insert("type".into(), json!("array"));
                m.insert("items".into(), outline(items, side));
                insert_opt(&mut m, "minItems", *min_items);
                insert_opt(&mut m, "maxItems", *max_items);
                Value::Object(m)
            }
            other => shape_schema(other, side),
        }
    }
    match f.publish {
        Publish::Shallow => outline(&f.shape, side),
        Publish::Full | Publish::Hidden | Publish::Granular => shape_schema(&f.shape, side),
    }
}

/// Whether a description says no more than the property's name ("Assignee." for `assignee`,
/// "Session ID." for `sessionId`): such descriptions are left out of the published schema.
/// "Any of these statuses." for `status`, "One type." for `type` and "New title." for `title`
/// say no more either.
pub fn says_nothing(wire: &str, description: &str) -> bool {
    let name = singular(&heck::AsSnakeCase(wire).to_string().replace('_', " "));
    let text = description.trim().trim_end_matches('.').to_lowercase();
    let text = ["any of these ", "one ", "new ", "replaces the "]
        .iter()
        .fold(text.as_str(), |t, p| t.strip_prefix(p).unwrap_or(t));
    singular(text) == name
}

/// `words` with a plural ending made singular, as far as English plurals of field names go.
fn singular(words: &str) -> String {
    let w = words.to_lowercase();
    if let Some(stem) = w.strip_suffix("ies") {
        format!("{stem}y")
    } else if let Some(stem) = w.strip_suffix("ses") {
        format!("{stem}s")
    } else if w.ends_with("us") || w.ends_with("ss") {
        w
    } else {
        w.strip_suffix('s').unwrap_or(&w).to_string()
    }
}

/// A property's schema: its shape (with every bound the argument rules enforce) plus description
/// and default.
pub fn field_schema(f: &Field, side: Side) -> Value {
    let mut s = published_shape(f, side);
    let map = s.as_object_mut().expect("shape schemas are objects");
    if !says_nothing(&f.wire, &f.description) {
        map.insert("description".into(), json!(f.description));
    }
    if let Some(d) = published_default(f) {
        map.insert("default".into(), d.clone());
    }
    // A nullable result is sent as an explicit null (callers may test for it); inputs keep
    // one type, since null there means "clear it" and every client can send it anyway.
    if let (true, Side::Output, Some(t)) = (f.nullable, side, map.get("type").cloned()) {
        map.insert("type".into(), json!([t, "null"]));
    }
    s
}

/// The default a property publishes: every declared one, a flag's `false` too (a client that fills
/// defaults from the schema sends what the server assumes).
pub fn published_default(f: &Field) -> Option<&Value> {
    f.default.as_ref()
}

pub(super) fn shape_schema(shape: &Shape, side: Side) -> Value {
    let mut m = Map::new();
    if let Some(t) = shape.json_type() {
        m.insert("type".into(), json!(t));
    }
    match shape {
        // Every bound the argument rules enforce is published, so a client that validates before
        // calling refuses what the server would (issue 40); the manifest keeps only bounds a
        // caller needs to know, since each costs every model about five tokens per request.
        Shape::String { min_len, max_len } => {
            insert_opt(&mut m, "minLength", *min_len);
            insert_opt(&mut m, "maxLength", *max_len);
        }
        Shape::Enum { values, .. } => {
            m.insert("enum".into(), json!(values));
        }
        Shape::Integer { min, max } => {
            insert_opt(&mut m, "minimum", *min);
            insert_opt(&mut m, "maximum", *max);
        }
        Shape::Number { min, max } => {
            insert_opt(&mut m, "minimum", *min);
            insert_opt(&mut m, "maximum", *max);
        }
        Shape::Array { items, min_items, max_items } => {
            m.insert("items".into(), shape_schema(items, side));
            insert_opt(&mut m, "minItems", *min_items);
            insert_opt(&mut m, "maxItems", *max_items);
        }
        Shape::Object(obj) => return object_schema(obj, side),
        Shape::Boolean | Shape::Any | Shape::Map => {}
    }
    Value::Object(m)
}

fn insert_opt<T: Into<Value>>(m: &mut Map<String, Value>, key: &str, v: Option<T>) {
    if let Some(v) = v {
        m.insert(key.into(), v.into());
    }
}
