use std::path::PathBuf;

use super::*;

fn sample_meta(title: &str) -> IssueMeta {
    IssueMeta {
        id: "ISS-000001".into(),
        title: title.into(),
        issue_type: IssueType::Issue,
        status: Status::Open,
        priority: Priority::High,
        labels: vec!["a: b".into(), "🚀".into(), "---".into()],
        assignee: None,
        project: Some("p".into()),
        created_at: "2026-02-17T21:01:15.176Z".into(),
        updated_at: "2026-02-17T21:01:15.176Z".into(),
        closed_at: None,
        context: Map::new(),
        blocked_by: Vec::new(),
        path: PathBuf::from("/w/issues/ISS-000001-x.md"),
        body_len: 0,
        frontmatter: true,
    }
}

fn read(text: &str) -> IssueMeta {
    let doc = parse(text).expect("parses");
    meta(&doc, Path::new("/w/issues/ISS-000001-x.md"), IssueType::Issue, "2026-01-01T00:00:00.000Z")
}

#[test]
fn yaml_special_titles_and_labels_round_trip_exactly() {
    for title in [
        "Fix: colon",
        "He said \"hi\" and 'bye'",
        "---",
        "line one\nline two",
        "emoji 🚀 ✓",
        "# not a comment",
        "- dash",
        "null",
        "true",
        "012",
    ] {
        let text = render_new(&sample_meta(title), "Body\n---\nafter rule\n");
        let doc = parse(&text).unwrap_or_else(|e| panic!("{title:?} broke the file: {e}\n{text}"));
        let back = meta(&doc, Path::new("/w/issues/ISS-000001-x.md"), IssueType::Issue, "");
        assert_eq!(back.title, title);
        assert_eq!(back.labels, vec!["a: b", "🚀", "---"]);
        assert_eq!(doc.body, "Body\n---\nafter rule\n");
    }
}

#[test]
fn new_files_look_like_wranglers() {
    let text = render_new(&sample_meta("T"), "b");
    assert!(text.contains("labels:\n  - 'a: b'\n"), "{text}");
    assert!(text.contains("createdAt: '2026-02-17T21:01:15.176Z'\n"), "{text}");
}

#[test]
fn an_edit_keeps_every_other_byte() {
    let text = "\u{feff}---\r\nid: ISS-000007   # mine\r\n404: note\r\ntitle: 404\r\nstatus: Closed\r\nlabels: [1]\r\ncustom: &c {a: 1}\r\nmore: *c\r\n---\r\nbody\r\n";
    let doc = parse(text).expect("parses");
    let out = doc.edited(&[("priority", Some(Yaml::String("high".into())))], None).expect("edits");
    assert_eq!(out, text.replace("more: *c\r\n", "more: *c\r\npriority: high\r\n"));
}

#[test]
fn values_humans_write_are_read_tolerantly_and_reported() {
    let m = read("---\nstatus: Closed\npriority: High\ntype: Specification\n---\n");
    assert_eq!((m.status, m.priority, m.issue_type), (Status::Closed, Priority::High, IssueType::Specification));
    assert_eq!(read("---\nstatus: in-progress\n---\n").status, Status::InProgress);
    let notes = nonstandard_values(&parse("---\nstatus: Closed\ntype: bug\ntitle: [a, b]\n---\n").expect("parses"));
    assert_eq!(notes.len(), 3, "{notes:?}");
}

#[test]
fn numbers_stay_numbers_and_other_keys_do_not_matter() {
    let m = read("---\ntitle: 404\nassignee: 42\nlabels: [1]\n404: note\ntrue: x\n~: y\n---\n");
    assert_eq!((m.title.as_str(), m.assignee.as_deref(), m.labels.clone()), ("404", Some("42"), vec!["1".to_string()]));
    let legacy = read("---\nid: 000037\n---\n");
    assert_eq!(legacy.id, "000037");
}

#[test]
fn a_bom_file_keeps_its_frontmatter() {
    let m = read("\u{feff}---\ntitle: With BOM\n---\nbody");
    assert_eq!(m.title, "With BOM");
    let idx = index_meta("\u{feff}---\ntitle: With BOM\n---\nbody", Path::new("/w/x.md"), IssueType::Issue, "")
        .expect("reads");
    assert_eq!(idx.0.title, "With BOM");
    assert_eq!(idx.1, "body");
}

#[test]
fn files_without_frontmatter_take_their_title_from_the_first_heading() {
    let m = read("Some intro\n\n## The Real Title\n\ntext");
    assert_eq!(m.title, "The Real Title");
    assert!(!m.frontmatter);
    let doc = parse("# Notes\nbody\n").expect("parses");
    let out = doc.edited(&[("status", Some(Yaml::String("closed".into())))], None).expect("edits");
    assert_eq!(out, "---\nstatus: closed\n---\n# Notes\nbody\n");
}

#[test]
fn legacy_quoted_ids_and_missing_fields_get_defaults() {
    let doc = parse("---\nid: \"000037\"\n---\n").expect("parses");
    let m = meta(&doc, Path::new("/w/issues/task-000037.md"), IssueType::Issue, "2026-01-01T00:00:00Z");
    assert_eq!(
        (m.id.as_str(), m.title.as_str(), m.status, m.priority),
        ("000037", "Untitled Issue", Status::Open, Priority::Medium)
    );
}

#[test]
fn id_comes_from_the_file_name_when_missing() {
    let doc = parse("no frontmatter at all").expect("parses");
    assert_eq!(meta(&doc, Path::new("/w/issues/SPEC-000012-plan.md"), IssueType::Specification, "").id, "SPEC-000012");
    assert_eq!(id_from_file_name(Path::new("000005-legacy.md")).as_deref(), Some("000005"));
    assert_eq!(id_from_file_name(Path::new("ISS-1000000-big.md")).as_deref(), Some("ISS-1000000"));
    assert_eq!(id_from_file_name(Path::new("notes.md")), None);
}

#[test]
fn broken_frontmatter_is_an_error_not_a_guess() {
    assert!(parse("---\ntitle: [unclosed\n---\nbody").is_err());
    assert!(parse("---\ntitle: x\nno closing line").is_err());
    assert!(parse("---\n- a list\n---\n").is_err());
}

#[test]
fn list_operations_on_values_that_are_not_lists_are_refused() {
    let doc = parse("---\nlabels: {a: 1}\nwranglerContext: text\n---\n").expect("parses");
    assert!(not_editable(&doc, "labels").is_some());
    assert!(not_editable(&doc, "wranglerContext").is_some());
    let fine = parse("---\nlabels: [a]\n---\n").expect("parses");
    assert!(not_editable(&fine, "labels").is_none());
}

/// The identity key is written so it reads back as the same text, whatever its digits (a key
/// of digits alone, or one that looks like a float, is quoted).
#[test]
fn a_created_issue_carries_its_identity_as_written() {
    for key in ["0123456789abcdef", "1111111111111111", "1e10000000000000", "0x1234567890abcd"] {
        let text = render_created(&sample_meta("T"), key, "b");
        assert_eq!(crate::git::merge::identity_key(&text).as_deref(), Some(key), "{text}");
    }
    assert!(new_identity().len() == 16 && new_identity() != new_identity());
}
