//! The handwritten side of the tool layer: [`Handlers`] implements the generated `ToolHandlers`
//! trait, one method per tool of tools.yaml, each running its function in one of the modules
//! below (which takes the [`Handlers`] context and the tool's typed input and returns its typed
//! output) on tokio's blocking pool, where its store work may block (on the caller's thread in a
//! one-shot CLI command).

pub(crate) mod aggregate;
pub(crate) mod attributes;
pub(crate) mod bodies;
mod convert;
pub(crate) mod doctor;
pub(crate) mod issues;
pub(crate) mod memory;
mod paging;
mod reading;
mod records;
pub(crate) mod search;
pub(crate) mod session;
mod text;
pub(crate) mod uri;
pub(crate) mod work;
pub(crate) mod workspace;
pub(crate) mod write;

use std::sync::Arc;

use crate::config::ResponseLimits;
use crate::error_memory::ErrorMemory;
use crate::generated::*;
use crate::runtime::{CallContext, ToolResult};
use crate::store::served::Served;

/// What every tool's handler works with: one store, one error memory, the response limits.
#[derive(Clone)]
pub struct Handlers {
    store: Arc<Served>,
    memory: Arc<ErrorMemory>,
    limits: ResponseLimits,
}

impl Handlers {
    pub fn new(store: Arc<Served>, memory: Arc<ErrorMemory>, limits: ResponseLimits) -> Self {
        Handlers { store, memory, limits }
    }
}

tokio::task_local! {
    /// The MCP session a call comes from (absent: the CLI, the board).
    pub static SESSION: Arc<crate::store::holder::Session>;
}

/// Runs a handler function as a call of the calling task's session ([`SESSION`]), which the
/// store's claims read: on the blocking pool, or on the caller's thread in a one-shot CLI
/// command ([`crate::util::spawn_blocking`], [`crate::app::App::load_one_shot`]); a handler that
/// panicked on the pool is a STORAGE_FAILED error.
async fn run<T: Send + 'static>(
    cx: &Handlers,
    work: impl FnOnce(&Handlers) -> ToolResult<T> + Send + 'static,
) -> ToolResult<T> {
    let session = SESSION.try_with(Arc::clone).ok();
    let worker = cx.clone();
    crate::util::spawn_blocking(move || crate::store::holder::within(session, || work(&worker)))
        .await
        .unwrap_or_else(|e| Err(errors::storage_failed(format!("the operation stopped unexpectedly ({e})"))))
}

impl Handlers {
    /// issues_update with blockers added and removed by the store, under its lock, to the ones the
    /// issue has when it is written ([`write::update_editing_blockers`]): an operation of the tool
    /// layer that no MCP client sees (tools.yaml has no such tool), which the CLI calls through
    /// [`crate::app::App::update_editing_blockers`].
    pub(crate) async fn issues_update_editing_blockers(
        &self,
        input: IssuesUpdateInput,
        edit: write::BlockerEdit,
    ) -> ToolResult<IssuesUpdateOutput> {
        run(self, move |h| write::update_editing_blockers(h, input, edit)).await
    }
}

/// Every tool of tools.yaml, each running its function: a tool added to the manifest fails the build,
/// naming it, until it has its method here.
#[allow(deprecated)]
impl ToolHandlers for Handlers {
    async fn issues_create(&self, input: IssuesCreateInput, _: CallContext) -> ToolResult<IssuesCreateOutput> {
        run(self, move |h| issues::create(h, input)).await
    }

    async fn issues_list(&self, input: IssuesListInput, _: CallContext) -> ToolResult<IssuesListOutput> {
        run(self, move |h| issues::list(h, input)).await
    }

    async fn issues_search(&self, input: IssuesSearchInput, _: CallContext) -> ToolResult<IssuesSearchOutput> {
        run(self, move |h| search::search(h, input)).await
    }

    async fn issues_get(&self, input: IssuesGetInput, _: CallContext) -> ToolResult<IssuesGetOutput> {
        run(self, move |h| issues::get(h, input)).await
    }

    async fn issues_update(&self, input: IssuesUpdateInput, _: CallContext) -> ToolResult<IssuesUpdateOutput> {
        run(self, move |h| write::update(h, input)).await
    }

    async fn issues_delete(&self, input: IssuesDeleteInput, _: CallContext) -> ToolResult<IssuesDeleteOutput> {
        run(self, move |h| write::delete(h, input)).await
    }

    async fn issues_labels(&self, input: IssuesLabelsInput, _: CallContext) -> ToolResult<IssuesLabelsOutput> {
        run(self, move |h| attributes::labels(h, input)).await
    }

