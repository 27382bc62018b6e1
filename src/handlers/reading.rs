//! Reading a long body by its structure (issues_get, issues_get_batch): the heading outline with
//! each section's size, one section with its subsections, or a page from a character offset. A
//! part that does not fit the output limit is cut at a clean boundary and names the next call.

use std::fmt::Write;

use crate::codes;
use crate::generated::IssueRecord;
use crate::handlers::bodies::{self, Section};
use crate::runtime::WarningCode;

/// Outline lines shown when no depth is asked for: the shallowest levels that fit.
const DEFAULT_OUTLINE_LINES: usize = 60;

/// Characters of an answer left to its header, note and warnings when the outline is cut, so
/// the whole text holds to the limit.
const OUTLINE_HEADROOM: usize = 600;

/// What part of a body a call asks for.
#[derive(Debug, Clone, Copy, Default)]
pub struct Request<'a> {
    pub outline: bool,
    pub depth: Option<usize>,
    pub section: Option<&'a str>,
    pub offset: Option<usize>,
    /// The body's version the `next` call carries: the body the offset was counted in.
    pub version: Option<&'a str>,
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
    /// How to name the section shown so that it, and only it, is found again: its heading path
    /// (`Spec/Tests`), with `#2` when several headings have that path.
    pub section: Option<String>,
    /// The heading tree, one line per heading with its size in characters.
    pub outline: Option<String>,
    /// What the outline leaves out (deeper levels, or headings past the size limit).
    pub outline_note: Option<String>,
    /// The call that reads on, when `text` was cut (or the section call, for an outline).
    pub next: Option<String>,
    pub cut: bool,
    /// What the caller should know: a section no heading matches, one several match, a body
    /// that changed between two pages.
    pub warnings: Vec<(WarningCode, String)>,
}

/// `issues_get {"id":..,"section":..,"offset":..,"version":..}`: the call that reads on (the
/// version of the body its offset counts in goes with an offset).
pub fn call(id: &str, section: Option<&str>, offset: Option<usize>, version: Option<&str>) -> String {
    let mut args = serde_json::Map::new();
    args.insert("id".into(), id.into());
    if let Some(s) = section {
        args.insert("section".into(), s.into());
    }
    if let Some(o) = offset {
        args.insert("offset".into(), o.into());
        if let Some(v) = version {
            args.insert("version".into(), v.into());
        }
    }
    format!("issues_get {}", serde_json::Value::Object(args))
}

/// The version of a body as `next` calls carry it.
pub fn body_version(body: &str) -> String {
    crate::store::version_of(body.as_bytes())
}

/// Why a request cannot be answered (an offset past the end).
pub struct PastEnd {
    pub offset: usize,
    pub end: usize,
}

