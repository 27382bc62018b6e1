//! The work graph: `blockedBy` edges, parents (`wranglerContext.parentTaskId`) and what follows
//! from them (who is blocked, what is ready, what a close unblocks, cycles). Derived from the
//! index and cached in it until the next change, so a warm `issues_ready` reads no file and
//! builds nothing.

use super::record::{Fields, Record};
use crate::model::Status;
use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};

mod cycles;
pub use cycles::{cycle_named, cycle_text};

/// Parents are followed at most this deep (a longer chain is a mistake); blockers are not capped:
/// the cycle checks walk the whole graph.
const MAX_DEPTH: usize = 64;

fn key(id: &str) -> String {
    id.trim().to_ascii_uppercase()
}

/// Whether `key(id) == k`, without building the key (`k` is one).
fn has_key(id: &str, k: &str) -> bool {
    id.trim().eq_ignore_ascii_case(k)
}

/// Who holds an issue, as ready work counts it: its trimmed assignee, `None` when it has none.
pub fn holder(r: &Record) -> Option<&str> {
    r.assignee().map(str::trim).filter(|a| !a.is_empty())
}

fn active(s: Status) -> bool {
    matches!(s, Status::Open | Status::InProgress)
}

/// One issue of a chain ([`Store::chains`](crate::Store::chains): what holds an issue back, or
/// what it holds back) and the issue of the chain it is reached from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainLink {
    /// The issue's ID.
    pub id: String,
    /// The issue it is reached from: the one it blocks (in a blocker chain), the one that
    /// blocks it (in a blocks chain), or, when `via_parent`, the ancestor whose blocker it is.
    /// `None`: reached straight from the issue the chain is about.
    pub via: Option<String>,
    /// Whether it blocks an ancestor (`via`) rather than an issue of the chain: a parent's
    /// blocker holds its children back too.
    pub via_parent: bool,
}

#[derive(Debug, Default, Clone)]
pub struct Graph {
    /// Every ID named as a blocker or a parent, whether an issue holds it or not.
    referenced: HashSet<String>,
    /// Status of every ID something refers to (as a blocker or a parent); an ID held by several
    /// files counts as active if any of them is.
    status: HashMap<String, (String, Status)>,
    /// Blocked issue -> its blockers (keys).
    edges: HashMap<String, Vec<String>>,
    /// Blocker -> the issues it blocks (their IDs and status), in ID order.
    blocks: HashMap<String, Vec<(String, Status)>>,
    /// Issue -> its parent (keys).
    parent: HashMap<String, String>,
    /// Issues with an open or in-progress child: containers, not offered as work, unless they
    /// say otherwise (`wranglerContext.container: false`).
    epics: HashSet<String>,
    /// Issues with an active blocker, their own or an ancestor's.
    blocked: HashSet<String>,
    /// Open issues that are neither blocked nor epics, with how many active issues each blocks:
    /// highest priority first, then oldest.
    ready: Vec<(Record, usize)>,
    /// Open issues that are blocked.
    open_blocked: usize,
    /// Ready rows per assignee (trimmed; `None` for unassigned): an unfiltered page's total.
    ready_holders: HashMap<Option<String>, usize>,
}

