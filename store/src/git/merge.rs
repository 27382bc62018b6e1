//! The merge driver for issue files (`docket merge-file %O %A %B %P`): frontmatter merged field by
//! field, so it never carries conflict markers; the body merged three-way like `git merge-file`.
//!
//! Per top-level key of the frontmatter: a value changed on one side only takes that side; labels
//! merge as a set (each side's additions and removals); mappings (`wranglerContext`) merge key by
//! key; `closedAt` follows the merged status; `updatedAt` is the merge's time whenever the merged
//! file differs from ours (so a guard read before the merge sees that it changed), else ours'. A
//! value changed
//! differently on both sides takes the side with the later `updatedAt` and the other value is kept
//! in a one-line note at the end of the body. Keys keep "ours"' order and text: only the lines of
//! keys whose merged value differs from ours are rewritten. A side whose frontmatter does not
//! parse (it was broken before the merge) gets a plain line merge of the whole file instead.

use serde_yaml::{Mapping, Value as Yaml};

/// The merged file and whether its body still holds conflict markers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The merged file, for git to take as the merge's result (`%A`).
    pub text: String,
    /// Whether the body still holds conflict markers (`<<<<<<<`), to be resolved by hand; the
    /// frontmatter never does.
    pub conflicts: bool,
}

/// A file split into its frontmatter (text and parsed mapping) and its body.
struct Parts<'a> {
    yaml: &'a str,
    front: Mapping,
    body: &'a str,
}

fn split(text: &str) -> Option<Parts<'_>> {
    let rest = text.strip_prefix("---\n")?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end_matches(['\r', '\n']) == "---" {
            let yaml = &rest[..offset];
            let front = match serde_yaml::from_str::<Yaml>(yaml).ok()? {
                Yaml::Null => Mapping::new(),
                Yaml::Mapping(m) => m,
                _ => return None,
            };
            return Some(Parts { yaml, front, body: &rest[offset + line.len()..] });
        }
        offset += line.len();
    }
    None
}

/// Three-way merge of one issue file, made now ([`merge_file_at`]).
pub fn merge_file(base: &str, ours: &str, theirs: &str) -> Merged {
    merge_file_at(base, ours, theirs, &crate::files::iso(std::time::SystemTime::now()))
}

/// Three-way merge of one issue file made at `now` (ISO 8601). A side without parseable
/// frontmatter (or a base that is not an issue file) falls back to a plain three-way merge of
/// the whole text.
pub fn merge_file_at(base: &str, ours: &str, theirs: &str, now: &str) -> Merged {
    let base_parts =
        if base.is_empty() { Some(Parts { yaml: "", front: Mapping::new(), body: "" }) } else { split(base) };
    let (Some(b), Some(o), Some(t)) = (base_parts, split(ours), split(theirs)) else {
        return merge_text(base, ours, theirs);
    };
    let mut notes = Vec::new();
    let ours_later = later(&o.front, &t.front);
    let mut front = merge_mapping(&b.front, &o.front, &t.front, ours_later, "", &mut notes);
    if front.get("status") != b.front.get("status") {
        settle_dates(&mut front, &o.front, &t.front);
    }
    let body = merge_body(b.body, o.body, t.body);
    let render = |front: &Mapping| {
        let mut text = format!("---\n{}---\n{}", render_front(o.yaml, &o.front, front), body.text);
        if !notes.is_empty() {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push('\n');
            for note in &notes {
                text.push_str(note);
                text.push('\n');
            }
        }
        text
    };
    let mut text = render(&front);
    // The merge changed the file we had: it is a new update, so a write guarded by the
    // `updatedAt` read before the merge is refused rather than applied over theirs.
    if text != ours && front.contains_key("updatedAt") {
        front.insert(Yaml::String("updatedAt".into()), Yaml::String(now.to_string()));
        text = render(&front);
    }
    Merged { text, conflicts: body.conflicts }
}

/// The `createdAt` of an issue file, when its frontmatter parses and has one.
pub fn created_at(text: &str) -> Option<String> {
    let parts = split(text)?;
    parts.front.get("createdAt").and_then(Yaml::as_str).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string)
}

/// The random identity docket wrote into the issue when it created it (`docketKey`), if any.
pub fn identity_key(text: &str) -> Option<String> {
    let parts = split(text)?;
    // A key of digits alone reads as a number when written unquoted by hand.
    let key = match parts.front.get(crate::files::frontmatter::IDENTITY_KEY)? {
        Yaml::String(s) => s.trim().to_string(),
        Yaml::Number(n) => n.to_string(),
        _ => return None,
    };
    (!key.is_empty()).then_some(key)
}

