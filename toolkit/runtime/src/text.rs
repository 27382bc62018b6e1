//! Text for messages: a value cut to a length, saying what was cut, and the name of a JSON
//! value's type.

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
