//! Tombstones that end. A close or cancel replaces an issue's claim record by a tombstone
//! ("closed by ann at T"), so a checkout whose files still say open is neither offered the
//! finished work nor able to claim it. It is needed only until the close can be seen where the
//! other checkouts look, and then it goes, compare-and-set on the tombstone as read (a newer
//! record, a reopen and a new claim, is never removed):
//! - outside git, and inside git when every worktree serves the main worktree's files: the files
//!   themselves (this workspace's file of the issue says closed or cancelled);
//! - `worktrees: local` worktrees and a bare repository (claims in the common git directory):
//!   the branch the repository's HEAD names (the main checkout's) has the issue closed;
//! - clones (`claims_remote`): the remote-tracking branch of the remote's default branch
//!   (`origin/HEAD`, else `origin/main` or `origin/master`) has the issue closed.
//!
//! Inside git this checkout's own file must also say closed, so a clone that fetched the close
//! but has not merged it never removes the tombstone its own files still need. A tombstone older
//! than [`TOMBSTONE_MAX`] goes in any case. Only local git reads decide (what the last fetch,
//! pull or push brought); the removal is the only call that may reach a remote, under its
//! deadline and never under a lock. It runs from what already runs or reads the records: ready
//! (at most once per [`SWEEP_EVERY`] in a process), the serve's renewal thread, and
//! `docket doctor --fix` (every time).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::Store;
use crate::git::Repo;
use crate::git::claims::{Claim, Claims, State};
use crate::model::{IssueFilter, SortField, SortOrder, Status};
use crate::workspace::Worktrees;

/// The longest a tombstone is kept, whether or not its close was seen: by then every checkout
/// that will ever pull it has.
pub const TOMBSTONE_MAX: Duration = Duration::from_secs(7 * 24 * 3600);

/// How often ready and the renewal thread look for tombstones to end, at most.
pub const SWEEP_EVERY: Duration = Duration::from_secs(10);

/// Where the other checkouts look for a close.
enum View {
    /// This workspace's files (outside git, or one set of files for every worktree).
    Files,
    /// A branch of the repository (`refs/heads/main`, `refs/remotes/origin/main`).
    Branch(String),
}

impl Store {
    /// Whether the last sweep of this process was [`SWEEP_EVERY`] ago or more (then it is this
    /// one's turn: the time is taken).
    fn sweep_due(&self) -> bool {
        let mut last = self.swept.lock().unwrap_or_else(|p| p.into_inner());
        if last.is_some_and(|t| t.elapsed() < SWEEP_EVERY) {
            return false;
        }
        *last = Some(Instant::now());
        true
    }

    /// With the records ready just read: ends the tombstones it can, at most once per
    /// [`SWEEP_EVERY`].
    pub(crate) fn end_tombstones_now_and_then(&self, refs: &Claims, records: &[Claim]) {
        if records.iter().any(|c| c.state == State::Closed) && self.sweep_due() {
            self.end_tombstones_of(refs, records);
        }
    }

    /// From the renewal thread: [`Store::end_tombstones`], at most once per [`SWEEP_EVERY`].
    pub(crate) fn end_tombstones_periodically(&self) {
        if self.sweep_due() {
            self.end_tombstones();
        }
    }

    /// Removes every tombstone whose close can be seen where the other checkouts look, and every
    /// one older than [`TOMBSTONE_MAX`]; what was removed, in words (for doctor --fix).
    pub fn end_tombstones(&self) -> Vec<String> {
        let Ok(Some(refs)) = self.claim_refs() else { return Vec::new() };
        match refs.records() {
            Ok((records, _, None)) => self.end_tombstones_of(refs, &records),
            // The remote did not answer: its last list may be old, and nothing is removed.
            _ => Vec::new(),
        }
    }