/// What makes a file the same issue as another (a version of it on another branch): its
/// identity key when it has one, else its `createdAt` (files docket wrote before keys, and
/// wrangler's).
pub fn identity(text: &str) -> Option<String> {
    identity_key(text).map(|k| format!("key {k}")).or_else(|| created_at(text).map(|c| format!("created {c}")))
}

/// Whether `ours` and `theirs`, found at one path, are two different issues rather than two
/// versions of one. Two clones that never fetched number their "Task 1: Set up" alike, so both
/// branches add the same file name; merged field by field they would become one issue and lose
/// the other. Two files that both have an identity key are one issue exactly when the keys are
/// equal (two issues created in the same millisecond have different keys); otherwise, today's
/// rule: each was created at its own time.
pub fn two_issues(ours: &str, theirs: &str) -> bool {
    if let (Some(o), Some(t)) = (identity_key(ours), identity_key(theirs)) {
        return o != t;
    }
    matches!((created_at(ours), created_at(theirs)), (Some(o), Some(t)) if !same_time(&o, &t))
}

/// The frontmatter keys docket itself rewrites after it creates an issue, whatever the user
/// asked: the time of each write, and the status and close time a close or a claim sets.
const STAMPED_AFTER_CREATE: [&str; 3] = ["updatedAt", "status", "closedAt"];

/// Whether `ours` and `theirs`, added at one path on two branches with no common version, are
/// versions of one issue: the same file up to what docket itself rewrites after a create
/// ([`STAMPED_AFTER_CREATE`]). A copied issue file keeps the `docketKey` and `createdAt` of the
/// file it was copied from, so equal keys alone do not make two added files one issue: two
/// copies edited into two issues (another title, assignee or body) stay two.
pub fn same_issue_added(ours: &str, theirs: &str) -> bool {
    let (Some(o), Some(t)) = (split(ours), split(theirs)) else { return ours == theirs };
    let strip = |m: &Mapping| {
        let mut m = m.clone();
        for key in STAMPED_AFTER_CREATE {
            m.remove(key);
        }
        m
    };
    strip(&o.front) == strip(&t.front) && o.body.trim_end() == t.body.trim_end()
}

/// Whether two `createdAt` values name one instant (`...00Z` and `...00.000Z` do: wrangler and
/// docket write them differently), or are the same text when they do not parse.
pub fn same_time(a: &str, b: &str) -> bool {
    match (chrono::DateTime::parse_from_rfc3339(a.trim()), chrono::DateTime::parse_from_rfc3339(b.trim())) {
        (Ok(a), Ok(b)) => a == b,
        _ => a.trim() == b.trim(),
    }
}

/// `git merge-file`'s line merge, markers at line starts, in near-linear time.
fn merge_text(base: &str, ours: &str, theirs: &str) -> Merged {
    let (text, conflicts) = super::diff3::merge(base, ours, theirs);
    Merged { text, conflicts }
}

/// The body's three-way merge. Where both sides only appended to the body (a close's notes on
/// one branch, a comment or a merge note on the other), the merge keeps the base and both
/// additions, in one order whichever side merges (the additions sorted), so two clones merging
/// the same pair agree, instead of conflict markers for a person.
fn merge_body(base: &str, ours: &str, theirs: &str) -> Merged {
    let merged = merge_text(base, ours, theirs);
    let stem = base.trim_end();
    let (Some(o), Some(t)) = (ours.strip_prefix(stem), theirs.strip_prefix(stem)) else { return merged };
    if !merged.conflicts || o.trim().is_empty() || t.trim().is_empty() {
        return merged;
    }
    let (first, second) = if o <= t { (o, t) } else { (t, o) };
    let mut text = format!("{stem}{first}");
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(second);
    Merged { text, conflicts: false }
}

/// Whether ours was updated at or after theirs (ours wins a tie).
fn later(ours: &Mapping, theirs: &Mapping) -> bool {
    let at = |m: &Mapping| m.get("updatedAt").and_then(Yaml::as_str).map(str::to_string);
    match (at(ours), at(theirs)) {
        (Some(o), Some(t)) => {
            match (chrono::DateTime::parse_from_rfc3339(&o), chrono::DateTime::parse_from_rfc3339(&t)) {
                (Ok(o), Ok(t)) => o >= t,
                _ => o >= t,
            }
        }
        (None, Some(_)) => false,
        _ => true,
    }
}

