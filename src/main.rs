//! `docket`: serve the tracker over MCP (stdio), or set up a workspace.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use docket::app::App;
use docket::server::ToolStyle;
use docket::store::Workspace;
use rmcp::ServiceExt;

#[derive(Parser)]
#[command(name = "docket", version, about = "An issue and spec tracker for coding agents, served over MCP")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the MCP tools over stdio (stdout carries only the protocol; logs go to stderr).
    Serve {
        /// Workspace directory (holding .wrangler/ or .docket/). Default: DOCKET_WORKSPACE,
        /// WRANGLER_WORKSPACE_ROOT, then the nearest ancestor of the current directory that has one.
        #[arg(long, conflicts_with = "demo")]
        workspace: Option<PathBuf>,
        /// Serve a generated demo workspace in a temporary directory (deleted on exit).
        #[arg(long)]
        demo: bool,
        /// granular (one tool per operation) or consolidated (one tool per group, with an action).
        #[arg(long, value_enum, env = "DOCKET_TOOL_STYLE", default_value_t)]
        tool_style: ToolStyle,
    },
    /// Create a .docket/ workspace in DIR (default: the current directory).
    Init { dir: Option<PathBuf> },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("DOCKET_LOG").unwrap_or_else(|_| "warn".into()))
        .init();
    let result = match Cli::parse().command {
        Command::Serve { workspace, demo, tool_style } => serve(workspace, demo, tool_style),
        Command::Init { dir } => init(dir),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("docket: {message}");
            ExitCode::FAILURE
        }
    }
}

fn init(dir: Option<PathBuf>) -> Result<(), String> {
    let dir = dir.unwrap_or_else(|| PathBuf::from("."));
    let ws = Workspace::init(&dir).map_err(|e| e.to_string())?;
    eprintln!("docket: workspace ready at {}", ws.dir.display());
    Ok(())
}

fn serve(workspace: Option<PathBuf>, demo: bool, style: ToolStyle) -> Result<(), String> {
    // Keeps the demo directory alive until the server stops.
    let demo_dir = if demo {
        Some(tempfile::tempdir().map_err(|e| format!("cannot create a demo directory: {e}"))?)
    } else {
        None
    };
    let ws = match &demo_dir {
        Some(dir) => docket::store::generate::generate_workspace(dir.path(), 40, 7),
        None => Workspace::resolve(workspace.as_deref()).map_err(|e| {
            format!("{e}\nRun `docket init` in your repository, pass --workspace PATH, or try `docket serve --demo`.")
        })?,
    };
    tracing::info!(workspace = %ws.dir.display(), "serving");
    let server = App::open(ws).server_with_style(style);
    docket::runtime::tokens::preload();
    let runtime = tokio::runtime::Runtime::new().map_err(|e| format!("cannot start the async runtime: {e}"))?;
    runtime.block_on(async move {
        let running = server.serve(rmcp::transport::stdio()).await.map_err(|e| format!("MCP handshake failed: {e}"))?;
        let cancel = running.cancellation_token();
        tokio::select! {
            quit = running.waiting() => { quit.map_err(|e| format!("server stopped: {e}"))?; }
            _ = shutdown_signal() => { cancel.cancel(); }
        }
        Ok::<(), String>(())
    })?;
    // Tokio's stdin reader cannot be cancelled; exit without waiting for it.
    runtime.shutdown_background();
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(s) => s,
            Err(_) => return ctrl_c.await.unwrap_or(()),
        };
        tokio::select! { _ = ctrl_c => {}, _ = term.recv() => {} }
    }
    #[cfg(not(unix))]
    ctrl_c.await.unwrap_or(());
}
