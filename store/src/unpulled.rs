//! What a clone that has not pulled must not offer, judged by the claims remote's default branch
//! ([`crate::git::claims::Upstream`]): an issue closed there (its close not pulled here yet, and
//! its tombstone perhaps ended already) and an issue not there yet (created here since the last
//! push: its id may change in the merge that meets another clone's issue of that id). And the
//! one tombstone that must not stand: a close that began and never finished (the process died
//! between the tombstone and the file's write), which every clone can tell by its lease.

use std::path::Path;

use crate::Store;
use crate::git::claims::{Claim, Claims, OnBranch, Refusal, State, Taken, Upstream, skew};
use crate::model::IssueMeta;

impl Store {
    /// The claims remote's default branch, if claims go through a remote and it can be read: its
    /// head as the remote lists it (the claim refs' listing, reused for a moment, says it).
    pub(crate) fn upstream(&self, refs: &Claims) -> Option<Upstream> {
        refs.remote()?;
        let _ = refs.held();
        refs.upstream()
    }

    /// When this call created a claim record through the remote (none was there) for an issue
    /// closed on the remote's default branch as the remote has it now: the record taken back,
    /// and why. The claim's read saw no record and an open issue; a close pushed meanwhile, whose
    /// tombstone then ended (it ends once its close is on the branch), leaves no record for the
    /// push to find, so only a read of the branch after the push can tell (the soak's seed 467).
    pub(crate) fn closed_since_claim(&self, refs: &Claims, meta: &IssueMeta, taken: &Taken) -> Option<String> {
        let claim = taken.created()?;
        refs.remote()?;
        let up = refs.upstream_now().or_else(|| refs.upstream())?;
        if self.on_branch(&up, meta) != OnBranch::Closed {
            return None;
        }
        let _ = refs.drop_claim(claim);
        Some(crate::claiming::closed_not_pulled(&up.branch))
    }

    /// Where `meta`'s file stands on `upstream`.
    pub(crate) fn on_branch(&self, upstream: &Upstream, meta: &IssueMeta) -> OnBranch {
        self.on_branch_at(upstream, &meta.path)
    }

    /// Where the issue file at `path` stands on `upstream` (ready says not to offer one that is
    /// closed there or not there yet).
    pub(crate) fn on_branch_at(&self, upstream: &Upstream, path: &Path) -> OnBranch {
        match path.strip_prefix(&self.ws.dir) {
            Ok(in_ws) => upstream.state(in_ws),
            Err(_) => OnBranch::Pushed,
        }
    }

    /// Whether tombstone `c` is a close that began and never finished, so its issue is offered
    /// again like a lapsed claim. Its lease (the time by which the file was to be written) has
    /// lapsed, which every clone can see; a tombstone without one (a close before closes had
    /// leases) counts only where it was taken, a lease and its skew after it. Either way the
    /// issue it names (the same `docketKey`) is still not closed in the files here: where the file
    /// says closed, the close did finish and only its record is behind.
    pub(crate) fn interrupted_close(&self, refs: &Claims, c: &Claim) -> bool {
        let ttl = self.claim_ttl;
        let dead = match c.lease.is_empty() {
            false => c.close_lapsed(ttl),
            true => c.state == State::Closed && refs.taken_here(c) && c.older_than(ttl + skew(ttl)),
        };
        if !dead {
            return false;
        }
        let Ok(meta) = self.get_meta(&c.id) else { return false };
        let meta = meta.value;
        // Closed here (the usual case where it was taken): no file to read.
        if meta.status.is_archived() {
            return false;
        }
        match &c.key {
            Some(key) => crate::claiming::key_of(&meta.path).is_some_and(|k| &k == key),
            None => true,
        }
    }

    /// Renews the tombstone of `id` if it is still this session's own (a close that was paused
    /// between its tombstone and its file): the renewed tombstone, if it was.
    pub(crate) fn renew_own_tombstone(&self, id: &str) -> Option<Claim> {
        let Ok(Some(refs)) = self.claim_refs() else { return None };
        let session = crate::holder::current_id();
        match refs.read(id) {
            Ok(Some(c)) if c.state == State::Closed && !session.is_empty() && c.session == session => {
                let renewed = Claim {
                    taken_at: crate::git::claims::now(),
                    lease: crate::git::claims::lease_end(self.claim_ttl),
                    ..c.clone()
                };
                refs.replace(&c, &renewed).ok().flatten()
            }
            _ => None,
        }
    }

    /// Once the file of this session's close is written, clears its tombstone's lease
    /// ([`Claims::finish_close`], compare-and-set): the close counts from then on. `Err(now)`:
    /// the record is someone else's since (the close was paused past its lease, another clone
    /// judged it dead and took the issue), so the close must not stand. A remote that does not
    /// answer gets the clear later (queued); no record at all gets a tombstone as any close does.
    /// `tomb` is the tombstone as this session last wrote it: cleared at once when it is still
    /// the record (one write, no read), read again when it moved.
    pub(crate) fn finish_own_close(
        &self,
        before: &IssueMeta,
        after: &IssueMeta,
        tomb: &Claim,
    ) -> Result<(), Box<Claim>> {
        let Ok(Some(refs)) = self.claim_refs() else { return Ok(()) };
        let session = crate::holder::current_id();
        let queue = |r: Refusal| {
            let holder = before.assignee.as_deref().unwrap_or("someone");
            self.queue_close(&before.id, holder, r.short());
        };
        if !tomb.lease.is_empty() {
            match refs.finish_close(tomb) {
                Ok(true) => return Ok(()),
                // The remote did not answer: one deadline is all a close waits.
                Err(r @ (Refusal::Silent { .. } | Refusal::Unreachable { .. })) => {
                    queue(r);
                    return Ok(());
                }
                _ => {}
            }
        }
        for _ in 0..5 {
            let finished = match refs.read(&before.id) {
                Ok(Some(c)) if c.state == State::Closed && !session.is_empty() && c.session == session => {
                    refs.finish_close(&c)
                }
                Ok(Some(now)) => return Err(Box::new(now)),
                Ok(None) => {
                    self.claim_ended(before, Some(after));
                    return Ok(());
                }
                Err(e) => Err(e),
            };
            match finished {
                Ok(true) => return Ok(()),
                Ok(false) => continue,
                Err(r @ (Refusal::Silent { .. } | Refusal::Unreachable { .. })) => {
                    queue(r);
                    return Ok(());
                }
                Err(e) => {
                    tracing::warn!(id = %before.id, error = ?e, "could not mark a close's tombstone finished");
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Whether the file at `path` is on the claims remote's default branch with exactly the text
    /// `written`, as this clone last fetched or pushed it: a close this clone has pushed already,
    /// which other clones may have pulled, so taking it back would be a reopen, not an undo.
    pub(crate) fn pushed_as_written(&self, path: &Path, written: &str) -> bool {
        let Ok(Some(refs)) = self.claim_refs() else { return false };
        let Some(remote) = refs.remote() else { return false };
        let Some(repo) = crate::git::Repo::discover(&self.ws.dir) else { return false };
        let Some(branch) = crate::tombstones::default_branch(&repo.toplevel, remote) else { return false };
        let specs: Vec<String> =
            crate::git::paths_on_branch(&repo.toplevel, path).into_iter().map(|p| format!("{branch}:{p}")).collect();
        crate::git::show_batch(&repo.toplevel, specs.iter().map(String::as_str))
            .into_iter()
            .any(|t| t.as_deref() == Some(written))
    }
}
