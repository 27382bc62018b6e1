//! Working in a team (issue 15): real git repositories in temporary directories, driven through
//! the real `docket` binary: branch-aware ids across worktrees, `docket doctor [--fix]`, and the
//! merge driver for issue files.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json as value};

use crate::common;
use crate::on_each_fixture;

use common::{docket, git};

fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
}

/// `docket ARGS --workspace ROOT` with extra environment variables.
fn docket_env(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_docket"));
    common::in_workspace(cmd.args(args), root);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("docket runs")
}

fn ok(root: &Path, args: &[&str]) -> String {
    let o = docket(root, args);
    assert!(o.status.success(), "docket {args:?} failed: {}{}", text(&o.stdout), text(&o.stderr));
    text(&o.stdout)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn json(s: &str) -> Value {
    serde_json::from_str(s).unwrap_or_else(|e| panic!("not JSON ({e}): {s}"))
}

fn all_issues(root: &Path) -> Vec<Value> {
    json(&ok(root, &["list", "--all", "--json", "--format", "full"]))["issues"].as_array().cloned().expect("issues")
}

/// `docket doctor --json [--fix]`: the report and whether the command said the workspace is clean.
/// Its exit code says what is left: 0 nothing, 1 problems `--fix` repairs, 3 only problems that
/// need a person.
fn doctor(root: &Path, fix: bool) -> (Value, bool) {
    let args: &[&str] = if fix { &["doctor", "--json", "--fix"] } else { &["doctor", "--json"] };
    let o = docket(root, args);
    let report = json(&text(&o.stdout));
    let problems = report["problems"].as_array().expect("problems");
    let expected = if problems.is_empty() {
        0
    } else if problems.iter().any(|p| p["fixable"] == true) {
        1
    } else {
        3
    };
    assert_eq!(o.status.code(), Some(expected), "doctor exit code for {report}: {}", text(&o.stderr));
    (report, o.status.success())
}

fn problems_of(report: &Value, kind: &str) -> Vec<Value> {
    report["problems"].as_array().expect("problems").iter().filter(|p| p["kind"] == kind).cloned().collect()
}

/// A repository with a committed `.docket/` workspace and two linked worktrees, `a` and `b`.
fn repo_with_worktrees() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = tmp.path().join("main");
    std::fs::create_dir_all(&main).expect("mkdir");
    git(&main, &["init", "-q", "-b", "main"]);
    docket::store::Workspace::init(&main).expect("init");
    // Each worktree numbers its own branch's files here (the default shares main's workspace).
    std::fs::write(main.join(".docket/config/docket.yaml"), "worktrees: local\n").expect("config");
    commit_all(&main, "docket workspace");
    let (a, b) = (tmp.path().join("wt-a"), tmp.path().join("wt-b"));
    git(&main, &["worktree", "add", "-q", a.to_str().expect("utf-8"), "-b", "a"]);
    git(&main, &["worktree", "add", "-q", b.to_str().expect("utf-8"), "-b", "b"]);
    (tmp, main, a, b)
}

/// 30 issues in each worktree, created in turns: every fifth a parent, the four after it its
/// children (`--parent`). Titles say which worktree and which parent, so references can be checked.
fn create_thirty_each(a: &Path, b: &Path, env: &[(&str, &str)]) {
    let mut parents: BTreeMap<&str, String> = BTreeMap::new();
    for i in 0..30 {
        for (name, root) in [("a", a), ("b", b)] {
            let o = if i % 5 == 0 {
                docket_env(root, &["create", "--title", &format!("{name} parent {i}")], env)
            } else {
                let parent = parents[name].clone();
                let title = format!("{name} child {i} of {name} parent {}", i - i % 5);
                docket_env(root, &["create", "--title", &title, "--parent", &parent], env)
            };
            assert!(o.status.success(), "create failed: {}", text(&o.stderr));
            if i % 5 == 0 {
                parents.insert(name, text(&o.stdout).trim().to_string());
            }
        }
    }
}

