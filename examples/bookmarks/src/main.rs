//! The bookmarks server: `cargo run --manifest-path examples/bookmarks/Cargo.toml` serves MCP over
//! stdio. Everything about the tools (names, schemas, limits, error messages) is in tools.yaml;
//! src/handlers.rs implements the generated `ToolHandlers` trait; the runtime serves it.

mod handlers;

/// The code build.rs generates from tools.yaml.
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let server = toolkit_runtime::server::Server::new(
        generated::Tools(handlers::Bookmarks::default()),
        env!("CARGO_PKG_VERSION"),
    );
    match server.serve_stdio().await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bookmarks: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
