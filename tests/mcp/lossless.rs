//! An update changes only what it was asked to change: over the real binary's stdio, every odd but
//! valid frontmatter keeps every byte except the keys the call set (and updatedAt / closedAt), and
//! the real wrangler workspace round-trips a status change and back with its other lines intact.

use crate::common;
use crate::on_each_fixture;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use common::{call, is_error, structured, text};
use serde_json::json;

/// The frontmatter keys an update may rewrite besides the ones it was asked to change.
const BOOKKEEPING: &[&str] = &["updatedAt", "closedAt"];

/// The file's lines minus the frontmatter lines of `keys` (a key's continuation lines go with it).
fn without_keys(text: &str, keys: &[&str]) -> Vec<String> {
    let bare = |l: &str| l.trim_start_matches('\u{feff}').trim_end_matches(['\r', '\n']).to_string();
    let mut lines = text.split_inclusive('\n');
    let mut out: Vec<String> = Vec::new();
    match lines.next() {
        Some(first) if bare(first) == "---" => out.push(first.to_string()),
        Some(first) => return std::iter::once(first).chain(lines).map(String::from).collect(),
        None => return out,
    }
    let (mut skipping, mut closed) = (false, false);
    for line in lines {
        if !closed && bare(line) == "---" {
            closed = true;
            skipping = false;
        } else if !closed && !line.starts_with([' ', '\t', '-']) {
            let key = bare(line).split(':').next().unwrap_or_default().trim_matches(['"', '\'']).to_string();
            skipping = keys.contains(&key.as_str());
        }
        if closed || !skipping {
            out.push(line.to_string());
        }
    }
    out
}

/// Fails with the first line that differs (whole files are too long to print).
fn assert_same_lines(got: &[String], want: &[String], what: &str) {
    let at = got.iter().zip(want).position(|(g, w)| g != w).unwrap_or(got.len().min(want.len()));
    assert!(
        got == want,
        "{what}: line {at} differs: got {:?}, want {:?} ({} vs {} lines)",
        got.get(at),
        want.get(at),
        got.len(),
        want.len()
    );
}

/// Odd but valid files humans and other tools write, each with the ID it declares.
const CORPUS: &[(&str, &str)] = &[
    (
        "ISS-000001",
        "---\n# leading comment\nid: ISS-000001\ntitle: Comments # trailing\nstatus: open\npriority: low # was medium\nupdatedAt: '2026-01-01T00:00:00.000Z'\n---\nbody\n",
    ),
    ("ISS-000002", "---\nid: ISS-000002\ntitle: Anchors\ndefaults: &d {owner: ann}\ncopy: *d\nstatus: open\n---\nbody"),
    ("ISS-000003", "---\nid: \"ISS-000003\"\ntitle: '404'\nassignee: 42\nlabels: [1, \"2\"]\n---\n"),
    ("ISS-000004", "\u{feff}---\nid: ISS-000004\ntitle: BOM file\nstatus: open\n---\nbody with a BOM before it\n"),
    ("ISS-000005", "---\r\nid: ISS-000005\r\ntitle: Windows\r\nstatus: in-progress\r\n---\r\nline one\r\nline two\r\n"),
    (
        "ISS-000006",
        "---\nid: ISS-000006\n404: note\ntrue: x\n~: y\ncustom:\n  nested: [a, b]\ntitle: Odd keys\nstatus: Closed\n---\n",
    ),
    ("ISS-000007", "---\nid: ISS-000007\ntitle: Variants\nstatus: Closed\npriority: High\ntype: bug\n---\nbody\n"),
    ("ISS-000008", "---\nid: ISS-000008\ntitle: !!str 123\nextra: !custom {a: 1}\nlabels:\n- x\n- y\n---\n"),
    ("ISS-000009", "---\nid: ISS-000009\ntitle: >-\n  A long folded\n  title\ncreatedAt: 2026-01-01\n---\nbody"),
    ("ISS-000010", "---\n---\n# Empty frontmatter\n"),
    ("ISS-000011", "# Just a heading\n\nNo frontmatter at all.\n"),
    ("ISS-000012", "---\nid: ISS-000012\ntitle: [a, list]\nproject: \"Quoted Project\"\n---\n"),
];

