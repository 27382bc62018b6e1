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
        let queued = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let entry = Pending {
            op: "release".into(),
            id: id.to_string(),
            holder: holder.to_string(),
            queued,
            why: String::new(),
        };
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
            match refs.release_until(&p.id, &p.holder, until) {
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
