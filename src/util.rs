//! Small helpers every layer shares: text cut for a message, the name of a JSON value's type, a
//! phrase of a message replaced, and blocking work run off the async threads. This module names nothing else of the crate, so any
//! module may use it (tests/architecture.rs).

use serde_json::Value;

/// How a cut text says what it was cut from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Whole {
    /// Just `…`.
    Unsaid,
    /// `… (N bytes)`.
    Bytes,
    /// `… (N characters)`.
    Chars,
}

/// `text` to repeat in a message: its first `max` characters, then `…` when it was longer, so a
/// megabyte sent where a name belongs does not come back as a megabyte of error text.
pub fn clip(text: &str, max: usize) -> String {
    clip_saying(text, max, Whole::Unsaid)
}

/// [`clip`], saying after the `…` how long the whole text was.
pub fn clip_saying(text: &str, max: usize, whole: Whole) -> String {
    let Some((at, _)) = text.char_indices().nth(max) else { return text.to_string() };
    let head = &text[..at];
    match whole {
        Whole::Unsaid => format!("{head}…"),
        Whole::Bytes => format!("{head}… ({} bytes)", text.len()),
        Whole::Chars => format!("{head}… ({} characters)", text.chars().count()),
    }
}

/// "a string", "an integer", "an array", ... : the type of `v` for an error message.
pub fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Set once by a process that answers one command on one thread ([`run_blocking_inline`]).
static INLINE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// From now on [`blocking`] and [`spawn_blocking`] run their work on the caller's thread: for a
/// one-shot command on a current-thread runtime, where nothing else waits for the thread and a
/// pool thread only costs its start and, at the runtime's end, its join.
pub fn run_blocking_inline() {
    INLINE.store(true, std::sync::atomic::Ordering::Relaxed);
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
    if INLINE.load(std::sync::atomic::Ordering::Relaxed) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn clip_cuts_at_characters_and_says_what_it_cut() {
        assert_eq!(clip("short", 10), "short");
        assert_eq!(clip("abcdef", 6), "abcdef");
        assert_eq!(clip("abcdefg", 6), "abcdef…");
        assert_eq!(clip("ééé", 2), "éé…");
        assert_eq!(clip_saying("ééé", 1, Whole::Bytes), "é… (6 bytes)");
        assert_eq!(clip_saying("ééé", 1, Whole::Chars), "é… (3 characters)");
        assert_eq!(clip_saying("ééé", 3, Whole::Chars), "ééé");
    }

    #[test]
    fn json_kind_tells_integers_from_other_numbers() {
        let kinds: Vec<&str> = [json!(null), json!(true), json!(3), json!(3.5), json!("x"), json!([]), json!({})]
            .iter()
            .map(json_kind)
            .collect();
        assert_eq!(kinds, ["null", "a boolean", "an integer", "a number", "a string", "an array", "an object"]);
    }
}