fn corpus_workspace() -> (tempfile::TempDir, Vec<(String, PathBuf, String)>) {
    let dir = common::workspace();
    let issues = dir.path().join(".docket/issues");
    let files = CORPUS
        .iter()
        .enumerate()
        .map(|(i, (id, body))| {
            let path = issues.join(format!("{id}-odd-{i}.md"));
            std::fs::write(&path, body).expect("write corpus file");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(if i % 2 == 0 { 0o644 } else { 0o664 }))
                .expect("chmod");
            (id.to_string(), path, body.to_string())
        })
        .collect();
    (dir, files)
}

#[tokio::test]
async fn an_update_keeps_every_byte_it_was_not_asked_to_change() {
    let (dir, files) = corpus_workspace();
    let client = common::start(dir.path()).await;
    for (id, path, original) in &files {
        let mode = std::fs::metadata(path).expect("stat").permissions().mode();
        let result = call(&client, "issues_update", json!({"id": id, "assignee": "zoe"})).await;
        assert!(!is_error(&result), "{id}: {}", text(&result));
        assert_eq!(structured(&result)["changed"], json!(["assignee"]), "{id}: only the assignee changed");
        let after = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{id} stays where it was: {e}"));
        let mut keys = BOOKKEEPING.to_vec();
        keys.push("assignee");
        if original.starts_with("---") || original.starts_with('\u{feff}') {
            assert_same_lines(&without_keys(&after, &keys), &without_keys(original, &keys), id);
        } else {
            assert_eq!(after, format!("---\nassignee: zoe\n{}---\n{original}", after_updated_at(&after)), "{id}");
        }
        assert!(after.contains("assignee: zoe"), "{id}:\n{after}");
        if original.contains("\r\n") {
            assert!(!after.replace("\r\n", "").contains('\n'), "{id}: every line still ends in CRLF:\n{after:?}");
        }
        assert_eq!(original.starts_with('\u{feff}'), after.starts_with('\u{feff}'), "{id}: the BOM is kept");
        assert_eq!(std::fs::metadata(path).expect("stat").permissions().mode(), mode, "{id}: the mode is kept");
    }
    // What a human wrote is read tolerantly, reported, and never rewritten on the side.
    let got = call(&client, "issues_get", json!({"id": "ISS-000007"})).await;
    let record = structured(&got);
    assert_eq!(record["issue"]["status"], "closed", "{record}");
    assert_eq!(record["issue"]["priority"], "high", "{record}");
    let raw = std::fs::read_to_string(&files[6].1).expect("read");
    assert!(raw.contains("status: Closed\npriority: High\ntype: bug\n"), "{raw}");
    let numbers = call(&client, "issues_get", json!({"id": "ISS-000003"})).await;
    assert_eq!(structured(&numbers)["issue"]["title"], "404", "{}", text(&numbers));
    client.cancel().await.expect("shut down");
}

/// The `updatedAt` line docket added to a file that had no frontmatter.
fn after_updated_at(text: &str) -> String {
    text.lines().find(|l| l.starts_with("updatedAt:")).map(|l| format!("{l}\n")).unwrap_or_default()
}

#[tokio::test]
async fn a_list_operation_on_a_value_that_is_not_a_list_is_refused_and_nothing_is_written() {
    let dir = common::workspace();
    let path = dir.path().join(".docket/issues/ISS-000001-odd.md");
    let original = "---\nid: ISS-000001\ntitle: Odd labels\nlabels: {team: core}\n---\nbody\n";
    std::fs::write(&path, original).expect("write");
    let client = common::start(dir.path()).await;
    let result =
        call(&client, "issues_labels", json!({"operation": "add", "issueId": "ISS-000001", "labels": ["bug"]})).await;
    assert!(is_error(&result), "{}", text(&result));
    assert!(text(&result).contains("labels"), "names the key: {}", text(&result));
    assert!(text(&result).contains("ISS-000001-odd.md"), "names the file: {}", text(&result));
    assert_eq!(std::fs::read_to_string(&path).expect("read"), original, "nothing was written");
    client.cancel().await.expect("shut down");
}

