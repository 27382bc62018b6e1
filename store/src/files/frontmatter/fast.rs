//! A frontmatter reader for indexing that reads the plain, common YAML of issue files line by line
//! instead of building a YAML tree through serde_yaml (a quarter of a cold index build's CPU).
//!
//! It accepts only what it fully understands and answers `None` for everything else, so the
//! caller falls back to serde_yaml: for every input it accepts, it gives exactly the values
//! serde_yaml 0.9 gives for the keys docket reads (the tests in `fast/tests.rs` run both on
//! hand-written, generated and real files). What it takes:
//!
//! - `key: value` lines at column 0, keys plain words (`[A-Za-z][A-Za-z0-9_-]*`, not a null or
//!   boolean word), each key once (serde_yaml rejects a duplicate: the file stays broken);
//! - one-line values: single-quoted (`''` escape), double-quoted without a backslash, plain
//!   scalars whose resolution is certain (null and boolean words, decimal digits, and text that
//!   no number form can match), `[]`, `{}` and one-line flow lists of such items;
//! - `key:` followed by a block list (`- item` lines at one indentation, 0 included) of one-line
//!   scalars, or by a nested mapping of `key: value` lines at one indentation;
//! - block scalars (`|`, `|-`, `>`, `>-`) as values of keys, in their simplest form.
//!
//! Not taken: comments, tabs, anchors, aliases, tags, other block scalars, multi-line flow and
//! quoted scalars, deeper
//! nesting, directives and document markers, escapes, and any character a YAML reader treats
//! specially (line breaks other than `\n` and `\r\n`, control characters, a BOM inside).

use serde_yaml::{Mapping, Number, Value as Yaml};

use super::Front;

/// Longest key taken (libyaml refuses a simple key longer than 1024 characters).
const MAX_KEY: usize = 64;

/// The keys docket reads, or `None` when `yaml` is not in the simple form described above.
pub(super) fn front(yaml: &str) -> Option<Front> {
    if !clean(yaml) {
        return None;
    }
    let mut lines = Lines { rest: yaml.split('\n') };
    let mut front = Front::default();
    let mut seen: Vec<&str> = Vec::with_capacity(16);
    while let Some(line) = lines.next_content() {
        let (key, rest) = key_line(line)?;
        if seen.contains(&key) {
            return None;
        }
        seen.push(key);
        let value = if rest.is_empty() { block(&mut lines)? } else { value(rest, 0, &mut lines)? };
        let slot = match key {
            "id" => &mut front.id,
            "title" => &mut front.title,
            "type" => &mut front.kind,
            "status" => &mut front.status,
            "priority" => &mut front.priority,
            "labels" => &mut front.labels,
            "assignee" => &mut front.assignee,
            "project" => &mut front.project,
            "createdAt" => &mut front.created_at,
            "updatedAt" => &mut front.updated_at,
            "closedAt" => &mut front.closed_at,
            "wranglerContext" => &mut front.context,
            "blockedBy" => &mut front.blocked_by,
            _ => continue,
        };
        *slot = Some(value);
    }
    Some(front)
}

/// Only characters that YAML reads as themselves: printable, no tab, no BOM, and no line break
/// but `\n` and `\r\n`.
fn clean(yaml: &str) -> bool {
    let bytes = yaml.as_bytes();
    yaml.char_indices().all(|(i, c)| match c {
        '\n' | ' '..='~' => true,
        '\r' => bytes.get(i + 1) == Some(&b'\n'),
        '\u{a0}'..='\u{d7ff}' => !matches!(c, '\u{2028}' | '\u{2029}'),
        '\u{e000}'..='\u{fffd}' => c != '\u{feff}',
        '\u{10000}'.. => true,
        _ => false,
    })
}

/// The frontmatter's lines without their line endings.
struct Lines<'a> {
    rest: std::str::Split<'a, char>,
}

impl<'a> Lines<'a> {
    /// The next line that is not blank (blank lines mean nothing outside multi-line scalars,
    /// which are not taken).
    fn next_content(&mut self) -> Option<&'a str> {
        self.rest.by_ref().map(|l| l.strip_suffix('\r').unwrap_or(l)).find(|l| !l.bytes().all(|b| b == b' '))
    }

    /// The next non-blank line and its indentation, without taking it.
    fn peek(&self) -> Option<(usize, &'a str)> {
        self.rest.clone().map(|l| l.strip_suffix('\r').unwrap_or(l)).find(|l| !l.bytes().all(|b| b == b' ')).map(|l| {
            let indent = l.len() - l.trim_start_matches(' ').len();
            (indent, l)
        })
    }
}

