//! MCP resources: `docket://issues/{id}` (the whole file), `.../chunk/{start}-{end}` (a
//! character slice of the description), `.../structure` (its heading outline), `docket://board`
//! and `docket://config`; paginated listing, templates and completion of `{id}`.

use rmcp::ErrorData;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, CompletionInfo, ListResourceTemplatesResult, ListResourcesResult, Reference,
    Resource, ResourceContents, ResourceTemplate,
};
use serde_json::json;

use crate::config::Config;
use crate::error_memory::ErrorMemory;
use crate::handlers::bodies;
use crate::handlers::uri::ResourceUri;
use crate::store::{IssueFilter, SortField, SortOrder, Status, Store, StoreError};

const PAGE: usize = 50;
/// The longest resource URI read or subscribed to, in bytes.
pub const MAX_URI: usize = 2048;
const MAX_CHUNK: usize = 100_000;
const FORMS: &str = "docket://issues/{id}, docket://issues/{id}/chunk/{start}-{end}, docket://issues/{id}/structure, docket://board, docket://config, docket://errors/recent";

/// `uri` for an error message: at most 100 characters of it.
pub fn shown(uri: &str) -> String {
    crate::util::clip_saying(uri, 100, crate::util::Whole::Bytes)
}

/// Refuses a URI longer than [`MAX_URI`] bytes.
pub fn check_uri(uri: &str) -> Result<(), ErrorData> {
    if uri.len() <= MAX_URI {
        return Ok(());
    }
    Err(ErrorData::invalid_params(
        format!(
            "Resource URI {} is longer than {MAX_URI} bytes, the most docket accepts. Valid forms: {FORMS}.",
            shown(uri)
        ),
        None,
    ))
}

fn not_found(uri: &str, why: String) -> ErrorData {
    ErrorData::resource_not_found(why, Some(json!({ "uri": shown(uri) })))
}

fn store_failure(uri: &str, e: StoreError) -> ErrorData {
    match e {
        StoreError::NotFound { id } => not_found(
            uri,
            format!(
                "Issue {id} not found. Call issues_list or issues_search for IDs, or complete {{id}} in docket://issues/{{id}}."
            ),
        ),
        StoreError::InvalidId { id, reason } => {
            ErrorData::invalid_params(format!("Invalid issue ID '{}' in {}: {reason}.", shown(&id), shown(uri)), None)
        }
        other => ErrorData::internal_error(format!("Reading {} failed: {other}", shown(uri)), None),
    }
}

/// Reads one resource.
pub fn read(store: &Store, memory: &ErrorMemory, settings: &Config, uri: &str) -> Result<ResourceContents, ErrorData> {
    check_uri(uri)?;
    let target = ResourceUri::parse(uri)
        .ok_or_else(|| not_found(uri, format!("Unknown resource URI '{}'. Valid forms: {FORMS}.", shown(uri))))?;
    let text = |t: String, mime: &str| Ok(ResourceContents::text(t, uri).with_mime_type(mime));
    match target {
        ResourceUri::Issue(id) => {
            let meta = store.get_meta(id).map_err(|e| store_failure(uri, e))?.value;
            let file = store.read_file(&meta).map_err(|e| store_failure(uri, e))?;
            text(file, "text/markdown")
        }
        ResourceUri::Chunk(id, range) => {
            let body = store.get(id).map_err(|e| store_failure(uri, e))?.value.body;
            let body = bodies::shown(&body);
            let total = body.chars().count();
            let (start, end) = range_of(range, total).map_err(|why| {
                ErrorData::invalid_params(
                    format!("Invalid range '{}' in {}: {why}. The description has {total} characters; ask for {{start}}-{{end}} with start < end <= {total} and at most {MAX_CHUNK} characters, or read docket://issues/{id}/structure for section offsets.", shown(range), shown(uri)),
                    None,
                )
            })?;
            text(bodies::slice(&body, start, end), "text/markdown")
        }
        ResourceUri::Structure(id) => {
            let body = store.get(id).map_err(|e| store_failure(uri, e))?.value.body;
            let body = bodies::shown(&body);
            text(structure(id, &body).to_string(), "application/json")
        }
        ResourceUri::Board => text(board(store).map_err(|e| store_failure(uri, e))?, "text/markdown"),
        ResourceUri::ErrorsRecent => {
            let patterns = memory
                .recent(50)
                .map_err(|why| ErrorData::internal_error(format!("The error memory is unavailable: {why}"), None))?;
            let s = memory.settings();
            let body = json!({"preflightThreshold": s.preflight_threshold, "windowDays": s.window_days, "retentionDays": s.retention_days, "patterns": patterns});
            text(body.to_string(), "application/json")
        }
        ResourceUri::Config => {
            let info = store.index_info();
            let mut config = settings.describe();
            // Absolute, so a path built from it means the same whatever directory the server
            // was started in (`--workspace target/ws` is relative to that directory).
            let dir = &store.workspace().dir;
            let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
            config["workspace"] = json!(dir.display().to_string());
            config["index"] = json!({"enabled": info.enabled, "entries": info.entries});
            config["version"] = json!(env!("CARGO_PKG_VERSION"));
            text(config.to_string(), "application/json")
        }
    }
}

