//! YAML-breaking text (see tests/common/abuse.rs): titles, bodies, labels and contexts that look
//! like frontmatter, anchors, tags or documents round-trip exactly, across a restart, and every
//! file still parses.

use crate::common;

use common::abuse::*;
use common::{Client, start, workspace};
use serde_json::{Value, json};

const YAML_TITLES: &[&str] = &[
    "---",
    "key: value",
    "{a: 1}",
    "[x]",
    "&a *a",
    "!!python/object:os.system",
    "\"",
    "'",
    "#",
    "line\n---",
    "\n---\ntitle: injected\n---\n",
    "emoji 🚀 ✓ 👩‍👩‍👧",
    "null",
    "012",
    "~",
    "yes",
    "0x1F",
    ".inf",
    "1e3",
    "- dash",
    "? question",
    "| literal",
    "> folded",
    "%YAML 1.2",
    "@at `tick`",
    "<<: *a",
    "a: b: c",
    "tab\there",
    " leading and trailing ",
    "\\ backslash \\n",
    "a\0nul",
    "\u{1b}[31mansi",
    "right-to-left \u{202e}txet",
    "...",
    "--- !!binary",
    "title: x\nstatus: closed",
];

#[tokio::test]
async fn yaml_breaking_titles_round_trip_exactly_and_survive_a_restart() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let mut ids = Vec::new();
    for (i, title) in YAML_TITLES.iter().enumerate() {
        // The same hostile strings go into the body, labels, assignee and project of some issues.
        let description = format!("---\n{title}\n---\nbody {i}\n---");
        let mut args = json!({"title": title, "description": description});
        if i % 3 == 0 {
            args["labels"] = json!([title, "---", "a: b"]);
            args["assignee"] = json!(title);
            args["project"] = json!(title);
            args["wranglerContext"] = json!({"agentId": title, "estimatedEffort": "&x *x"});
        }
        let r = common::call(&client, "issues_create", args.clone()).await;
        assert!(!common::is_error(&r), "{title:?} is a valid title: {}", common::text(&r));
        let id = common::structured(&r)["issue"]["id"].as_str().expect("id").to_string();
        ids.push((id, args));
    }
    check_round_trip(&client, &ids, "same server").await;
    client.cancel().await.expect("close");
    assert_eq!(assert_workspace_parses(ws.path()), YAML_TITLES.len(), "every file parses");
    let client = start(ws.path()).await;
    check_round_trip(&client, &ids, "after restart").await;
    let listed = common::call(&client, "issues_list", json!({"limit": 100, "format": "minimal"})).await;
    assert_eq!(common::structured(&listed)["totalCount"], YAML_TITLES.len());
    let meta = serde_json::to_value(&listed.meta).expect("meta");
    assert_eq!(meta["warnings"], json!([]), "no skipped files after the restart");
    // Searching for the hostile strings works too (and finds the issue).
    let r = common::call(&client, "issues_search", json!({"query": "!!python/object", "fields": ["title"]})).await;
    assert_eq!(common::structured(&r)["totalCount"], 1, "{}", common::text(&r));
    client.cancel().await.expect("close");
}

/// Each issue reads back with exactly the values it was created with.
async fn check_round_trip(client: &Client, ids: &[(String, Value)], when: &str) {
    for (id, args) in ids {
        let r = common::call(client, "issues_get", json!({"id": id, "response_format": "json"})).await;
        assert!(!common::is_error(&r), "{when}: {id}: {}", common::text(&r));
        let issue = &common::structured(&r)["issue"];
        for key in ["title", "description", "labels", "assignee", "project", "wranglerContext"] {
            if let Some(sent) = args.get(key) {
                assert_eq!(&issue[key], sent, "{when}: {id} {key} round-trips exactly");
            }
        }
    }
}
