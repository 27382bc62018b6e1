//! git as the engine that shares a workspace between branches and worktrees: id allocation that
//! sees every branch ([`ids`]), the merge driver for issue files ([`merge`]), the hooks that
//! renumber ids a merge duplicated ([`hooks`]) and their setup ([`setup`]), and claims held in
//! refs across worktrees and clones ([`claims`]); two different issues added at one path, which
//! the merge driver keeps apart ([`split`]), and the driver itself ([`driver`]).
//!
//! docket talks to git through the `git` command line, not a Rust git library such as gix. The
//! command line is present wherever worktrees and branches are (it made them), reads every
//! repository layout git itself supports (reftable refs, SHA-256 objects, alternates, partial
//! clones, `extensions.worktreeConfig`) without lagging behind it, honours the user's `GIT_*`
//! environment, and adds no dependency tree to build. What it costs is a process per question:
//! a create asks three questions (where the repository is, the branch tips, the worktrees) and
//! lists a collection folder only for commits it has not seen (see [`ids`]), a few milliseconds in
//! all (numbers in docs/benchmarks.md, "Branch-aware ids").

#[allow(clippy::result_large_err)] // a refusal carries the claim it names
pub mod claims;
mod diff3;
pub mod driver;
pub mod hooks;
pub mod ids;
pub mod merge;
pub mod remote;
pub mod setup;
pub mod split;

use std::path::{Path, PathBuf};
use std::process::Command;

pub use ids::highest_id_number;

/// Runs `git -C dir ARGS`; its stdout when it succeeds, `None` when git is missing or fails
/// (outside a repository, an unknown revision).
pub fn run(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Like [`run`], with the error git printed when it fails.
pub fn run_checked(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run git ({e}); is git installed and on PATH?"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!("`git {}` failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
    }
}

/// An issue file's path from the top level `top`, and its twin in or out of `archived/` (where
/// a close or a reopen on another branch puts it), for `BRANCH:PATH` lookups; none for a file
/// outside `top` or a name git cannot take on one line.
pub fn paths_on_branch(top: &Path, file: &Path) -> Vec<String> {
    let top = top.canonicalize().unwrap_or(top.to_path_buf());
    let file = file.canonicalize().unwrap_or(file.to_path_buf());
    let Ok(rel) = file.strip_prefix(&top) else { return Vec::new() };
    let (Some(dir), Some(name)) = (rel.parent(), rel.file_name()) else { return Vec::new() };
    let other = match dir.file_name().is_some_and(|d| d == "archived") {
        true => dir.parent().unwrap_or(Path::new("")).join(name),
        false => dir.join("archived").join(name),
    };
    [rel.to_path_buf(), other]
        .iter()
        .filter_map(|p| p.to_str().filter(|p| !p.contains('\n')).map(str::to_string))
        .collect()
}

/// The text of each object `specs` name (`REV:PATH`), read with one `git cat-file --batch` in
/// `dir`, in order: `None` for a name git does not find (or a spec it cannot take).
pub fn show_batch<'a>(dir: &Path, specs: impl Iterator<Item = &'a str>) -> Vec<Option<String>> {
    use std::io::Write;
    use std::process::Stdio;
    let specs: Vec<&str> = specs.collect();
    if specs.is_empty() {
        return Vec::new();
    }
    let input: String = specs.iter().map(|s| format!("{s}\n")).collect();
    let child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else { return vec![None; specs.len()] };
    // Written from another thread: git answers while it reads, and its answers fill the pipe.
    let writer = child.stdin.take().map(|mut stdin| std::thread::spawn(move || stdin.write_all(input.as_bytes())));
    let Ok(out) = child.wait_with_output() else { return vec![None; specs.len()] };
    if let Some(w) = writer {
        let _ = w.join();
    }
    let mut rest: &[u8] = &out.stdout;
    let mut texts = Vec::with_capacity(specs.len());
    while texts.len() < specs.len() {
        let Some(nl) = rest.iter().position(|b| *b == b'\n') else { break };
        let header = String::from_utf8_lossy(&rest[..nl]).into_owned();
        rest = &rest[nl + 1..];
        // `OID TYPE SIZE`, or `NAME missing` (a name may hold spaces: read from the right).
        let parts: Vec<&str> = header.rsplitn(3, ' ').collect();
        match parts[..] {
            [size, kind, _] if kind != "missing" && size.parse::<usize>().is_ok() => {
                let size: usize = size.parse().unwrap_or(0);
                let body = &rest[..size.min(rest.len())];
                texts.push((kind == "blob").then(|| String::from_utf8_lossy(body).into_owned()));
                rest = &rest[(size + 1).min(rest.len())..];
            }
            _ => texts.push(None),
        }
    }
    texts.resize(specs.len(), None);
    texts
}

