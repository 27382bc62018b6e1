//! The validated model: what the renderers see. Every name is resolved and every default checked,
//! so rendering cannot fail on manifest content.

use serde_json::Value;

/// The checked manifest.
#[derive(Debug, Clone)]
pub struct Model {
    /// What initialize tells clients.
    pub server: Server,
    /// The groups (empty: no consolidated profile).
    pub groups: Vec<Group>,
    /// Every Rust type to emit (named types first, then inline ones), in a stable order.
    pub rust_types: Vec<RustType>,
    /// The error catalogue, built-in templates' defaults included.
    pub errors: Vec<ErrorTemplate>,
    /// The tools, in manifest order.
    pub tools: Vec<Tool>,
}

/// `server:`.
#[derive(Debug, Clone)]
pub struct Server {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.title`.
    pub title: String,
    /// Instructions sent at initialization.
    pub instructions: String,
    /// The tools/list budgets, if declared.
    pub tools_list_tokens: Option<crate::manifest::ToolsListTokens>,
}

/// A group of tools.
#[derive(Debug, Clone)]
pub struct Group {
    /// Its name (the consolidated tool's).
    pub name: String,
    /// Title of the consolidated tool of this group.
    pub title: String,
    /// What the consolidated tool does.
    pub description: String,
}

/// A Rust type to emit.
#[derive(Debug, Clone)]
pub enum RustType {
    /// An enum of strings.
    Enum {
        /// Its Rust name.
        name: String,
        /// Its doc comment.
        description: String,
        /// Its values on the wire.
        values: Vec<String>,
    },
    /// A struct.
    Struct(Object),
}

/// An object with declared properties, rendered as a Rust struct.
#[derive(Debug, Clone)]
pub struct Object {
    /// The struct's name.
    pub rust_name: String,
    /// Its doc comment.
    pub description: String,
    /// Its fields, in order.
    pub fields: Vec<Field>,
    /// `additionalProperties`: inputs default to `Some(false)` (the generated parser denies unknown
    /// fields; the server strips them first), outputs to `None`. Published in outputSchemas only.
    pub additional: Option<bool>,
}

/// A property of an object.
#[derive(Debug, Clone)]
pub struct Field {
    /// Its name on the wire.
    pub wire: String,
    /// Its Rust field name.
    pub rust: String,
    /// Its description.
    pub description: String,
    /// Whether a call must give it.
    pub required: bool,
    /// Its default.
    pub default: Option<Value>,
    /// What its value looks like.
    pub shape: Shape,
    /// Why it is deprecated, when it is.
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
    /// The whole schema.
    #[default]
    Full,
    /// Its type only (`object`, or an array of `object`): the description names the properties.
    Shallow,
    /// Left out of the schema, still accepted (without a warning, unlike a deprecated field).
    Hidden,
    /// Published in full by the granular profile, left out (still accepted) by the consolidated one.
    Granular,
}

/// What a value looks like. Bounds are inclusive; `None` is unbounded.
#[derive(Debug, Clone)]
#[allow(missing_docs)] // The bounds and names of the variants' fields say what they are.
pub enum Shape {
    /// A string.
    String { min_len: Option<u64>, max_len: Option<u64> },
    /// An integer.
    Integer { min: Option<i64>, max: Option<i64> },
    /// A number.
    Number { min: Option<f64>, max: Option<f64> },
    /// `true` or `false`.
    Boolean,
    /// Any JSON value.
    Any,
    /// A free-form JSON object.
    Map,
    /// A string of an enum.
    Enum { rust_name: String, values: Vec<String> },
    /// An array.
    Array { items: Box<Shape>, min_items: Option<u64>, max_items: Option<u64> },
    /// An object with declared properties.
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

/// An entry of the error catalogue.
#[derive(Debug, Clone)]
pub struct ErrorTemplate {
    /// Its name (`errors::NAME`).
    pub name: String,
    /// Its code, one of [`ERROR_CODES`].
    pub code: String,
    /// The message, with `{param}` placeholders.
    pub message: String,
    /// The placeholders, in argument order.
    pub params: Vec<String>,
}

/// A checked tool.
#[derive(Debug, Clone)]
pub struct Tool {
    /// The wire name.
    pub name: String,
    /// The human label.
    pub title: String,
    /// What the model reads to choose it.
    pub description: String,
    /// Its group; empty without groups.
    pub group: String,
    /// The four MCP hints.
    pub annotations: Annotations,
    /// `{Tool}Input`.
    pub input: Object,
    /// `{Tool}Output`.
    pub output: Object,
    /// Named numbers.
    pub limits: Vec<(String, u64)>,
    /// The templates it may return.
    pub errors: Vec<String>,
    /// Parameters that identify a failure for error intelligence.
    pub error_context: Vec<String>,
    /// Set when deprecated.
    pub deprecated: Option<Deprecation>,
    /// The wire name of the boolean parameter that makes a call of this write tool a write
    /// (`writes_when:`); `None` for a tool whose every call writes (or that never writes).
    pub writes_when: Option<String>,
    /// Validated sample calls as JSON objects: `args`, and `read`, `save`, `expect`, `error` when set.
    pub samples: Vec<Value>,
}

/// The four MCP hints.
#[derive(Debug, Clone, Copy)]
pub struct Annotations {
    /// `readOnlyHint`.
    pub read_only: bool,
    /// `destructiveHint`.
    pub destructive: bool,
    /// `idempotentHint`.
    pub idempotent: bool,
    /// `openWorldHint`.
    pub open_world: bool,
}

/// A deprecated tool's replacement.
#[derive(Debug, Clone)]
pub struct Deprecation {
    /// The tool to call instead.
    pub replacement: String,
    /// More to say.
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
    /// Its name.
    pub name: &'static str,
    /// Its params, as the generated checks pass them.
    pub params: &'static [&'static str],
    /// The default code.
    pub code: &'static str,
    /// The default message.
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
