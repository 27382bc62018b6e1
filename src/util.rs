//! Small helpers every layer shares: text cut for a message, the name of a JSON value's type, a
//! phrase of a message replaced, and blocking work run off the async threads. This module names nothing else of the crate, so any
//! module may use it (tests/architecture.rs).

pub use toolkit_runtime::text::{Whole, clip, clip_saying, json_kind};

thread_local! {
    /// Set on the thread of a command that answers one command on it ([`run_blocking_inline`]).
    static INLINE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// From now on [`blocking`] and [`spawn_blocking`] called on this thread run their work on it:
/// for a one-shot command on a current-thread runtime, where nothing else waits for the thread
/// and a pool thread only costs its start and, at the runtime's end, its join. Other threads
/// (a server's workers, other tests) keep the pool.
pub fn run_blocking_inline() {
    INLINE.with(|i| i.set(true));
}

/// Runs `work` (store or file I/O, which blocks) on tokio's blocking pool, off the async worker
/// threads (inline after [`run_blocking_inline`]); `stopped` turns a task that panicked or was
/// cancelled into the caller's error.
pub async fn blocking<T: Send + 'static, E: Send + 'static>(
    work: impl FnOnce() -> Result<T, E> + Send + 'static,
    stopped: impl FnOnce(tokio::task::JoinError) -> E,
) -> Result<T, E> {
    spawn_blocking(work).await.unwrap_or_else(|e| Err(stopped(e)))
}

/// `tokio::task::spawn_blocking`, or `work` run here after [`run_blocking_inline`].
pub async fn spawn_blocking<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, tokio::task::JoinError> {
    if INLINE.with(std::cell::Cell::get) {
        return Ok(work());
    }
    tokio::task::spawn_blocking(work).await
}

/// Replaces `from` in `text`; a `{id}` in `from` stands for one word (an ID or a time), which
/// `to` repeats where it has `{id}`.
pub fn replace_phrase(text: &str, from: &str, to: &str) -> String {
    let Some((head, tail)) = from.split_once("{id}") else { return text.replace(from, to) };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(head) {
        let after = &rest[i + head.len()..];
        let word_end = after.find(|c: char| c.is_whitespace() || c == ')').unwrap_or(after.len());
        let (word, after_word) = after.split_at(word_end);
        if word.is_empty() || !after_word.starts_with(tail) {
            out.push_str(&rest[..i + head.len()]);
            rest = after;
            continue;
        }
        out.push_str(&rest[..i]);
        out.push_str(&to.replace("{id}", word));
        rest = &after_word[tail.len()..];
    }
    out.push_str(rest);
    out
}
