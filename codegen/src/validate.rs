//! Semantic checks over the parsed manifest, lowering it into the [`Model`].
//!
//! Every rule collects its diagnostics instead of stopping at the first, so one build shows every
//! mistake. Positions come from the [`Locator`] by YAML path.

use std::collections::{BTreeSet, HashMap};

use heck::{ToSnakeCase, ToUpperCamelCase};
use serde_json::Value;

use crate::diag::{Diagnostic, Pos};
use crate::locate::Locator;
use crate::manifest;
use crate::model::*;
use crate::template;

const PRIMITIVES: &[&str] = &["string", "integer", "number", "boolean", "array", "object", "any"];
const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
    "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static",
    "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do",
    "final", "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield", "gen",
];

pub fn validate(file: &str, m: &manifest::Manifest, loc: &Locator) -> Result<Model, Vec<Diagnostic>> {
    let mut v = Validator { file, loc, diags: Vec::new(), named: HashMap::new(), rust_types: Vec::new() };
    for (path, pos, first) in &loc.duplicates {
        v.diags.push(
            Diagnostic::new(file, *pos, "duplicate-key", format!("duplicate key `{path}`"))
                .with_help(format!("it is already defined at line {}; remove or rename one of them", first.line)),
        );
    }
    if m.version != 1 {
        v.error(
            "version",
            "unsupported-version",
            format!("unsupported manifest version {}", m.version),
            Some("this generator reads `version: 1`"),
        );
    }
    v.collect_named_types(m);
    let errors = v.error_templates(m);
    let tools = v.tools(m, &errors);
    if v.diags.is_empty() {
        Ok(Model {
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
            rust_types: v.rust_types,
            errors,
            tools,
        })
    } else {
        v.diags.sort_by_key(|d| d.pos);
        Err(v.diags)
    }
}

struct Validator<'a> {
    file: &'a str,
    loc: &'a Locator,
    diags: Vec<Diagnostic>,
    /// Named types by manifest name, lowered once.
    named: HashMap<String, Shape>,
    rust_types: Vec<RustType>,
}

