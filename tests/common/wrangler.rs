//! The wrangler fixture (`../shared/fixtures/wrangler-workspace`, a real wrangler workspace) and
//! helpers for the tests that make wrangler's documented calls against a copy of it.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Client, call, is_error, snapshot, structured, text};

/// The fixture, copied (writable) into a temporary directory that becomes the workspace root.
pub fn fixture() -> tempfile::TempDir {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/wrangler-workspace/.wrangler");
    assert!(source.is_dir(), "the wrangler fixture is missing at {}", source.display());
    let dir = tempfile::tempdir().expect("temp dir");
    copy_dir(&source, &dir.path().join(".wrangler"));
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read fixture").flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
            // The fixture is read-only; the copy must not be.
            let mut perms = std::fs::metadata(&target).expect("metadata").permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            std::fs::set_permissions(&target, perms).expect("chmod");
        }
    }
}

pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "init.defaultBranch=main"])
        .args(args)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// The fixture as a git repository with one commit (wrangler's repository is one).
pub fn fixture_in_git() -> tempfile::TempDir {
    let dir = fixture();
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "fixture"]);
    dir
}

pub async fn ok(client: &Client, tool: &str, args: Value) -> (Value, String) {
    let r = call(client, tool, args.clone()).await;
    assert!(!is_error(&r), "{tool} {args}: {}", text(&r));
    (structured(&r), text(&r))
}

pub fn ids(sc: &Value) -> Vec<String> {
    crate::common::page_records(sc).iter().map(|i| i["id"].as_str().expect("id").to_string()).collect()
}

/// Files under `dir` (relative paths) whose name starts with `prefix`.
pub fn files_named(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for (path, _) in snapshot(dir) {
        let name = path.rsplit('/').next().unwrap_or(&path);
        if name.starts_with(prefix) {
            out.push(PathBuf::from(path));
        }
    }
    out
}

/// A workflow-engine run as wrangler's engine writes it (workflows/engine/src/integration/session.ts).
pub fn engine_session(root: &Path, id: &str, started: &str) {
    let dir = root.join(".wrangler/sessions").join(id);
    std::fs::create_dir_all(&dir).expect("mkdir");
    let context = json!({"id": id, "specFile": "spec.md", "status": "running", "currentPhase": "init",
        "worktreePath": "/w", "branchName": "wf-branch", "phasesCompleted": [], "tasksCompleted": ["a"],
        "tasksPending": ["b", "c"], "startedAt": started, "updatedAt": started});
    std::fs::write(dir.join("context.json"), context.to_string()).expect("context");
    let audit = [
        json!({"step": "init", "status": "completed", "timestamp": started}),
        json!({"step": "execute", "status": "started", "timestamp": started}),
    ];
    let lines: String = audit.iter().map(|e| format!("{e}\n")).collect();
    std::fs::write(dir.join("audit.jsonl"), lines).expect("audit");
}
