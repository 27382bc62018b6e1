//! The web board: a live kanban of the workspace for people, served at `/` beside `/mcp` by
//! `docket serve --http`, or alone by `docket web`. Plain HTML, CSS and JavaScript embedded in
//! the binary (no build step); a JSON API over the same [`App`] the MCP server uses; server-sent
//! events when anything changes. See [`guard`] for who may use it.

mod answer;
mod api;
mod assets;
mod chart;
mod edit;
mod guard;
mod live;
mod problems;
mod query;
pub mod render;
mod standalone;
mod views;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::routing::{get, post, put};
use tokio_util::sync::CancellationToken;

pub use guard::Access;
pub use standalone::{WebOptions, run};

use crate::app::App;

/// What every handler shares.
pub struct Web {
    app: App,
    live: Arc<live::Live>,
    /// Cancelled when the server stops: ends the event streams of open boards.
    cancel: CancellationToken,
    calls: AtomicU64,
}

impl Web {
    fn next_call(&self) -> u64 {
        self.calls.fetch_add(1, Ordering::Relaxed) + 1
    }
}

/// The board's routes: the page at `/` (and `/issues/{id}`, `/list`, `/stats`, `/problems`), its
/// assets, `/api/*`. Must be
/// built inside the tokio runtime (it starts the change poller); `cancel` ends open event
/// streams when the server stops.
pub fn router(app: App, access: Access, cancel: CancellationToken) -> Router {
    let live = live::Live::start(Arc::clone(&app.store), cancel.clone());
    let web = Arc::new(Web { app, live, cancel, calls: AtomicU64::new(0) });
    Router::new()
        .route("/", get(assets::page))
        .route("/issues/{id}", get(assets::page))
        .route("/list", get(assets::page))
        .route("/stats", get(assets::page))
        .route("/problems", get(assets::page))
        .route("/assets/{file}", get(assets::file))
        .route("/api/board", get(api::board))
        .route("/api/column", get(api::column))
        .route("/api/list", get(views::list))
        .route("/api/stats", get(views::stats))
        .route("/api/problems", get(problems::list))
        .route("/api/problems/fix", post(api::fix_problems))
        .route("/api/preview", post(edit::preview))
        .route("/api/issues", post(api::create))
        .route("/api/issues/{id}", get(api::issue).patch(api::update))
        .route("/api/issues/{id}/description", put(edit::description))
        .route("/api/issues/{id}/task", post(edit::task))
        .route("/api/events", get(live::events))
        .with_state(web)
        .layer(axum::middleware::from_fn_with_state(guard::Guard::new(access), guard::check))
}
