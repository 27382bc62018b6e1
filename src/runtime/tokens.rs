//! Approximate token counts for `_meta.tokens`: OpenAI's o200k_base encoding (tiktoken-rs).
//! Claude and other models tokenize differently, so the count is a guide to context cost, not
//! an exact bill.

/// Tokens of `text` under o200k_base.
pub fn count(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton().encode_ordinary(text).len()
}

/// Loads the encoding on a background thread so the first tool call does not wait for it.
pub fn preload() {
    std::thread::spawn(|| {
        count("");
    });
}