fn merge_both(main: &Path) {
    git(main, &["merge", "-q", "--no-edit", "a"]);
    git(main, &["merge", "-q", "--no-edit", "b"]);
}

#[test]
fn two_worktrees_create_thirty_issues_each_and_merge_to_sixty_distinct_ids() {
    let (_tmp, main, a, b) = repo_with_worktrees();
    create_thirty_each(&a, &b, &[]);
    commit_all(&a, "thirty in a");
    commit_all(&b, "thirty in b");
    merge_both(&main);
    let issues = all_issues(&main);
    let ids: BTreeSet<&str> = issues.iter().map(|i| i["id"].as_str().expect("id")).collect();
    assert_eq!((issues.len(), ids.len()), (60, 60), "{ids:?}");
    assert!(ids.contains("ISS-000001") && ids.contains("ISS-000060"), "numbered 1..60 in turns: {ids:?}");
    assert_eq!(common::assert_parents_intact(&issues), 48);
    let (report, clean) = doctor(&main, false);
    assert!(clean && report["total"] == 0, "{report}");
}

#[test]
fn without_branch_aware_ids_the_merge_duplicates_and_doctor_fix_repairs_it() {
    let (_tmp, main, a, b) = repo_with_worktrees();
    create_thirty_each(&a, &b, &[("DOCKET_BRANCH_AWARE_IDS", "false")]);
    commit_all(&a, "thirty in a");
    commit_all(&b, "thirty in b");
    merge_both(&main);
    let issues = all_issues(&main);
    let ids: BTreeSet<&str> = issues.iter().map(|i| i["id"].as_str().expect("id")).collect();
    assert_eq!((issues.len(), ids.len()), (60, 30), "both branches numbered 1..30");

    let before = std::fs::read_dir(main.join(".docket/issues")).expect("ls").count();
    let (report, clean) = doctor(&main, false);
    assert!(!clean);
    let dups: BTreeSet<String> =
        problems_of(&report, "duplicate_id").iter().map(|p| p["id"].as_str().expect("id").to_string()).collect();
    let expected: BTreeSet<String> = (1..=30).map(|n| format!("ISS-{n:06}")).collect();
    assert_eq!(dups, expected, "every duplicated id is reported");
    assert_eq!(std::fs::read_dir(main.join(".docket/issues")).expect("ls").count(), before, "no --fix, no write");

    let (fixed, clean) = doctor(&main, true);
    assert!(clean, "{fixed}");
    let changes: Vec<&str> = fixed["changes"].as_array().expect("changes").iter().filter_map(Value::as_str).collect();
    assert_eq!(changes.iter().filter(|c| c.starts_with("renumbered")).count(), 30, "{changes:?}");
    assert_eq!(changes.iter().filter(|c| c.starts_with("rewrote parentTaskId")).count(), 24, "{changes:?}");
    let issues = all_issues(&main);
    let ids: BTreeSet<&str> = issues.iter().map(|i| i["id"].as_str().expect("id")).collect();
    assert_eq!((issues.len(), ids.len()), (60, 60));
    assert_eq!(common::assert_parents_intact(&issues), 48);
    let (again, clean) = doctor(&main, false);
    assert!(clean && again["total"] == 0, "a second run reports nothing: {again}");
}