    async fn issues_metadata(&self, input: IssuesMetadataInput, _: CallContext) -> ToolResult<IssuesMetadataOutput> {
        run(self, move |h| attributes::metadata(h, input)).await
    }

    async fn issues_projects(&self, input: IssuesProjectsInput, _: CallContext) -> ToolResult<IssuesProjectsOutput> {
        run(self, move |h| attributes::projects(h, input)).await
    }

    async fn issues_all_complete(
        &self,
        input: IssuesAllCompleteInput,
        _: CallContext,
    ) -> ToolResult<IssuesAllCompleteOutput> {
        run(self, move |h| aggregate::all_complete(h, input)).await
    }

    async fn issues_mark_complete(
        &self,
        input: IssuesMarkCompleteInput,
        _: CallContext,
    ) -> ToolResult<IssuesMarkCompleteOutput> {
        run(self, move |h| write::mark_complete(h, input)).await
    }

    async fn issues_get_batch(&self, input: IssuesGetBatchInput, _: CallContext) -> ToolResult<IssuesGetBatchOutput> {
        run(self, move |h| aggregate::get_batch(h, input)).await
    }

    async fn issues_update_batch(
        &self,
        input: IssuesUpdateBatchInput,
        _: CallContext,
    ) -> ToolResult<IssuesUpdateBatchOutput> {
        run(self, move |h| write::update_batch(h, input)).await
    }

    async fn issues_ready(&self, input: IssuesReadyInput, _: CallContext) -> ToolResult<IssuesReadyOutput> {
        run(self, move |h| work::ready(h, input)).await
    }

    async fn issues_claim(&self, input: IssuesClaimInput, _: CallContext) -> ToolResult<IssuesClaimOutput> {
        run(self, move |h| work::claim(h, input)).await
    }

    async fn issues_stats(&self, input: IssuesStatsInput, _: CallContext) -> ToolResult<IssuesStatsOutput> {
        run(self, move |h| aggregate::stats(h, input)).await
    }

    async fn session_start(&self, input: SessionStartInput, _: CallContext) -> ToolResult<SessionStartOutput> {
        run(self, move |h| session::start(h, input)).await
    }

    async fn session_phase(&self, input: SessionPhaseInput, _: CallContext) -> ToolResult<SessionPhaseOutput> {
        run(self, move |h| session::phase(h, input)).await
    }

    async fn session_checkpoint(
        &self,
        input: SessionCheckpointInput,
        _: CallContext,
    ) -> ToolResult<SessionCheckpointOutput> {
        run(self, move |h| session::checkpoint(h, input)).await
    }

    async fn session_complete(&self, input: SessionCompleteInput, _: CallContext) -> ToolResult<SessionCompleteOutput> {
        run(self, move |h| session::complete(h, input)).await
    }

    async fn session_get(&self, input: SessionGetInput, _: CallContext) -> ToolResult<SessionGetOutput> {
        run(self, move |h| session::get(h, input)).await
    }

    async fn session_status(&self, input: SessionStatusInput, _: CallContext) -> ToolResult<SessionStatusOutput> {
        run(self, move |h| session::status(h, input)).await
    }

    async fn errors_resolve(&self, input: ErrorsResolveInput, _: CallContext) -> ToolResult<ErrorsResolveOutput> {
        run(self, move |h| memory::resolve(h, input)).await
    }

    async fn workspace_doctor(&self, input: WorkspaceDoctorInput, _: CallContext) -> ToolResult<WorkspaceDoctorOutput> {
        run(self, move |h| doctor::check(h, input)).await
    }

    async fn init_workspace(&self, input: InitWorkspaceInput, _: CallContext) -> ToolResult<InitWorkspaceOutput> {
        run(self, move |h| workspace::init(h, input)).await
    }
}

#[cfg(test)]
mod tests {
    /// A one-shot command (the CLI) runs its handlers on its own thread, as
    /// [`crate::app::App::load_one_shot`] says: no blocking-pool thread to start and join.
    #[test]
    fn a_one_shot_command_runs_its_handler_on_the_callers_thread() {
        let dir = tempfile::tempdir().expect("temp dir");
        let ws = crate::store::Workspace::init(dir.path()).expect("workspace");
        let app = crate::app::App::load_one_shot(ws).expect("app");
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        let here = std::thread::current().id();
        let ran = runtime
            .block_on(super::run(&app.handlers, |_| Ok(crate::runtime::Reply::new(std::thread::current().id()))))
            .expect("ran");
        assert_eq!(ran.data, here, "the handler ran on another thread (the blocking pool)");
    }
}
