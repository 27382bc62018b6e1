//! Claim releases the claims remote has not taken yet. A close, cancel or hand-over changes the
//! file under the workspace lock; its release on the remote runs after, under the remote's
//! deadline ([`crate::git::claims`]). One that cannot finish (the remote is silent or gone) is
//! kept here, in the workspace's cache (`cache/claims-pending.jsonl`, one JSON object a line),
//! and finished by the next call that reaches the remote (a claim, `issues_ready`) or by
//! `docket doctor --fix`. The file has its own lock, held only while it is read or rewritten,
//! never while the remote is asked.

use std::path::PathBuf;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::Store;
use crate::fs::Root;

/// One release the remote has yet to take.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    /// What to do: `release` (the holder's claim ref goes, compare-and-set on it).
    pub op: String,
    /// The issue.
    pub id: String,
    /// Whose claim goes.
    pub holder: String,
    /// When it was queued (RFC 3339).
    pub queued: String,
    /// Why the last attempt did not finish.
    #[serde(default)]
    pub why: String,
}

impl Store {
    fn pending_file(&self) -> PathBuf {
        self.ws.cache_dir().join("claims-pending.jsonl")
    }

    /// The releases still queued (none when the file is missing or unreadable).
    pub fn pending_claims(&self) -> Vec<Pending> {
        let Ok(bytes) = crate::fs::read_file(&self.pending_file(), 4 * 1024 * 1024) else { return Vec::new() };
        String::from_utf8_lossy(&bytes).lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
    }

    /// Runs `change` on the queue under its lock and writes it back when it changed.
    fn edit_pending(&self, change: impl FnOnce(&mut Vec<Pending>)) -> Result<(), crate::StoreError> {
        let dir = self.ws.cache_dir();
        let root = Root::open_or_create(&dir)?;
        let _lock = root.lock(&dir.join("claims-pending.lock"))?;
        let mut list = self.pending_claims();
        let before = list.clone();
        change(&mut list);
        if list == before {
            return Ok(());
        }
        if list.is_empty() {
            return root.remove_file(&self.pending_file());
        }
        let text: String = list.iter().filter_map(|p| serde_json::to_string(p).ok()).map(|l| l + "\n").collect();
        root.write_atomic(&self.pending_file(), text.as_bytes(), None)
    }

    /// Queues the release of `holder`'s claim of `id`.
    pub(crate) fn queue_release(&self, id: &str, holder: &str) {
        self.queue(id, holder, "release", String::new());
    }

    /// Queues the tombstone of `id`, closed by `holder` (a close the remote did not take).
    pub(crate) fn queue_close(&self, id: &str, holder: &str, why: String) {
        self.queue(id, holder, "close", why);
    }

    fn queue(&self, id: &str, holder: &str, op: &str, why: String) {
        let queued = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let entry = Pending { op: op.into(), id: id.to_string(), holder: holder.to_string(), queued, why };
        if let Err(e) = self.edit_pending(|list| list.push(entry)) {
            tracing::warn!(%id, error = %e, "could not queue the release of a claim ref");
        }
    }

    /// Does what is queued, on the remote, until `until`; what is left (each with why).
    pub fn settle_claims(&self, until: Instant) -> Vec<Pending> {
        let queued = self.pending_claims();
        if queued.is_empty() {
            return queued;
        }
        let Ok(Some(refs)) = self.claim_refs() else { return queued };
        let (mut done, mut failed) = (Vec::new(), Vec::new());
        for p in &queued {
            if Instant::now() >= until {
                break;
            }
            let outcome = match p.op.as_str() {
                "close" => match refs.read(&p.id) {
                    // The close's own tombstone, its file since written: it is finished.
                    Ok(Some(tomb)) if tomb.state == crate::git::claims::State::Closed => refs.finish_close(&tomb),
                    Ok(current) => refs.close(&p.id, current.as_ref(), &p.holder),
                    Err(r) => Err(r),
                },
                _ => refs.release_until(&p.id, &p.holder, until),
            };
            match outcome {
                Ok(_) => done.push(p.clone()),
                Err(r) => failed.push((p.clone(), r.short())),
            }
        }
        let _ = self.edit_pending(|list| {
            list.retain(|p| !done.contains(p));
            for p in list.iter_mut() {
                if let Some((_, why)) = failed.iter().find(|(f, _)| f == p) {
                    p.why = why.clone();
                }
            }
        });
        self.pending_claims()
    }
}