fn merge_mapping(
    base: &Mapping,
    ours: &Mapping,
    theirs: &Mapping,
    ours_later: bool,
    path: &str,
    notes: &mut Vec<String>,
) -> Mapping {
    let mut keys: Vec<&Yaml> = ours.keys().collect();
    keys.extend(theirs.keys().filter(|k| !ours.contains_key(*k)));
    keys.extend(base.keys().filter(|k| !ours.contains_key(*k) && !theirs.contains_key(*k)));
    let mut out = Mapping::new();
    for key in keys {
        let name = key.as_str().unwrap_or_default();
        let full = if path.is_empty() { name.to_string() } else { format!("{path}.{name}") };
        let (b, o, t) = (base.get(key), ours.get(key), theirs.get(key));
        let merged = if o == t {
            o.cloned()
        } else if o == b {
            t.cloned()
        } else if t == b {
            o.cloned()
        } else {
            merge_both(&full, b, o, t, ours_later, notes)
        };
        if let Some(v) = merged {
            out.insert(key.clone(), v);
        }
    }
    out
}

/// A key changed differently on both sides.
fn merge_both(
    full: &str,
    b: Option<&Yaml>,
    o: Option<&Yaml>,
    t: Option<&Yaml>,
    ours_later: bool,
    notes: &mut Vec<String>,
) -> Option<Yaml> {
    match (full, b, o, t) {
        ("labels", _, Some(Yaml::Sequence(o)), Some(Yaml::Sequence(t))) => Some(Yaml::Sequence(merge_set(b, o, t))),
        // Blockers merge as a set too; a side without the key has none (an empty list removes it).
        ("blockedBy", ..) if [b, o, t].iter().all(|v| matches!(v, None | Some(Yaml::Sequence(_)))) => {
            let seq = |v: Option<&Yaml>| v.and_then(Yaml::as_sequence).cloned().unwrap_or_default();
            let out = merge_set(b, &seq(o), &seq(t));
            (!out.is_empty()).then_some(Yaml::Sequence(out))
        }
        ("updatedAt" | "closedAt", ..) => if ours_later { o.or(t) } else { t.or(o) }.cloned(),
        // A close (or cancel) on one branch and a claim or another status on the other: the
        // close wins whichever was later, so finished work is never reopened by a merge.
        ("status", _, Some(so), Some(st)) if finished(so) != finished(st) => {
            let (kept, other) = if finished(so) { (o, t) } else { (t, o) };
            notes.push(format!(
                "> docket merge: `status` was changed on both branches; kept {} (a close wins over a claim), the other branch had {}.",
                show(kept),
                show(other)
            ));
            kept.cloned()
        }
        (_, _, Some(Yaml::Mapping(om)), Some(Yaml::Mapping(tm))) => {
            let empty = Mapping::new();
            let bm = match b {
                Some(Yaml::Mapping(bm)) => bm,
                _ => &empty,
            };
            Some(Yaml::Mapping(merge_mapping(bm, om, tm, ours_later, full, notes)))
        }
        _ => {
            let (kept, other) = if ours_later { (o, t) } else { (t, o) };
            notes.push(format!(
                "> docket merge: `{full}` was changed on both branches; kept {} (the later update), the other branch had {}.",
                show(kept),
                show(other)
            ));
            kept.cloned()
        }
    }
}

/// Whether a `status` value says the work is over (closed or cancelled, as people write them too).
fn finished(v: &Yaml) -> bool {
    v.as_str().and_then(crate::model::Status::parse_loose).is_some_and(|s| s.is_archived())
}

/// Both sides' additions to and removals from the base list.
fn merge_set(b: Option<&Yaml>, o: &[Yaml], t: &[Yaml]) -> Vec<Yaml> {
    let empty = Vec::new();
    let base = match b {
        Some(Yaml::Sequence(b)) => b,
        _ => &empty,
    };
    let mut out: Vec<Yaml> = o.iter().filter(|x| !base.contains(x) || t.contains(x)).cloned().collect();
    for x in t.iter().filter(|x| !base.contains(x)) {
        if !out.contains(x) {
            out.push(x.clone());
        }
    }
    out
}

fn show(v: Option<&Yaml>) -> String {
    match v {
        None => "no value".to_string(),
        Some(Yaml::String(s)) => format!("\"{s}\""),
        Some(v) => serde_yaml::to_string(v).map(|s| s.trim().replace('\n', " ")).unwrap_or_default(),
    }
}

