//! HTTP: `docket serve --http` to MCP clients, the web board over real HTTP, and the board in a
//! real browser.

mod board;
mod browser;
mod http;