    fn end_tombstones_of(&self, refs: &Claims, records: &[Claim]) -> Vec<String> {
        let tombs: Vec<&Claim> = records.iter().filter(|c| c.state == State::Closed).collect();
        if tombs.is_empty() {
            return Vec::new();
        }
        let seen = self.closes_seen(refs, self.closed_here(&tombs));
        let mut gone = Vec::new();
        for c in tombs {
            let why = match c.older_than(TOMBSTONE_MAX) {
                true => Some("it is older than 7 days".to_string()),
                false => seen.get(&c.id.to_uppercase()).map(|w| format!("the close can be seen {w}")),
            };
            let Some(why) = why else { continue };
            match refs.drop_claim(c) {
                Ok(true) => gone.push(format!("removed the tombstone of {} ({}): {why}", c.id, c.describe())),
                // Replaced meanwhile (reopened, claimed again): the newer record stays.
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(id = %c.id, error = ?e, "could not remove a tombstone; the next sweep tries again");
                    break;
                }
            }
        }
        gone
    }

    /// Each tombstone's issue where it is closed in this checkout's files (upper-cased id, path):
    /// the file of its id, or, when that id names another, open issue here, the closed file of
    /// its `docketKey` under the id it has here. Before a merge two clones can give one id to two
    /// issues, and a merge renumbers one: the tombstone stays until the close of its own issue
    /// can be seen, for the clones where the id still names it.
    fn closed_here(&self, tombs: &[&Claim]) -> Vec<(String, PathBuf)> {
        let mut closed = Vec::new();
        let mut by_key: Vec<(String, &str)> = Vec::new();
        for c in tombs {
            let Ok(here) = self.get_meta(&c.id).map(|m| m.value) else { continue };
            let id = c.id.to_uppercase();
            let own = || crate::claiming::key_of(&here.path);
            match (here.status.is_archived(), c.key.as_deref()) {
                (true, _) => closed.push((id, here.path.clone())),
                (false, Some(key)) if own().is_some_and(|k| k != key) => by_key.push((id, key)),
                (false, _) => {}
            }
        }
        if by_key.is_empty() {
            return closed;
        }
        let archived = IssueFilter { status: vec![Status::Closed, Status::Cancelled], ..IssueFilter::default() };
        let Ok(list) = self.list(&archived, SortField::Id, SortOrder::Asc) else { return closed };
        for m in &list.value {
            let Some(key) = crate::claiming::key_of(&m.path) else { continue };
            closed.extend(by_key.iter().filter(|(_, k)| *k == key).map(|(id, _)| (id.clone(), m.path.clone())));
        }
        closed
    }

    /// The tombstones (upper-cased ids) whose close can be seen where the other checkouts look,
    /// each with where, of those in `closed_here` ([`Store::closed_here`]): this checkout's own
    /// file must say closed too.
    fn closes_seen(&self, refs: &Claims, closed_here: Vec<(String, PathBuf)>) -> HashMap<String, String> {
        let mut seen = HashMap::new();
        if closed_here.is_empty() {
            return seen;
        }
        let repo = Repo::discover(&self.ws.dir);
        let view = match (&repo, refs.files(), refs.remote()) {
            (None, _, _) | (_, Some(_), _) => View::Files,
            (Some(repo), None, Some(remote)) => match default_branch(&repo.toplevel, remote) {
                Some(branch) => View::Branch(branch),
                None => return seen,
            },
            (Some(repo), None, None) if self.ws.worktrees == Worktrees::Shared && !bare(repo) => View::Files,
            (Some(repo), None, None) => match head_branch(repo) {
                Some(branch) => View::Branch(branch),
                None => return seen,
            },
        };
        let (branch, repo) = match (view, repo) {
            (View::Files, _) | (_, None) => {
                for (id, _) in closed_here {
                    seen.insert(id, "in this workspace's files".to_string());
                }
                return seen;
            }
            (View::Branch(b), Some(repo)) => (b, repo),
        };
        // Each file where it is here, and in or out of archived/ on the branch.
        let mut specs: Vec<(String, String)> = Vec::new();
        for (id, path) in &closed_here {
            for p in crate::git::paths_on_branch(&repo.toplevel, path) {
                specs.push((id.clone(), format!("{branch}:{p}")));
            }
        }
        let shown = crate::git::show_batch(&repo.toplevel, specs.iter().map(|(_, s)| s.as_str()));
        let short = branch.strip_prefix("refs/remotes/").or(branch.strip_prefix("refs/heads/")).unwrap_or(&branch);
        for ((id, _), text) in specs.iter().zip(shown) {
            if text.as_deref().is_some_and(says_closed) {
                seen.insert(id.clone(), format!("on {short}"));
            }
        }
        seen
    }
}

/// Whether an issue file's frontmatter says closed or cancelled.
fn says_closed(text: &str) -> bool {
    let Some(front) = text.strip_prefix("---").and_then(|t| t.split("\n---").next()) else { return false };
    front
        .lines()
        .find_map(|l| l.strip_prefix("status:"))
        .and_then(|v| Status::parse_loose(v.trim().trim_matches(['"', '\''])))
        .is_some_and(|s| s.is_archived())
}

/// The remote-tracking branch of `remote`'s default branch, as this clone last fetched it.
pub(crate) fn default_branch(top: &Path, remote: &str) -> Option<String> {
    let head = format!("refs/remotes/{remote}/HEAD");
    if let Some(b) = crate::git::run(top, &["symbolic-ref", "-q", "--end-of-options", &head]) {
        return Some(b.trim().to_string()).filter(|b| !b.is_empty());
    }
    ["main", "master"].iter().map(|b| format!("refs/remotes/{remote}/{b}")).find(|r| {
        crate::git::run(top, &["rev-parse", "-q", "--verify", "--end-of-options", &format!("{r}^{{commit}}")]).is_some()
    })
}

/// The branch the repository's HEAD names (the main checkout's, or a bare repository's default).
fn head_branch(repo: &Repo) -> Option<String> {
    let dir = repo.common_dir.as_os_str();
    let out = std::process::Command::new("git")
        .arg("--git-dir")
        .arg(dir)
        .args(["symbolic-ref", "-q", "HEAD"])
        .output()
        .ok()?;
    let branch = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !branch.is_empty()).then_some(branch)
}

fn bare(repo: &Repo) -> bool {
    let out = std::process::Command::new("git")
        .arg("--git-dir")
        .arg(&repo.common_dir)
        .args(["config", "--bool", "core.bare"])
        .output();
    out.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "true")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_files_status_says_whether_it_is_closed() {
        assert!(says_closed("---\nid: ISS-1\nstatus: closed\n---\nbody\n"));
        assert!(says_closed("---\nstatus: \"cancelled\"\n---\n"));
        assert!(!says_closed("---\nstatus: open\n---\nstatus: closed\n"));
        assert!(!says_closed("no frontmatter\nstatus: closed\n"));
    }
}
