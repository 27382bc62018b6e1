//! The `tools.yaml` file format (version 1), exactly as written by maintainers.
//!
//! Unknown keys are rejected so a typo (`desciption:`) fails the build instead of being ignored.

use indexmap::IndexMap;
use serde::Deserialize;

/// A whole `tools.yaml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Always 1.
    pub version: u32,
    /// What initialize tells clients.
    pub server: Server,
    /// Tool groups (`issues`, `session`); the consolidated profile folds each group into one tool.
    #[serde(default)]
    pub groups: IndexMap<String, Group>,
    /// Shared named types: enums and objects, referenced by `type: Name`.
    #[serde(default)]
    pub types: IndexMap<String, TypeDef>,
    /// The error-message catalogue: templates with `{named}` placeholders.
    #[serde(default)]
    pub errors: IndexMap<String, ErrorTemplate>,
    /// The tools, in the order clients list them.
    pub tools: Vec<Tool>,
}

/// `server:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Server {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.title`.
    pub title: String,
    /// Instructions sent at initialization.
    pub instructions: String,
    /// What the whole tools/list may cost the model, in each profile (tests/tool_budgets.rs).
    #[serde(default)]
    pub tools_list_tokens: Option<ToolsListTokens>,
}

/// Token budgets of the whole tools/list (name, description and inputSchema of every tool).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolsListTokens {
    /// The granular profile's budget.
    pub granular: usize,
    /// The consolidated profile's budget.
    pub consolidated: usize,
}

/// A group of `groups:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    /// Title of the group's consolidated tool (default: the group name, capitalized).
    pub title: Option<String>,
    /// What the consolidated tool of the group does.
    pub description: String,
}

/// A named type: an enum (`enum:` list) or an object (`properties:` map).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypeDef {
    /// What the type is.
    pub description: Option<String>,
    /// The values of an enum type.
    #[serde(rename = "enum")]
    pub enum_values: Option<Vec<String>>,
    /// The properties of an object type.
    pub properties: Option<IndexMap<String, Schema>>,
    /// Whether an object type allows undeclared properties.
    pub additional_properties: Option<bool>,
}

/// An entry of `errors:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorTemplate {
    /// Error code shown to clients: NOT_FOUND, INVALID_ARGUMENT, CONFLICT, ...
    pub code: String,
    /// Message with `{name}` placeholders; `{{` and `}}` are literal braces.
    pub message: String,
    /// The placeholders this template takes, in the order the generated function takes them.
    #[serde(default)]
    pub params: Vec<String>,
}

/// An entry of `tools:`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    /// The wire name.
    pub name: String,
    /// The human label.
    pub title: Option<String>,
    /// What the model reads to choose the tool.
    pub description: Option<String>,
    /// Its group; empty without `groups:`.
    #[serde(default)]
    pub group: String,
    /// The four MCP hints.
    pub annotations: Annotations,
    /// Parameters, in order.
    #[serde(default)]
    pub input: IndexMap<String, Schema>,
    /// Properties of structuredContent.
    #[serde(default)]
    pub output: IndexMap<String, Schema>,
    /// Named numbers (`generated::limits`).
    #[serde(default)]
    pub limits: IndexMap<String, u64>,
    /// The error templates it may return.
    #[serde(default)]
    pub errors: Vec<String>,
    /// Parameters that identify "the same failure" for error intelligence (hashed and stored;
    /// nothing else of a call is kept).
    #[serde(default)]
    pub error_context: Vec<String>,
    /// Set when the tool is deprecated.
    pub deprecated: Option<Deprecation>,
    /// A boolean parameter without which a write tool only reads (`fix` of workspace_doctor):
    /// a read-only server refuses the call only when it is true.
    pub writes_when: Option<String>,
    /// Sample calls, run in manifest order by the tests and both CI clients (`codegen samples`).
    #[serde(default)]
    pub samples: Vec<Sample>,
}

/// One sample call. Strings `$name` in `args` stand for a value saved by an earlier sample.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sample {
    /// The call's arguments.
    #[serde(default)]
    pub args: IndexMap<String, serde_yaml::Value>,
    /// A resource to read before the call, and values to save from its JSON.
    pub read: Option<SampleRead>,
    /// Values to save from structuredContent: variable name -> JSON pointer.
    #[serde(default)]
    pub save: IndexMap<String, String>,
    /// Values structuredContent must hold: JSON pointer -> value.
    #[serde(default)]
    pub expect: IndexMap<String, serde_yaml::Value>,
    /// The error code the call must fail with (a deliberate failure).
    pub error: Option<String>,
}

/// A resource read before a sample call.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampleRead {
    /// The resource.
    pub uri: String,
    /// Values to keep: name -> JSON pointer into the resource's JSON.
    #[serde(default)]
    pub save: IndexMap<String, String>,
}

/// `annotations:`, all four explicit.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
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

/// `deprecated:` of a tool.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deprecation {
    /// The tool to call instead.
    pub replacement: String,
    /// More to say.
    pub note: Option<String>,
}

/// A parameter, property or array item.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Schema {
    /// `type:`: a JSON type or a named type.
    #[serde(rename = "type")]
    pub ty: String,
    /// What the model reads about it.
    pub description: Option<String>,
    /// Whether a call must give it.
    #[serde(default)]
    pub required: bool,
    /// Its default.
    pub default: Option<serde_yaml::Value>,
    /// `enum:` values of a string.
    #[serde(rename = "enum")]
    pub enum_values: Option<Vec<String>>,
    /// Least number.
    pub minimum: Option<f64>,
    /// Greatest number.
    pub maximum: Option<f64>,
    /// Fewest characters.
    pub min_length: Option<u64>,
    /// Most characters.
    pub max_length: Option<u64>,
    /// Fewest items.
    pub min_items: Option<u64>,
    /// Most items.
    pub max_items: Option<u64>,
    /// The schema of an array's items.
    pub items: Option<Box<Schema>>,
    /// The properties of an inline object.
    pub properties: Option<IndexMap<String, Schema>>,
    /// Whether an inline object allows undeclared properties.
    pub additional_properties: Option<bool>,
    /// Marks a parameter deprecated; the text says what to use instead.
    pub deprecated: Option<String>,
    /// `null` means "clear it" rather than "not given" (an optional field without a default).
    #[serde(default)]
    pub nullable: bool,
    /// How much of the field the published schema shows (default `full`).
    pub publish: Option<Publish>,
    /// The properties of this field's named object type become parameters of their own, in this
    /// field's place: a parameter set declared once and shared by several tools.
    #[serde(default)]
    pub flatten: bool,
}

/// `publish:` of a field. Whatever it says, the field is accepted and checked in full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Publish {
    /// The whole schema (the default).
    Full,
    /// An object (or array of objects) published as `object` without its properties, which the
    /// description names instead.
    Shallow,
    /// Not published at all (a second name for something published under another name).
    None,
    /// Published by the granular profile only; the consolidated profile accepts it unpublished.
    Granular,
}
