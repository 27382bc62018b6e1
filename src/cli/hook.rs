//! `docket hook NAME`: what the git hooks installed by `docket git-setup` run (see
//! `store::git::hooks`). After a merge, a rebase or a merge commit concluded by hand it renumbers
//! the ids the merge duplicated (not those two files already held before it: see
//! `made_by_merge`), with `doctor --fix`'s rules (a file already on a remote branch
//! keeps its id; references that git history attributes are rewritten; no text is lost), prints
//! every change, and commits them on their own, so the next push carries distinct ids. It never
//! commits a file that had uncommitted changes of its own, and never fails the git command.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::process::Command;

use super::args::HookArgs;
use crate::app::App;
use crate::store::git::Repo;
use crate::store::repair::{self as doctor, Kind, fix::Scope};
use crate::store::{Workspace, Worktrees};

/// Set while docket's own commit runs, so the post-commit hook it triggers does nothing.
const ACTIVE: &str = "DOCKET_HOOK_ACTIVE";

const MESSAGE: &str = "docket: repair the ids the merge duplicated\n\nWritten by docket's git hook (`docket git-setup`): same repairs as `docket doctor --fix`.";

/// Runs hook `a.name`; the lines to print (on stderr: git shows a hook's output as it runs).
pub(super) fn run(a: &HookArgs) -> Result<Vec<String>, String> {
    if std::env::var_os(ACTIVE).is_some() {
        return Ok(Vec::new());
    }
    forget_the_hooks_repository_variables();
    let ws = hook_workspace(a)?;
    let Some(repo) = Repo::discover(&ws.dir) else { return Ok(Vec::new()) };
    let commit = match a.name.as_str() {
        // `git merge --squash` leaves the merge uncommitted: the repair joins it.
        "post-merge" => a.args.first().is_none_or(|squash| squash != "1"),
        "post-rewrite" => true,
        // Only a merge concluded by hand (after conflicts): an ordinary commit adds no duplicate.
        "post-commit" => {
            if repo.git(&["rev-parse", "-q", "--verify", "HEAD^2"]).is_none() {
                return Ok(Vec::new());
            }
            true
        }
        other => {
            return Err(format!(
                "unknown hook `{other}`: docket's hooks are {}",
                crate::store::git::hooks::HOOKS.join(", ")
            ));
        }
    };
    let app = App::load(ws.clone(), &[]).map_err(|e| e.to_string())?;
    // The files alone: a hook never waits on the network (the claims remote may hang).
    let report = doctor::check_files(&app.store).map_err(|e| e.to_string())?;
    if !report.problems.iter().any(|p| matches!(p.kind, Kind::DuplicateId | Kind::InterruptedMove)) {
        return Ok(Vec::new());
    }
    // Only what this merge duplicated. An id two files already held together in one branch was
    // not made by it: every clone's hook would renumber it on its own, each with other numbers,
    // and the next merge would meet two renames of one file (a rename/rename conflict).
    let (made, before_merge) = made_by_merge(&repo, &ws, &report, &a.name);
    let mut lines = Vec::new();
    if !before_merge.is_empty() {
        lines.push(format!(
            "docket: note: {} id(s) were already held by several files before this merge ({}); not renumbered here, where each clone would number them differently: run `docket doctor --fix` once, in one clone, then commit and push it",
            before_merge.len(),
            before_merge.join(", ")
        ));
    }
    if made.is_empty() {
        return Ok(lines);
    }
    // Files the merge driver wrote beside a path two different issues were added at: untracked,
    // but the hook's own to commit.
    let spec = ws_spec(&repo, &ws);
    let split: Vec<Vec<u8>> =
        crate::store::git::split::listed(&repo.toplevel).into_iter().map(String::into_bytes).collect();
    let dirty: HashSet<Vec<u8>> = dirty_paths(&repo, &spec)?.into_iter().filter(|p| !split.contains(p)).collect();
    // After a rebase, the references were written in the branch as it was (git keeps it as
    // ORIG_HEAD), where each names only the file it meant.
    let before = (a.name == "post-rewrite").then(|| repo.git(&["rev-parse", "-q", "--verify", "ORIG_HEAD"])).flatten();
    let outcome = doctor::fix::fix_in(&app.store, Scope::Ids, before.as_deref().map(str::trim), Some(&made))?;
    lines.extend(outcome.changes.iter().map(|c| format!("docket: {c}")));
    lines.extend(outcome.notes.iter().map(|n| format!("docket: note: {n}")));
    if outcome.touched.is_empty() {
        return Ok(lines);
    }
    crate::store::git::split::forget(&repo.toplevel);
    // A split file renumbered away was never tracked: there is nothing to add at its old name.
    let gone_untracked = |p: &Path| !p.exists() && from_top(&repo, &ws, p).is_some_and(|r| split.contains(&r));
    let touched: Vec<&PathBuf> = outcome.touched.iter().filter(|p| !gone_untracked(p)).collect();
    let paths: Vec<Vec<u8>> = touched.iter().filter_map(|p| from_top(&repo, &ws, p)).collect();
    let unsafe_to_commit: Vec<&Vec<u8>> = paths.iter().filter(|p| dirty.contains(*p)).collect();
    if !commit || !unsafe_to_commit.is_empty() || paths.len() != touched.len() {
        let why = if commit {
            let file = unsafe_to_commit.first().map(|p| String::from_utf8_lossy(p).into_owned());
            format!("{} had uncommitted changes of its own", file.as_deref().unwrap_or("a file"))
        } else {
            "a squash merge is committed by you".to_string()
        };
        lines.push(format!(
            "docket: the repair is left in the working tree, not committed ({why}); review it, then `git add -A {} && git commit`",
            spec.to_string_lossy()
        ));
        return Ok(lines);
    }
    let staged = git(&repo.toplevel, &["diff", "--cached", "--name-only", "-z"])?;
    if !staged.is_empty() {
        lines.push(format!(
            "docket: the repair is left in the working tree, not committed (other changes are staged); review it, then `git add -A {} && git commit`",
            spec.to_string_lossy()
        ));
        return Ok(lines);
    }
    let mut add: Vec<&OsStr> = ["add", "-A", "--"].map(OsStr::new).to_vec();
    add.extend(paths.iter().map(|p| OsStr::from_bytes(p)));
    git(&repo.toplevel, &add)?;
    commit_index(&repo.toplevel)?;
    lines.push(format!("docket: committed the repair ({} file(s)); push it with your merge", paths.len()));
    Ok(lines)
}

