//! The list order, kept: every live slot in list order, and the same per (type, status) bucket
//! and per label and bucket. A page of a list walks the few sequences its filter selects (merged
//! in list order) and stops once it holds `limit` issues, so it costs about what it returns;
//! each change moves one slot in a handful of sorted sequences.

use std::cmp::{Ordering, Reverse};

use hashbrown::HashMap;

use super::counts::{self, BUCKETS};
use super::record::{Fields, Record};
use crate::model::IssueFilter;

/// List order: issues before files without frontmatter, newest update first, then ID, then path
/// (`path` compares the paths, asked for only when all the rest ties).
pub fn list_order<F: Fields + ?Sized>(a: &F, b: &F, path: impl FnOnce() -> Ordering) -> Ordering {
    list_key(a).cmp(&list_key(b)).then_with(path)
}

/// What [`list_order`] compares before the path, read out of an issue once.
fn list_key<F: Fields + ?Sized>(m: &F) -> (Reverse<bool>, Reverse<&str>, &str) {
    (Reverse(m.frontmatter()), Reverse(m.updated_at()), m.id())
}

/// Where the orders find each live slot's issue.
pub trait Metas {
    /// The issue of a live slot.
    fn meta(&self, slot: u32) -> &Record;
    /// Every live slot.
    fn live(&self) -> Vec<u32>;
    /// How two live slots compare in list order.
    fn order(&self, a: u32, b: u32) -> Ordering;
}

fn meta<M: Metas + ?Sized>(slots: &M, s: u32) -> &Record {
    slots.meta(s)
}

type PerBucket = [Vec<u32>; BUCKETS];

#[derive(Default)]
pub struct Orders {
    /// False while many changes come at once: the sequences are then empty, and rebuilt when
    /// next needed.
    ordered: bool,
    all: Vec<u32>,
    buckets: PerBucket,
    /// Per label, the slots holding it (once each).
    labels: HashMap<Box<str>, PerBucket>,
    /// The list order a snapshot kept, checked only when the orders are first needed (a CLI
    /// command that reads one issue never needs them): slots that died since are dropped from
    /// it, new ones merged in.
    saved: Vec<u32>,
}

/// Enters `slot` into a sequence in list order.
fn enter<M: Metas + ?Sized>(seq: &mut Vec<u32>, slots: &M, slot: u32) {
    let at = seq.partition_point(|&s| slots.order(s, slot).is_lt());
    seq.insert(at, slot);
}

/// Takes `slot` out of a sequence in list order (its slot must still be live).
fn leave<M: Metas + ?Sized>(seq: &mut Vec<u32>, slots: &M, slot: u32) {
    let at = seq.partition_point(|&s| slots.order(s, slot).is_lt());
    match seq.get(at) {
        Some(&s) if s == slot => {
            seq.remove(at);
        }
        _ => seq.retain(|&s| s != slot),
    }
}

/// `live` (every live slot, ascending) in list order.
fn sorted<M: Metas + Sync + ?Sized>(slots: &M, live: Vec<u32>) -> Vec<u32> {
    use rayon::slice::ParallelSliceMut;
    // [`list_order`]'s keys, read out of each record once (the path only on a full tie).
    let mut keyed: Vec<_> = live.into_iter().map(|s| (list_key(meta(slots, s)), s)).collect();
    keyed.par_sort_unstable_by(|(ka, a), (kb, b)| ka.cmp(kb).then_with(|| slots.order(*a, *b)));
    keyed.into_iter().map(|(_, s)| s).collect()
}

