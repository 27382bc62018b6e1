//! The fast reader against serde_yaml: the same `IssueMeta`, body and error for every input, on
//! hand-written cases (each also saying whether the fast reader should take it), a seeded
//! random corpus of the same pieces, docket's own files and, with DOCKET_REAL_FIXTURE, every file
//! of a real wrangler workspace. (Over 600 lines because a third of it is the case table, one
//! case a line.)

use std::path::Path;

use serde_json::{Map, json};

use super::super::{BOM, Front, index_meta_with, parse_mapping, render_new, split};
use crate::model::{IssueMeta, IssueType, Priority, Status};

const PATH: &str = "/w/.wrangler/issues/ISS-000042-x.md";

/// Whether the fast reader takes the file's frontmatter (`None`: the file has none to read).
/// When it does, its raw values must be serde_yaml's, not merely read the same.
fn taken(text: &str) -> Option<bool> {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let yaml = split(text).ok().flatten()?.yaml;
    let Some(fast) = super::front(yaml) else { return Some(false) };
    let slow = parse_mapping(yaml).map(|m| Front::from_mapping(&m));
    assert_eq!(Ok(&fast), slow.as_ref(), "the fast reader's values differ from serde_yaml's for {yaml:?}");
    Some(true)
}

/// Runs both paths on `text`, asserts they agree, and says whether the fast one took it.
fn both(text: &str, path: &Path) -> Option<bool> {
    let read = |fast| index_meta_with(text, path, IssueType::Issue, "2026-01-01T00:00:00.000Z", fast);
    let (fast, slow) = (read(true), read(false));
    assert_eq!(fast, slow, "the fast reader and serde_yaml disagree on {text:?}");
    taken(text)
}

fn file(yaml: &str) -> String {
    format!("---\n{yaml}---\n# Heading\nbody\n")
}

