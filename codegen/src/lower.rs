//! Lowering: turns a checked manifest into the [`Model`] the renderers see.
//!
//! Lowering reports nothing; [`crate::validate`] has already said everything wrong with the
//! manifest. It is still total on a broken one (an unknown type leaves its field out, a bad
//! flatten splices nothing), because the checks lower the parts they check against: a default is
//! checked against its field's lowered shape, a sample against its tool's lowered input.

use std::collections::HashMap;

use heck::{ToSnakeCase, ToUpperCamelCase};
use serde_json::Value;

use crate::manifest;
use crate::model::*;

pub(crate) const PRIMITIVES: &[&str] = &["string", "integer", "number", "boolean", "array", "object", "any"];
pub(crate) const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
    "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do",
    "final", "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield", "gen",
];

/// Lowers a manifest that [`crate::validate::check`] accepted.
pub fn lower(m: &manifest::Manifest) -> Model {
    let mut l = Lower::default();
    for (name, def) in &m.types {
        l.named_type(name, def);
    }
    let errors: Vec<ErrorTemplate> = m
        .errors
        .iter()
        .map(|(name, t)| ErrorTemplate {
            name: name.clone(),
            code: t.code.clone(),
            message: t.message.clone(),
            params: t.params.clone(),
        })
        .chain(BUILTIN_TEMPLATES.iter().filter(|b| !m.errors.contains_key(b.name)).map(|b| ErrorTemplate {
            name: b.name.to_string(),
            code: b.code.to_string(),
            message: b.message.to_string(),
            params: b.params.iter().map(|p| p.to_string()).collect(),
        }))
        .collect();
    let tools = m.tools.iter().map(|t| l.tool(t, &errors)).collect();
    Model {
        server: Server {
            name: m.server.name.clone(),
            title: m.server.title.clone(),
            instructions: m.server.instructions.clone(),
            tools_list_tokens: m.server.tools_list_tokens,
        },
        groups: m
            .groups
            .iter()
            .map(|(n, g)| Group {
                name: n.clone(),
                title: g.title.clone().unwrap_or_else(|| n.to_upper_camel_case()),
                description: g.description.clone(),
            })
            .collect(),
        rust_types: l.rust_types,
        errors,
        tools,
    }
}

/// Named types resolved so far, and every Rust type to emit in the order it was lowered.
#[derive(Default)]
pub(crate) struct Lower {
    /// Named types by manifest name, lowered once.
    pub named: HashMap<String, Shape>,
    pub rust_types: Vec<RustType>,
}

impl Lower {
    /// Registers named type `name`: an enum or an object (a type with both or neither is left out).
    pub fn named_type(&mut self, name: &str, def: &manifest::TypeDef) {
        let description = def.description.clone().unwrap_or_default();
        match (&def.enum_values, &def.properties) {
            (Some(values), None) => {
                self.rust_types.push(RustType::Enum { name: name.to_string(), description, values: values.clone() });
                self.named
                    .insert(name.to_string(), Shape::Enum { rust_name: name.to_string(), values: values.clone() });
            }
            (None, Some(props)) => {
                let object = self.object(props, name, &description, def.additional_properties.or(Some(false)));
                self.rust_types.push(RustType::Struct(object.clone()));
                self.named.insert(name.to_string(), Shape::Object(Box::new(object)));
            }
            _ => {}
        }
    }

    pub fn tool(&mut self, t: &manifest::Tool, errors: &[ErrorTemplate]) -> Tool {
        let a = &t.annotations;
        let (input, output) = self.tool_objects(t);
        let writes_when = t.writes_when.clone().filter(|wire| input.fields.iter().any(|f| &f.wire == wire));
        let samples = t.samples.iter().map(|s| sample_json(&t.name, s)).collect();
        self.rust_types.push(RustType::Struct(input.clone()));
        self.rust_types.push(RustType::Struct(output.clone()));
        Tool {
            name: t.name.clone(),
            title: t.title.clone().unwrap_or_else(|| t.name.clone()),
            description: t.description.clone().unwrap_or_default(),
            group: t.group.clone(),
            annotations: Annotations {
                read_only: a.read_only,
                destructive: a.destructive,
                idempotent: a.idempotent,
                open_world: a.open_world,
            },
            input,
            output,
            limits: t.limits.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            errors: t
                .errors
                .iter()
                .cloned()
                // A read-only server refuses every write tool's call with this template.
                .chain(
                    (!a.read_only
                        && errors.iter().any(|e| e.name == "read_only")
                        && !t.errors.iter().any(|e| e == "read_only"))
                    .then(|| "read_only".to_string()),
                )
                .collect(),
            error_context: t.error_context.clone(),
            deprecated: t
                .deprecated
                .as_ref()
                .map(|d| Deprecation { replacement: d.replacement.clone(), note: d.note.clone() }),
            writes_when,
            samples,
        }
    }

    /// A tool's input and output objects (`{Tool}Input`, `{Tool}Output`).
    pub fn tool_objects(&mut self, t: &manifest::Tool) -> (Object, Object) {
        let pascal = t.name.to_upper_camel_case();
        let input =
            self.object(&t.input, &format!("{pascal}Input"), &format!("Arguments of tool `{}`.", t.name), Some(false));
        let output = self.object(
            &t.output,
            &format!("{pascal}Output"),
            &format!("Structured result of tool `{}`.", t.name),
            None,
        );
        (input, output)
    }

