//! session_start, session_phase, session_checkpoint, session_complete, session_get, session_status.

use super::convert::store_error;
use crate::generated::{
    SessionCheckpointInput, SessionCheckpointOutput, SessionCompleteInput, SessionCompleteOutput,
    SessionCompleteStatus, SessionGetInput, SessionGetOutput, SessionPhaseInput, SessionPhaseOutput, SessionRecord,
    SessionStartInput, SessionStartOutput, SessionStatusInput, SessionStatusOutput, errors,
};
use crate::runtime::{ErrorCode, Reply, ToolError, ToolResult};
use crate::store::sessions::{CheckpointData, Completion, Session, StartSession};
use crate::store::{Store, StoreError};

fn record(s: &Session) -> SessionRecord {
    let non_empty = |v: &str| (!v.is_empty()).then(|| v.to_string());
    SessionRecord {
        session_id: s.id.clone(),
        spec_file: non_empty(&s.spec_file),
        status: non_empty(&s.status),
        current_phase: non_empty(&s.current_phase),
        workflow: s.workflow.clone(),
        worktree_path: non_empty(&s.worktree_path),
        branch_name: non_empty(&s.branch_name),
        phases_completed: Some(s.phases_completed.clone()),
        tasks_completed: Some(s.tasks_completed.clone()),
        tasks_pending: Some(s.tasks_pending.clone()),
        started_at: non_empty(&s.started_at),
        updated_at: non_empty(&s.updated_at),
        completed_at: s.completed_at.clone(),
        pr_url: s.pr_url.clone(),
        pr_number: s.pr_number,
    }
}

/// A store error of a call naming a session: an invalid ID is a session ID, not an issue ID.
fn session_error(e: StoreError) -> ToolError {
    match e {
        StoreError::InvalidId { id, reason } => ToolError::new(
            ErrorCode::InvalidArgument,
            "invalid_id",
            format!(
                "Invalid session ID '{id}': {reason}. Session IDs look like 2026-11-22-nogit-1a2b (session_start returns one); call session_get without sessionId for the most recent session."
            ),
        ),
        other => store_error(other),
    }
}

/// `2026-11-22-nogit-1a2b running, phase plan (2 done, 3 pending)`.
fn line(s: &Session) -> String {
    format!(
        "{} {}, phase {} ({} tasks done, {} pending){}",
        s.id,
        s.status,
        s.current_phase,
        s.tasks_completed.len(),
        s.tasks_pending.len(),
        s.pr_url.as_deref().map(|u| format!(", PR {u}")).unwrap_or_default()
    )
}

pub fn start(store: &Store, input: SessionStartInput) -> ToolResult<SessionStartOutput> {
    let req = StartSession {
        spec_file: input.spec_file,
        working_directory: input.working_directory.map(Into::into),
        workflow: input.workflow,
        skip_checks: input.skip_checks,
        skip_step_names: input.skip_step_names.unwrap_or_default(),
        worktree: input.worktree,
    };
    let s = store.session_start(req).map_err(store_error)?;
    let text = format!(
        "Started session {}. Pass sessionId '{}' to session_phase, session_checkpoint and session_complete.",
        line(&s),
        s.id
    );
    Ok(Reply::new(SessionStartOutput { session: record(&s) }).with_text(text))
}

pub fn phase(store: &Store, input: SessionPhaseInput) -> ToolResult<SessionPhaseOutput> {
    let s = store
        .session_phase(&input.session_id, &input.phase, input.status.as_str(), input.metadata.unwrap_or_default())
        .map_err(session_error)?;
    let text = format!("Phase {} {}: {}", input.phase, input.status, line(&s));
    Ok(Reply::new(SessionPhaseOutput { session: record(&s) }).with_text(text))
}

pub fn checkpoint(store: &Store, input: SessionCheckpointInput) -> ToolResult<SessionCheckpointOutput> {
    let data = CheckpointData {
        tasks_completed: input.tasks_completed,
        tasks_pending: input.tasks_pending,
        last_action: input.last_action,
        resume_instructions: input.resume_instructions,
        variables: input.variables.unwrap_or_default(),
        step_results: input.step_results.map(|steps| serde_json::to_value(steps).unwrap_or_default()),
    };
    let s = store.session_checkpoint(&input.session_id, data).map_err(session_error)?;
    Ok(Reply::new(SessionCheckpointOutput { session: record(&s) }).with_text(format!("Checkpoint saved: {}", line(&s))))
}

pub fn complete(store: &Store, input: SessionCompleteInput) -> ToolResult<SessionCompleteOutput> {
    let done = Completion {
        failed: input.status == SessionCompleteStatus::Failed,
        pr_url: input.pr_url,
        pr_number: input.pr_number,
        summary: input.summary,
        step_execution_summary: input.step_execution_summary.map(|s| serde_json::to_value(s).unwrap_or_default()),
    };
    let s = store.session_complete(&input.session_id, done).map_err(session_error)?;
    Ok(Reply::new(SessionCompleteOutput { session: record(&s) }).with_text(format!("Session ended: {}", line(&s))))
}

pub fn get(store: &Store, input: SessionGetInput) -> ToolResult<SessionGetOutput> {
    let (s, checkpoint) = store.session_get(input.session_id.as_deref()).map_err(session_error)?;
    let mut text = line(&s);
    if let Some(cp) = &checkpoint {
        let field = |k: &str| cp.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_string();
        text.push_str(&format!("\nLast action: {}\nResume: {}", field("lastAction"), field("resumeInstructions")));
    }
    let checkpoint = checkpoint.and_then(|c| c.as_object().cloned());
    Ok(Reply::new(SessionGetOutput { session: record(&s), checkpoint }).with_text(text))
}

pub fn status(store: &Store, input: SessionStatusInput) -> ToolResult<SessionStatusOutput> {
    let s = store.session_status(input.session_id.as_deref()).map_err(|e| match e {
        StoreError::SessionNotFound { id: None } => errors::no_session("workflow"),
        other => session_error(other),
    })?;
    let parse = |t: &str| chrono::DateTime::parse_from_rfc3339(t).ok().map(|d| d.with_timezone(&chrono::Utc));
    let end = s.completed_at.as_deref().and_then(parse).unwrap_or_else(chrono::Utc::now);
    let duration = parse(&s.started_at).map_or(0, |start| (end - start).num_seconds().max(0));
    let text = format!(
        "{}; phases done: {}; {duration} s",
        line(&s),
        if s.phases_completed.is_empty() { "none".into() } else { s.phases_completed.join(", ") }
    );
    Ok(Reply::new(SessionStatusOutput { session: record(&s), duration_seconds: duration }).with_text(text))
}
