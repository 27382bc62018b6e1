//! What a clone that has not pulled must not offer, judged by the claims remote's default branch
//! ([`crate::git::claims::Upstream`]): an issue closed there (its close not pulled here yet, and
//! its tombstone perhaps ended already) and an issue not there yet (created here since the last
//! push: its id may change in the merge that meets another clone's issue of that id). And the
//! one tombstone that must not stand: a close that began and never finished (the process died
//! between the tombstone and the file's write), which every clone can tell by its lease.

use std::path::Path;

use crate::Store;
use crate::git::claims::{Claim, Claims, OnBranch, State, Upstream, skew};
use crate::model::IssueMeta;

impl Store {
    /// The claims remote's default branch, if claims go through a remote and it can be read: its
    /// head as the remote lists it (the claim refs' listing, reused for a moment, says it).
    pub(crate) fn upstream(&self, refs: &Claims) -> Option<Upstream> {
        refs.remote()?;
        let _ = refs.held();
        refs.upstream()
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
            Some(key) => crate::files::read_text(&meta.path)
                .ok()
                .and_then(|t| crate::git::merge::identity_key(&t))
                .is_some_and(|k| &k == key),
            None => true,
        }
    }

    /// Renews the tombstone of `id` if it is still this session's own (a close that was paused
    /// between its tombstone and its file): whether it was.
    pub(crate) fn renew_own_tombstone(&self, id: &str) -> bool {
        let Ok(Some(refs)) = self.claim_refs() else { return false };
        let session = crate::holder::current_id();
        match refs.read(id) {
            Ok(Some(c)) if c.state == State::Closed && !session.is_empty() && c.session == session => {
                let renewed = Claim {
                    taken_at: crate::git::claims::now(),
                    lease: crate::git::claims::lease_end(self.claim_ttl),
                    ..c.clone()
                };
                matches!(refs.replace(&c, &renewed), Ok(Some(_)))
            }
            _ => false,
        }
    }
}
