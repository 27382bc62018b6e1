//! The full-text index, built after the rest on a first start (issue 30). A scan of a workspace
//! with no snapshot to start from enters every issue without its words, so a first call that is
//! not a search answers without waiting for a tenth of a million bodies to be split into words.
//! The words come in one more pass over the files, made off the index lock by the first search
//! or by the writer of the snapshot (half a second after that first call), whichever comes
//! first. Issues entered meanwhile (writes, outside edits) bring their words, which wait in a
//! queue and are indexed after the pass, so documents still enter in slot order.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;

use super::Slots;
use crate::files::listing::FileStamp;
use crate::index::record::Record;
use crate::index::search_index::{DocText, SearchIndex};

/// Tells passes apart: a pass made for an index that has since been cleared is not installed.
static PASSES: AtomicU64 = AtomicU64::new(0);

/// The words the full-text index still lacks.
pub struct PendingText {
    pass: u64,
    /// Slots entered with their words since the scan that left the rest out, ascending.
    queued: Vec<(u32, DocText)>,
}

/// One more pass over the files: what it reads and what it already has.
pub struct TextPass {
    pass: u64,
    /// The folders the records name by number.
    folders: Vec<PathBuf>,
    /// Live slots entered without their words, ascending, with the stamp their record was read
    /// at (the records are shared, not copied: a pass over 100,000 files holds 5 MB of them).
    files: Vec<(u32, Record, Option<FileStamp>)>,
    /// Slots whose words came with them, ascending.
    known: Vec<(u32, DocText)>,
}

/// A full-text index made by a [`TextPass`], to be installed by [`Slots::install_text`].
pub struct BuiltText {
    pass: u64,
    text: SearchIndex,
    /// Slots whose file the pass could not read as their record was read (changed, or now
    /// unreadable): see [`Slots::install_text`].
    unread: Vec<u32>,
}

/// Files a pass reads in parallel at a time (bounds the words held at once).
const CHUNK: usize = 1024;

impl Slots {
    /// Whether the full-text index waits for a [`TextPass`] (searches must not run before it).
    pub fn text_pending(&self) -> bool {
        self.pending_text.is_some()
    }

    /// Enters the issues that come next without their words (only into an index with no slot).
    pub fn defer_text(&mut self) {
        debug_assert!(self.slots.is_empty(), "words are left out only of a first scan");
        let pass = PASSES.fetch_add(1, Ordering::Relaxed) + 1;
        self.pending_text = Some(PendingText { pass, queued: Vec::new() });
    }

    /// Indexes the words of a new slot, or queues them while the index waits for its pass.
    pub(super) fn enter_words(&mut self, slot: u32, words: Option<DocText>) {
        match (&mut self.pending_text, words) {
            (None, Some(words)) => self.text.add(slot, &words),
            (Some(pending), Some(words)) => pending.queued.push((slot, words)),
            // Left out by the scan that deferred the words: the pass reads them.
            (Some(_), None) => {}
            (None, None) => debug_assert!(false, "words are left out only while they are deferred"),
        }
    }

    /// The pass the full-text index waits for, if it does. The queued words go with it.
    pub fn text_pass(&mut self) -> Option<TextPass> {
        let pending = self.pending_text.as_mut()?;
        let known = std::mem::take(&mut pending.queued);
        let pass = pending.pass;
        let mut queued = known.iter().map(|(s, _)| *s).peekable();
        let mut files = Vec::new();
        for (slot, x) in self.entries() {
            while queued.next_if(|&q| q < slot).is_some() {}
            if queued.next_if_eq(&slot).is_none() {
                files.push((slot, x.rec.clone(), x.stamp));
            }
        }
        Some(TextPass { pass, folders: self.folders.clone(), files, known })
    }

    /// Puts a finished pass's index in place with the words queued since it began; false if the
    /// index it was made for has been cleared since (or has its words already).
    pub fn install_text(&mut self, built: BuiltText) -> bool {
        if self.pending_text.as_ref().is_none_or(|p| p.pass != built.pass) {
            return false;
        }
        let queued = self.pending_text.take().map(|p| p.queued).unwrap_or_default();
        self.text = built.text;
        for (slot, words) in queued {
            self.text.add(slot, &words);
        }
        // Without a stamp, the next scan reads them again (into new slots, with their words),
        // and a snapshot does not vouch for them: a file that could not be read now (its folder
        // or itself unreadable for a moment) does not stay without words while it is unchanged.
        for slot in built.unread {
            if let Some(Some(x)) = self.slots.get_mut(slot as usize) {
                x.stamp = None;
            }
        }
        self.forget_ranks();
        true
    }
}