#[test]
fn a_branch_checked_out_nowhere_still_raises_the_next_id() {
    let (_tmp, main, a, _b) = repo_with_worktrees();
    for i in 0..3 {
        ok(&a, &["create", "--title", &format!("on a {i}")]);
    }
    commit_all(&a, "three on a");
    git(&main, &["worktree", "remove", a.to_str().expect("utf-8")]);
    assert_eq!(ok(&main, &["create", "--title", "on main"]).trim(), "ISS-000004");
    let cache = std::fs::read_to_string(main.join(".docket/cache/git-ids.json")).expect("the per-commit cache");
    let tip = git(&main, &["rev-parse", "a"]);
    assert!(cache.contains(&format!("\"{} .docket/issues\":3", tip.trim())), "{cache}");
    let off = docket_env(&main, &["create", "--title", "off"], &[("DOCKET_BRANCH_AWARE_IDS", "false")]);
    assert_eq!(text(&off.stdout).trim(), "ISS-000005", "the working tree's own numbering still counts");
    // A cache that is garbage (a bad write, a merge of a committed cache) is ignored and rebuilt.
    for f in std::fs::read_dir(main.join(".docket/issues")).expect("ls").flatten() {
        std::fs::remove_file(f.path()).ok();
    }
    std::fs::write(main.join(".docket/cache/git-ids.json"), "<<<<<<< ours\n{\"x\": 1}\n").expect("garbage");
    assert_eq!(ok(&main, &["create", "--title", "after garbage"]).trim(), "ISS-000004", "above branch a's 3");
    let cache = std::fs::read_to_string(main.join(".docket/cache/git-ids.json")).expect("rebuilt");
    assert!(cache.contains(&format!("\"{} .docket/issues\":3", tip.trim())), "{cache}");
}

/// `docket show ID --json` of the merged file, after the merge in `main`.
fn show(root: &Path, id: &str) -> Value {
    json(&ok(root, &["show", id, "--json"]))["issue"].clone()
}

