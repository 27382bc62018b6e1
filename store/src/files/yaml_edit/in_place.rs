//! One frontmatter value replaced in place, for the repairs ([`crate::repair`]): the bytes of the
//! value alone change (its quotes kept; never a re-rendered entry, as [`super::apply`] writes),
//! and the result is parsed again and must be the same frontmatter with exactly that value
//! changed and the same body, else nothing is returned. Also what a repair reads of a file whose
//! frontmatter the index may not have: whether it has a key, its body, why it does not parse.

use serde_yaml::{Mapping, Value as Yaml};

/// The frontmatter text of a file and its byte range, if it has a closed `---` block.
fn front_range(text: &str) -> Option<(usize, usize)> {
    let start = if text.starts_with("---\n") {
        4
    } else if text.starts_with("---\r\n") {
        5
    } else {
        return None;
    };
    let mut offset = start;
    for line in text[start..].split_inclusive('\n') {
        if line.trim_end_matches(['\r', '\n']) == "---" {
            return Some((start, offset));
        }
        offset += line.len();
    }
    None
}

fn parse_front(yaml: &str) -> Result<Mapping, String> {
    match serde_yaml::from_str::<Yaml>(yaml).map_err(|e| e.to_string())? {
        Yaml::Null => Ok(Mapping::new()),
        Yaml::Mapping(m) => Ok(m),
        _ => Err("frontmatter is not a mapping of keys".into()),
    }
}

/// Why a file's frontmatter does not parse.
pub fn frontmatter_error(text: &str) -> String {
    match front_range(text) {
        None if text.starts_with("---") => "the frontmatter has no closing `---` line".into(),
        None => "no frontmatter".into(),
        Some((a, b)) => parse_front(&text[a..b]).err().unwrap_or_else(|| "it parses now".into()),
    }
}

/// Whether the file's frontmatter parses and has top-level `key`.
pub fn has_key(text: &str, key: &str) -> bool {
    front_range(text).and_then(|(a, b)| parse_front(&text[a..b]).ok()).is_some_and(|m| m.contains_key(key))
}

/// The text of the body (after the frontmatter), or all of it.
pub fn body(text: &str) -> &str {
    match front_range(text) {
        Some((_, end)) => {
            let rest = &text[end..];
            rest.split_once('\n').map_or("", |(_, body)| body)
        }
        None => text,
    }
}

/// `text` with the value of `key` (top level) or `key` under `parent` replaced by `new`, every
/// other byte kept. `None` when the key is not written as a plain `key: value` line, or when the
/// result would not read back as the same frontmatter with only that value changed.
pub fn replace_value(text: &str, parent: Option<&str>, key: &str, new: &str) -> Option<String> {
    let (start, end) = front_range(text)?;
    let yaml = &text[start..end];
    let mut offset = start;
    let mut in_parent = false;
    let mut target = None;
    for line in yaml.split_inclusive('\n') {
        let indented = line.starts_with([' ', '\t']);
        let name = line.trim_start().split_once(':').map(|(k, _)| k.trim().trim_matches(['"', '\'']));
        if !indented && !line.trim().is_empty() && !line.starts_with('#') {
            in_parent = parent.is_some_and(|p| name == Some(p));
        }
        let wanted = match parent {
            None => !indented && name == Some(key),
            Some(_) => in_parent && indented && name == Some(key),
        };
        if wanted {
            target = Some((offset, line));
            break;
        }
        offset += line.len();
    }
    let (line_start, line) = target?;
    let colon = line.find(':')? + 1;
    let after = &line[colon..];
    let value_start = colon + (after.len() - after.trim_start_matches([' ', '\t']).len());
    let rest = &line[value_start..];
    let (value_len, replacement) = match rest.chars().next()? {
        q @ ('"' | '\'') => {
            let close = rest[1..].find(q)? + 2;
            (close, format!("{q}{new}{q}"))
        }
        _ => {
            let stop = rest.find(" #").unwrap_or(rest.len());
            let len = rest[..stop].trim_end_matches(['\r', '\n', ' ', '\t']).len();
            let plain = serde_yaml::from_str::<Yaml>(new).ok() == Some(Yaml::String(new.to_string()));
            (len, if plain { new.to_string() } else { format!("\"{new}\"") })
        }
    };
    let at = line_start + value_start;
    let out = format!("{}{replacement}{}", &text[..at], &text[at + value_len..]);
    // The check: the same frontmatter with exactly this value changed, and the same body.
    let mut expected = parse_front(yaml).ok()?;
    let slot = match parent {
        None => &mut expected,
        Some(p) => match expected.get_mut(p)? {
            Yaml::Mapping(m) => m,
            _ => return None,
        },
    };
    slot.insert(Yaml::String(key.into()), Yaml::String(new.into()));
    let (s2, e2) = front_range(&out)?;
    (parse_front(&out[s2..e2]).ok()? == expected && out[e2..] == text[end..]).then_some(out)
}

