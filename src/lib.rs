//! docket: an issue and spec tracker for coding agents, served over MCP.
//!
//! The flow: `tools.yaml` -> `codegen/` (run by build.rs) -> [`generated`] (typed inputs and
//! outputs, the [`generated::ToolHandlers`] trait and its impl, tools/list, dispatch) ->
//! [`handlers`] (one function per tool, named by its `handler:`) -> [`store`] (markdown files and the in-memory index). Every front end
//! ([`server`] over MCP, [`web`], [`cli`]) runs a tool call through [`call`]; [`runtime`] holds what the
//! generated code builds on.

// Generated code names this crate `::docket`, so it reads the same inside and outside the crate.
extern crate self as docket;

pub mod agents;
pub mod app;
pub mod call;
pub mod cli;
pub mod codes;
pub mod config;
pub mod doctor;
pub mod error_memory;
pub mod handlers;
pub mod import;
pub mod runtime;
pub mod server;
pub mod transport;
pub mod util;
pub mod web;

/// The workspace on disk and its index (the `store/` crate: it does not depend on tools.yaml).
pub use docket_store as store;

/// Code generated from tools.yaml by build.rs. Inspect it with `cargo run -p codegen -- dump`.
#[allow(clippy::all, clippy::pedantic, missing_docs)]
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}