impl Graph {
    pub fn build<'a>(metas: impl Iterator<Item = &'a Record> + Clone) -> Graph {
        let mut g = Graph::default();
        let mut referenced: HashSet<String> = HashSet::new();
        for m in metas.clone() {
            let parent = m.parent().filter(|p| !p.trim().is_empty());
            if !m.has_blockers() && parent.is_none() {
                continue;
            }
            let k = key(m.id());
            if m.has_blockers() {
                let blockers: Vec<String> = m.blocked_by().map(key).collect();
                for b in &blockers {
                    g.blocks.entry(b.clone()).or_default().push((m.id().to_string(), m.status()));
                    referenced.insert(b.clone());
                }
                g.edges.insert(k.clone(), blockers);
            }
            if let Some(p) = parent {
                let p = key(p);
                if active(m.status()) && m.frontmatter() {
                    g.epics.insert(p.clone());
                }
                referenced.insert(p.clone());
                g.parent.insert(k, p);
            }
        }
        for list in g.blocks.values_mut() {
            list.sort();
        }
        if !referenced.is_empty() {
            for m in metas.clone() {
                let hit = if referenced.contains(m.id()) {
                    Some(m.id().to_string())
                } else if m.id().bytes().any(|b| b.is_ascii_lowercase() || b.is_ascii_whitespace()) {
                    Some(key(m.id())).filter(|k| referenced.contains(k))
                } else {
                    None
                };
                if let Some(k) = hit {
                    let e = g.status.entry(k).or_insert_with(|| (m.id().to_string(), m.status()));
                    if !active(e.1) {
                        *e = (m.id().to_string(), m.status());
                    }
                }
            }
        }
        let candidates: Vec<String> = g.edges.keys().chain(g.parent.keys()).cloned().collect();
        for k in candidates {
            if !g.open_blockers_of(&k, &[]).is_empty() {
                g.blocked.insert(k);
            }
        }
        // The ready list, sorted by keys read once per row (a packed record's fields are read
        // by walking it).
        let mut ready = Vec::new();
        let marked = !g.blocked.is_empty() || !g.epics.is_empty();
        for m in metas {
            if m.status() != Status::Open || !m.frontmatter() {
                continue;
            }
            if marked {
                let k = key(m.id());
                if g.blocked.contains(&k) {
                    g.open_blocked += 1;
                    continue;
                }
            }
            if !g.offered(m) {
                continue;
            }
            ready.push((Graph::rank_key(m), m));
        }
        ready.sort_unstable_by_key(|(k, _)| *k);
        let mut holders: HashMap<Option<&str>, usize> = HashMap::new();
        for (_, r) in &ready {
            *holders.entry(holder(r)).or_default() += 1;
        }
        g.ready_holders = holders.into_iter().map(|(h, n)| (h.map(str::to_string), n)).collect();
        g.ready = ready
            .into_iter()
            .map(|(_, r)| (r.clone(), if g.blocks.is_empty() { 0 } else { g.unblocks(r.id()) }))
            .collect();
        g.referenced = referenced;
        g
    }

    /// What [`Graph::rank`] compares, read out of a record once.
    fn rank_key(r: &Record) -> (Reverse<crate::model::Priority>, &str, &str, u8, &str) {
        (Reverse(r.priority()), r.created_at(), r.id(), r.folder(), r.name())
    }

    /// The part of the graph that decides `id`'s own answers ([`Graph::open_blockers`],
    /// [`Graph::blocks`], [`Graph::is_epic`]), built from the records that name it as a blocker
    /// or a parent and from every holder of it, of its ancestors and of their blockers, in the
    /// order of `records`: its answers for `id` are the whole graph's, for the cost of a few
    /// passes over the records instead of the whole graph (a cold `issues_get`).
    pub fn around<'a>(id: &str, records: impl Iterator<Item = &'a Record> + Clone) -> Graph {
        let k = key(id);
        let parent_key = |r: &Record| r.parent().filter(|p| !p.trim().is_empty()).map(key);
        let mut keep: HashSet<usize> = HashSet::new();
        let is_k = |other: &str| has_key(other, &k);
        for (i, r) in records.clone().enumerate() {
            let names_it = r.has_blockers() && r.blocked_by().any(is_k);
            if names_it || r.parent().is_some_and(|p| !p.trim().is_empty() && is_k(p)) {
                keep.insert(i);
            }
        }
        // Holders of a chain key (the issue and its ancestors) are kept and their parents and
        // blockers followed; holders of a blocker's key are kept for its status.
        let (mut chain, mut leaves) = (HashSet::from([k.clone()]), HashSet::new());
        let (mut chain_next, mut leaves_next) = (vec![k], Vec::new());
        for _ in 0..=MAX_DEPTH {
            if chain_next.is_empty() && leaves_next.is_empty() {
                break;
            }
            let (scan_chain, scan_leaves) = (std::mem::take(&mut chain_next), std::mem::take(&mut leaves_next));
            let held = |r: &Record, keys: &[String]| keys.iter().any(|k| has_key(r.id(), k));
            for (i, r) in records.clone().enumerate() {
                if held(r, &scan_chain) {
                    keep.insert(i);
                    if let Some(p) = parent_key(r)
                        && chain.insert(p.clone())
                    {
                        chain_next.push(p);
                    }
                    for b in r.blocked_by().map(key) {
                        if !chain.contains(&b) && leaves.insert(b.clone()) {
                            leaves_next.push(b);
                        }
                    }
                } else if held(r, &scan_leaves) {
                    keep.insert(i);
                }
            }
        }
        Graph::build(records.enumerate().filter(|(i, _)| keep.contains(i)).map(|(_, r)| r))
    }

    /// How many ready rows are unassigned or held by `assignee`.
    pub fn ready_for(&self, assignee: Option<&str>) -> usize {
        let of = |who: Option<String>| self.ready_holders.get(&who).copied().unwrap_or(0);
        of(None) + assignee.map_or(0, |a| of(Some(a.to_string())))
    }

    /// Ready order: highest priority first, then oldest, then by ID (and file, for duplicates).
    fn rank(a: &Record, b: &Record) -> std::cmp::Ordering {
        Graph::rank_key(a).cmp(&Graph::rank_key(b))
    }

    /// Where `r` goes in the ready list (the first row that ranks after it).
    fn ready_at(&self, r: &Record) -> usize {
        self.ready.partition_point(|(m, _)| Graph::rank(m, r) == std::cmp::Ordering::Less)
    }

    /// Whether one file's change (`old` as the graph knew it, `new` as it is now; `None` for a
    /// file created or gone) can be taken in by [`Graph::patch`], which holds when it cannot move
    /// an edge or change who is blocked:
    /// - neither side has blockers or a parent and nothing names either side's ID (most issues);
    /// - or the same file keeps its ID, blockers, parent and whether it is active (open or in
    ///   progress): a claim (open to in progress) of an issue that blocks others.
    pub fn can_patch(&self, old: Option<&Record>, new: Option<&Record>) -> bool {
        let parent = |m: &Record| m.parent().filter(|p| !p.trim().is_empty()).map(key);
        let isolated = |m: &Record| !m.has_blockers() && parent(m).is_none() && !self.referenced.contains(&key(m.id()));
        if old.into_iter().chain(new).all(isolated) {
            return true;
        }
        let (Some(old), Some(new)) = (old, new) else { return false };
        let blockers = |m: &Record| m.blocked_by().map(key).collect::<Vec<_>>();
        let now = blockers(new);
        let same_edges = key(old.id()) == key(new.id())
            && (old.folder(), old.name()) == (new.folder(), new.name())
            && old.frontmatter() == new.frontmatter()
            && active(old.status()) == active(new.status())
            && parent(old) == parent(new)
            && blockers(old) == now;
        // Each blocker's list names this issue once (a duplicate ID would make the row ambiguous).
        same_edges
            && now.iter().all(|b| {
                self.blocks.get(b).is_none_or(|list| list.iter().filter(|(id, _)| id == new.id()).count() <= 1)
            })
    }

    /// Takes in a change that [`Graph::can_patch`] accepts without a rebuild: the statuses the
    /// graph keeps of it, and its row of the ready list.
    pub fn patch(&mut self, old: Option<&Record>, new: Option<&Record>) {
        if let Some(old) = old {
            // Found by its rank (a binary search), not by a walk over every row.
            let from = self.ready_at(old);
            if self.ready.get(from).is_some_and(|(m, _)| m == old) {
                self.ready.remove(from);
                if let Some(n) = self.ready_holders.get_mut(&holder(old).map(str::to_string)) {
                    *n -= 1;
                }
            }
        }
        let Some(new) = new else { return };
        let k = key(new.id());
        if self.blocked.contains(&k) && new.frontmatter() {
            let was_open = old.is_some_and(|o| o.status() == Status::Open);
            match (was_open, new.status() == Status::Open) {
                (true, false) => self.open_blocked -= 1,
                (false, true) => self.open_blocked += 1,
                _ => {}
            }
        }
        if let Some(entry) = self.status.get_mut(&k).filter(|(id, _)| id == new.id()) {
            entry.1 = new.status();
        }
        for b in new.blocked_by() {
            if let Some(row) = self.blocks.get_mut(&key(b)).and_then(|l| l.iter_mut().find(|(id, _)| id == new.id())) {
                row.1 = new.status();
            }
        }
        if new.status() == Status::Open && new.frontmatter() && !self.blocked.contains(&k) && self.offered(new) {
            let at = self.ready_at(new);
            let unblocks = self.unblocks(new.id());
            self.ready.insert(at, (new.clone(), unblocks));
            *self.ready_holders.entry(holder(new).map(str::to_string)).or_default() += 1;
        }
    }

    /// Whether an unblocked open issue is offered as work, not held as a container: its own
    /// `container` says so when it has one; else it is work unless it has an open or in-progress
    /// child.
    fn offered(&self, r: &Record) -> bool {
        match r.container() {
            Some(container) => !container,
            None => self.epics.is_empty() || !self.epics.contains(&key(r.id())),
        }
    }

    /// Whether `id` has an open or in-progress blocker (its own or an ancestor's).
    pub fn is_blocked(&self, id: &str) -> bool {
        !self.blocked.is_empty() && self.blocked.contains(&key(id))
    }

    pub fn is_epic(&self, id: &str) -> bool {
        self.epics.contains(&key(id))
    }

    /// The open or in-progress issues that block `id`: those of `own` (the list as the file has
    /// it now, when given) or of the index, then its ancestors', each once, with where it comes
    /// from (`None`: its own; `Some(parent)`: inherited).
    pub fn open_blockers(&self, id: &str, own: Option<&[String]>) -> Vec<(String, Option<String>)> {
        let own: Vec<String> = own.map(|o| o.iter().map(|b| key(b)).collect()).unwrap_or_default();
        self.open_blockers_of(&key(id), &own)
    }

    fn open_blockers_of(&self, k: &str, own: &[String]) -> Vec<(String, Option<String>)> {
        let mut out: Vec<(String, Option<String>)> = Vec::new();
        let mut seen = HashSet::new();
        let mut at = k.to_string();
        let mut via: Option<String> = None;
        for depth in 0..MAX_DEPTH {
            if !seen.insert(at.clone()) {
                break;
            }
            let blockers = match (depth, own.is_empty()) {
                (0, false) => own,
                _ => self.edges.get(&at).map(Vec::as_slice).unwrap_or_default(),
            };
            for b in blockers {
                if let Some((id, s)) = self.status.get(b)
                    && active(*s)
                    && !out.iter().any(|(o, _)| o == id)
                {
                    out.push((id.clone(), via.clone()));
                }
            }
            let Some(p) = self.parent.get(&at) else { break };
            via = Some(self.status.get(p).map(|(id, _)| id.clone()).unwrap_or_else(|| p.clone()));
            at = p.clone();
        }
        out
    }

    /// The whole chain of open or in-progress issues that hold `id` back, breadth first: its own
    /// and its ancestors' ([`Graph::open_blockers`], `own` as there), then the open blockers of
    /// each of those (and of their ancestors), level by level, each once; at most `cap` of them,
    /// and how many more there are.
    pub fn blocker_chain(&self, id: &str, own: Option<&[String]>, cap: usize) -> (Vec<ChainLink>, usize) {
        let link = |b: String, via: Option<String>| ChainLink { id: b, via_parent: via.is_some(), via };
        let first = self.open_blockers(id, own).into_iter().map(|(b, via)| link(b, via)).collect();
        breadth_first(id, first, cap, |at| {
            let own = |b: String, via: Option<String>| match via {
                Some(p) => link(b, Some(p)),
                None => ChainLink { id: b, via: Some(at.to_string()), via_parent: false },
            };
            self.open_blockers(at, None).into_iter().map(|(b, via)| own(b, via)).collect()
        })
    }

    /// The whole chain of what `id` holds back, breadth first: the issues it blocks (any
    /// status), then the ones those block, level by level, each once; at most `cap` of them, and
    /// how many more there are.
    pub fn blocks_chain(&self, id: &str, cap: usize) -> (Vec<ChainLink>, usize) {
        let link = |b: &str, via: Option<&str>| ChainLink {
            id: b.to_string(),
            via: via.map(str::to_string),
            via_parent: false,
        };
        let first = self.blocks(id).iter().map(|(b, _)| link(b, None)).collect();
        breadth_first(id, first, cap, |at| self.blocks(at).iter().map(|(b, _)| link(b, Some(at))).collect())
    }

    /// The issues `id` blocks (any status), in ID order.
    pub fn blocks(&self, id: &str) -> &[(String, Status)] {
        self.blocks.get(&key(id)).map(Vec::as_slice).unwrap_or_default()
    }

    /// How many open or in-progress issues `id` blocks directly.
    pub fn unblocks(&self, id: &str) -> usize {
        self.blocks(id).iter().filter(|(_, s)| active(*s)).count()
    }

    /// Open issues, not blocked and not epics, highest priority first, then oldest.
    pub fn ready(&self) -> &[(Record, usize)] {
        &self.ready
    }

    pub fn open_blocked(&self) -> usize {
        self.open_blocked
    }

    fn display(&self, k: &str) -> String {
        self.status.get(k).map(|(id, _)| id.clone()).unwrap_or_else(|| k.to_string())
    }

    /// Blockers named by some issue that no file holds: (issue, missing blocker).
    pub fn missing(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        for (blocker, list) in &self.blocks {
            if !self.status.contains_key(blocker) {
                out.extend(list.iter().map(|(id, _)| (id.clone(), blocker.clone())));
            }
        }
        out.sort();
        out
    }
}