/// Each case: frontmatter YAML and whether the fast reader should take it.
const CASES: &[(&str, bool)] = &[
    ("", true),
    ("   \n\n", true),
    ("id: 000037\n", true),
    ("id: 37\n", true),
    ("id: 0\n", true),
    ("id: 'ISS-000001'\n", true),
    ("priority: 1\n", true),
    ("title: 0\n", true),
    ("title: true\n", true),
    ("title: True\nstatus: FALSE\n", true),
    ("title: null\n", true),
    ("title: ~\n", true),
    ("title: NULL\n", true),
    ("title:\n", true),
    ("title:   \n", true),
    ("title: 'it''s'\n", true),
    ("title: it's\n", true),
    ("title: ''\n", true),
    ("title: \"\"\n", true),
    ("title: '   '\n", true),
    ("title: 'a'   \n", true),
    ("title: \"plain double\"\n", true),
    ("title: 'a: b # c'\n", true),
    ("title: a:b\n", true),
    ("title: a :b\n", true),
    ("title: a#b\n", true),
    ("title: a ]\n", true),
    ("title: a, b\n", true),
    ("title: <<\n", true),
    ("title: inf\n", true),
    ("title: nan\n", true),
    ("title: Infinity\n", true),
    ("title: x   \n", true),
    ("title:    spaced   out  \n", true),
    ("title: \u{a0}nbsp\n", true),
    ("title: emoji 🚀 ✓ é\n", true),
    ("title: [a, b]\n", true),
    ("project: 000037-figma-design.md\n", true),
    ("title: 12abc\n", true),
    ("title: 1_000\n", true),
    ("title: e5\n", true),
    ("title: 2026-08-16T02:02:00.000Z\n", true),
    ("createdAt: 2026-08-16T02:02:00.000Z\nupdatedAt: '2026-08-16T02:02:00.000Z'\n", true),
    ("Title: x\ntitle: y\n", true),
    ("my-key_1: x\ntitle: y\n", true),
    ("yes: 1\non: 2\ny: 3\nY: 4\nno: 5\noff: 6\n", true),
    ("title: a\u{a0}#b\n", true),
    ("labels: []\n", true),
    ("labels: [ ]\n", true),
    ("labels: bug\n", true),
    ("labels: [a, 'b c', \"d\"]\n", true),
    ("labels: [\"workflow-engine\", \"auto-created\"]\n", true),
    ("labels: ['x, y', \"c, d\", 'it''s']\n", true),
    ("labels: [a b, c]\n", true),
    ("labels: [a\"b, c'd, e!, f&g, h*]\n", true),
    ("title: a\"b' !c &d *e |f >g\n", true),
    ("labels: [1, 2]\n", true),
    ("labels: [~, null, true, 7, 007]\n", true),
    ("labels:\n  - a\n  - b\n", true),
    ("labels:\n- a\n- b\nid: 5\n", true),
    ("labels:\n    - a\n", true),
    ("labels:\n  -\n  - ~\n  - x\n  - 12\n", true),
    ("labels:\n\n- a\n\n- b\n", true),
    ("labels:\n  - 'a: b'\n  - \"---\"\n  - 🚀\n", true),
    ("title:\n\n  - a\n", true),
    ("blockedBy:\n  - ISS-000001\n  - ' '\n  - ''\n", true),
    ("blockedBy: ISS-000007\n", true),
    ("wranglerContext:\n  agentId: \"spec-writer\"\n  parentTaskId: SPEC-1\n", true),
    ("wranglerContext:\n  a: x\n\n  b: 7\nid: 5\n", true),
    ("wranglerContext:\n  a:\n  b: y\n", true),
    ("wranglerContext:\n    deep: [a, 1]\n    e: {}\n", true),
    ("wranglerContext: {}\n", true),
    ("wranglerContext: text\n", true),
    ("title: x\n  \n", true),
    ("title: >-\n  Long title: with 'quotes' # and\n  continued here\n", true),
    ("title: >\n  a\n  b\nid: 5\n", true),
    ("title: |-\n  a\n  b\n", true),
    ("title: |\n  a: b # c\n  'q'\n", true),
    ("title: >-\n    deep\n    er\nlabels: []\n", true),
    ("wranglerContext:\n  e: >-\n    4 weeks (2 weeks core, 1 week\n    testing/polish)\n  f: x\n", true),
    ("title: >-\n  a\n\n  b\n", false),
    ("title: >-\n  a\n    b\n", false),
    ("title: >-\n    a\n  b\n", false),
    ("title: >-\n  a  \n  b\n", false),
    ("title: >-\nid: x\n", false),
    ("title: >-\n", false),
    ("title: >-\n\n  a\n", false),
    ("title: >-\n  a\n\n", false),
    ("title: >- # c\n  a\n", false),
    ("title: >2-\n  a\n", false),
    ("title: >+\n  a\n", false),
    ("title: |+\n  a\n", false),
    ("labels:\n  - >-\n    a\n", false),
    ("wranglerContext:\n  e: >-\n  a\n", false),
    ("wranglerContext:\n  e: >-\n    a\n   b: c\n", false),
    ("custom:\n  x: 1\nother: [a]\n", true),
    // Everything below falls back to serde_yaml (which may read it, or call the file broken).
    ("labels: [a,]\n", false),
    ("labels: [a, [b]]\n", false),
    ("labels: [a:b]\n", false),
    ("labels: [a\n", false),
    ("labels: {a: 1}\n", false),
    ("labels: { }\n", false),
    ("labels:\n  - a\n - b\n", false),
    ("labels:\n  - a\n    b\n", false),
    ("labels:\n  - - a\n", false),
    ("labels:\n  - a: b\n", false),
    ("labels:\n  - [a]\n", false),
    ("labels:\n  -a\n", false),
    ("labels:\n  - a # c\n", false),
    ("wranglerContext:\n  a:\n    b: c\n", false),
    ("wranglerContext:\n  a: 1\n  a: 2\n", false),
    ("wranglerContext:\n  a: x\n   b: y\n", false),
    ("wranglerContext:\n  a: x\n b: y\n", false),
    ("wranglerContext:\n  a:\n  - x\n", false),
    ("wranglerContext:\n  'a': x\n", false),
    ("title: a\ntitle: b\n", false),
    ("title: a\nlabels: []\ntitle: a\n", false),
    ("title: x # comment\n", false),
    ("title: x\n# comment\n", false),
    ("# comment\ntitle: x\n", false),
    ("title:  # comment\n", false),
    ("title:\tx\n", false),
    ("title: x\t\n", false),
    ("title: &a x\nproject: *a\n", false),
    ("title: !!str 5\n", false),
    ("title: !custom x\n", false),
    ("title: a\n  continued\n", false),
    ("title: a\n\n  continued\n", false),
    ("title:\n  next line\n", false),
    ("title: 'a\n  b'\n", false),
    ("title: \"a\n  b\"\n", false),
    ("title: \"a\\tb\"\n", false),
    ("title: \"a\\\"b\"\n", false),
    ("title: \"a\" # c\n", false),
    ("title: \"a\"b\n", false),
    ("title: 'a' b\n", false),
    ("title: 'a''\n", false),
    ("title: 'a\n", false),
    ("key:value\n", false),
    ("title: a: b\n", false),
    ("title: x:\n", false),
    ("title : x\n", false),
    ("? complex\n: value\n", false),
    ("--- x\n", false),
    ("title: x\n---x\n", false),
    ("title: x\n...\n", false),
    ("%YAML 1.2\n", false),
    ("404: note\ntitle: x\n", false),
    ("true: x\n", false),
    ("null: x\n", false),
    ("~: x\n", false),
    ("<<: x\n", false),
    ("\"title\": x\n", false),
    ("  title: x\n", false),
    ("- a\n", false),
    ("just text\n", false),
    ("title: 2026-02-17\n", false),
    ("title: 1.5\n", false),
    ("title: -5\n", false),
    ("title: 0x1F\n", false),
    ("title: 0xZZ\n", false),
    ("title: -0x1F\n", false),
    ("title: 1.2.3\n", false),
    ("title: 0o17\n", false),
    ("title: .inf\n", false),
    ("title: .NaN\n", false),
    ("title: +1\n", false),
    ("title: 1e3\n", false),
    ("id: 12345678901234567890123\n", false),
    ("title: -dash\n", false),
    ("title: - item\n", false),
    ("title: ?x\n", false),
    ("title: :x\n", false),
    ("title: %x\n", false),
    ("title: @x\n", false),
    ("title: `x\n", false),
    ("title: a # b\n", false),
    ("title: a\rb\n", false),
    ("title: a\u{2028}b\n", false),
    ("title: a\u{85}b\n", false),
    ("title: a\u{feff}b\n", false),
    ("title: a\u{1}b\n", false),
    ("title: a\u{7f}b\n", false),
    ("title: a\u{fffe}b\n", false),
    ("title: a\u{9f}b\n", false),
];

