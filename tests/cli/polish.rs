//! The small answers a newcomer notices (issue 50), through the real binary and the real MCP
//! server: `ready` pages like `list`, label edits say what changed, the board shares its width
//! by what each column holds, counts by labels, files without frontmatter kept apart, one answer
//! for a repository without a workspace, and the default status filter said where it applies.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{call, is_error, start, structured, text};
use serde_json::{Value, json};

fn docket(ws: &Path, args: &[&str]) -> Output {
    common::in_workspace(std::process::Command::new(env!("CARGO_BIN_EXE_docket")).args(args), ws)
        .env_remove("COLUMNS")
        .env("NO_COLOR", "1")
        .output()
        .expect("docket runs")
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Runs a command that must succeed and returns its stdout.
fn ok(ws: &Path, args: &[&str]) -> String {
    let o = docket(ws, args);
    assert!(o.status.success(), "docket {args:?} failed ({:?}): {}{}", o.status.code(), out(&o), err(&o));
    out(&o)
}

/// The IDs of a table's rows.
fn row_ids(table: &str) -> Vec<String> {
    table
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| ["ISS-", "SPEC-", "IDEA-"].iter().any(|p| w.starts_with(p)))
        .map(str::to_string)
        .collect()
}

/// `docket create --title TITLE ARGS...`: the new ID.
fn create(ws: &Path, title: &str, args: &[&str]) -> String {
    let mut all = vec!["create", "--title", title];
    all.extend_from_slice(args);
    ok(ws, &all).trim().to_string()
}

#[test]
fn ready_prints_the_next_pages_command_and_it_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    docket::store::generate::generate_workspace(dir.path(), 40, 7);
    let ws = dir.path();
    let all: Value = serde_json::from_str(&ok(ws, &["ready", "--json", "--limit", "1000"])).expect("JSON");
    let ready: Vec<String> =
        all["issues"].as_array().expect("issues").iter().map(|i| i["id"].as_str().unwrap().to_string()).collect();
    assert!(ready.len() > 4, "the generated workspace has more than two pages of 2 ready issues: {ready:?}");
    let first = ok(ws, &["ready", "--limit", "2"]);
    assert_eq!(row_ids(&first), ready[..2], "{first}");
    let next = first.lines().find_map(|l| l.strip_prefix("Next page: ")).unwrap_or_else(|| panic!("{first}"));
    assert_eq!(next, "docket ready --limit 2 --page 2", "{first}");
    let words: Vec<&str> = next.split_whitespace().skip(1).collect();
    let second = ok(ws, &words);
    assert_eq!(row_ids(&second), ready[2..4], "{second}");
    assert!(second.contains(&format!("Ready issues 3-4 of {}", ready.len())), "{second}");
    assert!(second.contains("Next page: docket ready --limit 2 --page 3"), "{second}");
    // The last page prints none; the filters go along with the command.
    let last = (ready.len() as u32).div_ceil(2);
    let end = ok(ws, &["ready", "--limit", "2", "--page", &last.to_string()]);
    assert!(!end.contains("Next page"), "{end}");
    let bugs = ok(ws, &["ready", "--limit", "1", "--priority", "critical,high"]);
    if bugs.contains("Next page") {
        assert!(bugs.contains("Next page: docket ready --limit 1 --page 2 --priority critical,high"), "{bugs}");
    }
    // Past the end: the last page's command.
    let past = ok(ws, &["ready", "--limit", "2", "--page", "999"]);
    assert!(past.contains(&format!("The last: docket ready --limit 2 --page {last}.")), "{past}");
}

#[test]
fn label_edits_say_what_really_changed() {
    let dir = common::workspace();
    let ws = dir.path();
    let id = create(ws, "Labels", &["--label", "ui"]);
    let said = ok(ws, &["update", &id, "--label", "+urgent", "--label=-docs"]);
    assert!(said.contains("labels: ui, urgent"), "{said}");
    assert!(said.contains("added urgent") && said.contains("docs was not there"), "{said}");
    assert!(!said.contains("removed docs"), "{said}");
    let said = ok(ws, &["update", &id, "--label=-ui", "--label", "+urgent"]);
    assert!(said.contains("removed ui") && said.contains("urgent was already there"), "{said}");
    let none = ok(ws, &["update", &id, "--label=-ui"]);
    assert!(none.starts_with(&format!("No change to {id}: ui was not there")), "{none}");
}