/// `live` (every live slot, ascending) in list order, from `saved`: its slots that are still
/// live, with the others sorted and merged in. `None` if `saved` is not in list order (or
/// names a slot twice), which a snapshot of another build could hold.
fn merge_saved<M: Metas + Sync + ?Sized>(slots: &M, live: &[u32], saved: Vec<u32>) -> Option<Vec<u32>> {
    if saved.is_empty() {
        return None;
    }
    let end = live.last().map_or(0, |&s| s as usize + 1);
    let mut is_live = vec![false; end];
    live.iter().for_each(|&s| is_live[s as usize] = true);
    let mut kept = Vec::with_capacity(live.len());
    for s in saved {
        // Each live slot once; dropping it from `is_live` leaves the new ones there.
        if let Some(flag) = is_live.get_mut(s as usize).filter(|f| **f) {
            *flag = false;
            kept.push(s);
        }
    }
    if !kept.windows(2).all(|w| slots.order(w[0], w[1]).is_lt()) {
        return None;
    }
    let new: Vec<u32> = live.iter().copied().filter(|&s| is_live[s as usize]).collect();
    if new.is_empty() {
        return Some(kept);
    }
    let new = sorted(slots, new);
    Some(super::merge(&kept, &new, |a, b| slots.order(a, b).is_lt()))
}

/// The distinct labels of an issue.
fn labels_of(m: &Record) -> impl Iterator<Item = &str> {
    m.labels().enumerate().filter(move |&(i, l)| !m.labels().take(i).any(|k| k == l)).map(|(_, l)| l)
}

impl Orders {
    /// Every live slot in list order (call [`Orders::ensure`] first).
    pub fn all(&self) -> &[u32] {
        &self.all
    }

    /// Enters a new live slot (nothing while unordered).
    pub fn insert<M: Metas + ?Sized>(&mut self, slots: &M, slot: u32) {
        if !self.ordered {
            return;
        }
        let m = meta(slots, slot);
        let b = counts::bucket(m.issue_type(), m.status());
        enter(&mut self.all, slots, slot);
        enter(&mut self.buckets[b], slots, slot);
        for label in labels_of(m) {
            let seqs = match self.labels.get_mut(label) {
                Some(seqs) => seqs,
                None => self.labels.entry(label.into()).or_default(),
            };
            enter(&mut seqs[b], slots, slot);
        }
    }

    /// Takes out a slot that is about to die (while it is still live).
    pub fn remove<M: Metas + ?Sized>(&mut self, slots: &M, slot: u32) {
        if !self.ordered {
            return;
        }
        let m = meta(slots, slot);
        let b = counts::bucket(m.issue_type(), m.status());
        leave(&mut self.all, slots, slot);
        leave(&mut self.buckets[b], slots, slot);
        for label in labels_of(m) {
            if let Some(seqs) = self.labels.get_mut(label) {
                leave(&mut seqs[b], slots, slot);
                if seqs.iter().all(Vec::is_empty) {
                    self.labels.remove(label);
                }
            }
        }
    }

    /// Lets changes skip the orders (many are coming); they are rebuilt when next needed.
    pub fn unorder(&mut self) {
        let saved = std::mem::take(&mut self.saved);
        *self = Orders { saved, ..Orders::default() };
    }

    /// Keeps `order` (a snapshot's list order, slots below `slots`) to build the orders from
    /// when they are first needed, instead of sorting.
    pub fn save(&mut self, order: Vec<u32>) {
        *self = Orders { saved: order, ..Orders::default() };
    }

    /// Rebuilds the orders if changes skipped them: from the saved order if there is one and it
    /// is still in list order, else by sorting every live slot.
    pub fn ensure<M: Metas + Sync + ?Sized>(&mut self, slots: &M) {
        if self.ordered {
            return;
        }
        let live = slots.live();
        let saved = std::mem::take(&mut self.saved);
        let all = merge_saved(slots, &live, saved).unwrap_or_else(|| sorted(slots, live));
        self.set_all(slots, all);
    }

    /// Takes `all` (every live slot, in list order) and derives the rest from it.
    pub fn set_all<M: Metas + ?Sized>(&mut self, slots: &M, all: Vec<u32>) {
        let mut buckets = PerBucket::default();
        let mut labels: HashMap<Box<str>, PerBucket> = HashMap::new();
        for &s in &all {
            let m = meta(slots, s);
            let b = counts::bucket(m.issue_type(), m.status());
            buckets[b].push(s);
            for label in labels_of(m) {
                match labels.get_mut(label) {
                    Some(seqs) => seqs[b].push(s),
                    None => labels.entry(label.into()).or_default()[b].push(s),
                }
            }
        }
        *self = Orders { ordered: true, all, buckets, labels, saved: Vec::new() };
    }

