//! The runtime under code generated from a tools manifest by `codegen`: the reply and error
//! types handlers return, the call context, the tool table entry, the argument checker, the
//! consolidated profile's resolution and the result envelope. It names no server: the generated
//! code names it (codegen's `runtime_path` setting, `::toolkit_runtime` by default).
//!
//! # Quick start
//!
//! Declare the tools in `tools.yaml` (see codegen's docs), generate them in `build.rs` with
//! `codegen::Settings::new().generate("tools.yaml", &text)`, then include the output, implement
//! the generated trait and serve it:
//!
//! ```ignore
//! pub mod generated {
//!     include!(concat!(env!("OUT_DIR"), "/tools.rs"));
//! }
//!
//! struct Notes;
//!
//! impl generated::ToolHandlers for Notes {
//!     async fn notes_add(&self, input: generated::NotesAddInput, _: CallContext)
//!         -> ToolResult<generated::NotesAddOutput> {
//!         Ok(Reply::new(generated::NotesAddOutput { id: 1 }))
//!     }
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), String> {
//!     toolkit_runtime::server::Server::new(generated::Tools(Notes), env!("CARGO_PKG_VERSION"))
//!         .serve_stdio()
//!         .await
//! }
//! ```
//!
//! Every call runs through [`call::run`]; `Server::with_observer` adds a [`call::CallObserver`] that
//! hears of each call before and after its handler (a log, error memory, write announcements), and
//! `Server::serve_http` (feature `http`) serves the same tools over Streamable HTTP, and
//! `Server::consolidated` publishes the manifest's consolidated profile instead.
//!
//! toolkit/examples/bookmarks beside this crate is a whole server built this way.
//!
//! Without the default `rmcp` feature only the parts the generator shares at build time are
//! compiled: [`aliases`], [`ErrorCode`], [`text`] and the argument rules.

#![deny(missing_docs)]

pub mod aliases;
pub mod args;
pub mod call;
pub mod consolidated;
#[cfg(feature = "rmcp")]
pub mod envelope;
#[cfg(feature = "rmcp")]
pub mod server;
pub mod text;

#[cfg(feature = "rmcp")]
use std::sync::Arc;

#[cfg(feature = "rmcp")]
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde::Serialize;
use serde_json::Value;

/// What every handler returns.
pub type ToolResult<T> = Result<Reply<T>, ToolError>;

/// Facts about the call a handler may want (more arrive with the response envelope).
#[derive(Debug, Clone)]
pub struct CallContext {
    /// The tool called (the underlying one in the consolidated profile).
    pub tool: String,
    /// `_meta.request_id` of the call.
    pub request_id: String,
}

/// The tool-error codes clients see; the manifest's templates pick one each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// `NOT_FOUND`: what the call names does not exist.
    NotFound,
    /// `INVALID_ARGUMENT`: the arguments do not fit the tool.
    InvalidArgument,
    /// `CONFLICT`: the call clashes with the current state.
    Conflict,
    /// `CONFIRMATION_REQUIRED`: the call needs an explicit confirmation.
    ConfirmationRequired,
    /// `NOT_IMPLEMENTED`: the server does not do this.
    NotImplemented,
    /// `INTERNAL`: the server failed.
    Internal,
}

impl ErrorCode {
    /// Every code, as [`ErrorCode::as_str`] writes them: the codes a manifest's templates may use.
    pub const NAMES: [&'static str; 6] =
        ["NOT_FOUND", "INVALID_ARGUMENT", "CONFLICT", "CONFIRMATION_REQUIRED", "NOT_IMPLEMENTED", "INTERNAL"];

    /// The code as clients see it (`NOT_FOUND`).
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::ConfirmationRequired => "CONFIRMATION_REQUIRED",
            ErrorCode::NotImplemented => "NOT_IMPLEMENTED",
            ErrorCode::Internal => "INTERNAL",
        }
    }
}

/// A failed call, shown to the model as an `isError` result. Built by the generated
/// `errors::*` constructors, so every message comes from a template in tools.yaml.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    /// The error code clients see.
    pub code: ErrorCode,
    /// The catalogue entry the message came from.
    pub template: &'static str,
    /// The message, from the template, for the model.
    pub message: String,
}

