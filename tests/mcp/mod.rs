//! The MCP server as a client meets it: the tools, resources and protocol over a real stdio pipe
//! (rmcp's client or raw JSON-RPC), one profile or the other.

mod chains;
mod config;
mod consolidated;
mod crash;
mod error_intelligence;
mod generated;
mod input_schemas;
mod issue_tools;
mod lossless;
mod output_schemas;
mod protocol_errors;
mod races;
mod reading;
mod resources;
mod search_index;
mod search_ranking;
mod session_tools;
mod start_anywhere;
mod stdio_server;
mod work_graph;
