//! Lossless editing of a frontmatter block: the lines of the keys being changed are replaced,
//! every other byte (comments, quoting, key order, unknown keys, anchors elsewhere, line endings)
//! stays as it was. The result is parsed again and must equal the old mapping with exactly the
//! requested changes; anything else is refused instead of written. [`in_place`]: one value of a
//! whole file replaced, its quoting kept (the repairs' edits).

pub mod in_place;

use serde_yaml::{Mapping, Value as Yaml};

/// One change: set `key` to a value, or remove it (`None`).
pub type KeyEdit = (&'static str, Option<Yaml>);

/// A top-level `key: value` entry: its key as written and the lines its value spans.
struct Entry<'a> {
    name: String,
    key_text: &'a str,
    start: usize,
    end: usize,
}

/// Applies `edits` to the frontmatter text `yaml` (the lines between the `---` lines, each ending
/// in `newline`), whose parsed form is `old`. Keys not present yet are appended at the end.
pub fn apply(yaml: &str, old: &Mapping, newline: &str, edits: &[KeyEdit]) -> Result<String, String> {
    let lines: Vec<&str> = yaml.split_inclusive('\n').collect();
    let entries = entries(&lines);
    // Each output line range is replaced by a rendered block; appended keys come last.
    let mut replaced: Vec<(usize, usize, String)> = Vec::new();
    let mut appended = String::new();
    for (key, value) in edits {
        let found: Vec<&Entry> = entries.iter().filter(|e| e.name == *key).collect();
        match (found.as_slice(), value) {
            ([], None) => {}
            ([], Some(v)) => appended.push_str(&render_entry(key, v, None, newline)),
            ([e], v) => {
                let old_lines = &lines[e.start..e.end];
                let mut text =
                    v.as_ref().map(|v| render_entry(e.key_text, v, Some(old_lines), newline)).unwrap_or_default();
                text.push_str(&comment_lines(old_lines));
                replaced.push((e.start, e.end, text));
            }
            _ => return Err(format!("the key `{key}` appears more than once")),
        }
    }
    replaced.sort_by_key(|r| r.0);
    let mut out = String::with_capacity(yaml.len() + 64);
    let mut at = 0;
    for (start, end, text) in replaced {
        out.extend(lines[at..start].iter().copied());
        out.push_str(&text);
        at = end;
    }
    out.extend(lines[at..].iter().copied());
    if !appended.is_empty() {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push_str(newline);
        }
        out.push_str(&appended);
    }
    verify(&out, old, edits)?;
    Ok(out)
}

/// The parsed result must be the old mapping with exactly `edits` applied.
fn verify(new_yaml: &str, old: &Mapping, edits: &[KeyEdit]) -> Result<(), String> {
    let parsed: Yaml = if new_yaml.trim().is_empty() {
        Yaml::Mapping(Mapping::new())
    } else {
        serde_yaml::from_str(new_yaml).map_err(|e| format!("the edited frontmatter would not parse ({e})"))?
    };
    let Yaml::Mapping(new) = parsed else { return Err("the edited frontmatter would not be a mapping".into()) };
    let mut expected = old.clone();
    for (key, value) in edits {
        match value {
            Some(v) => {
                expected.insert(Yaml::String((*key).into()), v.clone());
            }
            None => {
                expected.remove(*key);
            }
        }
    }
    if new != expected {
        let keys: Vec<&str> = edits.iter().map(|(k, _)| *k).collect();
        return Err(format!(
            "changing {} in place would also change other keys (anchors, aliases, merge keys or a flow-style mapping)",
            keys.join(", ")
        ));
    }
    Ok(())
}