/// `key:` and the value after it (trimmed; empty when the value is on the following lines).
fn key_line(line: &str) -> Option<(&str, &str)> {
    let bytes = line.as_bytes();
    if !bytes.first()?.is_ascii_alphabetic() {
        return None;
    }
    let end = bytes.iter().position(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-'))?;
    let key = &line[..end];
    if end > MAX_KEY || bytes[end] != b':' || null_word(key) || bool_word(key).is_some() {
        return None;
    }
    let rest = &line[end + 1..];
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    Some((key, rest.trim_matches(' ')))
}

/// The value of a `key:` with nothing after it: a block list, a nested mapping, or null.
fn block(lines: &mut Lines<'_>) -> Option<Yaml> {
    let Some((indent, line)) = lines.peek() else { return Some(Yaml::Null) };
    if is_item(&line[indent..]) {
        let mut items = Vec::new();
        while let Some((i, line)) = lines.peek() {
            if i != indent || !is_item(&line[i..]) {
                break;
            }
            lines.next_content();
            let value = line[i + 1..].trim_matches(' ');
            items.push(if value.is_empty() { Yaml::Null } else { scalar(value)? });
        }
        return Some(Yaml::Sequence(items));
    }
    if indent == 0 {
        return Some(Yaml::Null);
    }
    let mut map = Mapping::new();
    while let Some((i, line)) = lines.peek() {
        if i == 0 {
            break;
        }
        if i != indent {
            return None;
        }
        lines.next_content();
        let (key, rest) = key_line(&line[i..])?;
        let value = if rest.is_empty() { Yaml::Null } else { value(rest, indent, lines)? };
        if map.insert(Yaml::String(key.to_string()), value).is_some() {
            return None;
        }
    }
    Some(Yaml::Mapping(map))
}

/// A block list item: `- value` or a lone `-`.
fn is_item(line: &str) -> bool {
    line == "-" || line.starts_with("- ")
}

/// The value of a key at indentation `parent`, starting on its line (`rest`, not empty).
fn value(rest: &str, parent: usize, lines: &mut Lines<'_>) -> Option<Yaml> {
    match rest.as_bytes()[0] {
        b'|' | b'>' => block_scalar(rest, parent, lines),
        _ => inline(rest),
    }
}

/// A block scalar (`|`, `|-`, `>`, `>-`; js-yaml folds long titles with `>-`) whose lines all
/// sit at one indentation deeper than `parent`: no blank, more-indented or trailing-space line
/// (those change what folding and chomping keep), and at least one line.
fn block_scalar(header: &str, parent: usize, lines: &mut Lines<'_>) -> Option<Yaml> {
    let (folded, strip) = match header {
        "|" => (false, false),
        "|-" => (false, true),
        ">" => (true, false),
        ">-" => (true, true),
        _ => return None,
    };
    let mut text = String::new();
    let mut indent = None;
    while let Some(raw) = lines.rest.clone().next() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let k = line.len() - line.trim_start_matches(' ').len();
        if k == line.len() {
            // Only the nothing after the frontmatter's last line break ends the scalar.
            if line.is_empty() && lines.rest.clone().nth(1).is_none() {
                break;
            }
            return None;
        }
        match indent {
            None if k > parent => indent = Some(k),
            Some(i) if k == i => {}
            // A line less indented ends the scalar; the caller checks what it is.
            Some(i) if k < i => break,
            _ => return None,
        }
        if line.ends_with(' ') {
            return None;
        }
        lines.rest.next();
        if !text.is_empty() {
            text.push(if folded { ' ' } else { '\n' });
        }
        text.push_str(&line[k..]);
    }
    indent?;
    if !strip {
        text.push('\n');
    }
    Some(Yaml::String(text))
}

/// A value written on its key's line.
fn inline(v: &str) -> Option<Yaml> {
    match v {
        "{}" => Some(Yaml::Mapping(Mapping::new())),
        _ if v.starts_with('[') => flow_list(v),
        _ => scalar(v),
    }
}

