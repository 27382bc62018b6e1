//! The `tools.yaml` file format (version 1), exactly as written by maintainers.
//!
//! Unknown keys are rejected so a typo (`desciption:`) fails the build instead of being ignored.

use indexmap::IndexMap;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub version: u32,
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
    pub tools: Vec<Tool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Server {
    pub name: String,
    pub title: String,
    pub instructions: String,
    /// What the whole tools/list may cost the model, in each profile (tests/tool_budgets.rs).
    #[serde(default)]
    pub tools_list_tokens: Option<ToolsListTokens>,
}

/// Token budgets of the whole tools/list (name, description and inputSchema of every tool).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolsListTokens {
    pub granular: usize,
    pub consolidated: usize,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    /// Title of the group's consolidated tool (default: the group name, capitalized).
    pub title: Option<String>,
    pub description: String,
}

/// A named type: an enum (`enum:` list) or an object (`properties:` map).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TypeDef {
    pub description: Option<String>,
    #[serde(rename = "enum")]
    pub enum_values: Option<Vec<String>>,
    pub properties: Option<IndexMap<String, Schema>>,
    pub additional_properties: Option<bool>,
}

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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    #[serde(default)]
    pub group: String,
    /// The function that implements the tool, a path under `crate::handlers` (`issues::list`).
    pub handler: Option<String>,
    pub annotations: Annotations,
    #[serde(default)]
    pub input: IndexMap<String, Schema>,
    #[serde(default)]
    pub output: IndexMap<String, Schema>,
    #[serde(default)]
    pub limits: IndexMap<String, u64>,
    #[serde(default)]
    pub errors: Vec<String>,
    /// Parameters that identify "the same failure" for error intelligence (hashed and stored;
    /// nothing else of a call is kept).
    #[serde(default)]
    pub error_context: Vec<String>,
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SampleRead {
    pub uri: String,
    #[serde(default)]
    pub save: IndexMap<String, String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Annotations {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    pub open_world: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deprecation {
    pub replacement: String,
    pub note: Option<String>,
}

/// A parameter, property or array item.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Schema {
    #[serde(rename = "type")]
    pub ty: String,
    pub description: Option<String>,
    #[serde(default)]
    pub required: bool,
    pub default: Option<serde_yaml::Value>,
    #[serde(rename = "enum")]
    pub enum_values: Option<Vec<String>>,
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub min_length: Option<u64>,
    pub max_length: Option<u64>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
    pub items: Option<Box<Schema>>,
    pub properties: Option<IndexMap<String, Schema>>,
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
