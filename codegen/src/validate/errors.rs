//! The error-message catalogue (`errors:`): names, codes, placeholders and the built-in templates
//! the generated argument checks call.

use std::collections::BTreeSet;

use heck::ToSnakeCase;

use super::Checker;
use crate::manifest;
use crate::model::{BUILTIN_TEMPLATES, ERROR_CODES};
use crate::template;

impl Checker<'_> {
    pub(super) fn error_templates(&mut self, m: &manifest::Manifest) {
        for (name, t) in &m.errors {
            let path = format!("errors.{name}");
            if name.to_snake_case() != *name {
                self.error_at_key(
                    &path,
                    "bad-template-name",
                    format!("error template name `{name}` must be snake_case"),
                    None,
                );
            }
            if !ERROR_CODES.contains(&t.code.as_str()) {
                self.error(
                    &format!("{path}.code"),
                    "unknown-error-code",
                    format!("unknown error code `{}`", t.code),
                    Some(&format!("valid codes: {}", ERROR_CODES.join(", "))),
                );
            }
            match template::placeholders(&t.message) {
                Err(e) => self.error(
                    &format!("{path}.message"),
                    "template-syntax",
                    format!("error template `{name}`: {e}"),
                    Some("placeholders are `{name}`; write `{{` and `}}` for literal braces"),
                ),
                Ok(used) => {
                    for p in used.iter().filter(|p| !t.params.contains(p)) {
                        self.error(
                            &format!("{path}.message"),
                            "unknown-placeholder",
                            format!("placeholder `{{{p}}}` is not available to error template `{name}`"),
                            Some(&format!(
                                "declared params: [{}]; add `{p}` to `params:` or fix the name",
                                t.params.join(", ")
                            )),
                        );
                    }
                }
            }
        }
        // A built-in template the manifest leaves out gets its default (lower.rs).
        for builtin in BUILTIN_TEMPLATES {
            let (name, params) = (builtin.name, builtin.params);
            match m.errors.get(name) {
                None => {}
                Some(t)
                    if t.params.iter().map(String::as_str).collect::<BTreeSet<_>>()
                        != params.iter().copied().collect() =>
                {
                    self.error(
                        &format!("errors.{name}.params"),
                        "builtin-template-params",
                        format!("error template `{name}` must declare params [{}]", params.join(", ")),
                        None,
                    )
                }
                Some(_) => {}
            }
        }
    }
}
