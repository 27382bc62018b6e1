//! Tools that read many issues from the index: issues_get_batch, issues_stats,
//! issues_all_complete. (The label, project and metadata tools are in `attributes`.)

use super::Handlers;
use super::convert::{issue_filter, issue_type, store_error};
use super::reading;
use super::records::Projection;
use super::text;
use crate::codes;
use crate::config::ResponseLimits;
use crate::generated::{
    CountEntry, IssuesAllCompleteInput, IssuesAllCompleteOutput, IssuesGetBatchInput, IssuesGetBatchOutput,
    IssuesStatsInput, IssuesStatsOutput, ListFormat, ResponseFormat, StatsGroupBy, limits,
};
use crate::runtime::{Reply, ResultCounts, ToolResult};
use crate::store::{GroupBy, IssueFilter, Store, StoreError, Unfinished};
use serde_json::{Value, json};

pub fn get_batch(cx: &Handlers, input: IssuesGetBatchInput) -> ToolResult<IssuesGetBatchOutput> {
    let (store, limits): (&Store, &ResponseLimits) = (&cx.store, &cx.limits);
    let per_item =
        (limits.character_limit / input.ids.len().max(1)).max(limits::issues_get_batch::MIN_DESCRIPTION_CHARS);
    let projection = match input.fields.as_deref() {
        None => Projection::whole(),
        fields => Projection::fields(fields),
    }
    .paths_from(&store.workspace().root)
    .limit(per_item);
    let request = reading::Request {
        outline: input.outline.unwrap_or(false),
        section: input.section.as_deref(),
        ..reading::Request::default()
    };
    let mut issues = Vec::new();
    let mut not_found = Vec::new();
    let mut reply_warnings = Vec::new();
    let mut notes = Vec::new();
    let mut part_warnings = Vec::new();
    let mut cached = true;
    for id in &input.ids {
        let found = if request.is_structured() {
            match store.get(id) {
                Ok(s) => {
                    let part = super::issues::part_record(
                        &s.value.meta,
                        &s.value.body,
                        input.fields.as_deref(),
                        &request,
                        per_item,
                        &store.workspace().root,
                    )?;
                    notes.push(part.note);
                    part_warnings.extend(part.warnings);
                    Ok((part.record, s.cached))
                }
                Err(e) => Err(e),
            }
        } else if projection.needs_body() {
            store.get(id).map(|s| (projection.record(&s.value.meta, Some(&s.value.body)), s.cached))
        } else {
            store.get_meta(id).map(|s| (projection.record(&s.value, None), s.cached))
        };
        match found {
            Ok((record, from_index)) => {
                cached &= from_index;
                issues.push(record);
            }
            Err(StoreError::NotFound { .. }) => not_found.push(id.clone()),
            Err(e) => {
                reply_warnings.push(store_error(e).message);
                // An invalid ID may be a megabyte long: it comes back clipped (IDs have at most 100
                // characters).
                not_found.push(crate::util::clip(id, 100));
            }
        }
    }
    let text = match input.response_format {
        ResponseFormat::Json => None,
        ResponseFormat::Markdown => {
            let mut parts: Vec<String> = if request.is_structured() {
                issues.iter().zip(&notes).map(|(r, n)| reading::document(r, n.as_deref())).collect()
            } else if projection.needs_body() {
                issues.iter().map(text::issue_document).collect()
            } else {
                issues.iter().map(text::issue_line).collect()
            };
            if !not_found.is_empty() {
                parts.push(format!(
                    "Not found: {}. Check the IDs with issues_list or issues_search.",
                    not_found.join(", ")
                ));
            }
            Some(parts.join(if projection.needs_body() || request.is_structured() { "\n\n---\n\n" } else { "\n" }))
        }
    };
    let counts = ResultCounts { total: input.ids.len(), returned: issues.len(), truncated: false };
    let links: Vec<_> =
        issues.iter().filter(|r| r.truncated.is_some()).map(|r| super::issues::link_to(&r.id)).collect();
    let mut reply = Reply::new(IssuesGetBatchOutput { issues, not_found }).with_cached(cached).with_results(counts);
    reply.text = text;
    let reply = links.into_iter().fold(reply, super::issues::with_whole_body);
    let reply = part_warnings.into_iter().fold(reply, |r, (code, w)| r.warn_visibly(code, w));
    Ok(reply_warnings.into_iter().fold(reply, |r, w| r.warn(codes::ID_PROBLEM, w)))
}

/// What a count by labels says about its sums.
pub const LABELS_COUNTED: &str = "An issue with several labels counts once under each";

