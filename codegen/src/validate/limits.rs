//! Types and their limits: a type is a primitive or a declared named type, an array declares its
//! `items`, and each constraint (`minimum`, `max_length`, `enum`, ...) applies to its type with
//! its lower bound under its upper one.

use super::Checker;
use crate::lower::PRIMITIVES;
use crate::manifest;
use crate::model::Shape;

impl Checker<'_> {
    /// Checks schema `s` at YAML path `path` (recursing into items and properties) and returns
    /// its lowered shape, or `None` when it has none (its field's other rules are then skipped).
    pub(super) fn shape(&mut self, s: &manifest::Schema, path: &str, inline_name: &str) -> Option<Shape> {
        let ty = s.ty.as_str();
        if PRIMITIVES.contains(&ty) || self.lower.named.contains_key(ty) {
            self.constraints(s, path);
        }
        match ty {
            "string" => {
                if let Some(values) = &s.enum_values {
                    self.enum_values(&format!("{path}.enum"), values);
                }
            }
            "integer" | "number" | "boolean" | "any" => {}
            "array" => {
                let Some(items) = &s.items else {
                    self.error_at_key(
                        path,
                        "array-without-items",
                        "array has no `items:`".into(),
                        Some("declare the item type, e.g. items: { type: string }"),
                    );
                    return None;
                };
                self.shape(items, &format!("{path}.items"), &format!("{inline_name}Item"))?;
            }
            "object" => {
                if let Some(props) = &s.properties {
                    self.object(props, &format!("{path}.properties"), inline_name);
                }
            }
            named if self.lower.named.contains_key(named) => {}
            named => {
                let mut valid: Vec<&str> = PRIMITIVES.to_vec();
                let mut names: Vec<&str> = self.lower.named.keys().map(String::as_str).collect();
                names.sort();
                valid.extend(names);
                let guess = valid
                    .iter()
                    .min_by_key(|v| strsim::levenshtein(v, named))
                    .filter(|v| strsim::levenshtein(v, named) <= 2);
                let hint = guess.map(|g| format!("did you mean `{g}`? ")).unwrap_or_default();
                self.error(
                    &format!("{path}.type"),
                    "unknown-type",
                    format!("unknown type `{named}`"),
                    Some(&format!("{hint}valid types: {}", valid.join(", "))),
                );
                return None;
            }
        }
        self.lower.shape(s, inline_name)
    }

    /// Each constraint set on `s` applies to its type, and no minimum exceeds its maximum.
    fn constraints(&mut self, s: &manifest::Schema, path: &str) {
        let ty = s.ty.as_str();
        let allowed: &[&str] = match ty {
            "string" => &["min_length", "max_length", "enum"],
            "integer" | "number" => &["minimum", "maximum"],
            "array" => &["min_items", "max_items", "items"],
            "object" => &["properties", "additional_properties"],
            _ => &[],
        };
        let present = [
            ("min_length", s.min_length.is_some()),
            ("max_length", s.max_length.is_some()),
            ("enum", s.enum_values.is_some()),
            ("minimum", s.minimum.is_some()),
            ("maximum", s.maximum.is_some()),
            ("min_items", s.min_items.is_some()),
            ("max_items", s.max_items.is_some()),
            ("items", s.items.is_some()),
            ("properties", s.properties.is_some()),
            ("additional_properties", s.additional_properties.is_some()),
        ];
        for (key, is_set) in present {
            if is_set && !allowed.contains(&key) {
                self.error_at_key(
                    &format!("{path}.{key}"),
                    "constraint-not-for-type",
                    format!("`{key}` does not apply to type `{ty}`"),
                    None,
                );
            }
        }
        let pairs = [
            ("minimum", s.minimum, s.maximum),
            ("min_length", s.min_length.map(|v| v as f64), s.max_length.map(|v| v as f64)),
            ("min_items", s.min_items.map(|v| v as f64), s.max_items.map(|v| v as f64)),
        ];
        for (key, lo, hi) in pairs {
            if let (Some(lo), Some(hi)) = (lo, hi)
                && lo > hi
            {
                self.error(
                    &format!("{path}.{key}"),
                    "min-greater-than-max",
                    format!("`{key}` {lo} is greater than its maximum {hi}"),
                    None,
                );
            }
        }
    }
}
