//! Checking: every semantic rule over the parsed manifest, before [`crate::lower`] turns it into
//! the model.
//!
//! Every rule collects its diagnostics instead of stopping at the first, so one build shows every
//! mistake. Positions come from the [`Locator`] by YAML path; diagnostics are reported sorted by
//! position. The rules are split by what they look at:
//! - [`types`]: named types and enum values;
//! - [`errors`]: the error-message catalogue;
//! - [`tools`]: a tool's names, group, annotations, references and `writes_when`;
//! - [`parameters`]: the properties of inputs, outputs and object types (descriptions, defaults,
//!   `nullable`, `flatten`, `publish`);
//! - [`limits`]: types, `items`, and the constraints (`minimum`, `max_length`, ...) a type allows;
//! - [`samples`]: sample calls;
//! - [`values`]: whether a value (a default, a sample argument) fits a shape.
//!
//! Rules that need a lowered shape (a default checked against its field, a sample against its
//! tool's input) ask [`Lower`] for it; what the checks lower is thrown away.

mod errors;
mod limits;
mod parameters;
mod samples;
mod tools;
mod types;
mod values;

use crate::diag::{Diagnostic, Pos};
use crate::locate::Locator;
use crate::lower::Lower;
use crate::manifest;

/// Checks `m` (read from `file`, located by `loc`); every problem found, sorted by position.
pub fn check(file: &str, m: &manifest::Manifest, loc: &Locator) -> Result<(), Vec<Diagnostic>> {
    let mut c = Checker { file, loc, diags: Vec::new(), lower: Lower::default() };
    for (path, pos, first) in &loc.duplicates {
        c.diags.push(
            Diagnostic::new(file, *pos, "duplicate-key", format!("duplicate key `{path}`"))
                .with_help(format!("it is already defined at line {}; remove or rename one of them", first.line)),
        );
    }
    if m.version != 1 {
        c.error(
            "version",
            "unsupported-version",
            format!("unsupported manifest version {}", m.version),
            Some("this generator reads `version: 1`"),
        );
    }
    c.named_types(m);
    c.error_templates(m);
    c.tools(m);
    if c.diags.is_empty() {
        Ok(())
    } else {
        c.diags.sort_by_key(|d| d.pos);
        Err(c.diags)
    }
}

struct Checker<'a> {
    file: &'a str,
    loc: &'a Locator,
    diags: Vec<Diagnostic>,
    /// Named types registered as they are checked, and the shapes the checks need.
    lower: Lower,
}

impl Checker<'_> {
    /// A diagnostic at the value of YAML path `path`.
    fn error(&mut self, path: &str, code: &'static str, message: String, help: Option<&str>) {
        self.push(self.loc.value(path), code, message, help);
    }

    /// A diagnostic at the key of YAML path `path`.
    fn error_at_key(&mut self, path: &str, code: &'static str, message: String, help: Option<&str>) {
        self.push(self.loc.key(path), code, message, help);
    }

    fn push(&mut self, pos: Pos, code: &'static str, message: String, help: Option<&str>) {
        let mut d = Diagnostic::new(self.file, pos, code, message);
        if let Some(h) = help {
            d = d.with_help(h);
        }
        self.diags.push(d);
    }
}