/// git runs hooks in the worktree's top level and, in a linked worktree, exports `GIT_DIR` (and
/// for some hooks `GIT_INDEX_FILE`) to them. With `GIT_DIR` set, git takes the directory it runs
/// in for the top level, so `git -C WORKSPACE rev-parse --show-toplevel` would name the workspace
/// folder and every path from the top would be wrong. The hook asks git from its own directories
/// instead: where git runs it, the same repository is found again without them.
fn forget_the_hooks_repository_variables() {
    let here_is_a_worktree = std::env::current_dir().is_ok_and(|d| d.join(".git").exists());
    if !here_is_a_worktree {
        return;
    }
    for name in ["GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_PREFIX"] {
        // SAFETY: `docket hook` runs on the main thread before docket starts any other thread
        // (cli::run calls it with no runtime), so nothing reads the environment meanwhile.
        unsafe { std::env::remove_var(name) };
    }
}

/// The workspace a hook repairs: `--workspace` when given (what older hooks passed), else the
/// folder `git-setup` recorded in the repository's config, else the top level's own workspace,
/// always inside the worktree git runs the hook in (its current directory). Not
/// `DOCKET_WORKSPACE`: a merge repairs the tree git just changed, wherever the shell points.
///
/// The repository's content decides what that folder is, so a merge may have made any of its
/// components a link (a tracked `tracker -> ../victim`), and a config value may be absolute or
/// climb. The hook repairs only a workspace reached from the top level component by component
/// with no link on the way, held by this very repository; otherwise it does nothing and says why.
fn hook_workspace(a: &HookArgs) -> Result<Workspace, String> {
    let here = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let top = crate::store::git::toplevel(&here).ok_or("not run inside a git worktree; nothing to repair")?;
    let (rel, named_by) = match (a.ws.workspace.as_deref(), crate::store::git::hook_workspace(&top)) {
        (Some(explicit), _) => {
            let rel = explicit.strip_prefix(&top).map(Path::to_path_buf).unwrap_or_else(|_| explicit.to_path_buf());
            (rel, "--workspace")
        }
        (None, Some(recorded)) => (recorded, "git config docket.workspace"),
        (None, None) => (PathBuf::new(), "the top level"),
    };
    let folder = confined(&top, &rel).map_err(|why| format!("{why} ({named_by}); {REFUSED}"))?;
    // The tree git just changed, even in a linked worktree that otherwise serves the main
    // worktree's workspace: its files are what the next commit and push carry.
    let ws = Workspace::resolve_with(Some(&folder), Some(Worktrees::Local)).map_err(|e| e.to_string())?;
    for dir in [&ws.root, &ws.dir] {
        let Ok(inside) = dir.strip_prefix(&top) else {
            return Err(format!("the workspace {} is outside this repository ({named_by}); {REFUSED}", dir.display()));
        };
        confined(&top, inside).map_err(|why| format!("{why} ({named_by}); {REFUSED}"))?;
    }
    let holder = Repo::discover(&ws.dir).map(|r| r.toplevel);
    let same = |a: &Path, b: &Path| a.canonicalize().ok().zip(b.canonicalize().ok()).is_some_and(|(a, b)| a == b);
    if !holder.as_deref().is_some_and(|h| same(h, &top)) {
        return Err(format!(
            "the workspace {} belongs to another repository than the one running this hook ({}); {REFUSED}",
            ws.dir.display(),
            top.display()
        ));
    }
    Ok(ws)
}

