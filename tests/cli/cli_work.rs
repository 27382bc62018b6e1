//! The command line over a day's work: blockers set, added and removed by `update` and `create`
//! and shown by `show` and `board`; pages asked for by number, with a "Next page:" command that
//! works as printed (it keeps the filters); one count of duplicate ids whatever the command;
//! advice in commands and flags, not tool calls, cursors or the error memory's notes for agents.

use crate::common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use docket::store::{Store, StoreOptions, Workspace};

fn generated(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    docket::store::generate::generate_workspace(dir.path(), n, 7);
    dir
}

fn docket(ws: &Path, args: &[&str]) -> Output {
    common::in_workspace(Command::new(env!("CARGO_BIN_EXE_docket")).args(args), ws)
        .env_remove("COLUMNS")
        .env("COLUMNS", "200")
        .stdin(Stdio::null())
        .output()
        .expect("docket ran")
}

fn ok(ws: &Path, args: &[&str]) -> String {
    let o = docket(ws, args);
    assert!(o.status.success(), "docket {args:?} failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).expect("UTF-8")
}

fn err(ws: &Path, args: &[&str]) -> (Option<i32>, String) {
    let o = docket(ws, args);
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
}

fn blockers(ws: &Path, id: &str) -> Vec<String> {
    let store = Store::open(Workspace::at(ws).expect("workspace"), StoreOptions::default());
    store.get_meta(id).expect("issue").value.blocked_by.clone()
}

fn line<'a>(text: &'a str, start: &str) -> &'a str {
    text.lines().find(|l| l.starts_with(start)).unwrap_or_else(|| panic!("no line starting {start:?}:\n{text}"))
}

/// Issue table rows (lines starting with an ID).
fn row_ids(table: &str) -> Vec<String> {
    table
        .lines()
        .filter(|l| ["ISS-", "SPEC-", "IDEA-"].iter().any(|p| l.starts_with(p)))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// Blockers added and removed are the store's one write (no read before it, no compare-and-set
/// to retry): applied under the lock to the list the file has then, whoever wrote it last (here a
/// hand edit the store has not indexed), and named in the answer as written.
#[test]
fn blockers_added_and_removed_apply_to_the_file_as_it_is_when_written() {
    let dir = common::workspace();
    let ws = dir.path();
    let ids: Vec<String> =
        ["One", "Two", "Three", "Four"].iter().map(|t| ok(ws, &["create", t]).trim().to_string()).collect();
    let [a, b, c, d] = [&ids[0], &ids[1], &ids[2], &ids[3]];
    let store = Store::open(Workspace::at(ws).expect("workspace"), StoreOptions::default());
    let path = store.get_meta(d).expect("issue").value.path.clone();
    // An editor gives it two blockers behind the store's back.
    let text = std::fs::read_to_string(&path).expect("read");
    let edited = text.replacen("\n---\n", &format!("\nblockedBy:\n  - {a}\n  - {b}\n---\n"), 1);
    assert_ne!(edited, text);
    std::fs::write(&path, edited).expect("hand edit");
    let patch = docket::store::IssuePatch {
        add_blockers: vec![c.clone()],
        remove_blockers: vec![a.to_lowercase()],
        ..Default::default()
    };
    let updated = store.update(d, patch).expect("one write");
    assert_eq!(updated.changed, ["blockedBy"]);
    assert_eq!(updated.issue.meta.blocked_by, [b.as_str(), c.as_str()]);
    assert_eq!(blockers(ws, d), [b.as_str(), c.as_str()]);

    // The CLI's answer names the list written, which it did not send.
    let json: serde_json::Value =
        serde_json::from_str(&ok(ws, &["update", d, "--remove-blocker", b, "--json"])).expect("JSON");
    assert_eq!(json["issue"]["blockedBy"], serde_json::json!([c]), "{json}");
    assert_eq!(json["changed"], serde_json::json!(["blockedBy"]), "{json}");
}

#[test]
fn update_adds_and_removes_blockers_keeping_the_others_and_show_and_board_name_them() {
    let dir = common::workspace();
    let ws = dir.path();
    let ids: Vec<String> = ["Schema", "Migration", "Importer", "Release"]
        .iter()
        .map(|t| ok(ws, &["create", t]).trim().to_string())
        .collect();
    let [a, b, c, d] = [&ids[0], &ids[1], &ids[2], &ids[3]];

    let out = ok(ws, &["update", d, "--add-blocker", &format!("{a},{b}")]);
    assert_eq!(out, format!("Updated {d}:\n  blocked by: {a}, {b}\n"));
    assert_eq!(blockers(ws, d), [a.as_str(), b.as_str()]);
    // Remove one (any case), add another, change a field: one write.
    let out = ok(ws, &["update", d, "--remove-blocker", &a.to_lowercase(), "--add-blocker", c, "--priority", "high"]);
    assert!(out.contains("  priority: high") && out.contains(&format!("  blocked by: {b}, {c}")), "{out}");
    assert_eq!(blockers(ws, d), [b.as_str(), c.as_str()]);
    assert_eq!(
        ok(ws, &["update", d, "--add-blocker", b]),
        format!("No change to {d}: the values given are already set.\n")
    );

    let show = ok(ws, &["show", d]);
    assert_eq!(line(&show, "Blockers:"), format!("Blockers: {b}, {c}"));
    assert_eq!(line(&show, "Waits on:"), format!("Waits on: {b}, {c}"));
    assert_eq!(line(&ok(ws, &["show", b]), "Blocks:"), format!("Blocks:   {d}"));
    assert!(!ok(ws, &["show", a]).contains("Blocks:"), "nothing waits on {a} now");

    // The board marks the card that waits (and only it).
    let board = ok(ws, &["board", "--width", "120"]);
    let card = board.lines().find(|l| l.contains(d.as_str())).expect("its card");
    assert!(card.contains(&format!("{d} high ⊘ Release")), "{board}");
    assert_eq!(board.matches('⊘').count(), 1, "{board}");

    // Replace them all, clear them; a new issue can start blocked.
    ok(ws, &["update", d, "--blocked-by", a]);
    assert_eq!(blockers(ws, d), [a.as_str()]);
    assert_eq!(ok(ws, &["update", d, "--no-blockers"]), format!("Updated {d}:\n  blocked by: (none)\n"));
    assert!(blockers(ws, d).is_empty());
    let e = ok(ws, &["create", "Docs", "--blocked-by", b, "--parent", c]).trim().to_string();
    assert_eq!(blockers(ws, &e), [b.as_str()]);
    let show = ok(ws, &["show", &e]);
    assert_eq!(line(&show, "Parent:"), format!("Parent:   {c}"), "the parent by name: {show}");
    assert!(!show.contains("parentTaskId"), "{show}");
    assert!(!ok(ws, &["board"]).is_empty());

    // Refusals name the problem in CLI terms; nothing is written.
    let (code, said) = err(ws, &["update", d, "--add-blocker", "ISS-999999"]);
    assert_eq!(code, Some(1), "{said}");
    assert!(said.contains("ISS-999999") && !said.contains("blockedBy") && !said.contains("issues_"), "{said}");
    ok(ws, &["update", a, "--add-blocker", e.as_str()]);
    let (code, said) = err(ws, &["update", b, "--add-blocker", a]);
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains(&format!("{b} -> {a} -> {e} -> {b}")) || said.contains(&format!("{a} -> {e} -> {b} -> {a}")),
        "{said}"
    );
    assert!(said.contains("`docket tree") && !said.contains("issues_get") && !said.contains("blockedBy"), "{said}");
    assert!(blockers(ws, b).is_empty(), "nothing written");
    let (code, said) = err(ws, &["update", d, "--blocked-by", a, "--add-blocker", b]);
    assert_eq!(code, Some(2), "replace and add at once is a usage error: {said}");
}

