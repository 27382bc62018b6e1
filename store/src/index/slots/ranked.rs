//! A page of search hits in relevance order without building every hit: the hits are scored
//! from the full-text index alone (a title is read only when it holds every query word), ties
//! are broken by each slot's place in the kept list order, and only the `offset + limit` best
//! are kept (a bounded heap, fed one hit at a time) and sorted. What
//! [`crate::Store::search`] and the handler's sort give, page for page, at a fraction of
//! the cost when a common word hits most of the workspace.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;

use super::Slots;
use crate::index::ranking;
use crate::index::record::{Fields, Record};
use crate::index::search_index::Query;
use crate::model::IssueMeta;

/// One page of ranked hits (issue and score), and how many hits there are in all.
pub type RankedPage = (Vec<(Arc<IssueMeta>, u32)>, usize);

impl Slots {
    /// Every slot's place in list order, rebuilt after a change (`None` while some file has
    /// no frontmatter: list order puts those last, relevance ties do not).
    fn ranks(&mut self) -> Option<&[u32]> {
        if self.tally.plain_files() > 0 {
            return None;
        }
        if self.ranks.is_none() {
            self.orders.ensure(&super::live(&self.slots, &self.folders));
            let mut ranks = vec![u32::MAX; self.slots.len()];
            for (place, &s) in self.orders.all().iter().enumerate() {
                ranks[s as usize] = place as u32;
            }
            self.ranks = Some(ranks);
        }
        self.ranks.as_deref()
    }

    /// The hits of `q` (as [`Slots::search`] scores them, title boosts included) plus `ids`
    /// (slots the query names by ID, which add `id_points`), best first: highest score, then
    /// newest update, then ID, then path. `limit` of them after the first `offset`, and how many
    /// in all; `None` when the ranks cannot break ties like that (the caller sorts every hit).
    #[allow(clippy::too_many_arguments)]
    pub fn search_page(
        &mut self,
        q: &Query,
        allowed: u8,
        keep: Option<&dyn Fn(&Record) -> bool>,
        ids: &[std::path::PathBuf],
        id_points: u32,
        offset: usize,
        limit: usize,
    ) -> Option<RankedPage> {
        self.ranks()?;
        let slots = &self.slots;
        let live = |d: u32| match slots.get(d as usize).and_then(Option::as_ref) {
            Some(x) => keep.is_none_or(|k| k(&x.rec)),
            None => false,
        };
        let mut ids: Vec<(u32, bool)> = ids.iter().filter_map(|p| self.slot_of(p)).map(|s| (s, false)).collect();
        let ranks = self.ranks.as_deref()?;
        let meta = |d: u32| &slots[d as usize].as_ref().expect("a live hit").rec;
        let needed = offset.saturating_add(limit);
        // The best `needed` so far as (score, place in list order, slot), the worst on top.
        let mut best: BinaryHeap<Ranked> = BinaryHeap::with_capacity(needed.min(1024) + 1);
        let mut offer = |e: Ranked| {
            if needed == 0 {
                return;
            }
            if best.len() < needed {
                best.push(e);
            } else if best.peek().is_some_and(|worst| e < *worst) {
                best.pop();
                best.push(e);
            }
        };
        let hits = self.text.search_each(q, allowed, slots.len(), live, |h| {
            // Only titles holding every word can be the query or hold it as a phrase.
            let boost = if h.in_title { ranking::title_boost(q, meta(h.doc).title()) } else { 0 };
            let mut score = h.score + boost;
            if let Some(named) = ids.iter_mut().find(|(s, _)| *s == h.doc) {
                named.1 = true;
                score += id_points;
            }
            offer(Ranked { score, place: ranks[h.doc as usize], slot: h.doc });
        });
        // Issues named by ID that hold none of the words.
        let mut total = hits;
        for &(slot, _) in ids.iter().filter(|(_, seen)| !seen) {
            offer(Ranked { score: id_points, place: ranks[slot as usize], slot });
            total += 1;
        }
        let sorted = best.into_sorted_vec();
        let page = sorted.iter().skip(offset).map(|e| (self.full(meta(e.slot)), e.score));
        Some((page.collect(), total))
    }
}

/// A hit as ranked: higher score first, then earlier in list order. Ordered so that the better
/// hit is the smaller one (a max-heap keeps the worst on top).
#[derive(PartialEq, Eq)]
struct Ranked {
    score: u32,
    place: u32,
    slot: u32,
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> Ordering {
        other.score.cmp(&self.score).then(self.place.cmp(&other.place))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
