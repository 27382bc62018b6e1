//! docket: an issue and spec tracker for coding agents, served over MCP.

pub mod store;