/// What the hook says when it leaves a workspace alone.
const REFUSED: &str = "the hook repaired nothing. Point `docket.workspace` at a workspace folder inside this repository, relative to its top level and reached through no link (`docket git-setup` in that folder records it), or run `docket doctor --fix` there yourself";

/// `top` joined with `rel`, walked from `top` through the rooted file layer: `rel` must neither
/// be absolute nor climb, and every component must be a plain folder, never a link. Why not,
/// otherwise.
fn confined(top: &Path, rel: &Path) -> Result<PathBuf, String> {
    use std::path::Component;
    for part in rel.components() {
        match part {
            Component::CurDir | Component::Normal(_) => {}
            Component::RootDir | Component::Prefix(_) => {
                return Err(format!(
                    "the workspace path {} is absolute, outside this repository's top level",
                    rel.display()
                ));
            }
            Component::ParentDir => return Err(format!("the workspace path {} climbs out with `..`", rel.display())),
        }
    }
    let at = top.join(rel);
    if at.components().count() == top.components().count() {
        return Ok(at);
    }
    let root = crate::store::fs::Root::open(top).map_err(|e| e.to_string())?;
    match root.entry(&at) {
        Ok(crate::store::fs::Entry::Dir) => Ok(at),
        Ok(crate::store::fs::Entry::Other(kind)) => Err(format!("{} is {kind}; the hook follows none", at.display())),
        Ok(_) => Err(format!("{} is not a folder", at.display())),
        Err(e) => Err(format!("the workspace folder {} is not reached through plain folders ({e})", at.display())),
    }
}

/// The duplicated ids (upper-cased) this merge made, and those it found: an id is the merge's
/// doing unless two of its holders were together in one tree before it (either side of the
/// merge, the branch before a rebase, or a remote-tracking branch). After a rebase the new
/// commits hold both sides already, so only the branch as it was (`ORIG_HEAD`) counts.
///
/// A holder is known by its file's name in its collection, whatever folder its state puts it
/// in: an issue closed here since (moved to `archived/`) was together with the other holder on
/// the remote all the same, and the clone that pushed them together is the one to renumber.
fn made_by_merge(repo: &Repo, ws: &Workspace, report: &doctor::Report, hook: &str) -> (HashSet<String>, Vec<String>) {
    let spec = ws_spec(repo, ws);
    let before: &[&str] = if hook == "post-rewrite" { &["ORIG_HEAD"] } else { &["HEAD^1", "HEAD^2", "ORIG_HEAD"] };
    let mut revs: Vec<String> = before.iter().map(|r| r.to_string()).collect();
    revs.extend(repo.branch_tips().into_iter().filter(|(n, _)| n.starts_with("refs/remotes/")).map(|(_, oid)| oid));
    let mut trees: Vec<HashSet<Vec<u8>>> = Vec::new();
    let mut seen = HashSet::new();
    for rev in &revs {
        let Some(oid) = repo.git(&["rev-parse", "-q", "--verify", &format!("{rev}^{{commit}}")]) else { continue };
        if !seen.insert(oid.trim().to_string()) {
            continue;
        }
        let args = ["ls-tree", "-r", "--name-only", "-z", oid.trim(), "--"].map(OsStr::new);
        let Ok(names) = git(&repo.toplevel, &[&args[..], &[spec.as_os_str()]].concat()) else { continue };
        trees.push(nul_separated(&names).map(|p| issue_name(&p)).collect());
    }
    let (mut made, mut before) = (HashSet::new(), Vec::new());
    for (id, holders) in report.holders_of_duplicates() {
        // The two copies of an interrupted move are one name: one issue, not two.
        let names: HashSet<Vec<u8>> =
            holders.iter().filter_map(|p| from_top(repo, ws, p)).map(|p| issue_name(&p)).collect();
        if trees.iter().any(|t| names.iter().filter(|n| t.contains(*n)).count() >= 2) {
            before.push(id);
        } else {
            made.insert(id.to_uppercase());
        }
    }
    (made, before)
}

