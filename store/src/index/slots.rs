//! What the index knows, held compactly: one slot per issue file with its packed record
//! ([`Record`]) and stamp, lookups by path, by ID and by the ID's number (tables of slot numbers,
//! so no path or ID is stored twice), the list order, and the full-text index over the same slot
//! numbers. A path is kept as its folder's number and the file name.
//!
//! A file that changes gets a new slot and its old one dies; dead slots are dropped and the rest
//! renumbered (order kept) once they are a quarter of the whole, so every change costs time in
//! proportion to the change, not to the workspace.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::hash::BuildHasher;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use hashbrown::HashTable;

mod ranked;
mod text;

pub use ranked::RankedPage;
pub use text::{BuiltText, TextPass};

use super::counts::Tally;
use super::facts::{self, Counts, FactFilter, Facts, GroupBy, Names};
use super::orders::{Metas, Orders, list_order};
use super::ranking;
use super::record::{Fields, Record};
use super::search_index::{DocText, Query, SearchIndex};
use super::snapshot::{Decoder, Encoder};
use crate::files::listing::FileStamp;
use crate::model::{IssueFilter, IssueMeta, IssueType};

pub struct Slot {
    pub rec: Record,
    pub stamp: Option<FileStamp>,
}

/// The live slots with the folders their records name, as the orders see them.
struct Live<'a> {
    slots: &'a [Option<Slot>],
    folders: &'a [PathBuf],
}

impl Metas for Live<'_> {
    fn meta(&self, slot: u32) -> &Record {
        &self.slots[slot as usize].as_ref().expect("orders hold live slots").rec
    }

    fn live(&self) -> Vec<u32> {
        (0..self.slots.len() as u32).filter(|&s| self.slots[s as usize].is_some()).collect()
    }

    fn order(&self, a: u32, b: u32) -> Ordering {
        let (ra, rb) = (self.meta(a), self.meta(b));
        list_order(ra, rb, || {
            let path = |r: &Record| self.folders[r.folder() as usize].join(r.name());
            path(ra).cmp(&path(rb))
        })
    }
}

fn live<'a>(slots: &'a [Option<Slot>], folders: &'a [PathBuf]) -> Live<'a> {
    Live { slots, folders }
}

#[derive(Default)]
pub struct Slots {
    slots: Vec<Option<Slot>>,
    live: usize,
    /// The folders records name by number.
    folders: Vec<PathBuf>,
    hasher: hashbrown::DefaultHashBuilder,
    by_path: HashTable<u32>,
    /// Keyed by the upper-cased ID; an ID may be held by several files.
    by_id: HashTable<u32>,
    /// Keyed by the ID from its first digit on (`000042` of `ISS-000042`), for short forms.
    by_digits: HashTable<u32>,
    /// Keyed by the upper-cased id an imported issue had in its old tracker
    /// ([`Record::imported`]): `BACK-12`, `bd-a1b2` still name the issue they became.
    by_alias: HashTable<u32>,
    /// Upper-cased IDs held by more than one file.
    duplicates: BTreeSet<String>,
    /// Live slots in list order, overall, per (type, status) and per label.
    orders: Orders,
    /// Issues per status, priority, label, project and assignee.
    tally: Tally,
    /// Each slot's place in list order, for ranking search hits; dropped on every change.
    ranks: Option<Vec<u32>>,
    /// The last one-word search's marks, dropped with the ranks (see [`ranked`]).
    last_word: Option<ranked::LastWord>,
    text: SearchIndex,
    /// Set while the full-text index waits for a pass over the files (see [`text`]).
    pending_text: Option<text::PendingText>,
    /// Interned status, priority, type, assignee and project of each slot (dead ones included).
    facts: Vec<Facts>,
    names: Names,
}

/// Files are looked up by name (hashed) and folder (compared).
fn name_hash(hasher: &hashbrown::DefaultHashBuilder, name: &[u8]) -> u64 {
    hasher.hash_one(name)
}

