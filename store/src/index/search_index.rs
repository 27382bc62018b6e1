//! The full-text index: every word of every issue's title, labels and body, mapped to the
//! issues that hold it (IDs are looked up in the index's ID tables instead). Kept in step by the index on every write and every outside edit.
//!
//! Documents are the index's slot numbers. A slot is never reused until [`SearchIndex::compact`]
//! renumbers them, so posting lists only ever grow at their end: each is a byte string of
//! varints `(gap << 4) | fields`, where `gap` is the distance from the previous document (+1
//! for the first) and `fields` says where in the document the word occurs. A changed issue gets
//! a new slot; its old postings stay until compaction and are skipped because the slot is dead.

use std::hash::BuildHasher;
use std::io::{self, Read, Write};

use hashbrown::HashTable;

use super::snapshot::{Decoder, Encoder};
use crate::model::IssueMeta;

/// Where a word occurs: the bits of a posting.
pub const ID: u8 = 1;
pub const TITLE: u8 = 2;
pub const LABELS: u8 = 4;
pub const BODY: u8 = 8;
const FIELDS: u8 = 0b1111;

/// Points a field earns for one query word, before its rarity (IDF) scales them: title words
/// weigh most, then labels, then the body. An exact word earns a field's points twice, a prefix
/// or infix match once. IDs are not words: [`crate::Store::search`] ranks them above all.
fn points(fields: u8) -> u32 {
    let mut w = 0;
    if fields & TITLE != 0 {
        w += 10;
    }
    if fields & LABELS != 0 {
        w += 4;
    }
    if fields & BODY != 0 {
        w += 1;
    }
    w
}

/// The score of one search hit, before the title boosts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub doc: u32,
    pub score: u32,
    /// Every query word occurs in the title (so [`super::ranking::title_boost`] can add something).
    pub in_title: bool,
}

/// Words are cut to this many characters (long hashes and blobs would only bloat the index).
const MAX_TERM_CHARS: usize = 32;
/// New words are kept unsorted until there are this many (or an eighth of the sorted ones);
/// prefix lookups scan them.
const UNSORTED_LIMIT: usize = 1024;

struct Term {
    text: Box<str>,
    postings: Vec<u8>,
    /// The last document in `postings`, plus one (0: none).
    last: u32,
    count: u32,
}

#[derive(Default)]
pub struct SearchIndex {
    terms: Vec<Term>,
    /// Term numbers by text.
    lookup: HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
    /// Term numbers in text order, for prefix lookups...
    sorted: Vec<u32>,
    /// ...except these new ones.
    unsorted: Vec<u32>,
}

/// The words of one issue, lower-cased, each once with every field it occurs in.
pub struct DocText {
    text: String,
    spans: Vec<(u32, u32, u8)>,
}

impl DocText {
    pub fn new(meta: &IssueMeta, body: &str) -> DocText {
        let mut text = String::with_capacity(meta.title.len() + body.len() + 16);
        let mut fields: Vec<(usize, u8)> = Vec::with_capacity(meta.labels.len() + 2);
        let mut add = |s: &str, field: u8| {
            let start = text.len();
            fields.push((start, field));
            if s.is_ascii() {
                text.push_str(s);
                text[start..].make_ascii_lowercase();
            } else {
                text.push_str(&s.to_lowercase());
            }
            text.push('\n');
        };
        // IDs are not words here: the index's ID tables find them (see `Store::search`).
        add(&meta.title, TITLE);
        for label in &meta.labels {
            add(label, LABELS);
        }
        add(body, BODY);
        // Each word once, with every field it occurs in.
        let mut seen: hashbrown::HashMap<&str, u8> = hashbrown::HashMap::with_capacity(256);
        for (k, &(start, field)) in fields.iter().enumerate() {
            let end = fields.get(k + 1).map_or(text.len(), |f| f.0);
            let part = &text[start..end];
            for (a, b) in words(part) {
                *seen.entry(&part[a..b]).or_default() |= field;
            }
        }
        let base = text.as_ptr() as usize;
        let spans = seen
            .into_iter()
            .map(|(w, f)| {
                let a = (w.as_ptr() as usize - base) as u32;
                (a, a + w.len() as u32, f)
            })
            .collect();
        DocText { text, spans }
    }

