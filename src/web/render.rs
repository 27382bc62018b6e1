//! Issue bodies as HTML: CommonMark with tables, task lists and strikethrough (pulldown-cmark),
//! issue IDs turned into links, then sanitized (ammonia) so raw HTML in a body can never run
//! script in the viewer's browser. The page's Content-Security-Policy forbids inline script too.

use std::collections::HashSet;

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

/// Where completion notes (`issues_mark_complete`) start in a body.
const NOTES_MARK: &str = "\n---\n**Completion Notes";

/// A body split into the description and the completion notes appended to it, if any.
pub fn split_notes(body: &str) -> (&str, Option<&str>) {
    match body.find(NOTES_MARK) {
        Some(at) => (&body[..at], Some(body[at + "\n---\n".len()..].trim())),
        None => (body, None),
    }
}

/// Where the completion notes start in a body (its length when it has none): the description
/// is `body[..at]`, and an edit of it keeps `body[at..]` byte for byte.
pub fn notes_start(body: &str) -> usize {
    body.find(NOTES_MARK).unwrap_or(body.len())
}

const OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_TASKLISTS)
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_FOOTNOTES)
    .union(Options::ENABLE_GFM);

/// `markdown` as sanitized HTML; IDs for which `known` holds become links to their page.
pub fn markdown(markdown: &str, known: &dyn Fn(&str) -> bool) -> String {
    html(markdown, known, false)
}

/// An issue's description as [`markdown`] does, with each task-list checkbox numbered
/// (`class="task" data-task="N"`, in the order of [`task_markers`]) so the page can toggle it.
pub fn description(markdown: &str, known: &dyn Fn(&str) -> bool) -> String {
    html(markdown, known, true)
}

/// The task-list checkboxes of `markdown`, in order: the byte range of the `[ ]` or `[x]`, and
/// whether it is checked.
pub fn task_markers(markdown: &str) -> Vec<(std::ops::Range<usize>, bool)> {
    Parser::new_ext(markdown, OPTIONS)
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::TaskListMarker(checked) => {
                let open = range.start + markdown[range.clone()].find('[')?;
                let close = open + markdown[open..].find(']')?;
                Some((open..close + 1, checked))
            }
            _ => None,
        })
        .collect()
}

/// `markdown` with its task checkbox number `index` set to `checked`: exactly the character
/// between the brackets changes. `None` when there is no such checkbox.
pub fn set_task(markdown: &str, index: usize, checked: bool) -> Option<String> {
    let (range, _) = task_markers(markdown).into_iter().nth(index)?;
    let mark = if checked { "x" } else { " " };
    Some(format!("{}[{mark}]{}", &markdown[..range.start], &markdown[range.end..]))
}

fn html(markdown: &str, known: &dyn Fn(&str) -> bool, tasks: bool) -> String {
    let mut in_code_or_link = 0usize;
    let mut task = 0usize;
    let mut events = Vec::new();
    for event in Parser::new_ext(markdown, OPTIONS) {
        match &event {
            Event::Start(Tag::CodeBlock(_) | Tag::Link { .. } | Tag::Image { .. }) => in_code_or_link += 1,
            Event::End(TagEnd::CodeBlock | TagEnd::Link | TagEnd::Image) => {
                in_code_or_link = in_code_or_link.saturating_sub(1)
            }
            _ => {}
        }
        match event {
            Event::Text(text) if in_code_or_link == 0 => link_ids(&text, known, &mut events),
            Event::TaskListMarker(checked) if tasks => {
                let checked = if checked { " checked=\"\"" } else { "" };
                events.push(Event::InlineHtml(CowStr::from(format!(
                    "<input type=\"checkbox\" class=\"task\" data-task=\"{task}\"{checked}>"
                ))));
                task += 1;
            }
            other => events.push(other),
        }
    }
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, events.into_iter());
    sanitizer().clean(&html).to_string()
}

/// The text as events, with every known issue ID as a link to its page.
fn link_ids<'a>(text: &str, known: &dyn Fn(&str) -> bool, out: &mut Vec<Event<'a>>) {
    let mut rest = text;
    while let Some((start, end)) = next_id(rest) {
        let id = &rest[start..end];
        if !known(id) {
            out.push(Event::Text(CowStr::from(rest[..end].to_string())));
            rest = &rest[end..];
            continue;
        }
        if start > 0 {
            out.push(Event::Text(CowStr::from(rest[..start].to_string())));
        }
        // The ID is plain ASCII letters, digits and a dash: nothing to escape.
        out.push(Event::InlineHtml(CowStr::from(format!("<a class=\"issue-link\" href=\"/issues/{id}\">{id}</a>"))));
        rest = &rest[end..];
    }
    if !rest.is_empty() {
        out.push(Event::Text(CowStr::from(rest.to_string())));
    }
}

