//! The commands of daily use (`search`, `close`, `reopen`, `edit`, `ready`, `completions`) and
//! the fitted, colourless-when-piped tables: the real binary over a generated workspace.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use docket::store::{IssueFilter, SortField, SortOrder, Status, Store, StoreOptions, Workspace};
use serde_json::Value;

fn generated() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    docket::store::generate::generate_workspace(dir.path(), 40, 7);
    dir
}

fn docket(ws: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_docket"));
    common::in_workspace(cmd.args(args), ws)
        .env_remove("COLUMNS")
        .env_remove("VISUAL")
        .env_remove("EDITOR")
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("docket ran")
}

fn ok(ws: &Path, args: &[&str]) -> String {
    ok_env(ws, args, &[])
}

fn ok_env(ws: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let o = docket(ws, args, env);
    assert!(o.status.success(), "docket {args:?} failed: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).expect("UTF-8")
}

fn store(ws: &Path) -> Store {
    Store::open(Workspace::at(ws).expect("workspace"), StoreOptions::default())
}

fn ids(ws: &Path, status: Status) -> Vec<String> {
    let filter = IssueFilter { status: vec![status], ..IssueFilter::default() };
    store(ws).list(&filter, SortField::Id, SortOrder::Asc).expect("list").value.iter().map(|m| m.id.clone()).collect()
}

fn file_of(ws: &Path, id: &str) -> PathBuf {
    store(ws).get_meta(id).expect("issue").value.path
}

#[test]
fn search_finds_by_title_and_says_when_nothing_matches() {
    let dir = generated();
    let ws = dir.path();
    let target = store(ws).get_meta(&ids(ws, Status::Open)[0]).unwrap().value;
    let word = target.title.split_whitespace().last().unwrap().to_string();
    let out = ok(ws, &["search", &word]);
    assert!(out.lines().next().unwrap().starts_with("ID"), "{out}");
    assert!(out.contains(&target.id), "{word}: {out}");
    assert!(out.lines().last().is_some_and(|l| l.starts_with("Matches 1-") && l.contains(" of ")), "{out}");
    let json: Value = serde_json::from_str(&ok(ws, &["search", &word, "--json"])).unwrap();
    assert!(json["issues"].as_array().unwrap().iter().any(|i| i["id"] == target.id.as_str()));
    let open_only = ok(ws, &["search", &word, "--status", "open"]);
    assert!(
        open_only.lines().skip(1).filter(|l| !l.starts_with("Matches ")).all(|l| l.contains(" open ")),
        "{open_only}"
    );
    assert_eq!(ok(ws, &["search", "zzzz-no-such-text"]), "Nothing matches \"zzzz-no-such-text\".\n");
}

/// A page of matches names the next one as a command a person can paste; following it shows
/// the rest, numbered on from the first page.
#[test]
fn search_pages_name_the_next_page_in_cli_terms() {
    let dir = generated();
    let ws = dir.path();
    let json: Value = serde_json::from_str(&ok(ws, &["search", "fix", "--json", "--limit", "100"])).unwrap();
    let total = json["totalCount"].as_u64().unwrap() as usize;
    assert!(total > 3, "the generated workspace has several matches: {total}");
    let first = ok(ws, &["search", "fix", "--limit", "3"]);
    let footer = first.lines().last().unwrap();
    assert!(
        footer.starts_with(&format!("Matches 1-3 of {total}. Next page: docket search fix --limit 3 --cursor ")),
        "{first}"
    );
    let cursor = footer.rsplit(' ').next().unwrap();
    let second = ok(ws, &["search", "fix", "--limit", "3", "--cursor", cursor]);
    let end = 3 + 3.min(total - 3);
    assert!(second.lines().last().unwrap().starts_with(&format!("Matches 4-{end} of {total}.")), "{second}");
}

/// `--label +L` / `--label=-L` and `--add-label` / `--remove-label` edit the labels and keep the
/// others; a bare `--label` list still replaces them; a mix is refused, naming both ways.
#[test]
fn update_adds_and_removes_labels_keeping_the_others() {
    let dir = generated();
    let ws = dir.path();
    let created = ok(ws, &["create", "A positional title", "--label", "docs,tech-debt"]);
    let id = created.trim();
    assert_eq!(store(ws).get_meta(id).unwrap().value.title, "A positional title");
    let out = ok(ws, &["update", id, "--label", "+urgent"]);
    assert!(out.contains("labels: docs, tech-debt, urgent (added urgent)"), "{out}");
    ok(ws, &["update", id, "--label=-docs", "--status", "in_progress"]);
    let meta = store(ws).get_meta(id).unwrap().value;
    assert_eq!(meta.labels, ["tech-debt", "urgent"]);
    assert_eq!(meta.status, Status::InProgress);
    ok(ws, &["update", id, "--add-label", "api", "--remove-label", "urgent"]);
    assert_eq!(store(ws).get_meta(id).unwrap().value.labels, ["tech-debt", "api"]);
    ok(ws, &["update", id, "--label", "only"]);
    assert_eq!(store(ws).get_meta(id).unwrap().value.labels, ["only"]);
    let mixed = docket(ws, &["update", id, "--label", "a,+b"], &[]);
    assert!(!mixed.status.success());
    let err = String::from_utf8_lossy(&mixed.stderr);
    assert!(err.contains("mixes labels to set with +/- edits") && err.contains("--add-label"), "{err}");
    assert_eq!(store(ws).get_meta(id).unwrap().value.labels, ["only"], "nothing written");
}

#[test]
fn close_and_reopen_move_the_file_and_say_what_they_did() {
    let dir = generated();
    let ws = dir.path();
    let id = ids(ws, Status::Open)[0].clone();
    let out = ok(ws, &["close", &id]);
    assert!(out.starts_with(&format!("Closed {id}: ")), "{out}");
    let closed = file_of(ws, &id);
    assert!(closed.parent().unwrap().ends_with("archived"), "{}", closed.display());
    assert!(std::fs::read_to_string(&closed).unwrap().contains("status: closed"));
    assert!(ok(ws, &["close", &id]).contains("already closed"));

    let out = ok(ws, &["reopen", &id]);
    assert!(out.starts_with(&format!("Reopened {id}: ")), "{out}");
    assert!(std::fs::read_to_string(file_of(ws, &id)).unwrap().contains("status: open"));

    let out = ok(ws, &["close", &id, "--note", "Fixed in the web board."]);
    assert!(out.contains("with completion notes"), "{out}");
    let text = std::fs::read_to_string(file_of(ws, &id)).unwrap();
    assert!(text.contains("Completion Notes") && text.contains("Fixed in the web board."), "{text}");

    let other = ids(ws, Status::Open)[0].clone();
    assert!(ok(ws, &["close", &other, "--cancel"]).starts_with(&format!("Cancelled {other}")));
    let missing = docket(ws, &["close", "ISS-999999"], &[]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("ISS-999999"));
}

#[test]
fn ready_lists_open_unblocked_unassigned_issues_highest_priority_first() {
    let dir = generated();
    let ws = dir.path();
    let json: Value = serde_json::from_str(&ok(ws, &["ready", "--json", "--limit", "1000"])).unwrap();
    let issues = json["issues"].as_array().unwrap();
    let filter = IssueFilter { status: vec![Status::Open], blocked: Some(false), ..IssueFilter::default() };
    let listed = store(ws).list(&filter, SortField::Id, SortOrder::Asc).unwrap().value;
    // Open, unassigned, no open blocker, and no open child (epics are not work to pick up).
    let parents: Vec<String> = listed
        .iter()
        .chain(
            store(ws)
                .list(
                    &IssueFilter { status: vec![Status::InProgress], ..IssueFilter::default() },
                    SortField::Id,
                    SortOrder::Asc,
                )
                .unwrap()
                .value
                .iter(),
        )
        .filter_map(|m| m.context.get("parentTaskId").and_then(|p| p.as_str()).map(str::to_string))
        .collect();
    let expected: Vec<String> = listed
        .iter()
        .filter(|m| m.assignee.as_deref().is_none_or(str::is_empty) && !parents.contains(&m.id))
        .map(|m| m.id.clone())
        .collect();
    assert!(!expected.is_empty(), "the generated workspace has ready issues");
    assert!(json["blocked"].as_i64().is_some(), "{json}");
    let mut got: Vec<String> = issues.iter().map(|i| i["id"].as_str().unwrap().to_string()).collect();
    let rank = |p: &str| ["low", "medium", "high", "critical"].iter().position(|x| *x == p).unwrap();
    let ranks: Vec<usize> = issues.iter().map(|i| rank(i["priority"].as_str().unwrap())).collect();
    assert!(ranks.windows(2).all(|w| w[0] >= w[1]), "highest priority first: {ranks:?}");
    assert!(issues.iter().all(|i| i.get("assignee").is_none() && i["status"] == "open"), "{json}");
    got.sort();
    let mut expected = expected;
    expected.sort();
    assert_eq!(got, expected);
    let table = ok(ws, &["ready", "--limit", "2"]);
    assert_eq!(
        table.lines().filter(|l| l.starts_with("ISS-") || l.starts_with("SPEC-") || l.starts_with("IDEA-")).count(),
        2,
        "{table}"
    );
    assert!(table.contains(&format!("2 of {} ready issues", expected.len())), "{table}");
}

#[test]
fn edit_saves_a_good_edit_and_refuses_a_broken_one_keeping_the_file() {
    let dir = generated();
    let ws = dir.path();
    let id = ids(ws, Status::Open)[0].clone();
    let path = file_of(ws, &id);
    let before = std::fs::read_to_string(&path).unwrap();

    let out = ok_env(ws, &["edit", &id], &[("EDITOR", "sed -i -e 's/^priority: .*/priority: critical/'")]);
    assert!(out.starts_with(&format!("Saved {id}")), "{out}");
    let after = std::fs::read_to_string(&path).unwrap();
    assert!(after.contains("priority: critical"), "{after}");
    assert_eq!(after.lines().count(), before.lines().count(), "only the edited line and updatedAt changed");
    let updated = |t: &str| t.lines().find(|l| l.starts_with("updatedAt:")).map(str::to_string);
    assert_ne!(updated(&after), updated(&before), "an edit is an update: updatedAt moves");
    let changed: Vec<(&str, &str)> = before.lines().zip(after.lines()).filter(|(a, b)| a != b).collect();
    assert_eq!(changed.len(), 2, "{changed:?}");

    let broken = docket(ws, &["edit", &id], &[("VISUAL", "sed -i -e 's/^title: /title: [unclosed /'")]);
    assert_eq!(broken.status.code(), Some(1));
    let why = String::from_utf8_lossy(&broken.stderr).to_string();
    assert!(why.contains("was not saved") && why.contains("is unchanged") && why.contains("kept in"), "{why}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), after, "a broken edit never reaches the file");
    let kept = why.split("kept in ").nth(1).unwrap().split(';').next().unwrap().trim();
    assert!(std::fs::read_to_string(kept).unwrap().contains("title: [unclosed"), "the edit is kept at {kept}");

    let renamed = docket(ws, &["edit", &id], &[("EDITOR", "sed -i -e 's/^id: .*/id: ISS-000999/'")]);
    assert_eq!(renamed.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&renamed.stderr).contains("id changed"));

    assert_eq!(
        ok_env(ws, &["edit", &id], &[("EDITOR", "true")]),
        format!("No change to {id} ({}).\n", path.strip_prefix(ws).unwrap().display())
    );
    let failing = docket(ws, &["edit", &id], &[("EDITOR", "false")]);
    assert_eq!(failing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&failing.stderr).contains("nothing was saved"));
}