pub fn digits_of(id: &str) -> &str {
    &id[id.find(|c: char| c.is_ascii_digit()).unwrap_or(id.len())..]
}

/// The ID as compared: upper-cased (without a copy when it already is).
/// The key the alias table files an imported issue under: a Backlog.md task by its number alone
/// (`#100` for `BACK-100`), since `task-100` names it too; every other old id in capitals.
fn alias_key(rec: &Record) -> Option<String> {
    let (source, old) = rec.imported()?;
    Some(match backlog_number(&old) {
        Some((prefix, n)) if source == "backlog" && !prefix.eq_ignore_ascii_case("draft") => format!("#{n}"),
        _ => upper(&old).into_owned(),
    })
}

/// `(PREFIX, NUMBER)` of a Backlog.md id `PREFIX-NUMBER[.NUMBER...]` (`BACK-2.1`).
fn backlog_number(id: &str) -> Option<(&str, &str)> {
    let (prefix, number) = id.trim().split_once('-')?;
    let letters = !prefix.is_empty() && prefix.bytes().all(|b| b.is_ascii_alphabetic());
    let numeric = number.split('.').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    (letters && numeric).then_some((prefix, number))
}

/// Whether `asked` (in capitals) names the issue imported from `source` as `was`: the same id in
/// any case, or for a Backlog.md task the same number after `task-`, the prefix Backlog.md gave
/// every task before its prefix became configurable.
fn names_alias(source: &str, was: &str, asked: &str) -> bool {
    if *upper(was) == *asked {
        return true;
    }
    match (source, backlog_number(was), backlog_number(asked)) {
        ("backlog", Some((p, n)), Some((q, m))) => {
            !p.eq_ignore_ascii_case("draft") && q.eq_ignore_ascii_case("task") && n == m
        }
        _ => false,
    }
}

fn upper(id: &str) -> Cow<'_, str> {
    if id.bytes().any(|b| !b.is_ascii() || b.is_ascii_lowercase()) {
        Cow::Owned(id.to_uppercase())
    } else {
        Cow::Borrowed(id)
    }
}

impl Slots {
    fn rec(&self, slot: u32) -> Option<&Record> {
        self.slots.get(slot as usize)?.as_ref().map(|s| &s.rec)
    }

    fn id_hash(&self, id: &str) -> u64 {
        self.hasher.hash_one(&*upper(id))
    }

    /// The number of folder `dir`, if some record names it.
    fn folder_number(&self, dir: &Path) -> Option<u8> {
        self.folders.iter().position(|f| f == dir).map(|i| i as u8)
    }

    /// The number of folder `dir`, adding it if new.
    fn intern_folder(&mut self, dir: &Path) -> u8 {
        match self.folder_number(dir) {
            Some(n) => n,
            None => {
                assert!(self.folders.len() < usize::from(u8::MAX), "an index holds a few issue folders");
                self.folders.push(dir.to_path_buf());
                (self.folders.len() - 1) as u8
            }
        }
    }

    fn slot_of(&self, path: &Path) -> Option<u32> {
        self.slot_in(path.parent()?, path.file_name()?)
    }

    /// The slot of the file `name` in the folder `dir` (without building its path).
    pub fn slot_in(&self, dir: &Path, name: &OsStr) -> Option<u32> {
        let folder = self.folder_number(dir)?;
        let name = name.as_encoded_bytes();
        let slots = &self.slots;
        let is = |&s: &u32| {
            slots[s as usize].as_ref().is_some_and(|x| x.rec.folder() == folder && x.rec.name().as_bytes() == name)
        };
        self.by_path.find(name_hash(&self.hasher, name), is).copied()
    }

    pub fn at(&self, slot: u32) -> Option<&Slot> {
        self.slots.get(slot as usize)?.as_ref()
    }

    pub fn get(&self, path: &Path) -> Option<&Slot> {
        self.slot_of(path).and_then(|s| self.slots[s as usize].as_ref())
    }

    /// The folders records name by number.
    pub fn folders(&self) -> &[PathBuf] {
        &self.folders
    }

