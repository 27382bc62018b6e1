//! A tool's own rules: its name, group, consolidated action, reserved parameters,
//! annotations, the error templates and replacement it names, `error_context` and `writes_when`.

use std::collections::{BTreeSet, HashMap};

use heck::{ToSnakeCase, ToUpperCamelCase};

use super::Checker;
use crate::manifest;
use crate::model::{Object, Shape, action_name};

impl Checker<'_> {
    pub(super) fn tools(&mut self, m: &manifest::Manifest) {
        let mut first_seen: HashMap<&str, usize> = HashMap::new();
        let mut rust_idents: HashMap<String, String> = HashMap::new();
        let mut actions: HashMap<(String, String), String> = HashMap::new();
        let mut saved = BTreeSet::new();
        let sampled = m.tools.iter().any(|t| !t.samples.is_empty());
        for (i, t) in m.tools.iter().enumerate() {
            let path = format!("tools[{i}]");
            let name_ok = !t.name.is_empty()
                && t.name.len() <= 64
                && t.name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if !name_ok {
                self.error(
                    &format!("{path}.name"),
                    "bad-tool-name",
                    format!("tool name `{}` must be 1-64 characters of [a-zA-Z0-9_-]", t.name),
                    Some("clients (Claude, OpenAI) reject other names; use snake_case like list_items"),
                );
            }
            if let Some(first) = first_seen.get(t.name.as_str()) {
                let first_line = self.loc.value(&format!("tools[{first}].name")).line;
                self.error(
                    &format!("{path}.name"),
                    "duplicate-tool",
                    format!("duplicate tool name `{}`", t.name),
                    Some(&format!("first defined at line {first_line}; tool names must be unique")),
                );
                continue;
            }
            first_seen.insert(&t.name, i);
            let ident = t.name.to_snake_case();
            if let Some(other) = rust_idents.insert(ident.clone(), t.name.clone()) {
                self.error(
                    &format!("{path}.name"),
                    "name-collision",
                    format!("tool `{}` and tool `{other}` map to the same Rust name `{ident}`", t.name),
                    None,
                );
            }
            if t.description.as_deref().unwrap_or_default().trim().is_empty() {
                self.error_at_key(
                    &format!("{path}.name"),
                    "missing-description",
                    format!("tool `{}` has no description", t.name),
                    Some("add `description:`; it is what the model reads to choose the tool"),
                );
            }
            // Groups (the consolidated profile) are optional: without any, tools name none.
            if !m.groups.contains_key(&t.group) && (!m.groups.is_empty() || !t.group.is_empty()) {
                self.error(
                    &format!("{path}.group"),
                    "unknown-group",
                    format!("unknown group `{}`", t.group),
                    Some(&format!("declared groups: {}", m.groups.keys().cloned().collect::<Vec<_>>().join(", "))),
                );
            }
            self.reserved(&path, t);
            let action = action_name(&t.name, &t.group).to_string();
            if let Some(other) = actions.insert((t.group.clone(), action.clone()), t.name.clone()) {
                self.error(
                    &format!("{path}.name"),
                    "duplicate-action",
                    format!(
                        "tools `{other}` and `{}` are both action `{action}` of the consolidated tool `{}`",
                        t.name, t.group
                    ),
                    Some(&format!("the action is the tool name without `{}_`; rename one of the tools", t.group)),
                );
            }
            let a = &t.annotations;
            if a.read_only && a.destructive {
                self.error(
                    &format!("{path}.annotations.destructive"),
                    "annotation-conflict",
                    format!("tool `{}` is marked read_only and destructive", t.name),
                    Some("a read-only tool cannot destroy anything; set destructive: false or read_only: false"),
                );
            }
            self.references(&path, t, m);
            let pascal = t.name.to_upper_camel_case();
            self.object(&t.input, &format!("{path}.input"), &format!("{pascal}Input"));
            self.object(&t.output, &format!("{path}.output"), &format!("{pascal}Output"));
            let (input, _) = self.lower.tool_objects(t);
            self.error_context(&path, t, &input);
            self.writes_when(&path, t, &input);
            self.samples(&path, t, &input, &mut saved, sampled);
        }
    }

    /// Names every tool gets from the generator: `action` (the consolidated profile picks the tool
    /// with it) and the output's `warnings`.
    fn reserved(&mut self, path: &str, t: &manifest::Tool) {
        if t.input.contains_key("action") {
            self.error_at_key(
                &format!("{path}.input.action"),
                "reserved-parameter",
                format!("tool `{}` declares `action`, which the consolidated profile reserves", t.name),
                Some("the consolidated tool of a group uses `action` to pick the tool; rename the parameter"),
            );
        }
        if t.output.contains_key(crate::render::WARNINGS) {
            self.error_at_key(
                &format!("{path}.output.{}", crate::render::WARNINGS),
                "reserved-parameter",
                format!("tool `{}` declares output `{}`, which every tool gets", t.name, crate::render::WARNINGS),
                Some("the server fills `warnings` with the call's visible warnings; rename the property"),
            );
        }
    }

    /// The error templates a tool names are declared; its replacement is a current tool.
    fn references(&mut self, path: &str, t: &manifest::Tool, m: &manifest::Manifest) {
        for (j, e) in t.errors.iter().enumerate() {
            if !m.errors.contains_key(e) {
                self.error(
                    &format!("{path}.errors[{j}]"),
                    "unknown-error-template",
                    format!("unknown error template `{e}`"),
                    Some(&format!(
                        "declared templates: {}",
                        m.errors.keys().map(String::as_str).collect::<Vec<_>>().join(", ")
                    )),
                );
            }
        }
        if let Some(d) = &t.deprecated {
            let target = m.tools.iter().find(|x| x.name == d.replacement);
            if target.is_none() || target.is_some_and(|x| x.deprecated.is_some()) {
                self.error(
                    &format!("{path}.deprecated.replacement"),
                    "unknown-replacement",
                    format!("replacement `{}` is not a current tool", d.replacement),
                    Some("name a declared tool that is not itself deprecated"),
                );
            }
        }
    }

    /// `error_context:` names parameters of the tool.
    fn error_context(&mut self, path: &str, t: &manifest::Tool, input: &Object) {
        for (j, param) in t.error_context.iter().enumerate() {
            if !input.fields.iter().any(|f| &f.wire == param) {
                self.error(
                    &format!("{path}.error_context[{j}]"),
                    "unknown-context-param",
                    format!("error_context names `{param}`, which is not a parameter of `{}`", t.name),
                    Some(&format!(
                        "parameters: {}",
                        input.fields.iter().map(|f| f.wire.as_str()).collect::<Vec<_>>().join(", ")
                    )),
                );
            }
        }
    }

    /// `writes_when:` names an optional boolean parameter of a tool that is not read-only.
    fn writes_when(&mut self, path: &str, t: &manifest::Tool, input: &Object) {
        let Some(wire) = t.writes_when.as_ref() else { return };
        let key = format!("{path}.writes_when");
        if t.annotations.read_only {
            let help = Some("a read-only tool never writes; remove writes_when or set read_only: false");
            self.error_at_key(&key, "writes-when-read-only", format!("`{}` is read_only", t.name), help);
            return;
        }
        match input.fields.iter().find(|f| &f.wire == wire) {
            Some(f) if matches!(f.shape, Shape::Boolean) && !f.required => {}
            _ => {
                let help = Some("name an optional boolean parameter of the tool, e.g. fix");
                let message = format!("writes_when names `{wire}`, which is not an optional boolean parameter");
                self.error_at_key(&key, "bad-writes-when", message, help);
            }
        }
    }
}