/// `edit` that closes an issue does what `docket close` does: the file moves to `archived/` with a
/// `closedAt`; reopening it by hand moves it back and drops `closedAt`. doctor finds nothing.
#[test]
fn edit_that_changes_the_status_moves_the_file_like_an_update() {
    let dir = generated();
    let ws = dir.path();
    let id = ids(ws, Status::Open)[0].clone();
    let path = file_of(ws, &id);
    let out = ok_env(ws, &["edit", &id], &[("EDITOR", "sed -i -e 's/^status: .*/status: closed/'")]);
    assert!(out.contains("moved it to") && out.contains("archived/"), "{out}");
    assert!(!path.exists(), "the file left issues/");
    let archived = file_of(ws, &id);
    assert!(archived.parent().unwrap().ends_with("archived"), "{}", archived.display());
    let text = std::fs::read_to_string(&archived).unwrap();
    assert!(text.lines().any(|l| l.starts_with("closedAt:")), "{text}");
    let doctor = docket(ws, &["doctor"], &[]);
    let report = String::from_utf8_lossy(&doctor.stdout).to_string();
    assert!(!report.contains("misplaced"), "{report}");

    ok_env(ws, &["edit", &id], &[("EDITOR", "sed -i -e 's/^status: .*/status: open/'")]);
    let back = file_of(ws, &id);
    assert_eq!(back, path, "reopened, it is back in issues/");
    assert!(!std::fs::read_to_string(&back).unwrap().contains("closedAt"), "closedAt goes with the reopening");
}

