//! One claim model for every path (see [`crate::git::claims`]). Every claim is a record beside
//! the issue files: inside git a ref in the common git directory (shared by every worktree), or
//! on the claims remote (shared by every clone); outside git a file in the workspace's cache
//! (`cache/claims/ID`, shared by every process serving it). The record names the holder, the holder's
//! session, when it was taken, when its lease ends, and its state (held, or closed: a
//! tombstone). Every path that changes who holds an issue goes through it by compare-and-set:
//! a claim, a hand-over (another assignee set on a claimed issue), a wrangler-style update to
//! in_progress with an assignee, a release, a close or cancel. The issue's file keeps wrangler's
//! status and assignee.
//!
//! Leases: a claim lapses [`claim_ttl`](Store::claim_ttl) after it was last renewed (plus the
//! clock skew tolerated, [`crate::git::claims::skew`]). A serving process renews its live
//! sessions' claims ([`Store::renew_sessions`]); a claim by its holder and a write by its holder
//! renew too. A lapsed claim is free: ready offers it again, and a claim takes it without a reason.
//! Fencing: a session whose claim was taken by someone else since cannot write to that issue.

mod ready;
mod renumbered;

pub use ready::ReadyClaims;

use std::sync::Arc;
use std::time::Duration;

use crate::Store;
use crate::git::Repo;
use crate::git::claims::{Claim, ClaimRead, Claims, Closing, Refusal, State, Taken, lease_end};
use crate::holder::{self, Session};
use crate::model::{Expect, IssueFilter, IssueMeta, IssuePatch, Status, StoreError, Updated};
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

/// What the claim records say of a write, before it is made ([`Store::claim_gate`]).
#[derive(Debug)]
pub(crate) enum Gate {
    /// Nothing to check after the write.
    Free,
    /// A holder's close: its tombstone (`tomb`) was pushed in place of its claim (`held`).
    Close { held: Box<Claim>, tomb: Box<Claim> },
    /// A holder's other write, with its claim as the gate renewed it.
    Hold(Box<Claim>),
    /// A wrangler-style claim (in_progress with an assignee) the gate has just taken or renewed:
    /// the write must be to the issue it judged, and a write that fails gives the claim back.
    Claimed(Box<Taken>),
}

/// What a release did.
#[derive(Debug, Clone)]
pub struct Released {
    /// The issue as written (open, no assignee).
    pub updated: Updated,
    /// The claim it ended, if there was a record.
    pub claim: Option<Claim>,
}

impl Store {
    /// The claim records of this workspace: inside git, on the claims remote when one is named,
    /// else in the common git directory; outside git, files in the workspace's cache.
    pub fn claim_refs(&self) -> Result<Option<&Claims>, String> {
        let made = self.claims.get_or_init(|| match (Repo::discover(&self.ws.dir), &self.claims_remote) {
            (Some(repo), remote) => Claims::new(&repo.toplevel, remote.as_deref()).map(|c| {
                let seen = self.ws.cache_dir().join("claims-remote-list");
                Some(
                    c.with_ttl(self.claim_ttl)
                        .with_timeout(self.remote_timeout)
                        .with_seen_file(seen)
                        .with_workspace_at(&repo.ws_rel),
                )
            }),
            (None, Some(remote)) => Err(format!(
                "claims_remote names `{remote}`, but the workspace {} is not in a git repository; unset DOCKET_CLAIMS_REMOTE (or claims_remote in config/docket.yaml) or serve the workspace of a clone",
                self.ws.dir.display()
            )),
            (None, None) => Ok(Some(Claims::in_files(&self.ws.dir).with_ttl(self.claim_ttl))),
        });
        made.as_ref().map(Option::as_ref).map_err(Clone::clone)
    }

    /// Whether the files alone could not arbitrate claims here (a claims remote, or worktrees
    /// with their own files), so every in-progress issue needs its claim record (doctor's check).
    pub fn claims_need_refs(&self) -> bool {
        self.claims_remote.is_some() || self.ws.worktrees == Worktrees::Local
    }

    /// How long a claim's lease lasts.
    pub fn claim_ttl(&self) -> Duration {
        self.claim_ttl
    }

    /// A new session of this process (an MCP connection), whose claims
    /// [`Store::renew_sessions`] renews while it lives.
    pub fn open_session(&self) -> Arc<Session> {
        let session = Session::new();
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        sessions.retain(|s| s.strong_count() > 0);
        sessions.push(Arc::downgrade(&session));
        session
    }

    /// Renews (and fences with) the sessions `other` serves too: a process that switched to a
    /// workspace that appeared ([`crate::served::Served`]) keeps its MCP sessions.
    pub fn adopt_sessions(&self, other: &Store) {
        let theirs: Vec<_> = other.sessions.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        sessions.extend(theirs);
        sessions.retain(|s| s.strong_count() > 0);
    }

