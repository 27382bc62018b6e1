//! What the index knows, held compactly: one slot per issue file with its metadata and stamp,
//! lookups by path, by ID and by the ID's number (tables of slot numbers, so no path or ID is
//! stored twice), the list order, and the full-text index over the same slot numbers.
//!
//! A file that changes gets a new slot and its old one dies; dead slots are dropped and the rest
//! renumbered (order kept) once they are a quarter of the whole, so every change costs time in
//! proportion to the change, not to the workspace.

use std::collections::BTreeSet;
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use hashbrown::HashTable;

use super::model::{IssueMeta, IssueType};
use super::search_index::{DocText, Query, SearchIndex};
use super::snapshot::{Decoder, Encoder, FileStamp};

pub struct Slot {
    pub meta: Arc<IssueMeta>,
    pub stamp: Option<FileStamp>,
}

#[derive(Default)]
pub struct Slots {
    slots: Vec<Option<Slot>>,
    live: usize,
    hasher: hashbrown::DefaultHashBuilder,
    by_path: HashTable<u32>,
    /// Keyed by the upper-cased ID; an ID may be held by several files.
    by_id: HashTable<u32>,
    /// Keyed by the ID from its first digit on (`000042` of `ISS-000042`), for short forms.
    by_digits: HashTable<u32>,
    /// Upper-cased IDs held by more than one file.
    duplicates: BTreeSet<String>,
    /// Live slots, newest update first; rebuilt when `ordered` is false.
    order: Vec<u32>,
    ordered: bool,
    text: SearchIndex,
}

/// List order: issues before files without frontmatter, newest update first, then ID, then path.
fn list_order(a: &IssueMeta, b: &IssueMeta) -> std::cmp::Ordering {
    b.frontmatter
        .cmp(&a.frontmatter)
        .then_with(|| b.updated_at.cmp(&a.updated_at))
        .then_with(|| a.id.cmp(&b.id))
        .then_with(|| a.path.cmp(&b.path))
}

pub fn digits_of(id: &str) -> &str {
    &id[id.find(|c: char| c.is_ascii_digit()).unwrap_or(id.len())..]
}

fn upper(id: &str) -> impl Iterator<Item = char> + '_ {
    id.chars().flat_map(char::to_uppercase)
}

impl Slots {
    fn meta(&self, slot: u32) -> Option<&IssueMeta> {
        self.slots.get(slot as usize)?.as_ref().map(|s| &*s.meta)
    }

    fn id_hash(&self, id: &str) -> u64 {
        let mut h = self.hasher.build_hasher();
        upper(id).for_each(|c| h.write_u32(c as u32));
        h.finish()
    }

    fn slot_of(&self, path: &Path) -> Option<u32> {
        let slots = &self.slots;
        let is = |&s: &u32| slots[s as usize].as_ref().is_some_and(|x| x.meta.path == path);
        self.by_path.find(self.hasher.hash_one(path), is).copied()
    }

    pub fn at(&self, slot: u32) -> Option<&Slot> {
        self.slots.get(slot as usize)?.as_ref()
    }

    pub fn get(&self, path: &Path) -> Option<&Slot> {
        self.slot_of(path).and_then(|s| self.slots[s as usize].as_ref())
    }

    pub fn len(&self) -> usize {
        self.live
    }

    /// Adds `meta` (replacing whatever was at its path) with the words of its file.
    pub fn insert(&mut self, meta: IssueMeta, stamp: Option<FileStamp>, words: &DocText) {
        self.remove(&meta.path);
        let slot = self.slots.len() as u32;
        self.text.add(slot, words);
        self.slots.push(Some(Slot { meta: Arc::new(meta), stamp }));
        self.live += 1;
        self.index_slot(slot);
        if self.ordered {
            let meta = self.meta(slot).expect("just added");
            let at = self.order.partition_point(|&s| self.meta(s).is_some_and(|m| list_order(m, meta).is_lt()));
            self.order.insert(at, slot);
        }
    }

