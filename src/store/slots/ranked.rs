//! A page of search hits in relevance order without building every hit: the hits are scored
//! from the full-text index alone (a title is read only when it holds every query word), ties
//! are broken by each slot's place in the kept list order, and only the `offset + limit` best
//! are selected and sorted. What [`super::super::Store::search`] and the handler's sort give,
//! page for page, at a fraction of the cost when a common word hits most of the workspace.

use std::sync::Arc;

use super::Slots;
use crate::store::model::IssueMeta;
use crate::store::ranking;
use crate::store::search_index::Query;

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
            self.orders.ensure(&self.slots[..]);
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
        keep: Option<&dyn Fn(&IssueMeta) -> bool>,
        ids: &[std::path::PathBuf],
        id_points: u32,
        offset: usize,
        limit: usize,
    ) -> Option<RankedPage> {
        self.ranks()?;
        let slots = &self.slots;
        let live = |d: u32| match slots.get(d as usize).and_then(Option::as_ref) {
            Some(x) => keep.is_none_or(|k| k(&x.meta)),
            None => false,
        };
        let hits = self.text.search(q, allowed, slots.len(), live);
        let ids: Vec<u32> = ids.iter().filter_map(|p| self.slot_of(p)).collect();
        let ranks = self.ranks.as_deref()?;
        let meta = |d: u32| &slots[d as usize].as_ref().expect("a live hit").meta;
        // (score, place in list order, slot); hits come in slot order.
        let mut scored: Vec<(u32, u32, u32)> = hits
            .iter()
            .map(|h| {
                let boost = if h.in_title { ranking::title_boost(q, &meta(h.doc).title) } else { 0 };
                (h.score + boost, ranks[h.doc as usize], h.doc)
            })
            .collect();
        let words = scored.len();
        for &slot in &ids {
            let found = match scored[..words].binary_search_by_key(&slot, |e| e.2) {
                Ok(i) => Some(i),
                Err(_) => scored[words..].iter().position(|e| e.2 == slot).map(|i| words + i),
            };
            match found {
                Some(i) => scored[i].0 += id_points,
                None => scored.push((id_points, ranks[slot as usize], slot)),
            }
        }
        let total = scored.len();
        let needed = offset.saturating_add(limit).min(total);
        let best_first = |a: &(u32, u32, u32), b: &(u32, u32, u32)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
        if needed > 0 && needed < total {
            scored.select_nth_unstable_by(needed - 1, best_first);
            scored.truncate(needed);
        }
        scored.sort_unstable_by(best_first);
        let page = scored[offset.min(needed)..needed].iter().map(|&(score, _, s)| (Arc::clone(meta(s)), score));
        Some((page.collect(), total))
    }
}
