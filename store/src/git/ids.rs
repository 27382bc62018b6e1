//! Branch-aware id allocation: a new id is above the highest id of its collection in the working
//! tree, in every local branch, every remote-tracking branch (what `git fetch` brought) and every
//! linked worktree, so two branches, two agents in two worktrees, or two clones that fetched each
//! other's work never hand out the same "next" number.
//!
//! Cost per create: `git rev-parse`, `git for-each-ref refs/heads refs/remotes`, `git worktree list` and a
//! directory listing per worktree. A commit's tree never changes, so the highest number found in
//! a commit is kept in `cache/git-ids.json` keyed by (commit, collection folder): a branch tip is
//! listed (`git ls-tree` of the two collection folders only, never a tree walk) once, the first
//! time it is seen. Outside git every function here returns `None` and allocation is unchanged.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::Path;

use super::Repo;
use crate::fs::Root;
use crate::model::{IssueType, MAX_ID_NUMBER, StoreError, bounded_id_number, id_after};
use crate::workspace::Workspace;

/// The cache file inside the workspace's cache directory.
const CACHE_FILE: &str = "git-ids.json";

/// Largest cache file read: it holds one line per branch tip and collection.
const MAX_CACHE_BYTES: u64 = 4 * 1024 * 1024;

/// The number of an id-carrying file name (`ISS-000042-slug.md`, legacy `000042-slug.md`): the
/// same names the store's own allocation counts. A number beyond the format's range
/// (`ISS-18446744073709551615-x.md` on a branch) is malformed and gives `None`.
pub fn number_in_file_name(name: &str) -> Option<u64> {
    let split = name.find(|c: char| c.is_ascii_digit())?;
    let (prefix, rest) = name.split_at(split);
    let known = prefix.is_empty() || IssueType::ALL.iter().any(|t| t.prefix() == prefix);
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    (known && digits.len() >= 6).then(|| bounded_id_number(&digits)).flatten()
}

/// The highest id number of collection `t` in every local and remote-tracking branch tip and in
/// the working tree of every worktree of the repository holding `ws`; `None` outside git.
pub fn highest_id_number(ws: &Workspace, t: IssueType) -> Option<u64> {
    let repo = Repo::discover(&ws.dir)?;
    Some(highest_in_repo(&repo, ws, t))
}

fn highest_in_repo(repo: &Repo, ws: &Workspace, t: IssueType) -> u64 {
    let folder = repo.in_ws(t.folder());
    let dirs = [folder.clone(), format!("{folder}/archived")];
    let worktrees = repo.worktrees();
    let mut commits: Vec<String> = repo.branch_tips().into_iter().map(|(_, oid)| oid).collect();
    commits.extend(worktrees.iter().filter_map(|(_, head)| head.clone()));
    commits.sort();
    commits.dedup();

    // Through the rooted layer: a cache file committed as a link (to a victim's file, a FIFO,
    // /dev/zero) is neither read nor written; a bounded regular file only.
    let root = Root::workspace(ws).ok();
    let cache_path = ws.cache_dir().join(CACHE_FILE);
    let mut cache: BTreeMap<String, u64> = root
        .as_ref()
        .and_then(|r| r.read(&cache_path, MAX_CACHE_BYTES).ok())
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    // A cached number beyond the format's range was written by someone else: not trusted.
    cache.retain(|_, n| *n <= MAX_ID_NUMBER);
    let mut missed = false;
    let mut max = 0;
    for oid in &commits {
        let key = format!("{oid} {folder}");
        let n = match cache.get(&key) {
            Some(n) => *n,
            None => {
                let Some(names) = repo.names_in_commit(oid, &dirs) else { continue };
                let n = names.iter().filter_map(|n| number_in_file_name(n)).max().unwrap_or(0);
                cache.insert(key, n);
                missed = true;
                n
            }
        };
        max = max.max(n);
    }
    for (root, _) in &worktrees {
        for dir in &dirs {
            let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
            for entry in entries.flatten() {
                if let Some(n) = entry.file_name().to_str().and_then(number_in_file_name) {
                    max = max.max(n);
                }
            }
        }
    }
    if missed {
        // Keep only the commits that are tips now: the file stays as small as the branch list.
        cache.retain(|k, _| commits.iter().any(|oid| k.starts_with(oid.as_str())));
        if let (Some(root), Ok(bytes)) = (&root, serde_json::to_vec(&cache))
            && let Err(e) = root.write_atomic(&cache_path, &bytes, None)
        {
            tracing::warn!(error = %e, "the branch id cache was not written; ids stay correct, the next create lists branches again");
        }
    }
    max
}

