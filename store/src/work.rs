//! The work graph through the store: ready work, blockers of an issue, claims, and the checks a
//! write of `blockedBy` (or a compare-and-set) must pass under the workspace lock.

use std::path::Path;
use std::sync::Arc;

use crate::Store;
use crate::index::Index;
use crate::index::filter::matches;
use crate::index::graph::{ChainLink, cycle_text, holder};
use crate::index::lookup::candidates;
use crate::index::record::{Fields, Record};
use crate::model::{Expect, IssueFilter, IssueMeta, IssuePatch, Snapshot, Status, StoreError, Updated};

/// Ready work: each issue with how many open or in-progress issues it blocks directly.
#[derive(Debug, Clone)]
pub struct Ready {
    /// The page asked for, each with how many issues it unblocks.
    pub issues: Vec<(Arc<IssueMeta>, usize)>,
    /// Ready issues matching the filter, across all pages.
    pub total: usize,
    /// Open issues (of the whole workspace) waiting on a blocker.
    pub open_blocked: usize,
}

/// An issue's whole chains: what holds it back and what it holds back, each capped, with how
/// many more.
#[derive(Debug, Clone, Default)]
pub struct Chains {
    /// What holds the issue back: its open or in-progress blockers and its ancestors', then
    /// theirs, level by level, each once; the first `cap`, and how many more.
    pub blockers: (Vec<ChainLink>, usize),
    /// What the issue holds back: the issues it blocks (any status), then the ones those block,
    /// level by level, each once; the first `cap`, and how many more.
    pub blocks: (Vec<ChainLink>, usize),
}

/// What a hand edit broke in the graph: blockers naming no issue (issue, missing ID) and cycles.
pub type GraphProblems = (Vec<(String, String)>, Vec<Vec<String>>);

/// An issue's place in the graph.
#[derive(Debug, Clone, Default)]
pub struct Blockers {
    /// Open or in-progress blockers, each with the ancestor it comes from (`None`: its own).
    pub open: Vec<(String, Option<String>)>,
    /// The issues it blocks, with their status.
    pub blocks: Vec<(String, Status)>,
    /// Open issues with an open child (this one is then an epic).
    pub epic: bool,
}

/// Asked of each ready row (its ID and its file): whether to leave it out.
pub(crate) type LeaveOut<'a> = dyn FnMut(&str, &Path) -> bool + 'a;

impl Store {
    /// Open issues none of whose blockers (nor their ancestors') is open or in progress, that
    /// are not epics, unassigned or assigned to `assignee`, matching `filter` (whose status,
    /// assignee and blocked are not used): highest priority first, then oldest.
    pub fn ready(
        &self,
        filter: &IssueFilter,
        assignee: Option<&str>,
        offset: usize,
        limit: usize,
    ) -> Result<Snapshot<Ready>, StoreError> {
        self.ready_without(filter, assignee, offset, limit, None)
    }

    /// [`Store::ready`] without the rows `leave_out` says to leave out: it is given each ready
    /// row that matches (its ID and its file) once, in order, and the rows it leaves out are in
    /// neither the page nor the total. A caller counts what it leaves out as it goes, so one
    /// walk of the ready list makes both the page and the counts.
    pub(crate) fn ready_without(
        &self,
        filter: &IssueFilter,
        assignee: Option<&str>,
        offset: usize,
        limit: usize,
        mut leave_out: Option<&mut LeaveOut<'_>>,
    ) -> Result<Snapshot<Ready>, StoreError> {
        let (mut index, cached) = self.fresh()?;
        let warnings = index.warnings();
        let graph = index.graph();
        let folders = index.folders().to_vec();
        drop(index);
        let filter = IssueFilter { status: Vec::new(), assignee: None, blocked: None, ..filter.clone() };
        // Who holds a row as the graph counts it, so a kept total and a walk agree.
        let mine = |m: &Record| holder(m).is_none_or(|a| assignee == Some(a));
        // The ready list is kept in order with the graph: a page clones only its own rows, and
        // the total is a count, not a copy. Without a filter (nor rows to leave out) the graph
        // keeps that count, and the walk stops at the end of the page.
        let unfiltered = leave_out.is_none()
            && filter.priority.is_empty()
            && filter.labels.is_empty()
            && filter.project.is_none()
            && filter.types.is_empty()
            && filter.parent_task_id.is_none()
            && filter.ids.is_empty();
        let mut total = 0;
        let mut issues = Vec::with_capacity(limit.min(graph.ready().len()));
        for item in graph.ready() {
            if unfiltered && issues.len() >= limit {
                break;
            }
            if !mine(&item.0) || !matches(&filter, &item.0) {
                continue;
            }
            let file = || item.0.path_in(&folders[item.0.folder() as usize]);
            let mut path = None;
            if let Some(out) = leave_out.as_mut() {
                let at = path.insert(file());
                if out(item.0.id(), at) {
                    continue;
                }
            }
            if total >= offset && issues.len() < limit {
                issues.push((Arc::new(item.0.meta(path.unwrap_or_else(file))), item.1));
            }
            total += 1;
        }
        if unfiltered {
            total = graph.ready_for(assignee);
        }
        Ok(Snapshot { value: Ready { issues, total, open_blocked: graph.open_blocked() }, cached, warnings })
    }