impl ToolError {
    /// An error of `code` from catalogue entry `template`.
    pub fn new(code: ErrorCode, template: &'static str, message: String) -> Self {
        ToolError { code, template, message }
    }

    /// One error carrying the messages (one per line), with the first error's code; `None` if
    /// empty. Past [`ToolError::MAX_COMBINED`] messages the rest are counted, not listed, so
    /// 10,000 bad array items make a short error rather than 10,000 lines.
    pub fn combine(errors: Vec<ToolError>) -> Option<ToolError> {
        let total = errors.len();
        let mut iter = errors.into_iter();
        let mut first = iter.next()?;
        for e in iter.by_ref().take(Self::MAX_COMBINED - 1) {
            first.message.push('\n');
            first.message.push_str(&e.message);
        }
        if total > Self::MAX_COMBINED {
            let more = total - Self::MAX_COMBINED;
            first.message.push_str(&format!("\n…and {more} more problem(s) like these; fix the ones above first."));
        }
        Some(first)
    }

    /// How many messages [`ToolError::combine`] lists.
    pub const MAX_COMBINED: usize = 10;

    /// How many characters of one placeholder a catalogue message shows.
    pub const MAX_PLACEHOLDER: usize = 500;

    /// A placeholder's value as a catalogue message shows it: clipped after
    /// [`ToolError::MAX_PLACEHOLDER`] characters, saying how long it was. Messages repeat what
    /// the call gave (a path, an ID), and a megabyte given must not come back as a megabyte.
    pub fn placeholder(value: impl std::fmt::Display) -> String {
        text::clip_saying(&value.to_string(), Self::MAX_PLACEHOLDER, text::Whole::Chars)
    }
}

/// Severity of a warning in `_meta.warnings`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; nothing went wrong.
    Info,
    /// Something may not be what the caller meant.
    Warning,
}

/// What a [`Warning`] is about: `_meta.warnings[].code`, as clients read it. A server adds its
/// own codes with [`WarningCode::new`]; the runtime's own are the associated constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct WarningCode(&'static str);

impl WarningCode {
    /// A body or page cut to the response limit; the warning says how to read the rest.
    pub const TRUNCATED: WarningCode = WarningCode("TRUNCATED");
    /// A parameter the tool does not declare, removed before the call ran.
    pub const IGNORED_PARAMETER: WarningCode = WarningCode("IGNORED_PARAMETER");
    /// A parameter the manifest deprecates, still accepted.
    pub const DEPRECATED_PARAMETER: WarningCode = WarningCode("DEPRECATED_PARAMETER");
    /// A tool the manifest deprecates, still served.
    pub const DEPRECATED_TOOL: WarningCode = WarningCode("DEPRECATED_TOOL");

    /// A code of the server's own, in SCREAMING_SNAKE_CASE like the runtime's.
    pub const fn new(code: &'static str) -> Self {
        WarningCode(code)
    }

    /// The code as clients see it.
    pub fn as_str(&self) -> &'static str {
        self.0
    }
}

/// Something the agent should know that did not stop the call (`_meta.warnings`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// What it is about.
    pub code: WarningCode,
    /// The text for the model.
    pub message: String,
    /// How much it matters.
    pub severity: Severity,
    /// Also shown where every client shows it to the model: appended to the text block and
    /// listed in structuredContent's `warnings`. Many clients never pass `_meta` to the model,
    /// so a warning that changes what the call did (an ignored parameter) must not live only there.
    #[serde(skip)]
    pub visible: bool,
}

impl Warning {
    /// A warning for `_meta.warnings` only.
    pub fn new(code: impl Into<WarningCode>, message: impl Into<String>) -> Self {
        Warning { code: code.into(), message: message.into(), severity: Severity::Warning, visible: false }
    }

    /// A warning shown in the text and structuredContent too (see [`Warning::visible`]).
    pub fn visible(code: impl Into<WarningCode>, message: impl Into<String>) -> Self {
        Warning { visible: true, ..Warning::new(code, message) }
    }
}

