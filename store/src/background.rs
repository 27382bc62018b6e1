//! What the store does off its callers' path: the snapshot writer, a moment after the writes
//! that asked for it, and the pass over the files for the words a first scan left out (see
//! `index::slots::text`), made without the index lock.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::Store;
use crate::index::{self, Index};
use crate::model::StoreError;

impl Store {
    /// [`Store::fresh`] with the full-text index's words in (a first start leaves them out; see
    /// `index::slots::text`): the pending pass over the files is made without the index lock.
    pub(crate) fn fresh_with_text(&self) -> Result<(MutexGuard<'_, Index>, bool), StoreError> {
        for _ in 0..2 {
            let (index, cached) = self.fresh()?;
            if !index.text_pending() {
                return Ok((index, cached));
            }
            drop(index);
            build_text(&self.index, &self.text_builder);
        }
        // Builder, then index: the one order both locks are taken in.
        let _one = self.text_builder.lock().unwrap_or_else(|p| p.into_inner());
        let (mut index, _) = self.fresh()?;
        index.build_text_here();
        Ok((index, false))
    }

    /// Writes the snapshot for the next process on another thread, [`SAVE_DELAY`] after the
    /// write that asked for it: a burst of writes (an agent closing ten issues, two agents
    /// claiming) pays for one snapshot, after it, instead of each write waiting for the index
    /// while the one before it is serialized (16 ms a claim at 100k issues before). After a
    /// first start it makes the pass for the words first, at once.
    pub(crate) fn save_in_background(&self) {
        let mut saver = self.saver.lock().unwrap_or_else(|p| p.into_inner());
        if saver.as_ref().is_some_and(|s| !s.handle.is_finished()) {
            return;
        }
        let index = Arc::clone(&self.index);
        let builder = Arc::clone(&self.text_builder);
        let (now, wait) = std::sync::mpsc::channel::<()>();
        let handle = std::thread::spawn(move || {
            // The words first, at once: after a first start, the next search waits for them.
            let started = std::time::Instant::now();
            build_text(&index, &builder);
            // Woken early by `wait_for_snapshot` (a flush, an exit); else after the delay.
            let _ = wait.recv_timeout(SAVE_DELAY.saturating_sub(started.elapsed()));
            let pending = index.lock().unwrap_or_else(|p| p.into_inner()).write_snapshot();
            if let Some(Err(e)) = pending.map(index::snapshot::Pending::commit) {
                tracing::debug!(error = %e, "could not save the index snapshot");
            }
        });
        *saver = Some(Saver { handle, now });
    }

    /// Waits until the index snapshot for the next process is on disk (tests and benchmarks).
    pub fn wait_for_snapshot(&self) {
        let saver = self.saver.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(s) = saver {
            let _ = s.now.send(());
            let _ = s.handle.join();
        }
    }

    /// Puts the index snapshot on disk with every change made so far, so the next process starts
    /// from it. Call before a clean exit (dropping the store does it too).
    pub fn flush(&self) {
        self.wait_for_snapshot();
        if self.lock().unsaved() > 0 {
            build_text(&self.index, &self.text_builder);
        }
        let pending = {
            let mut index = self.lock();
            if index.unsaved() == 0 { None } else { index.write_snapshot() }
        };
        if let Some(Err(e)) = pending.map(index::snapshot::Pending::commit) {
            tracing::warn!(error = %e, "could not save the index snapshot; the next start reads every file");
        }
    }
}

impl Store {
    /// The end of a one-shot process: saves the snapshot for the next one when the index drifted
    /// from the last snapshot by more than a few files (the next process would read them all
    /// again; a first start reads every file), not for the file or two another process changed,
    /// which the next process re-reads in microseconds: a snapshot costs two fsyncs, 10-20 ms on
    /// a disk, and made every read after a write twice as slow as the one after it.
    pub fn finish(&self) {
        let drifted = {
            let index = self.lock();
            index.unsaved() > 64.max(index.len() / 20)
        };
        if drifted {
            self.flush();
        }
    }
}

/// How long the snapshot saver waits after a write before it serializes the index.
const SAVE_DELAY: std::time::Duration = std::time::Duration::from_millis(500);

/// Makes the full-text index's pending pass over the files, if it has one, off the index lock
/// (held only to take the pass and to install its result). One builder at a time: a second
/// caller waits for the first, then finds nothing pending.
fn build_text(index: &Mutex<Index>, builder: &Mutex<()>) {
    let _one = builder.lock().unwrap_or_else(|p| p.into_inner());
    let lock = || index.lock().unwrap_or_else(|p| p.into_inner());
    let Some(pass) = lock().text_pass() else { return };
    let started = std::time::Instant::now();
    let built = pass.run();
    let installed = lock().install_text(built);
    tracing::debug!(installed, ms = started.elapsed().as_millis(), "full-text index built");
}

/// The thread saving the snapshot, and the way to make it save now.
pub(crate) struct Saver {
    handle: std::thread::JoinHandle<()>,
    now: std::sync::mpsc::Sender<()>,
}
