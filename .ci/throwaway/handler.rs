
/// issues_recent: the issues updated most recently, newest first, of one status or all, updated
/// at or after `since` when it is given.
pub fn recent(
    cx: &Handlers,
    input: crate::generated::IssuesRecentInput,
) -> ToolResult<crate::generated::IssuesRecentOutput> {
    use crate::generated::{IssuesRecentStatus, errors};
    let since = match input.since.as_deref() {
        None => None,
        // A date or a time: compared as text with updatedAt (ISO 8601 sorts as it reads).
        Some(s) if chrono::NaiveDate::parse_from_str(s.get(..10).unwrap_or(s), "%Y-%m-%d").is_ok() => Some(s),
        Some(s) => return Err(errors::invalid_date("since", s)),
    };
    let status = match input.status {
        IssuesRecentStatus::Any => vec![],
        IssuesRecentStatus::Open => vec![crate::store::Status::Open],
        IssuesRecentStatus::InProgress => vec![crate::store::Status::InProgress],
        IssuesRecentStatus::Closed => vec![crate::store::Status::Closed],
        IssuesRecentStatus::Cancelled => vec![crate::store::Status::Cancelled],
    };
    let filter = IssueFilter { status, ..IssueFilter::default() };
    let snap = cx
        .store
        .list(&filter, crate::store::SortField::Updated, crate::store::SortOrder::Desc)
        .map_err(store_error)?;
    let matching: Vec<_> =
        snap.value.iter().filter(|m| since.is_none_or(|s| m.updated_at.as_str() >= s)).collect();
    let minimal = Projection::format(ListFormat::Minimal);
    let issues: Vec<_> = matching.iter().take(input.limit as usize).map(|m| minimal.record(m, None)).collect();
    let text = if issues.is_empty() {
        "No issues match; widen status or since.".to_string()
    } else {
        issues.iter().map(text::issue_line).collect::<Vec<_>>().join("\n")
    };
    let counts = ResultCounts { total: matching.len(), returned: issues.len(), truncated: matching.len() > issues.len() };
    let output = crate::generated::IssuesRecentOutput {
        total: matching.len() as i64,
        issues,
        since: input.since.clone(),
    };
    Ok(Reply::new(output).with_text(text).with_cached(snap.cached).with_results(counts))
}
