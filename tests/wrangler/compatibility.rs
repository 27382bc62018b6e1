//! docs/compatibility.md is a contract, so it is checked: every docket tool and parameter its table
//! names is published (tools/list), every wrangler tool and parameter docket publishes is in the
//! table, and each row's verdict agrees with its columns. A parameter only docket has needs no row
//! (docs/tools.md, generated from tools.yaml, documents it); a row written for one is checked.

use std::collections::BTreeSet;

use serde_json::Value;

/// wrangler's tools at b02bd5f (`getAvailableTools` in its mcp/src/server.ts).
const WRANGLER_TOOLS: &[&str] = &[
    "issues_create",
    "issues_list",
    "issues_search",
    "issues_update",
    "issues_get",
    "issues_delete",
    "issues_labels",
    "issues_metadata",
    "issues_projects",
    "issues_all_complete",
    "issues_mark_complete",
    "session_start",
    "session_phase",
    "session_checkpoint",
    "session_complete",
    "session_get",
    "session_status",
    "init_workspace",
];

/// wrangler's parameters at b02bd5f, by tool (`tool.param.sub` for a property of an object).
const WRANGLER_PARAMS: &[(&str, &[&str])] = &[
    (
        "issues_create",
        &["title", "description", "type", "status", "priority", "labels", "assignee", "project", "wranglerContext"],
    ),
    (
        "issues_list",
        &[
            "status",
            "priority",
            "labels",
            "assignee",
            "project",
            "parentTaskId",
            "types",
            "type",
            "limit",
            "offset",
            "format",
        ],
    ),
    (
        "issues_search",
        &[
            "query",
            "fields",
            "filters",
            "filters.ids",
            "filters.status",
            "filters.priority",
            "filters.labels",
            "filters.assignee",
            "filters.project",
            "filters.parentTaskId",
            "filters.types",
            "filters.type",
            "filters.createdAfter",
            "filters.createdBefore",
            "filters.limit",
            "filters.offset",
            "sortBy",
            "sortOrder",
            "limit",
        ],
    ),
    ("issues_get", &["id"]),
    (
        "issues_update",
        &[
            "id",
            "title",
            "description",
            "type",
            "status",
            "priority",
            "labels",
            "assignee",
            "project",
            "wranglerContext",
        ],
    ),
    ("issues_delete", &["id", "confirm"]),
    ("issues_labels", &["operation", "issueId", "labels"]),
    ("issues_metadata", &["operation", "issueId", "key", "value"]),
    ("issues_projects", &["operation", "issueId", "project"]),
    ("issues_all_complete", &["issueIds", "parentTaskId", "labels", "project", "types"]),
    ("issues_mark_complete", &["id", "note"]),
    ("session_start", &["specFile", "workingDirectory", "workflow", "skipChecks", "skipStepNames"]),
    ("session_phase", &["sessionId", "phase", "status", "metadata"]),
    (
        "session_checkpoint",
        &[
            "sessionId",
            "tasksCompleted",
            "tasksPending",
            "lastAction",
            "resumeInstructions",
            "variables",
            "stepResults",
        ],
    ),
    ("session_complete", &["sessionId", "status", "prUrl", "prNumber", "summary", "stepExecutionSummary"]),
    ("session_get", &["sessionId"]),
    ("session_status", &["sessionId"]),
    ("init_workspace", &["fix", "projectRoot", "pluginRoot"]),
];

fn wrangler_params() -> BTreeSet<String> {
    WRANGLER_PARAMS.iter().flat_map(|(tool, params)| params.iter().map(move |p| format!("{tool}.{p}"))).collect()
}

const VERDICTS: &[&str] = &["same", "extended", "differs", "docket only"];

struct Row {
    line: usize,
    wrangler: Option<String>,
    docket: Option<String>,
    /// Accepted and checked but left out of the published schema (docket cell "`path` (unpublished)").
    unpublished: bool,
    verdict: String,
}

/// The rows of the table under "## Tools and parameters".
fn rows() -> Vec<Row> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/compatibility.md");
    let doc = std::fs::read_to_string(path).expect("docs/compatibility.md");
    let start = doc.find("\n## Tools and parameters").expect("the section");
    let first_line = doc[..start].lines().count() + 1;
    let section = &doc[start + 1..];
    let end = section[1..].find("\n## ").map_or(section.len(), |i| i + 1);
    let mut out = Vec::new();
    for (i, line) in section[..end].lines().enumerate() {
        if !line.starts_with('|') || line.starts_with("|---") || line.starts_with("| wrangler ") {
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        assert!(cells.len() >= 4, "docs/compatibility.md:{}: a row has 4 cells: {line}", first_line + i);
        let path = |cell: &str| match cell {
            "—" => None,
            c => Some(
                c.trim_end_matches(" (unpublished)")
                    .strip_prefix('`')
                    .and_then(|c| c.strip_suffix('`'))
                    .unwrap_or_else(|| panic!("docs/compatibility.md:{}: `{c}` is not a `path`", first_line + i))
                    .to_string(),
            ),
        };
        out.push(Row {
            line: first_line + i,
            wrangler: path(cells[0]),
            docket: path(cells[1]),
            unpublished: cells[1].ends_with(" (unpublished)"),
            verdict: cells[2].to_string(),
        });
    }
    assert!(out.len() > 100, "the table was found and read ({} rows)", out.len());
    out
}

