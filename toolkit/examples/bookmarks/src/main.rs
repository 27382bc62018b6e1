//! The bookmarks server: `cargo run --manifest-path examples/bookmarks/Cargo.toml` serves MCP over
//! stdio; with `-- --http 127.0.0.1:8080` it serves Streamable HTTP at `/mcp` instead; with
//! `--consolidated` (before either) it publishes one tool, `bookmarks`, whose `action` picks one. Everything
//! about the tools (names, schemas, limits, error messages) is in tools.yaml; src/handlers.rs
//! implements the generated `ToolHandlers` trait; src/log.rs watches every call; the runtime serves it.

mod handlers;
mod log;

/// The code build.rs generates from tools.yaml.
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/tools.rs"));
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let server = toolkit_runtime::server::Server::new(
        generated::Tools(handlers::Bookmarks::default()),
        env!("CARGO_PKG_VERSION"),
    )
    .with_observer(log::CallLog);
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let server = match args.first().map(String::as_str) {
        Some("--consolidated") => {
            args.remove(0);
            match server.consolidated() {
                Ok(server) => server,
                Err(e) => {
                    eprintln!("bookmarks: {e}");
                    return std::process::ExitCode::FAILURE;
                }
            }
        }
        _ => server,
    };
    let served = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => server.serve_stdio().await,
        ["--http", addr] => match tokio::net::TcpListener::bind(addr).await {
            Ok(listener) => {
                let at = listener.local_addr().map_or_else(|_| addr.to_string(), |a| a.to_string());
                // stdout is not the protocol's here, but logs still go to stderr, as on stdio.
                eprintln!("bookmarks: serving MCP at http://{at}/mcp");
                server.serve_http(listener).await
            }
            Err(e) => Err(format!("cannot listen on {addr}: {e}")),
        },
        _ => Err(format!(
            "unexpected arguments {args:?}: run with none (stdio) or with `--http ADDRESS:PORT`, either after `--consolidated`"
        )),
    };
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bookmarks: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
