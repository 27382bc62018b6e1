//! Token counts for `_meta.tokens`. By default an estimate that follows how BPE tokenizers split
//! text (words, digit groups, punctuation runs): within about 7 % of OpenAI's o200k_base on
//! docket's responses of a few hundred tokens or more, at no memory cost. `token_count: o200k`
//! counts exactly with tiktoken-rs instead, which keeps its 200k-entry vocabulary resident
//! (~47 MB) and takes ~150 ms to load. Claude and other models tokenize differently anyway, so
//! either count is a guide to context cost, not an exact bill.

use std::sync::OnceLock;

/// How `_meta.tokens` is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Counter {
    #[default]
    Estimate,
    O200k,
}

static COUNTER: OnceLock<Counter> = OnceLock::new();

/// Chooses the counter for this process (the first call wins). `O200k` starts loading the
/// vocabulary on a background thread so the first tool call waits as little as possible.
pub fn configure(counter: Counter) {
    if COUNTER.set(counter).is_ok() && counter == Counter::O200k {
        std::thread::spawn(tiktoken_rs::o200k_base_singleton);
    }
}

/// Tokens of `text` with the configured counter.
pub fn count(text: &str) -> usize {
    match COUNTER.get() {
        Some(Counter::O200k) => tiktoken_rs::o200k_base_singleton().encode_ordinary(text).len(),
        _ => estimate(text),
    }
}

/// A word is one token plus one per further 10 letters; digits go in groups of three (as
/// o200k splits them); a run of punctuation is one token per three characters; a space before a
/// word belongs to it; other characters (emoji, CJK) are one token each.
pub fn estimate(text: &str) -> usize {
    let mut tokens = 0;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        tokens += if c.is_alphabetic() {
            1 + run(&mut chars, |c| c.is_alphabetic()) / 10
        } else if c.is_ascii_digit() {
            run(&mut chars, char::is_ascii_digit).div_ceil(3)
        } else if c == ' ' {
            // One space joins the next word; a run of spaces is a token of its own.
            usize::from(chars.peek() == Some(&' ') && run(&mut chars, |c| *c == ' ') > 1)
        } else if c.is_whitespace() {
            run(&mut chars, |c| c.is_whitespace() && *c != ' ');
            1
        } else if c.is_ascii_punctuation() {
            run(&mut chars, char::is_ascii_punctuation).div_ceil(3)
        } else {
            1
        };
    }
    tokens
}

/// Consumes the rest of a run whose first character was just read; returns the run's length.
fn run(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, same: impl Fn(&char) -> bool) -> usize {
    let mut len = 1;
    while chars.next_if(&same).is_some() {
        len += 1;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exact(text: &str) -> usize {
        tiktoken_rs::o200k_base_singleton().encode_ordinary(text).len()
    }

    #[test]
    fn the_estimate_stays_close_to_o200k_on_markdown_and_json() {
        let markdown = "# ISS-000042: Split the metrics endpoint\n\n**Status:** open · **Priority:** high\n\n\
            The current behaviour surprises users: the request succeeds but the state on disk does not \
            match what the UI reports. Reproduce it with a fresh workspace, then compare the two.\n\n\
            ## Acceptance criteria\n- [ ] A regression test fails before the change\n- [x] Logs name the file\n"
            .repeat(8);
        let json = r#"{"issues":[{"id":"ISS-000004","title":"Remove billing webhook after migration","status":"open","priority":"medium","labels":["backend","billing"],"updatedAt":"2026-11-23T10:02:11.123Z"}],"totalCount":40,"nextCursor":"25.a1b2c3d4e5f6"}"#
            .repeat(8);
        for text in [markdown.as_str(), json.as_str()] {
            let (e, x) = (estimate(text) as f64, exact(text) as f64);
            assert!((e - x).abs() <= x * 0.1, "estimate {e} vs o200k {x} for {}", &text[..40]);
        }
    }

    #[test]
    fn empty_and_tiny_texts() {
        assert_eq!(estimate(""), 0);
        assert_eq!(estimate("hello"), 1);
        assert_eq!(estimate("hello world"), 2);
        assert_eq!(estimate("1234567"), 3);
        assert_eq!(estimate("a   b"), 3);
    }
}
