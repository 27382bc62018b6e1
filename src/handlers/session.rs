//! session_start, session_phase, session_checkpoint, session_complete, session_get, session_status.

use super::Handlers;
use super::convert::store_error;
use crate::codes;
use crate::generated::{
    SessionCheckpointInput, SessionCheckpointOutput, SessionCompleteInput, SessionCompleteOutput,
    SessionCompleteStatus, SessionGetInput, SessionGetOutput, SessionPhaseInput, SessionPhaseOutput, SessionRecord,
    SessionStartInput, SessionStartOutput, SessionStatusInput, SessionStatusOutput, errors,
};
use crate::runtime::{ErrorCode, Reply, ToolError, ToolResult};
use crate::store::sessions::{CheckpointData, Completion, Session, SessionProgress, StartSession};
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
            errors::Template::InvalidId.name(),
            format!(
                "Invalid session ID '{id}': {reason}. Session IDs look like 2026-11-22-nogit-1a2b (session_start returns one); call session_get without sessionId for the most recent session."
            ),
        ),
        other => store_error(other),
    }
}

/// `2026-11-22-nogit-1a2b running, phase plan (2 done, 3 pending)`.
/// A session in wrangler's words (`Session: ..., Status: ..., Phase: ..., Tasks completed: N`).
fn line(s: &Session) -> String {
    format!("Session: {}, Status: {}, {}", s.id, s.status, progress(s))
}

/// Phase, task counts and PR, as wrangler's texts name them.
fn progress(s: &Session) -> String {
    format!(
        "Phase: {}, Tasks completed: {}, Tasks pending: {}{}",
        s.current_phase,
        s.tasks_completed.len(),
        s.tasks_pending.len(),
        s.pr_url.as_deref().map(|u| format!(", PR: {u}")).unwrap_or_default()
    )
}

pub fn start(cx: &Handlers, input: SessionStartInput) -> ToolResult<SessionStartOutput> {
    let store: &Store = &cx.store;
    let worktree_wanted = input.worktree;
    let req = StartSession {
        spec_file: spec_file(store, &input.spec_file, input.working_directory.as_deref()),
        working_directory: input.working_directory.map(Into::into),
        workflow: input.workflow,
        skip_checks: input.skip_checks,
        skip_step_names: input.skip_step_names.unwrap_or_default(),
        worktree: input.worktree,
    };
    let started = store.session_start(req).map_err(store_error)?;
    let s = &started.session;
    let workflow = s.workflow.clone().unwrap_or_default();
    let audit_path = started.audit_path.display().to_string();
    // wrangler's text first (an agent reads the worktree and branch from it), then the hint.
    let text = format!(
        "Session started: {}\nWorkflow: {workflow}\nWorktree: {}\nBranch: {}\nAudit log: {audit_path}\n\
         Pass sessionId '{}' to session_phase, session_checkpoint and session_complete.",
        s.id, s.worktree_path, s.branch_name, s.id
    );
    let output = SessionStartOutput {
        session: record(s),
        session_id: s.id.clone(),
        status: s.status.clone(),
        current_phase: s.current_phase.clone(),
        audit_path,
        worktree_path: s.worktree_path.clone(),
        branch_name: s.branch_name.clone(),
        worktree_created: started.worktree_created,
        workflow,
    };
    let reply = Reply::new(output).with_text(text);
    Ok(if started.in_git || !worktree_wanted {
        reply
    } else {
        reply.warn_visibly(
            codes::NO_GIT,
            "The working directory is not in a git repository: no worktree or branch was created, and the session \
             works in place (branchName 'current'). Run git init and commit, then start a new session to get one.",
        )
    })
}

/// What session_start's specFile names: a file (relative to workingDirectory or the repository
/// root), or else a spec's ID (`SPEC-000051`, what issues_list and issues_search return), read as
/// its file's path relative to that same base; anything else as given, for the not-found error.
fn spec_file(store: &Store, given: &str, working_directory: Option<&str>) -> String {
    let root = &store.workspace().root;
    let base = working_directory.map_or_else(|| root.clone(), |d| root.join(d));
    let id_like = !given.contains(['/', '\\', '.'])
        && given.split_once('-').is_some_and(|(prefix, digits)| {
            !prefix.is_empty()
                && prefix.chars().all(|c| c.is_ascii_alphabetic())
                && !digits.is_empty()
                && digits.chars().all(|c| c.is_ascii_digit())
        });
    if !id_like || base.join(given).is_file() {
        return given.to_string();
    }
    let Ok(found) = store.get_meta(given) else { return given.to_string() };
    let path = found.value.path;
    let base = base.canonicalize().unwrap_or(base);
    let path = path.canonicalize().unwrap_or(path);
    path.strip_prefix(&base).map_or_else(|_| path.display().to_string(), |p| p.to_string_lossy().replace('\\', "/"))
}

