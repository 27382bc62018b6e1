//! docket: an issue and spec tracker for coding agents, served over MCP.
//!
//! The flow: `tools.yaml` -> `codegen/` (run by build.rs) -> [`generated`] (typed inputs and
//! outputs, the [`generated::ToolHandlers`] trait, tools/list, dispatch) -> [`handlers`] (the
//! trait implemented for docket's `Handlers`, one function per tool) -> [`store`] (markdown files
//! and the in-memory index). Every front end ([`server`] over MCP, [`web`], [`cli`]) runs a tool
//! call through [`call`]; [`runtime`] (the toolkit's runtime crate) is what the generated code
//! builds on.

pub mod agents;
pub mod app;
pub mod call;
pub mod cli;
pub mod codes;
pub mod config;
pub mod error_memory;
pub mod handlers;
pub mod import;
pub mod server;
pub mod tokens;
pub mod transport;
pub mod util;
pub mod web;

/// The toolkit's runtime under the generated code (`toolkit/runtime`): replies, errors, argument
/// rules, the tool table, the call path, the consolidated profile and the result envelope.
pub use toolkit_runtime as runtime;

/// The workspace on disk and its index (the `store/` crate: it does not depend on tools.yaml).
pub use docket_store as store;

/// Code generated from tools.yaml by build.rs. Inspect it with `cargo run -p codegen -- dump`.
#[allow(clippy::all, clippy::pedantic, missing_docs)]
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}
