//! Claims through git refs, when the workspace files alone cannot arbitrate (see
//! [`crate::git::claims`]): with a claims remote (clones on other machines), or when linked
//! worktrees keep their own files (`worktrees: local`, a bare repository). The ref is taken
//! first, so of N claimants exactly one goes on to write its file; a refusal writes nothing.
//! Without either, the workspace lock arbitrates ([`Store::claim`]).

use std::time::Duration;

use crate::Store;
use crate::git::Repo;
use crate::git::claims::{ClaimRead, Claims, Refusal, Taken};

use crate::model::{Expect, IssueMeta, IssuePatch, Status, StoreError, Updated};
use crate::workspace::Worktrees;

/// The issues the claim refs say are held, and how old that answer is.
#[derive(Debug, Clone)]
pub struct HeldClaims {
    /// The IDs of the issues that have a claim ref.
    pub ids: Vec<String>,
    /// How old the list is: zero when just read, up to the remote list's reuse time
    /// ([`crate::git::claims::LIST_TTL`]) when a remote's list was reused.
    pub age: Duration,
    /// The remote asked, if any (`None`: the common git directory).
    pub remote: Option<String>,
    /// Why the list is older than it should be: the remote did not answer, and this is the last
    /// list it gave (`age` says how old).
    pub stale: Option<String>,
}

impl Store {
    /// The claim refs this workspace uses, if any: on the claims remote when one is named, in the
    /// common git directory when worktrees keep their own files.
    pub fn claim_refs(&self) -> Result<Option<&Claims>, String> {
        let made = self.claims.get_or_init(|| {
            if self.claims_remote.is_none() && self.ws.worktrees != Worktrees::Local {
                return Ok(None);
            }
            match (Repo::discover(&self.ws.dir), &self.claims_remote) {
                (Some(repo), remote) => Claims::new(&repo.toplevel, remote.as_deref()).map(|c| {
                    let seen = self.ws.cache_dir().join("claims-remote-list");
                    Some(c.with_timeout(self.remote_timeout).with_seen_file(seen))
                }),
                (None, Some(remote)) => Err(format!(
                    "claims_remote names `{remote}`, but the workspace {} is not in a git repository; unset DOCKET_CLAIMS_REMOTE (or claims_remote in config/docket.yaml) or serve the workspace of a clone",
                    self.ws.dir.display()
                )),
                (None, None) => Ok(None),
            }
        });
        made.as_ref().map(Option::as_ref).map_err(Clone::clone)
    }

    /// Claims `id` for `assignee`, through the claim refs first when there are any. `takeover`
    /// (a reason) replaces another holder's claim on purpose, compare-and-set on what it replaces.
    pub fn claim_with(&self, id: &str, assignee: &str, takeover: Option<&str>) -> Result<Updated, StoreError> {
        let refuse = |id: &str, reason: String| StoreError::ClaimRefused { id: id.to_string(), reason };
        let refs = self.claim_refs().map_err(|why| refuse(id, why))?;
        let takeover = takeover.map(str::trim);
        if takeover == Some("") {
            return Err(refuse(id, "a takeover needs a reason (say why the holder is gone)".into()));
        }
        let meta = self.get_meta(id)?.value;
        if takeover.is_none() {
            // Closed, blocked or someone else's in the files: refused before any ref is written.
            let (mut index, _) = self.fresh()?;
            crate::work::check_expect(&mut index, &meta, &Expect::Claim(assignee.to_string()))?;
        }
        let Some(refs) = refs else { return self.claim_file(&meta, assignee, takeover) };
        let taken = refs.take(&meta.id, assignee, takeover).map_err(|r| refuse(&meta.id, r.reason()))?;
        let written = self.claim_file(&meta, assignee, takeover).inspect_err(|_| {
            if let Taken::New(claim) = &taken
                && let Err(e) = refs.drop_claim(claim)
            {
                tracing::warn!(id = %meta.id, error = ?e, "could not take back a claim ref whose file write failed");
            }
        });
        // The remote answered: finish what earlier calls left queued.
        self.settle_claims(refs.until());
        written
    }

    /// The file half of a claim: [`Store::claim`], or for a takeover a compare-and-set write of
    /// status and assignee on the issue as it was read.
    fn claim_file(&self, meta: &IssueMeta, assignee: &str, takeover: Option<&str>) -> Result<Updated, StoreError> {
        if takeover.is_none() {
            return self.claim(&meta.id, assignee);
        }
        if meta.status.is_archived() {
            let reason = format!("it is {}; there is no claim to take over", meta.status);
            return Err(StoreError::ClaimRefused { id: meta.id.clone(), reason });
        }
        let patch = IssuePatch {
            status: Some(Status::InProgress),
            assignee: Some(Some(assignee.to_string())),
            expect: Some(Expect::UpdatedAt(meta.updated_at.clone())),
            ..IssuePatch::default()
        };
        self.update(&meta.id, patch)
    }

    /// After an update or an edit of the file, with the workspace lock released: releases the
    /// claim ref of an issue its holder no longer holds (closed, cancelled, handed back or
    /// reassigned). Through a remote the release is queued first and done under the remote's
    /// deadline ([`Store::settle_claims`]); one the remote did not take stays queued for the
    /// next call or doctor. A local release that fails is logged; doctor finds the ref.
    pub(crate) fn claim_ended(&self, before: &IssueMeta, after: Option<&IssueMeta>) {
        let holder = before.assignee.as_deref().map(str::trim).filter(|h| !h.is_empty());
        let Some(holder) = holder.filter(|_| before.status == Status::InProgress) else { return };
        let still = after.is_some_and(|a| a.status == Status::InProgress && a.assignee.as_deref() == Some(holder));
        if still {
            return;
        }
        let Ok(Some(refs)) = self.claim_refs() else { return };
        if refs.remote().is_some() {
            self.queue_release(&before.id, holder);
            self.settle_claims(refs.until());
        } else if let Err(e) = refs.release(&before.id, holder) {
            tracing::warn!(id = %before.id, error = ?e, "could not release the claim ref");
        }
    }

    /// What the claim refs say is held (`None`: no claim refs are used here).
    pub fn held_claims(&self) -> Result<Option<HeldClaims>, String> {
        let Some(refs) = self.claim_refs()? else { return Ok(None) };
        let listed = refs.held().map_err(|r| r.short())?;
        if listed.stale.is_none() && listed.age.is_zero() {
            // The remote just answered: finish what earlier calls left queued.
            self.settle_claims(refs.until());
        }
        let ids = listed.refs.into_iter().map(|(id, _)| id).collect();
        let stale = listed.stale.map(|r: Refusal| r.short());
        Ok(Some(HeldClaims { ids, age: listed.age, remote: refs.remote().map(str::to_string), stale }))
    }

    /// Every claim ref with its claim, for doctor: one list of the refs, one read of all their
    /// objects. A ref that holds no claim is an (id, why) of its own; the others are still read.
    pub fn claim_ref_list(&self) -> Result<Vec<ClaimRead>, String> {
        let Some(refs) = self.claim_refs()? else { return Ok(Vec::new()) };
        let listed = refs.held().map_err(|r| r.short())?;
        if let Some(why) = listed.stale {
            return Err(why.short());
        }
        refs.read_all(&listed.refs).map_err(|r| r.short())
    }
}