    /// The path of the file a record describes.
    pub fn path_of(&self, rec: &Record) -> PathBuf {
        rec.path_in(&self.folders[rec.folder() as usize])
    }

    /// The whole issue a record describes.
    pub fn full(&self, rec: &Record) -> Arc<IssueMeta> {
        Arc::new(rec.meta(self.path_of(rec)))
    }

    /// The whole issue at `path`, if the index knows it.
    pub fn meta_at(&self, path: &Path) -> Option<Arc<IssueMeta>> {
        self.get(path).map(|x| self.full(&x.rec))
    }

    pub fn len(&self) -> usize {
        self.live
    }

    /// Adds `meta` (replacing whatever was at its path) with the words of its file (`None`: left
    /// out by a first scan, see [`Slots::defer_text`]).
    pub fn insert(&mut self, meta: IssueMeta, stamp: Option<FileStamp>, words: Option<DocText>) {
        self.remove(&meta.path);
        self.forget_ranks();
        let folder = self.intern_folder(meta.path.parent().unwrap_or(Path::new("")));
        let name = meta.path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
        let rec = Record::new(&meta, folder, &name);
        drop(meta);
        let slot = self.slots.len() as u32;
        self.enter_words(slot, words);
        self.push(rec, stamp);
        self.orders.insert(&live(&self.slots, &self.folders), slot);
    }

    /// Adds a live slot for `rec` (at the end) with its counts and lookups.
    fn push(&mut self, rec: Record, stamp: Option<FileStamp>) {
        let facts = Facts::of(&rec, &mut self.names);
        self.tally.add(&rec, &facts);
        self.facts.push(facts);
        let slot = self.slots.len() as u32;
        self.slots.push(Some(Slot { rec, stamp }));
        self.live += 1;
        self.index_slot(slot);
    }

    /// Enters `slot` in the lookup tables.
    fn index_slot(&mut self, slot: u32) {
        let Slots { slots, hasher, by_path, by_id, by_digits, by_alias, duplicates, .. } = self;
        let rec = |s: &u32| &slots[*s as usize].as_ref().expect("tables hold live slots").rec;
        let m = rec(&slot);
        let path_hash = |r: &Record| name_hash(hasher, r.name().as_bytes());
        by_path.insert_unique(path_hash(m), slot, |s| path_hash(rec(s)));
        let id_hash = |id: &str| hasher.hash_one(&*upper(id));
        by_id.insert_unique(id_hash(m.id()), slot, |s| id_hash(rec(s).id()));
        by_digits.insert_unique(hasher.hash_one(digits_of(m.id())), slot, |s| hasher.hash_one(digits_of(rec(s).id())));
        if let Some(key) = alias_key(m) {
            let alias_hash = |s: &u32| alias_key(rec(s)).map_or(0, |k| hasher.hash_one(&k));
            by_alias.insert_unique(hasher.hash_one(&key), slot, alias_hash);
        }
        let key = upper(m.id());
        let holders = by_id.iter_hash(id_hash(m.id())).filter(|&&s| upper(rec(&s).id()) == key).count();
        if holders > 1 {
            duplicates.insert(key.into_owned());
        }
    }

    /// Forgets the file at `path`; returns what was known of it.
    pub fn remove(&mut self, path: &Path) -> Option<Record> {
        let slot = self.slot_of(path)?;
        let rec = self.slots[slot as usize].as_ref()?.rec.clone();
        self.forget_ranks();
        self.orders.remove(&live(&self.slots, &self.folders), slot);
        self.tally.remove(&rec, &self.facts[slot as usize]);
        let drop_from = |table: &mut HashTable<u32>, hash: u64| {
            if let Ok(entry) = table.find_entry(hash, |&s| s == slot) {
                entry.remove();
            }
        };
        drop_from(&mut self.by_path, name_hash(&self.hasher, rec.name().as_bytes()));
        let id_hash = self.id_hash(rec.id());
        drop_from(&mut self.by_id, id_hash);
        drop_from(&mut self.by_digits, self.hasher.hash_one(digits_of(rec.id())));
        if let Some(key) = alias_key(&rec) {
            drop_from(&mut self.by_alias, self.hasher.hash_one(&key));
        }
        self.slots[slot as usize] = None;
        self.live -= 1;
        let key = upper(rec.id());
        if self.duplicates.contains(&*key) && self.paths_of(rec.id()).len() < 2 {
            self.duplicates.remove(&*key);
        }
        Some(rec)
    }

