//! `docket`: serve the tracker over MCP (stdio or Streamable HTTP), set up a workspace, or use it
//! from the command line (list, show, create, update, board, stats: see `docket::cli`).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{CommandFactory, Parser, Subcommand};
use docket::app::App;
use docket::server::ToolStyle;
use docket::store::Workspace;
use docket::transport::{self, http};

#[derive(Parser)]
#[command(name = "docket", version, about = "An issue and spec tracker for coding agents, served over MCP")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the MCP tools over stdio (default) or Streamable HTTP. stdout carries only the
    /// protocol; logs go to stderr (DOCKET_LOG=info|debug).
    Serve {
        /// Workspace directory (holding .wrangler/ or .docket/). Default: DOCKET_WORKSPACE,
        /// WRANGLER_WORKSPACE_ROOT, then the nearest ancestor of the current directory that has one;
        /// with none, the first write creates .wrangler/ here (or in the current directory).
        #[arg(long, conflicts_with = "demo")]
        workspace: Option<PathBuf>,
        /// In a linked git worktree, serve its own workspace files instead of the main
        /// worktree's (claims still hold across worktrees). Default: DOCKET_WORKTREES, then
        /// `worktrees` in config/docket.yaml, then shared.
        #[arg(long, conflicts_with = "demo")]
        worktree_local: bool,
        /// Serve a generated demo workspace in a temporary directory (deleted on exit).
        #[arg(long)]
        demo: bool,
        /// Serve Streamable HTTP at http://[HOST:]PORT/mcp instead of stdio. A bare port binds
        /// 127.0.0.1; other interfaces only when named (e.g. 0.0.0.0:8080).
        #[arg(long, value_name = "[HOST:]PORT")]
        http: Option<String>,
        /// Require `Authorization: Bearer TOKEN` on every HTTP request (stdio ignores it: the
        /// client that spawned the server is the only one on the pipe).
        #[arg(long, env = "DOCKET_TOKEN", hide_env_values = true)]
        token: Option<String>,
        /// Accept this Host header too (HTTP; loopback names are always accepted).
        #[arg(long = "allow-host", value_name = "HOST", requires = "http")]
        allowed_hosts: Vec<String>,
        /// Accept requests from this browser origin too, e.g. https://app.example.com:443 (HTTP).
        #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
        allowed_origins: Vec<String>,
        /// Listen beyond loopback without --token: only for a network where every machine is
        /// trusted (anyone who reaches the port can read and change the workspace).
        #[arg(long, requires = "http")]
        allow_unauthenticated_network: bool,
        /// HTTP sessions open at once; initialize beyond this gets 503 until a session ends
        /// (DELETE /mcp) or idles out.
        #[arg(long, value_name = "N", default_value_t = http::HttpOptions::DEFAULT_MAX_SESSIONS, requires = "http", value_parser = clap::value_parser!(u32).range(1..))]
        max_sessions: u32,
        /// End an HTTP session after this many seconds without a request.
        #[arg(long, value_name = "SECONDS", default_value_t = http::HttpOptions::DEFAULT_SESSION_IDLE.as_secs(), requires = "http", value_parser = clap::value_parser!(u64).range(1..))]
        session_idle: u64,
        /// Close an HTTP connection whose request headers take longer than this many seconds
        /// (also the keep-alive idle time).
        #[arg(long, value_name = "SECONDS", default_value_t = http::HttpOptions::DEFAULT_HEADER_TIMEOUT.as_secs(), requires = "http", value_parser = clap::value_parser!(u64).range(1..))]
        header_timeout: u64,
        /// How tools are published: granular (one per operation) or consolidated (one per group).
        /// Overrides `tool_style` of config/docket.yaml and DOCKET_TOOL_STYLE.
        #[arg(long, value_enum, value_name = "STYLE")]
        tool_style: Option<ToolStyle>,
        /// Override a setting of config/docket.yaml, e.g. --set page_size=50 (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        settings: Vec<String>,
    },
    /// Create a .docket/ workspace in DIR (default: the current directory).
    Init {
        dir: Option<PathBuf>,
        /// Also set up git to merge issue files field by field (as `docket git-setup`).
        #[arg(long)]
        git: bool,
    },
    #[command(flatten)]
    Cli(Box<docket::cli::Command>),
}

