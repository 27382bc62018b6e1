//! A cloned repository is untrusted input (issue 26). It can commit symbolic links, FIFOs and
//! files with absurd ids; docket must never write outside the workspace, hang, read without
//! bound, wrap an id around or delete text that only one file holds. Every test plants the
//! attack in a real directory (a real git repository where git matters) and runs the real binary
//! or library; each failed before the rooted file layer.

use crate::common;

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{call, git, is_error, structured, text};
use serde_json::{Value, json};

/// Every call here must answer well within this (a hang is the failure).
const BOUND: Duration = Duration::from_secs(30);

/// A git repository with a committed `.docket/` workspace (one commit).
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tmp");
    git(dir.path(), &["init", "-q", "-b", "main"]);
    docket::store::Workspace::init(dir.path()).expect("init");
    std::fs::write(dir.path().join("SPEC.md"), "# Spec\n").expect("spec");
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "init"]);
    dir
}

/// `docket ARGS --workspace ROOT`, killed after [`BOUND`] (then the test fails: it hung), with
/// its address space capped so a read without bound fails instead of eating the machine.
fn docket(root: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg("ulimit -v 3000000; exec \"$0\" \"$@\"").arg(env!("CARGO_BIN_EXE_docket")).args(args);
    common::in_workspace(&mut cmd, root).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    bounded(&mut cmd, BOUND, &format!("docket {args:?}"))
}

/// Runs `cmd` (output captured), killing it and failing the test after `bound`.
fn bounded(cmd: &mut Command, bound: Duration, what: &str) -> Output {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("runs");
    let started = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > bound {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish within {bound:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("output")
}

fn ok(root: &Path, args: &[&str]) -> String {
    let o = docket(root, args);
    assert!(
        o.status.success(),
        "docket {args:?} failed: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("run mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

/// Every file under `dir` (recursively), as paths relative to it.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p.clone());
            }
            out.push(p.strip_prefix(dir).unwrap_or(&p).to_path_buf());
        }
    }
    out.sort();
    out
}

fn issue_ids(root: &Path) -> Vec<String> {
    let out = ok(root, &["list", "--json", "--all"]);
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"));
    let items = v.as_array().cloned().or_else(|| v["issues"].as_array().cloned()).unwrap_or_default();
    let mut ids: Vec<String> = items.iter().filter_map(|i| i["id"].as_str().map(String::from)).collect();
    ids.sort();
    ids
}

/// The id `docket create` printed.
fn created_id(out: &str) -> String {
    out.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .find(|w| w.starts_with("ISS-") && w[4..].chars().all(|c| c.is_ascii_digit()))
        .unwrap_or_else(|| panic!("no id in {out:?}"))
        .to_string()
}

// 1. cache/git-ids.json committed as a link, a FIFO, a link to /dev/zero.

#[test]
fn a_linked_git_ids_cache_never_overwrites_its_target() {
    let dir = repo();
    let outside = tempfile::tempdir().expect("outside");
    let victim = outside.path().join("victim.txt");
    std::fs::write(&victim, "precious\n").expect("victim");
    symlink(&victim, dir.path().join(".docket/cache/git-ids.json")).expect("link");
    let out = ok(dir.path(), &["create", "--title", "After the link"]);
    assert_eq!(created_id(&out), "ISS-000001");
    assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "precious\n", "the link's target is untouched");
    assert!(std::fs::symlink_metadata(dir.path().join(".docket/cache/git-ids.json")).expect("link").is_symlink());
}

#[test]
fn a_fifo_or_dev_zero_as_git_ids_cache_neither_hangs_nor_exhausts_memory() {
    let dir = repo();
    let cache = dir.path().join(".docket/cache/git-ids.json");
    mkfifo(&cache);
    ok(dir.path(), &["create", "--title", "With a FIFO"]);
    std::fs::remove_file(&cache).expect("rm fifo");
    symlink("/dev/zero", &cache).expect("link /dev/zero");
    let out = ok(dir.path(), &["create", "--title", "With /dev/zero"]);
    assert_eq!(created_id(&out), "ISS-000002");
}

// 2. `.worktrees` committed as a link.

#[tokio::test]
async fn a_linked_worktrees_folder_puts_no_checkout_outside_the_repository() {
    let dir = repo();
    let outside = tempfile::tempdir().expect("outside");
    symlink(outside.path(), dir.path().join(".worktrees")).expect("link .worktrees");
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "the link"]);
    let client = common::start(dir.path()).await;
    let started =
        tokio::time::timeout(BOUND, call(&client, "session_start", json!({"specFile": "SPEC.md", "worktree": true})))
            .await
            .expect("answered");
    assert!(is_error(&started), "{}", text(&started));
    assert!(text(&started).contains(".worktrees"), "the error names the path: {}", text(&started));
    assert_eq!(files_under(outside.path()), Vec::<PathBuf>::new(), "no checkout outside the repository");
    client.cancel().await.expect("stop");
}

