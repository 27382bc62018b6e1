//! Start anywhere, nothing on disk until a write (issue 40): `docket serve` in a folder with no
//! workspace starts, lists its tools and answers reads empty with a one-line hint; the first
//! write creates `.wrangler/` where wrangler's server would (the folder it was started in, or the
//! one named). Every read-only call leaves the folder as it found it, to the byte, cache included,
//! also in an existing `.wrangler/` that has no cache yet (wrangler's own layout lists `cache/`
//! among the folders `init_workspace` creates). The command line says the same to a person.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{Client, call, is_error, structured, text};
use docket::generated::{TOOLS, input_rules};
use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

/// Every folder and file under `dir` (the cache too), with the bytes of each file.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).expect("list").flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(root).expect("inside").to_string_lossy().into_owned();
            if path.is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                walk(root, &path, out);
            } else {
                out.insert(rel, std::fs::read(&path).expect("read"));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// `docket serve` started in `dir` without `--workspace` or workspace variables, as an MCP client
/// spawns wrangler's server in the project folder.
async fn serve_in(dir: &Path) -> Client {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_docket"));
    cmd.arg("serve").current_dir(dir);
    for var in ["DOCKET_WORKSPACE", "WRANGLER_WORKSPACE_ROOT", "DOCKET_TOOL_STYLE"] {
        cmd.env_remove(var);
    }
    ().serve(TokioChildProcess::new(cmd).expect("spawn docket")).await.expect("initialize")
}

/// Calls that only read, some of them failing (a missing issue or session): those of tools that
/// also write made in their reading form, and every read-only tool, a new one included, with the
/// smallest arguments its manifest accepts when it is not listed here with its own.
fn reads() -> Vec<(&'static str, Value)> {
    let mut calls = vec![
        ("issues_list", json!({})),
        ("issues_search", json!({"query": "login"})),
        ("issues_get", json!({"id": "ISS-000001"})),
        ("issues_get_batch", json!({"ids": ["ISS-000001"]})),
        ("issues_ready", json!({})),
        ("issues_stats", json!({"groupBy": "status"})),
        ("issues_all_complete", json!({})),
        ("issues_labels", json!({"operation": "list"})),
        ("issues_projects", json!({"operation": "list"})),
        ("issues_metadata", json!({"operation": "get", "issueId": "ISS-000001"})),
        ("session_get", json!({})),
        ("session_status", json!({})),
        ("workspace_doctor", json!({})),
        ("init_workspace", json!({})),
    ];
    for tool in TOOLS.iter().filter(|t| t.read_only) {
        if !calls.iter().any(|(name, _)| *name == tool.name) {
            calls.push((tool.name, common::required_only(input_rules(tool.name).expect("rules"))));
        }
    }
    calls
}

/// Makes each read in `dir` and fails on any change to the folder; returns the answers.
async fn reads_change_nothing(client: &Client, dir: &Path) -> Vec<(String, bool, String)> {
    let mut answers = Vec::new();
    for (tool, args) in reads() {
        let before = tree(dir);
        let r = call(client, tool, args.clone()).await;
        let after = tree(dir);
        let changed: Vec<&String> = after.keys().filter(|k| before.get(*k) != after.get(*k)).collect();
        assert!(changed.is_empty() && before.len() == after.len(), "{tool} {args} changed {changed:?}");
        answers.push((tool.to_string(), is_error(&r), text(&r)));
    }
    answers
}

#[test]
fn the_reads_checked_name_tools_the_server_has_and_cover_every_read_only_one() {
    let checked: Vec<&str> = reads().iter().map(|(t, _)| *t).collect();
    for name in &checked {
        assert!(TOOLS.iter().any(|t| t.name == *name), "{name} is not a tool any more: take it out of reads()");
    }
    for tool in TOOLS.iter().filter(|t| t.read_only) {
        assert!(checked.contains(&tool.name), "{} reads and is not checked", tool.name);
    }
}

#[tokio::test]
async fn without_a_workspace_serve_starts_reads_find_nothing_and_the_first_write_creates_wranglers() {
    let dir = tempfile::tempdir().expect("tmp");
    let client = serve_in(dir.path()).await;
    assert_eq!(client.list_all_tools().await.expect("tools/list").len(), TOOLS.len());
    let hint = format!(
        "No workspace yet in {}: nothing is stored until the first write creates {}",
        dir.path().display(),
        dir.path().join(".wrangler").display()
    );
    for (tool, failed, answer) in reads_change_nothing(&client, dir.path()).await {
        assert!(failed || answer.contains(&hint), "{tool}: {answer}");
        assert!(!answer.contains("INTERNAL"), "{tool}: {answer}");
    }
    assert!(tree(dir.path()).is_empty(), "still nothing: {:?}", tree(dir.path()).keys());

    let created = call(&client, "issues_create", json!({"title": "First", "description": "Body."})).await;
    assert!(!is_error(&created) && !text(&created).contains("No workspace yet"), "{}", text(&created));
    assert_eq!(structured(&created)["issue"]["id"], "ISS-000001");
    let files: Vec<String> = tree(dir.path()).into_keys().collect();
    assert_eq!(
        files,
        [
            ".wrangler/",
            ".wrangler/.gitignore",
            ".wrangler/cache/",
            ".wrangler/cache/docket.lock",
            ".wrangler/issues/",
            ".wrangler/issues/ISS-000001-first.md"
        ],
        "wrangler's folder, in the folder the server was started in"
    );
    assert_eq!(std::fs::read_to_string(dir.path().join(".wrangler/.gitignore")).expect("read"), "cache/\n");
    let listed = call(&client, "issues_list", json!({})).await;
    assert!(text(&listed).starts_with("ISS-000001 open medium First") && !text(&listed).contains("No workspace"));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn reads_in_a_wrangler_workspace_without_a_cache_create_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let issues = dir.path().join(".wrangler/issues");
    std::fs::create_dir_all(&issues).expect("mkdir");
    // Enough issues for an index snapshot to be worth writing.
    for n in 1..=60 {
        let file = format!(
            "---\nid: ISS-{n:06}\ntitle: Issue {n} about login\nstatus: open\npriority: medium\nlabels: [auth]\ncreatedAt: 2026-01-01T00:00:00.000Z\nupdatedAt: 2026-01-02T00:00:00.000Z\n---\nBody {n}.\n"
        );
        std::fs::write(issues.join(format!("ISS-{n:06}-issue-{n}.md")), file).expect("write");
    }
    let client = serve_in(dir.path()).await;
    let answers = reads_change_nothing(&client, dir.path()).await;
    assert!(answers.iter().all(|(_, _, a)| !a.contains("No workspace yet")), "{answers:?}");
    let report = answers.iter().find(|(t, _, _)| t == "init_workspace").expect("init_workspace");
    assert!(report.2.contains(".wrangler/cache"), "report mode lists cache/ as missing: {}", report.2);
    client.cancel().await.expect("close");
    // The server's exit saves the index only into a cache a write made.
    assert!(!dir.path().join(".wrangler/cache").exists(), "{:?}", tree(dir.path()).keys());
}

#[test]
fn the_command_line_says_so_in_a_persons_words() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_docket"))
        .arg("list")
        .current_dir(dir.path())
        .env_remove("DOCKET_WORKSPACE")
        .env_remove("WRANGLER_WORKSPACE_ROOT")
        .output()
        .expect("docket runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("No workspace yet in"), "{err}");
    assert!(err.contains("(`docket create`; `docket init` makes a .docket/ workspace instead)"), "{err}");
    assert!(tree(dir.path()).is_empty(), "a listing creates nothing");
}

/// tools/workspace/init.test.ts (wrangler b02bd5f), over MCP in a fresh project: report mode
/// creates nothing and lists `.wrangler/cache` among the folders to create; fix creates them
/// with none reported existing, and a second run finds the workspace compliant.
#[tokio::test]
async fn init_workspace_in_a_fresh_project_as_wranglers_tests_expect() {
    let dir = tempfile::tempdir().expect("tmp");
    let client = serve_in(dir.path()).await;
    let root = dir.path().to_string_lossy().into_owned();
    let report = call(&client, "init_workspace", json!({"fix": false, "projectRoot": root})).await;
    let report = structured(&report);
    assert_eq!(report["status"], "changes_needed");
    let to_create = report["directories"]["created"].as_array().expect("created");
    for folder in [".wrangler/issues", ".wrangler/cache"] {
        assert!(to_create.contains(&json!(folder)), "{folder}: {report}");
    }
    assert!(!dir.path().join(".wrangler").exists(), "report mode creates nothing");

    let done = structured(&call(&client, "init_workspace", json!({"fix": true, "projectRoot": root})).await);
    assert_eq!(done["status"], "initialized", "{done}");
    assert_eq!(done["directories"]["existing"], json!([]), "a fresh project has none: {done}");
    assert_eq!(done["gitignore"]["patternsAdded"], json!(["cache/", "logs/", "sessions/"]), "{done}");
    let ignore = std::fs::read_to_string(dir.path().join(".wrangler/.gitignore")).expect("gitignore");
    assert_eq!(ignore.matches("cache/").count(), 1, "{ignore}");
    let again = structured(&call(&client, "init_workspace", json!({"fix": true, "projectRoot": root})).await);
    assert_eq!(again["status"], "compliant", "{again}");
    client.cancel().await.expect("close");
}