    /// What blocks `meta` and what it blocks.
    pub fn blockers(&self, meta: &IssueMeta) -> Result<Blockers, StoreError> {
        let (mut index, _) = self.fresh()?;
        let graph = index.graph_around(&meta.id);
        Ok(Blockers {
            open: graph.open_blockers(&meta.id, Some(&meta.blocked_by)),
            blocks: graph.blocks(&meta.id).to_vec(),
            epic: graph.is_epic(&meta.id),
        })
    }

    /// The whole blocker chain of `meta` and the whole chain of what it blocks, each at most
    /// `cap` long, with how many more each has (see [`Chains`]).
    pub fn chains(&self, meta: &IssueMeta, cap: usize) -> Result<Chains, StoreError> {
        let (mut index, _) = self.fresh()?;
        // Most issues are in no chain: the graph around the issue says so without building the
        // whole one (a cold `issues_get`).
        let around = index.graph_around(&meta.id);
        if around.open_blockers(&meta.id, Some(&meta.blocked_by)).is_empty() && around.blocks(&meta.id).is_empty() {
            return Ok(Chains::default());
        }
        let graph = index.graph();
        drop(index);
        Ok(Chains {
            blockers: graph.blocker_chain(&meta.id, Some(&meta.blocked_by), cap),
            blocks: graph.blocks_chain(&meta.id, cap),
        })
    }

    /// The open issues that `id` blocked and that nothing blocks any more (call after closing it).
    pub fn unblocked_by(&self, id: &str) -> Result<Vec<String>, StoreError> {
        let (mut index, _) = self.fresh()?;
        let graph = index.graph();
        Ok(graph
            .blocks(id)
            .iter()
            .filter(|(b, s)| *s == Status::Open && !graph.is_blocked(b))
            .map(|(b, _)| b.clone())
            .collect())
    }

    /// Blockers that name no issue (issue, missing ID), and cycles, from hand edits.
    pub fn graph_problems(&self) -> Result<GraphProblems, StoreError> {
        let (mut index, _) = self.fresh()?;
        let graph = index.graph();
        Ok((graph.missing(), graph.cycles()))
    }

    /// Assigns `id` to `assignee` and starts it, in one write, if it is open, unassigned (or
    /// theirs) and unblocked; checked under the workspace lock, so of two concurrent claims (from
    /// any processes) exactly one wins. Repeating a won claim changes nothing.
    pub fn claim(&self, id: &str, assignee: &str) -> Result<Updated, StoreError> {
        self.claim_keyed(id, assignee, None)
    }

    /// [`Store::claim`] of the file whose `docketKey` is `identity`, when given (refused when
    /// the id names another file by the time it is written).
    pub(crate) fn claim_keyed(
        &self,
        id: &str,
        assignee: &str,
        identity: Option<String>,
    ) -> Result<Updated, StoreError> {
        let assignee = assignee.trim();
        if assignee.is_empty() {
            let reason = "no one is named to hold it (the assignee is blank); claim it with a name".into();
            return Err(StoreError::ClaimRefused { id: id.to_string(), reason });
        }
        let patch = IssuePatch {
            status: Some(Status::InProgress),
            assignee: Some(Some(assignee.to_string())),
            expect: Some(Expect::Claim(assignee.to_string())),
            identity,
            ..IssuePatch::default()
        };
        self.update(id, patch)
    }
}