/// The part of `body` that `req` asks for, at most `limit` characters of text (and of outline).
pub fn read(id: &str, body: &str, req: &Request, limit: usize) -> Result<Piece, PastEnd> {
    let total = body.chars().count();
    let sections = bodies::outline(body);
    let tree = Tree::new(&sections);
    let mut piece = Piece { total, ..Piece::default() };
    let mut range = (0, total);
    let mut missing = false;
    if let Some(wanted) = req.section {
        match tree.find(wanted) {
            Some(found) => {
                range = (sections[found.at].start, sections[found.at].end);
                piece.section = Some(tree.reference(found.at));
                if found.matches.len() > 1 {
                    piece.warnings.push((codes::DUPLICATE_SECTION, tree.duplicates(id, &found)));
                }
            }
            None => {
                missing = true;
                piece.warnings.push((codes::NO_SUCH_SECTION, format!(
                    "No heading of {id} matches section \"{wanted}\"; its outline follows. Pass one of its headings, or a path like Parent/Heading."
                )));
            }
        }
    }
    if req.outline || missing {
        let (lines, note) = tree.outline(req.depth, limit.saturating_sub(OUTLINE_HEADROOM));
        piece.outline = Some(lines);
        piece.outline_note = note;
        // A section no heading matches: the call that succeeds (without headings, the body).
        // An outline asked for names no next call: its caller knows `section`.
        if missing {
            piece.next = Some(match sections.is_empty() {
                true => call(id, None, None, None),
                false => call(id, Some("<heading>"), None, None),
            });
        }
        return Ok(piece);
    }
    let version = body_version(body);
    let mut offset = req.offset;
    if let Some(seen) = req.version.filter(|v| *v != version) {
        // The offset counts characters of a body that is gone: text would be skipped or repeated.
        offset = None;
        let at = piece.section.as_ref().map_or(String::new(), |s| format!(" of section \"{s}\""));
        piece.warnings.push((codes::BODY_CHANGED, format!(
            "{id}'s description changed since the page that gave this offset (version {seen}, now {version}): this answer starts again at the beginning{at}, and what you read before may be out of date."
        )));
    }
    let start = offset.map_or(range.0, |o| o.max(range.0));
    if start >= range.1 && range.1 > range.0 {
        return Err(PastEnd { offset: start, end: range.1 });
    }
    let from = byte_at(body, start);
    let text = &body[from..byte_at(body, range.1)];
    piece.start = start;
    match bodies::cut(text, limit) {
        Some(c) => {
            piece.next = Some(call(id, piece.section.as_deref(), Some(start + c.kept), Some(&version)));
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

/// A heading as `section` matches it: trimmed, without leading `#`s, lowercase.
fn norm(s: &str) -> String {
    s.trim().trim_start_matches('#').trim().to_lowercase()
}

/// The headings a `section` names: `at` is the one answered, `matches` all that the name fits.
pub struct Found {
    pub at: usize,
    pub matches: Vec<usize>,
    /// The name without its `#N`.
    pub name: String,
}

/// Duplicates listed by name in an answer; the rest are counted.
const LISTED_DUPLICATES: usize = 10;

/// The heading tree of a body, built in one pass: each heading's enclosing heading and its
/// subsections. Every question about it (a path, an outline, a lookup) is linear in its size.
pub struct Tree<'a> {
    sections: &'a [Section],
    parent: Vec<Option<usize>>,
    children: Vec<Vec<usize>>,
    /// Each heading as a `section` matches it ([`norm`]), made once.
    titles: Vec<String>,
}

impl<'a> Tree<'a> {
    pub fn new(sections: &'a [Section]) -> Tree<'a> {
        let mut parent = vec![None; sections.len()];
        let mut children = vec![Vec::new(); sections.len()];
        // The headings still open at this point, outermost first.
        let mut open: Vec<usize> = Vec::new();
        for (i, s) in sections.iter().enumerate() {
            while open.last().is_some_and(|&o| sections[o].level >= s.level) {
                open.pop();
            }
            if let Some(&p) = open.last() {
                parent[i] = Some(p);
                children[p].push(i);
            }
            open.push(i);
        }
        let titles = sections.iter().map(|s| norm(&s.title)).collect();
        Tree { sections, parent, children, titles }
    }

    /// Indices of the headings enclosing heading `i`, innermost first.
    fn ancestors(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.parent[i], |&p| self.parent[p])
    }

    /// `Design/Component 3`: the heading with its ancestors, outermost first.
    pub fn path(&self, i: usize) -> String {
        let mut names: Vec<&str> = self.ancestors(i).map(|a| self.sections[a].title.as_str()).collect();
        names.reverse();
        names.push(&self.sections[i].title);
        names.join("/")
    }

    /// The headings `wanted` names, by the first rule any fits: its text (case-insensitive);
    /// else a path `A/B` whose last part is the heading and whose other parts are its ancestors
    /// in order; else the headings holding the text.
    fn matches(&self, wanted: &str) -> Vec<usize> {
        let wanted = norm(wanted);
        if wanted.is_empty() {
            return Vec::new();
        }
        let titles = &self.titles;
        let exact: Vec<usize> = (0..titles.len()).filter(|&i| titles[i] == wanted).collect();
        if !exact.is_empty() {
            return exact;
        }
        let parts: Vec<String> = wanted.split('/').map(norm).filter(|p| !p.is_empty()).collect();
        if let Some((last, ancestors)) = parts.split_last().filter(|_| parts.len() > 1) {
            let by_path: Vec<usize> = (0..titles.len())
                .filter(|&i| {
                    if titles[i] != *last {
                        return false;
                    }
                    // Every named ancestor, in order, among the heading's (outermost first).
                    let chain: Vec<usize> = self.ancestors(i).collect();
                    let mut at = 0;
                    for &a in chain.iter().rev() {
                        if at < ancestors.len() && titles[a] == ancestors[at] {
                            at += 1;
                        }
                    }
                    at == ancestors.len()
                })
                .collect();
            if !by_path.is_empty() {
                return by_path;
            }
        }
        (0..titles.len()).filter(|&i| titles[i].contains(&wanted)).collect()
    }

    /// The heading `wanted` names: the first of its [`Tree::matches`], or with a `#N` suffix
    /// (`Tests#2`) the Nth of those of the name before it.
    pub fn find(&self, wanted: &str) -> Option<Found> {
        let matches = self.matches(wanted);
        if let Some(&at) = matches.first() {
            return Some(Found { at, matches, name: wanted.trim().to_string() });
        }
        let (name, n) = wanted.rsplit_once('#')?;
        let n: usize = n.trim().parse().ok().filter(|n| *n >= 1)?;
        let matches = self.matches(name);
        let at = *matches.get(n - 1)?;
        Some(Found { at, matches, name: name.trim().to_string() })
    }

    /// The name that finds heading `i` and no other: its path, with `#N` when several
    /// headings fit that path.
    pub fn reference(&self, i: usize) -> String {
        let path = self.path(i);
        let fits = self.matches(&path);
        match fits.iter().position(|&m| m == i) {
            Some(n) if fits.len() > 1 => format!("{path}#{}", n + 1),
            _ => path,
        }
    }

    /// The warning for a name several headings fit: how many, which one is shown, and the
    /// `section` that reaches each.
    fn duplicates(&self, id: &str, found: &Found) -> String {
        let shown = found.matches.iter().position(|&m| m == found.at).unwrap_or(0) + 1;
        let each: Vec<String> =
            found.matches.iter().take(LISTED_DUPLICATES).map(|&m| format!("\"{}\"", self.reference(m))).collect();
        let more = found.matches.len().saturating_sub(LISTED_DUPLICATES);
        let more = if more > 0 { format!(" and {more} more (\"{}#N\")", found.name) } else { String::new() };
        format!(
            "{} headings of {id} match section \"{}\"; this is number {shown}. Reach each with section {}{more}.",
            found.matches.len(),
            found.name,
            each.join(", ")
        )
    }

    /// The outline: one line per heading, indented one space per level below the shallowest,
    /// with the section's size in characters (its subsections included): ` Component 3 (1204)`.
    /// A heading whose subsections have none of their own names them on its line, without
    /// sizes: ` Component 3 (1204): Purpose, Interface, Tests`; every section is named at a
    /// fraction of a line each. Without `depth`, the deepest levels are left out when showing
    /// them all would take more than [`DEFAULT_OUTLINE_LINES`] lines. At most `limit`
    /// characters: the first headings that fit, and how many more there are. The note says
    /// what is left out and how to see it.
    pub fn outline(&self, depth: Option<usize>, limit: usize) -> (String, Option<String>) {
        let sections = self.sections;
        if sections.is_empty() {
            return ("(no headings)".into(), None);
        }
        let top = sections.iter().map(|s| s.level).min().unwrap_or(1);
        let rel = |i: usize| sections[i].level - top + 1;
        // Listed on its parent's line: a leaf whose siblings are all leaves too.
        let leaves_only: Vec<bool> =
            self.children.iter().map(|c| c.iter().all(|&k| self.children[k].is_empty())).collect();
        let inline = |i: usize| self.parent[i].is_some_and(|p| leaves_only[p]);
        let deepest = (0..sections.len()).map(rel).max().unwrap_or(1);
        let mut lines_at = vec![0usize; deepest + 1];
        for i in (0..sections.len()).filter(|&i| !inline(i)) {
            lines_at[rel(i)] += 1;
        }
        for d in 1..=deepest {
            lines_at[d] += lines_at[d - 1];
        }
        let shown =
            depth.unwrap_or_else(|| (1..=deepest).rev().find(|&d| lines_at[d] <= DEFAULT_OUTLINE_LINES).unwrap_or(1));
        let within = (0..sections.len()).filter(|&i| rel(i) <= shown).count();
        let (mut out, mut named, mut full) = (String::new(), 0, false);
        for i in (0..sections.len()).filter(|&i| rel(i) <= shown && !inline(i)) {
            let s = &sections[i];
            let mut line = format!("{}{} ({})", " ".repeat(rel(i) - 1), s.title, s.end - s.start);
            if out.len() + line.len() + 1 > limit {
                full = true;
                break;
            }
            named += 1;
            let mut listed = self.children[i].iter().filter(|&&c| inline(c) && rel(c) <= shown).peekable();
            if listed.peek().is_some() {
                line.push(':');
                for (n, &c) in listed.enumerate() {
                    let title = &sections[c].title;
                    if out.len() + line.len() + title.len() + 3 > limit {
                        full = true;
                        break;
                    }
                    line.push_str(if n == 0 { " " } else { ", " });
                    line.push_str(title);
                    named += 1;
                }
            }
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&line);
            if full {
                break;
            }
        }
        let hidden = sections.len() - within;
        let mut notes = Vec::new();
        if full {
            notes.push(format!(
                "the first {named} of {within} headings shown, {} more; ask for a section (or a smaller depth) to see the rest",
                within - named
            ));
        }
        if hidden > 0 {
            notes.push(format!("{hidden} deeper headings left out; depth {deepest} shows all"));
        }
        (out, (!notes.is_empty()).then(|| notes.join("; ")))
    }
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
        assert_eq!(p.warnings[0].0, codes::NO_SUCH_SECTION, "{:?}", p.warnings);
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
        assert_eq!(p.next, Some(call("ISS-000001", Some("A"), Some(kept), Some(&body_version(&body)))));
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
        let (lines, note) = Tree::new(&sections).outline(None, usize::MAX);
        assert_eq!(note, None, "every section is named");
        assert_eq!(lines.lines().count(), 33, "{lines}");
        let part = lines.lines().find(|l| l.starts_with("  Part 7 (")).expect("a part line");
        assert!(part.ends_with("): A 7, B 7"), "{part}");
        assert!(lines.ends_with(" Acceptance (21)"), "{lines}");
        let (shallow, note) = Tree::new(&sections).outline(Some(2), usize::MAX);
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
        let (lines, note) = Tree::new(&sections).outline(None, usize::MAX);
        assert_eq!(lines.lines().count(), 30);
        assert_eq!(note.as_deref(), Some("120 deeper headings left out; depth 3 shows all"));
        assert_eq!(Tree::new(&sections).outline(Some(3), usize::MAX).0.lines().count(), 90);
    }
}