/// After a status change: `closedAt` present exactly when the merged status is closed or cancelled.
fn settle_dates(front: &mut Mapping, ours: &Mapping, theirs: &Mapping) {
    let archived = |m: &Mapping| matches!(m.get("status").and_then(Yaml::as_str), Some("closed" | "cancelled"));
    if !front.contains_key("status") {
        return;
    }
    if archived(front) {
        if !front.contains_key("closedAt") {
            let from = [ours, theirs].into_iter().find(|m| archived(m)).and_then(|m| m.get("closedAt"));
            if let Some(v) = from.or_else(|| front.get("updatedAt")).cloned() {
                front.insert(Yaml::String("closedAt".into()), v);
            }
        }
    } else {
        front.remove("closedAt");
    }
}

/// The merged frontmatter as text: ours' text with only the lines of changed keys replaced (new
/// keys appended, removed keys dropped). Falls back to serializing the whole mapping if the line
/// surgery would not read back as `merged`.
fn render_front(ours_text: &str, ours: &Mapping, merged: &Mapping) -> String {
    let surgery = || -> Option<String> {
        let blocks = top_level_blocks(ours_text)?;
        let mut out = String::new();
        for (key, text) in &blocks {
            match key {
                None => out.push_str(text),
                Some(k) => match (ours.get(k.as_str()), merged.get(k.as_str())) {
                    (Some(a), Some(b)) if a == b => out.push_str(text),
                    (_, Some(b)) => out.push_str(&one_key(k, b)?),
                    (_, None) => {}
                },
            }
        }
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        for (k, v) in merged.iter().filter(|(k, _)| !ours.contains_key(*k)) {
            out.push_str(&one_key(k.as_str()?, v)?);
        }
        let back = match serde_yaml::from_str::<Yaml>(&out).ok()? {
            Yaml::Null => Mapping::new(),
            Yaml::Mapping(m) => m,
            _ => return None,
        };
        (back == *merged).then_some(out)
    };
    surgery().unwrap_or_else(|| {
        if merged.is_empty() { String::new() } else { serde_yaml::to_string(merged).unwrap_or_default() }
    })
}

fn one_key(key: &str, value: &Yaml) -> Option<String> {
    let mut m = Mapping::new();
    m.insert(Yaml::String(key.to_string()), value.clone());
    serde_yaml::to_string(&m).ok()
}

