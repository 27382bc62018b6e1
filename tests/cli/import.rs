//! `docket import beads|backlog`: generated inputs with every field, edge type, status, odd
//! label, malformed line and dangling edge; every issue one file with its old id, edges as
//! blockedBy / parentTaskId / importedLinks, labels byte for byte, a second import that changes
//! no byte, a dry run that writes nothing, and a ready queue equal to the one the documented
//! rules give on the input graph.

use crate::common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use docket::store::{IssueFilter, IssueMeta, SortField, SortOrder, Store, StoreOptions, Workspace};
use serde_json::{Value, json};

fn run(ws: &Path, args: &[&str]) -> String {
    let out = common::docket(ws, args);
    assert!(out.status.success(), "docket {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// Every issue of the workspace, by its `importedFrom`.
fn imported(ws: &Path) -> BTreeMap<String, IssueMeta> {
    let store = Store::open(Workspace::at(ws).expect("workspace"), StoreOptions::default());
    let all = store.list(&IssueFilter::default(), SortField::Created, SortOrder::Asc).expect("list").value;
    all.iter()
        .map(|m| {
            let from = m.context.get("importedFrom").and_then(Value::as_str).expect("importedFrom").to_string();
            (from, (**m).clone())
        })
        .collect()
}

fn body(meta: &IssueMeta) -> String {
    let text = std::fs::read_to_string(&meta.path).expect("file");
    text.splitn(3, "---\n").nth(2).expect("body").to_string()
}

/// The ids `docket ready` offers (all of them).
fn ready(ws: &Path) -> BTreeSet<String> {
    let out: Value = serde_json::from_str(&run(ws, &["ready", "--json", "--limit", "100"])).expect("JSON");
    out["issues"].as_array().expect("issues").iter().map(|i| i["id"].as_str().unwrap().to_string()).collect()
}

/// One beads issue line; `extra` adds or replaces fields.
fn bead(id: &str, status: &str, priority: i64, extra: Value) -> Value {
    let mut v = json!({
        "id": id, "title": format!("Issue {id}"), "status": status, "priority": priority,
        "issue_type": "task", "created_at": "2026-01-02T03:04:05Z", "updated_at": "2026-01-03T03:04:05+02:00",
        "dependency_count": 0, "dependent_count": 0, "comment_count": 0,
    });
    if status == "closed" {
        v["closed_at"] = json!("2026-01-04T00:00:00Z");
    }
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

fn dep(from: &str, on: &str, kind: &str) -> Value {
    json!({"issue_id": from, "depends_on_id": on, "type": kind, "created_at": "2026-01-02T03:04:05Z", "created_by": "x", "metadata": "{}"})
}

/// A beads export with every status, priority, edge type, odd labels, comments and text fields,
/// wisps, a dangling edge, a second parent, and four lines that are not issues.
fn beads_lines() -> Vec<String> {
    let issues = vec![
        bead(
            "bd-epic",
            "open",
            1,
            json!({"issue_type": "epic", "labels": ["area/core", "gt:agent", "from:gastown/alpha"]}),
        ),
        bead(
            "bd-epic.1",
            "open",
            0,
            json!({
                "dependencies": [dep("bd-epic.1", "bd-epic", "parent-child"), dep("bd-epic.1", "bd-a", "blocks")],
                "design": "Use a queue.", "acceptance_criteria": "- works", "notes": "Seen on Tuesday.",
                "comments": [{"id": 1, "issue_id": "bd-epic.1", "author": "ann", "text": "First!", "created_at": "2026-01-05T00:00:00Z"}],
                "labels": ["Ünïcode label", "with space", "x:y/z"],
            }),
        ),
        bead(
            "bd-epic.2",
            "in_progress",
            2,
            json!({"assignee": "bob", "dependencies": [dep("bd-epic.2", "bd-epic", "parent-child")]}),
        ),
        bead(
            "bd-a",
            "open",
            2,
            json!({"dependencies": [dep("bd-a", "bd-gone", "blocks"), dep("bd-a", "bd-b", "related")]}),
        ),
        bead(
            "bd-b",
            "closed",
            3,
            json!({"close_reason": "Done by hand", "dependencies": [dep("bd-b", "bd-a", "discovered-from")]}),
        ),
        bead(
            "bd-c",
            "blocked",
            4,
            json!({"dependencies": [dep("bd-c", "bd-b", "blocks"), dep("bd-c", "bd-a", "tracks")]}),
        ),
        bead("bd-d", "deferred", 2, json!({"defer_until": "2027-01-01T00:00:00Z"})),
        bead("bd-e", "pinned", 2, json!({"pinned": true})),
        bead("bd-f", "hooked", 2, json!({"assignee": "gastown/polecats/rictus"})),
        bead("bd-g", "tombstone", 2, json!({})),
        bead(
            "bd-wisp-1",
            "open",
            2,
            json!({"ephemeral": true, "wisp_type": "patrol", "dependencies": [dep("bd-wisp-1", "bd-wisp-9", "parent-child")]}),
        ),
        bead(
            "bd-h",
            "open",
            2,
            json!({"dependencies": [
            dep("bd-h", "bd-epic", "parent-child"), dep("bd-h", "bd-a", "parent-child"), dep("bd-h", "bd-f", "conditional-blocks"),
            dep("bd-h", "bd-c", "waits-for"), dep("bd-h", "bd-b", "some-new-kind")]}),
        ),
        bead("bd-parent-task", "open", 2, json!({})),
        bead("bd-child", "open", 2, json!({"dependencies": [dep("bd-child", "bd-parent-task", "parent-child")]})),
        bead("bd-odd", "custom_status", 2, json!({"metadata": {"files": ["a.rs"]}, "estimated_minutes": 30})),
    ];
    let mut lines: Vec<String> = issues.iter().map(Value::to_string).collect();
    lines.insert(3, "{\"id\": \"bd-broken\", \"title\": ".into());
    lines.insert(5, "[1, 2]".into());
    lines.insert(7, "{\"title\": \"no id\"}".into());
    lines.push(bead("bd-a", "open", 2, json!({"title": "a second bd-a"})).to_string());
    lines.push(String::new());
    lines
}

#[test]
fn a_beads_export_comes_over_whole_and_a_second_import_changes_nothing() {
    let dir = common::workspace();
    let ws = dir.path();
    let input = tempfile::tempdir().expect("temp dir");
    let beads = input.path().join(".beads");
    std::fs::create_dir_all(&beads).unwrap();
    // With a byte order mark, as some editors save it.
    std::fs::write(beads.join("issues.jsonl"), format!("\u{feff}{}", beads_lines().join("\n"))).unwrap();
    let beads_dir = beads.to_str().unwrap();
    // The project holding .beads/ is read the same as the folder itself.
    let project = input.path().to_str().unwrap();

    let before = common::snapshot(ws);
    let dry = run(ws, &["import", "beads", beads_dir, "--dry-run"]);
    assert!(dry.contains("Would create 15"), "{dry}");
    assert_eq!(common::snapshot_diff(&before, &common::snapshot(ws)), Vec::<String>::new(), "a dry run writes nothing");

    let summary = run(ws, &["import", "beads", beads_dir]);
    // Malformed lines are named by their line number and skipped; the rest is imported.
    for line in [4, 6, 8, 19] {
        assert!(summary.contains(&format!("issues.jsonl:{line}:")), "line {line} not reported:\n{summary}");
    }
    assert!(summary.contains("bd-a blocks bd-gone"), "the dangling edge is reported:\n{summary}");
    assert!(summary.contains("status hooked -> in_progress: 1"), "{summary}");

    let issues = imported(ws);
    assert_eq!(issues.len(), 15, "{:?}", issues.keys());
    let id = |old: &str| issues[&format!("beads:{old}")].id.clone();
    let get = |old: &str| &issues[&format!("beads:{old}")];

    // Statuses and priorities by the table of docs/import.md.
    let status = |old: &str| get(old).status.as_str().to_string();
    for (old, want) in [
        ("bd-epic", "open"),
        ("bd-epic.2", "in_progress"),
        ("bd-b", "closed"),
        ("bd-c", "open"),
        ("bd-d", "open"),
        ("bd-e", "open"),
        ("bd-f", "in_progress"),
        ("bd-g", "cancelled"),
        ("bd-odd", "open"),
    ] {
        assert_eq!(status(old), want, "{old}");
    }
    for (old, want) in
        [("bd-epic.1", "critical"), ("bd-epic", "high"), ("bd-a", "medium"), ("bd-b", "low"), ("bd-c", "low")]
    {
        assert_eq!(get(old).priority.as_str(), want, "{old}");
    }
    assert_eq!(get("bd-c").context["importedFields"]["status"], "blocked");
    assert_eq!(get("bd-c").context["importedFields"]["priority"], 4);
    assert_eq!(get("bd-odd").context["importedFields"]["metadata"], json!({"files": ["a.rs"]}));
    assert_eq!(get("bd-wisp-1").context["importedFields"]["ephemeral"], true);

    // Labels byte for byte; text fields and comments under headings; timestamps kept.
    // Labels byte for byte, then the kind (issue_type) as a label.
    assert_eq!(get("bd-epic").labels, ["area/core", "gt:agent", "from:gastown/alpha", "kind:epic"]);
    assert_eq!(get("bd-epic.1").labels, ["Ünïcode label", "with space", "x:y/z", "kind:task"]);
    let text = body(get("bd-epic.1"));
    for part in [
        "## Design\n\nUse a queue.",
        "## Acceptance Criteria\n\n- works",
        "## Notes\n\nSeen on Tuesday.",
        "## Comments",
        "### ann, 2026-01-05T00:00:00Z\n\nFirst!",
    ] {
        assert!(text.contains(part), "{part:?} not in:\n{text}");
    }
    assert!(body(get("bd-b")).contains("## Close Reason\n\nDone by hand"));
    assert_eq!(get("bd-a").created_at, "2026-01-02T03:04:05Z", "a UTC time as it was written");
    assert_eq!(get("bd-a").updated_at, "2026-01-03T01:04:05.000Z", "another offset, in UTC");
    assert_eq!(get("bd-b").closed_at.as_deref(), Some("2026-01-04T00:00:00Z"));

    // Edges: blocks -> blockedBy, parent-child -> parentTaskId, the rest kept as data.
    assert_eq!(get("bd-epic.1").blocked_by, [id("bd-a")]);
    assert_eq!(get("bd-epic.1").context["parentTaskId"], json!(id("bd-epic")));
    assert_eq!(get("bd-h").blocked_by, [id("bd-f")], "conditional-blocks holds back as blocks does");
    let links = |old: &str| get(old).context.get("importedLinks").cloned().unwrap_or(json!([]));
    assert_eq!(
        links("bd-a"),
        json!([{"type": "blocks", "to": "bd-gone"}, {"type": "related", "to": "bd-b", "id": id("bd-b")}])
    );
    assert_eq!(links("bd-b"), json!([{"type": "discovered-from", "to": "bd-a", "id": id("bd-a")}]));
    assert_eq!(
        links("bd-h"),
        json!([
            {"type": "parent-child", "to": "bd-a", "id": id("bd-a")},
            {"type": "waits-for", "to": "bd-c", "id": id("bd-c")},
            {"type": "some-new-kind", "to": "bd-b", "id": id("bd-b")},
        ])
    );
    assert_eq!(links("bd-wisp-1"), json!([{"type": "parent-child", "to": "bd-wisp-9"}]));

    // Parents that are not epics are work, as beads offers them; epics keep docket's rule.
    assert_eq!(get("bd-parent-task").context["container"], json!(false));
    assert_eq!(get("bd-epic").context.get("container"), None);
    assert!(summary.contains("parent of kind task -> container: false: 2"), "{summary}");

    // The id map lists every issue.
    let map = std::fs::read_to_string(ws.join(".docket/import/beads-idmap.tsv")).expect("id map");
    assert_eq!(map.lines().count(), 16, "{map}");
    assert!(map.contains(&format!("bd-epic.1\t{}\n", id("bd-epic.1"))), "{map}");

    // The ready queue is the input graph's by the documented rules.
    let expected = expected_ready(&beads_lines(), &id);
    assert!(expected.len() >= 3, "{expected:?}");
    assert_eq!(ready(ws), expected);

    // A second import of the same input changes no byte.
    let after = common::snapshot(ws);
    let again = run(ws, &["import", "beads", project]);
    assert!(again.contains("15 already imported"), "{again}");
    assert_eq!(common::snapshot_diff(&after, &common::snapshot(ws)), Vec::<String>::new());
}

/// docs/import.md's rules on the input, independently of the importer: an issue is ready when
/// its status maps to open (open, blocked, deferred, pinned, unknown), no blocker (`blocks`,
/// `conditional-blocks`) of it or of an ancestor is active (maps to open or in progress), and
/// it is not an epic with an active child (an epic of open work is a container; any other
/// parent is imported as work, `container: false`, as `bd ready` offers it).
fn expected_ready(lines: &[String], id: &dyn Fn(&str) -> String) -> BTreeSet<String> {
    let mut issues: HashMap<String, Value> = HashMap::new();
    for l in lines {
        if let Ok(v @ Value::Object(_)) = serde_json::from_str::<Value>(l)
            && let Some(i) = v["id"].as_str()
        {
            issues.entry(i.to_string()).or_insert(v.clone());
        }
    }
    let open =
        |v: &Value| !matches!(v["status"].as_str().unwrap_or(""), "in_progress" | "hooked" | "closed" | "tombstone");
    let active =
        |i: &str| issues.get(i).is_some_and(|v| !matches!(v["status"].as_str().unwrap(), "closed" | "tombstone"));
    let edges = |v: &Value, kinds: &[&str]| -> Vec<String> {
        v["dependencies"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| kinds.contains(&d["type"].as_str().unwrap()))
            .map(|d| d["depends_on_id"].as_str().unwrap().to_string())
            .filter(|t| issues.contains_key(t))
            .collect()
    };
    let parent = |v: &Value| edges(v, &["parent-child"]).into_iter().next();
    let mut out = BTreeSet::new();
    for (old, v) in &issues {
        let mut at = Some(v.clone());
        let mut held = false;
        while let Some(x) = at {
            held |= edges(&x, &["blocks", "conditional-blocks"]).iter().any(|b| active(b));
            at = parent(&x).map(|p| issues[&p].clone());
        }
        let container = v["issue_type"] == "epic"
            && issues.values().any(|c| parent(c).as_deref() == Some(old) && active(c["id"].as_str().unwrap()));
        if open(v) && !held && !container {
            out.insert(id(old));
        }
    }
    out
}

fn task(dir: &Path, name: &str, text: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join(name), text).unwrap();
}

#[test]
fn a_backlog_md_project_comes_over_whole_and_a_second_import_changes_nothing() {
    let dir = common::workspace();
    let ws = dir.path();
    let project = tempfile::tempdir().expect("temp dir");
    let b = project.path().join("backlog");
    let body1 = "\n## Description\n\nDo it.\n\n## Acceptance Criteria\n<!-- AC:BEGIN -->\n- [ ] #1 It works\n<!-- AC:END -->\n\n## Implementation Plan\n\n1. Plan\n\n## Implementation Notes\n\n---\nnot frontmatter\n";
    task(
        &b.join("tasks"),
        "back-1 - First.md",
        &format!(
            "---\nid: BACK-1\ntitle: First\nstatus: To Do\nassignee: @ann\nreporter: @bob\ncreated_date: '2025-07-23'\nupdated_date: '2025-09-06 21:22'\nlabels:\n  - area/ui\n  - 'odd: label'\nmilestone: v1\ndependencies:\n  - task-2\n  - BACK-99\npriority: high\nordinal: 1000\n---\n{body1}"
        ),
    );
    task(
        &b.join("tasks"),
        "back-2 - Second.md",
        "\u{feff}---\nid: BACK-2\ntitle: Second\nstatus: In Progress\nassignee: [@ann, \"carl\"]\ncreated_date: 2025-07-01 10:00\nlabels: []\ndependencies: []\n---\n\n## Description\n\nTwo.\n",
    );
    task(
        &b.join("tasks"),
        "back-2.1 - Sub.md",
        "---\nid: BACK-2.1\ntitle: Sub\nstatus: To Do\nassignee: []\ncreated_date: '2025-07-02'\nlabels: []\ndependencies: []\nparent_task_id: task-2\npriority: low\n---\n\nSub body\n",
    );
    task(
        &b.join("tasks"),
        "back-3 - Third.md",
        "---\nid: BACK-3\ntitle: Third\nstatus: Waiting\nassignee: []\ncreated_date: '2025-07-03'\nlabels: []\ndependencies: [BACK-1]\n---\n",
    );
    task(&b.join("tasks"), "back-4 - Broken.md", "---\nid: BACK-4\ntitle: [unclosed\n---\nbody\n");
    task(&b.join("tasks"), "back-5 - No frontmatter.md", "# Just a heading\n");
    task(&b.join("tasks"), "readme.md", "Tasks live here.\n");
    task(
        &b.join("completed"),
        "back-6 - Done.md",
        "---\nid: BACK-6\ntitle: Done one\nstatus: Done\nassignee: []\ncreated_date: '2025-06-01'\nupdated_date: '2025-06-02 08:00'\nlabels: []\ndependencies: []\n---\n\nDone.\n",
    );
    task(&b.join("completed"), "task-6 - Twin.md", "---\nid: task-6\ntitle: The same task under the old prefix\n---\n");
    task(
        &b.join("drafts"),
        "draft-1 - Idea.md",
        "---\nid: DRAFT-1\ntitle: An idea\nstatus: To Do\nassignee: []\ncreated_date: '2025-05-01'\nlabels: [someday]\ndependencies: []\n---\n\nMaybe.\n",
    );
    task(
        &b.join("tasks"),
        "back-7 - Wont.md",
        "---\nid: BACK-7\ntitle: Not doing it\nstatus: Won't Do\nassignee: []\ncreated_date: '2025-05-01'\nlabels: []\ndependencies: []\n---\n",
    );

    let path = project.path().to_str().unwrap();
    let summary = run(ws, &["import", "backlog", path]);
    assert!(summary.contains("back-4 - Broken.md: its frontmatter is not YAML"), "{summary}");
    assert!(summary.contains("back-5 - No frontmatter.md: it does not start"), "{summary}");
    assert!(!summary.contains("readme.md"), "{summary}");
    assert!(summary.contains("BACK-1 blocks BACK-99"), "{summary}");
    assert!(summary.contains("BACK-3: status `Waiting`"), "{summary}");
    assert!(summary.contains("task-6: the same id as an issue read before it"), "{summary}");

    let issues = imported(ws);
    assert_eq!(issues.len(), 7, "{:?}", issues.keys());
    let get = |old: &str| &issues[&format!("backlog:{old}")];
    let id = |old: &str| get(old).id.clone();
    let first = get("BACK-1");
    assert_eq!(first.status.as_str(), "open");
    assert_eq!(first.priority.as_str(), "high");
    assert_eq!(first.assignee.as_deref(), Some("@ann"));
    assert_eq!(first.labels, ["area/ui", "odd: label"]);
    assert_eq!(first.project.as_deref(), Some("v1"));
    assert_eq!(first.created_at, "2025-07-23T00:00:00.000Z");
    assert_eq!(first.updated_at, "2025-09-06T21:22:00.000Z");
    assert_eq!(first.blocked_by, [id("BACK-2")], "task-2 is BACK-2 under the old prefix");
    assert_eq!(first.context["importedLinks"], json!([{"type": "blocks", "to": "BACK-99"}]));
    assert_eq!(first.context["importedFields"]["reporter"], "@bob");
    assert_eq!(first.context["importedFields"]["ordinal"], 1000);
    assert_eq!(body(first), body1, "the body is kept byte for byte");
    assert_eq!(get("BACK-2").status.as_str(), "in_progress");
    assert_eq!(get("BACK-2").assignee.as_deref(), Some("@ann"));
    assert_eq!(get("BACK-2").context["importedFields"]["assignee"], json!(["@ann", "carl"]));
    assert_eq!(get("BACK-2.1").context["parentTaskId"], json!(id("BACK-2")));
    assert_eq!(get("BACK-2.1").priority.as_str(), "low");
    assert_eq!(get("BACK-3").status.as_str(), "open");
    assert_eq!(get("BACK-6").status.as_str(), "closed");
    assert_eq!(get("BACK-6").closed_at.as_deref(), Some("2025-06-02T08:00:00.000Z"));
    assert_eq!(get("BACK-7").status.as_str(), "cancelled");
    assert_eq!(get("DRAFT-1").issue_type.as_str(), "idea");

    // Ready: BACK-1 waits on BACK-2 (in progress); BACK-3 on BACK-1; BACK-2.1 is free; the
    // draft is an open idea, held back as Backlog.md keeps it off its board.
    assert_eq!(get("DRAFT-1").context["container"], json!(true));
    assert_eq!(ready(ws), BTreeSet::from([id("BACK-2.1")]));

    let after = common::snapshot(ws);
    let again = run(ws, &["import", "backlog", path]);
    assert!(again.contains("8 already imported"), "{again}");
    assert_eq!(common::snapshot_diff(&after, &common::snapshot(ws)), Vec::<String>::new());
}

#[test]
fn an_unreadable_source_is_an_error_naming_what_to_pass() {
    let dir = common::workspace();
    let out = common::docket(dir.path(), &["import", "backlog", dir.path().to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("holds no backlog/tasks") && err.contains("Pass the Backlog.md project"), "{err}");
    let out = common::docket(dir.path(), &["import", "beads", "/nonexistent/issues.jsonl"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot read /nonexistent/issues.jsonl") && err.contains("Pass a .beads/ folder"), "{err}");
    let out = common::docket(dir.path(), &["import", "beads", dir.path().to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("holds none of issues.jsonl, beads.jsonl, .beads/issues.jsonl"), "{err}");
}

#[test]
fn an_import_that_cannot_write_a_file_writes_none() {
    let dir = common::workspace();
    let ws = dir.path();
    let input = tempfile::tempdir().expect("temp dir");
    let jsonl = input.path().join("issues.jsonl");
    std::fs::write(&jsonl, beads_lines().join("\n")).unwrap();
    // The folder of closed issues a link out of the workspace, which docket refuses to write
    // through: the fifth issue (closed) cannot be written, after four open ones were.
    let archived = ws.join(".docket/issues/archived");
    let _ = std::fs::remove_dir(&archived);
    std::os::unix::fs::symlink(input.path(), &archived).unwrap();
    let before = common::snapshot(ws);
    let out = common::docket(ws, &["import", "beads", jsonl.to_str().unwrap()]);
    assert!(!out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stderr).contains("archived"), "{out:?}");
    assert_eq!(common::snapshot_diff(&before, &common::snapshot(ws)), Vec::<String>::new(), "nothing stays written");

    std::fs::remove_file(&archived).unwrap();
    run(ws, &["import", "beads", jsonl.to_str().unwrap()]);
    assert_eq!(imported(ws).len(), 15);
}