/// Every issue file of a directory tree, by file name (names are unique in the fixture's folders).
fn issue_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for sub in ["issues", "issues/archived", "specifications", "specifications/archived", "ideas", "ideas/archived"] {
        for e in std::fs::read_dir(dir.join(sub)).into_iter().flatten().flatten() {
            if e.path().extension().is_some_and(|x| x == "md") {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}

on_each_fixture! {
    async fn a_wrangler_workspace_round_trips_a_status_change_and_back(dir) {
        let ws = dir.path().join(".wrangler");
        let before: Vec<(PathBuf, String)> =
            issue_files(&ws).into_iter().map(|p| (p.clone(), std::fs::read_to_string(&p).expect("read"))).collect();
        let client = common::start(dir.path()).await;
        let mut round_tripped = 0;
        let mut refused = 0;
        for (path, original) in &before {
            let doc_id = frontmatter_id(original, path);
            let status = if path.to_string_lossy().contains("/archived/") { "closed" } else { "open" };
            let there = if status == "closed" { "open" } else { "in_progress" };
            let first = call(&client, "issues_update", json!({"id": doc_id, "status": there})).await;
            if is_error(&first) {
                // An ID held by several files is refused for writes (reads show the first).
                assert!(text(&first).contains("more than one file"), "{}: {}", path.display(), text(&first));
                refused += 1;
                continue;
            }
            let back = call(&client, "issues_update", json!({"id": doc_id, "status": status})).await;
            assert!(!is_error(&back), "{}: {}", path.display(), text(&back));
            let now = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{} is back in place: {e}", path.display()));
            let keys = ["status", "updatedAt", "closedAt"];
            let mut kept = without_keys(&now, &keys);
            if !original.trim_start_matches('\u{feff}').starts_with("---") {
                // A file without frontmatter gained one holding only the keys that were set.
                assert_eq!(kept.drain(..2).collect::<Vec<_>>(), ["---\n", "---\n"], "{}", path.display());
            }
            assert_same_lines(&kept, &without_keys(original, &keys), &path.display().to_string());
            round_tripped += 1;
        }
        assert_eq!(round_tripped + refused, before.len());
        assert!(
            round_tripped * 5 > before.len() * 3,
            "most files round-trip: {round_tripped} did, {refused} were refused as duplicates"
        );
        assert_eq!(issue_files(&ws).len(), before.len(), "no file appeared or vanished");
        client.cancel().await.expect("shut down");
    }
}

/// The ID docket knows a file by: its frontmatter `id`, else the one in its file name.
fn frontmatter_id(text: &str, path: &Path) -> String {
    let from_front = text
        .lines()
        .take_while(|l| !l.is_empty())
        .find_map(|l| l.strip_prefix("id: "))
        .map(|v| v.trim_matches(['"', '\'']).to_string());
    from_front.unwrap_or_else(|| {
        // `ISS-000042-slug` or legacy `000042-slug` give the number; any other name is the ID.
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
        let prefix = ["ISS-", "SPEC-", "IDEA-"].into_iter().find(|p| stem.starts_with(p)).unwrap_or("");
        let digits: String = stem[prefix.len()..].chars().take_while(char::is_ascii_digit).collect();
        let rest = &stem[prefix.len() + digits.len()..];
        if digits.len() >= 6 && (rest.is_empty() || rest.starts_with('-')) {
            format!("{prefix}{digits}")
        } else {
            stem.to_string()
        }
    })
}
