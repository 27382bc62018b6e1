//! The wrangler workspaces the compatibility tests run on, and helpers for the tests that make
//! wrangler's documented calls against a copy of one.
//!
//! Every such test runs on the generated workspace ([`super::quirky`]), which needs nothing
//! outside the repository (`NAME::generated`). It runs a second time on a copy of a real wrangler
//! workspace (`NAME::real_fixture`) when `DOCKET_REAL_FIXTURE=PATH` names one at build time;
//! without it that run is listed as ignored, saying so. CI names the shared fixture, so there it
//! runs, and a missing fixture fails it. `on_each_fixture!` (store/tests/common/fixture.rs, shared
//! with the store's tests) makes the two runs of a body.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::{Client, call, is_error, snapshot, structured, text};

pub use super::fixture::Fixture;

impl Fixture {
    /// The workspace as a git repository with one commit (wrangler's repository is one).
    pub fn in_git(self) -> Fixture {
        git(self.path(), &["init", "-q"]);
        git(self.path(), &["add", "-A"]);
        git(self.path(), &["commit", "-q", "-m", "fixture"]);
        self
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