    /// Files holding `id` exactly (case-insensitive), in path order.
    pub fn paths_of(&self, id: &str) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self
            .by_id
            .iter_hash(self.id_hash(id))
            .filter_map(|&s| self.rec(s))
            .filter(|m| upper(m.id()) == upper(id))
            .map(|m| self.path_of(m))
            .collect();
        out.sort();
        out
    }

    /// Files of the issues imported from a tracker that named them `old` (case-insensitive), in
    /// path order.
    /// A Backlog.md task is also found by the spellings its users' commits and branches have:
    /// `task-100`, `TASK-100` and `back-100` all name the task imported as `BACK-100`.
    pub fn paths_of_alias(&self, old: &str) -> Vec<PathBuf> {
        let old = old.trim();
        let asked = upper(old);
        let mut keys = vec![asked.to_string()];
        keys.extend(backlog_number(old).map(|(_, n)| format!("#{n}")));
        let mut out: Vec<PathBuf> = keys
            .iter()
            .flat_map(|k| self.by_alias.iter_hash(self.hasher.hash_one(k)))
            .filter_map(|&s| self.rec(s))
            .filter(|m| m.imported().is_some_and(|(source, was)| names_alias(&source, &was, &asked)))
            .map(|m| self.path_of(m))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// IDs whose part from the first digit on is exactly `digits`.
    pub fn ids_with_digits(&self, digits: &str) -> Vec<String> {
        let hash = self.hasher.hash_one(digits);
        let mut ids: Vec<String> = self
            .by_digits
            .iter_hash(hash)
            .filter_map(|&s| self.rec(s))
            .filter(|m| digits_of(m.id()) == digits)
            .map(|m| m.id().to_string())
            .collect();
        ids.sort();
        ids.dedup();
        ids
    }

    /// Upper-cased IDs held by several files, with those files.
    pub fn duplicates(&self) -> Vec<(String, Vec<PathBuf>)> {
        self.duplicates.iter().map(|id| (id.clone(), self.paths_of(id))).collect()
    }

    /// Gives back memory that many additions at once left unused.
    pub fn shrink(&mut self) {
        self.text.shrink();
    }

    /// Drops what was derived from the list order and the slots as they were (after a change).
    fn forget_ranks(&mut self) {
        self.ranks = None;
        self.last_word = None;
    }

    /// Lets changes skip the list order (many are coming); it is rebuilt when next needed.
    pub fn unorder(&mut self) {
        self.orders.unorder();
        // The ranks are places in the orders just dropped.
        self.forget_ranks();
    }

    /// Every issue in list order, with the folder it is in.
    pub fn by_updated(&mut self) -> impl Iterator<Item = (&Record, &Path)> {
        self.orders.ensure(&live(&self.slots, &self.folders));
        let (slots, folders) = (&self.slots, &self.folders);
        self.orders.all().iter().filter_map(move |&s| {
            slots[s as usize].as_ref().map(|x| (&x.rec, folders[x.rec.folder() as usize].as_path()))
        })
    }

    /// A page of the issues `filter` and `keep` accept (`keep` must imply `filter`), in list
    /// order: `limit` of them (all for `None`) after the first `offset`, and how many match in all.
    /// Walks only the sequences the filter selects, and only up to the page when the kept counts
    /// give the total.
    pub fn page(
        &mut self,
        filter: &IssueFilter,
        keep: impl Fn(&Record) -> bool,
        offset: usize,
        limit: Option<usize>,
    ) -> (Vec<Arc<IssueMeta>>, usize) {
        let (found, total) = self.page_slots(filter, keep, offset, limit);
        let metas = found.into_iter().filter_map(|s| self.rec(s).map(|r| self.full(r)));
        (metas.collect(), total)
    }

    /// [`Slots::page`] as slot numbers (for [`Slots::full_at`] one at a time).
    pub fn page_slots(
        &mut self,
        filter: &IssueFilter,
        keep: impl Fn(&Record) -> bool,
        offset: usize,
        limit: Option<usize>,
    ) -> (Vec<u32>, usize) {
        self.orders.ensure(&live(&self.slots, &self.folders));
        let ids = (!filter.ids.is_empty()).then(|| {
            let mut held = Vec::new();
            for id in &filter.ids {
                let key = upper(id);
                held.extend(
                    self.by_id
                        .iter_hash(self.id_hash(id))
                        .filter(|&&s| self.rec(s).is_some_and(|m| upper(m.id()) == key)),
                );
            }
            held
        });
        let known = self.tally.count(filter, &self.names);
        let view = live(&self.slots, &self.folders);
        self.orders.page(&view, filter, ids, keep, known, offset, limit)
    }

    /// The whole issue of a live slot.
    pub fn full_at(&self, slot: u32) -> Option<Arc<IssueMeta>> {
        self.rec(slot).map(|r| self.full(r))
    }

    /// Every label written on some issue, with how often it is written.
    pub fn label_counts(&self) -> Vec<(String, usize)> {
        self.tally.labels()
    }

    /// How many markdown files without frontmatter (READMEs, notes) the index holds.
    pub fn plain_files(&self) -> usize {
        self.tally.plain_files() as usize
    }

    /// Every project some issue is in, with its issues.
    pub fn project_counts(&self) -> Vec<(String, usize)> {
        self.tally.projects(&self.names)
    }

    /// Every live slot with its number.
    pub fn entries(&self) -> impl Iterator<Item = (u32, &Slot)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| s.as_ref().map(|s| (i as u32, s)))
    }

    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Issues holding every word of `q` in the `allowed` fields that `keep` accepts, with scores.
    pub fn search(&self, q: &Query, allowed: u8, keep: impl Fn(&Record) -> bool) -> Vec<(Arc<IssueMeta>, u32)> {
        let live = |d: u32| self.rec(d).is_some_and(&keep);
        let hits = self.text.search(q, allowed, self.slots.len(), live);
        hits.into_iter()
            .filter_map(|h| {
                let rec = &self.slots[h.doc as usize].as_ref()?.rec;
                // Only titles holding every word can be the query or hold it as a phrase.
                let boost = if h.in_title { ranking::title_boost(q, rec.title()) } else { 0 };
                Some((self.full(rec), h.score + boost))
            })
            .collect()
    }

    pub fn clear(&mut self) {
        *self = Slots { hasher: self.hasher, ..Slots::default() };
    }

    /// Counts of the issues `filter` accepts, grouped `by` a field (`None`: no assignee or
    /// project), from the interned column; `None` when the filter needs more than it holds.
    pub fn count_by(&self, filter: &IssueFilter, by: GroupBy) -> Option<Counts> {
        if let Some(counted) = self.tally.count_by(filter, by, &self.names) {
            return Some(counted);
        }
        let wanted = FactFilter::new(filter, &self.names)?;
        let live = self.slots.iter().zip(&self.facts).filter(|(s, f)| s.is_some() && wanted.matches(f));
        let groups = facts::count(live.map(|(_, f)| f), by, &self.names);
        Some((groups.iter().map(|g| g.1).sum(), groups))
    }

    /// Drops dead slots once they are a quarter of all.
    pub fn compact_if_sparse(&mut self) {
        // A pass over the files for the words numbers its documents as the slots are now.
        if self.text_pending() {
            return;
        }
        let dead = self.slots.len() - self.live;
        if dead > 1024.max(self.live / 4) {
            self.compact();
        }
    }

    fn compact(&mut self) {
        self.forget_ranks();
        let mut remap = vec![u32::MAX; self.slots.len()];
        let mut kept = Vec::with_capacity(self.live);
        let mut kept_facts = Vec::with_capacity(self.live);
        for (i, (s, f)) in std::mem::take(&mut self.slots).into_iter().zip(std::mem::take(&mut self.facts)).enumerate()
        {
            if let Some(s) = s {
                remap[i] = kept.len() as u32;
                kept.push(Some(s));
                kept_facts.push(f);
            }
        }
        self.slots = kept;
        self.facts = kept_facts;
        self.orders.remap(&remap);
        self.by_path.clear();
        self.by_id.clear();
        self.by_digits.clear();
        self.by_alias.clear();
        self.duplicates.clear();
        for slot in 0..self.slots.len() as u32 {
            self.index_slot(slot);
        }
        self.text.compact(&remap);
    }

    /// Writes the folders (relative to `root`), every slot's stamp and record, the list order
    /// and the full-text index.
    pub fn encode<W: Write>(&mut self, out: &mut Encoder<W>, root: &Path) -> io::Result<()> {
        if self.text_pending() {
            return Err(io::Error::other("the full-text index waits for its words"));
        }
        if self.live < self.slots.len() {
            self.compact();
        }
        self.orders.ensure(&live(&self.slots, &self.folders));
        out.varint(self.folders.len() as u64)?;
        for f in &self.folders {
            out.str(&f.strip_prefix(root).unwrap_or(f).to_string_lossy())?;
        }
        out.varint(self.slots.len() as u64)?;
        for slot in self.slots.iter().flatten() {
            match &slot.stamp {
                Some(s) => {
                    out.varint(1)?;
                    out.stamp(s)?;
                }
                None => out.varint(0)?,
            }
            out.bytes(slot.rec.bytes())?;
        }
        for &s in self.orders.all() {
            out.varint(s as u64)?;
        }
        self.text.encode(out)
    }

    /// Reads what [`Slots::encode`] wrote. Every folder must be one of `dirs` (under `root`).
    pub fn decode<R: Read>(input: &mut Decoder<R>, root: &Path, dirs: &[(IssueType, PathBuf)]) -> io::Result<Slots> {
        let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, format!("index snapshot: {what}"));
        let mut slots = Slots::default();
        // Folders relative to `root`, as the snapshot writes them.
        let allowed: Vec<(String, &PathBuf)> =
            dirs.iter().filter_map(|(_, d)| Some((d.strip_prefix(root).ok()?.to_str()?.to_string(), d))).collect();
        let n_folders = input.len()?;
        let mut folder_of = Vec::new();
        for _ in 0..n_folders.min(256) {
            let rel = input.string()?;
            let dir = allowed.iter().find(|(r, _)| *r == rel).ok_or_else(|| bad("a path outside the issue folders"))?.1;
            folder_of.push(slots.intern_folder(dir));
        }
        if n_folders != folder_of.len() {
            return Err(bad("too many folders"));
        }
        let n = input.len()?;
        let capacity = n.min(1 << 20);
        slots.slots.reserve(capacity);
        slots.facts.reserve(capacity);
        // The tables are empty: nothing to rehash while they grow.
        slots.by_path.reserve(capacity, |_| 0);
        slots.by_id.reserve(capacity, |_| 0);
        slots.by_digits.reserve(capacity, |_| 0);
        for _ in 0..n {
            let stamp = if input.varint()? == 1 { Some(input.stamp()?) } else { None };
            let mut bytes = input.byte_vec()?;
            // The folder number as this process numbers it.
            match bytes.get(4).and_then(|&f| folder_of.get(f as usize)) {
                Some(&local) => bytes[4] = local,
                None => return Err(bad("a path outside the issue folders")),
            }
            let rec = Record::from_bytes(&bytes).ok_or_else(|| bad("a damaged record"))?;
            drop(bytes);
            if slots.slot_in(&slots.folders[rec.folder() as usize], OsStr::new(rec.name())).is_some() {
                return Err(bad("a path twice"));
            }
            slots.push(rec, stamp);
        }
        let mut seen = vec![false; n];
        let mut order = Vec::with_capacity(n);
        for _ in 0..n {
            let s = input.varint()? as usize;
            if s >= n || std::mem::replace(&mut seen[s], true) {
                return Err(bad("list order"));
            }
            order.push(s as u32);
        }
        // Checked against the records when a list first needs it.
        slots.orders.save(order);
        slots.text = SearchIndex::decode(input, n as u32)?;
        Ok(slots)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::search_index::TITLE;
    use crate::model::{Priority, Status};

    /// Issue `i` (open when `i` is even) of the slots' and their words' tests.
    pub(super) fn meta(i: usize, title: &str, updated: &str) -> IssueMeta {
        IssueMeta {
            id: format!("ISS-{i:06}"),
            title: title.into(),
            issue_type: IssueType::Issue,
            status: if i.is_multiple_of(2) { Status::Open } else { Status::Closed },
            priority: Priority::Medium,
            labels: Vec::new(),
            assignee: i.is_multiple_of(3).then(|| "ann".to_string()),
            project: None,
            created_at: String::new(),
            updated_at: updated.into(),
            closed_at: None,
            context: Default::default(),
            blocked_by: Vec::new(),
            path: PathBuf::from(format!("/w/.docket/issues/ISS-{i:06}-x.md")),
            body_len: 0,
            frontmatter: true,
        }
    }

    fn put(slots: &mut Slots, m: IssueMeta) {
        let words = DocText::new(&m, "");
        slots.insert(m, None, Some(words));
    }

    #[test]
    fn rewrites_and_compaction_keep_every_lookup_right() {
        let mut slots = Slots::default();
        for i in 0..3000 {
            put(&mut slots, meta(i, &format!("alpha {i}"), &format!("2026-01-01T00:00:{:02}", i % 60)));
        }
        slots.by_updated().for_each(drop);
        // Rewrite every other issue: new title, newer update; 1500 dead slots trigger compaction.
        for i in (0..3000).step_by(2) {
            put(&mut slots, meta(i, &format!("beta {i}"), "2026-02-01T00:00:00"));
        }
        assert_eq!(slots.len(), 3000);
        assert_eq!(slots.capacity(), 4500, "rewrites take new slots");
        slots.compact_if_sparse();
        assert_eq!(slots.capacity(), 3000, "dead slots are dropped");

        let found = |slots: &Slots, q: &str| {
            let mut ids: Vec<String> =
                slots.search(&Query::parse(q), TITLE, |_| true).into_iter().map(|(m, _)| m.id.clone()).collect();
            ids.sort();
            ids
        };
        assert_eq!(found(&slots, "alpha").len(), 1500, "rewritten titles lost their old words");
        assert_eq!(found(&slots, "beta").len(), 1500);
        assert_eq!(found(&slots, "42 beta"), ["ISS-000042"], "all words, the last as a prefix");
        assert_eq!(slots.paths_of("iss-000042"), [PathBuf::from("/w/.docket/issues/ISS-000042-x.md")]);
        assert_eq!(slots.ids_with_digits("000043"), ["ISS-000043"]);
        let first: Vec<&str> = slots.by_updated().take(2).map(|(m, _)| m.title()).collect();
        assert!(first.iter().all(|t| t.starts_with("beta")), "newest first: {first:?}");
        assert_eq!(slots.by_updated().count(), 3000);

        let open = IssueFilter { status: vec![Status::Open], ..IssueFilter::default() };
        let (total, groups) = slots.count_by(&open, GroupBy::Assignee).expect("a fact filter");
        assert_eq!(total, 1500);
        assert_eq!(groups.iter().find(|g| g.0.as_deref() == Some("ann")).map(|g| g.1), Some(500));
        assert!(slots.remove(Path::new("/w/.docket/issues/ISS-000042-x.md")).is_some());
        assert!(!found(&slots, "42 beta").contains(&"ISS-000042".to_string()), "a removed issue is not found");
        assert!(slots.duplicates().is_empty());
    }
}