impl TextPass {
    /// Reads every file's words (`read`: the words and the stamp they were read at) a chunk at a
    /// time in parallel, and indexes them with the known ones in slot order. A file whose stamp changed since its record was read is left
    /// out: its slot dies at the next refresh, which reads it again into a new slot, with its
    /// words.
    pub fn run(self, read: impl Fn(&Path) -> Option<(DocText, FileStamp)> + Sync) -> BuiltText {
        let folders = &self.folders;
        let mut text = SearchIndex::default();
        let mut unread = Vec::new();
        let mut known = self.known.into_iter().peekable();
        for chunk in self.files.chunks(CHUNK) {
            let words: Vec<Option<DocText>> = chunk
                .par_iter()
                .map(|(_, rec, stamp)| {
                    let path = rec.path_in(folders.get(rec.folder() as usize)?);
                    read(&path).filter(|(_, now)| Some(*now) == *stamp).map(|(w, _)| w)
                })
                .collect();
            for ((slot, _, _), words) in chunk.iter().zip(words) {
                while let Some((s, w)) = known.next_if(|(s, _)| s < slot) {
                    text.add(s, &w);
                }
                match words {
                    Some(words) => text.add(*slot, &words),
                    None => unread.push(*slot),
                }
            }
        }
        for (s, w) in known {
            text.add(s, &w);
        }
        text.shrink();
        BuiltText { pass: self.pass, text, unread }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;
    use crate::index::search_index::{Query, TITLE};
    use crate::model::IssueMeta;

    fn meta(i: usize, title: &str) -> IssueMeta {
        super::super::tests::meta(i, title, &format!("2026-01-01T00:00:{:02}", i % 60))
    }

    fn stamp(i: usize) -> Option<FileStamp> {
        Some(FileStamp { modified: Some((i as u64, 0)), len: 1 })
    }

    fn found(slots: &Slots, word: &str) -> Vec<String> {
        let mut ids: Vec<String> =
            slots.search(&Query::parse(word), TITLE, |_| true).into_iter().map(|(m, _)| m.id.clone()).collect();
        ids.sort();
        ids
    }

    #[test]
    fn words_entered_before_during_and_after_the_pass_are_all_found() {
        let mut slots = Slots::default();
        slots.defer_text();
        // The first scan: no words. What the files hold now, by path.
        let mut files: HashMap<PathBuf, (String, Option<FileStamp>)> = HashMap::new();
        for i in 0..50 {
            let m = meta(i, &format!("alpha {i}"));
            files.insert(m.path.clone(), (m.title.clone(), stamp(i)));
            slots.insert(m, stamp(i), None);
        }
        // Before the pass: issue 3 rewritten by a write that brings its words.
        let m = meta(3, "beta three");
        let words = DocText::new(&m, "");
        slots.insert(m, stamp(1003), Some(words));
        // Issue 4's file changed after the scan read it: the pass must leave its old slot out.
        files.insert(meta(4, "").path, ("gamma four".into(), stamp(1004)));
        let pass = slots.text_pass().expect("pending");
        // During the pass: a new issue and issue 5 rewritten.
        for (i, title) in [(60, "beta sixty"), (5, "beta five")] {
            let m = meta(i, title);
            let words = DocText::new(&m, "");
            slots.insert(m, stamp(1000 + i), Some(words));
        }
        // Issue 7's file cannot be read now (its stamp has not changed).
        let unreadable = meta(7, "").path;
        let built = pass.run(|path| {
            let (title, stamp) = files.get(path).filter(|_| *path != unreadable)?;
            Some((DocText::new(&meta(0, title), ""), (*stamp)?))
        });
        assert!(slots.text_pending(), "installed only by install_text");
        assert!(slots.install_text(built));
        assert!(!slots.text_pending());
        assert_eq!(found(&slots, "beta"), ["ISS-000003", "ISS-000005", "ISS-000060"]);
        assert_eq!(found(&slots, "alpha").len(), 50 - 4, "3 and 5 rewritten, 4 changed, 7 unreadable");
        assert!(found(&slots, "gamma").is_empty(), "the changed file is read again by the next refresh");
        // Those two lose their stamps, so the next scan reads them again (the others keep theirs).
        let stamp_of = |i: usize| slots.get(&meta(i, "").path).expect("live").stamp;
        assert_eq!((stamp_of(4), stamp_of(7)), (None, None));
        assert_eq!(stamp_of(8), stamp(8));
    }

    #[test]
    fn a_pass_for_a_cleared_index_is_not_installed() {
        let mut slots = Slots::default();
        slots.defer_text();
        slots.insert(meta(1, "alpha"), stamp(1), None);
        let pass = slots.text_pass().expect("pending");
        slots.clear();
        slots.defer_text();
        slots.insert(meta(2, "beta"), stamp(2), None);
        let built = pass.run(|_| Some((DocText::new(&meta(1, "alpha"), ""), stamp(1)?)));
        assert!(!slots.install_text(built), "another index's pass");
        assert!(slots.text_pending());
    }
}
