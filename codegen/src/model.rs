//! The validated model: what the renderers see. Every name is resolved and every default checked,
//! so rendering cannot fail on manifest content.

use serde_json::Value;

#[derive(Debug, Clone)]
pub struct Model {
    pub server: Server,
    pub groups: Vec<Group>,
    /// Every Rust type to emit (named types first, then inline ones), in a stable order.
    pub rust_types: Vec<RustType>,
    pub errors: Vec<ErrorTemplate>,
    pub tools: Vec<Tool>,
}

#[derive(Debug, Clone)]
pub struct Server {
    pub name: String,
    pub title: String,
    pub instructions: String,
    pub tools_list_tokens: Option<crate::manifest::ToolsListTokens>,
}

#[derive(Debug, Clone)]
pub struct Group {
    pub name: String,
    /// Title of the consolidated tool of this group.
    pub title: String,
    pub description: String,
}

#[derive(Debug, Clone)]
pub enum RustType {
    Enum { name: String, description: String, values: Vec<String> },
    Struct(Object),
}

/// An object with declared properties, rendered as a Rust struct.
#[derive(Debug, Clone)]
pub struct Object {
    pub rust_name: String,
    pub description: String,
    pub fields: Vec<Field>,
    /// `additionalProperties`: inputs default to `Some(false)` (the generated parser denies unknown
    /// fields; the server strips them first), outputs to `None`. Published in outputSchemas only.
    pub additional: Option<bool>,
}

#[derive(Debug, Clone)]
pub struct Field {
    pub wire: String,
    pub rust: String,
    pub description: String,
    pub required: bool,
    pub default: Option<Value>,
    pub shape: Shape,
    pub deprecated: Option<String>,
    /// `null` is a value of its own (it clears the field): an optional field generated as
    /// `Option<Option<T>>`, `Some(None)` for null.
    pub nullable: bool,
    /// How much of the field the published schema shows; the argument rules check it in full.
    pub publish: Publish,
    /// Set on a field spliced in from a shared parameter set (`flatten: true`): the Rust field
    /// that holds the set and the set's struct. The published schema and the argument rules see
    /// the spliced field; the Rust struct has the set's struct once, `#[serde(flatten)]`.
    pub flattened_into: Option<(String, String)>,
}

/// How much of a field the published schema shows (`publish:` in tools.yaml).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Publish {
    #[default]
    Full,
    /// Its type only (`object`, or an array of `object`): the description names the properties.
    Shallow,
    /// Left out of the schema, still accepted (without a warning, unlike a deprecated field).
    Hidden,
    /// Published in full by the granular profile, left out (still accepted) by the consolidated one.
    Granular,
}

#[derive(Debug, Clone)]
pub enum Shape {
    String {
        min_len: Option<u64>,
        max_len: Option<u64>,
    },
    Integer {
        min: Option<i64>,
        max: Option<i64>,
    },
    Number {
        min: Option<f64>,
        max: Option<f64>,
    },
    Boolean,
    /// Any JSON value.
    Any,
    /// A free-form JSON object.
    Map,
    Enum {
        rust_name: String,
        values: Vec<String>,
    },
    Array {
        items: Box<Shape>,
        min_items: Option<u64>,
        max_items: Option<u64>,
    },
    Object(Box<Object>),
}

impl Shape {
    /// The JSON Schema `type` keyword, or `None` for `Any`.
    pub fn json_type(&self) -> Option<&'static str> {
        Some(match self {
            Shape::String { .. } | Shape::Enum { .. } => "string",
            Shape::Integer { .. } => "integer",
            Shape::Number { .. } => "number",
            Shape::Boolean => "boolean",
            Shape::Any => return None,
            Shape::Map | Shape::Object(_) => "object",
            Shape::Array { .. } => "array",
        })
    }
}