    fn terms(&self) -> impl Iterator<Item = (&str, u8)> {
        self.spans.iter().map(|&(a, b, f)| (&self.text[a as usize..b as usize], f))
    }
}

/// Byte ranges of the words of `s`: runs of letters and digits, cut to [`MAX_TERM_CHARS`].
pub(super) fn words(s: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = s.as_bytes();
    let mut at = 0;
    // The character at byte `i` and its length, if it is a letter or digit.
    let word_char = move |i: usize| -> Option<usize> {
        let b = bytes[i];
        if b.is_ascii() {
            return b.is_ascii_alphanumeric().then_some(1);
        }
        let c = s[i..].chars().next()?;
        c.is_alphanumeric().then(|| c.len_utf8())
    };
    let step = move |i: usize| if bytes[i].is_ascii() { 1 } else { s[i..].chars().next().map_or(1, char::len_utf8) };
    std::iter::from_fn(move || {
        while at < bytes.len() && word_char(at).is_none() {
            at += step(at);
        }
        if at >= bytes.len() {
            return None;
        }
        let start = at;
        let mut end = at;
        let mut kept = 0;
        while at < bytes.len() {
            let Some(len) = word_char(at) else { break };
            at += len;
            kept += 1;
            if kept <= MAX_TERM_CHARS {
                end = at;
            }
        }
        Some((start, end))
    })
}

/// A query: lower-cased words, every one required; the last also matches as a prefix.
pub struct Query {
    pub(super) terms: Vec<String>,
    pub(super) exact: bool,
}

impl Query {
    pub fn parse(text: &str) -> Query {
        let lower = text.to_lowercase();
        Query { terms: words(&lower).map(|(a, b)| lower[a..b].to_string()).collect(), exact: false }
    }

    /// Every word required whole (no prefix), for finding a known title.
    pub fn exact(text: &str) -> Query {
        let mut q = Query::parse(text);
        q.exact = true;
        q
    }

    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Whether `word` (lower-case) matches one of the query's words; for excerpts.
    pub fn matches_word(&self, word: &str) -> bool {
        let last = self.terms.len().saturating_sub(1);
        self.terms.iter().enumerate().any(|(i, t)| word == t || (i == last && word.starts_with(t.as_str())))
    }
}

/// Byte offset and length of the first word of `text` that `q` matches (case-insensitive).
pub fn first_match(text: &str, q: &Query) -> Option<(usize, usize)> {
    words(text)
        .find(|&(a, b)| {
            let word = text[a..b].to_lowercase();
            q.matches_word(&word)
        })
        .map(|(a, b)| (a, b - a))
}

/// How a query word is looked up.
#[derive(Clone, Copy, PartialEq)]
enum Match {
    Exact,
    Prefix,
    Infix,
}

impl SearchIndex {
    fn hash(&self, text: &str) -> u64 {
        self.hasher.hash_one(text)
    }

    fn find(&self, text: &str) -> Option<u32> {
        let terms = &self.terms;
        self.lookup.find(self.hash(text), |&t| &*terms[t as usize].text == text).copied()
    }

    /// Adds document `doc`, which must be above every document added so far.
    pub fn add(&mut self, doc: u32, words: &DocText) {
        for (text, fields) in words.terms() {
            let t = match self.find(text) {
                Some(t) => t,
                None => self.new_term(text.into()),
            };
            self.terms[t as usize].push(doc, fields);
        }
        if self.unsorted.len() > UNSORTED_LIMIT.max(self.sorted.len() / 8) {
            self.sort_new_terms();
        }
    }

    fn new_term(&mut self, text: Box<str>) -> u32 {
        let t = self.terms.len() as u32;
        let hash = self.hash(&text);
        self.terms.push(Term { text, postings: Vec::new(), last: 0, count: 0 });
        let (terms, hasher) = (&self.terms, &self.hasher);
        self.lookup.insert_unique(hash, t, |&t| hasher.hash_one(&*terms[t as usize].text));
        self.unsorted.push(t);
        t
    }