/// A one-line scalar: quoted, or plain and certain to read as what [`plain`] says.
fn scalar(v: &str) -> Option<Yaml> {
    match v.as_bytes()[0] {
        b'\'' => match single_quoted(v)? {
            (s, "") => Some(Yaml::String(s)),
            _ => None,
        },
        b'"' => match double_quoted(v)? {
            (s, "") => Some(Yaml::String(s.to_string())),
            _ => None,
        },
        _ => plain(v, false),
    }
}

/// `'text'` with `''` for a quote: the text and what follows the closing quote.
fn single_quoted(v: &str) -> Option<(String, &str)> {
    let inner = &v[1..];
    let mut out = String::with_capacity(inner.len());
    let mut from = 0;
    loop {
        let at = from + inner[from..].find('\'')?;
        out.push_str(&inner[from..at]);
        if inner[at + 1..].starts_with('\'') {
            out.push('\'');
            from = at + 2;
        } else {
            return Some((out, &inner[at + 1..]));
        }
    }
}

/// `"text"` without escapes: the text and what follows the closing quote.
fn double_quoted(v: &str) -> Option<(&str, &str)> {
    let inner = &v[1..];
    let at = inner.find('"')?;
    let text = &inner[..at];
    (!text.contains('\\')).then_some((text, &inner[at + 1..]))
}

/// `[a, 'b', "c"]` on one line, items one-line scalars; `[]` and `[ ]` are empty.
fn flow_list(v: &str) -> Option<Yaml> {
    let inner = v.strip_prefix('[')?.strip_suffix(']')?;
    let mut items = Vec::new();
    let mut rest = inner.trim_start_matches(' ');
    if rest.is_empty() {
        return Some(Yaml::Sequence(items));
    }
    loop {
        let (item, after) = match rest.as_bytes()[0] {
            b'\'' => single_quoted(rest).map(|(s, after)| (Yaml::String(s), after))?,
            b'"' => double_quoted(rest).map(|(s, after)| (Yaml::String(s.to_string()), after))?,
            _ => {
                let end = rest.find(',').unwrap_or(rest.len());
                (plain(rest[..end].trim_end_matches(' '), true)?, &rest[end..])
            }
        };
        items.push(item);
        let after = after.trim_start_matches(' ');
        if after.is_empty() {
            return Some(Yaml::Sequence(items));
        }
        rest = after.strip_prefix(',')?.trim_start_matches(' ');
        if rest.is_empty() {
            return None;
        }
    }
}

/// A plain scalar (already trimmed) as serde_yaml resolves it, or `None` when it is not a valid
/// one-line plain scalar or its resolution is not certain (floats, signs, hex, dates, ...).
fn plain(v: &str, in_flow: bool) -> Option<Yaml> {
    let first = *v.as_bytes().first()?;
    if b"-?:,[]{}#&*!|>'\"%@`".contains(&first) || v.ends_with(':') || v.contains(": ") || v.contains(" #") {
        return None;
    }
    if in_flow && v.contains([',', '[', ']', '{', '}', '#', ':']) {
        return None;
    }
    if null_word(v) {
        return Some(Yaml::Null);
    }
    if let Some(b) = bool_word(v) {
        return Some(Yaml::Bool(b));
    }
    if v.bytes().all(|b| b.is_ascii_digit()) {
        // `000037` is text (YAML 1.2 has no octal without `0o`); other digits a number.
        if v.len() > 1 && first == b'0' {
            return Some(Yaml::String(v.to_string()));
        }
        return if v.len() <= 19 { v.parse::<u64>().ok().map(|n| Yaml::Number(Number::from(n))) } else { None };
    }
    // Text for certain: no integer or float form starts with a letter (`inf` and `nan` parse
    // only to non-finite floats, which serde_yaml reads as text); and past a `0x`/`0o`/`0b`
    // prefix and `.inf`/`.nan`, every number is made of digits, `.`, `e`, `E`, `+` and `-`.
    let unsigned = v.strip_prefix(['+', '-']).unwrap_or(v);
    let radix = ["0x", "0o", "0b"].iter().any(|p| unsigned.starts_with(p));
    let special = matches!(unsigned, ".inf" | ".Inf" | ".INF" | ".nan" | ".NaN" | ".NAN");
    let float_byte = |b: u8| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-');
    if first.is_ascii_alphabetic() || !(radix || special || v.bytes().all(float_byte)) {
        return Some(Yaml::String(v.to_string()));
    }
    None
}

fn null_word(v: &str) -> bool {
    matches!(v, "~" | "null" | "Null" | "NULL")
}

fn bool_word(v: &str) -> Option<bool> {
    match v {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