// 3. init_workspace {fix: true} through linked folders, .gitignore and asset names.

fn init_fix(root: &Path, plugin: Option<&Path>) -> Result<docket::store::LayoutReport, docket::store::StoreError> {
    let ws = docket::store::Workspace::resolve(Some(root)).expect("workspace");
    ws.init_layout(true, plugin)
}

#[test]
fn init_workspace_writes_nothing_through_linked_folders_or_gitignore() {
    for planted in ["config", "orchestration", "sessions", "memos", ".gitignore"] {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::create_dir_all(dir.path().join(".wrangler/issues")).expect("wrangler workspace");
        let outside = tempfile::tempdir().expect("outside");
        let target = if planted == ".gitignore" {
            let f = outside.path().join("gitignore");
            std::fs::write(&f, "mine\n").expect("outside file");
            f
        } else {
            outside.path().to_path_buf()
        };
        symlink(&target, dir.path().join(".wrangler").join(planted)).expect("link");
        let before = files_under(outside.path());
        let result = init_fix(dir.path(), None);
        assert_eq!(files_under(outside.path()), before, "{planted}: nothing created outside ({result:?})");
        if planted == ".gitignore" {
            assert_eq!(
                std::fs::read_to_string(&target).expect("read"),
                "mine\n",
                "the outside .gitignore is untouched"
            );
        }
        if planted != "sessions" {
            let e = result.expect_err("refused");
            assert!(e.to_string().contains(planted) && e.to_string().contains("symbolic link"), "{e}");
        }
    }
}

#[test]
fn init_workspace_copies_no_asset_onto_a_dangling_link() {
    let dir = common::workspace();
    let outside = tempfile::tempdir().expect("outside");
    let plugin = tempfile::tempdir().expect("plugin");
    std::fs::create_dir_all(plugin.path().join("workflows/agents")).expect("mkdir");
    std::fs::write(plugin.path().join("workflows/agents/a.md"), "agent").expect("asset");
    let agents = dir.path().join(".docket/orchestration/agents");
    std::fs::create_dir_all(&agents).expect("mkdir");
    symlink(outside.path().join("planted.md"), agents.join("a.md")).expect("dangling link");
    let result = init_fix(dir.path(), Some(plugin.path()));
    assert!(result.is_err(), "{result:?}");
    assert!(!outside.path().join("planted.md").exists(), "nothing written through the dangling link");
}

#[test]
fn workspace_init_writes_no_gitignore_through_a_dangling_link() {
    let dir = tempfile::tempdir().expect("tmp");
    let outside = tempfile::tempdir().expect("outside");
    std::fs::create_dir_all(dir.path().join(".docket")).expect("mkdir");
    symlink(outside.path().join("created"), dir.path().join(".docket/.gitignore")).expect("dangling link");
    let result = docket::store::Workspace::init(dir.path());
    assert!(result.is_err(), "{result:?}");
    assert!(!outside.path().join("created").exists());
}

// 4. Ids beyond the format's range, in a file and on a branch.

#[test]
fn an_absurd_id_in_a_file_is_malformed_and_new_ids_stay_above_every_valid_one() {
    for with_git in [false, true] {
        let dir = if with_git { repo() } else { common::workspace() };
        let issues = dir.path().join(".docket/issues");
        std::fs::write(issues.join("ISS-000007-seven.md"), "---\nid: ISS-000007\ntitle: Seven\n---\n").expect("w");
        std::fs::write(issues.join("huge.md"), "---\nid: ISS-18446744073709551615\ntitle: Huge\n---\nbody\n")
            .expect("write");
        let first = created_id(&ok(dir.path(), &["create", "--title", "Next"]));
        let second = created_id(&ok(dir.path(), &["create", "--title", "And next"]));
        assert_eq!([first.as_str(), second.as_str()], ["ISS-000008", "ISS-000009"], "git: {with_git}");
        let o = docket(dir.path(), &["doctor", "--json"]);
        let report: Value = serde_json::from_slice(&o.stdout).expect("doctor JSON");
        let malformed: Vec<&Value> =
            report["problems"].as_array().expect("problems").iter().filter(|p| p["kind"] == "malformed_id").collect();
        assert_eq!(malformed.len(), 1, "{report}");
        assert!(malformed[0]["paths"][0].as_str().is_some_and(|p| p.ends_with("huge.md")), "{report}");
    }
}