    /// Merges the new terms into the sorted order.
    fn sort_new_terms(&mut self) {
        let terms = &self.terms;
        let mut new = std::mem::take(&mut self.unsorted);
        new.sort_unstable_by(|a, b| terms[*a as usize].text.cmp(&terms[*b as usize].text));
        let old = std::mem::take(&mut self.sorted);
        let text = |t: u32| &terms[t as usize].text;
        self.sorted = super::merge(&old, &new, |a, b| text(a) <= text(b));
    }

    /// Puts the terms in the order `order` (term numbers), so term number = sorted position.
    fn renumber(&mut self, order: Vec<u32>) {
        let mut old: Vec<Option<Term>> = std::mem::take(&mut self.terms).into_iter().map(Some).collect();
        self.terms = order.iter().filter_map(|&t| old[t as usize].take()).collect();
        self.sorted = (0..self.terms.len() as u32).collect();
        self.unsorted.clear();
        self.lookup.clear();
        let (terms, hasher) = (&self.terms, &self.hasher);
        for t in 0..terms.len() as u32 {
            let hash = hasher.hash_one(&*terms[t as usize].text);
            self.lookup.insert_unique(hash, t, |&t| hasher.hash_one(&*terms[t as usize].text));
        }
    }

    /// The terms `word` stands for, with how each matched.
    fn expand(&self, word: &str, how: Match) -> Vec<(u32, Match)> {
        let mut out = Vec::new();
        match how {
            Match::Exact => out.extend(self.find(word).map(|t| (t, Match::Exact))),
            Match::Prefix => {
                let from = self.sorted.partition_point(|&t| &*self.terms[t as usize].text < word);
                let sorted = self.sorted[from..].iter().take_while(|&&t| self.terms[t as usize].text.starts_with(word));
                let new = self.unsorted.iter().copied().filter(|&t| self.terms[t as usize].text.starts_with(word));
                for t in sorted.copied().chain(new) {
                    let exact = &*self.terms[t as usize].text == word;
                    out.push((t, if exact { Match::Exact } else { Match::Prefix }));
                }
            }
            Match::Infix => {
                for (t, term) in self.terms.iter().enumerate() {
                    if term.text.contains(word) {
                        let exact = &*term.text == word;
                        out.push((t as u32, if exact { Match::Exact } else { Match::Infix }));
                    }
                }
            }
        }
        out
    }

    /// Every live document holding all the query's words in the `allowed` fields, with its
    /// score. Words are matched whole, the last one also as a prefix; when that finds nothing,
    /// every word is matched anywhere inside the indexed words (`hook` finds `webhook`).
    pub fn search(&self, q: &Query, allowed: u8, docs: usize, live: impl Fn(u32) -> bool) -> Vec<Hit> {
        if q.terms.is_empty() {
            return Vec::new();
        }
        let last = q.terms.len() - 1;
        let prefix_at = if q.exact { usize::MAX } else { last };
        let hits = self.run(q, allowed, docs, &live, |i| if i == prefix_at { Match::Prefix } else { Match::Exact });
        if !hits.is_empty() || q.exact {
            return hits;
        }
        self.run(q, allowed, docs, &live, |_| Match::Infix)
    }

    /// [`SearchIndex::search`]'s hits in document order, handed to `emit` one at a time; a
    /// query of one word builds no list of them (a common word hits most of the workspace).
    /// Returns how many there were.
    pub fn search_each(
        &self,
        q: &Query,
        allowed: u8,
        docs: usize,
        live: impl Fn(u32) -> bool,
        mut emit: impl FnMut(Hit),
    ) -> usize {
        if q.terms.len() != 1 {
            let hits = self.search(q, allowed, docs, live);
            let n = hits.len();
            hits.into_iter().for_each(emit);
            return n;
        }
        let mut each = |how: Match| {
            let Some((marks, score)) = self.word_marks(q, allowed, docs, how == Match::Infix) else {
                return 0;
            };
            let mut n = 0;
            for (doc, &m) in marks.iter().enumerate() {
                if m != 0 && live(doc as u32) {
                    emit(Hit { doc: doc as u32, score: score(m), in_title: m & TITLE != 0 });
                    n += 1;
                }
            }
            n
        };
        let n = each(if q.exact { Match::Exact } else { Match::Prefix });
        if n > 0 || q.exact {
            return n;
        }
        each(Match::Infix)
    }