#[test]
fn pages_by_number_and_next_page_commands_that_work_as_printed() {
    let dir = generated(60);
    let ws = dir.path();
    let every = row_ids(&ok(ws, &["list", "--status", "all", "--all"]));
    assert_eq!(every.len(), 60);
    let page2 = ok(ws, &["list", "--status", "all", "--limit", "20", "--page", "2"]);
    assert_eq!(row_ids(&page2), every[20..40], "{page2}");
    let footer = page2.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(footer.contains("Issues 21-40 of 60. Next page: docket list --limit 20 --page 3 --status all"), "{page2}");
    let last = ok(ws, &["list", "--status", "all", "--limit", "20", "--page", "3"]);
    assert_eq!(row_ids(&last), every[40..], "{last}");
    assert!(last.contains("Issues 41-60 of 60.") && !last.contains("Next page"), "{last}");
    let past = ok(ws, &["list", "--status", "all", "--limit", "20", "--page", "9"]);
    assert!(past.contains("past the end") && past.contains("3 page(s) of 20"), "{past}");
    assert!(
        past.split_whitespace().collect::<Vec<_>>().join(" ").contains("docket list --limit 20 --page 3 --status all"),
        "{past}"
    );

    // The cursor hint repeats the filters: run as printed, it gives the next page.
    let closed = ok(ws, &["list", "--status", "closed,cancelled", "--type", "issue", "--limit", "3"]);
    let hint = closed.split_whitespace().collect::<Vec<_>>().join(" ");
    let command = hint.split("Next page: ").nth(1).and_then(|h| h.split(" (or").next()).expect("a next page");
    assert!(command.starts_with("docket list --limit 3 --cursor "), "{command}");
    assert!(command.ends_with("--status closed,cancelled --type issue"), "{command}");
    let words: Vec<&str> = command.split_whitespace().skip(1).collect();
    let next = ok(ws, &words);
    assert!(next.contains("Issues 4-6 of"), "{next}");
    assert!(row_ids(&next).iter().all(|id| !row_ids(&closed).contains(id)), "{next}");

    // The board's "+N more" names the list of them all, with the board's filters.
    let board = ok(ws, &["board", "--limit", "2", "--width", "250", "--type", "issue", "--priority", "high,critical"]);
    let more = board.lines().nth(4).and_then(|l| l.split('│').next()).map(str::trim).expect("+N more");
    let (count, command) = more.trim_start_matches('+').split_once(" more: ").expect("a command");
    assert_eq!(command, "docket list --status open --priority high,critical --type issue", "{board}");
    let words: Vec<&str> = command.split_whitespace().skip(1).chain(["--all"]).collect();
    let listed = row_ids(&ok(ws, &words));
    assert_eq!(listed.len(), count.parse::<usize>().unwrap() + 2, "{board}");

    // Several types at once.
    let mixed = row_ids(&ok(ws, &["list", "--status", "all", "--all", "--type", "specification,idea"]));
    assert!(
        !mixed.is_empty() && mixed.iter().all(|id| id.starts_with("SPEC-") || id.starts_with("IDEA-")),
        "{mixed:?}"
    );
    assert!(mixed.iter().any(|id| id.starts_with("SPEC-")) && mixed.iter().any(|id| id.starts_with("IDEA-")));

    // search: by page number, and the hint keeps the status filter.
    let all = ok(ws, &["search", "the", "--limit", "100", "--status", "open"]);
    let hits = row_ids(&all);
    assert!(hits.len() > 4, "{all}");
    let second = ok(ws, &["search", "the", "--limit", "2", "--page", "2", "--status", "open"]);
    assert_eq!(row_ids(&second), hits[2..4], "{second}");
    assert!(
        second.contains("Matches 3-4 of") && second.contains("docket search the --limit 2 --page 3 --status open"),
        "{second}"
    );
    let first = ok(ws, &["search", "the", "--limit", "2", "--status", "open"]);
    let command = first.lines().last().unwrap().split("Next page: ").nth(1).expect("a next page").to_string();
    let words: Vec<&str> = command.split_whitespace().skip(1).collect();
    assert_eq!(row_ids(&ok(ws, &words)), hits[2..4], "{command}");
    let (code, said) = err(ws, &["list", "--cursor", "25.000000000000"]);
    assert_eq!(code, Some(1));
    assert!(said.contains("Run `docket list` again without --cursor"), "{said}");
    assert!(!said.contains("issues_list") && !said.contains("without cursor"), "{said}");
}