    /// Renumbers the slots after compaction (`remap[old]`, `u32::MAX` for a dropped slot).
    pub fn remap(&mut self, remap: &[u32]) {
        let renumber = |seq: &mut Vec<u32>| {
            *seq = seq.iter().filter_map(|&s| remap.get(s as usize)).copied().filter(|&s| s != u32::MAX).collect();
        };
        renumber(&mut self.all);
        renumber(&mut self.saved);
        self.buckets.iter_mut().for_each(renumber);
        self.labels.values_mut().flat_map(|seqs| seqs.iter_mut()).for_each(renumber);
    }

    /// A page of the issues `filter` (and `keep`, which must imply it) accepts, in list order:
    /// `limit` of them (all for `None`) after skipping `offset`, and how many there are in all.
    /// `ids` are the slots holding the filter's IDs, if it names some; `known` is the total if
    /// the counts tell it (then the walk stops once the page is full). Call [`Orders::ensure`]
    /// first.
    #[allow(clippy::too_many_arguments)]
    pub fn page<M: Metas + ?Sized>(
        &self,
        slots: &M,
        filter: &IssueFilter,
        ids: Option<Vec<u32>>,
        keep: impl Fn(&Record) -> bool,
        known: Option<usize>,
        offset: usize,
        limit: Option<usize>,
    ) -> (Vec<u32>, usize) {
        debug_assert!(self.ordered);
        let owned;
        let heads: Vec<&[u32]> = if let Some(mut ids) = ids {
            ids.sort_unstable_by(|&a, &b| slots.order(a, b));
            ids.dedup();
            owned = ids;
            vec![&owned[..]]
        } else if !filter.labels.is_empty() {
            let wanted: Vec<usize> = counts::buckets(filter).collect();
            filter
                .labels
                .iter()
                .filter_map(|l| self.labels.get(l.as_str()))
                .flat_map(|seqs| wanted.iter().map(move |&b| &seqs[b][..]))
                .collect()
        } else if !filter.status.is_empty() || !filter.types.is_empty() {
            counts::buckets(filter).map(|b| &self.buckets[b][..]).collect()
        } else {
            vec![&self.all[..]]
        };
        if let Some(known) = known
            && (limit == Some(0) || offset >= known)
        {
            return (Vec::new(), known);
        }
        let mut out = Vec::new();
        let mut total = 0;
        for s in Merge::new(slots, heads) {
            if !keep(meta(slots, s)) {
                continue;
            }
            if total >= offset && limit.is_none_or(|l| out.len() < l) {
                out.push(s);
            }
            total += 1;
            if let Some(known) = known
                && total >= offset
                && limit.is_some_and(|l| out.len() >= l)
            {
                return (out, known);
            }
        }
        debug_assert!(known.is_none_or(|k| k == total), "kept counts {known:?} but {total} issues match");
        (out, total)
    }
}

/// Sequences in list order merged into one, each slot once.
struct Merge<'a, M: Metas + ?Sized> {
    slots: &'a M,
    heads: Vec<&'a [u32]>,
    last: Option<u32>,
}

impl<'a, M: Metas + ?Sized> Merge<'a, M> {
    fn new(slots: &'a M, mut heads: Vec<&'a [u32]>) -> Self {
        heads.retain(|h| !h.is_empty());
        Merge { slots, heads, last: None }
    }
}

impl<M: Metas + ?Sized> Iterator for Merge<'_, M> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        loop {
            let (first, rest) = self.heads.split_first()?;
            let mut best = 0;
            let mut best_slot = first[0];
            for (i, h) in rest.iter().enumerate() {
                if self.slots.order(h[0], best_slot).is_lt() {
                    (best, best_slot) = (i + 1, h[0]);
                }
            }
            let head = &mut self.heads[best];
            *head = &head[1..];
            if head.is_empty() {
                self.heads.swap_remove(best);
            }
            // The same slot in two sequences (two labels) comes out of both in turn.
            if self.last.replace(best_slot) != Some(best_slot) {
                return Some(best_slot);
            }
        }
    }
}