    /// For a query of one word: per document, where its terms occur (see [`SearchIndex::marks`];
    /// 0: nowhere), and what each mark scores (a title's boosts aside). The word is matched
    /// whole, or as a prefix unless the query is exact, or anywhere inside a word with `infix`
    /// (which [`SearchIndex::search`] falls back to when the others find nothing). `None` when
    /// no indexed word matches.
    pub fn word_marks(
        &self,
        q: &Query,
        allowed: u8,
        docs: usize,
        infix: bool,
    ) -> Option<(Vec<u8>, impl Fn(u8) -> u32 + use<>)> {
        let how = match (infix, q.exact) {
            (true, _) => Match::Infix,
            (false, true) => Match::Exact,
            (false, false) => Match::Prefix,
        };
        let terms = self.expand(q.terms.first()?, how);
        if terms.is_empty() {
            return None;
        }
        Some((self.marks(&terms, allowed, docs), self.scorer(&terms, docs)))
    }

    /// Per document, where the terms occur: low four bits the fields, high four where a term
    /// occurs exactly.
    fn marks(&self, terms: &[(u32, Match)], allowed: u8, docs: usize) -> Vec<u8> {
        let mut marks = vec![0u8; docs];
        for &(t, m) in terms {
            let exact = if m == Match::Exact { 4 } else { 0 };
            each_posting(&self.terms[t as usize].postings, |doc, fields| {
                if let Some(mark) = marks.get_mut(doc as usize) {
                    let f = fields & allowed;
                    *mark |= f | (f << exact);
                }
            });
        }
        marks
    }

    /// The score of a document's mark for one query word that stands for `terms`.
    fn scorer(&self, terms: &[(u32, Match)], docs: usize) -> impl Fn(u8) -> u32 + use<> {
        // BM25's inverse document frequency: a rare word says more than a common one.
        let df = terms.iter().map(|(t, _)| self.terms[*t as usize].count as usize).sum::<usize>().min(docs) as f64;
        let idf = (1.0 + (docs as f64 - df + 0.5) / (df + 0.5)).ln();
        let scale = (idf * 10.0).max(1.0) as u32;
        move |mark: u8| scale * (points(mark & FIELDS) + points(mark >> 4))
    }

    fn run(
        &self,
        q: &Query,
        allowed: u8,
        docs: usize,
        live: &impl Fn(u32) -> bool,
        how: impl Fn(usize) -> Match,
    ) -> Vec<Hit> {
        let mut expanded: Vec<Vec<(u32, Match)>> =
            q.terms.iter().enumerate().map(|(i, w)| self.expand(w, how(i))).collect();
        // Rarest first: the first word decides the candidates, the others only remove some.
        expanded.sort_by_key(|e| e.iter().map(|(t, _)| self.terms[*t as usize].count as usize).sum::<usize>());
        let mut candidates: Vec<Hit> = Vec::new();
        for (i, terms) in expanded.iter().enumerate() {
            if terms.is_empty() {
                return Vec::new();
            }
            let marks = self.marks(terms, allowed, docs);
            let score = self.scorer(terms, docs);
            if i == 0 {
                candidates = marks
                    .iter()
                    .enumerate()
                    .filter(|&(doc, &m)| m != 0 && live(doc as u32))
                    .map(|(doc, &m)| Hit { doc: doc as u32, score: score(m), in_title: m & TITLE != 0 })
                    .collect();
            } else {
                candidates.retain_mut(|h| {
                    let m = marks[h.doc as usize];
                    h.score += score(m);
                    h.in_title &= m & TITLE != 0;
                    m != 0
                });
            }
            if candidates.is_empty() {
                break;
            }
        }
        candidates
    }

