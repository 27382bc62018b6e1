//! Reading a long body by its structure (issues_get, issues_get_batch): the heading outline with
//! each section's size, one section with its subsections, or a page from a character offset. A
//! part that does not fit the output limit is cut at a clean boundary and names the next call.

use std::fmt::Write;

use crate::generated::IssueRecord;
use crate::runtime::bodies::{self, Section};

/// Outline lines shown when no depth is asked for: the shallowest levels that fit.
const DEFAULT_OUTLINE_LINES: usize = 60;

/// What part of a body a call asks for.
#[derive(Debug, Clone, Copy, Default)]
pub struct Request<'a> {
    pub outline: bool,
    pub depth: Option<usize>,
    pub section: Option<&'a str>,
    pub offset: Option<usize>,
}

impl Request<'_> {
    /// Whether the call asks for anything but the whole issue.
    pub fn is_structured(&self) -> bool {
        self.outline || self.section.is_some() || self.offset.is_some()
    }
}

/// The part of one body an answer shows.
#[derive(Debug, Default)]
pub struct Piece {
    /// Body text shown (absent for an outline).
    pub text: Option<String>,
    /// Character offset of `text` in the body.
    pub start: usize,
    /// Characters of the whole body.
    pub total: usize,
    /// The heading path of the section shown.
    pub section: Option<String>,
    /// The heading tree, one line per heading with its size in characters.
    pub outline: Option<String>,
    /// What the outline leaves out (deeper levels), for its header line.
    pub outline_note: Option<String>,
    /// The section asked for that no heading matches.
    pub missing: Option<String>,
    /// The call that reads on, when `text` was cut (or the section call, for an outline).
    pub next: Option<String>,
    pub cut: bool,
}

/// `issues_get {"id":..,"section":..,"offset":..}`: the call that reads on.
pub fn call(id: &str, section: Option<&str>, offset: Option<usize>) -> String {
    let mut args = serde_json::Map::new();
    args.insert("id".into(), id.into());
    if let Some(s) = section {
        args.insert("section".into(), s.into());
    }
    if let Some(o) = offset {
        args.insert("offset".into(), o.into());
    }
    format!("issues_get {}", serde_json::Value::Object(args))
}

/// Why a request cannot be answered (an offset past the end).
pub struct PastEnd {
    pub offset: usize,
    pub end: usize,
}

/// The part of `body` that `req` asks for, at most `limit` characters of text.
pub fn read(id: &str, body: &str, req: &Request, limit: usize) -> Result<Piece, PastEnd> {
    let total = body.chars().count();
    let sections = bodies::outline(body);
    let mut piece = Piece { total, ..Piece::default() };
    let mut range = (0, total);
    if let Some(wanted) = req.section {
        match find(&sections, wanted) {
            Some(i) => {
                range = (sections[i].start, sections[i].end);
                piece.section = Some(path_of(&sections, i));
            }
            None => piece.missing = Some(wanted.to_string()),
        }
    }
    if req.outline || piece.missing.is_some() {
        let (lines, note) = outline(&sections, req.depth);
        piece.outline = Some(lines);
        piece.outline_note = note;
        // A section no heading matches: the call that succeeds (without headings, the body).
        // An outline asked for names no next call: its caller knows `section`.
        if piece.missing.is_some() {
            piece.next = Some(match sections.is_empty() {
                true => call(id, None, None),
                false => call(id, Some("<heading>"), None),
            });
        }
        return Ok(piece);
    }
    let start = req.offset.map_or(range.0, |o| o.max(range.0));
    if start >= range.1 && range.1 > range.0 {
        return Err(PastEnd { offset: start, end: range.1 });
    }
    let from = byte_at(body, start);
    let text = &body[from..byte_at(body, range.1)];
    piece.start = start;
    match bodies::cut(text, limit) {
        Some(c) => {
            piece.next = Some(call(id, piece.section.as_deref(), Some(start + c.kept)));
            piece.text = Some(c.text);
            piece.cut = true;
        }
        None => piece.text = Some(text.to_string()),
    }
    Ok(piece)
}

/// Byte offset of character `chars` of `s` (its length past the end).
fn byte_at(s: &str, chars: usize) -> usize {
    s.char_indices().nth(chars).map_or(s.len(), |(i, _)| i)
}

