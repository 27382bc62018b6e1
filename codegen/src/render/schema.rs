//! JSON Schema for tools/list, built from the model: flat and inline (no `$ref`/`$defs`), one
//! `type` per property, valid under 2020-12 and draft-07, so every client accepts every tool.

use serde_json::{Map, Value, json};

use crate::model::{Field, Object, Shape};

/// The schema of an input or output object (the root of inputSchema / outputSchema).
pub fn object_schema(obj: &Object) -> Value {
    let mut props = Map::new();
    for f in &obj.fields {
        props.insert(f.wire.clone(), field_schema(f));
    }
    let mut out = Map::new();
    out.insert("type".into(), json!("object"));
    out.insert("properties".into(), Value::Object(props));
    let required: Vec<&str> = obj.fields.iter().filter(|f| f.required).map(|f| f.wire.as_str()).collect();
    if !required.is_empty() {
        out.insert("required".into(), json!(required));
    }
    if let Some(additional) = obj.additional {
        out.insert("additionalProperties".into(), json!(additional));
    }
    Value::Object(out)
}

/// The outputSchema of a tool: its declared output plus `warnings`, which the server adds to
/// structuredContent when a call has warnings the model must see (e.g. an ignored parameter).
pub fn output_schema(obj: &Object) -> Value {
    let mut schema = object_schema(obj);
    schema["properties"][WARNINGS] = json!({
        "type": "array",
        "items": {"type": "string"},
        "description": "Warnings to read (also at the end of the text)."
    });
    schema
}

/// The output property every tool gets (see [`output_schema`]); a tool may not declare it.
pub const WARNINGS: &str = "warnings";

/// A property's schema: its shape plus description, default and deprecation.
pub fn field_schema(f: &Field) -> Value {
    let mut s = shape_schema(&f.shape);
    let map = s.as_object_mut().expect("shape schemas are objects");
    let description = match &f.deprecated {
        Some(note) => format!("[DEPRECATED: {note}] {}", f.description),
        None => f.description.clone(),
    };
    map.insert("description".into(), json!(description));
    if let Some(d) = &f.default {
        map.insert("default".into(), d.clone());
    }
    if f.deprecated.is_some() {
        map.insert("deprecated".into(), json!(true));
    }
    s
}

pub(super) fn shape_schema(shape: &Shape) -> Value {
    let mut m = Map::new();
    if let Some(t) = shape.json_type() {
        m.insert("type".into(), json!(t));
    }
    match shape {
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
            m.insert("items".into(), shape_schema(items));
            insert_opt(&mut m, "minItems", *min_items);
            insert_opt(&mut m, "maxItems", *max_items);
        }
        Shape::Object(obj) => return object_schema(obj),
        Shape::Boolean | Shape::Any | Shape::Map => {}
    }
    Value::Object(m)
}

fn insert_opt<T: Into<Value>>(m: &mut Map<String, Value>, key: &str, v: Option<T>) {
    if let Some(v) = v {
        m.insert(key.into(), v.into());
    }
}