#[test]
fn an_absurd_id_in_a_file_name_on_another_branch_is_ignored_by_allocation() {
    let dir = repo();
    git(dir.path(), &["checkout", "-q", "-b", "hostile"]);
    let issues = dir.path().join(".docket/issues");
    std::fs::write(issues.join("ISS-18446744073709551615-x.md"), "---\ntitle: X\n---\n").expect("write");
    std::fs::write(issues.join("ISS-000041-real.md"), "---\nid: ISS-000041\ntitle: Real\n---\n").expect("write");
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "hostile branch"]);
    git(dir.path(), &["checkout", "-q", "main"]);
    let id = created_id(&ok(dir.path(), &["create", "--title", "On main"]));
    assert_eq!(id, "ISS-000042", "above the branch's valid id, never wrapped");
}

// 5. doctor --fix on a pair whose bodies differ; modes.

#[test]
fn doctor_fix_keeps_both_copies_when_their_bodies_differ_and_keeps_modes() {
    let dir = common::workspace();
    let issues = dir.path().join(".docket/issues");
    let name = "ISS-000001-pair.md";
    let open = "---\nid: ISS-000001\ntitle: Pair\nstatus: open\nupdatedAt: 2026-01-01T00:00:00.000Z\n---\nonly the open copy says this\n";
    let closed = "---\nid: ISS-000001\ntitle: Pair\nstatus: closed\nupdatedAt: 2026-02-01T00:00:00.000Z\n---\nonly the closed copy says that\n";
    std::fs::write(issues.join(name), open).expect("open copy");
    std::fs::write(issues.join("archived").join(name), closed).expect("closed copy");
    for p in [issues.join(name), issues.join("archived").join(name)] {
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    }
    let _ = docket(dir.path(), &["doctor", "--fix"]);
    let mut texts = Vec::new();
    for f in files_under(&issues).into_iter().filter(|f| f.extension().is_some_and(|x| x == "md")) {
        let p = issues.join(&f);
        texts.push(std::fs::read_to_string(&p).expect("read"));
        let mode = std::fs::metadata(&p).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o644, "{} keeps its mode", f.display());
    }
    let all = texts.concat();
    assert!(all.contains("only the open copy says this"), "{all}");
    assert!(all.contains("only the closed copy says that"), "{all}");
    assert_eq!(texts.len(), 2);
    let ids = issue_ids(dir.path());
    assert_eq!(ids.len(), 2, "two issues now, each with its own id: {ids:?}");
    assert_ne!(ids[0], ids[1]);
}

// Also: lossless field writes.

#[tokio::test]
async fn adding_a_label_keeps_a_comment_line_after_labels() {
    let dir = common::workspace();
    let file = dir.path().join(".docket/issues/ISS-000001-c.md");
    std::fs::write(
        &file,
        "---\nid: ISS-000001\ntitle: C\nstatus: open\nlabels: []\n  # reviewers: keep me\npriority: high\n---\nbody\n",
    )
    .expect("write");
    let client = common::start(dir.path()).await;
    let added =
        call(&client, "issues_labels", json!({"operation": "add", "issueId": "ISS-000001", "labels": ["bug"]})).await;
    assert!(!is_error(&added), "{}", text(&added));
    assert_eq!(structured(&added)["issueLabels"], json!(["bug"]));
    let now = std::fs::read_to_string(&file).expect("read");
    assert!(now.contains("  # reviewers: keep me\n"), "{now}");
    assert!(now.contains("priority: high\n") && now.ends_with("---\nbody\n"), "{now}");
    client.cancel().await.expect("stop");
}

// Write sites: cache/ (lock, snapshot, errors.db), git-setup's .gitattributes.

#[test]
fn a_linked_cache_folder_gets_no_lock_snapshot_or_database_outside() {
    let dir = repo();
    let outside = tempfile::tempdir().expect("outside");
    let cache = dir.path().join(".docket/cache");
    std::fs::remove_dir_all(&cache).expect("rm cache");
    symlink(outside.path(), &cache).expect("link cache/");
    let o = docket(dir.path(), &["create", "--title", "Refused"]);
    assert!(!o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("cache") && stderr.contains("symbolic link"), "names the path: {stderr}");
    assert_eq!(files_under(outside.path()), Vec::<PathBuf>::new(), "nothing written outside");
}

#[tokio::test]
async fn a_linked_error_database_is_never_opened() {
    let dir = common::workspace();
    let outside = tempfile::tempdir().expect("outside");
    let victim = outside.path().join("victim.db");
    symlink(&victim, dir.path().join(".docket/cache/errors.db")).expect("dangling link");
    let client = common::start(dir.path()).await;
    let _ = call(&client, "issues_get", json!({"id": "ISS-999999"})).await;
    let _ = call(&client, "issues_list", json!({})).await;
    client.cancel().await.expect("stop");
    assert!(!victim.exists(), "SQLite created no database through the link");
    assert_eq!(files_under(outside.path()), Vec::<PathBuf>::new());
}