#[test]
fn both_readers_agree_on_every_tricky_case_and_the_fast_one_takes_only_the_simple_ones() {
    let path = Path::new(PATH);
    for (yaml, fast) in CASES {
        for text in [file(yaml), file(yaml).replace('\n', "\r\n"), format!("{BOM}{}", file(yaml))] {
            assert_eq!(both(&text, path), Some(*fast), "fast reader taking {text:?}");
        }
        let spaced = file(&yaml.replace('\n', "  \n"));
        both(&spaced, path);
    }
    let long_key = format!("{}: x\n", "k".repeat(2000));
    assert_eq!(both(&file(&long_key), path), Some(false));
    let long = "word ".repeat(1000);
    for yaml in [
        format!("title: {long}\n"),
        format!("title: '{long}'\n"),
        format!("title: \"{long}\"\n"),
        format!("labels:\n  - {long}\n"),
        format!("labels: [{long}]\n"),
    ] {
        assert_eq!(both(&file(&yaml), path), Some(true), "{yaml}");
    }
}

#[test]
fn files_without_or_with_broken_frontmatter_read_as_before() {
    let path = Path::new(PATH);
    for text in [
        "",
        "no frontmatter\n",
        "---\ntitle: x\nno closing line\n",
        "---\ntitle: x\n---",
        "--- \ntitle: x\n--- \r\nbody",
        "\u{feff}\u{feff}---\ntitle: x\n---\n",
        "---\n---\n---\n",
        "---\r\n---\r\n",
    ] {
        both(text, path);
    }
    for name in ["/w/issues/SPEC-000012-plan.md", "/w/issues/notes.md", "/w/issues/000005-legacy.md"] {
        both("---\ntitle: x\n---\n", Path::new(name));
        both("---\nid: ''\n---\n", Path::new(name));
    }
}

