//! Large markdown bodies: cutting at a clean boundary, character slices, and the heading outline
//! that lets an agent fetch one section. Offsets are in characters (not bytes), so no cut can
//! land inside a UTF-8 sequence and clients in any language can use them.

use serde::Serialize;

/// `body` as answers show it: CRLF line ends as LF. In JSON each `\r\n` costs twice the tokens
/// of `\n` (a paragraph break four instead of two), and nothing is lost: a description written
/// back to a CRLF file gets its CRLF again (the store's frontmatter layer). Offsets, sections and
/// chunks all count characters of this form, so they agree with each other.
pub fn shown(body: &str) -> std::borrow::Cow<'_, str> {
    if body.contains("\r\n") {
        std::borrow::Cow::Owned(body.replace("\r\n", "\n"))
    } else {
        std::borrow::Cow::Borrowed(body)
    }
}

/// The first part of a body that fits a character limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    pub text: String,
    /// Characters kept: the rest starts at this offset.
    pub kept: usize,
    pub total: usize,
}

/// `body` whole if it has at most `limit` characters; otherwise its longest prefix of at most
/// `limit` characters that ends at a paragraph break, else a line break, else a space.
pub fn cut(body: &str, limit: usize) -> Option<Cut> {
    let total = body.chars().count();
    if total <= limit {
        return None;
    }
    let end_byte = body.char_indices().nth(limit).map_or(body.len(), |(i, _)| i);
    let head = &body[..end_byte];
    let floor = head.len() / 2; // never give up more than half the budget for a clean edge
    let boundary = [head.rfind("\n\n").map(|i| i + 2), head.rfind('\n').map(|i| i + 1), head.rfind(' ').map(|i| i + 1)]
        .into_iter()
        .flatten()
        .find(|&i| i > floor)
        .unwrap_or(end_byte);
    let text = body[..boundary].to_string();
    Some(Cut { kept: text.chars().count(), text, total })
}

/// Characters `start..end` of `body` (end clamped to its length).
pub fn slice(body: &str, start: usize, end: usize) -> String {
    body.chars().skip(start).take(end.saturating_sub(start)).collect()
}

/// One heading of a markdown body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Section {
    pub level: usize,
    pub title: String,
    /// Character offset of the heading line.
    pub start: usize,
    /// Character offset where the section ends (the next heading of the same or a higher level).
    pub end: usize,
}

/// ATX headings (`#` .. `######`) outside fenced code blocks, with character offsets.
pub fn outline(body: &str) -> Vec<Section> {
    let mut sections: Vec<Section> = Vec::new();
    let mut offset = 0;
    let mut fence: Option<&str> = None;
    for line in body.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(f), Some(m)) if f == m => fence = None,
            (None, None) => {
                let level = trimmed.chars().take_while(|c| *c == '#').count();
                let rest = &trimmed[level..];
                if (1..=6).contains(&level) && (rest.is_empty() || rest.starts_with([' ', '\t', '\n', '\r'])) {
                    let title = rest.trim().trim_end_matches('#').trim().to_string();
                    sections.push(Section { level, title, start: offset, end: 0 });
                }
            }
            _ => {}
        }
        offset += line.chars().count();
    }
    for i in 0..sections.len() {
        let level = sections[i].level;
        sections[i].end = sections[i + 1..].iter().find(|s| s.level <= level).map_or(offset, |s| s.start);
    }
    sections
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_bodies_are_not_cut() {
        assert_eq!(cut("short", 10), None);
    }

    #[test]
    fn cuts_prefer_paragraphs_then_lines() {
        let body = format!("{}\n\n{}\nlast line here", "a".repeat(40), "b".repeat(30));
        let c = cut(&body, 60).expect("cut");
        assert_eq!(c.text, format!("{}\n\n", "a".repeat(40)));
        assert_eq!((c.kept, c.total), (42, body.chars().count()));
        let early_paragraph = format!("{}\n\n{}\n{}", "a".repeat(10), "b".repeat(50), "c".repeat(30));
        let c = cut(&early_paragraph, 70).expect("cut");
        assert_eq!(
            c.text,
            format!("{}\n\n{}\n", "a".repeat(10), "b".repeat(50)),
            "a paragraph break in the first half loses to a line break"
        );
    }

    #[test]
    fn cuts_never_split_a_character_and_slices_rejoin_exactly() {
        let body = "héllo wörld 🚀 ".repeat(5000);
        let c = cut(&body, 25_000).expect("cut");
        assert!(c.kept <= 25_000);
        let mut rebuilt = c.text.clone();
        let mut at = c.kept;
        while at < c.total {
            rebuilt.push_str(&slice(&body, at, at + 25_000));
            at += 25_000;
        }
        assert_eq!(rebuilt, body);
    }

    #[test]
    fn outline_gives_heading_offsets_and_skips_code_fences() {
        let body = "intro\n# Title\ntext\n## Part é\nmore\n```\n# not a heading\n```\n# Next\n";
        let o = outline(body);
        let titles: Vec<&str> = o.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(titles, ["Title", "Part é", "Next"]);
        for s in &o {
            let at: String = body.chars().skip(s.start).take(s.level + 1).collect();
            assert_eq!(at, format!("{} ", "#".repeat(s.level)), "offset of {}", s.title);
        }
        assert_eq!(o[0].end, o[2].start, "a section runs to the next heading of its level");
        assert_eq!(o[1].end, o[2].start);
        assert_eq!(o[2].end, body.chars().count());
    }
}