/// One issue, changed on two branches of a repository set up with `docket git-setup`.
fn one_issue_two_branches(
    first: &str,
    second: &str,
    change_one: &[&str],
    change_two: &[&str],
) -> (tempfile::TempDir, PathBuf, Output) {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = tmp.path().to_path_buf();
    git(&main, &["init", "-q", "-b", "main"]);
    docket::store::Workspace::init(&main).expect("init");
    let setup = ok(&main, &["git-setup"]);
    assert!(setup.contains("merge.docket.driver"), "{setup}");
    ok(&main, &["create", "--title", "Shared", "--label", "a", "--description", "line 1\nline 2\nline 3\n"]);
    commit_all(&main, "one issue");
    for (branch, change) in [(first, change_one), (second, change_two)] {
        git(&main, &["checkout", "-q", "-b", branch, "main"]);
        let mut args = vec!["update", "ISS-000001"];
        args.extend_from_slice(change);
        ok(&main, &args);
        commit_all(&main, branch);
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    git(&main, &["checkout", "-q", "main"]);
    git(&main, &["merge", "-q", first]);
    // May stop on a conflict: the caller judges the outcome.
    let merged = common::git_command(&main).args(["merge", "--no-edit", second]).output().expect("git merge");
    (tmp, main, merged)
}

fn assert_closed_with_both_changes(main: &Path, merged: &Output) {
    assert!(merged.status.success(), "clean merge: {}{}", text(&merged.stdout), text(&merged.stderr));
    let archived: Vec<String> = std::fs::read_dir(main.join(".docket/issues/archived"))
        .expect("ls")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(archived, ["ISS-000001-shared.md"], "the file is in archived/");
    assert!(!main.join(".docket/issues/ISS-000001-shared.md").exists(), "and only there");
    let raw = std::fs::read_to_string(main.join(".docket/issues/archived/ISS-000001-shared.md")).expect("read");
    assert!(!raw.contains("<<<<<<<"), "{raw}");
    let issue = show(main, "ISS-000001");
    assert_eq!(issue["status"], "closed");
    assert_eq!(issue["priority"], "high");
    assert_eq!(issue["labels"], serde_json::json!(["a", "b"]));
    assert!(issue["closedAt"].is_string(), "{issue}");
    let (report, clean) = doctor(main, false);
    assert!(clean, "{report}");
}

#[test]
fn closed_on_one_branch_relabelled_on_the_other_merges_cleanly_either_way() {
    let close: &[&str] = &["--status", "closed"];
    let relabel: &[&str] = &["--label", "a,b", "--priority", "high"];
    let (_t1, main, merged) = one_issue_two_branches("close", "relabel", close, relabel);
    assert_closed_with_both_changes(&main, &merged);
    let (_t2, main, merged) = one_issue_two_branches("relabel", "close", relabel, close);
    assert_closed_with_both_changes(&main, &merged);
}

#[test]
fn both_branches_retitling_keep_the_later_title_and_note_the_other() {
    let (_tmp, main, merged) =
        one_issue_two_branches("one", "two", &["--title", "Title one"], &["--title", "Title two"]);
    assert!(merged.status.success(), "{}", text(&merged.stderr));
    let issue = show(&main, "ISS-000001");
    assert_eq!(issue["title"], "Title two", "the later update wins");
    let body = issue["description"].as_str().expect("body");
    assert!(body.starts_with("line 1\nline 2\nline 3\n"), "{body}");
    assert!(body.contains("`title` was changed on both branches") && body.contains("\"Title one\""), "{body}");
}

#[test]
fn git_setup_is_idempotent() {
    let tmp = tempfile::tempdir().expect("tmp");
    git(tmp.path(), &["init", "-q", "-b", "main"]);
    let o = Command::new(env!("CARGO_BIN_EXE_docket"))
        .args(["init", "--git"])
        .arg(tmp.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("docket init --git");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let attributes = tmp.path().join(".docket/.gitattributes");
    let first = std::fs::read_to_string(&attributes).expect("written");
    assert!(first.contains("issues/**/*.md merge=docket"), "{first}");
    let again = ok(tmp.path(), &["git-setup"]);
    assert_eq!(again.matches("already").count(), 7, "attributes, 3 config keys, 3 hooks: {again}");
    assert_eq!(std::fs::read_to_string(&attributes).expect("read"), first);
    let driver = git(tmp.path(), &["config", "--get", "merge.docket.driver"]);
    assert!(driver.trim_end().ends_with("merge-file %O %A %B %P"), "{driver}");
    let attr = git(tmp.path(), &["check-attr", "merge", "--", ".docket/issues/archived/ISS-000001-x.md"]);
    assert!(attr.contains("merge: docket"), "{attr}");
}

/// Every issue file of a workspace directory: path -> text.
fn issue_files(ws_dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    for folder in ["issues", "specifications", "ideas"] {
        for dir in [ws_dir.join(folder), ws_dir.join(folder).join("archived")] {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.ends_with(".md") && !name.starts_with('.') {
                    out.insert(entry.path(), std::fs::read_to_string(entry.path()).expect("read"));
                }
            }
        }
    }
    out
}

/// The plain scan: each file's id (its `id:` value, else the id its name starts with, else its
/// name), and the ids more than one file holds.
fn plain_duplicates(files: &BTreeMap<PathBuf, String>) -> BTreeSet<String> {
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for (path, text) in files {
        let yaml = text.strip_prefix("---\n").and_then(|r| r.split_once("\n---\n")).map(|(y, _)| y).unwrap_or("");
        let front: serde_yaml::Value = serde_yaml::from_str(yaml).unwrap_or(serde_yaml::Value::Null);
        let id = match front.get("id") {
            Some(serde_yaml::Value::String(s)) if !s.is_empty() => s.clone(),
            Some(serde_yaml::Value::Number(n)) => format!("{:06}", n.as_u64().expect("a number")),
            _ => {
                let name = path.file_stem().expect("stem").to_string_lossy().into_owned();
                let digits = name.find(|c: char| c.is_ascii_digit()).unwrap_or(name.len());
                let end = digits + name[digits..].chars().take_while(char::is_ascii_digit).count();
                if end - digits == 6 { name[..end].to_string() } else { name }
            }
        };
        *count.entry(id.to_uppercase()).or_default() += 1;
    }
    count.into_iter().filter(|(_, n)| *n > 1).map(|(id, _)| id).collect()
}

/// The bodies of every file, as a sorted list (what `--fix` must never lose or change).
fn bodies(files: &BTreeMap<PathBuf, String>) -> Vec<String> {
    let mut out: Vec<String> = files
        .values()
        .map(|t| {
            t.strip_prefix("---\n").and_then(|r| r.split_once("\n---\n")).map_or(t.as_str(), |(_, b)| b).to_string()
        })
        .collect();
    out.sort();
    out
}

on_each_fixture! {
    fn doctor_on_a_wrangler_workspace_lists_its_duplicates_and_fix_loses_nothing(dir) {
        let ws_dir = dir.path().join(".wrangler");
        let before = issue_files(&ws_dir);
        let expected = plain_duplicates(&before);
        assert!(expected.len() >= 3, "the fixture holds duplicate ids: {expected:?}");

        let list = docket(dir.path(), &["list"]);
        let stderr = text(&list.stderr);
        assert_eq!(stderr.lines().count(), 1, "one summary line, not one warning per duplicate: {stderr}");
        assert!(
            stderr.contains(&format!("{} duplicate id(s)", expected.len())) && stderr.contains("docket doctor"),
            "{stderr}"
        );
        // Reading one duplicated issue counts the workspace's duplicates too, not the one it met.
        let one = expected.iter().next().expect("a duplicate");
        let shown = docket(dir.path(), &["show", one]);
        let said = text(&shown.stderr);
        assert!(said.contains(&format!("{} duplicate id(s)", expected.len())), "{said}");

        let (report, clean) = doctor(dir.path(), false);
        assert!(!clean);
        let found: BTreeSet<String> =
            problems_of(&report, "duplicate_id").iter().map(|p| p["id"].as_str().expect("id").to_uppercase()).collect();
        assert_eq!(found, expected, "doctor lists exactly the duplicates a plain scan finds");
        assert_eq!(issue_files(&ws_dir), before, "without --fix nothing is written");

        let (fixed, _) = doctor(dir.path(), true);
        // Notes named alike (two README.md files) carry no id to renumber: --fix leaves them and
        // says so, for a person to rename. Every other duplicate is repaired.
        let notes = fixed["notes"].as_array().map(|n| n.iter().filter_map(Value::as_str).collect::<Vec<_>>());
        let unfixable: BTreeSet<String> = plain_duplicates(&issue_files(&ws_dir))
            .into_iter()
            .filter(|id| !id.chars().any(|c| c.is_ascii_digit()))
            .inspect(|id| {
                let said = notes.iter().flatten().any(|n| n.to_uppercase().contains(&format!("COULD NOT RENUMBER {id} ")));
                assert!(said, "--fix says why {id} stays duplicated: {fixed}");
            })
            .collect();
        // A body that mentions an old id is one note, however many of its holders were renumbered.
        let mentions: Vec<&str> = notes
            .iter()
            .flatten()
            .filter_map(|n| n.split_once(" in its body").map(|(who, _)| who))
            .filter(|who| who.contains(" mentions "))
            .collect();
        assert_eq!(mentions.iter().collect::<BTreeSet<_>>().len(), mentions.len(), "{mentions:?}");
        let left: BTreeSet<String> = problems_of(&fixed, "duplicate_id").iter().map(|p| p["id"].as_str().expect("id").to_uppercase()).collect();
        assert_eq!(left, unfixable, "{fixed}");
        assert!(problems_of(&fixed, "misplaced").is_empty(), "{fixed}");
        // What --fix leaves needs a person, each thing reported once (a missing parent once,
        // however many children name it), and the exit code says so (3, checked by `doctor`).
        let (left_over, clean) = doctor(dir.path(), false);
        let problems = left_over["problems"].as_array().expect("problems");
        assert!(clean || problems.iter().all(|p| p["fixable"] == false), "{left_over}");
        let parents: Vec<String> =
            problems_of(&left_over, "missing_parent").iter().map(|p| p["id"].as_str().expect("id").to_string()).collect();
        assert_eq!(parents.iter().collect::<BTreeSet<_>>().len(), parents.len(), "{left_over}");
        let after = issue_files(&ws_dir);
        assert_eq!(after.len(), before.len(), "no file lost");
        assert_eq!(bodies(&after), bodies(&before), "every body unchanged");
        assert_eq!(plain_duplicates(&after), unfixable);
        let issues = all_issues(dir.path());
        assert_eq!(issues.len(), before.len(), "every issue readable");
        for changed in after.keys().filter(|p| !before.contains_key(*p) || before[*p] != after[*p]) {
            let id = issues.iter().find(|i| {
                let file = changed.file_name().expect("name").to_string_lossy().to_uppercase();
                i["id"].as_str().is_some_and(|id| file.starts_with(&id.to_uppercase()))
            });
            let id = id.unwrap_or_else(|| panic!("{} is listed", changed.display()))["id"].as_str().expect("id");
            let shown = docket(dir.path(), &["show", id]);
            assert!(shown.status.success(), "{id}: {}", text(&shown.stderr));
        }
    }
}

#[test]
fn doctor_fix_repairs_the_crash_windows_of_a_move() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    docket::store::Workspace::init(root).expect("init");
    let issues = root.join(".docket/issues");
    for title in ["Moved but not rewritten", "Rewritten copy beside the old", "Untouched"] {
        ok(root, &["create", "--title", title]);
    }
    // Killed between the rename into archived/ and the rewrite: old bytes (status open) in archived/.
    let first = issues.join("ISS-000001-moved-but-not-rewritten.md");
    std::fs::rename(&first, issues.join("archived/ISS-000001-moved-but-not-rewritten.md")).expect("rename");
    // Killed between writing the new copy and removing the old one: both folders hold ISS-000002.
    let second = issues.join("ISS-000002-rewritten-copy-beside-the-old.md");
    let old = std::fs::read_to_string(&second).expect("read");
    ok(root, &["update", "ISS-000002", "--status", "closed"]);
    std::fs::write(&second, &old).expect("the old copy left behind");
    // And a temp file of a write that never finished, five minutes old (the store itself removes
    // ones older than ten minutes when it first reads a workspace).
    let tmp_file = issues.join(".docket-abc123.tmp");
    std::fs::write(&tmp_file, "half a file").expect("write");
    let five_minutes_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(300);
    std::fs::File::options().write(true).open(&tmp_file).expect("open").set_modified(five_minutes_ago).expect("mtime");

    let (report, clean) = doctor(root, false);
    assert!(!clean);
    let kinds: Vec<&str> =
        report["problems"].as_array().expect("problems").iter().filter_map(|p| p["kind"].as_str()).collect();
    assert_eq!(kinds, ["interrupted_move", "misplaced", "stale_temp_file"], "{report}");

    let (fixed, clean) = doctor(root, true);
    assert!(clean, "{fixed}");
    assert!(first.exists(), "the open issue is back outside archived/");
    assert!(!second.exists() && issues.join("archived/ISS-000002-rewritten-copy-beside-the-old.md").exists());
    assert!(!tmp_file.exists());
    assert_eq!(show(root, "ISS-000001")["status"], "open");
    assert_eq!(show(root, "ISS-000002")["status"], "closed", "the copy updated last is kept");
    assert_eq!(all_issues(root).len(), 3);
}