    /// Drops dead documents and renumbers the rest: `remap[old]` is the new number, or
    /// `u32::MAX` for a dead one. The new numbers must keep the old order.
    pub fn compact(&mut self, remap: &[u32]) {
        for term in &mut self.terms {
            let old = std::mem::take(&mut term.postings);
            let mut fresh = Term { text: Box::from(""), postings: Vec::new(), last: 0, count: 0 };
            each_posting(&old, |doc, fields| match remap.get(doc as usize) {
                Some(&new) if new != u32::MAX => fresh.push(new, fields),
                _ => {}
            });
            fresh.postings.shrink_to_fit();
            (term.postings, term.last, term.count) = (fresh.postings, fresh.last, fresh.count);
        }
        let keep: Vec<u32> = self.sorted_all().into_iter().filter(|&t| self.terms[t as usize].count > 0).collect();
        self.renumber(keep);
    }

    /// Every term number in text order.
    fn sorted_all(&mut self) -> Vec<u32> {
        if !self.unsorted.is_empty() {
            self.sort_new_terms();
        }
        self.sorted.clone()
    }

    /// Gives back the room posting lists grew into (after many documents were added at once).
    pub fn shrink(&mut self) {
        for t in &mut self.terms {
            t.postings.shrink_to_fit();
        }
    }

    /// Writes the terms in text order with their postings.
    pub fn encode<W: Write>(&mut self, out: &mut Encoder<W>) -> io::Result<()> {
        let order = self.sorted_all();
        out.varint(order.len() as u64)?;
        for t in order {
            let term = &self.terms[t as usize];
            out.str(&term.text)?;
            out.varint(term.last as u64)?;
            out.varint(term.count as u64)?;
            out.bytes(&term.postings)?;
        }
        Ok(())
    }

    /// Reads what [`encode`](Self::encode) wrote, for documents below `docs`.
    pub fn decode<R: Read>(input: &mut Decoder<R>, docs: u32) -> io::Result<SearchIndex> {
        let mut index = SearchIndex::default();
        let n = input.len()?;
        let mut previous: Option<Box<str>> = None;
        for _ in 0..n {
            let text: Box<str> = input.string()?.into();
            let last = input.varint()? as u32;
            let count = input.varint()? as u32;
            let postings = input.byte_vec()?;
            if last > docs || previous.as_ref().is_some_and(|p| *p >= text) {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "search index out of order"));
            }
            previous = Some(text.clone());
            index.terms.push(Term { text, postings, last, count });
        }
        let order = (0..index.terms.len() as u32).collect();
        index.renumber(order);
        Ok(index)
    }
}

impl Term {
    fn push(&mut self, doc: u32, fields: u8) {
        debug_assert!(doc + 1 > self.last, "postings are appended in document order");
        let gap = (doc + 1 - self.last) as u64;
        let mut v = (gap << 4) | (fields & FIELDS) as u64;
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                self.postings.push(byte);
                break;
            }
            self.postings.push(byte | 0x80);
        }
        self.last = doc + 1;
        self.count += 1;
    }
}

/// Hands `f` the (document, fields) of each posting of an encoded list. A one-byte posting (a
/// gap under 8, as most of a common word's are) skips the varint loop: the hot path of a search
/// of a common word.
fn each_posting(bytes: &[u8], mut f: impl FnMut(u32, u8)) {
    let mut at = 0;
    let mut doc_plus_one: u64 = 0;
    while let Some(&byte) = bytes.get(at) {
        at += 1;
        let mut v = (byte & 0x7f) as u64;
        let mut shift = 7;
        let mut more = byte & 0x80 != 0;
        while more && shift <= 63 {
            let Some(&byte) = bytes.get(at) else { return };
            at += 1;
            v |= ((byte & 0x7f) as u64) << shift;
            shift += 7;
            more = byte & 0x80 != 0;
        }
        doc_plus_one += v >> 4;
        f((doc_plus_one.max(1) - 1) as u32, (v & FIELDS as u64) as u8);
    }
}

#[cfg(test)]
mod tests;