#[derive(Debug, Clone)]
pub struct ErrorTemplate {
    pub name: String,
    pub code: String,
    pub message: String,
    pub params: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Tool {
    pub name: String,
    pub title: String,
    pub description: String,
    pub group: String,
    /// Path of the handler function under `crate::handlers`, e.g. `issues::list`.
    pub handler: String,
    pub annotations: Annotations,
    pub input: Object,
    pub output: Object,
    pub limits: Vec<(String, u64)>,
    pub errors: Vec<String>,
    pub error_context: Vec<String>,
    pub deprecated: Option<Deprecation>,
    /// The Rust field of the boolean parameter that makes a call of this write tool a write
    /// (`writes_when:`); `None` for a tool whose every call writes (or that never writes).
    pub writes_when: Option<String>,
    /// Validated sample calls as JSON objects: `args`, and `read`, `save`, `expect`, `error` when set.
    pub samples: Vec<Value>,
}

#[derive(Debug, Clone, Copy)]
pub struct Annotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

#[derive(Debug, Clone)]
pub struct Deprecation {
    pub replacement: String,
    pub note: Option<String>,
}

/// The action that stands for tool `name` in its group's consolidated tool: the name without the
/// `{group}_` prefix (`issues_get_batch` -> `get_batch`) or `_{group}` suffix (`init_workspace`
/// -> `init`), or the whole name when it has neither.
pub fn action_name<'a>(name: &'a str, group: &str) -> &'a str {
    let prefixed = name.strip_prefix(group).and_then(|r| r.strip_prefix('_'));
    let suffixed = || name.strip_suffix(group).and_then(|r| r.strip_suffix('_'));
    prefixed.filter(|a| !a.is_empty()).or_else(|| suffixed().filter(|a| !a.is_empty())).unwrap_or(name)
}

impl Tool {
    /// See [`action_name`].
    pub fn action(&self) -> &str {
        action_name(&self.name, &self.group)
    }

    /// The description clients see: deprecated tools are prefixed and name their replacement.
    pub fn published_description(&self) -> String {
        match &self.deprecated {
            None => self.description.clone(),
            Some(d) => {
                let note = d.note.as_deref().map(|n| format!(" {n}")).unwrap_or_default();
                format!("[DEPRECATED] Use {} instead.{note} {}", d.replacement, self.description)
            }
        }
    }
}

/// Error codes a template may use: the runtime's `ErrorCode`s, defined there once.
pub const ERROR_CODES: &[&str] = &toolkit_runtime::ErrorCode::NAMES;

/// A template the generated checks call: a manifest may override its message (and code) but must
/// keep its params; one it leaves out gets this default.
pub struct BuiltinTemplate {
    pub name: &'static str,
    pub params: &'static [&'static str],
    pub code: &'static str,
    pub message: &'static str,
}

const fn builtin(name: &'static str, params: &'static [&'static str], message: &'static str) -> BuiltinTemplate {
    BuiltinTemplate { name, params, code: "INVALID_ARGUMENT", message }
}

/// Templates the generated argument checks call, with their default messages.
pub const BUILTIN_TEMPLATES: &[BuiltinTemplate] = &[
    builtin("missing_required", &["tool", "param"], "{tool} needs `{param}`. Call {tool} again with it."),
    builtin(
        "unknown_parameter",
        &["tool", "param", "allowed"],
        "{tool} has no parameter `{param}`. Its parameters: {allowed}. Call it again without `{param}`.",
    ),
    builtin(
        "invalid_type",
        &["param", "expected", "actual"],
        "`{param}` must be {expected}, not {actual}. Call again with {expected}.",
    ),
    builtin(
        "invalid_enum",
        &["param", "value", "allowed"],
        "`{param}` cannot be '{value}'. Call again with one of: {allowed}.",
    ),
    builtin(
        "out_of_range",
        &["param", "value", "range"],
        "`{param}` is {value}; it must be {range}. Call again with a value in range.",
    ),
    builtin(
        "invalid_length",
        &["param", "length", "range"],
        "`{param}` has {length} characters; it must have {range}. Call again with a value that fits.",
    ),
    builtin(
        "invalid_item_count",
        &["param", "count", "range"],
        "`{param}` has {count} items; it must have {range}. Call again with fewer or more items.",
    ),
    builtin(
        "invalid_arguments",
        &["tool", "details"],
        "The arguments of {tool} do not fit: {details}. Fix them and call again.",
    ),
    BuiltinTemplate {
        name: "not_implemented",
        params: &["tool"],
        code: "NOT_IMPLEMENTED",
        message: "{tool} is not implemented by this server. Use another tool.",
    },
    // The consolidated profile's action checks.
    builtin("missing_action", &["tool", "actions"], "{tool} needs `action`: one of {actions}. Call it again with one."),
    builtin(
        "unknown_action",
        &["tool", "action", "actions"],
        "{tool} has no action '{action}'. Its actions: {actions}. Call it again with one of them.",
    ),
    builtin(
        "missing_action_param",
        &["tool", "action", "param"],
        "Action {action} of {tool} needs `{param}`. Call it again with `{param}`.",
    ),
    builtin(
        "param_not_for_action",
        &["tool", "action", "param", "actions"],
        "`{param}` is not a parameter of action {action} of {tool}; it is for: {actions}. Call again without it.",
    ),
];