on_each_fixture! {
    async fn mcp_results_keep_their_duplicate_id_warnings_and_workspace_doctor_lists_the_problems(dir) {
        let expected = plain_duplicates(&issue_files(&dir.path().join(".wrangler")));
        let client = common::start(dir.path()).await;
        let listed = common::call(&client, "issues_list", value!({"limit": 5})).await;
        let meta = serde_json::to_value(&listed.meta).expect("meta");
        let warned = meta["warnings"].as_array().into_iter().flatten().filter(|w| w["code"] == "DUPLICATE_ID").count();
        assert_eq!(warned, expected.len(), "{meta}");
        let checked = common::call(&client, "workspace_doctor", value!({})).await;
        assert!(!common::is_error(&checked), "{}", common::text(&checked));
        let report = common::structured(&checked);
        let found: BTreeSet<String> =
            problems_of(&report, "duplicate_id").iter().map(|p| p["id"].as_str().expect("id").to_uppercase()).collect();
        assert_eq!(found, expected);
        assert!(problems_of(&report, "misplaced").iter().all(|p| p["fixable"] == true));
        assert!(common::text(&checked).contains("Call workspace_doctor with fix: true"), "{}", common::text(&checked));
        // An agent with only MCP repairs them.
        let fixed = common::call(&client, "workspace_doctor", value!({"fix": true})).await;
        assert!(!common::is_error(&fixed), "{}", common::text(&fixed));
        let after = common::structured(&fixed);
        assert!(problems_of(&after, "duplicate_id").iter().all(|p| p["fixable"] == false), "{after}");
        let changes = after["changes"].as_array().expect("changes");
        assert!(changes.iter().any(|c| c.as_str().is_some_and(|c| c.starts_with("renumbered"))), "{after}");
        assert!(after["problems"].as_array().expect("problems").iter().all(|p| p["fixable"] == false), "{after}");
        client.cancel().await.expect("close");
    }
}