/// Every top-level key line and the lines that belong to its value.
fn entries<'a>(lines: &[&'a str]) -> Vec<Entry<'a>> {
    let mut out: Vec<Entry<'a>> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if let Some((key_text, name)) = top_level_key(line) {
            // A value already ended by a column-0 comment keeps that end: the comment is not its.
            if let Some(prev) = out.last_mut()
                && prev.end == lines.len()
            {
                prev.end = i;
            }
            out.push(Entry { name, key_text, start: i, end: lines.len() });
        } else if is_boundary(line)
            && let Some(prev) = out.last_mut()
            && prev.end == lines.len()
        {
            // A column-0 comment or document marker ends the value before it.
            prev.end = i;
        }
    }
    // Blank and comment lines after a value belong to the gap, not the value (in a block scalar
    // a `#` line is text, so there only blank lines are).
    for e in &mut out {
        let literal = is_block_scalar(lines[e.start]);
        while e.end > e.start + 1 && {
            let t = lines[e.end - 1].trim();
            t.is_empty() || (!literal && t.starts_with('#'))
        } {
            e.end -= 1;
        }
    }
    out
}

/// Whether an entry's first line starts a block scalar (`key: |` or `key: >-`).
fn is_block_scalar(line: &str) -> bool {
    after_colon(line).starts_with(['|', '>'])
}

/// The comment lines inside an entry's value (not a block scalar's): they are kept, after the
/// new value, when the value is replaced.
fn comment_lines(lines: &[&str]) -> String {
    if lines.first().is_some_and(|l| is_block_scalar(l)) {
        return String::new();
    }
    lines.iter().skip(1).filter(|l| l.trim_start().starts_with('#')).copied().collect()
}

/// A line at column 0 that is not part of a value: a comment or a document marker.
fn is_boundary(line: &str) -> bool {
    line.starts_with('#') || line.starts_with("---") || line.starts_with("...")
}

/// `(key as written, key name)` when `line` starts a top-level block-mapping entry.
fn top_level_key(line: &str) -> Option<(&str, String)> {
    let first = line.chars().next()?;
    if matches!(first, ' ' | '\t' | '#' | '-' | '\r' | '\n' | '?' | '{' | '[' | '%' | '&' | '*' | '!' | '|' | '>') {
        return None;
    }
    let (key_len, name) = match first {
        '"' => {
            let end = closing_double_quote(line)?;
            (end + 1, serde_json::from_str::<String>(&line[..=end]).ok()?)
        }
        '\'' => {
            let end = closing_single_quote(line)?;
            (end + 1, line[1..end].replace("''", "'"))
        }
        _ => {
            let colon = line.char_indices().find(|&(i, c)| c == ':' && followed_by_space(line, i))?.0;
            (colon, line[..colon].trim_end().to_string())
        }
    };
    let rest = &line[key_len..];
    let rest = rest.trim_start_matches([' ', '\t']);
    (rest.starts_with(':') && followed_by_space(rest, 0)).then(|| (line[..key_len].trim_end(), name))
}

fn followed_by_space(s: &str, colon: usize) -> bool {
    matches!(s.as_bytes().get(colon + 1), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
}

fn closing_double_quote(line: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in line.char_indices().skip(1) {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return Some(i),
            _ => escaped = false,
        }
    }
    None
}

fn closing_single_quote(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        if bytes[i] == b'\'' {
            if bytes.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return Some(i);
        }
        i += 1;
    }
    None
}

/// How the old value was written, so a changed value keeps its look.
#[derive(Clone, Copy, PartialEq)]
enum Style {
    Plain,
    Single,
    Double,
}

/// `key: value` lines for `value`, in the old entry's style where it had one.
pub fn render_entry(key_text: &str, value: &Yaml, old: Option<&[&str]>, newline: &str) -> String {
    let first_rest = old.and_then(|l| l.first()).map(|l| after_colon(l)).unwrap_or_default();
    let style = match first_rest.chars().next() {
        Some('\'') => Style::Single,
        Some('"') => Style::Double,
        _ if is_date_key(key_text) && old.is_none() => Style::Single,
        _ => Style::Plain,
    };
    let text = match value {
        Yaml::String(s) => {
            let comment = (style == Style::Plain).then(|| trailing_comment(first_rest)).flatten().unwrap_or_default();
            format!("{key_text}: {}{comment}\n", scalar(s, style))
        }
        Yaml::Sequence(items) if items.is_empty() => format!("{key_text}: []{}\n", collection_comment(first_rest)),
        Yaml::Sequence(items) => {
            let indent = old.and_then(sequence_indent).unwrap_or(2);
            let mut s = format!("{key_text}:{}\n", collection_comment(first_rest));
            for item in items {
                let rendered = match item {
                    Yaml::String(v) => scalar(v, Style::Plain),
                    other => plain(other),
                };
                s.push_str(&format!("{}- {}\n", " ".repeat(indent), indent_continuation(&rendered, indent + 2)));
            }
            s
        }
        Yaml::Mapping(m) if m.is_empty() => format!("{key_text}: {{}}{}\n", collection_comment(first_rest)),
        Yaml::Mapping(_) => {
            let mut s = format!("{key_text}:{}\n", collection_comment(first_rest));
            for line in plain(value).lines() {
                s.push_str(&format!("  {line}\n"));
            }
            s
        }
        other => format!("{key_text}: {}\n", plain(other)),
    };
    if newline == "\n" { text } else { text.replace('\n', newline) }
}