/// The headings of a body with their offsets, as many as fit in [`MAX_CHUNK`] characters of
/// JSON (a body of a million headings answers with the first ones, and how many there are).
fn structure(id: &str, body: &str) -> serde_json::Value {
    let sections = bodies::outline(body);
    let (mut shown, mut size) = (Vec::new(), 0);
    for s in &sections {
        let v = json!(s);
        size += v.to_string().len() + 1;
        if size > MAX_CHUNK {
            break;
        }
        shown.push(v);
    }
    let (n, total) = (shown.len(), sections.len());
    let mut out = json!({"id": id, "length": body.chars().count(), "sections": shown});
    if n < total {
        out["sectionsTotal"] = json!(total);
        out["note"] = json!(format!(
            "the first {n} of {total} headings; issues_get with section (a heading) reads one part, with outline: true the heading tree"
        ));
    }
    out
}

/// `start-end` within `0..=total`, start < end, at most MAX_CHUNK long.
fn range_of(range: &str, total: usize) -> Result<(usize, usize), &'static str> {
    let (a, b) = range.split_once('-').ok_or("it is not {start}-{end}")?;
    let (start, end): (usize, usize) =
        (a.parse().map_err(|_| "start is not a number")?, b.parse().map_err(|_| "end is not a number")?);
    if start >= end {
        return Err("start must be below end");
    }
    if start >= total {
        return Err("start is past the end of the description");
    }
    if end - start > MAX_CHUNK {
        return Err("the range is too long");
    }
    Ok((start, end.min(total)))
}

/// Per-status counts and the newest titles of each status (a page of ten per status: the
/// counts are kept, so nothing else is read).
fn board(store: &Store) -> Result<String, StoreError> {
    let total = store.list_page(&IssueFilter::default(), SortField::Updated, SortOrder::Desc, 0, Some(0))?.value.total;
    let mut out = format!("# Board ({total} issues)\n");
    for status in Status::ALL {
        let filter = IssueFilter { status: vec![*status], ..IssueFilter::default() };
        let page = store.list_page(&filter, SortField::Updated, SortOrder::Desc, 0, Some(10))?.value;
        out.push_str(&format!("\n## {} ({})\n", status, page.total));
        for m in &page.items {
            out.push_str(&format!("- {} {}\n", m.id, m.title));
        }
        if page.total > 10 {
            out.push_str(&format!("- ... {} more: issues_list with status [{status}]\n", page.total - 10));
        }
    }
    Ok(out)
}