/// A file as benches/ generates them.
const BENCH_FILE: &str = "---\nid: ISS-000001\ntitle: Harden file uploads on mobile\ntype: issue\nstatus: open\npriority: high\nlabels:\n  - feature\n  - tech-debt\n  - bug\nassignee: ann\ncreatedAt: '2026-08-16T02:02:00.000Z'\nupdatedAt: '2026-09-19T07:02:30.000Z'\n---\n## Context\n\nHarden file uploads on mobile.\n";

/// A file as the real wrangler workspace holds many (double quotes, a flow list, a context).
const WRANGLER_FILE: &str = "---\nid: \"SPEC-TOS\"\ntitle: \"Template Override System - Enabling Project-Specific Customization\"\ntype: \"specification\"\nstatus: \"open\"\npriority: \"medium\"\nlabels: [\"specification\", \"templates\", \"configuration\", \"ux\"]\nassignee: \"\"\nproject: \"Wrangler v1.3.0\"\ncreatedAt: \"2026-01-18T00:00:00.000Z\"\nupdatedAt: \"2026-01-18T00:00:00.000Z\"\nwranglerContext:\n  agentId: \"spec-writer\"\n  parentTaskId: \"SPEC-IDWF-V2\"\n  estimatedEffort: \"1-2 weeks\"\n---\n\n# Specification\n";

fn typical_meta() -> IssueMeta {
    let mut context = Map::new();
    context.insert("agentId".into(), json!("spec-writer"));
    context.insert("parentTaskId".into(), json!("SPEC-000012"));
    context.insert("estimatedEffort".into(), json!("1-2 weeks"));
    IssueMeta {
        id: "ISS-000042".into(),
        title: "Fix: the 'quoted' thing — \"twice\"".into(),
        issue_type: IssueType::Issue,
        status: Status::InProgress,
        priority: Priority::High,
        labels: vec!["bug".into(), "a: b".into(), "🚀".into(), "123".into()],
        assignee: Some("ann".into()),
        project: Some("Wrangler v1.3.0".into()),
        created_at: "2026-02-17T21:01:15.176Z".into(),
        updated_at: "2026-02-18T08:00:00.000Z".into(),
        closed_at: Some("2026-02-19T08:00:00.000Z".into()),
        context,
        blocked_by: vec!["ISS-000001".into(), "ISS-000002".into()],
        path: Path::new(PATH).to_path_buf(),
        body_len: 0,
        frontmatter: true,
    }
}

#[test]
fn the_fast_reader_takes_the_files_docket_and_the_benches_write() {
    let path = Path::new(PATH);
    let written = render_new(&typical_meta(), "## Context\n\nbody\n");
    assert_eq!(both(&written, path), Some(true), "docket's own file falls back:\n{written}");
    let (meta, _) = index_meta_with(&written, path, IssueType::Issue, "", true).expect("reads");
    assert_eq!(meta.labels, typical_meta().labels);
    assert_eq!(meta.context, typical_meta().context);
    assert_eq!(both(BENCH_FILE, path), Some(true));
    assert_eq!(both(WRANGLER_FILE, path), Some(true));
}

/// A small seeded generator (xorshift64*), so a failure names a reproducible seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

const KEYS: &[&str] = &[
    "id",
    "title",
    "type",
    "status",
    "priority",
    "labels",
    "assignee",
    "project",
    "createdAt",
    "updatedAt",
    "closedAt",
    "wranglerContext",
    "blockedBy",
    "custom",
    "x-y_z",
    "Title",
];

/// Values the fast reader should take.
const VALUES: &[&str] = &[
    "",
    "x",
    "Fix the thing",
    "ISS-000001",
    "000037",
    "37",
    "0",
    "true",
    "False",
    "~",
    "null",
    "open",
    "Closed",
    "in-progress",
    "high",
    "specification",
    "'it''s'",
    "'a: b'",
    "'2026-08-16T02:02:00.000Z'",
    "2026-08-16T02:02:00.000Z",
    "\"q\"",
    "\"\"",
    "''",
    "a#c",
    "a:b",
    "[a, b]",
    "[]",
    "[ ]",
    "['x, y', 7]",
    "[\"a\", \"b\"]",
    "{}",
    "inf",
    "emoji 🚀",
    "a,b",
    "a]",
    "<<",
    "a\u{a0}b",
    "000037-x.md",
    "12abc",
    "1_000",
    "1 hour",
    "-x-",
    "e5",
    "nan",
];