    pub fn object(
        &mut self,
        props: &indexmap::IndexMap<String, manifest::Schema>,
        rust_name: &str,
        description: &str,
        additional: Option<bool>,
    ) -> Object {
        let mut fields = Vec::new();
        for (wire, schema) in props {
            let rust = rust_field_name(wire);
            let Some(shape) = self.shape(schema, &inline_name(rust_name, wire)) else { continue };
            if schema.flatten {
                self.flatten(schema, &rust, &shape, &mut fields);
                continue;
            }
            fields.push(Field {
                wire: wire.clone(),
                rust,
                description: schema.description.clone().unwrap_or_default(),
                required: schema.required,
                default: schema.default.as_ref().and_then(|d| serde_json::to_value(d).ok()),
                shape,
                deprecated: schema.deprecated.clone(),
                nullable: schema.nullable,
                publish: publish(schema.publish),
                flattened_into: None,
            });
        }
        Object { rust_name: rust_name.to_string(), description: description.to_string(), fields, additional }
    }

    /// Splices the fields of a named object type (a shared parameter set) in place of the field
    /// `rust` that declares `flatten: true`.
    fn flatten(&mut self, schema: &manifest::Schema, rust: &str, shape: &Shape, fields: &mut Vec<Field>) {
        let Shape::Object(set) = shape else { return };
        if !self.named.contains_key(&schema.ty) {
            return;
        }
        // The set's struct receives every key of the struct it is flattened into, so it cannot
        // deny unknown ones (the argument rules check the spliced parameters instead).
        for t in &mut self.rust_types {
            if let RustType::Struct(o) = t
                && o.rust_name == set.rust_name
            {
                o.additional = None;
            }
        }
        for f in &set.fields {
            let mut spliced = f.clone();
            spliced.flattened_into = Some((rust.to_string(), set.rust_name.clone()));
            fields.push(spliced);
        }
    }

    /// The shape of a schema; `None` when its type (or its items' type) is unknown or an array has
    /// no items. Inline enums and objects are registered as Rust types named `inline_name`.
    pub fn shape(&mut self, s: &manifest::Schema, inline_name: &str) -> Option<Shape> {
        Some(match s.ty.as_str() {
            "string" => match &s.enum_values {
                Some(values) => {
                    self.rust_types.push(RustType::Enum {
                        name: inline_name.to_string(),
                        description: s.description.clone().unwrap_or_default(),
                        values: values.clone(),
                    });
                    Shape::Enum { rust_name: inline_name.to_string(), values: values.clone() }
                }
                None => Shape::String { min_len: s.min_length, max_len: s.max_length },
            },
            "integer" => Shape::Integer { min: s.minimum.map(|v| v as i64), max: s.maximum.map(|v| v as i64) },
            "number" => Shape::Number { min: s.minimum, max: s.maximum },
            "boolean" => Shape::Boolean,
            "any" => Shape::Any,
            "array" => {
                let item = self.shape(s.items.as_ref()?, &format!("{inline_name}Item"))?;
                Shape::Array { items: Box::new(item), min_items: s.min_items, max_items: s.max_items }
            }
            "object" => match &s.properties {
                None => Shape::Map,
                Some(props) => {
                    let obj = self.object(
                        props,
                        inline_name,
                        s.description.as_deref().unwrap_or_default(),
                        s.additional_properties.or(Some(false)),
                    );
                    self.rust_types.push(RustType::Struct(obj.clone()));
                    Shape::Object(Box::new(obj))
                }
            },
            named => self.named.get(named)?.clone(),
        })
    }
}

/// The Rust name of an inline type declared by property `wire` of object `rust_name`
/// (`IssuesListInput` + `status` -> `IssuesListStatus`).
pub(crate) fn inline_name(rust_name: &str, wire: &str) -> String {
    let base = rust_name.strip_suffix("Input").unwrap_or(rust_name);
    format!("{base}{}", wire.to_upper_camel_case())
}

fn publish(p: Option<manifest::Publish>) -> Publish {
    match p {
        None | Some(manifest::Publish::Full) => Publish::Full,
        Some(manifest::Publish::None) => Publish::Hidden,
        Some(manifest::Publish::Granular) => Publish::Granular,
        Some(manifest::Publish::Shallow) => Publish::Shallow,
    }
}

/// A sample call as JSON: `tool`, `args`, and `read`, `save`, `expect`, `error` when set.
fn sample_json(tool: &str, sample: &manifest::Sample) -> Value {
    let json = |v: &serde_yaml::Value| serde_json::to_value(v).unwrap_or(Value::Null);
    let args: serde_json::Map<String, Value> = sample.args.iter().map(|(k, v)| (k.clone(), json(v))).collect();
    let mut s = serde_json::json!({ "tool": tool, "args": args });
    if let Some(read) = &sample.read {
        s["read"] = serde_json::json!({ "uri": read.uri, "save": read.save });
    }
    if !sample.save.is_empty() {
        s["save"] = serde_json::json!(sample.save);
    }
    if !sample.expect.is_empty() {
        let expect: serde_json::Map<String, Value> = sample.expect.iter().map(|(k, v)| (k.clone(), json(v))).collect();
        s["expect"] = Value::Object(expect);
    }
    if let Some(code) = &sample.error {
        s["error"] = serde_json::json!(code);
    }
    s
}

/// Rust field name for a wire name: snake_case, keywords as raw identifiers.
pub fn rust_field_name(wire: &str) -> String {
    let snake = wire.to_snake_case();
    if RUST_KEYWORDS.contains(&snake.as_str()) { format!("r#{snake}") } else { snake }
}
