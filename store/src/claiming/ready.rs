//! The ready page as the claim records see it: held and closed issues left out, lapsed claims
//! offered again, and (through a claims remote) what its default branch says (`unpulled.rs`).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::Store;
use crate::claiming::renumbered::Whereabouts;
use crate::git::claims::OnBranch;
use crate::model::{IssueFilter, IssueMeta, Snapshot, SortField, SortOrder, Status, StoreError};
use crate::work::Ready;

/// What the claim records changed in a ready page.
#[derive(Debug, Clone, Default)]
pub struct ReadyClaims {
    /// Whether claim records were consulted at all (inside git).
    pub checked: bool,
    /// Ready by the files, but held (live lease) or closed in the claim records: left out.
    pub hidden: usize,
    /// IDs ready by their files but held by several files (a claim would be refused): left out.
    pub duplicates: usize,
    /// Issues whose holder's lease lapsed, offered again: (ID, "ann's lease lapsed at T").
    pub lapsed: Vec<(String, String)>,
    /// How old the records are.
    pub age: Duration,
    /// The claims remote, if any.
    pub remote: Option<String>,
    /// Why the records could not be read, if they could not (the page is then the files' alone).
    pub unchecked: Option<String>,
    /// Why the records are older than they should be: the remote did not answer, and these are
    /// the last it listed (`age` says how old).
    pub stale: Option<String>,
    /// The claims remote's default branch the page was checked against (`REMOTE/BRANCH`).
    pub branch: Option<String>,
    /// Ready by this clone's files but closed on that branch (not pulled yet): left out.
    pub closed_upstream: usize,
    /// Ready but not on that branch yet (created here since the last push): left out.
    pub not_pushed: usize,
}

impl Store {
    /// The ready page without the issues the claim records say are held (a live lease) or
    /// closed, and with the issues whose holder's lease lapsed offered again (first on the first
    /// page when their file still says in_progress).
    pub fn ready_claimable(
        &self,
        filter: &IssueFilter,
        assignee: Option<&str>,
        offset: usize,
        size: usize,
    ) -> Result<(Snapshot<Ready>, ReadyClaims), StoreError> {
        let mut info = ReadyClaims::default();
        // An ID several files hold cannot be claimed (nor written): never offered.
        let duplicates = self.fresh()?.0.duplicate_ids();
        let (mut held, mut lapsed) = (Vec::new(), Vec::new());
        let mut upstream = None;
        match self.claim_refs() {
            Ok(None) => {}
            Err(why) => info.unchecked = Some(why),
            Ok(Some(refs)) => {
                info.checked = true;
                info.remote = refs.remote().map(str::to_string);
                match refs.records() {
                    Ok((records, age, stale)) => {
                        if stale.is_none() && age.is_zero() {
                            // The remote just answered: finish what earlier calls left queued,
                            // and end the tombstones whose close can now be seen.
                            self.settle_claims(refs.until());
                            self.end_tombstones_now_and_then(refs, &records);
                        }
                        info.age = age;
                        info.stale = stale.map(|r| r.short());
                        upstream = self.upstream(refs);
                        for c in &records {
                            if self.interrupted_close(refs, c) {
                                let why = format!("{}'s close at {} did not finish", c.holder, c.taken_at);
                                lapsed.push((c.id.clone(), why));
                                continue;
                            }
                            match c.lapsed(self.claim_ttl) {
                                Some(end) => {
                                    let why = format!(
                                        "{}'s lease lapsed at {}",
                                        c.holder,
                                        end.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
                                    );
                                    // A record left under the id its issue had before a merge
                                    // renumbered it: offered under the new id (a claim moves
                                    // it); one whose issue is not here yet is not offered.
                                    match self.whereabouts(c) {
                                        Whereabouts::AtItsId => lapsed.push((c.id.clone(), why)),
                                        Whereabouts::Renumbered(m) => {
                                            if !records.iter().any(|r| r.id.eq_ignore_ascii_case(&m.id)) {
                                                lapsed.push((m.id.clone(), why));
                                            }
                                        }
                                        Whereabouts::NotHere => held.push(c.id.clone()),
                                    }
                                }
                                None => held.push(c.id.clone()),
                            }
                        }
                    }
                    Err(r) => info.unchecked = Some(r.reason()),
                }
            }
        }
        if let Some(up) = &upstream {
            info.branch = Some(up.branch.clone());
            // A lapsed claim of an issue closed on the branch, or not there yet, is not offered.
            lapsed
                .retain(|(id, _)| self.get_meta(id).map_or(true, |m| self.on_branch(up, &m.value) == OnBranch::Pushed));
        }
        // One walk of the ready list makes the page and says what it left out: held, an ID of
        // several files (counted once each), closed on the branch or not there yet.
        let mut duplicated = BTreeSet::new();
        let mut leave_out = |id: &str, path: &Path| {
            let among = |ids: &[String]| ids.iter().any(|h| h.eq_ignore_ascii_case(id));
            let on = upstream.as_ref().map_or(OnBranch::Pushed, |up| self.on_branch_at(up, path));
            let (is_held, is_duplicate) = (among(&held), among(&duplicates));
            info.hidden += usize::from(is_held);
            if is_duplicate {
                duplicated.insert(id.to_uppercase());
            }
            info.closed_upstream += usize::from(on == OnBranch::Closed);
            info.not_pushed += usize::from(on == OnBranch::NotYet);
            is_held || is_duplicate || on != OnBranch::Pushed
        };
        let classify = !held.is_empty() || !duplicates.is_empty() || upstream.is_some();
        let mut snap = self.ready_without(
            filter,
            assignee,
            offset,
            size,
            classify.then_some(&mut leave_out as &mut dyn FnMut(&str, &Path) -> bool),
        )?;
        info.duplicates = duplicated.len();
        if !lapsed.is_empty() {
            // Lapsed claims whose file still says in_progress (this clone or worktree saw the
            // claim): offered first, blockers and the filter still apply.
            let in_progress = IssueFilter {
                ids: lapsed.iter().map(|(id, _)| id.clone()).collect(),
                status: vec![Status::InProgress],
                blocked: Some(false),
                ..filter.clone()
            };
            let stale = self.list(&in_progress, SortField::Priority, SortOrder::Desc)?.value;
            snap.value.total += stale.len();
            if offset == 0 {
                let mut rows: Vec<(Arc<IssueMeta>, usize)> = stale.into_iter().map(|m| (m, 0)).collect();
                rows.append(&mut snap.value.issues);
                rows.truncate(size);
                snap.value.issues = rows;
            }
            let shown: Vec<&str> = snap.value.issues.iter().map(|(m, _)| m.id.as_str()).collect();
            info.lapsed =
                lapsed.into_iter().filter(|(id, _)| shown.iter().any(|s| s.eq_ignore_ascii_case(id))).collect();
        }
        Ok((snap, info))
    }
}
