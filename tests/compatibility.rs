//! docs/compatibility.md is a contract, so it is checked: every docket tool and parameter its table
//! names is published (tools/list), every published tool and parameter is in the table, every
//! wrangler tool is, and each row's verdict agrees with its columns.

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
fn every_published_tool_and_parameter_is_in_the_table() {
    let named: BTreeSet<String> = rows().into_iter().filter_map(|r| r.docket).collect();
    let wrangler: BTreeSet<String> =
        rows().into_iter().filter(|r| r.wrangler.is_some()).filter_map(|r| r.docket).collect();
    for (tool, schema) in published() {
        // A tool wrangler never had needs no row (docs/tools.md documents it); a row, once there,
        // covers every parameter.
        if !named.contains(&tool) && !wrangler.iter().any(|p| p.split('.').next() == Some(tool.as_str())) {
            continue;
        }
        for param in schema["properties"].as_object().expect("properties").keys() {
            let path = format!("{tool}.{param}");
            assert!(named.contains(&path), "docs/compatibility.md has no row for `{path}`");
        }
    }
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