/// Result counts of a list-like reply (`_meta.results_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResultCounts {
    /// How many matched.
    pub total: usize,
    /// How many this reply holds.
    pub returned: usize,
    /// Whether some were left out.
    pub truncated: bool,
}

/// A successful call: the typed output (structuredContent) and what the envelope needs.
#[derive(Debug, Clone)]
pub struct Reply<T> {
    /// The typed output (structuredContent).
    pub data: T,
    /// Text for the model; `None` renders the output as compact JSON.
    pub text: Option<String>,
    /// Warnings for `_meta.warnings` (and, when visible, the text).
    pub warnings: Vec<Warning>,
    /// Whether the data came from a cache rather than its source (`_meta.cached`, written when the
    /// server asks for it: `envelope::CallFacts::cached`).
    pub cached: Option<bool>,
    /// Counts of a list-like reply (`_meta.results_*`).
    pub results: Option<ResultCounts>,
    /// Resources the model can read for more (e.g. the rest of a truncated body).
    pub links: Vec<Link>,
    /// Something tool-specific for `_meta.tool_context` (e.g. the sort and page size used).
    pub context: Option<Value>,
}

/// A resource a reply points at, sent as a `resource_link` content block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The resource's URI.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// What it holds.
    pub description: String,
}

impl<T> Reply<T> {
    /// A reply of `data`, the text rendered from it.
    pub fn new(data: T) -> Self {
        Reply { data, text: None, warnings: Vec::new(), cached: None, results: None, links: Vec::new(), context: None }
    }

    /// Points at a resource the model can read for more (a `resource_link` block), such as the
    /// whole of a body this reply cut; saying so (a [`WarningCode::TRUNCATED`] warning) is the
    /// server's.
    pub fn with_link(mut self, uri: String, name: String, description: String) -> Self {
        self.links.push(Link { uri, name, description });
        self
    }

    /// The text block, instead of compact JSON of the data.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        self.text = Some(text.into());
        self
    }

    /// Sets `_meta.cached`.
    pub fn with_cached(mut self, cached: bool) -> Self {
        self.cached = Some(cached);
        self
    }

    /// Sets `_meta.tool_context`.
    pub fn with_context(mut self, context: Value) -> Self {
        self.context = Some(context);
        self
    }

    /// Sets `_meta.results_*`.
    pub fn with_results(mut self, results: ResultCounts) -> Self {
        self.results = Some(results);
        self
    }

    /// Adds a warning for `_meta.warnings` only.
    pub fn warn(mut self, code: impl Into<WarningCode>, message: impl Into<String>) -> Self {
        self.warnings.push(Warning::new(code, message));
        self
    }

    /// A warning the model sees in every client: in the text and structuredContent too.
    pub fn warn_visibly(mut self, code: impl Into<WarningCode>, message: impl Into<String>) -> Self {
        self.warnings.push(Warning::visible(code, message));
        self
    }
}

impl<T: Serialize> Reply<T> {
    /// The same reply with its output as JSON, as dispatch hands it to the server.
    pub fn into_json(self) -> Result<Reply<Value>, ToolError> {
        let data = serde_json::to_value(&self.data).map_err(|e| {
            ToolError::new(
                ErrorCode::Internal,
                "internal",
                format!("The result could not be encoded as JSON: {e}. This is a bug of the server; please report it."),
            )
        })?;
        Ok(Reply {
            data,
            text: self.text,
            warnings: self.warnings,
            cached: self.cached,
            results: self.results,
            links: self.links,
            context: self.context,
        })
    }
}