    /// Renews the lease of every claim the live sessions hold, all in one round: one listing
    /// and one git call that writes (through a remote one push with a lease per ref, else one
    /// `update-ref --stdin` transaction; see [`Claims::renew_all`]). A claim someone else has
    /// taken since is left alone, and stays the session's, so its next write to it is refused
    /// (fencing). How many were renewed.
    pub fn renew_sessions(&self) -> usize {
        let live: Vec<Arc<Session>> = {
            let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
            sessions.retain(|s| s.strong_count() > 0);
            sessions.iter().filter_map(std::sync::Weak::upgrade).collect()
        };
        let Ok(Some(refs)) = self.claim_refs() else { return 0 };
        let wanted: Vec<(String, String)> =
            live.iter().flat_map(|s| s.claims().into_iter().map(|id| (id, s.id().to_string()))).collect();
        if wanted.is_empty() {
            return 0;
        }
        match refs.renew_all(&wanted) {
            Ok(done) => {
                for (id, e) in &done.failed {
                    tracing::warn!(id = %id, error = ?e, "could not renew a claim's lease");
                }
                for s in &live {
                    self.follow_renumbered_claims(refs, s, &done.renewed);
                }
                done.renewed.len()
            }
            Err(e) => {
                tracing::warn!(error = ?e, claims = wanted.len(), "could not renew the claims' leases this round");
                0
            }
        }
    }

