//! issues_search: every issue, title matches first, paged like issues_list.

use serde_json::json;

use super::Handlers;
use super::convert::{issue_filter, store_error};
use super::paging::{Page, Query};
use super::records::Projection;
use super::text;
use crate::codes;
use crate::config::ResponseLimits;
use crate::generated::{
    IssuesSearchInput, IssuesSearchOutput, ListFormat, ResponseFormat, SearchField, SortBy, SortOrder, errors,
};
use crate::handlers::bodies;
use crate::runtime::{Reply, ResultCounts, ToolResult, WarningCode};
use crate::store::{self, IssueFilter, SearchHit, SearchQuery};

pub fn search(cx: &Handlers, input: IssuesSearchInput) -> ToolResult<IssuesSearchOutput> {
    let (store, limits): (&store::Store, &ResponseLimits) = (&cx.store, &cx.limits);
    let f = input.filters.clone();
    let mut filter = IssueFilter::default();
    let (mut created_after, mut created_before, mut legacy_offset, mut legacy_limit) = (None, None, None, None);
    if let Some(f) = f {
        filter = IssueFilter { ids: f.ids.unwrap_or_default(), ..issue_filter(&f.issues) };
        (created_after, created_before, legacy_offset, legacy_limit) =
            (f.created_after, f.created_before, f.offset, f.limit);
    }
    let fields = match input.fields.as_deref() {
        Some(fs) if !fs.is_empty() => fs
            .iter()
            .map(|f| match f {
                SearchField::Title => store::SearchField::Title,
                SearchField::Description => store::SearchField::Description,
                SearchField::Labels => store::SearchField::Labels,
            })
            .collect(),
        _ => vec![store::SearchField::Title, store::SearchField::Description, store::SearchField::Labels],
    };
    let sort_key = format!("{}:{}", input.sort_by.map_or("relevance", |s| s.as_str()), input.sort_order);
    let query = Query::new(&sort_key, &json!([input.query, input.fields, input.filters]));
    let offset = match &input.cursor {
        Some(c) => query.offset(c).map_err(|why| errors::invalid_cursor("issues_search", why))?,
        None => legacy_offset.unwrap_or(0).max(0) as usize,
    };
    // The argument rules hold both limits to tools.yaml's minimum and maximum.
    let size = input.limit.or(legacy_limit).map_or(limits.search_page_size, |l| l as usize);
    let mut deprecated = Vec::new();
    if let Some(l) = legacy_limit {
        deprecated.push(match input.limit {
            Some(top) => format!("filters.limit is deprecated and was ignored: the top-level limit {top} applies. Pass limit only."),
            None => format!("filters.limit is deprecated; it still set this page to {l} results. Pass limit: {l} at the top level instead."),
        });
    }
    if legacy_offset.is_some() && input.cursor.is_none() {
        deprecated.push("filters.offset is deprecated; pass the cursor from the previous page instead.".to_string());
    }
    let search = SearchQuery { text: input.query.clone(), fields, filter };
    // Relevance order over every hit: the store ranks and builds only the page.
    let (hits, total, cached, warnings) =
        if input.sort_by.is_none() && created_after.is_none() && created_before.is_none() {
            let snap = store.search_page(&search, offset, size).map_err(store_error)?;
            (snap.value.hits, snap.value.total, snap.cached, snap.warnings)
        } else {
            let snap = store.search(&search).map_err(store_error)?;
            let mut hits: Vec<SearchHit> = snap
                .value
                .into_iter()
                .filter(|h| created_after.as_deref().is_none_or(|a| h.meta.created_at.as_str() >= a))
                .filter(|h| created_before.as_deref().is_none_or(|b| h.meta.created_at.as_str() < b))
                .collect();
            sort(&mut hits, offset.saturating_add(size), input.sort_by, input.sort_order);
            let total = hits.len();
            let page: Vec<SearchHit> = hits.into_iter().skip(offset).take(size).collect();
            (page, total, snap.cached, snap.warnings)
        };
    let page = Page::new(offset, size, total);
    // Minimal rows by default: a page of hits costs what a page of issues_list minimal costs.
    let excerpts = input.include_description || input.format == ListFormat::Full;
    // A sort key the rows do not show would leave the order unexplained: sorted pages are summary rows.
    let projection = Projection::format(match (input.format, input.sort_by) {
        (ListFormat::Minimal, None) => ListFormat::Minimal,
        _ => ListFormat::Summary,
    });
    let issues: Vec<_> = hits
        .iter()
        .map(|h| {
            let mut r = projection.record(&h.meta, None);
            if excerpts {
                r.excerpt = store.excerpt(&h.meta, &input.query).map(|e| bodies::shown(&e).into_owned());
            }
            r
        })
        .collect();
    let next = (page.remaining() > 0).then(|| query.cursor(page.offset + page.len));
    // Rows (one line each) unless excerpts make records of the hits.
    let rows: Option<Vec<String>> = (!excerpts).then(|| issues.iter().map(text::issue_line).collect());
    let text = match input.response_format {
        ResponseFormat::Json => None,
        ResponseFormat::Markdown => {
            let mut lines: Vec<String> = match &rows {
                Some(rows) => rows.clone(),
                None => issues
                    .iter()
                    .map(|r| match &r.excerpt {
                        Some(e) => format!("{}\n  > {}", text::issue_line(r), e.replace('\n', " ")),
                        None => text::issue_line(r),
                    })
                    .collect(),
            };
            lines.push(match page.total {
                0 => format!(
                    "No issue matches {}. Try fewer or shorter words, or issues_list with filters.",
                    serde_json::Value::from(input.query.as_str())
                ),
                _ => text::page_line("matches", issues.len(), page.total, page.remaining(), next.as_deref()),
            });
            Some(lines.join("\n"))
        }
    };
    let counts = ResultCounts { total: page.total, returned: issues.len(), truncated: page.remaining() > 0 };
    let output = IssuesSearchOutput {
        issues: rows.is_none().then_some(issues),
        rows,
        total_count: page.total as i64,
        next: text::next_page(page.remaining(), next.as_deref()),
        next_cursor: next,
    };
    // Each field once: `fields` may repeat one 100,000 times, and the context must not.
    let searched = input.fields.as_ref().map(|given| {
        given.iter().fold(Vec::new(), |mut once, f| {
            if !once.contains(f) {
                once.push(*f);
            }
            once
        })
    });
    let context = json!({"sort": sort_key, "page_size": size, "offset": page.offset, "fields_searched": searched});
    let mut reply = Reply::new(output).with_cached(cached).with_results(counts).with_context(context);
    reply.text = text;
    let reply = deprecated.into_iter().fold(reply, |r, w| r.warn_visibly(WarningCode::DEPRECATED_PARAMETER, w));
    Ok(warnings.into_iter().fold(reply, |r, w| r.warn(codes::of_store(w.code), w.message)))
}