/// The heading `wanted` names: its text (case-insensitive), else a path `A/B` whose last part is
/// the heading and whose other parts are its ancestors in order, else the first heading holding
/// the text.
pub fn find(sections: &[Section], wanted: &str) -> Option<usize> {
    let norm = |s: &str| s.trim().trim_start_matches('#').trim().to_lowercase();
    let wanted = norm(wanted);
    if wanted.is_empty() {
        return None;
    }
    if let Some(i) = sections.iter().position(|s| norm(&s.title) == wanted) {
        return Some(i);
    }
    let parts: Vec<String> = wanted.split('/').map(norm).filter(|p| !p.is_empty()).collect();
    if parts.len() > 1 {
        let (last, ancestors) = parts.split_last()?;
        let found = (0..sections.len()).find(|&i| {
            if norm(&sections[i].title) != *last {
                return false;
            }
            let chain: Vec<String> = ancestors_of(sections, i).map(|a| norm(&sections[a].title)).collect();
            // Every named ancestor, in order, among the heading's ancestors (outermost first).
            let mut at = 0;
            for name in chain.iter().rev() {
                if at < ancestors.len() && *name == ancestors[at] {
                    at += 1;
                }
            }
            at == ancestors.len()
        });
        if found.is_some() {
            return found;
        }
    }
    sections.iter().position(|s| norm(&s.title).contains(&wanted))
}

/// Indices of the headings enclosing heading `i`, innermost first.
fn ancestors_of(sections: &[Section], i: usize) -> impl Iterator<Item = usize> + '_ {
    let mut level = sections[i].level;
    (0..i).rev().filter(move |&j| {
        let outer = sections[j].level < level && sections[j].end >= sections[i].end;
        if outer {
            level = sections[j].level;
        }
        outer
    })
}

/// `Design/Component 3`: the heading with its ancestors, outermost first.
pub fn path_of(sections: &[Section], i: usize) -> String {
    let mut names: Vec<&str> = ancestors_of(sections, i).map(|a| sections[a].title.as_str()).collect();
    names.reverse();
    names.push(&sections[i].title);
    names.join("/")
}

/// The outline: one line per heading, indented one space per level below the shallowest, with
/// the section's size in characters (its subsections included): ` Component 3 (1204)`. A heading
/// whose subsections have none of their own names them on its line, without sizes:
/// ` Component 3 (1204): Purpose, Interface, Tests`; every section is named at a fraction of a
/// line each. Without `depth`, the deepest levels are left out when showing them all would take
/// more than [`DEFAULT_OUTLINE_LINES`] lines; the note says so and how to see them.
pub fn outline(sections: &[Section], depth: Option<usize>) -> (String, Option<String>) {
    if sections.is_empty() {
        return ("(no headings)".into(), None);
    }
    let top = sections.iter().map(|s| s.level).min().unwrap_or(1);
    let rel = |i: usize| sections[i].level - top + 1;
    let parent: Vec<Option<usize>> = (0..sections.len()).map(|i| ancestors_of(sections, i).next()).collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); sections.len()];
    for (i, p) in parent.iter().enumerate() {
        if let Some(p) = p {
            children[*p].push(i);
        }
    }
    // Listed on its parent's line: a leaf whose siblings are all leaves too.
    let inline = |i: usize| parent[i].is_some_and(|p| children[p].iter().all(|&c| children[c].is_empty()));
    let deepest = (0..sections.len()).map(rel).max().unwrap_or(1);
    let lines_at = |d: usize| (0..sections.len()).filter(|&i| rel(i) <= d && !inline(i)).count();
    let shown =
        depth.unwrap_or_else(|| (1..=deepest).rev().find(|&d| lines_at(d) <= DEFAULT_OUTLINE_LINES).unwrap_or(1));
    let mut out = String::new();
    for i in (0..sections.len()).filter(|&i| rel(i) <= shown && !inline(i)) {
        if !out.is_empty() {
            out.push('\n');
        }
        let s = &sections[i];
        let _ = write!(out, "{}{} ({})", " ".repeat(rel(i) - 1), s.title, s.end - s.start);
        let listed: Vec<&str> = children[i]
            .iter()
            .filter(|&&c| inline(c) && rel(c) <= shown)
            .map(|&c| sections[c].title.as_str())
            .collect();
        if !listed.is_empty() {
            let _ = write!(out, ": {}", listed.join(", "));
        }
    }
    let hidden = (0..sections.len()).filter(|&i| rel(i) > shown).count();
    let note = (hidden > 0).then(|| format!("{hidden} deeper headings left out; depth {deepest} shows all"));
    (out, note)
}

/// Puts `piece` into `record`: the text as its description, where it starts, the outline, the
/// next call.
pub fn fill(record: &mut IssueRecord, piece: Piece) {
    let whole = piece.text.is_some() && piece.start == 0 && !piece.cut && piece.section.is_none();
    record.description = piece.text;
    record.description_length = (!whole).then_some(piece.total as i64);
    record.offset = (piece.start > 0).then_some(piece.start as i64);
    record.truncated = piece.cut.then_some(true);
    record.section = piece.section;
    record.outline = piece.outline;
    record.next = piece.next;
}