#[test]
fn git_setup_writes_no_gitattributes_through_a_link() {
    let dir = repo();
    let outside = tempfile::tempdir().expect("outside");
    let target = outside.path().join("attributes");
    std::fs::write(&target, "mine\n").expect("write");
    symlink(&target, dir.path().join(".docket/.gitattributes")).expect("link");
    let o = docket(dir.path(), &["git-setup"]);
    assert!(!o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    assert_eq!(std::fs::read_to_string(&target).expect("read"), "mine\n");
}

#[test]
fn a_linked_collection_folder_gets_no_new_issue() {
    let dir = common::workspace();
    let outside = tempfile::tempdir().expect("outside");
    let ideas = dir.path().join(".docket/ideas");
    std::fs::remove_dir_all(&ideas).expect("rm ideas");
    symlink(outside.path(), &ideas).expect("link ideas/");
    let o = docket(dir.path(), &["create", "--title", "Idea", "--type", "idea"]);
    assert!(!o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    assert_eq!(files_under(outside.path()), Vec::<PathBuf>::new());
}

// The merge driver: near-linear, and the same merge as git's.

#[test]
fn the_merge_driver_merges_20k_lines_quickly_and_like_git() {
    let dir = tempfile::tempdir().expect("tmp");
    let front = "---\nid: ISS-000001\ntitle: Big\nstatus: open\n---\n";
    let (mut base, mut ours, mut theirs) = (front.to_string(), front.to_string(), front.to_string());
    for i in 0..20_000 {
        let line = format!("line {i} of a long body\n");
        base.push_str(&line);
        // Thousands of changes on each side: diffy's merge was quadratic in them.
        ours.push_str(&if i % 4 == 0 { format!("ours {i}\n") } else { line.clone() });
        theirs.push_str(&if i % 4 == 2 { format!("theirs {i}\n") } else { line });
    }
    for (n, t) in [("base", &base), ("ours", &ours), ("theirs", &theirs), ("ours-git", &ours)] {
        std::fs::write(dir.path().join(n), t).expect("write");
    }
    let started = Instant::now();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_docket"));
    cmd.current_dir(dir.path()).args(["merge-file", "base", "ours", "theirs", "x.md"]);
    let o = bounded(&mut cmd, Duration::from_secs(10), "docket merge-file on 20,000 lines");
    let took = started.elapsed();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(took < Duration::from_secs(5), "20,000 lines took {took:?} (quadratic: minutes)");
    git(dir.path(), &["merge-file", "ours-git", "base", "theirs"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("ours")).expect("ours"),
        std::fs::read_to_string(dir.path().join("ours-git")).expect("git's"),
        "the same result as git merge-file"
    );
}

// No write bypasses the layer.

/// The source of `src/` and of the store crate (`store/src/`) without `#[cfg(test)]` modules and
/// comments, named by their path in the repository.
fn production_sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["src", "store/src"] {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        for rel in files_under(&root) {
            if rel.extension().is_none_or(|x| x != "rs") || rel.file_name().is_some_and(|n| n == "tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(root.join(&rel)).expect("read");
            let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
            let code: String =
                code.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n");
            out.push((format!("{dir}/{}", rel.display()), code));
        }
    }
    out
}

#[test]
fn every_write_goes_through_the_rooted_layer() {
    // Calls that create, replace, rename, remove, append to, lock or change a file by path.
    const WRITES: &[&str] = &[
        "fs::write",
        "fs::rename",
        "fs::copy",
        "fs::remove_file",
        "fs::remove_dir",
        "fs::create_dir",
        "fs::hard_link",
        "fs::set_permissions",
        "fs::OpenOptions",
        "OpenOptions::new",
        "File::create",
        "File::options",
        "tempfile::",
        "NamedTempFile",
        ".persist(",
        "Connection::open",
        "libc::rename",
        "libc::unlink",
        "libc::mkdir",
        "libc::openat",
        "symlink(",
    ];
    let sources = production_sources();
    assert!(sources.len() > 50, "the sources were found");
    let mut bypasses = Vec::new();
    for (path, code) in &sources {
        if path.starts_with("store/src/fs/") {
            continue;
        }
        for w in WRITES {
            if code.contains(w) {
                bypasses.push(format!("{path}: {w}"));
            }
        }
    }
    assert!(
        bypasses.is_empty(),
        "these write without the rooted layer (store/src/fs); route them through fs::Root: {bypasses:#?}"
    );
}

// Reads: a FIFO where docket reads its own config or a session's checkpoint never hangs it.

#[test]
fn a_fifo_config_file_is_refused_without_hanging() {
    let dir = common::workspace();
    mkfifo(&dir.path().join(".docket/config/docket.yaml"));
    let o = docket(dir.path(), &["list"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && stderr.contains("docket.yaml") && stderr.contains("FIFO"), "{stderr}");
}