impl Validator<'_> {
    fn error(&mut self, path: &str, code: &'static str, message: String, help: Option<&str>) {
        self.push(self.loc.value(path), code, message, help);
    }

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

    fn collect_named_types(&mut self, m: &manifest::Manifest) {
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
                (Some(values), None) => {
                    self.check_enum_values(&format!("{path}.enum"), values);
                    self.rust_types.push(RustType::Enum { name: name.clone(), description, values: values.clone() });
                    self.named.insert(name.clone(), Shape::Enum { rust_name: name.clone(), values: values.clone() });
                }
                (None, Some(props)) => {
                    let object = self.object(
                        props,
                        &format!("{path}.properties"),
                        name,
                        &description,
                        def.additional_properties.or(Some(false)),
                    );
                    self.rust_types.push(RustType::Struct(object.clone()));
                    self.named.insert(name.clone(), Shape::Object(Box::new(object)));
                }
                _ => self.error_at_key(
                    &path,
                    "bad-type",
                    format!("type `{name}` must have exactly one of `enum:` or `properties:`"),
                    None,
                ),
            }
        }
    }

    fn check_enum_values(&mut self, path: &str, values: &[String]) {
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

    fn error_templates(&mut self, m: &manifest::Manifest) -> Vec<ErrorTemplate> {
        let mut out = Vec::new();
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
            out.push(ErrorTemplate {
                name: name.clone(),
                code: t.code.clone(),
                message: t.message.clone(),
                params: t.params.clone(),
            });
        }
        for (name, params) in BUILTIN_TEMPLATES {
            match m.errors.get(*name) {
                None => self.error(
                    "errors",
                    "missing-builtin-template",
                    format!("error template `{name}` is missing"),
                    Some(&format!(
                        "generated argument checks need it; declare it with params: [{}]",
                        params.join(", ")
                    )),
                ),
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
        out
    }

    fn tools(&mut self, m: &manifest::Manifest, errors: &[ErrorTemplate]) -> Vec<Tool> {
        let mut first_seen: HashMap<&str, usize> = HashMap::new();
        let mut rust_idents: HashMap<String, String> = HashMap::new();
        let mut actions: HashMap<(String, String), String> = HashMap::new();
        let mut saved = BTreeSet::new();
        let mut out = Vec::new();
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
                    Some("clients (Claude, OpenAI) reject other names; use snake_case like issues_list"),
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
            let description = t.description.clone().unwrap_or_default();
            if description.trim().is_empty() {
                self.error_at_key(
                    &format!("{path}.name"),
                    "missing-description",
                    format!("tool `{}` has no description", t.name),
                    Some("add `description:`; it is what the model reads to choose the tool"),
                );
            }
            if !m.groups.contains_key(&t.group) {
                self.error(
                    &format!("{path}.group"),
                    "unknown-group",
                    format!("unknown group `{}`", t.group),
                    Some(&format!("declared groups: {}", m.groups.keys().cloned().collect::<Vec<_>>().join(", "))),
                );
            }
            // The consolidated profile publishes the group as one tool with an `action` parameter.
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
            let handler = t.handler.clone().unwrap_or_default();
            let handler_ok = !handler.is_empty()
                && handler.split("::").all(|seg| {
                    seg.chars().next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
                        && seg.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
                        && !RUST_KEYWORDS.contains(&seg)
                });
            if t.handler.is_none() {
                self.error_at_key(
                    &format!("{path}.name"),
                    "missing-handler",
                    format!("tool `{}` names no handler", t.name),
                    Some("add `handler: module::function`, the function under src/handlers/ that implements it"),
                );
            } else if !handler_ok {
                self.error(
                    &format!("{path}.handler"),
                    "bad-handler",
                    format!("handler `{handler}` is not a path of snake_case names"),
                    Some("write the function's path under src/handlers/, e.g. issues::list"),
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
            for (j, e) in t.errors.iter().enumerate() {
                if !errors.iter().any(|x| &x.name == e) {
                    self.error(
                        &format!("{path}.errors[{j}]"),
                        "unknown-error-template",
                        format!("unknown error template `{e}`"),
                        Some(&format!(
                            "declared templates: {}",
                            errors.iter().map(|x| x.name.as_str()).collect::<Vec<_>>().join(", ")
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
            let pascal = t.name.to_upper_camel_case();
            let input = self.object(
                &t.input,
                &format!("{path}.input"),
                &format!("{pascal}Input"),
                &format!("Arguments of tool `{}`.", t.name),
                Some(false),
            );
            let output = self.object(
                &t.output,
                &format!("{path}.output"),
                &format!("{pascal}Output"),
                &format!("Structured result of tool `{}`.", t.name),
                None,
            );
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
            let writes_when = self.writes_when(&path, t, &input);
            let samples = self.samples(&path, t, &input, &mut saved);
            self.rust_types.push(RustType::Struct(input.clone()));
            self.rust_types.push(RustType::Struct(output.clone()));
            out.push(Tool {
                name: t.name.clone(),
                title: t.title.clone().unwrap_or_else(|| t.name.clone()),
                description,
                group: t.group.clone(),
                handler,
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
            });
        }
        out
    }

    /// `writes_when:` names a boolean parameter of a tool that is not read-only; its Rust field.
    fn writes_when(&mut self, path: &str, t: &manifest::Tool, input: &Object) -> Option<String> {
        let wire = t.writes_when.as_ref()?;
        let key = format!("{path}.writes_when");
        if t.annotations.read_only {
            let help = Some("a read-only tool never writes; remove writes_when or set read_only: false");
            self.error_at_key(&key, "writes-when-read-only", format!("`{}` is read_only", t.name), help);
            return None;
        }
        match input.fields.iter().find(|f| &f.wire == wire) {
            Some(f) if matches!(f.shape, Shape::Boolean) && !f.required => Some(f.rust.clone()),
            _ => {
                let help = Some("name an optional boolean parameter of the tool, e.g. fix");
                let message = format!("writes_when names `{wire}`, which is not an optional boolean parameter");
                self.error_at_key(&key, "bad-writes-when", message, help);
                None
            }
        }
    }

    /// Checks a tool's samples: at least one that succeeds, arguments the tool declares with values
    /// that fit them, variables saved by an earlier sample, pointers that are JSON pointers.
    fn samples(&mut self, path: &str, t: &manifest::Tool, input: &Object, saved: &mut BTreeSet<String>) -> Vec<Value> {
        if !t.samples.iter().any(|s| s.error.is_none()) {
            self.error_at_key(
                &format!("{path}.name"),
                "missing-sample",
                format!("tool `{}` has no sample call that succeeds", t.name),
                Some(
                    "add `samples: [{ args: {...} }]`; the tests and both CI clients call every tool with its samples",
                ),
            );
        }
        let mut out = Vec::new();
        for (j, sample) in t.samples.iter().enumerate() {
            let at = format!("{path}.samples[{j}]");
            let json = |v: &serde_yaml::Value| serde_json::to_value(v).unwrap_or(Value::Null);
            let mut pointers: Vec<(String, &String)> = Vec::new();
            if let Some(read) = &sample.read {
                pointers.extend(read.save.values().map(|p| (format!("{at}.read.save"), p)));
                saved.extend(read.save.keys().cloned());
            }
            let mut args = serde_json::Map::new();
            for (name, value) in &sample.args {
                let value = json(value);
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
                args.insert(name.clone(), value);
            }
            pointers.extend(sample.save.values().map(|p| (format!("{at}.save"), p)));
            pointers.extend(sample.expect.keys().map(|p| (format!("{at}.expect"), p)));
            for (where_, pointer) in pointers {
                if !pointer.starts_with('/') {
                    self.error(
                        &where_,
                        "bad-pointer",
                        format!("`{pointer}` is not a JSON pointer"),
                        Some("write it like /issue/id"),
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
            let mut s = serde_json::json!({ "tool": t.name, "args": args });
            if let Some(read) = &sample.read {
                s["read"] = serde_json::json!({ "uri": read.uri, "save": read.save });
            }
            if !sample.save.is_empty() {
                s["save"] = serde_json::json!(sample.save);
            }
            if !sample.expect.is_empty() {
                let expect: serde_json::Map<String, Value> =
                    sample.expect.iter().map(|(k, v)| (k.clone(), json(v))).collect();
                s["expect"] = Value::Object(expect);
            }
            if let Some(code) = &sample.error {
                s["error"] = serde_json::json!(code);
            }
            out.push(s);
        }
        out
    }

    fn object(
        &mut self,
        props: &indexmap::IndexMap<String, manifest::Schema>,
        path: &str,
        rust_name: &str,
        description: &str,
        additional: Option<bool>,
    ) -> Object {
        let mut fields = Vec::new();
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
            let base = rust_name.strip_suffix("Input").unwrap_or(rust_name);
            let inline_name = format!("{base}{}", wire.to_upper_camel_case());
            let Some(shape) = self.shape(schema, &fpath, &inline_name) else { continue };
            if schema.flatten {
                self.flatten(schema, &fpath, &rust, &shape, &mut fields, &mut rust_names);
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
            let publish = self.publish(schema, &fpath, wire, &shape, &description);
            fields.push(Field {
                wire: wire.clone(),
                rust,
                description,
                required: schema.required,
                default,
                shape,
                deprecated: schema.deprecated.clone(),
                nullable: schema.nullable,
                publish,
                flattened_into: None,
            });
        }
        Object { rust_name: rust_name.to_string(), description: description.to_string(), fields, additional }
    }

    /// Splices the fields of a named object type (a shared parameter set) in place of the field
    /// `rust` that declares `flatten: true`.
    fn flatten(
        &mut self,
        schema: &manifest::Schema,
        path: &str,
        rust: &str,
        shape: &Shape,
        fields: &mut Vec<Field>,
        rust_names: &mut HashMap<String, String>,
    ) {
        let set = match shape {
            Shape::Object(set) if self.named.contains_key(&schema.ty) => set,
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
            if let Some(other) = rust_names.insert(f.rust.clone(), f.wire.clone()) {
                self.error_at_key(
                    path,
                    "name-collision",
                    format!("`{}` of `{}` collides with `{other}`", f.wire, schema.ty),
                    Some("a parameter set's properties become parameters: rename one of them"),
                );
            }
            let mut spliced = f.clone();
            spliced.flattened_into = Some((rust.to_string(), set.rust_name.clone()));
            fields.push(spliced);
        }
    }

    /// `publish:` of a field: hidden fields must be optional and not deprecated (deprecated ones
    /// are unpublished already); shallow ones must be objects with properties (or arrays of
    /// them) whose description names every published property.
    fn publish(&mut self, s: &manifest::Schema, path: &str, wire: &str, shape: &Shape, description: &str) -> Publish {
        let at = format!("{path}.publish");
        match s.publish {
            None | Some(manifest::Publish::Full) => Publish::Full,
            Some(p @ (manifest::Publish::None | manifest::Publish::Granular)) => {
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
                if p == manifest::Publish::None { Publish::Hidden } else { Publish::Granular }
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
                Publish::Shallow
            }
        }
    }

    fn shape(&mut self, s: &manifest::Schema, path: &str, inline_name: &str) -> Option<Shape> {
        let ty = s.ty.as_str();
        if PRIMITIVES.contains(&ty) || self.named.contains_key(ty) {
            self.check_constraints(s, path);
        }
        let shape = match ty {
            "string" => match &s.enum_values {
                Some(values) => {
                    self.check_enum_values(&format!("{path}.enum"), values);
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
                let Some(items) = &s.items else {
                    self.error_at_key(
                        path,
                        "array-without-items",
                        "array has no `items:`".into(),
                        Some("declare the item type, e.g. items: { type: string }"),
                    );
                    return None;
                };
                let item = self.shape(items, &format!("{path}.items"), &format!("{inline_name}Item"))?;
                Shape::Array { items: Box::new(item), min_items: s.min_items, max_items: s.max_items }
            }
            "object" => match &s.properties {
                None => Shape::Map,
                Some(props) => {
                    let obj = self.object(
                        props,
                        &format!("{path}.properties"),
                        inline_name,
                        s.description.as_deref().unwrap_or_default(),
                        s.additional_properties.or(Some(false)),
                    );
                    self.rust_types.push(RustType::Struct(obj.clone()));
                    Shape::Object(Box::new(obj))
                }
            },
            named => match self.named.get(named) {
                Some(shape) => shape.clone(),
                None => {
                    let mut valid: Vec<&str> = PRIMITIVES.to_vec();
                    let mut names: Vec<&str> = self.named.keys().map(String::as_str).collect();
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
            },
        };
        Some(shape)
    }

    fn check_constraints(&mut self, s: &manifest::Schema, path: &str) {
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

/// Whether `text` contains `word` as a whole word (not inside a longer name).
fn names_word(text: &str, word: &str) -> bool {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        !text[..at].chars().next_back().is_some_and(part) && !text[at + word.len()..].chars().next().is_some_and(part)
    })
}

/// Rust field name for a wire name: snake_case, keywords as raw identifiers.
pub fn rust_field_name(wire: &str) -> String {
    let snake = wire.to_snake_case();
    if RUST_KEYWORDS.contains(&snake.as_str()) { format!("r#{snake}") } else { snake }
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

/// Checks a manifest value (a default) against a shape; the error says why it does not fit.
pub fn check_value(shape: &Shape, v: &Value) -> Result<(), String> {
    match (shape, v) {
        (Shape::Any, _) => Ok(()),
        (Shape::String { min_len, max_len }, Value::String(s)) => {
            within("length", s.chars().count() as f64, min_len.map(|x| x as f64), max_len.map(|x| x as f64))
        }
        (Shape::Enum { values, .. }, Value::String(s)) => {
            if values.contains(s) {
                Ok(())
            } else {
                Err(format!("`{s}` is not one of: {}", values.join(", ")))
            }
        }
        (Shape::Integer { min, max }, Value::Number(n)) if n.is_i64() || n.is_u64() => {
            within("value", n.as_f64().unwrap_or_default(), min.map(|x| x as f64), max.map(|x| x as f64))
        }
        (Shape::Number { min, max }, Value::Number(n)) => within("value", n.as_f64().unwrap_or_default(), *min, *max),
        (Shape::Boolean, Value::Bool(_)) => Ok(()),
        (Shape::Map | Shape::Object(_), Value::Object(_)) => Ok(()),
        (Shape::Array { items, min_items, max_items }, Value::Array(a)) => {
            within("item count", a.len() as f64, min_items.map(|x| x as f64), max_items.map(|x| x as f64))?;
            a.iter().try_for_each(|x| check_value(items, x))
        }
        (shape, v) => Err(format!("expected {}, got {v}", shape.json_type().unwrap_or("any value"))),
    }
}

fn within(what: &str, x: f64, min: Option<f64>, max: Option<f64>) -> Result<(), String> {
    if min.is_some_and(|m| x < m) || max.is_some_and(|m| x > m) {
        let range = match (min, max) {
            (Some(a), Some(b)) => format!("between {a} and {b}"),
            (Some(a), None) => format!("at least {a}"),
            (None, Some(b)) => format!("at most {b}"),
            (None, None) => unreachable!("a bound was violated"),
        };
        Err(format!("{what} {x} is outside the declared range: must be {range}"))
    } else {
        Ok(())
    }
}
