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
use crate::index::search_index::{Query, TITLE};
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
        if q.terms.len() == 1 && keep.is_none() && ids.is_empty() {
            return self.one_word_page(q, allowed, offset, limit);
        }
        let slots = &self.slots;
        let live = |d: u32| match slots.get(d as usize).and_then(Option::as_ref) {
            Some(x) => keep.is_none_or(|k| k(&x.rec)),
            None => false,
        };
        let mut ids: Vec<(u32, bool)> = ids.iter().filter_map(|p| self.slot_of(p)).map(|s| (s, false)).collect();
        let ranks = self.ranks.as_deref()?;
        let meta = |d: u32| &slots[d as usize].as_ref().expect("a live hit").rec;
        let mut best = Best::new(offset.saturating_add(limit));
        let mut offer = |e: Ranked| {
            best.offer(e);
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
        Some((self.page_of(best, offset), total))
    }

    /// The `offset`.. part of the best hits, as issues with their scores.
    fn page_of(&self, best: Best, offset: usize) -> Vec<(Arc<IssueMeta>, u32)> {
        let meta = |d: u32| &self.slots[d as usize].as_ref().expect("a live hit").rec;
        best.heap.into_sorted_vec().iter().skip(offset).map(|e| (self.full(meta(e.slot)), e.score)).collect()
    }

    /// [`Slots::search_page`] for one word and no filter, without offering every hit to the
    /// heap: a hit whose title lacks the word scores by where the word occurs alone (a handful
    /// of values), so each such class of hits can add only its first `offset + limit` in list
    /// order, found by walking that order, and only while it can still beat the page's worst.
    /// A word every issue holds then costs a count of its marks, not a heap of 100,000 hits.
    fn one_word_page(&mut self, q: &Query, allowed: u8, offset: usize, limit: usize) -> Option<RankedPage> {
        let ranks = self.ranks.as_deref()?;
        let docs = self.slots.len();
        let meta = |d: u32| &self.slots[d as usize].as_ref().expect("a live hit").rec;
        // Whole words (or a prefix) first; anywhere inside a word only if they find nothing.
        for infix in [false, true] {
            if infix && q.exact {
                break;
            }
            // A page after another of the same word (an agent paging, or asking again) reuses
            // the marks until the next change.
            let key = (q.terms.first()?.as_str(), q.exact, allowed, infix);
            if !self.last_word.as_ref().is_some_and(|w| w.is(key)) {
                let Some((marks, score)) = self.text.word_marks(q, allowed, docs, infix) else { continue };
                let counts = live_marks(&marks, ranks);
                let scores = std::array::from_fn(|m| score(m as u8));
                self.last_word =
                    Some(LastWord { key: (key.0.to_string(), key.1, key.2, key.3), marks, counts, scores });
            }
            let LastWord { marks, counts, scores, .. } = self.last_word.as_ref()?;
            let score = |m: u8| scores[m as usize];
            let total: usize = counts[1..].iter().sum();
            if total == 0 {
                continue;
            }
            let mut best = Best::new(offset.saturating_add(limit));
            // Hits whose titles hold the word, each with its title's boost (a pass only if any do).
            if (1..=255u8).any(|m| m & TITLE != 0 && counts[m as usize] > 0) {
                for (d, &m) in marks.iter().enumerate() {
                    if m & TITLE != 0 && ranks[d] != u32::MAX {
                        let boost = ranking::title_boost(q, meta(d as u32).title());
                        best.offer(Ranked { score: score(m) + boost, place: ranks[d], slot: d as u32 });
                    }
                }
            }
            // The other hits' scores, best first, with how many hold each.
            let mut classes: Vec<(u32, usize)> = Vec::new();
            for m in (1..=255u8).filter(|m| m & TITLE == 0 && counts[*m as usize] > 0) {
                match classes.iter_mut().find(|(s, _)| *s == score(m)) {
                    Some(class) => class.1 += counts[m as usize],
                    None => classes.push((score(m), counts[m as usize])),
                }
            }
            classes.sort_unstable_by_key(|&(score, _)| std::cmp::Reverse(score));
            for (class, count) in classes {
                if best.full() && best.worst().is_some_and(|w| w.score > class) {
                    break;
                }
                let member = |m: u8| m != 0 && m & TITLE == 0 && score(m) == class;
                if count.saturating_mul(8) >= docs {
                    // Common: its first members in list order come soon.
                    let mut taken = 0;
                    for (place, &d) in self.orders.all().iter().enumerate() {
                        if !member(marks[d as usize]) {
                            continue;
                        }
                        // Later members come later in list order: none can do better.
                        if !best.offer(Ranked { score: class, place: place as u32, slot: d }) {
                            break;
                        }
                        taken += 1;
                        if taken == best.needed {
                            break;
                        }
                    }
                } else {
                    for (d, &m) in marks.iter().enumerate() {
                        if member(m) && ranks[d] != u32::MAX {
                            best.offer(Ranked { score: class, place: ranks[d], slot: d as u32 });
                        }
                    }
                }
            }
            return Some((self.page_of(best, offset), total));
        }
        Some((Vec::new(), 0))
    }
}