/// One page of resources: board and config, then every issue, newest first.
pub fn list(store: &Store, cursor: Option<&str>) -> Result<ListResourcesResult, ErrorData> {
    let offset = match cursor {
        None => 0,
        Some(c) => c.parse::<usize>().map_err(|_| {
            ErrorData::invalid_params(
                format!("Invalid cursor '{c}'. Call resources/list without a cursor to start over."),
                None,
            )
        })?,
    };
    // The fixed resources come first; the issues of this page only are built.
    let fixed_count = 3;
    let from = offset.saturating_sub(fixed_count);
    let take = PAGE - fixed_count.saturating_sub(offset).min(PAGE);
    let listed = store
        .list_page(&IssueFilter::default(), SortField::Updated, SortOrder::Desc, from, Some(take))
        .map_err(|e| store_failure("resources/list", e))?
        .value;
    let fixed = [
        Resource::new(ResourceUri::Board.to_string(), "board")
            .with_title("Board")
            .with_description("Counts and newest titles per status.")
            .with_mime_type("text/markdown"),
        Resource::new(ResourceUri::Config.to_string(), "config")
            .with_title("Configuration")
            .with_description("The effective configuration (no secrets).")
            .with_mime_type("application/json"),
        Resource::new(ResourceUri::ErrorsRecent.to_string(), "errors-recent")
            .with_title("Recent error patterns")
            .with_description("Failure patterns with frequency and known fixes; ids for errors_resolve.")
            .with_mime_type("application/json"),
    ];
    let issues = listed.items.iter().map(|m| {
        Resource::new(ResourceUri::Issue(&m.id).to_string(), m.id.clone())
            .with_title(m.title.clone())
            .with_mime_type("text/markdown")
    });
    let page: Vec<Resource> = fixed.into_iter().skip(offset).chain(issues).take(PAGE).collect();
    let total = listed.total + fixed_count;
    let mut result = ListResourcesResult::with_all_items(page);
    if offset + PAGE < total {
        result.next_cursor = Some((offset + PAGE).to_string());
    }
    Ok(result)
}

pub fn templates() -> ListResourceTemplatesResult {
    let t = |uri: &str, name: &str, title: &str, about: &str, mime: &str| {
        ResourceTemplate::new(uri, name).with_title(title).with_description(about).with_mime_type(mime)
    };
    ListResourceTemplatesResult::with_all_items(vec![
        t(
            "docket://issues/{id}",
            "issue",
            "Issue",
            "The whole issue file (frontmatter and description).",
            "text/markdown",
        ),
        t(
            "docket://issues/{id}/chunk/{start}-{end}",
            "issue-chunk",
            "Issue chunk",
            "Characters start..end of the description.",
            "text/markdown",
        ),
        t(
            "docket://issues/{id}/structure",
            "issue-structure",
            "Issue structure",
            "Headings of the description with character offsets.",
            "application/json",
        ),
    ])
}

/// Completes `{id}` in the issue templates with IDs starting with what was typed.
pub fn complete(store: &Store, request: &CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
    let for_issue = matches!(&request.r#ref, Reference::Resource(r) if r.uri.starts_with("docket://issues/{id}"));
    if !for_issue || request.argument.name != "id" {
        return Ok(CompleteResult::new(CompletionInfo::new(Vec::new()).unwrap_or_default()));
    }
    let typed = request.argument.value.to_uppercase();
    let mut ids: Vec<String> = store
        .list(&IssueFilter::default(), SortField::Id, SortOrder::Asc)
        .map_err(|e| store_failure("completion/complete", e))?
        .value
        .iter()
        .map(|m| m.id.clone())
        .filter(|id| id.to_uppercase().starts_with(&typed))
        .collect();
    ids.dedup();
    let total = ids.len();
    ids.truncate(CompletionInfo::MAX_VALUES);
    let info = CompletionInfo::with_pagination(ids, Some(total as u32), total > CompletionInfo::MAX_VALUES)
        .map_err(|e| ErrorData::internal_error(e, None))?;
    Ok(CompleteResult::new(info))
}