/// The git config key naming the workspace of a repository's hooks: the workspace folder
/// (`.docket/`, `.wrangler/`) relative to the top level of the worktree git runs the hook in,
/// written by [`setup::git_setup`] and read by `docket hook` (so no path enters a script).
pub const HOOK_WORKSPACE_KEY: &str = "docket.workspace";

/// `s` as one word for a POSIX shell: single quotes around its bytes, each `'` written as `'\''`.
/// Inside single quotes the shell expands nothing (`$(...)`, backquotes, `"`, `\`, newlines and
/// bytes that are not UTF-8 all stay as they are).
pub fn shell_quote(s: &std::ffi::OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    let mut out = Vec::with_capacity(s.len() + 2);
    out.push(b'\'');
    for &b in s.as_bytes() {
        match b {
            b'\'' => out.extend_from_slice(b"'\\''"),
            b => out.push(b),
        }
    }
    out.push(b'\'');
    out
}

/// The workspace folder `git-setup` recorded for the hooks of the repository at `dir`
/// ([`HOOK_WORKSPACE_KEY`]), as the bytes it was written with; `None` when it was never set.
pub fn hook_workspace(dir: &Path) -> Option<PathBuf> {
    config_value(dir, HOOK_WORKSPACE_KEY).map(PathBuf::from)
}

/// The top level of the worktree holding `dir`, byte for byte; `None` outside git.
pub fn toplevel(dir: &Path) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "--path-format=absolute", "--show-toplevel"])
        .output()
        .ok()?;
    let mut path = out.stdout;
    (out.status.success() && path.pop() == Some(b'\n')).then(|| PathBuf::from(std::ffi::OsString::from_vec(path)))
}

/// A key of the repository's own config (`--local`), byte for byte; `None` when unset.
pub fn config_value(dir: &Path, key: &str) -> Option<std::ffi::OsString> {
    use std::os::unix::ffi::OsStringExt;
    let out = Command::new("git").arg("-C").arg(dir).args(["config", "--local", "-z", "--get", key]).output().ok()?;
    let mut value = out.stdout;
    (out.status.success() && value.pop() == Some(0)).then(|| std::ffi::OsString::from_vec(value))
}

/// The repository a workspace lives in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repo {
    /// The top level of the worktree holding the workspace.
    pub toplevel: PathBuf,
    /// The directory shared by every worktree of the repository (`.git` of the main one).
    pub common_dir: PathBuf,
    /// The workspace directory (`.docket/`, `.wrangler/`) relative to `toplevel`, `/`-separated.
    pub ws_rel: String,
}

impl Repo {
    /// The repository holding `ws_dir`, or `None` outside git (or without git installed).
    pub fn discover(ws_dir: &Path) -> Option<Repo> {
        let out = run(ws_dir, &["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir"])?;
        let mut lines = out.lines();
        let toplevel = PathBuf::from(lines.next()?);
        let common_dir = PathBuf::from(lines.next()?);
        let ws = ws_dir.canonicalize().ok()?;
        let top = toplevel.canonicalize().ok()?;
        let rel = ws.strip_prefix(&top).ok()?;
        let ws_rel = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
        Some(Repo { toplevel: top, common_dir, ws_rel })
    }

    /// `path` inside the workspace as a path from the top level (for `git ls-tree`).
    pub fn in_ws(&self, sub: &str) -> String {
        if self.ws_rel.is_empty() { sub.to_string() } else { format!("{}/{sub}", self.ws_rel) }
    }

    /// The workspace folder relative to the top level, byte for byte (`ws_rel` is its text).
    pub fn ws_rel_path(ws_dir: &Path, toplevel: &Path) -> Option<PathBuf> {
        let ws = ws_dir.canonicalize().ok()?;
        Some(ws.strip_prefix(toplevel).ok()?.to_path_buf())
    }

    /// [`run`] in the top level of the worktree: git's stdout, or `None` when it fails.
    pub fn git(&self, args: &[&str]) -> Option<String> {
        run(&self.toplevel, args)
    }

