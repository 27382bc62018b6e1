//! A claim follows its issue when a merge renumbers it. Before a merge two clones can give one
//! id to two issues; the post-merge hook then renumbers one of them (it never touches the
//! network), and a claim record, keyed by id, is left naming the old id. Each held record
//! carries its issue's `docketKey`, so the record can be told from the issue now at its id and
//! moved to where its issue is ([`crate::git::claims::Claims::move_to`]): by the holder's
//! renewal, by the holder's next write to the old id (refused, naming the new one), and by a
//! claim that meets it (a lapsed claim of the renumbered issue, or the issue now at the old id).

use std::sync::Arc;

use crate::Store;
use crate::claiming::key_of;
use crate::git::claims::{Claim, Claims, State};
use crate::holder::Session;
use crate::model::{IssueFilter, IssueMeta, SortField, SortOrder, Status, StoreError};

/// Where the issue a claim record is about is in this checkout.
#[derive(Debug, Clone)]
pub(crate) enum Whereabouts {
    /// At the record's id (or the record names no key, or the file at its id has none).
    AtItsId,
    /// Under another id: a merge renumbered it.
    Renumbered(Arc<IssueMeta>),
    /// Not here: the file at its id is another issue, and no file has the record's key (the
    /// clone that renumbered it has not pushed, or this one has not pulled).
    NotHere,
}

impl Store {
    /// Where the issue of record `c` is here, by its `docketKey`.
    pub(crate) fn whereabouts(&self, c: &Claim) -> Whereabouts {
        let Some(key) = c.key.as_deref() else { return Whereabouts::AtItsId };
        let at_id = match self.fresh() {
            Ok((index, _)) => index.paths_of(&c.id),
            Err(_) => return Whereabouts::AtItsId,
        };
        let keys: Vec<Option<String>> = at_id.iter().map(|p| key_of(p)).collect();
        if keys.iter().any(|k| k.as_deref() == Some(key)) || (!at_id.is_empty() && keys.iter().all(Option::is_none)) {
            return Whereabouts::AtItsId;
        }
        match self.issue_with_key(key) {
            Some(m) if !m.id.eq_ignore_ascii_case(&c.id) => Whereabouts::Renumbered(m),
            Some(_) => Whereabouts::AtItsId,
            None => Whereabouts::NotHere,
        }
    }

    /// The open or in-progress issue whose file has `docketKey` `key` (read file by file: only
    /// asked when a record's key is not the one at its id, after a merge renumbered an issue).
    fn issue_with_key(&self, key: &str) -> Option<Arc<IssueMeta>> {
        let filter = IssueFilter { status: vec![Status::InProgress, Status::Open], ..IssueFilter::default() };
        let issues = self.list(&filter, SortField::Id, SortOrder::Asc).ok()?.value;
        issues.into_iter().find(|m| key_of(&m.path).as_deref() == Some(key))
    }

    /// Moves record `c` to the id its issue has here, if a merge renumbered it: the record as
    /// moved, or `None` when it is where it belongs, or its issue is not here, or the move did
    /// not hold (the new id has a record of its own, or `c` changed since it was read).
    pub(crate) fn follow_renumbered(&self, refs: &Claims, c: &Claim) -> Option<Claim> {
        let Whereabouts::Renumbered(m) = self.whereabouts(c) else { return None };
        match refs.move_to(c, &m.id) {
            Ok(Some(moved)) => {
                tracing::info!(from = %c.id, to = %m.id, holder = %c.holder, "a claim moved with its renumbered issue");
                Some(moved)
            }
            Ok(None) => None,
            Err(e) => {
                tracing::warn!(from = %c.id, to = %m.id, error = ?e, "could not move a claim to its renumbered issue");
                None
            }
        }
    }

    /// After a renewal round: the claims of `session` whose issue a merge renumbered move with
    /// it, and the session holds the new ids (its writes to the old ones are refused).
    pub(crate) fn follow_renumbered_claims(&self, refs: &Claims, session: &Session, renewed: &[Claim]) {
        for c in renewed.iter().filter(|c| c.state == State::Held && c.session == session.id()) {
            if let Some(moved) = self.follow_renumbered(refs, c) {
                session.renumbered(&c.id, &moved.id);
            }
        }
    }

    /// When the issue `session` claimed as `c.id` (its own record `c`) is not the issue at that
    /// id here any more: the claim moves to where its issue is now, and the refusal of a write
    /// to the old id says where. `None`: the issue is still at its id.
    pub(crate) fn own_claim_renumbered(&self, refs: &Claims, c: &Claim, session: &Session) -> Option<StoreError> {
        match self.whereabouts(c) {
            Whereabouts::AtItsId => None,
            Whereabouts::Renumbered(m) => {
                let to = self.follow_renumbered(refs, c).map_or(m.id.clone(), |moved| moved.id);
                session.renumbered(&c.id, &to);
                Some(Self::renumbered_refusal(&c.id, &to))
            }
            Whereabouts::NotHere => Some(not_here(
                &c.id,
                "is not the issue this session claimed under that id (another clone gave the id to another issue, and a merge renumbered one of them)",
            )),
        }
    }

    /// A holder's write to `id` found another issue's file there (a merge renumbered ids
    /// between its gate and its write): [`Store::own_claim_renumbered`] of the session's record.
    pub(crate) fn holders_issue_renumbered(&self, id: &str) -> StoreError {
        let moved = || {
            let session = crate::holder::current()?;
            let refs = self.claim_refs().ok().flatten()?;
            let own = refs.read(id).ok().flatten().filter(|c| c.state == State::Held && c.session == session.id())?;
            self.own_claim_renumbered(refs, &own, &session)
        };
        moved()
            .unwrap_or_else(|| not_here(id, "became another issue while this write was made (a merge renumbered ids)"))
    }

    /// The refusal of a holder's write to `id` once the issue it claimed as `id` is `to` now.
    pub(crate) fn renumbered_refusal(id: &str, to: &str) -> StoreError {
        StoreError::ClaimLost {
            id: id.to_string(),
            reason: format!(
                "a merge renumbered the issue this session claimed as {id} to {to} (another clone had given {id} to another issue), and its claim moved with it; {id} is that other issue now: retry with id {to}"
            ),
        }
    }

    /// Before claiming `meta` (which a file says is in progress, with no record at its id): its
    /// own record, left under the id it had before a merge renumbered it, is moved here first,
    /// so the claim sees whose it was and whether its lease lapsed.
    pub(crate) fn fetch_renumbered_record(&self, refs: &Claims, meta: &IssueMeta) {
        let Some(key) = key_of(&meta.path) else { return };
        let Ok((records, _, _)) = refs.records() else { return };
        if records.iter().any(|c| c.id.eq_ignore_ascii_case(&meta.id)) {
            return;
        }
        // Every record left is under another id.
        if let Some(old) = records.iter().find(|c| c.state == State::Held && c.key.as_deref() == Some(key.as_str())) {
            self.follow_renumbered(refs, old);
        }
    }
}

/// The refusal of a holder's write to `id`, which `what` (names another issue now), when the
/// issue this session claimed is not in this checkout under another id.
fn not_here(id: &str, what: &str) -> StoreError {
    StoreError::ClaimLost {
        id: id.to_string(),
        reason: format!(
            "{id} {what}, and the issue this session claimed is not in this checkout under a new id; `git pull`, then find it with issues_search"
        ),
    }
}