/// The published input schemas: tool name -> inputSchema.
fn published() -> Vec<(String, Value)> {
    docket::generated::tool_definitions()
        .into_iter()
        .map(|t| (t.name.to_string(), Value::Object((*t.input_schema).clone())))
        .collect()
}

/// The schema at `tool.param.sub...`, through object properties (and array items).
fn resolve<'a>(tools: &'a [(String, Value)], path: &str) -> Option<&'a Value> {
    let mut parts = path.split('.');
    let tool = parts.next()?;
    let mut schema = &tools.iter().find(|(n, _)| n == tool)?.1;
    for part in parts {
        let object = if schema["type"] == "array" { &schema["items"] } else { schema };
        schema = object["properties"].get(part)?;
    }
    Some(schema)
}

/// Whether the argument rules of the tool accept `path` (published or not).
fn accepted(path: &str) -> bool {
    use docket::runtime::args::Kind;
    let mut parts = path.split('.');
    let Some(mut rules) = parts.next().and_then(docket::generated::input_rules) else { return false };
    let mut found = false;
    for part in parts {
        let Some(rule) = rules.iter().find(|r| r.name == part) else { return false };
        found = true;
        if let Kind::Object { fields, .. } = rule.kind {
            rules = fields;
        }
    }
    found
}

#[test]
fn every_docket_path_in_the_table_is_published() {
    let tools = published();
    for row in rows() {
        match &row.docket {
            Some(path) if row.unpublished => {
                assert!(resolve(&tools, path).is_none(), "docs/compatibility.md:{}: `{path}` is published", row.line);
                assert!(accepted(path), "docs/compatibility.md:{}: docket does not accept `{path}`", row.line);
            }
            Some(path) => assert!(
                resolve(&tools, path).is_some(),
                "docs/compatibility.md:{}: docket publishes no `{path}`",
                row.line
            ),
            None => {}
        }
    }
}

#[test]
fn every_published_wrangler_parameter_is_in_the_table() {
    let named: BTreeSet<String> = rows().into_iter().filter_map(|r| r.docket).collect();
    let wrangler = wrangler_params();
    let tools = published();
    for path in &wrangler {
        if resolve(&tools, path).is_some() {
            assert!(
                named.contains(path),
                "docs/compatibility.md has no row for wrangler's `{path}`, which docket publishes"
            );
        }
    }
    // The list above is wrangler's, not docket's: the table's wrangler column says the same.
    let in_table: BTreeSet<String> =
        rows().into_iter().filter_map(|r| r.wrangler).filter(|w| w.contains('.')).collect();
    assert_eq!(in_table, wrangler, "the wrangler column of docs/compatibility.md and WRANGLER_PARAMS");
}

#[test]
fn every_wrangler_tool_has_a_row_and_its_parameters_follow_it() {
    let rows = rows();
    let mut tools: Vec<&str> = rows.iter().filter_map(|r| r.wrangler.as_deref()).filter(|w| !w.contains('.')).collect();
    tools.sort_unstable();
    let mut expected = WRANGLER_TOOLS.to_vec();
    expected.sort_unstable();
    assert_eq!(tools, expected, "one row per wrangler tool");
    for (i, row) in rows.iter().enumerate() {
        let Some(w) = &row.wrangler else { continue };
        let tool = w.split('.').next().expect("a tool");
        assert!(WRANGLER_TOOLS.contains(&tool), "docs/compatibility.md:{}: `{tool}` is not a wrangler tool", row.line);
        let tool_row = rows.iter().position(|r| r.wrangler.as_deref() == Some(tool)).expect("checked above");
        assert!(tool_row <= i, "docs/compatibility.md:{}: `{w}` comes before the row of {tool}", row.line);
    }
}

#[test]
fn verdicts_agree_with_the_columns() {
    for row in rows() {
        let at = format!("docs/compatibility.md:{}", row.line);
        assert!(VERDICTS.contains(&row.verdict.as_str()), "{at}: verdict `{}` is not one of {VERDICTS:?}", row.verdict);
        match (&row.wrangler, &row.docket, row.verdict.as_str()) {
            (None, Some(_), "docket only") => {}
            (Some(w), Some(d), "same" | "extended" | "differs") => {
                assert_eq!(w, d, "{at}: a wrangler parameter docket serves keeps its name and place")
            }
            (w, d, v) => panic!("{at}: `{v}` does not fit wrangler {w:?} / docket {d:?}"),
        }
    }
}