/// Who a path from the top names: the path with an `archived` folder before the file's name
/// left out (`.docket/issues/archived/ISS-1-x.md` is `.docket/issues/ISS-1-x.md`).
fn issue_name(path: &[u8]) -> Vec<u8> {
    let path = Path::new(OsStr::from_bytes(path));
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return path.as_os_str().as_bytes().to_vec();
    };
    let dir = if dir.file_name().is_some_and(|d| d == "archived") { dir.parent().unwrap_or(dir) } else { dir };
    dir.join(name).into_os_string().into_vec()
}

/// Commits the index on top of HEAD with plumbing: inside post-merge git still has the merge's
/// state files (`MERGE_HEAD`), and `git commit` would take the repair for the merge's conclusion.
fn commit_index(top: &Path) -> Result<(), String> {
    let head = git_line(top, &["rev-parse", "--verify", "HEAD"])?;
    let tree = git_line(top, &["write-tree"])?;
    let commit = git_line(top, &["commit-tree", &tree, "-p", &head, "-m", MESSAGE])?;
    git(top, &["update-ref", "-m", "docket: repair the ids the merge duplicated", "HEAD", &commit, &head])?;
    Ok(())
}

/// `git ARGS` in `dir` as docket's hook: its own commit triggers no docket hook again. Its
/// stdout as bytes: paths in the workspace need not be UTF-8.
fn git<S: AsRef<OsStr>>(dir: &Path, args: &[S]) -> Result<Vec<u8>, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env(ACTIVE, "1")
        .output()
        .map_err(|e| format!("cannot run git ({e})"))?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        let shown: Vec<String> = args.iter().map(|a| a.as_ref().to_string_lossy().into_owned()).collect();
        Err(format!("`git {}` failed: {}", shown.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
    }
}

/// `git ARGS` whose output is one line of text (an object id).
fn git_line(dir: &Path, args: &[&str]) -> Result<String, String> {
    git(dir, args).map(|out| String::from_utf8_lossy(&out).trim().to_string())
}

fn nul_separated(out: &[u8]) -> impl Iterator<Item = Vec<u8>> + '_ {
    out.split(|b| *b == 0).filter(|p| !p.is_empty()).map(<[u8]>::to_vec)
}

/// The workspace folder as a pathspec from the top level, byte for byte (`.` at the top).
fn ws_spec(repo: &Repo, ws: &Workspace) -> OsString {
    match Repo::ws_rel_path(&ws.dir, &repo.toplevel) {
        Some(rel) if !rel.as_os_str().is_empty() => rel.into_os_string(),
        _ => OsString::from("."),
    }
}

/// `path` (inside the workspace) as a path from the repository's top level, as git prints them.
fn from_top(repo: &Repo, ws: &Workspace, path: &Path) -> Option<Vec<u8>> {
    let in_root = path.strip_prefix(&ws.root).ok()?;
    let ws_rel = Repo::ws_rel_path(&ws.dir, &repo.toplevel)?;
    let root_rel = ws_rel.parent().map(Path::to_path_buf).unwrap_or_default();
    Some(root_rel.join(in_root).into_os_string().into_vec())
}

/// Files of the workspace git sees changed or untracked, from the top level (renames give both
/// names): the files the hook must not commit on the user's behalf.
fn dirty_paths(repo: &Repo, spec: &OsStr) -> Result<HashSet<Vec<u8>>, String> {
    let args = ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--"].map(OsStr::new);
    let out = git(&repo.toplevel, &[&args[..], &[spec]].concat())?;
    let mut paths = HashSet::new();
    let mut fields = nul_separated(&out);
    while let Some(entry) = fields.next() {
        let (status, path) = entry.split_at(entry.len().min(3));
        paths.insert(path.to_vec());
        if status.contains(&b'R') || status.contains(&b'C') {
            paths.extend(fields.next());
        }
    }
    Ok(paths)
}