/// The text view of a piece: a header naming what is shown, then the text or the outline, then
/// the next call.
pub fn document(record: &IssueRecord, piece_note: Option<&str>) -> String {
    let mut out = record.id.clone();
    if let Some(t) = &record.title {
        let _ = write!(out, " {t}");
    }
    let total = record.description_length.unwrap_or_default();
    if let Some(s) = &record.section {
        let _ = write!(out, " § {s}");
    }
    if let Some(outline) = &record.outline {
        let _ = write!(out, " ({total} characters");
        if let Some(note) = piece_note {
            let _ = write!(out, "; {note}");
        }
        let _ = write!(out, ")\n{outline}");
    } else if let Some(d) = &record.description {
        let start = record.offset.unwrap_or_default();
        let end = start + d.chars().count() as i64;
        if record.description_length.is_some() {
            let _ = write!(out, " (characters {start}-{end} of {total})");
        }
        let _ = write!(out, "\n\n{d}");
    }
    if let Some(next) = &record.next {
        let _ = write!(out, "\n\nNext: {next}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = "# Spec\nintro\n## Design\ntext\n### Component 3\nc3 body\n## Testing\n### Component 3\nt3\n## Acceptance Criteria\n- done\n";

    fn section_text(req: Request) -> Piece {
        read("SPEC-000001", SPEC, &req, 10_000).ok().expect("readable")
    }

    #[test]
    fn a_section_is_found_by_text_or_path_case_insensitively() {
        let p = section_text(Request { section: Some("acceptance criteria"), ..Request::default() });
        assert_eq!(p.text.as_deref(), Some("## Acceptance Criteria\n- done\n"));
        assert_eq!(p.section.as_deref(), Some("Spec/Acceptance Criteria"));
        let p = section_text(Request { section: Some("Testing/Component 3"), ..Request::default() });
        assert_eq!(p.text.as_deref(), Some("### Component 3\nt3\n"));
        let p = section_text(Request { section: Some("design"), ..Request::default() });
        assert_eq!(p.text.as_deref(), Some("## Design\ntext\n### Component 3\nc3 body\n"), "subsections included");
    }

    #[test]
    fn an_unknown_section_answers_with_the_outline() {
        let p = section_text(Request { section: Some("Rollout"), ..Request::default() });
        assert_eq!(p.missing.as_deref(), Some("Rollout"));
        assert!(p.text.is_none());
        let outline = p.outline.expect("outline");
        assert_eq!(outline.lines().count(), 4, "{outline}");
        assert!(outline.contains("\n Design (39): Component 3\n"), "{outline}");
    }

    #[test]
    fn a_long_part_is_cut_and_names_the_call_that_reads_on() {
        let body = format!("## A\n{}\n## B\nend\n", "word ".repeat(100));
        let p = read("ISS-000001", &body, &Request { section: Some("A"), ..Request::default() }, 200)
            .ok()
            .expect("readable");
        assert!(p.cut);
        let kept = p.text.as_ref().expect("text").chars().count();
        assert_eq!(p.next, Some(call("ISS-000001", Some("A"), Some(kept))));
        let rest =
            read("ISS-000001", &body, &Request { section: Some("A"), offset: Some(kept), ..Request::default() }, 1000)
                .ok()
                .expect("readable");
        assert_eq!(format!("{}{}", p.text.unwrap(), rest.text.unwrap()), body[..body.find("## B").unwrap()]);
        assert!(read("ISS-000001", &body, &Request { offset: Some(10_000), ..Request::default() }, 100).is_err());
    }

    #[test]
    fn subsections_without_their_own_are_named_on_their_parents_line() {
        let mut body = String::from("# Spec\n## Design\n");
        for i in 0..30 {
            body.push_str(&format!("### Part {i}\n#### A {i}\nx\n#### B {i}\ny\n"));
        }
        body.push_str("## Acceptance\n- done\n");
        let sections = bodies::outline(&body);
        let (lines, note) = outline(&sections, None);
        assert_eq!(note, None, "every section is named");
        assert_eq!(lines.lines().count(), 33, "{lines}");
        let part = lines.lines().find(|l| l.starts_with("  Part 7 (")).expect("a part line");
        assert!(part.ends_with("): A 7, B 7"), "{part}");
        assert!(lines.ends_with(" Acceptance (21)"), "{lines}");
        let (shallow, note) = outline(&sections, Some(2));
        assert_eq!(shallow.lines().count(), 3);
        assert_eq!(note.as_deref(), Some("90 deeper headings left out; depth 4 shows all"));
    }

    #[test]
    fn the_default_outline_leaves_out_the_deepest_levels_of_a_long_one() {
        let mut body = String::new();
        for i in 0..30 {
            body.push_str(&format!("## Part {i}\n### A {i}\n#### a\n### B {i}\n#### b\n"));
        }
        let sections = bodies::outline(&body);
        let (lines, note) = outline(&sections, None);
        assert_eq!(lines.lines().count(), 30);
        assert_eq!(note.as_deref(), Some("120 deeper headings left out; depth 3 shows all"));
        assert_eq!(outline(&sections, Some(3)).0.lines().count(), 90);
    }
}
