//! `docket import` finishes and keeps everything (issue 46): two collections inside a real git
//! repository, two imports at once, two projects into one workspace, items too large or not
//! UTF-8, links and special files, old ids that still answer, drafts off the ready queue, kinds
//! kept as labels, one summary line per collection, and a dry run that creates nothing.

use crate::common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// An import of a handful of files takes well under a second; a hang is killed at this bound
/// (then the test fails, instead of hanging the suite).
const BOUND: Duration = Duration::from_secs(60);

/// `cmd` to its end, its output in files (a full pipe never holds it up), killed and the test
/// failed after [`BOUND`].
fn bounded(cmd: &mut Command, what: &str) -> Output {
    let out = tempfile::tempfile().expect("temp file");
    let err = tempfile::tempfile().expect("temp file");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(out.try_clone().expect("clone"))
        .stderr(err.try_clone().expect("clone"))
        .spawn()
        .expect("runs");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > BOUND {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish within {BOUND:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |mut f: std::fs::File| {
        use std::io::{Read, Seek};
        let mut v = Vec::new();
        f.rewind().expect("rewind");
        f.read_to_end(&mut v).expect("read");
        v
    };
    Output { status, stdout: read(out), stderr: read(err) }
}

/// The command `docket ARGS --workspace ROOT`.
fn docket_cmd(root: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_docket"));
    cmd.args(args);
    common::in_workspace(&mut cmd, root);
    cmd
}

/// The command `docket ARGS` run in `dir` as a user types it there, naming no workspace.
fn docket_here(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_docket"));
    cmd.args(args).current_dir(dir).env_remove("DOCKET_WORKSPACE").env_remove("WRANGLER_WORKSPACE_ROOT");
    cmd
}

/// `docket ARGS --workspace ROOT`, bounded.
fn docket(root: &Path, args: &[&str]) -> Output {
    bounded(&mut docket_cmd(root, args), &format!("docket {args:?}"))
}

fn ok(root: &Path, args: &[&str]) -> String {
    let o = docket(root, args);
    assert!(
        o.status.success(),
        "docket {args:?} failed: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("UTF-8")
}

/// A git repository with a docket workspace made by `docket init .`, as a new user makes one.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    common::git(dir.path(), &["init", "-q", "-b", "main"]);
    let o = bounded(&mut docket_here(dir.path(), &["init", "."]), "docket init .");
    assert!(o.status.success(), "docket init: {}", String::from_utf8_lossy(&o.stderr));
    dir
}

/// [`repo`], and a folder outside it for what is imported.
fn repo_and_input() -> (tempfile::TempDir, tempfile::TempDir) {
    (repo(), tempfile::tempdir().expect("temp dir"))
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn backlog_task(id: &str, title: &str) -> String {
    format!(
        "---\nid: {id}\ntitle: {title}\nstatus: To Do\nassignee: []\ncreated_date: '2025-07-01'\nlabels: []\ndependencies: []\n---\n\n{title} body\n"
    )
}

#[test]
fn a_task_and_a_draft_inside_git_import_to_the_end() {
    let dir = repo();
    let root = dir.path();
    write(&root.join("backlog/tasks/task-1 - One.md"), &backlog_task("task-1", "One"));
    write(&root.join("backlog/drafts/draft-1 - Idea.md"), &backlog_task("draft-1", "Idea"));
    let summary = ok(root, &["import", "backlog", "."]);
    assert!(summary.contains("ISS-000001") && summary.contains("IDEA-000001"), "{summary}");
    let list = ok(root, &["list", "--json"]);
    assert!(list.contains("One") && list.contains("Idea"), "{list}");
}

/// A beads export of `n` issues, each but the first blocked by the one before it.
fn many_beads(n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        let deps = if i == 0 {
            serde_json::json!([])
        } else {
            serde_json::json!([{"issue_id": format!("bd-{i}"), "depends_on_id": format!("bd-{}", i - 1), "type": "blocks"}])
        };
        let line = serde_json::json!({"id": format!("bd-{i}"), "title": format!("Issue {i}"), "status": "open",
            "priority": 2, "issue_type": "task", "created_at": "2026-01-02T03:04:05Z", "dependencies": deps});
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}

fn imported_froms(root: &Path) -> Vec<String> {
    let store = docket::store::Store::open(
        docket::store::Workspace::at(root).expect("workspace"),
        docket::store::StoreOptions::default(),
    );
    let all = store
        .list(&docket::store::IssueFilter::default(), docket::store::SortField::Created, docket::store::SortOrder::Asc)
        .expect("list")
        .value;
    let mut froms: Vec<String> = all
        .iter()
        .map(|m| m.context.get("importedFrom").and_then(|v| v.as_str()).unwrap_or("(none)").to_string())
        .collect();
    froms.sort();
    froms
}

#[test]
fn two_imports_at_once_bring_each_issue_once() {
    let (dir, input) = repo_and_input();
    let root = dir.path();
    let file = input.path().join("issues.jsonl");
    std::fs::write(&file, many_beads(300)).unwrap();
    let spawn = || {
        let mut cmd = docket_cmd(root, &["import", "beads", file.to_str().unwrap()]);
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("runs")
    };
    let (a, b) = (spawn(), spawn());
    let mut creating = 0;
    for child in [a, b] {
        let o = child.wait_with_output().expect("wait");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let out = String::from_utf8_lossy(&o.stdout);
        let n = out.split("Creating ").nth(1).and_then(|r| r.split('.').next()).and_then(|n| n.parse::<usize>().ok());
        creating += n.unwrap_or_else(|| panic!("no count in {out}"));
    }
    assert_eq!(creating, 300, "the two summaries say they created each issue once");
    let froms = imported_froms(root);
    let mut unique = froms.clone();
    unique.dedup();
    assert_eq!(froms.len(), 300, "each issue once: {} files for 300 issues", froms.len());
    assert_eq!(unique.len(), 300);
    let map = std::fs::read_to_string(root.join(".docket/import/beads-idmap.tsv")).expect("id map");
    assert_eq!(map.lines().count(), 301, "{map}");
}

#[test]
fn two_backlog_projects_into_one_workspace_keep_both() {
    let (dir, input) = repo_and_input();
    let root = dir.path();
    for project in ["projA", "projB"] {
        for n in 1..=3 {
            let file = input.path().join(format!("{project}/backlog/tasks/task-{n} - T.md"));
            write(&file, &backlog_task(&format!("task-{n}"), &format!("{project} {n}")));
        }
    }
    // A third project named in its config.yml, imported through its backlog/ folder.
    write(&input.path().join("projC/backlog/config.yml"), "project_name: \"Third\"\n");
    write(&input.path().join("projC/backlog/tasks/task-1 - T.md"), &backlog_task("task-1", "projC 1"));
    let path = |p: &str| input.path().join(p).to_str().unwrap().to_string();
    ok(root, &["import", "backlog", &path("projA")]);
    let b = ok(root, &["import", "backlog", &path("projB")]);
    assert!(b.contains("0 already imported") && b.contains("Creating 3"), "{b}");
    ok(root, &["import", "backlog", &path("projC/backlog")]);
    let froms = imported_froms(root);
    assert_eq!(froms.len(), 7, "{froms:?}");
    let list = ok(root, &["list", "--json", "--limit", "100"]);
    for title in ["projA 1", "projA 3", "projB 1", "projB 3", "projC 1"] {
        assert!(list.contains(title), "{title} missing: {list}");
    }
    let map = std::fs::read_to_string(root.join(".docket/import/backlog-idmap.tsv")).expect("id map");
    assert!(map.contains("\tprojA\n") && map.contains("\tprojB\n") && map.contains("\tThird\n"), "{map}");

    // Again, each: nothing changes.
    let before = common::snapshot(&root.join(".docket"));
    for p in ["projA", "projB", "projC"] {
        let again = ok(root, &["import", "backlog", &path(p)]);
        assert!(again.contains("Creating 0"), "{again}");
    }
    assert_eq!(common::snapshot_diff(&before, &common::snapshot(&root.join(".docket"))), Vec::<String>::new());
}

/// The part of a summary under "Needs a person".
fn needs_a_person(summary: &str) -> &str {
    summary.split("Needs a person").nth(1).unwrap_or_else(|| panic!("no \"Needs a person\" in {summary}"))
}

#[test]
fn a_byte_that_is_not_utf8_skips_its_line_and_the_rest_comes_in() {
    let (dir, input) = repo_and_input();
    let root = dir.path();
    let file = input.path().join("issues.jsonl");
    let lines = many_beads(3);
    let mut bytes = Vec::new();
    for (n, line) in lines.lines().enumerate() {
        let line = if n == 1 { line.replace("Issue 1", "Caf\u{1}") } else { line.to_string() };
        // A Latin-1 é (0xE9) where the marker is.
        bytes.extend(line.as_bytes().iter().map(|b| if *b == 1 { 0xE9 } else { *b }));
        bytes.push(b'\n');
    }
    std::fs::write(&file, bytes).unwrap();
    let summary = ok(root, &["import", "beads", file.to_str().unwrap()]);
    assert!(needs_a_person(&summary).contains("issues.jsonl:2: not UTF-8"), "{summary}");
    assert_eq!(imported_froms(root), ["beads:bd-0", "beads:bd-2"]);

    // A Backlog.md task with one such byte on its third line: named by FILE:LINE, the others come in.
    let project = input.path().join("proj");
    write(&project.join("backlog/tasks/task-1 - A.md"), &backlog_task("task-1", "Good one"));
    let mut bad = backlog_task("task-2", "Bad one").into_bytes();
    let at = bad.windows(3).position(|w| w == b"Bad").unwrap();
    bad[at + 1] = 0xE9;
    std::fs::write(project.join("backlog/tasks/task-2 - B.md"), bad).unwrap();
    let summary = ok(root, &["import", "backlog", project.to_str().unwrap()]);
    assert!(needs_a_person(&summary).contains("task-2 - B.md:3: not UTF-8"), "{summary}");
    assert_eq!(imported_froms(root), ["backlog:task-1", "beads:bd-0", "beads:bd-2"]);
}

#[test]
fn links_and_special_files_are_refused_and_named() {
    let (dir, input) = repo_and_input();
    let root = dir.path();
    let outside = tempfile::tempdir().expect("temp dir");
    let secret = outside.path().join("secret.md");
    std::fs::write(&secret, backlog_task("task-2", "OUTSIDE-TEXT-1234")).unwrap();
    let tasks = input.path().join("proj/backlog/tasks");
    write(&tasks.join("task-1 - A.md"), &backlog_task("task-1", "Plain"));
    std::os::unix::fs::symlink(&secret, tasks.join("task-2 - Link.md")).unwrap();
    let fifo = tasks.join("task-3 - Fifo.md");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    std::os::unix::fs::symlink("/dev/zero", tasks.join("task-4 - Zero.md")).unwrap();

    let summary = ok(root, &["import", "backlog", input.path().join("proj").to_str().unwrap()]);
    let needs = needs_a_person(&summary);
    for name in [
        "task-2 - Link.md: a symbolic link",
        "task-3 - Fifo.md: not a regular file",
        "task-4 - Zero.md: a symbolic link",
    ] {
        assert!(needs.contains(name), "{name} not named:\n{summary}");
    }
    assert_eq!(imported_froms(root), ["backlog:task-1"]);
    let copied = common::snapshot(&root.join(".docket"));
    assert!(
        !copied.values().any(|bytes| String::from_utf8_lossy(bytes).contains("OUTSIDE-TEXT-1234")),
        "text from outside the project landed in the workspace"
    );

    // A beads export that is a FIFO is refused, not waited on.
    let o = docket(root, &["import", "beads", fifo.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("FIFO"), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn an_issue_too_large_to_read_is_cut_with_its_whole_text_kept_once() {
    let (dir, input) = repo_and_input();
    let root = dir.path();
    let file = input.path().join("issues.jsonl");
    // 12 MB of text, over the 8 MB an issue file may hold, in lines of 100 bytes.
    let line = format!("{}\n", "y".repeat(99));
    let huge = line.repeat(12 * 1024 * 1024 / line.len());
    let mut lines: Vec<serde_json::Value> = many_beads(3).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    lines[1]["description"] = serde_json::Value::String(huge.clone());
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, text).unwrap();

    let summary = ok(root, &["import", "beads", file.to_str().unwrap()]);
    let needs = needs_a_person(&summary);
    assert!(needs.contains("issues.jsonl:2: bd-1: its text is 12.0 MB"), "{summary}");
    assert!(needs.contains(".docket/import/full/beads-bd-1.md"), "{summary}");
    // docket reads it back: it is listed and shown, not skipped as too large.
    assert_eq!(imported_froms(root), ["beads:bd-0", "beads:bd-1", "beads:bd-2"]);
    let shown = ok(root, &["show", "ISS-000002"]);
    assert!(shown.contains("yyyy"), "{}", &shown[..shown.len().min(500)]);
    let issue = std::fs::read_dir(root.join(".docket/issues"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with("ISS-000002"))
        .expect("the issue file");
    let written = std::fs::read_to_string(&issue).unwrap();
    assert!(written.len() <= docket::store::MAX_FILE_BYTES as usize, "{} bytes", written.len());
    assert!(written.contains("docket import cut this text"), "{}", &written[written.len() - 300..]);
    let whole = std::fs::read_to_string(root.join(".docket/import/full/beads-bd-1.md")).expect("the whole text");
    assert_eq!(whole.trim_end(), huge.trim_end());

    // A second import brings no second copy.
    let before = common::snapshot(&root.join(".docket"));
    let again = ok(root, &["import", "beads", file.to_str().unwrap()]);
    assert!(again.contains("3 already imported"), "{again}");
    assert_eq!(common::snapshot_diff(&before, &common::snapshot(&root.join(".docket"))), Vec::<String>::new());
}

/// A Backlog.md project in `input` with the tasks BACK-100 ("Hundred") and BACK-2.1 ("Sub
/// task"), which an import into an empty workspace makes ISS-000001 and ISS-000002.
fn hundred_and_sub_task(input: &Path) -> std::path::PathBuf {
    let project = input.join("proj");
    write(&project.join("backlog/tasks/back-100 - H.md"), &backlog_task("BACK-100", "Hundred"));
    write(&project.join("backlog/tasks/back-2.1 - S.md"), &backlog_task("BACK-2.1", "Sub task"));
    project
}

/// `docket show OLD` shows NEW (titled TITLE) and says which issue OLD became; `docket search
/// OLD` finds NEW.
fn names(root: &Path, old: &str, new: &str, title: &str) {
    let o = docket(root, &["show", old]);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "show {old}: {err}");
    assert!(out.starts_with(&format!("{new}  {title}")), "show {old}: {out}");
    assert!(err.contains(&format!("it is {new}")), "show {old} says which issue it became: {err}");
    let found = ok(root, &["search", old]);
    assert!(found.contains(new), "search {old}: {found}");
}

/// A write through `old` (ISS-000001's old id) changes ISS-000001.
fn writes_through(root: &Path, old: &str) {
    ok(root, &["update", old, "--priority", "high"]);
    assert!(ok(root, &["show", "ISS-000001"]).contains("high"));
}

/// issues_get of `old` (ISS-000002's old id) answers with ISS-000002.
async fn get_through(client: &common::Client, old: &str) -> rmcp::model::CallToolResult {
    let r = common::call(client, "issues_get", serde_json::json!({"id": old})).await;
    assert!(!common::is_error(&r), "{}", common::text(&r));
    assert_eq!(common::structured(&r)["issue"]["id"], "ISS-000002");
    r
}

#[tokio::test]
async fn old_ids_still_name_the_issues_they_became() {
    let (dir, input) = repo_and_input();
    let root = dir.path().to_path_buf();
    let project = hundred_and_sub_task(input.path());
    ok(&root, &["import", "backlog", project.to_str().unwrap()]);
    let file = input.path().join("issues.jsonl");
    std::fs::write(&file, many_beads(2).replace("bd-1", "bd-a1b2.3")).unwrap();
    ok(&root, &["import", "beads", file.to_str().unwrap()]);
    // ISS-000001 BACK-100, ISS-000002 BACK-2.1, ISS-000003 bd-0, ISS-000004 bd-a1b2.3.

    for (old, new, title) in [
        ("BACK-100", "ISS-000001", "Hundred"),
        ("back-2.1", "ISS-000002", "Sub task"),
        ("bd-a1b2.3", "ISS-000004", "Issue 1"),
    ] {
        names(&root, old, new, title);
    }
    // A write through the old id changes the issue it became.
    writes_through(&root, "BACK-100");

    // MCP: a tool's id argument takes the old id too, and the warning says which issue it is.
    let client = common::start(&root).await;
    let r = get_through(&client, "BACK-2.1").await;
    let meta = serde_json::to_value(&r.meta).expect("meta");
    assert_eq!(meta["warnings"][0]["code"], "IMPORTED_ID", "{meta}");
    let r = common::call(&client, "issues_search", serde_json::json!({"query": "bd-a1b2.3"})).await;
    assert!(common::text(&r).contains("ISS-000004"), "{}", common::text(&r));
    client.cancel().await.expect("close");

    // An id nothing had is still not found.
    assert!(!docket(&root, &["show", "BACK-999"]).status.success());
}

/// Backlog.md named its tasks `task-N` before its prefix became configurable, so one task is
/// `BACK-100` in its file and `task-100`, `TASK-100` or `back-100` in commits and branch names:
/// each spelling names the issue it became, in the CLI, the tools and the board's search; a
/// draft's number and another tracker's prefix do not.
#[tokio::test]
async fn old_backlog_ids_in_every_spelling_name_the_task() {
    let (dir, input) = repo_and_input();
    let root = dir.path().to_path_buf();
    let project = hundred_and_sub_task(input.path());
    write(&project.join("backlog/drafts/draft-3 - D.md"), &backlog_task("DRAFT-3", "Draft three"));
    ok(&root, &["import", "backlog", project.to_str().unwrap()]);
    // ISS-000001 BACK-100, ISS-000002 BACK-2.1, IDEA-000001 DRAFT-3.

    for (old, new, title) in [
        ("task-100", "ISS-000001", "Hundred"),
        ("TASK-100", "ISS-000001", "Hundred"),
        ("back-100", "ISS-000001", "Hundred"),
        ("Task-2.1", "ISS-000002", "Sub task"),
        ("draft-3", "IDEA-000001", "Draft three"),
    ] {
        names(&root, old, new, title);
    }
    for unknown in ["task-3", "bd-100", "task-999", "idea-100"] {
        let o = docket(&root, &["show", unknown]);
        assert!(!o.status.success(), "show {unknown} names nothing: {}", String::from_utf8_lossy(&o.stdout));
    }
    // A write through the old spelling changes the issue it became.
    writes_through(&root, "task-100");

    let client = common::start(&root).await;
    get_through(&client, "task-2.1").await;
    let r = common::call(&client, "issues_search", serde_json::json!({"query": "TASK-100"})).await;
    assert!(common::text(&r).contains("ISS-000001"), "{}", common::text(&r));
    client.cancel().await.expect("close");

    // The board's search box.
    let board = common::http::WebBoard::start(&root, &[]);
    let url = format!("{}/api/board?q=task-100", board.origin());
    let page = reqwest::get(&url).await.expect("GET /api/board").text().await.expect("body");
    assert!(page.contains("ISS-000001"), "the board finds task-100: {page}");
    assert!(!page.contains("ISS-000002"), "and only it: {page}");
}

/// The ids `docket ready --json` lists.
fn ready_ids(root: &Path) -> Vec<String> {
    let ready: serde_json::Value = serde_json::from_str(&ok(root, &["ready", "--json"])).expect("JSON");
    ready["issues"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_string()).collect()
}

#[test]
fn drafts_stay_off_ready_kinds_show_and_the_summary_has_a_line_per_collection() {
    let (dir, input) = repo_and_input();
    let root = dir.path();
    let project = input.path().join("proj");
    write(&project.join("backlog/tasks/task-1 - One.md"), &backlog_task("task-1", "Work"));
    // The draft is older: were it offered, it would come first.
    write(
        &project.join("backlog/drafts/draft-1 - Idea.md"),
        &backlog_task("draft-1", "Someday").replace("2025-07-01", "2025-01-01"),
    );
    let summary = ok(root, &["import", "backlog", project.to_str().unwrap()]);
    assert!(summary.contains("Created 1 issue(s): ISS-000001 .. ISS-000001.\n"), "{summary}");
    assert!(summary.contains("Created 1 idea(s): IDEA-000001 .. IDEA-000001.\n"), "{summary}");
    let ids = ready_ids(root);
    assert_eq!(ids, ["ISS-000001"], "the draft stays off the ready queue");

    // beads' issue_type: a label a person and the filters see; an epic of open work is held back.
    let file = input.path().join("issues.jsonl");
    let epic = serde_json::json!({"id": "bd-e", "title": "The epic", "status": "open", "issue_type": "epic"});
    let child = serde_json::json!({"id": "bd-e.1", "title": "A bug", "status": "open", "issue_type": "bug",
        "dependencies": [{"issue_id": "bd-e.1", "depends_on_id": "bd-e", "type": "parent-child"}]});
    std::fs::write(&file, format!("{epic}\n{child}\n")).unwrap();
    ok(root, &["import", "beads", file.to_str().unwrap()]);
    let epics: serde_json::Value =
        serde_json::from_str(&ok(root, &["list", "--label", "kind:epic", "--json"])).unwrap();
    let titles: Vec<&str> = epics["issues"].as_array().unwrap().iter().map(|i| i["title"].as_str().unwrap()).collect();
    assert_eq!(titles, ["The epic"]);
    assert!(ok(root, &["show", "bd-e.1"]).contains("kind:bug"));
    let ids = ready_ids(root);
    let has = |id: &str| ids.iter().any(|i| i == id);
    assert!(has("ISS-000003") && !has("ISS-000002"), "the epic is a container: {ids:?}");
}

#[test]
fn a_dry_run_names_the_workspace_and_creates_nothing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    common::git(root, &["init", "-q", "-b", "main"]);
    let input = tempfile::tempdir().expect("temp dir");
    let project = input.path().join("proj");
    write(&project.join("backlog/tasks/task-1 - One.md"), &backlog_task("task-1", "Work"));
    write(&project.join("backlog/drafts/draft-1 - Idea.md"), &backlog_task("draft-1", "Someday"));
    let before = common::snapshot(root);
    let mut cmd = docket_here(root, &["import", "backlog", project.to_str().unwrap(), "--dry-run"]);
    cmd.env("GIT_CONFIG_NOSYSTEM", "1").env("GIT_CONFIG_GLOBAL", "/dev/null");
    let o = bounded(&mut cmd, "docket import --dry-run");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("Would create 2"), "{out}");
    let real = root.canonicalize().unwrap();
    assert!(
        out.contains("Would write to the workspace ") && out.contains("it does not exist yet"),
        "the dry run names where it would write: {out}"
    );
    assert!(out.contains(&real.display().to_string()) || out.contains(&root.display().to_string()), "{out}");
    assert_eq!(
        common::snapshot_diff(&before, &common::snapshot(root)),
        Vec::<String>::new(),
        "a dry run creates nothing"
    );
    assert!(std::fs::read_dir(root).unwrap().all(|e| e.unwrap().file_name() == ".git"));
}
