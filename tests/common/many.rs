//! Many agents on one repository: real git repositories with linked worktrees or clones of a
//! bare remote, and docket started in them the way a client starts it (cwd = the checkout, no
//! `--workspace`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use rmcp::ServiceExt;
use rmcp::transport::TokioChildProcess;

use super::{Client, git};

/// Environment every docket started here gets: no workspace named, no user git config, a fixed
/// git identity (the claim refs need none, but commits in tests do).
fn isolate<C>(cmd: &mut C, set: impl Fn(&mut C, &str, &str), unset: impl Fn(&mut C, &str)) {
    for name in
        ["DOCKET_WORKSPACE", "WRANGLER_WORKSPACE_ROOT", "DOCKET_WORKTREES", "DOCKET_CLAIMS_REMOTE", "DOCKET_TOOL_STYLE"]
    {
        unset(cmd, name);
    }
    for (k, v) in [
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_CONFIG_GLOBAL", "/dev/null"),
        ("GIT_AUTHOR_NAME", "Tester"),
        ("GIT_AUTHOR_EMAIL", "tester@example.invalid"),
        ("GIT_COMMITTER_NAME", "Tester"),
        ("GIT_COMMITTER_EMAIL", "tester@example.invalid"),
    ] {
        set(cmd, k, v);
    }
}

/// `docket ARGS` run in `dir` with `env`, not yet started.
pub fn docket_cmd(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_docket"));
    cmd.args(args).current_dir(dir).stdin(Stdio::null());
    isolate(&mut cmd, |c, k, v| _ = c.env(k, v), |c, k| _ = c.env_remove(k));
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// `docket ARGS` in `dir` with `env`, to its end.
pub fn docket_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    docket_cmd(dir, args, env).output().expect("docket runs")
}

/// Like [`docket_in`]; must succeed; its stdout.
pub fn ok_in(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> String {
    let o = docket_in(dir, args, env);
    assert!(o.status.success(), "docket {args:?} in {} failed: {}", dir.display(), String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `docket serve` in `dir` (no `--workspace`), with an MCP client on its pipe.
pub async fn serve_in(dir: &Path, env: &[(&str, &str)]) -> Client {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_docket"));
    cmd.arg("serve").current_dir(dir);
    isolate(&mut cmd, |c, k, v| _ = c.env(k, v), |c, k| _ = c.env_remove(k));
    for (k, v) in env {
        cmd.env(k, v);
    }
    ().serve(TokioChildProcess::new(cmd).expect("spawn docket")).await.expect("initialize")
}

pub fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
}

/// A bare `origin.git` under `tmp` holding a workspace with `issues` committed tasks, and `n`
/// clones of it (`clone-0`, ...), each with a committer identity of its own config.
pub fn origin_and_clones(tmp: &Path, issues: usize, n: usize) -> (PathBuf, Vec<PathBuf>) {
    let seed = tmp.join("seed");
    repo_with_issues(&seed, ".docket", issues);
    let origin = tmp.join("origin.git");
    git(tmp, &["clone", "-q", "--bare", seed.to_str().expect("utf-8"), origin.to_str().expect("utf-8")]);
    let clones = (0..n)
        .map(|i| {
            let dir = tmp.join(format!("clone-{i}"));
            git(tmp, &["clone", "-q", origin.to_str().expect("utf-8"), dir.to_str().expect("utf-8")]);
            git(&dir, &["config", "user.name", "Tester"]);
            git(&dir, &["config", "user.email", "tester@example.invalid"]);
            dir
        })
        .collect();
    (origin, clones)
}

/// A workspace folder (`.docket` or `.wrangler`) with `issues` committed issues, in a new
/// repository at `root` on branch main.
pub fn repo_with_issues(root: &Path, dir_name: &str, issues: usize) {
    std::fs::create_dir_all(root).expect("mkdir");
    git(root, &["init", "-q", "-b", "main"]);
    if dir_name == ".wrangler" {
        std::fs::create_dir_all(root.join(".wrangler/issues")).expect("mkdir .wrangler");
    }
    docket::store::Workspace::init(root).expect("init");
    for i in 1..=issues {
        ok_in(root, &["create", "--title", &format!("task {i}")], &[]);
    }
    commit_all(root, "workspace with tasks");
}

/// Where a linked worktree named `name` goes in each layout agents use.
#[derive(Debug, Clone, Copy)]
pub enum Layout {
    /// wrangler's `session_start`: `.worktrees/NAME` inside the main worktree.
    Wrangler,
    /// Claude Code's `--worktree`: `.claude/worktrees/NAME`.
    Claude,
    /// An orchestrator's sibling folder next to the main worktree.
    Sibling,
}

impl Layout {
    pub const ALL: [Layout; 3] = [Layout::Wrangler, Layout::Claude, Layout::Sibling];

    /// Adds worktree `name` of `main` on a new branch; its path.
    pub fn add(self, main: &Path, name: &str) -> PathBuf {
        let path = match self {
            Layout::Wrangler => main.join(".worktrees").join(name),
            Layout::Claude => main.join(".claude/worktrees").join(name),
            Layout::Sibling => main.parent().expect("parent").join(format!("sibling-{name}")),
        };
        git(main, &["worktree", "add", "-q", path.to_str().expect("utf-8"), "-b", name]);
        path
    }
}

/// The names of the issue files in `issues/` of the workspace folder `ws_dir`, sorted.
pub fn issue_files(ws_dir: &Path) -> Vec<String> {
    let entries = ws_dir.join("issues").read_dir().expect("ls issues/");
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("ISS-"))
        .collect();
    names.sort();
    names
}

/// The frontmatter status of issue `id` in `issues/` of the workspace folder `ws_dir`.
pub fn status_of(ws_dir: &Path, id: &str) -> String {
    let name = issue_files(ws_dir).into_iter().find(|n| n.starts_with(id)).expect("the issue's file");
    let body = std::fs::read_to_string(ws_dir.join("issues").join(name)).expect("read");
    body.lines().find_map(|l| l.strip_prefix("status: ")).unwrap_or_default().to_string()
}
