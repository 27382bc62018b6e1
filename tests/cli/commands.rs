//! The human command line: the real `docket` binary over a generated workspace.

use crate::common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const ISSUES: usize = 40;

/// A generated workspace of [`ISSUES`] issues in a temporary directory.
fn generated() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    docket::store::generate::generate_workspace(dir.path(), ISSUES, 7);
    dir
}

/// `docket ARGS --workspace WS`, run from the workspace with no workspace variables set.
fn docket(ws: &Path, args: &[&str]) -> Output {
    docket_with_stdin(ws, args, "")
}

fn docket_with_stdin(ws: &Path, args: &[&str], stdin: &str) -> Output {
    let mut child = common::in_workspace(Command::new(env!("CARGO_BIN_EXE_docket")).args(args), ws)
        .env_remove("COLUMNS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn docket");
    child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("write stdin");
    child.wait_with_output().expect("docket ran")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs a command that must succeed and returns its stdout.
fn ok(ws: &Path, args: &[&str]) -> String {
    let o = docket(ws, args);
    assert!(o.status.success(), "docket {args:?} failed ({:?}): {}", o.status.code(), stderr(&o));
    stdout(&o)
}

/// Runs a `--json` command that must succeed and parses its stdout.
fn ok_json(ws: &Path, args: &[&str]) -> Value {
    let text = ok(ws, args);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("docket {args:?} printed invalid JSON ({e}): {text}"))
}

/// Every issue, from `list --all --json`.
fn all_issues(ws: &Path) -> Vec<Value> {
    ok_json(ws, &["list", "--all", "--status", "all", "--json"])["issues"].as_array().cloned().expect("issues array")
}

fn count_status(issues: &[Value], status: &str) -> usize {
    issues.iter().filter(|i| i["status"] == status).count()
}