fn is_date_key(key: &str) -> bool {
    matches!(key, "createdAt" | "updatedAt" | "closedAt")
}

/// The text after `key:` on an entry's first line.
fn after_colon(line: &str) -> &str {
    let key_len = top_level_key(line).map_or(0, |(k, _)| k.len());
    let rest = line[key_len..].trim_start();
    rest.strip_prefix(':').unwrap_or(rest).trim_matches([' ', '\t', '\r', '\n'])
}

/// ` # comment` after a plain scalar, kept when that scalar is replaced.
fn trailing_comment(rest: &str) -> Option<String> {
    let at = rest.find(" #")?;
    Some(format!(" {}", rest[at..].trim()))
}

/// The ` # comment` on the key line of an old sequence or mapping (empty, flow or block),
/// kept on the key line of the new one.
fn collection_comment(rest: &str) -> String {
    let after = if rest.starts_with('#') {
        return format!(" {}", rest.trim());
    } else if rest.starts_with(['[', '{']) {
        match rest.rfind([']', '}']) {
            Some(i) => &rest[i + 1..],
            None => return String::new(),
        }
    } else {
        return String::new();
    };
    trailing_comment(after).unwrap_or_default()
}

/// Indentation of the `- ` items of an old block sequence.
fn sequence_indent(lines: &[&str]) -> Option<usize> {
    lines.iter().skip(1).find_map(|l| {
        let trimmed = l.trim_start_matches(' ');
        trimmed.starts_with('-').then(|| l.len() - trimmed.len())
    })
}

/// A string scalar in `style` when that style can hold it, else the serializer's choice.
fn scalar(s: &str, style: Style) -> String {
    let printable = !s.chars().any(|c| c.is_control());
    match style {
        Style::Single if printable => format!("'{}'", s.replace('\'', "''")),
        Style::Double => serde_json::to_string(s).unwrap_or_else(|_| plain(&Yaml::String(s.into()))),
        _ => plain(&Yaml::String(s.into())),
    }
}

/// serde_yaml's rendering of a value, without the trailing newline.
fn plain(v: &Yaml) -> String {
    let s = serde_yaml::to_string(v).unwrap_or_default();
    s.strip_suffix('\n').unwrap_or(&s).to_string()
}