    /// Enters `slot` in the lookup tables.
    fn index_slot(&mut self, slot: u32) {
        let Slots { slots, hasher, by_path, by_id, by_digits, duplicates, .. } = self;
        let meta = |s: &u32| &slots[*s as usize].as_ref().expect("tables hold live slots").meta;
        let m = meta(&slot);
        by_path.insert_unique(hasher.hash_one(&m.path), slot, |s| hasher.hash_one(&meta(s).path));
        let id_hash = |id: &str| {
            let mut h = hasher.build_hasher();
            upper(id).for_each(|c| h.write_u32(c as u32));
            h.finish()
        };
        by_id.insert_unique(id_hash(&m.id), slot, |s| id_hash(&meta(s).id));
        by_digits.insert_unique(hasher.hash_one(digits_of(&m.id)), slot, |s| hasher.hash_one(digits_of(&meta(s).id)));
        let holders = by_id.iter_hash(id_hash(&m.id)).filter(|&&s| upper(&meta(&s).id).eq(upper(&m.id))).count();
        if holders > 1 {
            duplicates.insert(upper(&m.id).collect());
        }
    }

    /// Forgets the file at `path`; returns what was known of it.
    pub fn remove(&mut self, path: &Path) -> Option<Arc<IssueMeta>> {
        let slot = self.slot_of(path)?;
        let meta = Arc::clone(&self.slots[slot as usize].as_ref()?.meta);
        if self.ordered {
            let at = self.order.partition_point(|&s| self.meta(s).is_some_and(|m| list_order(m, &meta).is_lt()));
            match self.order.get(at) {
                Some(&s) if s == slot => {
                    self.order.remove(at);
                }
                _ => self.order.retain(|&s| s != slot),
            }
        }
        let drop_from = |table: &mut HashTable<u32>, hash: u64| {
            if let Ok(entry) = table.find_entry(hash, |&s| s == slot) {
                entry.remove();
            }
        };
        drop_from(&mut self.by_path, self.hasher.hash_one(path));
        let id_hash = self.id_hash(&meta.id);
        drop_from(&mut self.by_id, id_hash);
        drop_from(&mut self.by_digits, self.hasher.hash_one(digits_of(&meta.id)));
        self.slots[slot as usize] = None;
        self.live -= 1;
        let key: String = upper(&meta.id).collect();
        if self.duplicates.contains(&key) && self.paths_of(&meta.id).len() < 2 {
            self.duplicates.remove(&key);
        }
        Some(meta)
    }

