//! Two different issues at one path. Clones that never fetched number alike, and when they also
//! title alike (writing-plans' "Task 1: Set up" in every plan) both branches add the same file
//! name. The merge driver must not merge them field by field into one issue: it keeps one at the
//! path (the one already on a remote-tracking branch, which teammates may reference; else the one
//! created first) and the other whole in a new file beside it (`NAME-2.md`), untracked. Both hold
//! the same id, so the hook `docket git-setup` installed (or `docket doctor --fix`) renumbers the
//! new file and commits it; the files the driver wrote are listed in the git directory
//! (`docket-split`) so the hook knows they are its own to commit, not the user's work.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use std::collections::HashMap;

use crate::fs::{Entry, Root};
use crate::git::Repo;
use crate::git::merge::{created_at, identity, identity_key};
use crate::git::run;

/// The list, in the (per-worktree) git directory, of the files the merge driver wrote beside a
/// path where two branches added two different issues: `written<TAB>path` per line, from the top
/// level.
pub const SPLIT_LIST: &str = "docket-split";
use SPLIT_LIST as LIST;

/// What the merge driver wrote beside a path and nobody committed yet: written file -> the path
/// its issue had on its branch (both from the top level).
pub fn split_origins(repo: &Repo) -> HashMap<String, String> {
    let Some(gd) = repo.git(&["rev-parse", "--path-format=absolute", "--git-dir"]) else { return HashMap::new() };
    let gd = PathBuf::from(gd.trim_end());
    let bytes = Root::open(&gd).and_then(|r| r.read(&gd.join(SPLIT_LIST), 1 << 20)).unwrap_or_default();
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(written, path)| (written.to_string(), path.to_string()))
        .collect()
}

fn git_dir(top: &Path) -> Option<PathBuf> {
    run(top, &["rev-parse", "--path-format=absolute", "--git-dir"]).map(|s| PathBuf::from(s.trim_end()))
}

/// Whether the blob of `file`'s bytes is the file at `path` on some remote-tracking branch.
fn published(top: &Path, path: &str, file: &Path) -> bool {
    let Some(blob) = run(top, &["hash-object", "--", &file.to_string_lossy()]) else { return false };
    let tips = run(top, &["for-each-ref", "--format=%(refname)", "refs/remotes"]).unwrap_or_default();
    tips.lines().any(|tip| {
        run(top, &["rev-parse", "-q", "--verify", &format!("{tip}:{path}")]).is_some_and(|b| b.trim() == blob.trim())
    })
}

/// Resolves `ours` (%A) and `theirs` (%B), two different issues at `path`: writes the one that
/// keeps the path to %A and the other to a new file beside it. Returns what to tell the user.
pub fn split(ours_file: &Path, theirs_file: &Path, path: &str, ours: &str, theirs: &str) -> Result<String, String> {
    let top = run(Path::new("."), &["rev-parse", "--show-toplevel"])
        .map(|s| PathBuf::from(s.trim_end()))
        .ok_or("the merge driver runs outside a git work tree")?;
    let (ours_pub, theirs_pub) = (published(&top, path, ours_file), published(&top, path, theirs_file));
    let keep_theirs = if ours_pub != theirs_pub { theirs_pub } else { created_at(theirs) < created_at(ours) };
    let (keep, other) = if keep_theirs { (theirs, ours) } else { (ours, theirs) };
    let root = Root::open(&top).map_err(|e| e.to_string())?;
    let at = top.join(path);
    let dir = at.parent().ok_or("the path has no folder")?.to_path_buf();
    let stem = at.file_stem().and_then(|s| s.to_str()).ok_or("the path is not a file name")?.to_string();
    let listed = listed(&top);
    // A version of the same issue written beside another path (before a rebase replayed its
    // move to `archived/`) is replaced by this one, not kept as a second copy.
    for stale in &listed {
        let path = top.join(stale);
        if path.parent() != Some(dir.as_path())
            && root.read(&path, 1 << 22).ok().and_then(|b| identity(&String::from_utf8_lossy(&b))) == identity(other)
        {
            root.remove_file(&path).map_err(|e| format!("cannot remove {e}"))?;
        }
    }
    let mut beside = None;
    for k in 2..1000 {
        let candidate = dir.join(format!("{stem}-{k}.md"));
        match root.entry(&candidate).map_err(|e| e.to_string())? {
            Entry::Missing => {
                root.create_dir_all(&dir).map_err(|e| e.to_string())?;
                root.create_atomic(&candidate, other.as_bytes()).map_err(|e| format!("cannot write {e}"))?;
                beside = Some(candidate);
                break;
            }
            // A later commit of a rebase touching the same issue again: its newer version.
            Entry::File
                if listed.contains(&rel(&top, &candidate))
                    && root.read(&candidate, 1 << 22).ok().and_then(|b| identity(&String::from_utf8_lossy(&b)))
                        == identity(other) =>
            {
                root.write_atomic(&candidate, other.as_bytes(), None).map_err(|e| format!("cannot write {e}"))?;
                beside = Some(candidate);
                break;
            }
            _ => {}
        }
    }
    let beside = beside.ok_or_else(|| format!("no free name beside {path}"))?;
    crate::fs::replace_named(ours_file, keep.as_bytes()).map_err(|e| format!("cannot write {e}"))?;
    let rel_beside = rel(&top, &beside);
    if !listed.contains(&rel_beside)
        && let Some(gd) = git_dir(&top)
    {
        let appended =
            Root::open(&gd).and_then(|r| r.append(&gd.join(LIST), format!("{rel_beside}\t{path}\n").as_bytes()));
        if let Err(e) = appended {
            eprintln!(
                "docket merge-file: could not note {rel_beside} for the hook ({e}); commit it after `docket doctor --fix`"
            );
        }
    }
    let (kept_at, other_at) = (created_at(keep).unwrap_or_default(), created_at(other).unwrap_or_default());
    let copied = identity_key(keep).is_some() && identity_key(keep) == identity_key(other);
    let told = match (copied, kept_at == other_at) {
        (true, _) => "two copies of one file (one docketKey) edited into two issues".to_string(),
        (false, true) => format!("created at the same instant {kept_at}, told apart by their docketKey"),
        (false, false) => format!("created {kept_at} and {other_at}"),
    };
    let kept = match (identity_key(keep), kept_at == other_at && !copied) {
        (Some(k), true) => format!("docketKey {k}"),
        _ => format!("created {kept_at}"),
    };
    Ok(format!(
        "docket merge-file: {path} was added on both branches by two different issues ({told}): {path} keeps the one {kept}{}, the other is kept whole, untracked, in {rel_beside}. docket's git hook gives it a new id and commits it (without the hooks: `docket doctor --fix`, then commit it)",
        if ours_pub || theirs_pub { " (already on a remote branch)" } else { "" },
    ))
}

fn rel(top: &Path, p: &Path) -> String {
    p.strip_prefix(top).unwrap_or(p).to_string_lossy().replace('\\', "/")
}

/// The files the driver wrote beside a path and the hook has not committed yet, as paths from
/// the top level.
pub fn listed(top: &Path) -> BTreeSet<String> {
    Repo::discover(top).map(|repo| split_origins(&repo).into_keys().collect()).unwrap_or_default()
}

/// Forgets the list once the hook has dealt with its files.
pub fn forget(top: &Path) {
    if let Some(gd) = git_dir(top) {
        let _ = Root::open(&gd).and_then(|r| r.remove_file(&gd.join(LIST)));
    }
}