/// The links reached from `first`, then from each of them through `next`, level by level, each
/// issue once (never `id` itself), at most [`MAX_DEPTH`] levels: the first `cap`, and how many
/// more.
fn breadth_first(
    id: &str,
    first: Vec<ChainLink>,
    cap: usize,
    next: impl Fn(&str) -> Vec<ChainLink>,
) -> (Vec<ChainLink>, usize) {
    let mut seen: HashSet<String> = HashSet::from([key(id)]);
    let mut out: Vec<ChainLink> = Vec::new();
    let mut level = first;
    for _ in 0..MAX_DEPTH {
        let mut deeper = Vec::new();
        for link in level {
            if seen.insert(key(&link.id)) {
                deeper.extend(next(&link.id));
                out.push(link);
            }
        }
        if deeper.is_empty() {
            break;
        }
        level = deeper;
    }
    let more = out.len().saturating_sub(cap);
    out.truncate(cap);
    (out, more)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::IssueMeta;

    fn meta(id: &str, status: Status, blocked_by: &[&str], parent: Option<&str>) -> Record {
        let mut context = serde_json::Map::new();
        if let Some(p) = parent {
            context.insert("parentTaskId".into(), p.into());
        }
        let m = IssueMeta {
            id: id.into(),
            title: id.into(),
            issue_type: crate::model::IssueType::Issue,
            status,
            priority: crate::model::Priority::Medium,
            labels: vec![],
            assignee: None,
            project: None,
            created_at: format!("2026-01-01T00:00:00.000Z{id}"),
            updated_at: String::new(),
            closed_at: None,
            context,
            blocked_by: blocked_by.iter().map(|s| s.to_string()).collect(),
            path: id.into(),
            body_len: 0,
            frontmatter: true,
        };
        Record::new(&m, 0, id)
    }

    /// Every issue's answers from the graph around it equal the whole graph's: chains of
    /// parents, blockers of ancestors, duplicate IDs with different parents, IDs in other case
    /// and with spaces, cycles, missing blockers.
    #[test]
    fn the_graph_around_an_issue_answers_as_the_whole_graph() {
        let mut seed = 0x2545f4914f6cdd1d_u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..40 {
            let size = 2 + next(30);
            let name = |n: u64, variant: u64| match variant {
                0 => format!("i-{n}").to_lowercase(),
                1 => format!(" I-{n}"),
                _ => format!("I-{n}"),
            };
            let mut all = Vec::new();
            for n in 0..size {
                let blockers: Vec<String> = (0..next(3)).map(|_| name(next(size + 2), next(5))).collect();
                let blockers: Vec<&str> = blockers.iter().map(String::as_str).collect();
                let parent = (next(3) == 0).then(|| name(next(size + 1), next(5)));
                let status = [Status::Open, Status::InProgress, Status::Closed][next(3) as usize];
                all.push(meta(&name(n, next(6)), status, &blockers, parent.as_deref()));
                if next(8) == 0 {
                    let other = (next(2) == 0).then(|| name(next(size), 2));
                    all.push(meta(&name(n, 2), Status::Closed, &[], other.as_deref()));
                }
            }
            let whole = Graph::build(all.iter());
            for n in 0..size + 2 {
                let id = name(n, 2);
                let part = Graph::around(&id, all.iter());
                assert_eq!(part.open_blockers(&id, None), whole.open_blockers(&id, None), "{id}");
                assert_eq!(part.blocks(&id), whole.blocks(&id), "{id}");
                assert_eq!(part.is_epic(&id), whole.is_epic(&id), "{id}");
            }
        }
    }

    #[test]
    fn blockers_parents_epics_and_cycles() {
        let all = [
            meta("A", Status::Open, &[], None),
            meta("B", Status::Open, &["A"], None),
            meta("C", Status::Closed, &[], None),
            meta("D", Status::Open, &["C"], None),
            meta("E", Status::Open, &[], Some("B")),
            meta("F", Status::Open, &["X"], None),
        ];
        let g = Graph::build(all.iter());
        assert!(g.is_blocked("B") && g.is_blocked("E") && !g.is_blocked("D") && !g.is_blocked("F"));
        assert!(g.is_epic("B"));
        let ready: Vec<&str> = g.ready().iter().map(|(m, _)| m.id()).collect();
        assert_eq!(ready, ["A", "D", "F"]);
        assert_eq!(g.open_blocked(), 2);
        assert_eq!(g.open_blockers("E", None), vec![("A".to_string(), Some("B".to_string()))]);
        assert_eq!(g.unblocks("A"), 1);
        assert_eq!(g.cycle_with("A", &["B".into()]), Some(vec!["A".into(), "B".into(), "A".into()]));
        assert_eq!(g.cycle_with("A", &["D".into()]), None);
        assert_eq!(g.missing(), vec![("F".to_string(), "X".to_string())]);
        let looped = [meta("P", Status::Open, &["Q"], None), meta("Q", Status::Open, &["P"], None)];
        assert_eq!(Graph::build(looped.iter()).cycles(), vec![vec!["P".to_string(), "Q".into(), "P".into()]]);
    }
}