#[test]
fn the_board_shares_its_width_by_what_each_column_holds() {
    let dir = common::workspace();
    let ws = dir.path();
    // Cut to 14 characters before ("ISS-000001 crit Add backward c…"): a third of 100 columns each.
    let long = ["Add backward compatibility for v1", "Retry the billing webhook on timeout"];
    for title in long {
        create(ws, title, &["--priority", "critical"]);
    }
    let done = create(ws, "Closed one", &[]);
    ok(ws, &["update", &done, "--status", "closed"]);
    let board = ok(ws, &["board", "--width", "100"]);
    let lines: Vec<&str> = board.lines().collect();
    assert!(lines.iter().all(|l| l.chars().count() <= 100), "{board}");
    assert!(lines[0].contains("IN_PROGRESS (0)"), "{board}");
    for title in long {
        assert!(lines.iter().any(|l| l.contains(title)), "the whole title fits at 100 columns: {title}\n{board}");
    }
    // The empty column keeps only its header's width.
    let head = lines[0];
    let at = head.find("IN_PROGRESS (0)").expect("header");
    let rest = &head[at + "IN_PROGRESS (0)".len()..];
    assert!(rest.starts_with(" │ CLOSED"), "{board}");
}

#[tokio::test]
async fn stats_count_by_labels_once_under_each() {
    let dir = common::workspace();
    let ws = dir.path();
    create(ws, "Both", &["--label", "bug,ui"]);
    create(ws, "Bug", &["--label", "bug"]);
    create(ws, "None", &[]);
    let v: Value = serde_json::from_str(&ok(ws, &["stats", "--by", "labels", "--json"])).expect("JSON");
    assert_eq!(v["labels"]["total"], 3, "{v}");
    let groups = &v["labels"]["groups"];
    assert_eq!(groups, &json!([{"key": "bug", "count": 2}, {"key": "(none)", "count": 1}, {"key": "ui", "count": 1}]));
    let table = ok(ws, &["stats", "--by", "labels"]);
    assert!(table.starts_with("LABELS"), "{table}");
    assert!(table.contains("counts once under each"), "{table}");
    let client = start(ws).await;
    let r = call(&client, "issues_stats", json!({"groupBy": "labels"})).await;
    assert!(!is_error(&r), "{}", text(&r));
    assert_eq!(structured(&r)["groups"], *groups);
    assert!(text(&r).contains("counts once under each"), "{}", text(&r));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn files_without_frontmatter_are_named_by_their_file_and_not_counted() {
    let dir = common::workspace();
    let ws = dir.path();
    create(ws, "A real issue", &[]);
    create(ws, "Another real issue", &["--label", "bug"]);
    std::fs::write(ws.join(".docket/issues/README.md"), "# Issues\n\nOne file per issue.\n").unwrap();
    std::fs::write(ws.join(".docket/ideas/notes.md"), "loose notes\n").unwrap();
    let list = ok(ws, &["list"]);
    assert_eq!(row_ids(&list).len(), 2, "{list}");
    assert!(!list.contains("Untitled Issue") && !list.lines().any(|l| l.starts_with("README")), "{list}");
    assert!(list.contains("2 of 2 open or in progress issues"), "{list}");
    let words = list.split_whitespace().collect::<Vec<_>>().join(" ");
    let apart = words.split("Not issues").nth(1).unwrap_or_else(|| panic!("listed apart: {list}"));
    assert!(apart.contains(".docket/issues/README.md, .docket/ideas/notes.md."), "{list}");
    // The board: no card for either file, and the open column counts the two issues only.
    let board = ok(ws, &["board", "--width", "100"]);
    assert!(board.lines().next().is_some_and(|h| h.starts_with("OPEN (2)")), "{board}");
    let columns = board.split("Not issues").next().unwrap_or_default();
    assert!(!columns.contains("Untitled Issue") && !columns.contains("README"), "{board}");
    let words = board.split_whitespace().collect::<Vec<_>>().join(" ");
    let apart = words.split("Not issues (files without frontmatter").nth(1).unwrap_or_else(|| panic!("apart: {board}"));
    assert!(apart.contains(".docket/issues/README.md, .docket/ideas/notes.md."), "{board}");
    let stats: Value = serde_json::from_str(&ok(ws, &["stats", "--json"])).expect("JSON");
    for group in ["status", "priority", "type"] {
        assert_eq!(stats[group]["total"], 2, "{group}: {stats}");
    }
    let by_labels: Value = serde_json::from_str(&ok(ws, &["stats", "--by", "labels", "--json"])).expect("JSON");
    assert_eq!(by_labels["labels"]["total"], 2, "{by_labels}");
    let table = ok(ws, &["stats"]);
    assert!(table.contains("2 file(s) without frontmatter are not issues"), "{table}");
    let client = start(ws).await;
    let r = call(&client, "issues_stats", json!({"groupBy": "status"})).await;
    assert_eq!(structured(&r)["total"], 2, "{}", text(&r));
    assert!(text(&r).contains("without frontmatter are not issues"), "{}", text(&r));
    client.cancel().await.expect("close");
}

#[test]
fn an_empty_repository_gets_one_answer() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    common::git(root, &["init", "-q"]);
    let list = docket(root, &["list"]);
    assert_eq!(list.status.code(), Some(0), "{}", err(&list));
    let rule = err(&list)
        .lines()
        .find_map(|l| l.strip_prefix("docket: warning: "))
        .map(str::to_string)
        .unwrap_or_else(|| panic!("list states the rule: {}", err(&list)));
    assert!(rule.starts_with("No workspace yet in"), "{rule}");
    for args in [&["doctor"][..], &["doctor", "--fix"]] {
        let o = docket(root, args);
        assert_eq!(o.status.code(), Some(0), "docket {args:?} exits 0, nothing to repair: {}{}", out(&o), err(&o));
        assert!(out(&o).contains(&rule), "docket {args:?} states the same rule:\n{}\n{rule}", out(&o));
    }
    let json: Value = serde_json::from_str(&out(&docket(root, &["doctor", "--json"]))).expect("JSON");
    assert_eq!(json["total"], 0, "{json}");
    assert!(!root.join(".wrangler").exists() && !root.join(".docket").exists(), "nothing was written");
}