/// A one-word search's marks (see `SearchIndex::word_marks`), how many live documents hold each,
/// and what each scores, for the word, exactness, fields and fallback in `key`.
pub struct LastWord {
    key: (String, bool, u8, bool),
    marks: Vec<u8>,
    counts: [usize; 256],
    scores: [u32; 256],
}

impl LastWord {
    fn is(&self, (word, exact, allowed, infix): (&str, bool, u8, bool)) -> bool {
        self.key.0 == word && self.key.1 == exact && self.key.2 == allowed && self.key.3 == infix
    }
}

/// How many live documents hold each mark (`counts[0]`: none of the words, or dead). Every live
/// slot has a place in list order, so the ranks say which documents are live. Four tallies
/// taken in turn: a word in every issue gives the same mark 100,000 times, and one tally would
/// wait on its own last increment each time.
fn live_marks(marks: &[u8], ranks: &[u32]) -> [usize; 256] {
    let mut tallies = [[0u32; 256]; 4];
    let mark = |m: u8, rank: u32| if rank == u32::MAX { 0 } else { m as usize };
    let (m4, r4) = (marks.chunks_exact(4), ranks.chunks_exact(4));
    let (m_rest, r_rest) = (m4.remainder(), r4.remainder());
    for (m, r) in m4.zip(r4) {
        tallies[0][mark(m[0], r[0])] += 1;
        tallies[1][mark(m[1], r[1])] += 1;
        tallies[2][mark(m[2], r[2])] += 1;
        tallies[3][mark(m[3], r[3])] += 1;
    }
    for (&m, &r) in m_rest.iter().zip(r_rest) {
        tallies[0][mark(m, r)] += 1;
    }
    std::array::from_fn(|m| tallies.iter().map(|t| t[m] as usize).sum())
}

/// The best `needed` hits offered so far, the worst on top.
struct Best {
    heap: BinaryHeap<Ranked>,
    needed: usize,
}

impl Best {
    fn new(needed: usize) -> Best {
        Best { heap: BinaryHeap::with_capacity(needed.min(1024) + 1), needed }
    }

    fn full(&self) -> bool {
        self.heap.len() >= self.needed
    }

    fn worst(&self) -> Option<&Ranked> {
        self.heap.peek()
    }

    /// Keeps `e` if it is among the best `needed`; false if it is not.
    fn offer(&mut self, e: Ranked) -> bool {
        if self.needed == 0 {
            return false;
        }
        if self.heap.len() < self.needed {
            self.heap.push(e);
        } else if self.heap.peek().is_some_and(|worst| e < *worst) {
            self.heap.pop();
            self.heap.push(e);
        } else {
            return false;
        }
        true
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