/// Held while a new id is chosen and its file written: an exclusive lock in the repository's
/// common directory, so creates in two worktrees of one repository take turns. Released on drop.
pub struct BranchLock {
    _file: File,
}

/// What `Store::create` calls with the id its own allocation chose (under the workspace lock):
/// the id to use instead, numbered above every branch head and worktree when `enabled` and inside
/// git, and the lock to hold until the file is written. Any git trouble leaves `allocated` as is.
pub fn above_branches(
    ws: &Workspace,
    t: IssueType,
    allocated: String,
    enabled: bool,
) -> Result<(String, Option<BranchLock>), StoreError> {
    if !enabled {
        return Ok((allocated, None));
    }
    let mut lock = None;
    let id = above_branches_holding(ws, t, allocated, true, &mut lock)?;
    Ok((id, lock))
}

/// [`above_branches`] for a caller numbering several collections in one hold (an import of
/// issues and ideas): the lock is taken into `held` the first time and kept there, never asked
/// for again while `held` has it (a second `flock` of the same file from the same process on
/// another descriptor would wait for the first forever).
pub fn above_branches_holding(
    ws: &Workspace,
    t: IssueType,
    allocated: String,
    enabled: bool,
    held: &mut Option<BranchLock>,
) -> Result<String, StoreError> {
    if !enabled {
        return Ok(allocated);
    }
    let Some(repo) = Repo::discover(&ws.dir) else { return Ok(allocated) };
    if held.is_none() {
        *held = lock_in(&repo.common_dir);
    }
    let highest = highest_in_repo(&repo, ws, t);
    let digits = allocated.trim_start_matches(|c: char| !c.is_ascii_digit());
    let own = bounded_id_number(digits).unwrap_or(0);
    if highest < own {
        return Ok(allocated);
    }
    id_after(t, highest, ws.collection(t))
}

fn lock_in(common_dir: &Path) -> Option<BranchLock> {
    let file = Root::open(common_dir).and_then(|r| r.lock(&common_dir.join("docket-ids.lock")));
    match file {
        Ok(file) => Some(BranchLock { _file: file }),
        Err(e) => {
            tracing::warn!(error = %e, "creates in other worktrees are not serialized with this one");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_give_numbers_like_the_store_allocation() {
        assert_eq!(number_in_file_name("ISS-000042-fix-it.md"), Some(42));
        assert_eq!(number_in_file_name("000037-legacy.md"), Some(37));
        assert_eq!(number_in_file_name("SPEC-000050-x.md"), Some(50));
        assert_eq!(number_in_file_name("2025-11-22-workflow.md"), None);
        assert_eq!(number_in_file_name("figma.md"), None);
        assert_eq!(number_in_file_name("TASK-000009-x.md"), None);
        assert_eq!(number_in_file_name("ISS-18446744073709551615-x.md"), None);
        assert_eq!(number_in_file_name("ISS-99999999999999999999999-x.md"), None);
        assert_eq!(number_in_file_name("ISS-1000000-x.md"), Some(1_000_000));
    }

    #[test]
    fn outside_git_nothing_changes() {
        let tmp = tempfile::tempdir().expect("tmp");
        let ws = Workspace::init(tmp.path()).expect("init");
        if Repo::discover(&ws.dir).is_some() {
            return; // the temp dir sits inside a repository on this machine
        }
        assert_eq!(highest_id_number(&ws, IssueType::Issue), None);
        let (id, lock) = above_branches(&ws, IssueType::Issue, "ISS-000003".into(), true).expect("ids");
        assert_eq!(id, "ISS-000003");
        assert!(lock.is_none());
    }
}