/// One tool as declared in tools.yaml (generated into `generated::TOOLS`).
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    /// The wire name.
    pub name: &'static str,
    /// The human label (also `annotations.title`).
    pub title: &'static str,
    /// What the model reads to choose the tool (deprecation prefix included).
    pub description: &'static str,
    /// Its group in the consolidated profile; empty without groups.
    pub group: &'static str,
    /// `readOnlyHint`.
    pub read_only: bool,
    /// `destructiveHint`.
    pub destructive: bool,
    /// `idempotentHint`.
    pub idempotent: bool,
    /// `openWorldHint`.
    pub open_world: bool,
    /// The tool that replaces it, when the manifest deprecates it.
    pub deprecated_by: Option<&'static str>,
    /// JSON Schema of the arguments (inline, no `$ref`).
    pub input_schema: &'static str,
    /// JSON Schema of structuredContent; empty when the tool publishes none (the consolidated
    /// profile's tools, whose structuredContent differs per action).
    pub output_schema: &'static str,
    /// Parameters that identify "the same failure" of this tool (the manifest's `error_context`),
    /// for a server that remembers failures.
    pub error_context: &'static [&'static str],
    /// For a tool that is not `read_only`: the boolean parameter without which a call only reads
    /// (the manifest's `writes_when:`); `None` when every call writes.
    pub writes_when: Option<&'static str>,
}

impl ToolSpec {
    /// Whether a call with `args` writes: never for a read-only tool; for a tool with
    /// `writes_when`, only when that parameter is `true`; otherwise always. The call path asks it
    /// before dispatch ([`call::CallObserver::refuse_write`]).
    pub fn writes(&self, args: &serde_json::Map<String, serde_json::Value>) -> bool {
        !self.read_only && self.writes_when.is_none_or(|flag| args.get(flag) == Some(&serde_json::Value::Bool(true)))
    }
}

#[cfg(feature = "rmcp")]
impl ToolSpec {
    /// The rmcp definition published in tools/list, every annotation explicit.
    pub fn to_tool(&self) -> Tool {
        let tool = Tool::new_with_raw(self.name, Some(self.description.into()), schema(self.input_schema))
            .with_title(self.title);
        let tool = match self.output_schema {
            "" => tool,
            output => tool.with_raw_output_schema(schema(output)),
        };
        tool.with_annotations(ToolAnnotations::from_raw(
            Some(self.title.to_string()),
            Some(self.read_only),
            Some(self.destructive),
            Some(self.idempotent),
            Some(self.open_world),
        ))
    }
}