/// Every file under `dir` with its bytes, to see that nothing was written.
fn every_file(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).expect("read dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                todo.push(path);
            } else {
                let bytes = std::fs::read(&path).expect("read");
                files.push((path, bytes));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn doctor_exits_3_when_only_a_person_can_repair_and_writes_nothing() {
    let dir = common::workspace();
    let ws = dir.path();
    create(ws, "A real issue", &[]);
    // Frontmatter that does not parse: doctor names it, --fix cannot guess what it meant.
    let broken = "---\nid: ISS-000777\ntitle: [unclosed\nstatus: open\n---\nBody.\n";
    std::fs::write(ws.join(".docket/issues/ISS-000777-broken.md"), broken).unwrap();
    let before = every_file(ws);
    for args in [&["doctor"][..], &["doctor", "--fix"], &["doctor", "--fix", "--json"]] {
        let o = docket(ws, args);
        assert_eq!(o.status.code(), Some(3), "docket {args:?}: only a person can repair it: {}{}", out(&o), err(&o));
        assert!(out(&o).contains("ISS-000777"), "docket {args:?} names the file: {}", out(&o));
        assert_eq!(every_file(ws), before, "docket {args:?} wrote nothing");
    }
    let fixed = out(&docket(ws, &["doctor", "--fix"]));
    assert!(fixed.contains("Nothing to repair.") && fixed.contains("need a person"), "{fixed}");
}

#[tokio::test]
async fn the_default_status_filter_is_said() {
    let dir = tempfile::tempdir().expect("temp dir");
    docket::store::generate::generate_workspace(dir.path(), 40, 7);
    let ws = dir.path();
    let paged = ok(ws, &["list", "--limit", "5"]);
    assert!(paged.contains("Issues 1-5 of ") && paged.contains(" open or in progress. Next page:"), "{paged}");
    let client = start(ws).await;
    let r = call(&client, "issues_list", json!({})).await;
    assert_eq!(structured(&r)["totalCount"], 40);
    assert!(text(&r).contains("Any status (no status filter)."), "{}", text(&r));
    let open = call(&client, "issues_list", json!({"status": ["open"]})).await;
    assert!(!text(&open).contains("Any status"), "{}", text(&open));
    client.cancel().await.expect("close");
}
