//! Sample calls: at least one that succeeds, arguments the tool declares with values that fit
//! them, variables saved by an earlier sample, pointers that are JSON pointers, known error codes.

use std::collections::BTreeSet;

use serde_json::Value;

use super::Checker;
use super::values::check_value;
use crate::manifest;
use crate::model::{ERROR_CODES, Object};

impl Checker<'_> {
    /// Checks tool `t`'s samples against its lowered `input`; `saved` holds the variables earlier
    /// samples (of this and earlier tools) save. Samples are optional, but a manifest that has
    /// any (`sampled`) needs one that succeeds for every tool.
    pub(super) fn samples(
        &mut self,
        path: &str,
        t: &manifest::Tool,
        input: &Object,
        saved: &mut BTreeSet<String>,
        sampled: bool,
    ) {
        if sampled && !t.samples.iter().any(|s| s.error.is_none()) {
            self.error_at_key(
                &format!("{path}.name"),
                "missing-sample",
                format!("tool `{}` has no sample call that succeeds", t.name),
                Some(
                    "add `samples: [{ args: {...} }]`; the tests and both CI clients call every tool with its samples",
                ),
            );
        }
        for (j, sample) in t.samples.iter().enumerate() {
            let at = format!("{path}.samples[{j}]");
            let mut pointers: Vec<(String, &String)> = Vec::new();
            if let Some(read) = &sample.read {
                pointers.extend(read.save.values().map(|p| (format!("{at}.read.save"), p)));
                saved.extend(read.save.keys().cloned());
            }
            for (name, value) in &sample.args {
                let value = serde_json::to_value(value).unwrap_or(Value::Null);
                let arg_path = format!("{at}.args.{name}");
                let mut unknown_vars = Vec::new();
                variables(&value, &mut |v| {
                    if !saved.contains(v) {
                        unknown_vars.push(v.to_string())
                    }
                });
                for v in unknown_vars {
                    self.error(
                        &arg_path,
                        "unknown-sample-variable",
                        format!("`${v}` is not saved by an earlier sample"),
                        Some("save it first with `save: { name: /json/pointer }` in an earlier sample"),
                    );
                }
                match input.fields.iter().find(|f| &f.wire == name) {
                    None => self.error_at_key(
                        &arg_path,
                        "unknown-sample-argument",
                        format!("sample argument `{name}` is not a parameter of `{}`", t.name),
                        None,
                    ),
                    Some(field) if !has_variable(&value) => {
                        if let Err(why) = check_value(&field.shape, &value) {
                            self.error(&arg_path, "bad-sample", format!("sample argument `{name}`: {why}"), None);
                        }
                    }
                    Some(_) => {}
                }
            }
            pointers.extend(sample.save.values().map(|p| (format!("{at}.save"), p)));
            pointers.extend(sample.expect.keys().map(|p| (format!("{at}.expect"), p)));
            for (where_, pointer) in pointers {
                if !pointer.starts_with('/') {
                    self.error(
                        &where_,
                        "bad-pointer",
                        format!("`{pointer}` is not a JSON pointer"),
                        Some("write it like /items/0/name"),
                    );
                }
            }
            if let Some(code) = &sample.error
                && !ERROR_CODES.contains(&code.as_str())
            {
                self.error(
                    &format!("{at}.error"),
                    "unknown-error-code",
                    format!("unknown error code `{code}`"),
                    Some(&format!("codes: {}", ERROR_CODES.join(", "))),
                );
            }
            saved.extend(sample.save.keys().cloned());
        }
    }
}

/// Calls `f` with the name of every variable in `v`: a whole string `$name`, or `${name}` inside one.
fn variables(v: &Value, f: &mut impl FnMut(&str)) {
    match v {
        Value::String(s) => match s.strip_prefix('$') {
            Some(name) if !name.starts_with('{') => f(name),
            _ => {
                let mut rest = s.as_str();
                while let Some(start) = rest.find("${") {
                    let Some(len) = rest[start..].find('}') else { break };
                    f(&rest[start + 2..start + len]);
                    rest = &rest[start + len + 1..];
                }
            }
        },
        Value::Array(a) => a.iter().for_each(|x| variables(x, f)),
        Value::Object(o) => o.values().for_each(|x| variables(x, f)),
        _ => {}
    }
}

fn has_variable(v: &Value) -> bool {
    let mut any = false;
    variables(v, &mut |_| any = true);
    any
}
