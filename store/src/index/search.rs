//! A search as the store is asked it: the words and fields of a [`SearchQuery`] in the full-text
//! index's terms, the issues it names by ID (and what that adds to their score), and the excerpt
//! shown around a hit.

use std::sync::Arc;

use super::Index;
use super::filter::keep;
use super::graph::Graph;
use super::lookup::candidates;
use super::ranking::EXACT_TITLE;
use super::search_index::{BODY, ID, LABELS, Query, TITLE};
use crate::model::{IssueMeta, SearchField, SearchQuery};

/// What the issue a search query names by ID adds to its score: above every word match,
/// exact titles included ([`EXACT_TITLE`]).
pub const ID_MATCH: u32 = 100 * EXACT_TITLE;

/// The words of a search and the fields it searches.
pub fn parse_search(q: &SearchQuery) -> (Query, u8) {
    let mut allowed = 0;
    for f in &q.fields {
        allowed |= match f {
            SearchField::Title => ID | TITLE,
            SearchField::Labels => LABELS,
            SearchField::Description => BODY,
        };
    }
    (Query::parse(&q.text), allowed)
}

/// The issues a search query names by ID (`ISS-000042`, `42`, `#42`) that its filter accepts:
/// found first, whatever their words.
pub fn named_by_id(index: &Index, q: &SearchQuery, allowed: u8, graph: Option<&Graph>) -> Vec<Arc<IssueMeta>> {
    let id = q.text.trim().trim_start_matches('#');
    if allowed & ID == 0 {
        return Vec::new();
    }
    let Ok(paths) = candidates(index, id) else { return Vec::new() };
    paths.iter().filter_map(|p| index.meta_at(p)).filter(|m| keep(&q.filter, graph, &**m)).collect()
}

/// About 200 characters around byte offset `at`, on character boundaries, with ellipses.
pub fn excerpt_around(body: &str, at: usize, len: usize) -> String {
    let start = body[..at].char_indices().rev().nth(80).map_or(0, |(i, _)| i);
    let end = body[at..].char_indices().nth(len + 120).map_or(body.len(), |(i, _)| at + i);
    let mut s = body[start..end].trim().to_string();
    if start > 0 {
        s.insert(0, '…');
    }
    if end < body.len() {
        s.push('…');
    }
    s
}
