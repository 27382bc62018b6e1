//! The wrangler workspaces the compatibility tests run on, and helpers for the tests that make
//! wrangler's documented calls against a copy of one.
//!
//! Every such test runs on the generated workspace ([`super::quirky`]), which needs nothing
//! outside the repository (`NAME::generated`). It runs a second time on a copy of a real wrangler
//! workspace (`NAME::real_fixture`) when `DOCKET_REAL_FIXTURE=PATH` names one at build time;
//! without it that run is listed as ignored, saying so. CI names the shared fixture, so there it
//! runs, and a missing fixture fails it.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::quirky::{self, Facts};
use super::{Client, call, is_error, snapshot, structured, text};

/// A writable wrangler workspace in a temporary directory, and what it holds.
pub struct Fixture {
    dir: tempfile::TempDir,
    pub facts: Facts,
    pub real: bool,
}

impl Fixture {
    /// The generated workspace: every quirk of a real one, made fresh for each test.
    pub fn generated() -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let facts = quirky::generate(dir.path());
        Fixture { dir, facts, real: false }
    }

    /// A copy of the real wrangler workspace that `DOCKET_REAL_FIXTURE` names.
    pub fn real() -> Fixture {
        let source = PathBuf::from(std::env::var_os("DOCKET_REAL_FIXTURE").unwrap_or_default());
        assert!(
            source.join(".wrangler").is_dir(),
            "DOCKET_REAL_FIXTURE={} holds no .wrangler/: point it at a real wrangler workspace, or unset it",
            source.display()
        );
        let dir = tempfile::tempdir().expect("temp dir");
        copy_dir(&source.join(".wrangler"), &dir.path().join(".wrangler"));
        Fixture { dir, facts: real_facts(), real: true }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The workspace as a git repository with one commit (wrangler's repository is one).
    pub fn in_git(self) -> Fixture {
        git(self.path(), &["init", "-q"]);
        git(self.path(), &["add", "-A"]);
        git(self.path(), &["commit", "-q", "-m", "fixture"]);
        self
    }
}

/// What the real wrangler workspace holds (bacchus-labs/wrangler at b02bd5f), counted once; the
/// compatibility notes in the tests cite wrangler's own server giving the same numbers.
fn real_facts() -> Facts {
    Facts {
        items: 252,
        issues: 218,
        specifications: 21,
        open_or_in_progress: 117,
        open_high_or_critical: 43,
        workflow_urgent_active: 33,
        next_issue: "ISS-000185".into(),
        next_idea: "IDEA-000011".into(),
        latest_workflow_run: None,
    }
}

/// A test body run on each fixture: `NAME::generated` always, `NAME::real_fixture` on the real
/// workspace when `DOCKET_REAL_FIXTURE` names one. `async fn` bodies run under tokio; plain `fn` bodies as they are.
#[macro_export]
macro_rules! on_each_fixture {
    ($(#[$meta:meta])* async fn $name:ident($fx:ident) $body:block $($rest:tt)*) => {
        $(#[$meta])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            use $crate::common::wrangler::Fixture;

            async fn body($fx: Fixture) $body

            #[tokio::test]
            async fn generated() {
                body(Fixture::generated()).await
            }

            #[tokio::test]
            #[cfg_attr(not(docket_real_fixture), ignore = "no real wrangler workspace: set DOCKET_REAL_FIXTURE=PATH")]
            async fn real_fixture() {
                body(Fixture::real()).await
            }
        }
        $crate::on_each_fixture! { $($rest)* }
    };
    ($(#[$meta:meta])* fn $name:ident($fx:ident) $body:block $($rest:tt)*) => {
        $(#[$meta])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            use $crate::common::wrangler::Fixture;

            fn body($fx: Fixture) $body

            #[test]
            fn generated() {
                body(Fixture::generated())
            }

            #[test]
            #[cfg_attr(not(docket_real_fixture), ignore = "no real wrangler workspace: set DOCKET_REAL_FIXTURE=PATH")]
            fn real_fixture() {
                body(Fixture::real())
            }
        }
        $crate::on_each_fixture! { $($rest)* }
    };
    () => {};
}

/// Copies a directory tree; the copy is writable even where the source is not.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read fixture").flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
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
