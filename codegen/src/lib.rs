//! Reads an MCP server's tool manifest (`tools.yaml`), validates it and generates the typed tool
//! layer over `toolkit-runtime`.
//!
//! # Quick start
//!
//! As with prost-build, generation runs in `build.rs`; `[build-dependencies] codegen`,
//! `[dependencies] toolkit-runtime` (and rmcp, serde, serde_json, schemars, which the generated
//! code names):
//!
//! ```no_run
//! // build.rs: fn main() {
//! println!("cargo::rerun-if-changed=tools.yaml");
//! let text = std::fs::read_to_string("tools.yaml").unwrap();
//! let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
//! match codegen::Settings::new().generate("tools.yaml", &text) {
//!     Ok(output) => {
//!         for (name, code) in output.files {
//!             std::fs::write(out.join(name), code).unwrap();
//!         }
//!     }
//!     Err(diagnostics) => {
//!         for d in diagnostics {
//!             println!("cargo::error={}", d.to_string().replace('\n', " "));
//!         }
//!     }
//! }
//! ```
//!
//! Then `include!(concat!(env!("OUT_DIR"), "/tools.rs"))` in a `generated` module, implement its
//! `ToolHandlers` trait and serve `generated::Tools(handlers)` (toolkit-runtime's docs). The
//! manifest's format: toolkit/docs/manifest.md; [`Settings`] says where the generated code finds the
//! runtime.
//!
//! Passes: parse (serde_yaml) -> locate (YAML path -> line:col) -> validate (every semantic rule,
//! reported as `tools.yaml:LINE:COL` diagnostics) -> lower (the checked manifest into
//! [`model::Model`]) -> render (quote + prettyplease for Rust, minijinja for docs).
//! Everything here is pure: no I/O, no environment, so build.rs, the CLI and tests share it.

#![deny(missing_docs)]

pub mod diag;
mod locate;
mod lower;
pub mod manifest;
pub mod model;
mod render;
mod settings;
mod template;
mod validate;

pub use diag::{Diagnostic, Pos};
pub use settings::Settings;

/// What build.rs writes into OUT_DIR.
#[derive(Debug)]
pub struct Output {
    /// (file name, contents): `tools.rs` and `tools_tests.rs`.
    pub files: Vec<(&'static str, String)>,
}

/// Parses and validates `text` (read from `file`, used in diagnostics) into the model (the
/// settings only say where generated code finds what it names: they do not change the model).
pub fn load(file: &str, text: &str) -> Result<model::Model, Vec<Diagnostic>> {
    let parsed: manifest::Manifest = serde_yaml::from_str(text).map_err(|e| vec![parse_error(file, &e)])?;
    let locator = locate::Locator::index(text);
    validate::check(file, &parsed, &locator)?;
    Ok(lower::lower(&parsed))
}

/// Validates and renders every generated Rust file, with the default [`Settings`].
pub fn generate(file: &str, text: &str) -> Result<Output, Vec<Diagnostic>> {
    generate_with(&Settings::default(), file, text)
}

fn generate_with(settings: &Settings, file: &str, text: &str) -> Result<Output, Vec<Diagnostic>> {
    let model = load(file, text)?;
    let bug = |e: String| vec![Diagnostic::new(file, Pos::default(), "generator-bug", e)];
    let tools = render::tools_rs(&model, settings).map_err(bug)?;
    let tests = render::tests_rs(&model, settings).map_err(bug)?;
    Ok(Output { files: vec![("tools.rs", tools), ("tools_tests.rs", tests)] })
}

/// Renders `docs/tools.md`.
pub fn docs(file: &str, text: &str) -> Result<String, Vec<Diagnostic>> {
    let model = load(file, text)?;
    render::tools_markdown(&model).map_err(|e| vec![Diagnostic::new(file, Pos::default(), "generator-bug", e)])
}

/// The tools/list JSON clients will see (name, title, description, schemas, annotations).
pub fn tool_list_json(file: &str, text: &str) -> Result<serde_json::Value, Vec<Diagnostic>> {
    let model = load(file, text)?;
    let tools: Vec<serde_json::Value> = model
        .tools
        .iter()
        .map(|t| {
            serde_json::json!({
                "name": t.name, "title": t.title, "description": t.published_description(),
                "inputSchema": render::input_schema(&t.input), "outputSchema": render::output_schema(&t.output),
                "annotations": {"title": t.title, "readOnlyHint": t.annotations.read_only, "destructiveHint": t.annotations.destructive,
                    "idempotentHint": t.annotations.idempotent, "openWorldHint": t.annotations.open_world},
            })
        })
        .collect();
    Ok(serde_json::json!({ "tools": tools }))
}

/// Every tool's sample calls, in the order they run (manifest order): a JSON array of
/// `{tool, args, read?, save?, expect?, error?}`. The tests and both CI clients run these.
pub fn samples_json(file: &str, text: &str) -> Result<serde_json::Value, Vec<Diagnostic>> {
    let model = load(file, text)?;
    Ok(model.tools.iter().flat_map(|t| t.samples.iter().cloned()).collect())
}

/// The tools/list JSON of the consolidated profile (`--tool-style consolidated`).
pub fn consolidated_list_json(file: &str, text: &str) -> Result<serde_json::Value, Vec<Diagnostic>> {
    let model = load(file, text)?;
    let tools: Vec<serde_json::Value> =
        render::consolidated_plan(&model).iter().map(render::consolidated_tool_json).collect();
    Ok(serde_json::json!({ "tools": tools }))
}

/// The generated `consolidated` module on its own (it is also part of `tools.rs`).
pub fn consolidated_rs(file: &str, text: &str) -> Result<String, Vec<Diagnostic>> {
    let model = load(file, text)?;
    let rt =
        Settings::default().runtime().map_err(|e| vec![Diagnostic::new(file, Pos::default(), "bad-setting", e)])?;
    render::consolidated_rs(&model, &rt).map_err(|e| vec![Diagnostic::new(file, Pos::default(), "generator-bug", e)])
}

fn parse_error(file: &str, e: &serde_yaml::Error) -> Diagnostic {
    let pos = e.location().map(|l| Pos { line: l.line(), col: l.column() }).unwrap_or(Pos { line: 1, col: 1 });
    // serde_yaml appends " at line L column C"; the position is already in front.
    let message = e.to_string();
    let message = message.split(" at line ").next().unwrap_or(&message).to_string();
    Diagnostic::new(file, pos, "invalid-manifest", message).with_help(
        "see toolkit/docs/manifest.md for the format; unknown keys are rejected so typos cannot slip through",
    )
}