/// An issue file as wrangler's early versions wrote them: a bare number as its id.
fn legacy(n: &str, title: &str) -> String {
    format!(
        "---\nid: '{n}'\ntitle: {title}\ntype: issue\nstatus: open\npriority: medium\nlabels: []\ncreatedAt: '2025-01-01T00:00:00.000Z'\nupdatedAt: '2025-01-01T00:00:00.000Z'\n---\n{title}.\n"
    )
}

#[test]
fn every_command_counts_the_same_duplicate_ids_as_the_doctor() {
    let dir = generated(10);
    let ws = dir.path();
    let issues = ws.join(".docket/issues");
    // Two ids held twice, numbered above the generated ISS-0000NN (so ISS-000101 means 000101).
    for (file, title) in [("000101-a.md", "First copy"), ("000101-b.md", "Second copy"), ("000102-a.md", "Other")] {
        std::fs::write(issues.join(file), legacy(&file[..6], title)).unwrap();
    }
    std::fs::write(issues.join("000102-b.md"), legacy("000102", "Other again")).unwrap();
    let doctor = docket(ws, &["doctor", "--json"]);
    assert_eq!(doctor.status.code(), Some(1), "problems --fix repairs");
    let doctor: serde_json::Value = serde_json::from_slice(&doctor.stdout).unwrap();
    let duplicates = doctor["problems"].as_array().unwrap().iter().filter(|p| p["kind"] == "duplicate_id").count();
    assert_eq!(duplicates, 2, "{doctor}");
    let want = "docket: warning: this workspace has 2 duplicate id(s)";
    for args in [&["list"][..], &["show", "000101"], &["show", "ISS-000101"], &["show", "101"], &["board"]] {
        let (code, said) = err(ws, args);
        assert_eq!(code, Some(0), "{args:?}: {said}");
        assert!(said.contains(want), "{args:?} counted otherwise: {said}");
    }
}

#[test]
fn a_person_is_not_told_about_the_error_memory_or_tool_calls() {
    let dir = generated(10);
    let ws = dir.path();
    // The error memory warns an agent after repeated failures; a person sees the error itself.
    for _ in 0..5 {
        let (code, said) = err(ws, &["list", "--status", "done"]);
        assert_eq!(code, Some(1));
        assert!(said.starts_with("docket: Invalid --status 'done'."), "{said}");
        assert!(!said.contains("errors_resolve") && !said.contains("patternId") && !said.contains("issues_"), "{said}");
    }
    ok(ws, &["create", "Mine"]);
    let id = ok(ws, &["create", "Taken"]).trim().to_string();
    ok(ws, &["claim", &id, "--as", "ann"]);
    let (code, said) = err(ws, &["claim", &id, "--as", "bo"]);
    assert_eq!(code, Some(1));
    assert!(said.contains("ann") && said.contains("Run `docket ready`"), "{said}");
    assert!(!said.contains("issues_") && !said.contains("Call "), "{said}");
}