/// `text` with the entry `old` of the top-level list `key` (`blockedBy: [A, B]` or a block list)
/// replaced by `new`, every other byte kept. `None` unless the result reads back as the same
/// frontmatter with exactly that entry changed.
pub fn replace_list_item(text: &str, key: &str, old: &str, new: &str) -> Option<String> {
    let (start, end) = front_range(text)?;
    let yaml = &text[start..end];
    // The entry's lines: the `key:` line and the indented or `- ` lines after it.
    let mut offset = start;
    let mut region: Option<(usize, usize)> = None;
    for line in yaml.split_inclusive('\n') {
        let top_level = !line.starts_with([' ', '\t', '-']) && !line.trim().is_empty() && !line.starts_with('#');
        match region.as_mut() {
            None if top_level
                && line.split_once(':').is_some_and(|(k, _)| k.trim().trim_matches(['"', '\'']) == key) =>
            {
                region = Some((offset, offset + line.len()));
            }
            Some(_) if top_level => break,
            Some(r) => r.1 = offset + line.len(),
            None => {}
        }
        offset += line.len();
    }
    let (a, b) = region?;
    let word = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let entry = &text[a..b];
    let mut edited = String::with_capacity(entry.len() + new.len());
    let mut rest = entry;
    let mut replaced = 0;
    while let Some(i) = rest.find(old) {
        let whole =
            !rest[..i].chars().next_back().is_some_and(word) && !rest[i + old.len()..].chars().next().is_some_and(word);
        edited.push_str(&rest[..i]);
        edited.push_str(if whole { new } else { old });
        replaced += usize::from(whole);
        rest = &rest[i + old.len()..];
    }
    edited.push_str(rest);
    if replaced != 1 {
        return None;
    }
    let out = format!("{}{edited}{}", &text[..a], &text[b..]);
    let mut expected = parse_front(yaml).ok()?;
    let Some(Yaml::Sequence(items)) = expected.get_mut(key) else { return None };
    let hits = items.iter().filter(|i| i.as_str() == Some(old)).count();
    if hits != 1 {
        return None;
    }
    for item in items.iter_mut().filter(|i| i.as_str() == Some(old)) {
        *item = Yaml::String(new.into());
    }
    let (s2, e2) = front_range(&out)?;
    (parse_front(&out[s2..e2]).ok()? == expected && out[e2..] == text[end..]).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "---\nid: \"000001\"\ntitle: 'A: b'  # keep\nwranglerContext:\n  agentId: x\n  parentTaskId: '000043'\nstatus: open\n---\nbody with id: 000001\n";

    #[test]
    fn only_the_value_changes() {
        let out = replace_value(FILE, None, "id", "ISS-000300").expect("edited");
        assert_eq!(out, FILE.replacen("\"000001\"", "\"ISS-000300\"", 1));
        let out = replace_value(FILE, Some("wranglerContext"), "parentTaskId", "SPEC-000061").expect("edited");
        assert_eq!(out, FILE.replace("'000043'", "'SPEC-000061'"));
        let bare = "---\nid: 000007\n---\nx";
        assert_eq!(replace_value(bare, None, "id", "ISS-000009").as_deref(), Some("---\nid: ISS-000009\n---\nx"));
    }

    #[test]
    fn one_list_entry_changes() {
        let flow = "---\nid: ISS-000002\nblockedBy: [ISS-000001, ISS-0000011] # why\ntitle: x\n---\nISS-000001 stays\n";
        let out = replace_list_item(flow, "blockedBy", "ISS-000001", "ISS-000009").expect("edited");
        assert_eq!(out, flow.replacen("[ISS-000001,", "[ISS-000009,", 1));
        let block = "---\nblockedBy:\n  - 'SPEC-000003'\n  - ISS-000001\nstatus: open\n---\n";
        let out = replace_list_item(block, "blockedBy", "ISS-000001", "ISS-000010").expect("edited");
        assert_eq!(out, block.replace("  - ISS-000001", "  - ISS-000010"));
        assert_eq!(replace_list_item(block, "blockedBy", "ISS-000004", "ISS-000010"), None);
        assert_eq!(replace_list_item("---\nblockedBy: ISS-000001\n---\n", "blockedBy", "ISS-000001", "X"), None);
    }

    #[test]
    fn keys_that_are_not_plain_lines_are_left_alone() {
        assert_eq!(
            replace_value(
                "---\nwranglerContext: {parentTaskId: A-1}\n---\n",
                Some("wranglerContext"),
                "parentTaskId",
                "B"
            ),
            None
        );
        assert_eq!(replace_value("---\ntitle: x\n---\n", None, "id", "ISS-000001"), None);
        assert_eq!(replace_value("no frontmatter", None, "id", "ISS-000001"), None);
    }

    #[test]
    fn body_and_errors() {
        assert_eq!(body(FILE), "body with id: 000001\n");
        assert!(
            frontmatter_error("---\ntitle: [x\n---\n").contains("flow"),
            "{}",
            frontmatter_error("---\ntitle: [x\n---\n")
        );
        assert_eq!(frontmatter_error("---\ntitle: x\n"), "the frontmatter has no closing `---` line");
    }
}