    /// Starts a thread that renews the live sessions' leases a few times per lease, for as long
    /// as the store lives.
    pub fn start_renewals(self: &Arc<Self>) {
        let weak = Arc::downgrade(self);
        let every = (self.claim_ttl / 3).max(Duration::from_millis(200));
        let spawned = std::thread::Builder::new().name("docket-claim-renewals".into()).spawn(move || {
            loop {
                std::thread::sleep(every);
                let Some(store) = weak.upgrade() else { return };
                store.renew_sessions();
                store.end_tombstones_periodically();
            }
        });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "cannot start the thread that renews claims; leases lapse unless renewed by calls");
        }
    }

    /// The claim record of `id`, if claims are recorded here and it has one.
    pub fn claim_of(&self, id: &str) -> Option<Claim> {
        self.claim_refs().ok().flatten()?.read(id).ok().flatten()
    }

    /// The claim record of `id` as an answer may still give it: `Ok(None)` where claims have no
    /// record here, the record while it is `assignee`'s in the calling session, and a refusal
    /// once it is not (another session took it while this call was paused past its lease, so
    /// "Claimed" would be an answer from the past). Read last, just before answering.
    pub fn claim_still_ours(&self, id: &str, assignee: &str) -> Result<Option<Claim>, StoreError> {
        let Some(refs) = self.claim_refs().ok().flatten() else { return Ok(None) };
        still_held(refs, id, assignee.trim(), &holder::current_id())
            .map(Some)
            .map_err(|reason| claim_refused(id, reason))
    }

    /// Claims `id` for `assignee` in the calling session ([`holder::current`]), through the claim
    /// record first when there is one. A lapsed claim is taken without `takeover`; `takeover` (a
    /// reason) replaces another holder's live claim on purpose. Nothing is written when refused.
    pub fn claim_with(&self, id: &str, assignee: &str, takeover: Option<&str>) -> Result<Updated, StoreError> {
        let refuse = |id: &str, reason: String| StoreError::ClaimRefused { id: id.to_string(), reason };
        let assignee = assignee.trim();
        if assignee.is_empty() {
            return Err(refuse(id, "no one is named to hold it (the assignee is blank); claim it with a name".into()));
        }
        let refs = self.claim_refs().map_err(|why| refuse(id, why))?;
        let takeover = takeover.map(str::trim);
        if takeover == Some("") {
            return Err(refuse(id, "a takeover needs a reason (say why the holder is gone)".into()));
        }
        let meta = self.get_meta(id)?.value;
        let Some(refs) = refs else {
            if takeover.is_none() {
                let (mut index, _) = self.fresh()?;
                crate::work::check_expect(&mut index, &meta, &Expect::Claim(assignee.to_string()))?;
            }
            return self.claim_file(&meta, assignee, takeover, None, key_of(&meta.path));
        };
        if meta.status.is_archived() {
            return Err(refuse(&meta.id, format!("it is {}, not open", meta.status)));
        }
        if let Some(up) = self.upstream(refs)
            && self.on_branch(&up, &meta) == crate::git::claims::OnBranch::Closed
        {
            return Err(refuse(&meta.id, closed_not_pulled(&up.branch)));
        }
        // The file says what blocks it; the record says who holds it.
        let file_holder =
            meta.assignee.as_deref().map(str::trim).filter(|a| !a.is_empty() && *a != assignee).map(str::to_string);
        if takeover.is_none() {
            let mut probe = meta.clone();
            if probe.status == Status::InProgress {
                (probe.status, probe.assignee) = (Status::Open, None);
            }
            let (mut index, _) = self.fresh()?;
            crate::work::check_expect(&mut index, &probe, &Expect::Claim(assignee.to_string()))?;
        }
        let session = holder::current();
        let sid = session.as_ref().map(|s| s.id().to_string()).unwrap_or_default();
        let key = key_of(&meta.path);
        if meta.status == Status::InProgress {
            self.fetch_renumbered_record(refs, &meta);
        }
        let take = || refs.take_keyed(&meta.id, assignee, &sid, takeover, key.as_deref());
        let taken = match take() {
            Err(Refusal::Held(c)) if self.interrupted_close(refs, &c) => {
                refs.take_after_unfinished_close(&c, assignee, &sid)
            }
            // The record at this id is another issue's (one id in two clones before a merge):
            // moved to where that issue is now, then this one is claimed.
            Err(Refusal::Held(c)) if c.state == State::Held && c.about_another(key.as_deref()) => {
                match self.follow_renumbered(refs, &c) {
                    Some(_) => take(),
                    None => return Err(refuse(&meta.id, another_issues_record(&c, self.claim_ttl))),
                }
            }
            other => other,
        };
        let taken = taken.map_err(|r| refuse(&meta.id, r.reason()))?;
        let (claim, new) = taken.claim();
        let claim = claim.clone();
        let created = taken.created().is_some();
        if let Some(why) = self.closed_since_claim(refs, &meta, &taken) {
            return Err(refuse(&meta.id, why));
        }
        // Paused (a stopped process, a sleeping laptop) past the lease it has just taken: the
        // file is written only if the claim is still this session's.
        let lost_to_a_pause = || -> Option<String> {
            claim.lapsed(self.claim_ttl)?;
            still_held(refs, &meta.id, assignee, &sid).err()
        };
        if new && let Some(why) = lost_to_a_pause() {
            return Err(refuse(&meta.id, format!("{why} (nothing was written)")));
        }
        // A claim of an issue the file says someone else is working on, with no record of it (a
        // claim made before records): refused as before, needing a takeover.
        if let (true, true, Some(h)) = (created, meta.status == Status::InProgress, &file_holder) {
            let _ = refs.drop_claim(&claim);
            let reason = format!(
                "it is in_progress, held by {h} (last written {}, {}); if that agent is gone, take it over with issues_claim with takeoverReason: \"why\"",
                meta.updated_at,
                crate::git::claims::age(&meta.updated_at)
            );
            return Err(refuse(&meta.id, reason));
        }
        let how = match (&claim.lapsed_from, &claim.takeover) {
            (Some(l), _) if new => Some(format!("{assignee} took it over: the lease of {l} had lapsed")),
            (_, Some(t)) if new => Some(format!("{assignee} took it over {t}")),
            _ => None,
        };
        let file_held = meta.status == Status::InProgress && file_holder.is_some();
        let written = match (how.is_some() || file_held, takeover) {
            (true, t) => {
                let why = Some(t.unwrap_or("its claim record is theirs"));
                self.claim_file(&meta, assignee, why, how, key.clone())
            }
            (false, _) => self.claim_file(&meta, assignee, None, None, key.clone()),
        };
        match written {
            Ok(updated) => {
                if let Some(s) = &session {
                    s.took(&meta.id);
                }
                // The remote answered: finish what earlier calls left queued.
                self.settle_claims(refs.until());
                // Paused after the write, past the lease: another session may have taken the
                // issue (and closed it) since, and "Claimed" would be an answer from the past.
                if new && let Some(why) = lost_to_a_pause() {
                    return Err(refuse(&meta.id, why));
                }
                Ok(updated)
            }
            Err(e) => {
                tracing::warn!(id = %meta.id, error = %e, "a claim whose file write failed is taken back");
                self.take_back(refs, &taken);
                Err(e)
            }
        }
    }

    /// Takes back what this call `taken`, once its file write failed: a renewal of the holder's
    /// own stays. A claim that replaced a record (a lapsed lease, a close that did not finish, a
    /// takeover) is given up rather than deleted: with no record, the file's in_progress would
    /// read as a claim made before records, which only a takeover frees, and the issue would be
    /// stranded.
    pub(crate) fn take_back(&self, refs: &Claims, taken: &Taken) {
        let (claim, new) = taken.claim();
        let back = match (new, taken.created()) {
            (true, None) => refs.give_up(claim),
            (true, Some(_)) => refs.drop_claim(claim),
            (false, _) => Ok(true),
        };
        if new && let Some(s) = holder::current() {
            s.dropped(&claim.id);
        }
        if let Err(e) = back {
            tracing::warn!(id = %claim.id, error = ?e, "could not take back a claim record whose file write failed");
        }
    }

    /// Claims the first issue [`Store::ready_claimable`] lists for `filter` (in order; a claim
    /// someone else won meanwhile moves on). `None`: nothing is ready to claim.
    ///
    /// After a lost race, the others calling at the same moment are after the same next issue:
    /// each session goes on from its own place in the list (by its id), so N agents spread over
    /// the next issues instead of all losing again on each one in turn.
    pub fn claim_next(&self, filter: &IssueFilter, assignee: &str) -> Result<Option<Updated>, StoreError> {
        let mut tried: Vec<String> = Vec::new();
        let spread = holder::current_id().bytes().fold(0usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize));
        for _round in 0..3 {
            let (snap, _) = self.ready_claimable(filter, Some(assignee), 0, 50)?;
            let mut candidates: Vec<String> =
                snap.value.issues.iter().map(|(m, _)| m.id.clone()).filter(|id| !tried.contains(id)).collect();
            if candidates.is_empty() {
                return Ok(None);
            }
            if !tried.is_empty() {
                let n = candidates.len();
                candidates.rotate_left(spread % n);
            }
            let mut k = 0;
            while k < candidates.len() {
                match self.claim_with(&candidates[k], assignee, None) {
                    Ok(updated) => return Ok(Some(updated)),
                    Err(StoreError::ClaimRefused { .. } | StoreError::Stale { .. } | StoreError::NotFound { .. }) => {
                        tried.push(candidates[k].clone());
                        k += 1;
                        // The first race lost: go on from this session's own place in the rest.
                        if tried.len() == 1 && k < candidates.len() {
                            let rest = &mut candidates[k..];
                            let n = rest.len();
                            rest.rotate_left(spread % n);
                        }
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(None)
    }

    /// Ends `assignee`'s claim of `id` (the calling session's, or any session of that name from
    /// the CLI): the issue back to open, its assignee cleared, its record gone. Someone else's
    /// claim needs `takeover` (a reason).
    pub fn release(&self, id: &str, assignee: &str, takeover: Option<&str>) -> Result<Released, StoreError> {
        let refuse = |id: &str, reason: String| StoreError::ClaimRefused { id: id.to_string(), reason };
        let meta = self.get_meta(id)?.value;
        let assignee = assignee.trim();
        let takeover = takeover.map(str::trim).filter(|t| !t.is_empty());
        if meta.status.is_archived() {
            return Err(refuse(&meta.id, format!("it is {}: there is no claim to release", meta.status)));
        }
        let sid = holder::current_id();
        let refs = self.claim_refs().map_err(|why| refuse(&meta.id, why))?;
        let record = match refs {
            Some(r) => r.read(&meta.id).map_err(|e| refuse(&meta.id, e.reason()))?,
            None => None,
        };
        let record = record.filter(|c| c.state == State::Held);
        let file_holder = meta.assignee.as_deref().map(str::trim).filter(|a| !a.is_empty());
        let theirs = match &record {
            Some(c) => !c.is_held_by(assignee, &sid) && c.lapsed(self.claim_ttl).is_none(),
            None => file_holder.is_some_and(|h| h != assignee),
        };
        if theirs && takeover.is_none() {
            let who = record.as_ref().map_or_else(
                || format!("assigned to {} in its file", file_holder.unwrap_or("someone")),
                |c| c.describe(),
            );
            return Err(refuse(
                &meta.id,
                format!(
                    "it is {who}, not {assignee}'s to release; release it for them with issues_claim with release: true and takeoverReason: \"why\""
                ),
            ));
        }
        if let (Some(refs), Some(c)) = (refs, &record)
            && !refs.drop_claim(c).map_err(|e| refuse(&meta.id, e.reason()))?
        {
            return Err(refuse(&meta.id, "its claim changed meanwhile; read it again (issues_get) and retry".into()));
        }
        if let Some(s) = holder::current() {
            s.dropped(&meta.id);
        }
        let patch = IssuePatch {
            status: (meta.status == Status::InProgress).then_some(Status::Open),
            assignee: Some(None),
            ..IssuePatch::default()
        };
        let updated = self.update(&meta.id, patch)?;
        Ok(Released { updated, claim: record })
    }

    /// The file half of a claim: [`Store::claim`], or for a takeover a compare-and-set write of
    /// status and assignee on the issue as it was read, with `note` (how it changed hands)
    /// appended to its description.
    fn claim_file(
        &self,
        meta: &IssueMeta,
        assignee: &str,
        takeover: Option<&str>,
        note: Option<String>,
        identity: Option<String>,
    ) -> Result<Updated, StoreError> {
        if takeover.is_none() {
            return self.claim_keyed(&meta.id, assignee, identity);
        }
        if meta.status.is_archived() {
            let reason = format!("it is {}; there is no claim to take over", meta.status);
            return Err(StoreError::ClaimRefused { id: meta.id.clone(), reason });
        }
        let append_body = note.map(|n| format!("\n\n---\n**Claim hand-over ({}):** {n}.\n", crate::git::claims::now()));
        let patch = IssuePatch {
            status: Some(Status::InProgress),
            assignee: Some(Some(assignee.to_string())),
            expect: Some(Expect::UpdatedAt(meta.updated_at.clone())),
            append_body,
            identity,
            ..IssuePatch::default()
        };
        self.update(&meta.id, patch)
    }

    /// Before an update of `id`: refuses the write of a session whose claim on it someone else
    /// has taken since (fencing), renews the lease of the holder's own write, and makes a
    /// wrangler-style `status: in_progress` with an assignee a claim (refused like one). Call
    /// without the workspace lock.
    ///
    /// A close or cancel by the holder puts its tombstone first, compare-and-set on the holder's
    /// own record, so a holder paused between this check and its file write cannot close work
    /// someone took meanwhile: its tombstone is refused, and nothing is written. The claim the
    /// tombstone replaced is returned, for [`Store::restore_claim`] when the write then fails.
    pub(crate) fn claim_gate(&self, id: &str, patch: &IssuePatch) -> Result<Gate, StoreError> {
        let Ok(Some(refs)) = self.claim_refs() else { return Ok(Gate::Free) };
        let session = holder::current();
        // A claim (in_progress with an assignee); a wrangler-style one when no claim call wrote it.
        let a_claim = matches!(&patch.assignee, Some(Some(a)) if !a.trim().is_empty())
            && patch.status == Some(Status::InProgress);
        let claims = a_claim && patch.expect.is_none();
        let mine = session.as_ref().is_some_and(|s| s.claimed(id));
        if !a_claim
            && !mine
            && let Some(to) = session.as_ref().and_then(|s| s.renumbered_to(id))
        {
            return Err(Self::renumbered_refusal(id, &to));
        }
        if !claims && !mine {
            return Ok(Gate::Free);
        }
        let meta = self.get_meta(id)?.value;
        if claims && !mine {
            let Some(Some(who)) = &patch.assignee else { return Ok(Gate::Free) };
            // A claim: the record arbitrates; the file write is the update itself.
            let sid = session.as_ref().map(|s| s.id().to_string()).unwrap_or_default();
            let current = refs.read(&meta.id).map_err(|r| claim_refused(&meta.id, r.reason()))?;
            let free = current.as_ref().is_none_or(|c| {
                c.state == State::Held && (c.is_held_by(who, &sid) || c.lapsed(self.claim_ttl).is_some())
            });
            let file_other = meta.status == Status::InProgress
                && meta.assignee.as_deref().map(str::trim).is_some_and(|a| !a.is_empty() && a != who.trim());
            if current.is_none() && file_other {
                let h = meta.assignee.clone().unwrap_or_default();
                return Err(claim_refused(
                    &meta.id,
                    format!(
                        "it is in_progress, held by {h}; if that agent is gone, take it over with issues_claim with takeoverReason: \"why\""
                    ),
                ));
            }
            if !free && let Some(c) = &current {
                return Err(claim_refused(&meta.id, Refusal::Held(c.clone()).reason()));
            }
            let taken = refs
                .take_keyed(&meta.id, who, &sid, None, key_of(&meta.path).as_deref())
                .map_err(|r| claim_refused(&meta.id, r.reason()))?;
            if let Some(why) = self.closed_since_claim(refs, &meta, &taken) {
                return Err(claim_refused(&meta.id, why));
            }
            if let Some(s) = &session {
                s.took(&meta.id);
            }
            return Ok(Gate::Claimed(Box::new(taken)));
        }
        // This session claimed it: is it still its own?
        let Some(session) = session else { return Ok(Gate::Free) };
        let closes = patch.status.is_some_and(|s| s.is_archived()) && !meta.status.is_archived();
        let mut tries = 0;
        loop {
            let current = refs.read(&meta.id);
            // The issue this session claimed under this id has another id now (a merge
            // renumbered it): its claim moves with it, and this write to the other issue is refused.
            if let Ok(Some(c)) = &current
                && c.state == State::Held
                && c.session == session.id()
                && let Some(refused) = self.own_claim_renumbered(refs, c, &session)
            {
                return Err(refused);
            }
            if let Ok(Some(c)) = &current
                && closes
                && c.state == State::Held
                && c.session == session.id()
            {
                match refs.close_keyed(
                    &meta.id,
                    Some(c),
                    (&c.holder, session.id()),
                    key_of(&meta.path),
                    Closing::Pending,
                ) {
                    Ok(Some(tomb)) => return Ok(Gate::Close { held: Box::new(c.clone()), tomb: Box::new(tomb) }),
                    // The record moved since it was read (this process's renewal, or a takeover):
                    // read it again; a takeover is refused below.
                    Ok(None) if tries < 5 => {
                        tries += 1;
                        continue;
                    }
                    // A remote that does not answer: the close goes on and its tombstone is
                    // queued after the write, as before (the fence is the last record known).
                    Ok(None) | Err(_) => return Ok(Gate::Free),
                }
            }
            return self
                .fence(&meta, &session, current)
                .map(|held| held.map_or(Gate::Free, |c| Gate::Hold(Box::new(c))));
        }
    }

    /// Refuses the write of a session whose claim someone else holds now, and renews the lease
    /// of the holder's own write: the holder's claim as renewed (as read, if the renewal failed).
    fn fence(
        &self,
        meta: &IssueMeta,
        session: &Session,
        current: Result<Option<Claim>, Refusal>,
    ) -> Result<Option<Claim>, StoreError> {
        let Ok(Some(refs)) = self.claim_refs() else { return Ok(None) };
        match current {
            Ok(Some(c)) if c.state == State::Held && c.session != session.id() => {
                let since = format!("{} ({})", c.taken_at, crate::git::claims::age(&c.taken_at));
                let how =
                    c.lapsed_from.as_deref().map(|l| format!(" after the lease of {l} lapsed")).unwrap_or_default();
                Err(StoreError::ClaimLost {
                    id: meta.id.clone(),
                    reason: format!(
                        "{} is now held by {}{} since {since}{how}, so this session's claim is over and nothing was written; issues_ready lists work to claim",
                        meta.id,
                        c.holder,
                        if c.session.is_empty() { "" } else { " (another session)" },
                    ),
                })
            }
            // Closed by someone else since this session claimed it (taken over, then closed):
            // this session's write would close or reopen work that is not its own.
            Ok(Some(c)) if c.state == State::Closed && c.session != session.id() => Err(StoreError::ClaimLost {
                id: meta.id.clone(),
                reason: format!(
                    "{} was closed by {} at {} since this session claimed it, so this session's claim is over and nothing was written; issues_ready lists work to claim",
                    meta.id, c.holder, c.taken_at
                ),
            }),
            // No record at all: this session's claim ended since it was taken (released by
            // someone else, or closed by someone else and that tombstone ended once the close
            // was pushed), and this checkout may not have pulled what happened to the issue.
            Ok(None) => Err(StoreError::ClaimLost {
                id: meta.id.clone(),
                reason: format!(
                    "{} has no claim record any more: this session's claim of it ended since (released, or closed by someone else, who pushed it); `git pull` shows what became of it, and issues_ready lists work to claim",
                    meta.id
                ),
            }),
            Ok(Some(c)) if c.state == State::Held => {
                // The holder's own write renews its lease.
                match refs.replace(&c, &Claim { lease: lease_end(self.claim_ttl), ..c.clone() }) {
                    Ok(Some(renewed)) => Ok(Some(renewed)),
                    Ok(None) => Ok(Some(c)),
                    Err(e) => {
                        tracing::warn!(id = %meta.id, error = ?e, "could not renew a claim on a write");
                        Ok(Some(c))
                    }
                }
            }
            _ => Ok(None),
        }
    }

    /// After a holder's write (not a close) that finished past the lease its gate saw: the
    /// record as it is now when it is no longer `held`'s session's (another session took the
    /// issue while the write was paused), so the write is to be undone. Within the lease no one
    /// could take it without a reason, and nothing is read.
    pub(crate) fn lost_during_write(&self, held: &Claim) -> Option<Claim> {
        held.lease_passed()?;
        let refs = self.claim_refs().ok().flatten()?;
        // Gone (released or swept), or unreadable: nothing to name, and the write stands.
        let now = refs.read(&held.id).ok().flatten()?;
        (now.state != State::Held || now.session != held.session).then_some(now)
    }

    /// Puts back the claim a close's early tombstone replaced ([`Store::claim_gate`]) when the
    /// close was not written after all (a conflict, a refused value): the holder still holds it.
    pub(crate) fn restore_claim(&self, claim: &Claim) {
        let Ok(Some(refs)) = self.claim_refs() else { return };
        let put_back = refs.read(&claim.id).and_then(|current| match current {
            Some(t) if t.state == State::Closed && t.session == claim.session => {
                refs.replace(&t, &Claim { lease: lease_end(self.claim_ttl), ..claim.clone() }).map(|c| c.is_some())
            }
            _ => Ok(false),
        });
        if let Err(e) = put_back {
            tracing::warn!(id = %claim.id, error = ?e, "could not put back a claim whose close was not written");
        }
    }

    /// After an update or an edit of the file, what its change means for the claim record: a
    /// close or cancel leaves a tombstone ("closed by ann at T"), a reopen removes it, a
    /// hand-back to open (or an assignee cleared) releases the claim, another assignee on a
    /// claimed issue is a hand-over (the record names the new holder, never dropped). A record
    /// write that fails is logged; doctor finds the mismatch.
    pub(crate) fn claim_ended(&self, before: &IssueMeta, after: Option<&IssueMeta>) {
        let Ok(Some(refs)) = self.claim_refs() else { return };
        let name = |m: &IssueMeta| m.assignee.as_deref().map(str::trim).filter(|h| !h.is_empty()).map(str::to_string);
        let (was, now) = (name(before), after.and_then(name));
        let done = match after {
            None => refs.read(&before.id).and_then(|c| c.map_or(Ok(true), |c| refs.drop_claim(&c))),
            Some(a) if a.status.is_archived() && !before.status.is_archived() => {
                // The close is written: its tombstone must follow. A renewal of the claim (the
                // serving process renews on its own thread) can land between the read and the
                // compare-and-set; then read it again and retry, or the record stays "held", the
                // lease lapses, and a clone that has not pulled is offered the finished work.
                let mut tried = Ok(false);
                for _ in 0..5 {
                    tried = refs.read(&before.id).and_then(|current| {
                        // The holder's close put its tombstone before the write, with the time
                        // by which the file had to be written: it is, so that time goes.
                        if let Some(tomb) = current.as_ref().filter(|c| c.state == State::Closed) {
                            return refs.finish_close(tomb);
                        }
                        let by = current
                            .as_ref()
                            .filter(|c| c.state == State::Held)
                            .map(|c| c.holder.clone())
                            .or(was.clone())
                            .unwrap_or_else(|| "someone".into());
                        refs.close_keyed(&before.id, current.as_ref(), (&by, ""), key_of(&a.path), Closing::Done)
                            .map(|t| t.is_some())
                    });
                    if !matches!(tried, Ok(false)) {
                        break;
                    }
                }
                match tried {
                    // A remote that did not take the tombstone gets it later: queued.
                    Err(r @ (Refusal::Silent { .. } | Refusal::Unreachable { .. })) => {
                        self.queue_close(&before.id, was.as_deref().unwrap_or("someone"), r.short());
                        Ok(true)
                    }
                    other => other,
                }
            }
            Some(a) if before.status.is_archived() && !a.status.is_archived() => refs
                .read(&before.id)
                .and_then(|c| c.filter(|c| c.state == State::Closed).map_or(Ok(true), |c| refs.drop_claim(&c))),
            Some(a) if a.status.is_archived() => Ok(true),
            Some(a) => {
                let held_before = before.status == Status::InProgress && was.is_some();
                let released = held_before && (a.status != Status::InProgress || now.is_none());
                let handed = a.status == Status::InProgress && now.is_some() && now != was;
                match (released, handed) {
                    // Through a remote the release is queued first and done under the remote's
                    // deadline; one the remote did not take stays queued for the next call or doctor.
                    (true, _) if refs.remote().is_some() => {
                        self.queue_release(&before.id, was.as_deref().unwrap_or_default());
                        self.settle_claims(refs.until());
                        Ok(true)
                    }
                    (true, _) => refs.release(&before.id, was.as_deref().unwrap_or_default()),
                    (false, true) => self.hand_over(refs, &before.id, now.as_deref().unwrap_or_default()),
                    _ => Ok(true),
                }
            }
        };
        if let Err(e) = done {
            tracing::warn!(id = %before.id, error = ?e, "could not bring the claim record up to date");
        }
    }

    /// Another assignee on a claimed issue: its record names `to` (any session of that name),
    /// compare-and-set on the record there was; created if there was none.
    fn hand_over(&self, refs: &Claims, id: &str, to: &str) -> Result<bool, Refusal> {
        let current = refs.read(id)?;
        if current.as_ref().is_some_and(|c| c.state == State::Held && c.holder == to) {
            return Ok(true);
        }
        let sid = holder::current_id();
        let from = current.as_ref().filter(|c| c.state == State::Held).map(|c| c.holder.clone());
        let new = Claim {
            id: id.to_string(),
            holder: to.to_string(),
            session: if from.is_none() { sid } else { String::new() },
            taken_at: crate::git::claims::now(),
            lease: lease_end(self.claim_ttl),
            state: State::Held,
            oid: String::new(),
            takeover: from.map(|f| format!("handed over from {f}")),
            lapsed_from: None,
            at: refs.here(),
            key: None,
        };
        let empty = Claim { oid: String::new(), ..new.clone() };
        Ok(refs.replace(current.as_ref().unwrap_or(&empty), &new)?.is_some())
    }

    /// What the claim records say is held, live (`None`: no claim records are used here).
    pub fn held_claims(&self) -> Result<Option<HeldClaims>, String> {
        let Some(refs) = self.claim_refs()? else { return Ok(None) };
        let (records, age, stale) = refs.records().map_err(|r| r.short())?;
        if stale.is_none() && age.is_zero() {
            // The remote just answered: finish what earlier calls left queued.
            self.settle_claims(refs.until());
        }
        let ids = records.into_iter().filter(|c| c.state == State::Held && c.lapsed(self.claim_ttl).is_none());
        let ids = ids.map(|c| c.id).collect();
        let stale = stale.map(|r: Refusal| r.short());
        Ok(Some(HeldClaims { ids, age, remote: refs.remote().map(str::to_string), stale }))
    }

    /// Every claim ref with its claim, for doctor: one list of the refs, one read of all their
    /// objects. A ref that holds no claim is an (id, why) of its own; the others are still read.
    /// Only records that hold an issue (their lease live or lapsed; not the tombstones of closed
    /// issues): a lapsed one still names who had the issue, so doctor never takes its
    /// in-progress file for one with no record and records that holder's claim anew.
    pub fn claim_ref_list(&self) -> Result<Vec<ClaimRead>, String> {
        let Some(refs) = self.claim_refs()? else { return Ok(Vec::new()) };
        let listed = refs.held().map_err(|r| r.short())?;
        if let Some(why) = listed.stale {
            return Err(why.short());
        }
        let read = refs.read_all(&listed.refs).map_err(|r| r.short())?;
        Ok(read
            .into_iter()
            .filter(|r| r.as_ref().is_err() || r.as_ref().is_ok_and(|c| c.state == State::Held))
            .collect())
    }
}

/// Why a claim is refused when the record at its id is about another issue that held the same
/// id in another clone, and that issue is not here under a new id to move the record to.
fn another_issues_record(c: &Claim, ttl: Duration) -> String {
    let holder = match c.lapsed(ttl) {
        Some(_) => format!("{}'s lapsed claim", c.holder),
        None => format!("{}'s claim", c.holder),
    };
    format!(
        "its claim record is {holder} of another issue that had this id in another clone before a merge renumbered one of them, and this clone does not have that issue under its new id yet; `git pull`, then issues_ready lists work to claim"
    )
}

fn claim_refused(id: &str, reason: String) -> StoreError {
    StoreError::ClaimRefused { id: id.to_string(), reason }
}

/// Why an issue closed on the remote's `branch` but open in this clone's files is not claimed.
pub(crate) fn closed_not_pulled(branch: &str) -> String {
    format!(
        "it was closed on {branch}, and this clone has not pulled that close yet; `git pull`, then issues_ready lists work to claim"
    )
}

/// The record of `id` if it is still `assignee`'s in session `sid`; else why the claim this call
/// took is not given as taken ([`paused_past_lease`]).
fn still_held(refs: &Claims, id: &str, assignee: &str, sid: &str) -> Result<Claim, String> {
    match refs.read(id).ok().flatten() {
        Some(c) if c.state == State::Held && c.is_held_by(assignee, sid) => Ok(c),
        now => Err(paused_past_lease(now.as_ref())),
    }
}

/// Why a claim this call took is not given as taken: it was paused past the lease, and `now`
/// (the record as read after the pause) is someone else's or ended.
fn paused_past_lease(now: Option<&Claim>) -> String {
    let since = match now {
        Some(c) => format!("now it is {}", c.describe()),
        None => "its claim has ended since".to_string(),
    };
    format!("this call was paused past the lease it had just taken, and {since}; issues_ready lists work to claim")
}

/// The `docketKey` of the issue file at `path`, if it has one.
pub(crate) fn key_of(path: &std::path::Path) -> Option<String> {
    crate::files::read_text(path).ok().and_then(|t| crate::git::merge::identity_key(&t))
}