pub fn stats(cx: &Handlers, input: IssuesStatsInput) -> ToolResult<IssuesStatsOutput> {
    let store: &Store = &cx.store;
    let filter = issue_filter(&input.filters);
    let by = match input.group_by {
        StatsGroupBy::Status => Some(GroupBy::Status),
        StatsGroupBy::Priority => Some(GroupBy::Priority),
        StatsGroupBy::Type => Some(GroupBy::Type),
        StatsGroupBy::Project => Some(GroupBy::Project),
        StatsGroupBy::Assignee => Some(GroupBy::Assignee),
        StatsGroupBy::Labels => None,
    };
    let snap = match by {
        Some(by) => store.count_by(&filter, by),
        None => store.count_labels(&filter),
    }
    .map_err(store_error)?;
    // Files without frontmatter (a README, notes) are not issues: said, not counted.
    let plain = store.plain_files().map_err(store_error)?;
    let (total, counted) = snap.value;
    let mut groups: Vec<CountEntry> = counted
        .into_iter()
        .map(|(key, n)| CountEntry { key: key.unwrap_or_else(|| "(none)".to_string()), count: n as i64 })
        .collect();
    groups.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key)));
    let cached = snap.cached;
    let text = match input.response_format {
        ResponseFormat::Json => None,
        ResponseFormat::Markdown => {
            let mut text = format!(
                "{} issues by {}: {}",
                total,
                input.group_by,
                groups.iter().map(|g| format!("{} {}", g.key, g.count)).collect::<Vec<_>>().join(", ")
            );
            if input.group_by == StatsGroupBy::Labels {
                text.push_str(&format!(
                    ". {LABELS_COUNTED} ({} counts in all for {total} issues).",
                    groups.iter().map(|g| g.count).sum::<i64>()
                ));
            }
            if plain > 0 {
                text.push_str(&format!(" {plain} file(s) without frontmatter are not issues and not counted."));
            }
            Some(text)
        }
    };
    let counts = ResultCounts { total: groups.len(), returned: groups.len(), truncated: false };
    let output = IssuesStatsOutput { group_by: input.group_by.to_string(), total: total as i64, groups };
    let mut reply = Reply::new(output).with_cached(cached).with_results(counts);
    reply.text = text;
    Ok(reply)
}

pub fn all_complete(cx: &Handlers, input: IssuesAllCompleteInput) -> ToolResult<IssuesAllCompleteOutput> {
    let store: &Store = &cx.store;
    let filter = IssueFilter {
        ids: input.issue_ids.unwrap_or_default(),
        parent_task_id: input.parent_task_id,
        labels: input.labels.unwrap_or_default(),
        project: input.project,
        // Without types, issues only (not specifications or ideas), as wrangler checks.
        types: match input.types {
            None => vec![crate::store::IssueType::Issue],
            Some(types) => types.iter().map(|t| issue_type(*t)).collect(),
        },
        ..IssueFilter::default()
    };
    // Both totals from the kept counts where they tell them; only the rows shown are built.
    let minimal = Projection::format(ListFormat::Minimal);
    // Named IDs bound the answer themselves (and issues_list cannot name them to page through).
    let shown = match filter.ids.len() {
        0 => limits::issues_all_complete::MAX_ROWS,
        n => n,
    };
    let snap = store.unfinished(&filter, shown, |m| minimal.record(m, None)).map_err(store_error)?;
    let (Unfinished { rows: incomplete, count, total }, cached) = (snap.value, snap.cached);
    let rest = count.saturating_sub(incomplete.len());
    let next = (rest > 0).then(|| {
        let mut args = serde_json::Map::new();
        args.insert("status".into(), json!(["open", "in_progress"]));
        for (key, value) in [
            ("labels", json!(filter.labels)),
            ("types", json!(filter.types.iter().map(|t| t.as_str()).collect::<Vec<_>>())),
        ] {
            if value.as_array().is_some_and(|a| !a.is_empty()) {
                args.insert(key.into(), value);
            }
        }
        let named =
            [("parentTaskId", &filter.parent_task_id), ("project", &filter.project), ("assignee", &filter.assignee)];
        for (key, value) in named {
            if let Some(v) = value {
                args.insert(key.into(), json!(v));
            }
        }
        args.insert("format".into(), json!("minimal"));
        format!("{rest} more not complete: issues_list {} pages through them all.", Value::Object(args))
    });
    // Nothing matching is not "all complete" (wrangler's rule): a wrong filter must not end a wait.
    let text = if total == 0 {
        "No issues match these filters, so allComplete is false; check the IDs, parentTaskId, labels or types."
            .to_string()
    } else if count == 0 {
        format!("All {total} matching issues are complete.")
    } else {
        let mut lines = vec![match rest {
            0 => format!("{count} of {total} matching issues are not complete:"),
            _ => format!("{count} of {total} matching issues are not complete; the first {}:", incomplete.len()),
        }];
        lines.extend(incomplete.iter().map(text::issue_line));
        lines.extend(next.clone());
        lines.join("\n")
    };
    let counts = ResultCounts { total: count, returned: incomplete.len(), truncated: rest > 0 };
    let output = IssuesAllCompleteOutput {
        all_complete: total > 0 && count == 0,
        total: total as i64,
        incomplete_count: count as i64,
        incomplete,
        next,
    };
    Ok(Reply::new(output).with_text(text).with_cached(cached).with_results(counts))
}