/// How long a probe of the repository's remote for claim refs is reused (see
/// [`Store::claiming_alone`]).
const PROBE_REUSE: std::time::Duration = std::time::Duration::from_secs(10 * 60);

/// The longest a probe waits on the remote (less than a claim's own deadline: it only informs).
const PROBE_DEADLINE: std::time::Duration = std::time::Duration::from_secs(3);

impl Store {
    /// With no claims remote set: the remote of this clone that already holds docket claim refs
    /// (other clones claim through it), so claims taken here are local only and other clones can
    /// take the same issues. Asked once under a short deadline and reused for ten minutes (kept
    /// in the workspace's cache), so a call pays for it at most once in a while.
    pub fn claiming_alone(&self) -> Option<String> {
        if self.claims_remote.is_some() {
            return None;
        }
        let mut memo = self.alone.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((_, found)) = memo.as_ref().filter(|(at, _)| at.elapsed() < PROBE_REUSE) {
            return found.clone();
        }
        // Not held while git runs: a second caller meanwhile probes too, at worst.
        drop(memo);
        let found = self.probe_alone();
        memo = self.alone.lock().unwrap_or_else(|p| p.into_inner());
        *memo = Some((Instant::now(), found.clone()));
        found
    }

    fn probe_alone(&self) -> Option<String> {
        let repo = crate::git::Repo::discover(&self.ws.dir)?;
        let file = self.ws.cache_dir().join("claims-remote-probe");
        let now = chrono::Utc::now().timestamp_millis();
        if let Ok(text) = std::fs::read_to_string(&file) {
            let mut lines = text.lines();
            let at: i64 =
                lines.next().and_then(|l| l.strip_prefix("checked ")).and_then(|v| v.parse().ok()).unwrap_or(0);
            if (now - at).max(0) < PROBE_REUSE.as_millis() as i64 {
                return lines
                    .next()
                    .and_then(|l| l.strip_prefix("holds "))
                    .map(str::to_string)
                    .filter(|r| !r.is_empty());
            }
        }
        let remote = probe_remote(&repo.toplevel)?;
        let until = Instant::now() + PROBE_DEADLINE.min(self.remote_timeout);
        let mut cmd = std::process::Command::new("git");
        cmd.arg("-C").arg(&repo.toplevel).args(["ls-remote", "--refs", "--", &remote, "refs/docket/claims/*"]);
        let holds = match crate::git::remote::run_until(&mut cmd, until) {
            Ok(crate::git::remote::Ran::Done(out)) => out.status.success() && !out.stdout.is_empty(),
            _ => false,
        };
        let found = holds.then_some(remote);
        let text = format!("checked {now}\nholds {}\n", found.as_deref().unwrap_or_default());
        if let Ok(root) = Root::open_or_create(&self.ws.cache_dir()) {
            let _ = root.write_atomic(&file, text.as_bytes(), None);
        }
        found
    }
}

/// The remote a clone's claims would go through: the current branch's, else `origin`, else the
/// only one (a name git itself gave, checked like `claims_remote`).
fn probe_remote(top: &std::path::Path) -> Option<String> {
    let branch = crate::git::run(top, &["symbolic-ref", "-q", "--short", "HEAD"]).map(|b| b.trim().to_string());
    let own = branch.and_then(|b| crate::git::run(top, &["config", "--get", &format!("branch.{b}.remote")]));
    let remotes = crate::git::run(top, &["remote"]).unwrap_or_default();
    let names: Vec<&str> = remotes.lines().map(str::trim).filter(|r| !r.is_empty()).collect();
    let chosen = own.map(|r| r.trim().to_string()).filter(|r| names.contains(&r.as_str())).or_else(|| {
        names
            .iter()
            .find(|r| **r == "origin")
            .or(if names.len() == 1 { names.first() } else { None })
            .map(|r| r.to_string())
    })?;
    crate::git::claims::valid_remote(&chosen).then_some(chosen)
}

/// What a clone that claims alone is told.
pub fn alone_warning(remote: &str) -> String {
    format!(
        "this clone claims alone: its remote `{remote}` holds docket claim refs (other clones claim through it), but no claims_remote is set here, so claims taken here are local only and another clone can take the same issue. Set `claims_remote: {remote}` in config/docket.yaml and commit it (or DOCKET_CLAIMS_REMOTE={remote} for this process)"
    )
}