pub fn phase(cx: &Handlers, input: SessionPhaseInput) -> ToolResult<SessionPhaseOutput> {
    let store: &Store = &cx.store;
    let s = store
        .session_phase(&input.session_id, &input.phase, input.status.as_str(), input.metadata.unwrap_or_default())
        .map_err(session_error)?;
    // The store stamps the audit entry and the session with one time.
    let timestamp = s.updated_at.clone();
    let text = format!("Phase {} {} at {timestamp}: {}", input.phase, input.status, line(&s));
    let output =
        SessionPhaseOutput { session: record(&s), phase: input.phase, status: input.status.as_str().into(), timestamp };
    Ok(Reply::new(output).with_text(text))
}

pub fn checkpoint(cx: &Handlers, input: SessionCheckpointInput) -> ToolResult<SessionCheckpointOutput> {
    let store: &Store = &cx.store;
    let data = CheckpointData {
        tasks_completed: input.tasks_completed,
        tasks_pending: input.tasks_pending,
        last_action: input.last_action,
        resume_instructions: input.resume_instructions,
        variables: input.variables.unwrap_or_default(),
        step_results: input.step_results.as_ref().map(|steps| serde_json::to_value(steps).unwrap_or_default()),
    };
    let (s, checkpoint_id) = store.session_checkpoint(&input.session_id, data).map_err(session_error)?;
    let mut text = format!("Checkpoint saved: {checkpoint_id}; {}", line(&s));
    if let Some(steps) = input.step_results.as_ref().filter(|steps| !steps.is_empty()) {
        text.push_str(&format!("; Steps reported: {}", steps.len()));
    }
    let output = SessionCheckpointOutput { session: record(&s), checkpoint_id, step_results: input.step_results };
    Ok(Reply::new(output).with_text(text))
}

pub fn complete(cx: &Handlers, input: SessionCompleteInput) -> ToolResult<SessionCompleteOutput> {
    let store: &Store = &cx.store;
    let done = Completion {
        failed: input.status == SessionCompleteStatus::Failed,
        pr_url: input.pr_url,
        pr_number: input.pr_number,
        summary: input.summary,
        step_execution_summary: input
            .step_execution_summary
            .as_ref()
            .map(|s| serde_json::to_value(s).unwrap_or_default()),
    };
    let s = store.session_complete(&input.session_id, done).map_err(session_error)?;
    let end = s.completed_at.as_deref().and_then(parse_time);
    let duration_ms =
        end.zip(parse_time(&s.started_at)).map_or(0, |(end, start)| (end - start).num_milliseconds().max(0));
    // wrangler's words: `Session completed: ID`, `Duration: N minutes` (rounded, as wrangler
    // rounds; the seconds beside it), `Steps: 4/5 executed, 1 skipped`.
    let mut text = format!(
        "Session {}: {}, {}; Duration: {} minutes ({} s)",
        s.status,
        s.id,
        progress(&s),
        (duration_ms + 30_000) / 60_000,
        duration_ms / 1000
    );
    if let Some(steps) = &input.step_execution_summary {
        text.push_str(&format!(
            "; Steps: {}/{} executed, {} skipped",
            steps.executed, steps.total_steps, steps.skipped
        ));
    }
    let output = SessionCompleteOutput {
        session: record(&s),
        duration_ms,
        step_execution_summary: input.step_execution_summary,
    };
    Ok(Reply::new(output).with_text(text))
}

pub fn get(cx: &Handlers, input: SessionGetInput) -> ToolResult<SessionGetOutput> {
    let store: &Store = &cx.store;
    let (s, checkpoint) = match store.session_get(input.session_id.as_deref()) {
        Ok(found) => found,
        // Nothing incomplete is an answer, not an error, as wrangler answers it.
        Err(StoreError::SessionNotFound { id: None }) => {
            let output = SessionGetOutput { found: false, session: None, checkpoint: Some(None) };
            return Ok(Reply::new(output).with_text(
                "No incomplete sessions found. Call session_start with a specFile to begin one, or session_get with \
                 a sessionId for a finished one.",
            ));
        }
        Err(e) => return Err(session_error(e)),
    };
    let mut text = line(&s);
    if let Some(cp) = &checkpoint {
        let field = |k: &str| cp.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_string();
        text.push_str(&format!("\nLast action: {}\nResume: {}", field("lastAction"), field("resumeInstructions")));
    }
    // An explicit null without a checkpoint, as wrangler answers.
    let checkpoint = Some(checkpoint.and_then(|c| c.as_object().cloned()));
    Ok(Reply::new(SessionGetOutput { found: true, session: Some(record(&s)), checkpoint }).with_text(text))
}

