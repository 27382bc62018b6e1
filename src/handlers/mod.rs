//! The handwritten side of the tool layer: one method per tool of tools.yaml, implementing the
//! generated [`ToolHandlers`] trait over the [`Store`]. Each runs its store work on tokio's
//! blocking pool; the functions it calls take typed input and return typed output.

mod aggregate;
mod convert;
mod doctor;
mod issues;
mod paging;
mod records;
mod search;
mod session;
mod text;
mod workspace;
mod write;

use std::sync::Arc;

use crate::config::ResponseLimits;
use crate::error_memory::ErrorMemory;
use crate::generated::*;
use crate::runtime::{CallContext, ToolResult};
use crate::store::Store;

/// Every tool's handler, sharing one store and one error memory.
pub struct Handlers {
    store: Arc<Store>,
    memory: Arc<ErrorMemory>,
    limits: ResponseLimits,
}

impl Handlers {
    pub fn new(store: Arc<Store>, memory: Arc<ErrorMemory>, limits: ResponseLimits) -> Self {
        Handlers { store, memory, limits }
    }

    /// Runs blocking store work off the async runtime's worker threads.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Store) -> ToolResult<T> + Send + 'static,
    ) -> ToolResult<T> {
        let store = Arc::clone(&self.store);
        tokio::task::spawn_blocking(move || work(&store))
            .await
            .unwrap_or_else(|e| Err(errors::storage_failed(format!("the operation stopped unexpectedly ({e})"))))
    }
}

impl ToolHandlers for Handlers {
    async fn issues_create(&self, input: IssuesCreateInput, _: CallContext) -> ToolResult<IssuesCreateOutput> {
        self.blocking(move |s| issues::create(s, input)).await
    }
    async fn issues_list(&self, input: IssuesListInput, _: CallContext) -> ToolResult<IssuesListOutput> {
        let limits = self.limits;
        self.blocking(move |s| issues::list(s, input, &limits)).await
    }
    async fn issues_search(&self, input: IssuesSearchInput, _: CallContext) -> ToolResult<IssuesSearchOutput> {
        let limits = self.limits;
        self.blocking(move |s| search::search(s, input, &limits)).await
    }
    async fn issues_get(&self, input: IssuesGetInput, _: CallContext) -> ToolResult<IssuesGetOutput> {
        let limits = self.limits;
        self.blocking(move |s| issues::get(s, input, &limits)).await
    }
    async fn issues_update(&self, input: IssuesUpdateInput, _: CallContext) -> ToolResult<IssuesUpdateOutput> {
        self.blocking(move |s| write::update(s, input)).await
    }
    async fn issues_delete(&self, input: IssuesDeleteInput, _: CallContext) -> ToolResult<IssuesDeleteOutput> {
        self.blocking(move |s| write::delete(s, input)).await
    }
    async fn issues_labels(&self, input: IssuesLabelsInput, _: CallContext) -> ToolResult<IssuesLabelsOutput> {
        self.blocking(move |s| aggregate::labels(s, input)).await
    }
    async fn issues_metadata(&self, input: IssuesMetadataInput, _: CallContext) -> ToolResult<IssuesMetadataOutput> {
        self.blocking(move |s| aggregate::metadata(s, input)).await
    }
    async fn issues_projects(&self, input: IssuesProjectsInput, _: CallContext) -> ToolResult<IssuesProjectsOutput> {
        self.blocking(move |s| aggregate::projects(s, input)).await
    }
    async fn issues_all_complete(
        &self,
        input: IssuesAllCompleteInput,
        _: CallContext,
    ) -> ToolResult<IssuesAllCompleteOutput> {
        self.blocking(move |s| aggregate::all_complete(s, input)).await
    }
    async fn issues_mark_complete(
        &self,
        input: IssuesMarkCompleteInput,
        _: CallContext,
    ) -> ToolResult<IssuesMarkCompleteOutput> {
        self.blocking(move |s| write::mark_complete(s, input)).await
    }
    async fn issues_get_batch(&self, input: IssuesGetBatchInput, _: CallContext) -> ToolResult<IssuesGetBatchOutput> {
        let limits = self.limits;
        self.blocking(move |s| aggregate::get_batch(s, input, &limits)).await
    }
    async fn issues_update_batch(
        &self,
        input: IssuesUpdateBatchInput,
        _: CallContext,
    ) -> ToolResult<IssuesUpdateBatchOutput> {
        self.blocking(move |s| write::update_batch(s, input)).await
    }
    async fn issues_stats(&self, input: IssuesStatsInput, _: CallContext) -> ToolResult<IssuesStatsOutput> {
        self.blocking(move |s| aggregate::stats(s, input)).await
    }
    async fn session_start(&self, input: SessionStartInput, _: CallContext) -> ToolResult<SessionStartOutput> {
        self.blocking(move |s| session::start(s, input)).await
    }
    async fn session_phase(&self, input: SessionPhaseInput, _: CallContext) -> ToolResult<SessionPhaseOutput> {
        self.blocking(move |s| session::phase(s, input)).await
    }
    async fn session_checkpoint(
        &self,
        input: SessionCheckpointInput,
        _: CallContext,
    ) -> ToolResult<SessionCheckpointOutput> {
        self.blocking(move |s| session::checkpoint(s, input)).await
    }
    async fn session_complete(&self, input: SessionCompleteInput, _: CallContext) -> ToolResult<SessionCompleteOutput> {
        self.blocking(move |s| session::complete(s, input)).await
    }
    async fn session_get(&self, input: SessionGetInput, _: CallContext) -> ToolResult<SessionGetOutput> {
        self.blocking(move |s| session::get(s, input)).await
    }
    async fn session_status(&self, input: SessionStatusInput, _: CallContext) -> ToolResult<SessionStatusOutput> {
        self.blocking(move |s| session::status(s, input)).await
    }
    async fn workspace_doctor(&self, input: WorkspaceDoctorInput, _: CallContext) -> ToolResult<WorkspaceDoctorOutput> {
        self.blocking(move |s| doctor::check(s, input)).await
    }
    async fn init_workspace(&self, input: InitWorkspaceInput, _: CallContext) -> ToolResult<InitWorkspaceOutput> {
        self.blocking(move |s| workspace::init(s, input)).await
    }
    async fn errors_resolve(&self, input: ErrorsResolveInput, _: CallContext) -> ToolResult<ErrorsResolveOutput> {
        let memory = Arc::clone(&self.memory);
        tokio::task::spawn_blocking(move || resolve_pattern(&memory, input))
            .await
            .unwrap_or_else(|e| Err(errors::error_memory_unavailable(format!("the operation stopped ({e})"))))
    }
}

/// errors_resolve: attach a fix to a failure pattern.
fn resolve_pattern(memory: &ErrorMemory, input: ErrorsResolveInput) -> ToolResult<ErrorsResolveOutput> {
    match memory.resolve(input.pattern_id, &input.resolution) {
        Ok(Some(p)) => {
            let text =
                format!("Recorded the fix for pattern {} ({}, failed {} times).", p.id, p.operation, p.frequency);
            let output = ErrorsResolveOutput {
                pattern_id: p.id,
                operation: p.operation,
                frequency: p.frequency,
                resolution: input.resolution,
            };
            Ok(crate::runtime::Reply::new(output).with_text(text))
        }
        Ok(None) => Err(errors::pattern_not_found(input.pattern_id)),
        Err(why) => Err(errors::error_memory_unavailable(why)),
    }
}