/// The frontmatter cut into top-level blocks: a key's line with its indented (or `- `) lines, and
/// key-less runs (comments). `None` if a top-level key cannot be read.
fn top_level_blocks(text: &str) -> Option<Vec<(Option<String>, String)>> {
    let mut blocks: Vec<(Option<String>, String)> = Vec::new();
    for line in text.split_inclusive('\n') {
        let starts_key = line.chars().next().is_some_and(|c| !c.is_whitespace() && c != '-' && c != '#');
        if starts_key {
            let key = line.split_once(':').map(|(k, _)| k.trim().trim_matches(['"', '\'']).to_string())?;
            blocks.push((Some(key), line.to_string()));
        } else if line.starts_with('#') || blocks.is_empty() {
            blocks.push((None, line.to_string()));
        } else if let Some(last) = blocks.last_mut() {
            last.1.push_str(line);
        }
    }
    Some(blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "---\nid: ISS-000001\ntitle: One\nstatus: open\npriority: medium\nlabels:\n  - a\n  - b\ncustom: 'keep'\ncreatedAt: 2026-01-01T00:00:00.000Z\nupdatedAt: 2026-01-01T00:00:00.000Z\n---\nline 1\nline 2\nline 3\n";

    #[test]
    fn one_side_changes_and_label_sets_merge_without_conflict() {
        let ours = BASE
            .replace("status: open", "status: closed")
            .replace(
                "updatedAt: 2026-01-01T00:00:00.000Z",
                "updatedAt: 2026-01-02T00:00:00.000Z\nclosedAt: 2026-01-02T00:00:00.000Z",
            )
            .replace("  - b\n", "");
        let theirs = BASE
            .replace("priority: medium", "priority: high")
            .replace("  - b\n", "  - b\n  - c\n")
            .replace("updatedAt: 2026-01-01T00:00:00.000Z", "updatedAt: 2026-01-03T00:00:00.000Z")
            .replace("line 3", "line 3 changed");
        let m = merge_file_at(BASE, &ours, &theirs, "2026-02-01T00:00:00.000Z");
        assert!(!m.conflicts, "{}", m.text);
        let p = split(&m.text).expect("parses");
        assert_eq!(p.front.get("status").and_then(Yaml::as_str), Some("closed"));
        assert_eq!(p.front.get("priority").and_then(Yaml::as_str), Some("high"));
        assert_eq!(
            p.front.get("updatedAt").and_then(Yaml::as_str),
            Some("2026-02-01T00:00:00.000Z"),
            "the merge changed ours: it is an update made at the merge"
        );
        assert_eq!(p.front.get("closedAt").and_then(Yaml::as_str), Some("2026-01-02T00:00:00.000Z"));
        let labels: Vec<&str> = p
            .front
            .get("labels")
            .and_then(Yaml::as_sequence)
            .expect("labels")
            .iter()
            .filter_map(Yaml::as_str)
            .collect();
        assert_eq!(labels, ["a", "c"]);
        assert!(m.text.contains("custom: 'keep'\n"), "untouched keys keep their text: {}", m.text);
        assert!(p.body.ends_with("line 3 changed\n"));
    }

    #[test]
    fn both_sides_changing_a_field_keep_the_later_and_note_the_other() {
        let ours = BASE.replace("title: One", "title: Ours").replace("01T00:00:00.000Z\n---", "05T00:00:00.000Z\n---");
        let theirs =
            BASE.replace("title: One", "title: Theirs").replace("01T00:00:00.000Z\n---", "04T00:00:00.000Z\n---");
        let m = merge_file(BASE, &ours, &theirs);
        assert!(!m.conflicts);
        assert!(m.text.contains("\ntitle: Ours\n"), "{}", m.text);
        assert!(m.text.trim_end().ends_with("the other branch had \"Theirs\"."), "{}", m.text);
    }

    /// A close on one branch and a later claim on the other: the close wins either way round, and
    /// `closedAt` stays; a claim is never what a merge makes of finished work.
    #[test]
    fn a_close_wins_over_a_later_claim_on_the_other_branch() {
        let closed = BASE.replace("status: open", "status: closed").replace(
            "updatedAt: 2026-01-01T00:00:00.000Z",
            "updatedAt: 2026-01-02T00:00:00.000Z\nclosedAt: 2026-01-02T00:00:00.000Z",
        );
        let claimed = BASE
            .replace("status: open", "status: in_progress\nassignee: bob")
            .replace("updatedAt: 2026-01-01T00:00:00.000Z", "updatedAt: 2026-01-03T00:00:00.000Z");
        for (ours, theirs) in [(&closed, &claimed), (&claimed, &closed)] {
            let m = merge_file(BASE, ours, theirs);
            assert!(!m.conflicts);
            assert!(m.text.contains("\nstatus: closed\n"), "{}", m.text);
            assert!(m.text.contains("\nclosedAt: 2026-01-02T00:00:00.000Z\n"), "{}", m.text);
            assert!(m.text.contains("a close wins over a claim"), "{}", m.text);
        }
    }

    /// A merge that leaves ours as it was (theirs changed nothing, or the same thing) is no update.
    #[test]
    fn a_merge_that_changes_nothing_of_ours_keeps_its_updated_at() {
        let ours = BASE.replace("priority: medium", "priority: high");
        for theirs in [BASE.to_string(), ours.clone()] {
            let m = merge_file_at(BASE, &ours, &theirs, "2026-02-01T00:00:00.000Z");
            assert_eq!(m.text, ours);
        }
    }

    /// Keys decide when both files have one, even at one creation instant; otherwise the times do.
    #[test]
    fn two_issues_with_keys_are_two_keys() {
        let keyed =
            |k: &str| format!("---\nid: ISS-000002\ncreatedAt: '2026-01-01T10:00:00.100Z'\ndocketKey: {k}\n---\nb\n");
        assert!(two_issues(&keyed("aaaa"), &keyed("bbbb")), "same instant, two keys");
        assert!(!two_issues(&keyed("aaaa"), &keyed("aaaa")));
        let unkeyed = "---\nid: ISS-000002\ncreatedAt: '2026-01-01T10:00:00.100Z'\n---\nb\n";
        assert!(!two_issues(&keyed("aaaa"), unkeyed), "one key only: the times decide");
        assert_eq!(identity(&keyed("aaaa")), Some("key aaaa".into()));
        assert_eq!(identity(unkeyed), Some("created 2026-01-01T10:00:00.100Z".into()));
    }

    #[test]
    fn two_added_copies_are_one_issue_only_when_equal_but_for_docket_stamps() {
        let file = |assignee: &str, status: &str, updated: &str| {
            format!(
                "---\nid: ISS-000002\ntitle: 'New'\nstatus: {status}\nassignee: {assignee}\ncreatedAt: '2026-01-01T10:00:00.100Z'\nupdatedAt: '{updated}'\ndocketKey: abc\n---\nTemplate body.\n"
            )
        };
        let ann = file("ann", "open", "2026-01-01T10:00:00.100Z");
        assert!(same_issue_added(&ann, &file("ann", "closed", "2026-01-02T10:00:00.100Z")));
        assert!(!same_issue_added(&ann, &file("bob", "open", "2026-01-01T10:00:00.100Z")));
        assert!(!same_issue_added(&ann, &ann.replace("Template body.", "Edited.")));
    }

    #[test]
    fn two_issues_are_two_creation_times_not_two_spellings_of_one() {
        let at = |t: &str| format!("---\nid: ISS-000002\ntitle: Task 1\ncreatedAt: '{t}'\n---\nbody\n");
        assert!(two_issues(&at("2026-01-01T10:00:00.100Z"), &at("2026-01-01T10:00:00.200Z")));
        assert!(!two_issues(&at("2026-01-01T10:00:00Z"), &at("2026-01-01T10:00:00.000Z")));
        assert!(!two_issues(&at("2026-01-01T10:00:00Z"), "no frontmatter"));
    }

    #[test]
    fn blockers_merge_as_a_set() {
        let base = BASE.replace("custom: 'keep'\n", "custom: 'keep'\nblockedBy:\n  - ISS-000002\n");
        let ours = base.replace("  - ISS-000002\n", "  - ISS-000002\n  - ISS-000003\n");
        let theirs = base.replace("blockedBy:\n  - ISS-000002\n", "blockedBy:\n  - ISS-000004\n");
        let m = merge_file(&base, &ours, &theirs);
        let p = split(&m.text).expect("parses");
        let got: Vec<&str> = p
            .front
            .get("blockedBy")
            .and_then(Yaml::as_sequence)
            .expect("list")
            .iter()
            .filter_map(Yaml::as_str)
            .collect();
        assert_eq!(got, ["ISS-000003", "ISS-000004"], "{}", m.text);
        let cleared = base.replace("blockedBy:\n  - ISS-000002\n", "");
        let m = merge_file(&base, &cleared, &base.replace("ISS-000002", "ISS-000005"));
        let p = split(&m.text).expect("parses");
        assert_eq!(p.front.get("blockedBy").and_then(Yaml::as_sequence).map(Vec::len), Some(1), "{}", m.text);
    }

    #[test]
    fn notes_appended_on_both_branches_are_both_kept_in_one_order() {
        let base = "---\nid: ISS-1\nstatus: in_progress\nupdatedAt: '2026-01-01T00:00:00Z'\n---\n\nBody.\n";
        let closed = format!("{base}\n---\n**Completion Notes (2026-01-02T00:00:00Z):**\ndone by ann")
            .replace("status: in_progress", "status: closed");
        let noted = format!("{base}\n> docket merge: `assignee` was changed on both branches\n");
        let one = merge_file_at(base, &closed, &noted, "2026-01-03T00:00:00Z");
        let other = merge_file_at(base, &noted, &closed, "2026-01-03T00:00:00Z");
        for m in [&one, &other] {
            assert!(!m.conflicts && !m.text.contains("<<<<<<<"), "{}", m.text);
            assert!(m.text.contains("done by ann") && m.text.contains("> docket merge:") && m.text.contains("Body."));
        }
        let body = |m: &Merged| split(&m.text).map(|p| p.body.to_string());
        assert_eq!(body(&one), body(&other), "both sides' merges agree");
    }

    #[test]
    fn body_conflicts_stay_in_the_body() {
        let ours = BASE.replace("line 2", "ours 2");
        let theirs = BASE.replace("line 2", "theirs 2").replace("status: open", "status: in_progress");
        let m = merge_file(BASE, &ours, &theirs);
        assert!(m.conflicts);
        let p = split(&m.text).expect("the frontmatter still parses");
        assert_eq!(p.front.get("status").and_then(Yaml::as_str), Some("in_progress"));
        assert!(p.body.contains("<<<<<<<") && !p.yaml.contains("<<<<<<<"));
    }
}