/// Errors speak commands and flags at the command line, not tool calls and parameters.
#[test]
fn errors_name_commands_and_flags_not_tool_calls() {
    let dir = generated();
    let ws = dir.path();
    let bad = docket(ws, &["list", "--status", "open,done"], &[]);
    let said = String::from_utf8_lossy(&bad.stderr).to_string();
    assert_eq!(bad.status.code(), Some(1), "{said}");
    assert!(said.starts_with("docket: Invalid --status 'done'."), "{said}");
    let missing = docket(ws, &["show", "ISS-000999"], &[]);
    let said = String::from_utf8_lossy(&missing.stderr).to_string();
    assert!(said.contains("`docket list` or `docket search TEXT`"), "{said}");
    for out in [&bad, &missing] {
        let text = String::from_utf8_lossy(&out.stderr);
        assert!(!text.contains("issues_"), "a tool name reached a person: {text}");
    }
}

#[test]
fn completions_cover_every_command() {
    let completions =
        |shell: &str| Command::new(env!("CARGO_BIN_EXE_docket")).args(["completions", shell]).output().unwrap();
    for shell in ["bash", "zsh", "fish"] {
        let out = completions(shell);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let script = String::from_utf8(out.stdout).unwrap();
        for command in ["serve", "init", "list", "board", "search", "close", "reopen", "edit", "ready", "web"] {
            assert!(script.contains(command), "{shell} completion lacks {command}");
        }
    }
    assert_eq!(completions("tcsh").status.code(), Some(2), "an unknown shell is a usage error");
}

