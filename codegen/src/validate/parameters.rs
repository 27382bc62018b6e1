//! The properties of inputs, outputs and object types: Rust names, descriptions, defaults,
//! `nullable`, `flatten` and `publish`.

use std::collections::HashMap;

use super::Checker;
use super::values::check_value;
use crate::lower::{inline_name, rust_field_name};
use crate::manifest;
use crate::model::{Publish, Shape};

impl Checker<'_> {
    /// Checks the properties `props` (at YAML path `path`) of the object lowered as `rust_name`.
    pub(super) fn object(&mut self, props: &indexmap::IndexMap<String, manifest::Schema>, path: &str, rust_name: &str) {
        let mut rust_names: HashMap<String, String> = HashMap::new();
        for (wire, schema) in props {
            let fpath = format!("{path}.{wire}");
            let rust = rust_field_name(wire);
            if let Some(other) = rust_names.insert(rust.clone(), wire.clone()) {
                self.error_at_key(
                    &fpath,
                    "name-collision",
                    format!("`{wire}` and `{other}` map to the same Rust field `{rust}`"),
                    None,
                );
            }
            let Some(shape) = self.shape(schema, &fpath, &inline_name(rust_name, wire)) else { continue };
            if schema.flatten {
                self.flatten(schema, &fpath, &shape, &mut rust_names);
                continue;
            }
            let description = schema.description.clone().unwrap_or_default();
            if description.trim().is_empty() {
                self.error_at_key(
                    &fpath,
                    "missing-description",
                    format!("`{wire}` has no description"),
                    Some("add `description:`; the model reads it"),
                );
            }
            let default = schema.default.as_ref().and_then(|d| serde_json::to_value(d).ok());
            if let Some(d) = &default {
                if schema.required {
                    self.error(
                        &format!("{fpath}.default"),
                        "required-with-default",
                        format!("`{wire}` is required and has a default"),
                        Some("a default only applies when the argument is omitted; drop one of them"),
                    );
                }
                if let Err(why) = check_value(&shape, d) {
                    self.error(
                        &format!("{fpath}.default"),
                        "default-invalid",
                        format!("default of `{wire}` is invalid: {why}"),
                        Some("change the default so it satisfies the declared type, enum and limits"),
                    );
                }
            }
            if schema.nullable && (schema.required || default.is_some()) {
                self.error_at_key(
                    &fpath,
                    "nullable-not-optional",
                    format!("`{wire}` is nullable but also required or defaulted"),
                    Some("nullable means null clears an optional field; drop `required`/`default` or `nullable`"),
                );
            }
            self.publish(schema, &fpath, wire, &shape, &description);
        }
    }

    /// `flatten: true` takes a named object type (a shared parameter set) whose properties do not
    /// collide with the object's other fields.
    fn flatten(
        &mut self,
        schema: &manifest::Schema,
        path: &str,
        shape: &Shape,
        rust_names: &mut HashMap<String, String>,
    ) {
        let set = match shape {
            Shape::Object(set) if self.lower.named.contains_key(&schema.ty) => set,
            _ => {
                return self.error(
                    &format!("{path}.type"),
                    "bad-flatten",
                    format!("`flatten` needs a named object type, not `{}`", schema.ty),
                    Some("declare the parameter set under `types:` with `properties:`"),
                );
            }
        };
        if schema.required || schema.default.is_some() || schema.nullable || schema.publish.is_some() {
            self.error_at_key(
                path,
                "bad-flatten",
                "a flattened parameter set takes no `required`, `default`, `nullable` or `publish`".to_string(),
                Some("set those on the set's own properties"),
            );
        }
        for f in &set.fields {
            if let Some(other) = rust_names.insert(f.rust.clone(), f.wire.clone()) {
                self.error_at_key(
                    path,
                    "name-collision",
                    format!("`{}` of `{}` collides with `{other}`", f.wire, schema.ty),
                    Some("a parameter set's properties become parameters: rename one of them"),
                );
            }
        }
    }

    /// `publish:` of a field: hidden fields must be optional and not deprecated (deprecated ones
    /// are unpublished already); shallow ones must be objects with properties (or arrays of
    /// them) whose description names every published property.
    fn publish(&mut self, s: &manifest::Schema, path: &str, wire: &str, shape: &Shape, description: &str) {
        let at = format!("{path}.publish");
        match s.publish {
            None | Some(manifest::Publish::Full) => {}
            Some(manifest::Publish::None | manifest::Publish::Granular) => {
                if s.required {
                    self.error(
                        &at,
                        "bad-publish",
                        format!("`{wire}` is required but not published"),
                        Some("the model must see what it has to send; publish it or make it optional"),
                    );
                }
                if s.deprecated.is_some() {
                    self.error(
                        &at,
                        "bad-publish",
                        format!("`{wire}` is deprecated, which already leaves it out of the published schema"),
                        Some("drop `publish:`"),
                    );
                }
            }
            Some(manifest::Publish::Shallow) => {
                let object = match shape {
                    Shape::Object(o) => Some(o),
                    Shape::Array { items, .. } => match items.as_ref() {
                        Shape::Object(o) => Some(o),
                        _ => None,
                    },
                    _ => None,
                };
                match object {
                    None => self.error(
                        &at,
                        "bad-publish",
                        format!("`publish: shallow` does not apply to `{wire}`"),
                        Some("it publishes an object (or array of objects) without its properties; use it on those"),
                    ),
                    Some(o) => {
                        let unnamed: Vec<&str> = o
                            .fields
                            .iter()
                            .filter(|f| f.deprecated.is_none() && f.publish != Publish::Hidden)
                            .map(|f| f.wire.as_str())
                            .filter(|k| !names_word(description, k))
                            .collect();
                        if !unnamed.is_empty() {
                            self.error(
                                &at,
                                "bad-publish",
                                format!(
                                    "`{wire}` is published without its properties, but its description does not name {}",
                                    unnamed.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
                                ),
                                Some("the description is all the model learns of them: name every property in it"),
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Whether `text` contains `word` as a whole word (not inside a longer name).
fn names_word(text: &str, word: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        !text[..at].chars().next_back().is_some_and(part) && !text[at + word.len()..].chars().next().is_some_and(part)
    })
}