/// The byte range of the next `ISS-123`, `SPEC-000045` or `IDEA-7` standing as a word.
pub fn next_id(text: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while from < bytes.len() {
        let at =
            ["ISS-", "SPEC-", "IDEA-"].iter().filter_map(|p| text[from..].find(p).map(|i| (from + i, p.len()))).min();
        let (start, prefix) = at?;
        let digits = bytes[start + prefix..].iter().take_while(|b| b.is_ascii_digit()).count();
        let end = start + prefix + digits;
        let word_start = start == 0 || !bytes[start - 1].is_ascii_alphanumeric();
        let word_end = end == bytes.len() || !bytes[end].is_ascii_alphanumeric();
        if digits > 0 && word_start && word_end {
            return Some((start, end));
        }
        from = start + prefix;
    }
    None
}

/// ammonia's defaults (no script, no event handlers, no `javascript:` URLs, `rel="noopener
/// noreferrer"` on links) plus the disabled checkboxes of task lists.
fn sanitizer() -> ammonia::Builder<'static> {
    let mut b = ammonia::Builder::default();
    b.add_tags(["input"])
        .add_tag_attributes("input", ["type", "checked", "disabled", "data-task"])
        .set_tag_attribute_value("input", "disabled", "")
        .add_allowed_classes("a", ["issue-link"])
        .add_allowed_classes("input", ["task"]);
    b
}

/// The issue IDs a body mentions (for the "mentions" list), in order, without repeats.
pub fn mentions(body: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut rest = body;
    while let Some((s, e)) = next_id(rest) {
        if seen.insert(rest[s..e].to_string()) {
            out.push(rest[s..e].to_string());
        }
        rest = &rest[e..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(_: &str) -> bool {
        true
    }

    #[test]
    fn script_and_event_handlers_are_removed() {
        let html = markdown(
            "Hi <script>window.pwned=1</script> <img src=x onerror=\"window.pwned=1\"> [a](javascript:alert(1))",
            &all,
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("onerror"), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(html.contains("<img src=\"x\""), "harmless parts stay: {html}");
    }

    #[test]
    fn tables_task_lists_and_ids_render() {
        let html =
            markdown("| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done ISS-000002\n- [ ] todo\n\n`ISS-000003`", &|id| {
                id == "ISS-000002"
            });
        assert!(html.contains("<table>") && html.contains("<td>1</td>"), "{html}");
        assert!(html.contains("type=\"checkbox\"") && html.contains("checked"), "{html}");
        assert!(html.contains("disabled"), "{html}");
        assert!(html.contains("<a class=\"issue-link\" href=\"/issues/ISS-000002\""), "{html}");
        assert!(html.contains("<code>ISS-000003</code>"), "no link in code: {html}");
    }

    #[test]
    fn task_checkboxes_are_numbered_and_toggled_one_character_at_a_time() {
        let md = "- [x] done\n- [ ] todo\n\n```\n- [ ] in code\n```\n\n* [X] shouted\n";
        let marks: Vec<bool> = task_markers(md).into_iter().map(|(_, c)| c).collect();
        assert_eq!(marks, [true, false, true]);
        let html = description(md, &all);
        assert!(html.contains("data-task=\"1\"") && html.contains("class=\"task\""), "{html}");
        assert!(!html.contains("data-task=\"3\""), "{html}");
        let toggled = set_task(md, 1, true).expect("task 1");
        assert_eq!(toggled, md.replacen("- [ ] todo", "- [x] todo", 1));
        assert_eq!(set_task(md, 2, false).expect("task 2"), md.replacen("[X] shouted", "[ ] shouted", 1));
        assert_eq!(set_task(md, 3, true), None);
        assert!(!markdown(md, &all).contains("data-task"), "plain markdown has no numbered tasks");
    }

    #[test]
    fn ids_are_whole_words() {
        assert_eq!(next_id("see ISS-000012."), Some((4, 14)));
        assert_eq!(next_id("XISS-1 SPEC-2"), Some((7, 13)));
        assert_eq!(next_id("ISS- and IDEA-x"), None);
        assert_eq!(mentions("ISS-1 then SPEC-000002 and ISS-1"), vec!["ISS-1", "SPEC-000002"]);
    }

    #[test]
    fn completion_notes_are_split_off() {
        let body = "Do it.\n\n---\n**Completion Notes (2025-01-01):**\nDone.";
        let (desc, notes) = split_notes(body);
        assert_eq!(desc, "Do it.\n");
        assert_eq!(notes, Some("**Completion Notes (2025-01-01):**\nDone."));
        assert_eq!(split_notes("plain"), ("plain", None));
    }
}
