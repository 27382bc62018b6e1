//! How search ranks a hit (issue 25) beyond its BM25-like word points (which
//! [`super::search_index`] computes with each word's rarity): the boosts a title adds when it is
//! the query word for word, holds it as a phrase, or is short.

use super::search_index::{Query, words};

/// A title that is the query, word for word: above any other match but an ID.
pub const EXACT_TITLE: u32 = 1_000_000;
/// The query's words side by side in the title (the last one may be a prefix).
const TITLE_PHRASE: u32 = 1_500;
/// The part of the title the query covers, at most this (shorter titles first).
const TITLE_COVER: u32 = 1_000;

/// What `title` adds to a hit's score for `q`: [`EXACT_TITLE`] when it is the query word for
/// word, else a phrase boost when the query's words stand together in it, plus a share of
/// [`TITLE_COVER`] for the part of its words the query covers. Called for every hit whose title
/// holds every query word (thousands for a common word at 100k issues), so it allocates
/// nothing for an ASCII title.
pub fn title_boost(q: &Query, title: &str) -> u32 {
    let n = q.terms.len();
    // The title's words (the first 64; a longer title can neither be the query nor short).
    let mut spans = [(0usize, 0usize); 64];
    let mut count = 0;
    for span in words(title) {
        if count < spans.len() {
            spans[count] = span;
        }
        count += 1;
    }
    if n == 0 || count == 0 {
        return 0;
    }
    let word = |i: usize| &title[spans[i].0..spans[i].1];
    if count == n && (0..n).all(|i| same_word(word(i), &q.terms[i], false)) {
        return EXACT_TITLE;
    }
    let last = n - 1;
    let fits = |start: usize| (0..n).all(|i| same_word(word(start + i), &q.terms[i], i == last && !q.exact));
    let shown = count.min(spans.len());
    let mut boost = 0;
    if n >= 2 && n <= shown && (0..=shown - n).any(fits) {
        boost += TITLE_PHRASE;
    }
    boost + TITLE_COVER * n.min(count) as u32 / count as u32
}

/// Whether a word of a title (any case) is `term` (lower-case), or starts with it when `prefix`.
fn same_word(word: &str, term: &str, prefix: bool) -> bool {
    if word.is_ascii() {
        let (w, t) = (word.as_bytes(), term.as_bytes());
        return if prefix {
            w.len() >= t.len() && w[..t.len()].eq_ignore_ascii_case(t)
        } else {
            w.eq_ignore_ascii_case(t)
        };
    }
    let lower = word.to_lowercase();
    if prefix { lower.starts_with(term) } else { lower == term }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_boosts_rank_the_exact_title_then_phrases_then_short_titles() {
        let q = Query::parse("billing webhook");
        assert_eq!(title_boost(&q, "Billing WEBHOOK"), EXACT_TITLE);
        let phrase = title_boost(&q, "Retry the billing webhook");
        let apart = title_boost(&q, "Webhook for billing");
        assert!(phrase > apart + TITLE_PHRASE / 2, "{phrase} {apart}");
        assert!(title_boost(&q, "Billing webhook retries") > phrase, "shorter titles first");
        assert!(title_boost(&Query::parse("webh"), "Webhook") > title_boost(&Query::parse("webh"), "Webhook retries"));
        assert_eq!(title_boost(&Query::parse("émoji"), "Crash on ÉMOJI"), TITLE_COVER / 3);
    }
}