/// Every write an agent can make to an id two files hold is refused with the MCP call that gets
/// it unstuck (workspace_doctor with fix: true), not a shell command; after that call, the
/// refused write goes through. (wrangler's housekeeping skill: `issues_mark_complete` of a
/// duplicated id was refused with "run `docket doctor --fix`", which an MCP agent cannot run.)
#[tokio::test]
async fn every_refused_write_to_a_duplicated_id_names_workspace_doctor_fix() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    docket::store::Workspace::init(root).expect("init");
    ok(root, &["create", "--title", "First holder"]);
    ok(root, &["create", "--title", "Second"]);
    // A second file holding ISS-000001, as a merge without the hooks leaves it.
    let issues = root.join(".docket/issues");
    let second = std::fs::read_to_string(issues.join("ISS-000002-second.md")).expect("read");
    std::fs::write(issues.join("ISS-000001-other-holder.md"), second.replace("ISS-000002", "ISS-000001"))
        .expect("write");
    let client = common::start(root).await;
    let writes = [
        ("issues_update", value!({"id": "ISS-000001", "priority": "high"})),
        ("issues_mark_complete", value!({"id": "ISS-000001", "note": "done"})),
        ("issues_claim", value!({"id": "ISS-000001", "assignee": "agent"})),
        ("issues_delete", value!({"id": "ISS-000001", "confirm": true})),
        ("issues_update_batch", value!({"updates": [{"id": "ISS-000001", "status": "in_progress"}]})),
    ];
    for (tool, args) in &writes {
        let r = common::call(&client, tool, args.clone()).await;
        let said = if common::is_error(&r) { common::text(&r) } else { common::structured(&r).to_string() };
        assert!(said.contains("workspace_doctor with fix: true"), "{tool}: {said}");
        assert!(!said.contains("run `docket doctor --fix`") || said.contains("or run"), "{tool}: {said}");
    }
    let fixed = common::call(&client, "workspace_doctor", value!({"fix": true})).await;
    assert!(!common::is_error(&fixed), "{}", common::text(&fixed));
    let done = common::call(&client, "issues_mark_complete", value!({"id": "ISS-000001", "note": "done"})).await;
    assert!(!common::is_error(&done), "unstuck: {}", common::text(&done));
    client.cancel().await.expect("close");
    assert_eq!(all_issues(root).len(), 3, "nothing lost");
}

/// Agents in three worktrees of one repository create at the same moment: the branch lock
/// makes them take turns, so no two get the same id, and none prints a warning.
#[test]
fn creates_at_once_in_three_worktrees_get_distinct_ids() {
    let (_tmp, main, a, b) = repo_with_worktrees();
    let children: Vec<std::process::Child> = (0..10)
        .flat_map(|i| [(&main, i), (&a, i), (&b, i)])
        .map(|(root, i)| {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_docket"));
            common::in_workspace(cmd.args(["create", "--title", &format!("at once {i}")]), root);
            cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().expect("spawn")
        })
        .collect();
    let mut ids = BTreeSet::new();
    for child in children {
        let o = child.wait_with_output().expect("wait");
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert_eq!(text(&o.stderr), "", "no warning");
        ids.insert(text(&o.stdout).trim().to_string());
    }
    assert_eq!(ids.len(), 30, "{ids:?}");
}
