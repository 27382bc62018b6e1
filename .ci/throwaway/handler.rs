
/// issues_count: how many issues, specs and ideas the workspace holds.
pub fn total(
    cx: &Handlers,
    _: crate::generated::IssuesCountInput,
) -> ToolResult<crate::generated::IssuesCountOutput> {
    let (total, _) = cx.store.count_by(&IssueFilter::default(), GroupBy::Status).map_err(store_error)?.value;
    let output = crate::generated::IssuesCountOutput { total: total as i64 };
    Ok(Reply::new(output).with_text(format!("{total} issues.")))
}