/// Relevance (score, then newest, then ID) unless a sort key is given (then ID breaks ties).
/// Only the first `needed` hits are put in order: the rest are never shown on this page.
fn sort(hits: &mut [SearchHit], needed: usize, by: Option<SortBy>, order: SortOrder) {
    let cmp = |a: &SearchHit, b: &SearchHit| {
        let Some(by) = by else {
            return b
                .score
                .cmp(&a.score)
                .then_with(|| b.meta.updated_at.cmp(&a.meta.updated_at))
                .then_with(|| a.meta.id.cmp(&b.meta.id))
                .then_with(|| a.meta.path.cmp(&b.meta.path));
        };
        let ord = match by {
            SortBy::Created => a.meta.created_at.cmp(&b.meta.created_at),
            SortBy::Updated => a.meta.updated_at.cmp(&b.meta.updated_at),
            SortBy::Priority => a.meta.priority.cmp(&b.meta.priority),
            SortBy::Status => a.meta.status.cmp(&b.meta.status),
        };
        let ord = if order == SortOrder::Desc { ord.reverse() } else { ord };
        ord.then_with(|| a.meta.id.cmp(&b.meta.id)).then_with(|| a.meta.path.cmp(&b.meta.path))
    };
    if needed > 0 && needed < hits.len() {
        hits.select_nth_unstable_by(needed - 1, cmp);
        hits[..needed].sort_by(cmp);
    } else {
        hits.sort_by(cmp);
    }
}