/// Values it should leave to serde_yaml (some are fine YAML, some are not).
const ODD_VALUES: &[&str] = &[
    "1.5",
    "-5",
    "+3",
    "0x10",
    "-0x1F",
    "+0b1",
    "0b102",
    "0xZZ",
    "1e3",
    "1e999",
    "2026-01-01",
    "1.2.3",
    ".inf",
    "-.inf",
    "+.Inf",
    ".nan",
    "-",
    "+",
    ".",
    "\"a\\nb\"",
    "a # c",
    "a: b",
    "a:",
    "&x y",
    "*x",
    "!t v",
    "|",
    ">-",
    "[a,]",
    "{a: 1}",
    "x\ty",
    "-x",
    "- x",
    "?x",
    ":x",
    "%x",
    "@x",
    "'open",
    "\"open",
    "a\rb",
    "[a, [b]]",
    "'a' b",
    "\"a\"b",
];

const ODD_KEYS: &[&str] = &["404", "true", "~", "'id'", "? id", "a b", "-x", "x:y"];

/// A value, now and then an odd one.
fn value(rng: &mut Rng) -> &'static str {
    if rng.below(10) == 0 { rng.pick(ODD_VALUES) } else { rng.pick(VALUES) }
}

/// One frontmatter entry: a key and its value in one of the layouts YAML allows (or not).
fn entry(rng: &mut Rng, out: &mut String) {
    let key = if rng.below(20) == 0 { rng.pick(ODD_KEYS) } else { rng.pick(KEYS) };
    let layout = if rng.below(12) == 0 { 7 + rng.below(3) } else { rng.below(7) };
    match layout {
        0..=2 => out.push_str(&format!("{key}: {}\n", value(rng))),
        4 | 5 => {
            out.push_str(&format!("{key}:\n"));
            let indent = rng.pick(&["", "  ", "    ", "  "]);
            for _ in 0..rng.below(4) {
                let indent = if rng.below(15) == 0 { " " } else { indent };
                out.push_str(&format!("{indent}- {}\n", value(rng)).replace("- \n", "-\n"));
            }
        }
        3 => {
            out.push_str(&format!("{key}:\n"));
            for _ in 0..rng.below(4) {
                let indent = if rng.below(15) == 0 { "    " } else { "  " };
                out.push_str(&format!("{indent}{}: {}\n", rng.pick(KEYS), value(rng)));
            }
        }
        7 => out.push_str(&format!("{key}:{}\n", value(rng))),
        8 => out.push_str(&format!("{key}: {}\n  {}\n", value(rng), value(rng))),
        6 => {
            let header = rng.pick(&[">-", ">", "|", "|-", ">-", ">+", "|2", ">- #"]);
            out.push_str(&format!("{key}: {header}\n"));
            for _ in 0..rng.below(4) {
                let indent = rng.pick(&["  ", "  ", "  ", "", " ", "    ", "\n  "]);
                out.push_str(&format!("{indent}{}\n", rng.pick(VALUES).trim_end_matches('\r')));
            }
        }
        _ => out.push_str(rng.pick(&["\n", "# note\n", "  \n", "...\n", "- x\n", "--- x\n"])),
    }
}

#[test]
fn both_readers_agree_on_a_random_corpus_of_the_same_pieces() {
    let path = Path::new(PATH);
    let mut rng = Rng(0x005e_edf0_0dd0_c5e7);
    let (mut fast, mut slow) = (0, 0);
    for _ in 0..20_000 {
        let mut yaml = String::new();
        for _ in 0..1 + rng.below(8) {
            entry(&mut rng, &mut yaml);
        }
        if rng.below(4) == 0 {
            yaml = yaml.replace('\n', "\r\n");
        }
        if rng.below(6) == 0 {
            yaml = yaml.replace('\n', "   \n");
        }
        match both(&file(&yaml), path) {
            Some(true) => fast += 1,
            _ => slow += 1,
        }
    }
    // Both readers must be exercised, or the corpus proves nothing.
    eprintln!("random corpus: {fast} files taken by the fast reader, {slow} fell back");
    assert!(fast > 1_000 && slow > 1_000, "fast reader took {fast} of {} files", fast + slow);
}