#[cfg(feature = "rmcp")]
fn schema(json: &str) -> Arc<JsonObject> {
    // The generator renders these from serde_json values, so they always parse as objects.
    Arc::new(serde_json::from_str(json).expect("generated schema is a JSON object"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combine_lists_ten_messages_and_counts_the_rest() {
        let errors: Vec<ToolError> =
            (0..10_000).map(|i| ToolError::new(ErrorCode::InvalidArgument, "t", format!("problem {i}"))).collect();
        let combined = ToolError::combine(errors).expect("one error");
        let lines: Vec<&str> = combined.message.lines().collect();
        assert_eq!(lines.len(), 11);
        assert_eq!(lines[9], "problem 9");
        assert_eq!(lines[10], "…and 9990 more problem(s) like these; fix the ones above first.");
        assert_eq!(ToolError::combine(Vec::new()), None);
        let two = vec![
            ToolError::new(ErrorCode::InvalidArgument, "a", "one".into()),
            ToolError::new(ErrorCode::NotFound, "b", "two".into()),
        ];
        assert_eq!(
            ToolError::combine(two).map(|e| (e.code, e.message)),
            Some((ErrorCode::InvalidArgument, "one\ntwo".into()))
        );
    }

    fn spec(name: &'static str, read_only: bool, writes_when: Option<&'static str>) -> ToolSpec {
        ToolSpec {
            name,
            title: name,
            description: "",
            group: "",
            read_only,
            destructive: false,
            idempotent: false,
            open_world: false,
            deprecated_by: None,
            input_schema: "{}",
            output_schema: "",
            error_context: &[],
            writes_when,
        }
    }

    fn args(v: Value) -> serde_json::Map<String, Value> {
        v.as_object().cloned().expect("object")
    }

    #[test]
    fn a_call_writes_unless_its_tool_only_reads_or_its_flag_is_not_true() {
        use serde_json::json;
        assert!(!spec("list", true, None).writes(&args(json!({}))));
        assert!(spec("add", false, None).writes(&args(json!({}))));
        let doctor = spec("doctor", false, Some("fix"));
        assert!(!doctor.writes(&args(json!({}))));
        assert!(!doctor.writes(&args(json!({"fix": false}))));
        assert!(!doctor.writes(&args(json!({"fix": "true"}))), "not a boolean: the checks refuse it");
        assert!(doctor.writes(&args(json!({"fix": true}))));
    }

    /// Refuses every write, like a read-only server.
    #[cfg(feature = "rmcp")]
    struct ReadOnly;

    #[cfg(feature = "rmcp")]
    impl call::CallObserver for ReadOnly {
        type Pending = ();

        async fn before(&self, _: &'static ToolSpec, _: &serde_json::Map<String, Value>) -> ((), Vec<Warning>) {
            ((), Vec::new())
        }

        fn refuse_write(&self, spec: &'static ToolSpec) -> Option<ToolError> {
            Some(ToolError::new(ErrorCode::Conflict, "read_only", format!("{} would write", spec.name)))
        }

        async fn after(&self, _: &'static ToolSpec, _: (), _: &ToolResult<Value>) -> Vec<Warning> {
            Vec::new()
        }
    }

    /// The call path refuses a write the observer refuses before dispatch, and dispatches reads
    /// (and a flagged tool's call without its flag).
    #[cfg(feature = "rmcp")]
    #[test]
    fn the_call_path_refuses_a_refused_write_before_dispatch() {
        static ADD: std::sync::LazyLock<ToolSpec> = std::sync::LazyLock::new(|| spec("add", false, None));
        static DOCTOR: std::sync::LazyLock<ToolSpec> = std::sync::LazyLock::new(|| spec("doctor", false, Some("fix")));
        let rt = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
        let dispatched = std::cell::Cell::new(0);
        let run = |spec: &'static ToolSpec, a: Value| {
            rt.block_on(call::run(&ReadOnly, spec, args(a), |_| {
                dispatched.set(dispatched.get() + 1);
                async { Ok(Reply::new(Value::Null)) }
            }))
        };
        let refused = run(&ADD, serde_json::json!({})).result.expect_err("refused");
        assert_eq!((refused.template, refused.message.as_str()), ("read_only", "add would write"));
        assert!(run(&DOCTOR, serde_json::json!({"fix": true})).result.is_err());
        assert_eq!(dispatched.get(), 0, "no refused call reached its handler");
        assert!(run(&DOCTOR, serde_json::json!({})).result.is_ok());
        assert_eq!(dispatched.get(), 1);
        // Without an observer that refuses, writes run.
        let ran =
            rt.block_on(call::run(&(), &ADD, args(serde_json::json!({})), |_| async { Ok(Reply::new(Value::Null)) }));
        assert!(ran.result.is_ok());
    }

    /// `_meta.cached` only for a server that asks for it: then on every answer, `false` unless
    /// the reply says otherwise.
    #[cfg(feature = "rmcp")]
    #[test]
    fn cached_is_written_only_for_a_server_that_asks() {
        let facts = |cached: bool| envelope::CallFacts {
            request_id: "req-1".into(),
            started: std::time::Instant::now(),
            version: "0",
            extra: serde_json::Map::new(),
            cached,
            warnings: Vec::new(),
            count_tokens: |t| t.len(),
        };
        let meta = |r: rmcp::model::CallToolResult| r.meta.expect("meta").0;
        let reply = || Ok(Reply::new(Value::Null));
        let error = || Err(ToolError::new(ErrorCode::NotFound, "not_found", "gone".into()));
        assert!(!meta(envelope::call_result(reply(), &facts(false))).contains_key("cached"));
        assert!(!meta(envelope::call_result(error(), &facts(false))).contains_key("cached"));
        assert_eq!(meta(envelope::call_result(reply(), &facts(true)))["cached"], false);
        assert_eq!(meta(envelope::call_result(error(), &facts(true)))["cached"], false);
        let hit = Ok(Reply::new(Value::Null).with_cached(true));
        assert_eq!(meta(envelope::call_result(hit, &facts(true)))["cached"], true);
    }
}