pub fn status(cx: &Handlers, input: SessionStatusInput) -> ToolResult<SessionStatusOutput> {
    let store: &Store = &cx.store;
    let progress = store.session_status(input.session_id.as_deref()).map_err(|e| match e {
        StoreError::SessionNotFound { id: None } => errors::no_workflow_session(),
        other => session_error(other),
    })?;
    let SessionProgress { session: s, audit, checkpoint, blocker } = progress;
    let end = s.completed_at.as_deref().and_then(parse_time).unwrap_or_else(chrono::Utc::now);
    let duration = parse_time(&s.started_at).map_or(0, |start| (end - start).num_seconds().max(0));
    let phases_completed = completed_phases(&audit);
    let last = audit.last();
    let active_step = active_step(last);
    let last_activity = last.map(|e| {
        let mut m = serde_json::Map::new();
        for key in ["phase", "status", "timestamp"] {
            if let Some(v) = entry_field(e, key) {
                m.insert(key.into(), v.clone());
            }
        }
        m
    });
    let mut text = format!(
        "{}; Active Step: {active_step}; Phases Done: {} (from audit log); Tasks: {}/{} completed; Duration: {}; \
         Audit Entries: {}",
        line(&s),
        if phases_completed.is_empty() { "none".into() } else { phases_completed.join(", ") },
        s.tasks_completed.len(),
        s.tasks_completed.len() + s.tasks_pending.len(),
        minutes_seconds(duration),
        audit.len()
    );
    text.push_str(&format!("\nSpec: {}\nWorktree: {}\nBranch: {}", s.spec_file, s.worktree_path, s.branch_name));
    if let Some(details) =
        blocker.as_ref().map(|b| b.get("details").and_then(|d| d.as_str()).unwrap_or("unknown reason"))
    {
        text.push_str(&format!("\nBLOCKER: {details}"));
    }
    Ok(Reply::new(SessionStatusOutput {
        session: record(&s),
        duration_seconds: duration,
        active_step,
        audit_entry_count: audit.len() as i64,
        phases_completed,
        // Explicit nulls where there is nothing, as wrangler answers.
        last_activity: Some(last_activity),
        checkpoint: Some(checkpoint.and_then(|c| c.as_object().cloned())),
        blocker: Some(blocker.and_then(|b| b.as_object().cloned())),
    })
    .with_text(text))
}

/// An ISO 8601 time of a session file.
fn parse_time(t: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::parse_from_rfc3339(t).ok().map(|d| d.with_timezone(&chrono::Utc))
}

/// `42s`, `10m 5s`: a duration as wrangler's session_status writes it.
fn minutes_seconds(seconds: i64) -> String {
    match seconds {
        s if s < 60 => format!("{s}s"),
        s => format!("{}m {}s", s / 60, s % 60),
    }
}

/// The workflow phases wrangler tracks that the audit log shows complete, sorted, each once:
/// the log is the record of what happened (context.json's list also holds other phases).
fn completed_phases(audit: &[serde_json::Value]) -> Vec<String> {
    const TRACKED: [&str; 4] = ["plan", "execute", "verify", "publish"];
    let done: std::collections::BTreeSet<String> = audit
        .iter()
        .filter(|e| matches!(e.get("status").and_then(|v| v.as_str()), Some("complete" | "completed")))
        .filter_map(|e| entry_field(e, "phase").and_then(|v| v.as_str()))
        .filter(|p| TRACKED.contains(p))
        .map(str::to_string)
        .collect();
    done.into_iter().collect()
}

/// `phase`, or `step` for `phase` in the entries the workflow engine writes.
fn entry_field<'a>(entry: &'a serde_json::Value, key: &str) -> Option<&'a serde_json::Value> {
    match (entry.get(key), key) {
        (Some(v), _) => Some(v),
        (None, "phase") => entry.get("step"),
        _ => None,
    }
}

/// wrangler's reading of the last audit entry: `plan (in progress)`, `plan just completed, ...`.
fn active_step(last: Option<&serde_json::Value>) -> String {
    let Some(entry) = last else { return "unknown".into() };
    let phase = entry_field(entry, "phase").and_then(|v| v.as_str()).unwrap_or("unknown");
    match entry.get("status").and_then(|v| v.as_str()).unwrap_or("") {
        "started" => format!("{phase} (in progress)"),
        "complete" | "completed" => format!("{phase} just completed, waiting for next step"),
        "failed" => format!("{phase} FAILED"),
        other => format!("{phase} ({other})"),
    }
}