/// `current` blockers with `remove` taken out and `add` appended (IDs compared without regard to
/// case; the order kept, additions last; an ID in both is left out).
pub(super) fn edited_blockers(current: &[String], add: &[String], remove: &[String]) -> Vec<String> {
    let same = |x: &String, y: &String| x.eq_ignore_ascii_case(y);
    let mut list: Vec<String> = current.iter().filter(|b| !remove.iter().any(|r| same(r, b))).cloned().collect();
    for b in add {
        if !list.iter().any(|x| same(x, b)) && !remove.iter().any(|r| same(r, b)) {
            list.push(b.clone());
        }
    }
    list
}

/// The blockers given for `id`, as the IDs of the issues they name (each once). Refused: an ID no
/// issue holds, `id` itself, and a list that would close a cycle. Call under the workspace lock
/// with the index fresh.
pub(super) fn check_blockers(index: &mut Index, id: &str, given: &[String]) -> Result<Vec<String>, StoreError> {
    let mut out: Vec<String> = Vec::new();
    for b in given.iter().map(|b| b.trim()).filter(|b| !b.is_empty()) {
        let refuse = |reason: String| StoreError::BadBlocker { id: id.to_string(), blocker: b.to_string(), reason };
        let path = match candidates(index, b) {
            Ok(paths) => paths.into_iter().next(),
            Err(StoreError::InvalidId { reason, .. }) => {
                return Err(refuse(format!("it is not an issue ID ({reason})")));
            }
            Err(StoreError::NotFound { .. }) => None,
            Err(e) => return Err(e),
        };
        let Some(meta) = path.and_then(|p| index.meta_at(&p)) else {
            return Err(refuse("no issue has that ID (issues_list or issues_search find the right one)".into()));
        };
        if meta.id.eq_ignore_ascii_case(id) {
            return Err(refuse("an issue cannot block itself".into()));
        }
        if !out.iter().any(|o| o.eq_ignore_ascii_case(&meta.id)) {
            out.push(meta.id.clone());
        }
    }
    if let Some(cycle) = index.graph().cycle_with(id, &out) {
        return Err(StoreError::Cycle { id: id.to_string(), cycle: cycle_text(&cycle) });
    }
    Ok(out)
}

/// Checks `expect` against the issue as read under the lock (`before`).
pub(super) fn check_expect(index: &mut Index, before: &IssueMeta, expect: &Expect) -> Result<(), StoreError> {
    match expect {
        Expect::UpdatedAt(expected) => {
            let same = before.updated_at == *expected
                || matches!(
                    (chrono::DateTime::parse_from_rfc3339(&before.updated_at), chrono::DateTime::parse_from_rfc3339(expected)),
                    (Ok(a), Ok(b)) if a == b
                );
            match same {
                true => Ok(()),
                false => Err(StoreError::Stale {
                    id: before.id.clone(),
                    current: before.updated_at.clone(),
                    expected: expected.clone(),
                }),
            }
        }
        Expect::Claim(who) => {
            let refuse = |reason: String| StoreError::ClaimRefused { id: before.id.clone(), reason };
            // Someone else's claim: who, since when, and the call that takes it over.
            let held = |what: String| {
                let (at, age) = (&before.updated_at, crate::git::claims::age(&before.updated_at));
                refuse(format!(
                    "{what} (last written {at}, {age}); if that agent is gone, take it over with issues_claim with takeoverReason: \"why\""
                ))
            };
            let holder = before.assignee.as_deref().map(str::trim).filter(|a| !a.is_empty());
            match (before.status, holder) {
                (Status::InProgress, Some(h)) if h == who => return Ok(()),
                (Status::Open, None) => {}
                (Status::Open, Some(h)) if h == who => {}
                (Status::Open, Some(h)) => return Err(held(format!("it is assigned to {h}"))),
                (Status::InProgress, Some(h)) => return Err(held(format!("it is in_progress, held by {h}"))),
                (s, Some(h)) => return Err(refuse(format!("it is {s} (assigned to {h}), not open"))),
                (s, None) => return Err(refuse(format!("it is {s}, not open"))),
            }
            let open = index.graph().open_blockers(&before.id, Some(&before.blocked_by));
            if open.is_empty() {
                return Ok(());
            }
            let named: Vec<String> = open
                .iter()
                .map(|(b, via)| match via {
                    None => b.clone(),
                    Some(p) => format!("{b} (blocks its parent {p})"),
                })
                .collect();
            Err(refuse(format!("it is blocked by {}, still open or in progress", named.join(", "))))
        }
    }
}