    /// Files holding `id` exactly (case-insensitive), in path order.
    pub fn paths_of(&self, id: &str) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self
            .by_id
            .iter_hash(self.id_hash(id))
            .filter_map(|&s| self.meta(s))
            .filter(|m| upper(&m.id).eq(upper(id)))
            .map(|m| m.path.clone())
            .collect();
        out.sort();
        out
    }

    /// IDs whose part from the first digit on is exactly `digits`.
    pub fn ids_with_digits(&self, digits: &str) -> Vec<String> {
        let hash = self.hasher.hash_one(digits);
        let mut ids: Vec<String> = self
            .by_digits
            .iter_hash(hash)
            .filter_map(|&s| self.meta(s))
            .filter(|m| digits_of(&m.id) == digits)
            .map(|m| m.id.clone())
            .collect();
        ids.sort();
        ids.dedup();
        ids
    }

    /// Upper-cased IDs held by several files, with those files.
    pub fn duplicates(&self) -> Vec<(String, Vec<PathBuf>)> {
        self.duplicates.iter().map(|id| (id.clone(), self.paths_of(id))).collect()
    }

    /// Lets changes skip the list order (many are coming); it is rebuilt when next needed.
    pub fn unorder(&mut self) {
        self.ordered = false;
        self.order = Vec::new();
    }

    /// Every issue in list order.
    pub fn by_updated(&mut self) -> impl Iterator<Item = &Arc<IssueMeta>> {
        if !self.ordered {
            let slots = &self.slots;
            let mut order: Vec<u32> = (0..slots.len() as u32).filter(|&s| slots[s as usize].is_some()).collect();
            let meta = |s: u32| &*slots[s as usize].as_ref().expect("live").meta;
            order.sort_unstable_by(|&a, &b| list_order(meta(a), meta(b)));
            self.order = order;
            self.ordered = true;
        }
        self.order.iter().filter_map(|&s| self.slots[s as usize].as_ref().map(|x| &x.meta))
    }

    /// Every live slot with its number.
    pub fn entries(&self) -> impl Iterator<Item = (u32, &Slot)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| s.as_ref().map(|s| (i as u32, s)))
    }

    /// The slot number of `path` (see [`Slots::at`]).
    pub fn number_of(&self, path: &Path) -> Option<u32> {
        self.slot_of(path)
    }

    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Issues holding every word of `q` in the `allowed` fields that `keep` accepts, with scores.
    pub fn search(&self, q: &Query, allowed: u8, keep: impl Fn(&IssueMeta) -> bool) -> Vec<(Arc<IssueMeta>, u32)> {
        let live = |d: u32| self.meta(d).is_some_and(&keep);
        let hits = self.text.search(q, allowed, self.slots.len(), live);
        hits.into_iter().filter_map(|(d, s)| Some((Arc::clone(&self.slots[d as usize].as_ref()?.meta), s))).collect()
    }

    pub fn clear(&mut self) {
        *self = Slots { hasher: self.hasher, ..Slots::default() };
    }

    /// Drops dead slots once they are a quarter of all.
    pub fn compact_if_sparse(&mut self) {
        let dead = self.slots.len() - self.live;
        if dead > 1024.max(self.live / 4) {
            self.compact();
        }
    }

    fn compact(&mut self) {
        let mut remap = vec![u32::MAX; self.slots.len()];
        let mut kept = Vec::with_capacity(self.live);
        for (i, s) in std::mem::take(&mut self.slots).into_iter().enumerate() {
            if let Some(s) = s {
                remap[i] = kept.len() as u32;
                kept.push(Some(s));
            }
        }
        self.slots = kept;
        self.order = self.order.iter().map(|&s| remap[s as usize]).filter(|&s| s != u32::MAX).collect();
        self.by_path.clear();
        self.by_id.clear();
        self.by_digits.clear();
        self.duplicates.clear();
        for slot in 0..self.slots.len() as u32 {
            self.index_slot(slot);
        }
        self.text.compact(&remap);
    }

    /// Statistics for the benchmarks: (live slots, words, bytes of the full-text index).
    pub fn text_stats(&self) -> (usize, usize, usize) {
        (self.live, self.text.term_count(), self.text.heap_bytes())
    }

    /// Writes every slot (paths relative to `root`), the list order and the full-text index.
    pub fn encode<W: Write>(&mut self, out: &mut Encoder<W>, root: &Path) -> io::Result<()> {
        if self.live < self.slots.len() {
            self.compact();
        }
        self.by_updated().for_each(drop);
        out.varint(self.slots.len() as u64)?;
        for slot in self.slots.iter().flatten() {
            match &slot.stamp {
                Some(s) => {
                    out.varint(1)?;
                    out.stamp(s)?;
                }
                None => out.varint(0)?,
            }
            let rel = slot.meta.path.strip_prefix(root).unwrap_or(&slot.meta.path);
            out.str(&rel.to_string_lossy())?;
            out.meta(&slot.meta)?;
        }
        for &s in &self.order {
            out.varint(s as u64)?;
        }
        self.text.encode(out)
    }

    /// Reads what [`Slots::encode`] wrote. Every path must lie in one of `dirs` (under `root`).
    pub fn decode<R: Read>(input: &mut Decoder<R>, root: &Path, dirs: &[(IssueType, PathBuf)]) -> io::Result<Slots> {
        let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, format!("index snapshot: {what}"));
        let n = input.len()?;
        let mut slots = Slots::default();
        slots.slots.reserve(n.min(1 << 20));
        for _ in 0..n {
            let stamp = if input.varint()? == 1 { Some(input.stamp()?) } else { None };
            let rel = PathBuf::from(input.string()?);
            if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
                return Err(bad("a path leaves the workspace"));
            }
            let path = root.join(rel);
            if !dirs.iter().any(|(_, d)| Some(d.as_path()) == path.parent()) || slots.slot_of(&path).is_some() {
                return Err(bad("a path outside the issue folders, or twice"));
            }
            let meta = input.meta(path)?;
            let slot = slots.slots.len() as u32;
            slots.slots.push(Some(Slot { meta: Arc::new(meta), stamp }));
            slots.live += 1;
            slots.index_slot(slot);
        }
        let mut seen = vec![false; n];
        for _ in 0..n {
            let s = input.varint()? as usize;
            if s >= n || std::mem::replace(&mut seen[s], true) {
                return Err(bad("list order"));
            }
            slots.order.push(s as u32);
        }
        let meta = |s: &u32| slots.meta(*s).expect("decoded");
        slots.ordered = slots.order.windows(2).all(|w| list_order(meta(&w[0]), meta(&w[1])).is_le());
        slots.text = SearchIndex::decode(input, n as u32)?;
        Ok(slots)
    }
}