/// Every `.md` file under `dir`.
fn markdown_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read fixture dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
}

#[test]
#[cfg_attr(not(docket_real_fixture), ignore = "no real wrangler workspace: set DOCKET_REAL_FIXTURE=PATH")]
fn real_fixture() {
    let root = Path::new(&std::env::var_os("DOCKET_REAL_FIXTURE").unwrap_or_default()).join(".wrangler");
    assert!(root.is_dir(), "DOCKET_REAL_FIXTURE holds no .wrangler/: point it at a real wrangler workspace");
    let mut paths = Vec::new();
    markdown_files(&root, &mut paths);
    let (mut with_front, mut fast) = (0, 0);
    for path in &paths {
        let text = std::fs::read_to_string(path).expect("read fixture file");
        match both(&text, path) {
            Some(true) => (with_front, fast) = (with_front + 1, fast + 1),
            Some(false) => {
                with_front += 1;
                eprintln!("falls back: {}", path.display());
            }
            None => {}
        }
    }
    eprintln!("{} files, {with_front} with frontmatter, {fast} taken by the fast reader", paths.len());
    assert!(paths.len() > 100 && fast * 4 > with_front * 3, "fast reader took {fast} of {with_front}");
}

/// Microseconds per call of `f` over `n` calls.
fn micros(n: u32, mut f: impl FnMut()) -> f64 {
    let start = std::time::Instant::now();
    for _ in 0..n {
        f();
    }
    start.elapsed().as_secs_f64() * 1e6 / f64::from(n)
}

#[test]
#[ignore = "a timing to read, not a check: cargo test --release -p docket-store fast_reader_timing -- --ignored --nocapture"]
fn fast_reader_timing() {
    let path = Path::new(PATH);
    let files = [
        ("docket-written", render_new(&typical_meta(), "## Context\n\nbody\n")),
        ("bench-generated", BENCH_FILE.to_string()),
        ("wrangler-written", WRANGLER_FILE.to_string()),
    ];
    for (name, text) in &files {
        assert_eq!(both(text, path), Some(true));
        let n = 50_000;
        let read = |fast| std::hint::black_box(index_meta_with(text, path, IssueType::Issue, "", fast).is_ok());
        let slow = micros(n, || {
            read(false);
        });
        let fast = micros(n, || {
            read(true);
        });
        let yaml = split(text).ok().flatten().expect("frontmatter").yaml;
        let tree = micros(n, || {
            std::hint::black_box(parse_mapping(yaml).map(|m| Front::from_mapping(&m)).is_ok());
        });
        let lines = micros(n, || {
            std::hint::black_box(super::front(yaml).is_some());
        });
        eprintln!(
            "{name} file ({} bytes): index_meta serde_yaml {slow:.2} µs, fast {fast:.2} µs; \
             the frontmatter alone {tree:.2} µs, {lines:.2} µs",
            text.len()
        );
    }
    // Every file of a workspace, when DOCKET_TIMING_DIR names one (files read first, so only
    // the parsing is timed).
    let Some(dir) = std::env::var_os("DOCKET_TIMING_DIR") else { return };
    let mut paths = Vec::new();
    markdown_files(Path::new(&dir), &mut paths);
    let texts: Vec<String> = paths.iter().map(|p| std::fs::read_to_string(p).expect("read")).collect();
    let taken = texts.iter().filter(|t| taken(t) == Some(true)).count();
    let all = |fast| {
        micros(1, || {
            for (text, path) in texts.iter().zip(&paths) {
                std::hint::black_box(index_meta_with(text, path, IssueType::Issue, "", fast).is_ok());
            }
        })
    };
    let (slow, fast) = (all(false), all(true));
    eprintln!(
        "{} files ({taken} taken by the fast reader): serde_yaml {:.1} ms, fast {:.1} ms for all",
        texts.len(),
        slow / 1e3,
        fast / 1e3
    );
}