/// Warnings, but not rmcp's line for every error response (a client's mistake, answered).
const DEFAULT_LOG: &str = "warn,rmcp::service=error";

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("DOCKET_LOG").unwrap_or_else(|_| DEFAULT_LOG.into()),
        )
        .init();
    let result = match Cli::parse().command {
        Command::Serve {
            workspace,
            worktree_local,
            demo,
            http,
            token,
            allowed_hosts,
            allowed_origins,
            allow_unauthenticated_network,
            max_sessions,
            session_idle,
            header_timeout,
            tool_style,
            settings,
        } => {
            let listen = match http.as_deref().map(http::parse_listen).transpose() {
                Ok(addr) => addr.map(|addr| http::HttpOptions {
                    token,
                    allowed_hosts,
                    allowed_origins,
                    allow_unauthenticated_network,
                    max_sessions: max_sessions as usize,
                    session_idle: Duration::from_secs(session_idle),
                    header_timeout: Duration::from_secs(header_timeout),
                    ..http::HttpOptions::new(addr)
                }),
                Err(e) => return fail(e),
            };
            let worktrees = worktree_local.then_some(docket::store::Worktrees::Local);
            serve(workspace, worktrees, demo, listen, tool_style, &settings)
        }
        Command::Init { dir, git } => init(dir, git),
        Command::Cli(command) => return docket::cli::run(*command, Cli::command),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => fail(message),
    }
}

fn fail(message: String) -> ExitCode {
    eprintln!("docket: {message}");
    ExitCode::FAILURE
}

fn init(dir: Option<PathBuf>, git: bool) -> Result<(), String> {
    let dir = dir.unwrap_or_else(|| PathBuf::from("."));
    let ws = Workspace::init(&dir).map_err(|e| e.to_string())?;
    eprintln!("docket: workspace ready at {}", ws.dir.display());
    if git {
        eprint!("{}", docket::cli::setup_lines(&ws)?);
    }
    Ok(())
}

fn serve(
    workspace: Option<PathBuf>,
    worktrees: Option<docket::store::Worktrees>,
    demo: bool,
    http: Option<http::HttpOptions>,
    tool_style: Option<ToolStyle>,
    settings: &[String],
) -> Result<(), String> {
    // Keeps the demo directory alive until the server stops.
    let demo_dir = if demo {
        Some(docket::store::fs::scratch_dir().map_err(|e| format!("cannot create a demo directory: {e}"))?)
    } else {
        None
    };
    let ws = match &demo_dir {
        Some(dir) => docket::store::generate::generate_workspace(dir.path(), 40, 7),
        // No workspace yet: serve anyway, as wrangler does; the first write creates .wrangler/.
        None => Workspace::resolve_or_pending(workspace.as_deref(), worktrees).map_err(|e| {
            format!("{e}\nRun `docket init` in your repository, pass --workspace PATH, or try `docket serve --demo`.")
        })?,
    };
    tracing::info!(workspace = %ws.dir.display(), "serving");
    if let Some(note) = ws.worktree_note() {
        eprintln!("docket: {note}");
    }
    let mut config = docket::config::Config::load(&ws.dir, settings).map_err(|e| e.to_string())?;
    if let Some(style) = tool_style {
        config.set_tool_style(style);
    }
    docket::tokens::configure(config.token_count);
    let app = App::open(ws, config);
    let store = std::sync::Arc::clone(&app.store);
    // The claims this server's sessions hold live as long as the sessions do.
    store.start_renewals();
    let runtime = tokio::runtime::Runtime::new().map_err(|e| format!("cannot start the async runtime: {e}"))?;
    if http.is_none() {
        // One line for a person who started it by hand: a silent stdio server looks hung.
        let ws = store.workspace();
        let serving = match ws.exists() {
            true => format!("serving {}", ws.dir.display()),
            false => format!("no workspace yet; the first write creates {}", ws.dir.display()),
        };
        eprintln!(
            "docket {}: {serving}; waiting for an MCP client on stdin (Ctrl-D or Ctrl-C stops)",
            env!("CARGO_PKG_VERSION")
        );
    }
    let outcome = runtime.block_on(async move {
        match http {
            Some(options) => http::serve_http(app, options, docket::web::router, transport::shutdown_signal()).await,
            None => transport::serve_stdio(app).await,
        }
    });
    // Tokio's stdin reader cannot be cancelled; exit without waiting for it.
    runtime.shutdown_background();
    // The next start reads the index snapshot instead of every file.
    store.flush();
    outcome
}