/// Table rows: the lines after the header that start with an issue ID.
fn rows(table: &str) -> Vec<Vec<String>> {
    table
        .lines()
        .skip(1)
        .filter(|l| ["ISS-", "SPEC-", "IDEA-"].iter().any(|p| l.starts_with(p)))
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

#[test]
fn list_prints_an_aligned_table_and_the_next_cursor() {
    let ws = generated();
    let out = ok(ws.path(), &["list", "--status", "all"]);
    let header = out.lines().next().expect("a header line");
    let columns: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(columns[..5], ["ID", "STATUS", "PRIORITY", "ASSIGNEE", "AGE"], "{out}");
    assert!(columns.contains(&"TITLE"), "{out}");
    let rows = rows(&out);
    assert_eq!(rows.len(), 25, "{out}");
    let title_at = header.find("TITLE").expect("TITLE column");
    for line in out.lines().skip(1).take(25) {
        assert!(line.chars().count() <= 100, "row wider than 100: {line}");
        assert_eq!(line.chars().nth(title_at - 1), Some(' '), "TITLE column misaligned: {line}");
    }
    for row in &rows {
        assert!(["open", "in_progress", "closed", "cancelled"].contains(&row[1].as_str()), "{row:?}");
        assert!(["low", "medium", "high", "critical"].contains(&row[2].as_str()), "{row:?}");
        let age = &row[4];
        assert!(age == "now" || ["m", "h", "d", "mo", "y"].iter().any(|u| age.ends_with(u)), "{row:?}");
    }
    let footer = out.lines().last().expect("footer");
    assert!(footer.starts_with(&format!("Issues 1-25 of {ISSUES}. Next page: docket list --cursor ")), "{footer}");
    let cursor = footer.split("--cursor ").nth(1).and_then(|s| s.split_whitespace().next()).expect("cursor");
    let rest = ok(ws.path(), &["list", "--status", "all", "--cursor", cursor]);
    assert_eq!(self::rows(&rest).len(), ISSUES - 25, "{rest}");
    assert!(rest.lines().last().is_some_and(|l| !l.contains("--cursor")), "{rest}");
    assert_eq!(rest.lines().last(), Some(format!("Issues 26-{ISSUES} of {ISSUES}.").as_str()), "{rest}");
}

/// Without --status, `list` shows the work still to do and says how to see the rest.
#[test]
fn list_by_default_shows_open_and_in_progress_work() {
    let ws = generated();
    let all = all_issues(ws.path());
    let active = count_status(&all, "open") + count_status(&all, "in_progress");
    assert!(active < all.len(), "the generated workspace has finished work too");
    let out = ok(ws.path(), &["list", "--all"]);
    let rows = rows(&out);
    assert_eq!(rows.len(), active, "{out}");
    assert!(rows.iter().all(|r| r[1] == "open" || r[1] == "in_progress"), "{out}");
    assert!(out.contains(&format!("{active} of {active} open or in progress issues.")), "{out}");
    assert!(
        out.split_whitespace().collect::<Vec<_>>().join(" ").ends_with("--status all (or closed, cancelled) lists it."),
        "{out}"
    );
}

#[test]
fn list_status_filter_shows_only_that_status() {
    let ws = generated();
    let expected = count_status(&all_issues(ws.path()), "closed");
    assert!(expected > 0, "the generated workspace has closed issues");
    let out = ok(ws.path(), &["list", "--status", "closed", "--all"]);
    let rows = rows(&out);
    assert_eq!(rows.len(), expected, "{out}");
    assert!(rows.iter().all(|r| r[1] == "closed"), "{out}");
    let both = ok(ws.path(), &["list", "--status", "open,in_progress", "--all"]);
    let open = rows_with(&both, &["open", "in_progress"]);
    assert_eq!(open, self::rows(&both).len(), "{both}");
    assert!(open > 0);
}

fn rows_with(table: &str, statuses: &[&str]) -> usize {
    rows(table).iter().filter(|r| statuses.contains(&r[1].as_str())).count()
}

#[test]
fn list_json_is_the_tool_result() {
    let ws = generated();
    let v = ok_json(ws.path(), &["list", "--json", "--limit", "5", "--priority", "high"]);
    let issues = v["issues"].as_array().expect("issues");
    assert!(!issues.is_empty() && issues.len() <= 5, "{v}");
    assert!(v["totalCount"].as_i64().is_some(), "{v}");
    let mut keys: Vec<&str> = v.as_object().expect("object").keys().map(String::as_str).collect();
    keys.sort();
    let expected: &[&str] = if v["totalCount"].as_i64() > Some(5) {
        &["issues", "next", "nextCursor", "totalCount"]
    } else {
        &["issues", "totalCount"]
    };
    assert_eq!(keys, expected, "{v}");
    // Records with the table's fields (no description); empty labels, assignee and project and
    // an open issue's closedAt are left out.
    for issue in issues {
        let mut fields: Vec<&str> = issue.as_object().expect("issue").keys().map(String::as_str).collect();
        fields.retain(|f| !["labels", "assignee", "project", "closedAt"].contains(f));
        fields.sort();
        assert_eq!(fields, ["createdAt", "id", "priority", "status", "title", "type", "updatedAt"], "{issue}");
    }
    // With a format, the tool's own page: one line per issue.
    let rows = ok_json(ws.path(), &["list", "--json", "--format", "minimal", "--limit", "3"]);
    assert_eq!(rows["rows"].as_array().map(Vec::len), Some(3), "{rows}");
    assert!(issues.iter().all(|i| i["priority"] == "high"), "{v}");
}

#[test]
fn show_prints_the_fields_then_the_body() {
    let ws = generated();
    let id = ok(
        ws.path(),
        &["create", "--title", "Show me", "--description", "Line one.\n\nLine two.", "--label", "ux,bug"],
    );
    let id = id.trim();
    let out = ok(ws.path(), &["show", id]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("{id}  Show me"));
    assert!(lines.contains(&"Status:   open"), "{out}");
    assert!(lines.contains(&"Priority: medium"), "{out}");
    assert!(lines.contains(&"Type:     issue"), "{out}");
    assert!(lines.contains(&"Labels:   ux, bug"), "{out}");
    assert!(out.ends_with("\nLine one.\n\nLine two.\n"), "{out}");
    let header_end = lines.iter().position(|l| l.is_empty()).expect("blank line before the body");
    assert_eq!(lines[header_end + 1], "Line one.");
}

#[test]
fn show_of_an_unknown_id_fails_with_exit_1_naming_it() {
    let ws = generated();
    let o = docket(ws.path(), &["show", "ISS-999999"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(err.starts_with("docket: Issue not found: ISS-999999."), "{err}");
}

#[test]
fn create_then_show_round_trips() {
    let ws = generated();
    let body = "# Plan\n\nRead from **stdin**.\n";
    let o = docket_with_stdin(
        ws.path(),
        &[
            "create",
            "--title",
            "Round trip",
            "--description",
            "-",
            "--type",
            "specification",
            "--priority",
            "high",
            "--label",
            "a",
            "--label",
            "b",
            "--assignee",
            "ann",
            "--project",
            "core",
        ],
        body,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let id = stdout(&o).trim().to_string();
    assert!(id.starts_with("SPEC-"), "{id}");
    let v = ok_json(ws.path(), &["show", &id, "--json"]);
    let issue = &v["issue"];
    assert_eq!(issue["id"], id.as_str());
    assert_eq!(issue["title"], "Round trip");
    assert_eq!(issue["type"], "specification");
    assert_eq!(issue["priority"], "high");
    assert_eq!(issue["status"], "open");
    assert_eq!(issue["labels"], serde_json::json!(["a", "b"]));
    assert_eq!(issue["assignee"], "ann");
    assert_eq!(issue["project"], "core");
    assert_eq!(issue["description"].as_str().map(str::trim_end), Some(body.trim_end()));
    assert_eq!(all_issues(ws.path()).len(), ISSUES + 1);
}

#[test]
fn create_json_and_description_file() {
    let ws = generated();
    let file = ws.path().join("body.md");
    std::fs::write(&file, "From a file.").expect("write body");
    let v = ok_json(
        ws.path(),
        &["create", "--title", "From file", "--description-file", file.to_str().expect("utf-8"), "--json"],
    );
    let id = v["issue"]["id"].as_str().expect("id");
    let shown = ok_json(ws.path(), &["show", id, "--json"]);
    assert_eq!(shown["issue"]["description"], "From a file.");
}

#[test]
fn update_changes_fields_and_says_which() {
    let ws = generated();
    let id = ok(ws.path(), &["create", "--title", "To update", "--priority", "low"]).trim().to_string();
    let out = ok(ws.path(), &["update", &id, "--priority", "critical", "--status", "in_progress", "--label", "x,y"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], format!("Updated {id}:"));
    let mut changed: Vec<&str> = lines[1..].iter().map(|l| l.trim()).collect();
    changed.sort();
    assert_eq!(changed, ["labels: x, y", "priority: critical", "status: in_progress"], "{out}");
    let issue = ok_json(ws.path(), &["show", &id, "--json"])["issue"].clone();
    assert_eq!(issue["priority"], "critical");
    assert_eq!(issue["status"], "in_progress");
    assert_eq!(issue["labels"], serde_json::json!(["x", "y"]));
    let again = ok(ws.path(), &["update", &id, "--priority", "critical"]);
    assert_eq!(again, format!("No change to {id}: the values given are already set.\n"));
    let v = ok_json(ws.path(), &["update", &id, "--no-labels", "--assignee", "bo", "--json"]);
    let mut changed: Vec<&str> = v["changed"].as_array().expect("changed").iter().filter_map(Value::as_str).collect();
    changed.sort();
    assert_eq!(changed, ["assignee", "labels"]);
    assert_eq!(ok_json(ws.path(), &["show", &id, "--json"])["issue"]["assignee"], "bo");
}

#[test]
fn board_shows_the_columns_with_their_counts() {
    let ws = generated();
    let issues = all_issues(ws.path());
    let (open, doing, closed) =
        (count_status(&issues, "open"), count_status(&issues, "in_progress"), count_status(&issues, "closed"));
    assert!(closed > 3 && open > 5, "the generated workspace has enough issues ({open} open, {closed} closed)");
    let out = ok(ws.path(), &["board", "--closed", "3", "--limit", "5"]);
    let lines: Vec<&str> = out.lines().collect();
    let heads: Vec<&str> = lines[0].split('│').map(str::trim).collect();
    assert_eq!(
        heads,
        [format!("OPEN ({open})"), format!("IN_PROGRESS ({doing})"), format!("CLOSED ({closed})")],
        "{out}"
    );
    assert!(lines.iter().all(|l| l.chars().count() <= 100), "{out}");
    let cells = |col: usize| -> Vec<String> {
        lines[2..]
            .iter()
            .filter_map(|l| l.split('│').nth(col).map(|c| c.trim().to_string()))
            .filter(|c| !c.is_empty())
            .collect()
    };
    // A capped column: its first cards, highest priority first, then "+N more".
    let open_cells = cells(0);
    assert_eq!(open_cells.len(), 6, "{out}");
    assert!(open_cells[5].starts_with(&format!("+{} more", open - 5)), "{out}");
    let rank = |card: &str| ["crit", "high", "med", "low"].iter().position(|p| card.split(' ').nth(1) == Some(*p));
    let ranks: Vec<usize> =
        open_cells[..5].iter().map(|c| rank(c).unwrap_or_else(|| panic!("no priority: {c}"))).collect();
    assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "highest priority first: {out}");
    assert_eq!(cells(1).len(), doing.min(5) + usize::from(doing > 5), "{out}");
    assert_eq!(cells(2).len(), 4, "{out}");
    // The closed cards are the three most recently updated closed issues.
    let recent: Vec<&str> =
        issues.iter().filter(|i| i["status"] == "closed").take(3).filter_map(|i| i["id"].as_str()).collect();
    let shown: Vec<String> =
        cells(2)[..3].iter().map(|c| c.split(' ').next().unwrap_or_default().to_string()).collect();
    assert_eq!(shown, recent, "{out}");
    assert!(cells(2)[3].starts_with(&format!("+{} more", closed - 3)), "{out}");
    // --limit 0 shows every open card.
    let all = ok(ws.path(), &["board", "--closed", "1", "--limit", "0", "--width", "200"]);
    let open_all = all.lines().skip(2).filter(|l| l.split('│').next().is_some_and(|c| !c.trim().is_empty())).count();
    assert_eq!(open_all, open, "{all}");
    let cancelled = count_status(&issues, "cancelled");
    let four = ok(ws.path(), &["board", "--cancelled"]);
    assert!(four.lines().next().is_some_and(|l| l.contains(&format!("CANCELLED ({cancelled}"))), "{four}");
}

#[test]
fn stats_counts_add_up_to_the_issue_count() {
    let ws = generated();
    let v = ok_json(ws.path(), &["stats", "--json"]);
    for group in ["status", "priority", "type"] {
        assert_eq!(v[group]["total"], ISSUES as i64, "{group}: {v}");
        let sum: i64 = v[group]["groups"].as_array().expect("groups").iter().filter_map(|g| g["count"].as_i64()).sum();
        assert_eq!(sum, ISSUES as i64, "{group}: {v}");
    }
    let issues = all_issues(ws.path());
    let out = ok(ws.path(), &["stats"]);
    assert!(out.starts_with("STATUS"), "{out}");
    let open_line = out.lines().find(|l| l.starts_with("open ")).expect("an open row");
    assert_eq!(open_line.split_whitespace().nth(1), Some(count_status(&issues, "open").to_string().as_str()), "{out}");
    let totals: Vec<&str> = out.lines().filter(|l| l.starts_with("total")).collect();
    assert_eq!(totals.len(), 3, "{out}");
    assert!(totals.iter().all(|l| l.split_whitespace().nth(1) == Some("40")), "{out}");
}

#[test]
fn usage_errors_exit_2() {
    let ws = generated();
    for args in [&["list", "--bogus"][..], &["show"], &["create"], &["frobnicate"], &["list", "--limit", "ten"]] {
        let o = docket(ws.path(), args);
        assert_eq!(o.status.code(), Some(2), "docket {args:?}: {}", stderr(&o));
        assert!(stdout(&o).is_empty());
    }
}

#[test]
fn invalid_values_exit_1_with_the_valid_ones() {
    let ws = generated();
    let o = docket(ws.path(), &["create", "--title", "Bad", "--priority", "urgent"]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.starts_with("docket: Invalid --priority 'urgent'"), "{err}");
    assert!(err.contains("low, medium, high, critical"), "{err}");
    assert_eq!(all_issues(ws.path()).len(), ISSUES, "nothing was created");
    let o = docket(ws.path(), &["list", "--status", "done"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("open, in_progress, closed, cancelled"), "{}", stderr(&o));
    let o = docket(ws.path(), &["list", "--limit", "500"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

#[test]
fn a_folder_without_a_workspace_lists_nothing_and_a_missing_folder_exits_1() {
    // No workspace yet (issue 40): nothing to list, and what creates one.
    let empty = tempfile::tempdir().expect("temp dir");
    let o = docket(empty.path(), &["list"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("No workspace yet") && stderr(&o).contains("docket init"), "{}", stderr(&o));
    let o = Command::new(env!("CARGO_BIN_EXE_docket"))
        .args(["list", "--workspace"])
        .arg(empty.path().join("missing"))
        .env_remove("DOCKET_WORKSPACE")
        .env_remove("WRANGLER_WORKSPACE_ROOT")
        .output()
        .expect("docket runs");
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).starts_with("docket: "), "{}", stderr(&o));
    assert!(stderr(&o).contains("docket init"), "{}", stderr(&o));
}