/// Indents every line after the first of a multi-line rendering (block scalars in sequences).
fn indent_continuation(s: &str, indent: usize) -> String {
    let pad = " ".repeat(indent);
    s.lines()
        .enumerate()
        .map(|(i, l)| if i == 0 { l.to_string() } else { format!("{pad}{l}") })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(yaml: &str, edits: &[KeyEdit]) -> Result<String, String> {
        let old: Mapping = serde_yaml::from_str(yaml).expect("test yaml parses");
        apply(yaml, &old, if yaml.contains("\r\n") { "\r\n" } else { "\n" }, edits)
    }

    fn s(v: &str) -> Option<Yaml> {
        Some(Yaml::String(v.into()))
    }

    #[test]
    fn only_the_changed_key_changes() {
        let yaml = "# a comment\nid: ISS-000001   # trailing\ntitle: 404\nstatus: Closed\nlabels: [1, two]\n404: note\nx: &a {k: v}\ny: *a\nupdatedAt: '2026-01-01T00:00:00.000Z'\n";
        let out = edit(yaml, &[("updatedAt", s("2026-02-02T00:00:00.000Z"))]).expect("edits");
        assert_eq!(out, yaml.replace("2026-01-01", "2026-02-02"));
    }

    #[test]
    fn a_comment_line_after_a_value_stays_when_the_value_changes() {
        let yaml = "labels: []\n# why the labels are empty\nupdatedAt: '2026-01-01'\n# planner note\nx: 1\n";
        let labels = Yaml::Sequence(vec![Yaml::String("bug".into())]);
        let out = edit(yaml, &[("labels", Some(labels)), ("updatedAt", s("2026-02-02"))]).expect("edit");
        assert_eq!(
            out,
            "labels:\n  - bug\n# why the labels are empty\nupdatedAt: '2026-02-02'\n# planner note\nx: 1\n"
        );
    }

    #[test]
    fn block_values_are_replaced_whole_and_blank_lines_kept() {
        let yaml = "labels:\n  - a\n  - b\n\npriority: high\n";
        let labels = Some(Yaml::Sequence(vec![Yaml::String("a".into()), Yaml::String("c: d".into())]));
        let out = edit(yaml, &[("labels", labels)]).expect("edits");
        assert_eq!(out, "labels:\n  - a\n  - 'c: d'\n\npriority: high\n");
    }

    #[test]
    fn comment_lines_and_inline_comments_around_a_replaced_value_are_kept() {
        let labels = || Some(Yaml::Sequence(vec![Yaml::String("bug".into())]));
        let yaml = "labels: []\n  # keep me\npriority: high\n";
        assert_eq!(
            edit(yaml, &[("labels", labels())]).expect("edits"),
            "labels:\n  - bug\n  # keep me\npriority: high\n"
        );
        let yaml = "labels: [] # none yet\n# col 0\nstatus: open\n";
        assert_eq!(
            edit(yaml, &[("labels", labels())]).expect("edits"),
            "labels: # none yet\n  - bug\n# col 0\nstatus: open\n"
        );
        let yaml = "labels:\n  - a\n  # between\n  - b\nstatus: open\n";
        assert_eq!(
            edit(yaml, &[("labels", labels())]).expect("edits"),
            "labels:\n  - bug\n  # between\nstatus: open\n"
        );
        let yaml = "notes: |\n  # text, not a comment\nlabels: []\n";
        assert_eq!(
            edit(yaml, &[("labels", labels())]).expect("edits"),
            "notes: |\n  # text, not a comment\nlabels:\n  - bug\n"
        );
    }

    #[test]
    fn keys_are_appended_removed_and_crlf_kept() {
        let yaml = "id: X\r\nassignee: ann\r\nstatus: open # why\r\n";
        let out = edit(yaml, &[("assignee", None), ("status", s("closed")), ("closedAt", s("2026"))]).expect("edits");
        assert_eq!(out, "id: X\r\nstatus: closed # why\r\nclosedAt: '2026'\r\n");
    }

    #[test]
    fn an_anchor_used_elsewhere_is_refused_not_broken() {
        let yaml = "project: &p Alpha\nother: *p\n";
        assert!(edit(yaml, &[("project", s("Beta"))]).is_err());
        assert!(edit(yaml, &[("status", s("open"))]).is_ok());
    }

    #[test]
    fn flow_mappings_are_refused() {
        assert!(edit("{id: X, status: open}\n", &[("status", s("closed"))]).is_err());
    }

    #[test]
    fn quoted_keys_and_styles_are_kept() {
        let yaml = "\"title\": \"Old\"\n'status': 'open'\n";
        let out = edit(yaml, &[("title", s("New \"one\"")), ("status", s("it's"))]).expect("edits");
        assert_eq!(out, "\"title\": \"New \\\"one\\\"\"\n'status': 'it''s'\n");
    }

    #[test]
    fn multi_line_titles_round_trip() {
        let yaml = "title: >-\n  long folded\n  title\nstatus: open\n";
        let out = edit(yaml, &[("title", s("line one\nline two"))]).expect("edits");
        let back: Mapping = serde_yaml::from_str(&out).expect("parses");
        assert_eq!(back.get("title"), Some(&Yaml::String("line one\nline two".into())));
        assert!(out.ends_with("status: open\n"));
    }
}