#[test]
fn piped_tables_have_no_colour_and_fit_columns() {
    let dir = generated();
    let ws = dir.path();
    for command in [&["list", "--all"][..], &["board"][..], &["ready"][..]] {
        let plain = ok_env(ws, command, &[("COLUMNS", "60")]);
        assert!(!plain.contains('\u{1b}'), "no escape codes in a pipe: {plain}");
        assert!(plain.lines().all(|l| l.chars().count() <= 60), "{command:?} at 60:\n{plain}");
        let wide = ok_env(ws, command, &[("COLUMNS", "160")]);
        assert!(wide.lines().all(|l| l.chars().count() <= 160), "{command:?} at 160:\n{wide}");
    }
    let narrow = ok_env(ws, &["list"], &[("COLUMNS", "60")]);
    assert!(!narrow.lines().next().unwrap().contains("TYPE"), "TYPE goes first when narrow: {narrow}");
    let wide = ok_env(ws, &["list"], &[("COLUMNS", "160")]);
    assert!(wide.lines().next().unwrap().contains("TYPE"), "{wide}");
}

/// `show` wraps a long body at the terminal's width between words (list items hang under their
/// text) and gives dates with how long ago they were.
#[test]
fn show_wraps_the_body_between_words_and_says_how_old_dates_are() {
    let dir = generated();
    let ws = dir.path();
    let long =
        "word ".repeat(60) + "\n- a list item " + &"that goes on ".repeat(12) + "\n```\n" + &"x".repeat(90) + "\n```\n";
    let id = ok(ws, &["create", "Long lines", "--description", &long]).trim().to_string();
    let out = ok_env(ws, &["show", &id], &[("COLUMNS", "60")]);
    let body: Vec<&str> = out.lines().skip_while(|l| !l.is_empty()).skip(1).collect();
    assert!(body.len() > 8, "the long lines were broken: {out}");
    for line in body.iter().filter(|l| !l.starts_with("xxx")) {
        assert!(line.chars().count() <= 60, "wider than 60: {line:?}\n{out}");
        assert!(!line.ends_with("wor") && !line.starts_with("d "), "a word was cut: {line:?}");
    }
    assert!(body.iter().any(|l| l.starts_with("  goes on that")), "a list item hangs under its text: {out}");
    assert!(body.contains(&"x".repeat(90).as_str()), "code is kept as written: {out}");
    let created = out.lines().find(|l| l.starts_with("Created:")).expect("Created line");
    assert!(created.ends_with("(just now)"), "{created}");
}
