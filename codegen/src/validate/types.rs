//! Named types (`types:`) and enum values.

use std::collections::BTreeSet;

use heck::ToUpperCamelCase;

use super::Checker;
use crate::lower::PRIMITIVES;
use crate::manifest;

impl Checker<'_> {
    /// Checks every named type in order and registers it, so later types and tools can use it.
    pub(super) fn named_types(&mut self, m: &manifest::Manifest) {
        for (name, def) in &m.types {
            let path = format!("types.{name}");
            if name.to_upper_camel_case() != *name || PRIMITIVES.contains(&name.as_str()) {
                self.error_at_key(
                    &path,
                    "bad-type-name",
                    format!("type name `{name}` must be UpperCamelCase"),
                    Some("e.g. IssueStatus"),
                );
                continue;
            }
            let description = def.description.clone().unwrap_or_default();
            if description.trim().is_empty() {
                self.error_at_key(
                    &path,
                    "missing-description",
                    format!("type `{name}` has no description"),
                    Some("add `description:`; it is shown to the model"),
                );
            }
            match (&def.enum_values, &def.properties) {
                (Some(values), None) => self.enum_values(&format!("{path}.enum"), values),
                (None, Some(props)) => self.object(props, &format!("{path}.properties"), name),
                _ => self.error_at_key(
                    &path,
                    "bad-type",
                    format!("type `{name}` must have exactly one of `enum:` or `properties:`"),
                    None,
                ),
            }
            self.lower.named_type(name, def);
        }
    }

    /// An enum has values, and no two of them map to the same Rust variant.
    pub(super) fn enum_values(&mut self, path: &str, values: &[String]) {
        if values.is_empty() {
            self.error(path, "bad-enum", "enum has no values".into(), Some("list at least one value"));
        }
        let mut seen = BTreeSet::new();
        for (i, v) in values.iter().enumerate() {
            if !seen.insert(v.to_upper_camel_case()) {
                self.error(
                    &format!("{path}[{i}]"),
                    "bad-enum",
                    format!("enum value `{v}` duplicates an earlier value"),
                    None,
                );
            }
        }
    }
}