    /// The object id of every branch tip this clone knows, with its ref name: local branches
    /// (`refs/heads/*`) and remote-tracking branches (`refs/remotes/*`, what `git fetch` brought).
    /// Symbolic refs such as `origin/HEAD` are skipped: they repeat a branch listed anyway.
    pub fn branch_tips(&self) -> Vec<(String, String)> {
        let out = self
            .git(&["for-each-ref", "--format=%(objectname) %(refname) %(symref)", "refs/heads", "refs/remotes"])
            .unwrap_or_default();
        out.lines()
            .filter_map(|l| {
                let mut parts = l.splitn(3, ' ');
                let (oid, name, symref) = (parts.next()?, parts.next()?, parts.next().unwrap_or(""));
                symref.is_empty().then(|| (name.to_string(), oid.to_string()))
            })
            .collect()
    }

    /// Every worktree of the repository (this one included): its top level and its HEAD commit
    /// (`None` before the first commit, or for a bare main repository).
    pub fn worktrees(&self) -> Vec<(PathBuf, Option<String>)> {
        let out = self.git(&["worktree", "list", "--porcelain", "-z"]).unwrap_or_default();
        let mut all = Vec::new();
        let mut current: Option<(PathBuf, Option<String>, bool)> = None;
        for field in out.split('\0') {
            if let Some(path) = field.strip_prefix("worktree ") {
                all.extend(current.take().filter(|c| !c.2).map(|c| (c.0, c.1)));
                current = Some((PathBuf::from(path), None, false));
            } else if let Some(oid) = field.strip_prefix("HEAD ") {
                if let Some(c) = current.as_mut() {
                    c.1 = Some(oid.to_string()).filter(|o| o.bytes().any(|b| b != b'0'));
                }
            } else if field == "bare"
                && let Some(c) = current.as_mut()
            {
                c.2 = true;
            }
        }
        all.extend(current.filter(|c| !c.2).map(|c| (c.0, c.1)));
        all
    }

    /// File names directly inside each of `dirs` (paths from the top level) in commit `oid`.
    pub fn names_in_commit(&self, oid: &str, dirs: &[String]) -> Option<Vec<String>> {
        let specs: Vec<String> = dirs.iter().map(|d| format!("{d}/")).collect();
        let mut args = vec!["ls-tree", "--name-only", "-z", oid, "--"];
        args.extend(specs.iter().map(String::as_str));
        let out = self.git(&args)?;
        Some(out.split('\0').filter(|p| !p.is_empty()).map(|p| p.rsplit('/').next().unwrap_or(p).to_string()).collect())
    }

    /// The commit that first put a file at `path` in the history of `rev` (`HEAD`, or the branch
    /// as it was before a rebase), if it is committed there. Not `--follow`: its rename guess
    /// pairs near-identical issue files (two branches' "child of ISS-000001") and would name the
    /// other branch's commit; a file that arrived by a rename is dated by that rename instead.
    pub fn commit_adding(&self, rev: &str, path: &Path) -> Option<String> {
        let rel = path.canonicalize().ok()?.strip_prefix(&self.toplevel).ok()?.to_string_lossy().into_owned();
        let out = self.git(&["log", "--no-renames", "--diff-filter=A", "--format=%H", rev, "--", &rel])?;
        out.lines().last().map(str::to_string)
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    use std::process::Command;

    /// Every hostile name comes back from a real `sh` as the same bytes, and runs nothing.
    #[test]
    fn a_quoted_word_is_read_back_by_sh_byte_for_byte_and_runs_nothing() {
        let tmp = tempfile::tempdir().expect("tmp");
        let names: [&[u8]; 9] = [
            b"sub$(touch${IFS}PWNED)",
            b"sub`touch PWNED`",
            b"a\"b",
            b"it's",
            b"''",
            b"line\nbreak; touch PWNED",
            b"with space",
            b"bad\xff\xfebytes",
            b"\\$HOME*?[a]",
        ];
        for name in names {
            let mut script = b"printf %s ".to_vec();
            script.extend(super::shell_quote(OsStr::from_bytes(name)));
            let out = Command::new("sh")
                .arg("-c")
                .arg(OsStr::from_bytes(&script))
                .current_dir(tmp.path())
                .output()
                .expect("sh runs");
            assert!(out.status.success(), "{:?}", String::from_utf8_lossy(&out.stderr));
            assert_eq!(out.stdout, name, "{}", String::from_utf8_lossy(name));
            assert!(!tmp.path().join("PWNED").exists(), "{} ran a command", String::from_utf8_lossy(name));
        }
    }
}
