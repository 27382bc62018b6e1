//! Between the store's types (which know nothing of MCP) and the generated tool types.
//! Exhaustive matches: a value added on either side fails to compile until mapped here.

use crate::generated::{IssueFilters, IssuePriority, IssueStatus, IssueType, errors};
use crate::runtime::{ErrorCode, ToolError};
use crate::store;

/// The store's filter for the issue filters issues_list, issues_stats and issues_search share.
pub fn issue_filter(f: &IssueFilters) -> store::IssueFilter {
    let mut types: Vec<_> = f.types.iter().flatten().map(|t| issue_type(*t)).collect();
    types.extend(f.r#type.map(issue_type));
    store::IssueFilter {
        status: f.status.iter().flatten().map(|s| status(*s)).collect(),
        priority: f.priority.iter().flatten().map(|p| priority(*p)).collect(),
        labels: f.labels.clone().unwrap_or_default(),
        assignee: f.assignee.clone(),
        project: f.project.clone(),
        types,
        parent_task_id: f.parent_task_id.clone(),
        ids: Vec::new(),
        blocked: f.blocked,
    }
}

pub fn status(s: IssueStatus) -> store::Status {
    match s {
        IssueStatus::Open => store::Status::Open,
        IssueStatus::InProgress => store::Status::InProgress,
        IssueStatus::Closed => store::Status::Closed,
        IssueStatus::Cancelled => store::Status::Cancelled,
    }
}

pub fn status_out(s: store::Status) -> IssueStatus {
    match s {
        store::Status::Open => IssueStatus::Open,
        store::Status::InProgress => IssueStatus::InProgress,
        store::Status::Closed => IssueStatus::Closed,
        store::Status::Cancelled => IssueStatus::Cancelled,
    }
}

pub fn priority(p: IssuePriority) -> store::Priority {
    match p {
        IssuePriority::Low => store::Priority::Low,
        IssuePriority::Medium => store::Priority::Medium,
        IssuePriority::High => store::Priority::High,
        IssuePriority::Critical => store::Priority::Critical,
    }
}

pub fn priority_out(p: store::Priority) -> IssuePriority {
    match p {
        store::Priority::Low => IssuePriority::Low,
        store::Priority::Medium => IssuePriority::Medium,
        store::Priority::High => IssuePriority::High,
        store::Priority::Critical => IssuePriority::Critical,
    }
}

pub fn issue_type(t: IssueType) -> store::IssueType {
    match t {
        IssueType::Issue => store::IssueType::Issue,
        IssueType::Specification => store::IssueType::Specification,
        IssueType::Idea => store::IssueType::Idea,
    }
}

pub fn issue_type_out(t: store::IssueType) -> IssueType {
    match t {
        store::IssueType::Issue => IssueType::Issue,
        store::IssueType::Specification => IssueType::Specification,
        store::IssueType::Idea => IssueType::Idea,
    }
}

/// The agent-facing error for a store failure, from the manifest's templates.
pub fn store_error(e: store::StoreError) -> ToolError {
    match e {
        store::StoreError::NotFound { id } => errors::not_found(id),
        store::StoreError::InvalidId { id, reason } => errors::invalid_id(id, reason),
        store::StoreError::Ambiguous { id, paths } => {
            let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
            errors::ambiguous_id(id, paths.join(", "))
        }
        store::StoreError::SessionNotFound { id: Some(id) } => errors::session_not_found(id),
        store::StoreError::SessionNotFound { id: None } => errors::no_session("incomplete"),
        store::StoreError::SpecNotFound { path } => errors::spec_file_not_found(path.display()),
        store::StoreError::OutsideWorkspace { param, path, root } => {
            errors::path_outside_workspace(param, path.display(), root.display())
        }
        store::StoreError::Git { details } => errors::git_failed(details),
        store::StoreError::Io { path, source } if is_disk_full(&source) => ToolError::new(
            ErrorCode::Internal,
            errors::Template::StorageFailed.name(),
            format!(
                "The disk is full: {} could not be written ({}). Free space on the disk that holds the workspace (or raise the quota), then retry.",
                path.display(),
                source.kind()
            ),
        ),
        store::StoreError::Refused { path, reason } => errors::file_refused(path.display(), reason),
        e @ store::StoreError::CloseStood { .. } => {
            ToolError::new(ErrorCode::Conflict, errors::Template::FileNotEditable.name(), format!("{e}."))
        }
        e @ store::StoreError::Conflict { .. } => errors::edit_conflict(e),
        store::StoreError::BadBlocker { id, blocker, reason } => errors::invalid_blocker(id, blocker, reason),
        store::StoreError::Cycle { id, cycle } => errors::blocker_cycle(id, cycle),
        store::StoreError::ClaimRefused { id, reason } => errors::claim_conflict(id, reason),
        store::StoreError::Stale { id, current, expected } => errors::stale_update(id, current, expected),
        store::StoreError::StaleVersion { id, current, expected } => errors::stale_version(id, current, expected),
        e @ (store::StoreError::NotEditable { .. }
        | store::StoreError::Unwritable { .. }
        | store::StoreError::ClaimLost { .. }) => errors::file_not_editable(e),
        other => errors::storage_failed(other),
    }
}

/// ENOSPC or EDQUOT, however the error was wrapped.
fn is_disk_full(e: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(e.kind(), ErrorKind::StorageFull | ErrorKind::QuotaExceeded) || e.raw_os_error() == Some(28)
}
