//! Where the generated code finds what it names, like prost-build's `prost_path`: the runtime
//! crate and the generated module (for the generated tests).

use proc_macro2::TokenStream;

use crate::diag::Diagnostic;
use crate::{Output, model};

/// Generator settings. The defaults serve any server: the generated code names the runtime as
/// `::toolkit_runtime`, its tests name the generated module `crate::generated`, and the server
/// implements the generated `ToolHandlers` trait for its own type, as tonic's users do.
///
/// ```no_run
/// // build.rs
/// let text = std::fs::read_to_string("tools.yaml").unwrap();
/// let output = codegen::Settings::new().runtime_path("::toolkit_runtime").generate("tools.yaml", &text);
/// ```
#[derive(Debug, Clone)]
pub struct Settings {
    pub(crate) runtime_path: String,
    pub(crate) generated_path: String,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { runtime_path: "::toolkit_runtime".into(), generated_path: "crate::generated".into() }
    }
}

impl Settings {
    /// The defaults (see [`Settings`]).
    pub fn new() -> Self {
        Settings::default()
    }

    /// The path of the runtime crate (or a module re-exporting it) in generated code.
    pub fn runtime_path(mut self, path: impl Into<String>) -> Self {
        self.runtime_path = path.into();
        self
    }

    /// The path of the module that includes `tools.rs`, as `tools_tests.rs` names it (an
    /// integration test names it through the crate: `::my_server::generated`).
    pub fn generated_path(mut self, path: impl Into<String>) -> Self {
        self.generated_path = path.into();
        self
    }

    /// Parses and validates `text` (read from `file`, used in diagnostics) into the model.
    pub fn load(&self, file: &str, text: &str) -> Result<model::Model, Vec<Diagnostic>> {
        crate::load(file, text)
    }

    /// Validates and renders every generated Rust file.
    pub fn generate(&self, file: &str, text: &str) -> Result<Output, Vec<Diagnostic>> {
        crate::generate_with(self, file, text)
    }

    pub(crate) fn runtime(&self) -> Result<TokenStream, String> {
        path_tokens("runtime_path", &self.runtime_path)
    }

    pub(crate) fn generated(&self) -> Result<TokenStream, String> {
        path_tokens("generated_path", &self.generated_path)
    }
}

fn path_tokens(setting: &str, path: &str) -> Result<TokenStream, String> {
    syn::parse_str::<syn::Path>(path)
        .map(|p| quote::quote! { #p })
        .map_err(|e| format!("the codegen setting {setting} `{path}` is not a Rust path: {e}"))
}
