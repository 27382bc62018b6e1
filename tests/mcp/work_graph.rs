//! The work graph over a real stdio client: blockers in the files, issues_ready before and after a
//! blocker closes (parents' blockers and epics included), cycles and bad blockers refused,
//! compare-and-set updates, and claims raced from two server processes.

use crate::common;

use std::collections::BTreeMap;

use common::{call, is_error, start, structured, text, workspace};
use futures::future::join_all;
use serde_json::{Value, json};

async fn create(client: &common::Client, title: &str, extra: Value) -> String {
    let mut args = json!({"title": title, "description": format!("{title}.")});
    args.as_object_mut().unwrap().extend(extra.as_object().cloned().unwrap_or_default());
    let r = call(client, "issues_create", args).await;
    assert!(!is_error(&r), "create {title}: {}", text(&r));
    structured(&r)["issue"]["id"].as_str().expect("id").to_string()
}

/// The IDs of the ready rows, in order.
fn ready_ids(result: &Value) -> Vec<String> {
    result["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r.as_str().unwrap().split(' ').next().unwrap().to_string())
        .collect()
}

fn file_of(dir: &std::path::Path, id: &str) -> String {
    for folder in ["issues", "issues/archived", "specifications", "specifications/archived"] {
        let Ok(entries) = std::fs::read_dir(dir.join(".docket").join(folder)) else { continue };
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with(&format!("{id}-")) {
                return std::fs::read_to_string(e.path()).unwrap();
            }
        }
    }
    panic!("no file for {id}");
}

#[tokio::test]
async fn ready_follows_blockers_parents_and_epics_before_and_after_a_close() {
    let ws = workspace();
    let c = start(ws.path()).await;
    let a = create(&c, "Blocker", json!({"priority": "low"})).await;
    let b = create(&c, "Waits on the blocker", json!({"priority": "critical", "blockedBy": [a]})).await;
    let m = create(&c, "Parent waiting", json!({"blockedBy": [a.to_lowercase()]})).await;
    let k = create(&c, "Child of the waiting parent", json!({"wranglerContext": {"parentTaskId": m}})).await;
    let p = create(&c, "Epic", json!({"priority": "high"})).await;
    let q = create(&c, "Epic's child", json!({"wranglerContext": {"parentTaskId": p}})).await;
    let taken = create(&c, "Someone else's", json!({"assignee": "bob", "priority": "critical"})).await;
    assert!(file_of(ws.path(), &m).contains(&a), "the blocker is written as the issue's own ID");

    let r = structured(&call(&c, "issues_ready", json!({})).await);
    assert_eq!(ready_ids(&r), vec![q.clone(), a.clone()], "{r}");
    assert_eq!(r["blocked"], 3, "B, M and M's child K wait on A: {r}");
    let row_a = r["rows"][1].as_str().unwrap();
    assert!(row_a.contains("unblocks 2"), "{row_a}");
    let mine = structured(&call(&c, "issues_ready", json!({"assignee": "bob"})).await);
    assert_eq!(ready_ids(&mine)[0], taken, "bob's own issue is ready for bob: {mine}");

    let got = call(&c, "issues_get", json!({"id": k})).await;
    let issue = &structured(&got)["issue"];
    assert_eq!(issue["openBlockers"][0], format!("{a} (via parent {m})"), "{issue}");
    let got_a = structured(&call(&c, "issues_get", json!({"id": a})).await);
    assert_eq!(got_a["issue"]["blocks"], json!([b, m]));
    let blocked = structured(&call(&c, "issues_list", json!({"blocked": true, "format": "minimal"})).await);
    assert_eq!(blocked["totalCount"], 3, "{blocked}");
    let stats = structured(&call(&c, "issues_stats", json!({"groupBy": "status", "blocked": false})).await);
    assert_eq!(stats["total"], 4, "{stats}");

    let closed = call(&c, "issues_mark_complete", json!({"id": a})).await;
    assert_eq!(structured(&closed)["unblocked"], json!([b, m]), "{}", text(&closed));
    assert!(text(&closed).contains("Unblocked"), "{}", text(&closed));

    let r = structured(&call(&c, "issues_ready", json!({})).await);
    assert_eq!(ready_ids(&r), vec![b.clone(), k.clone(), q.clone()], "M has an open child now: {r}");
    assert_eq!(r["blocked"], 0);
    c.cancel().await.unwrap();
}

/// issues_update_batch reports what its closes unblocked, counted after the whole batch: an
/// issue waiting on two blockers closed in one batch is unblocked once, and an issue the batch
/// closed itself is not offered.
#[tokio::test]
async fn a_batch_that_closes_blockers_reports_what_it_unblocked() {
    let ws = workspace();
    let c = start(ws.path()).await;
    let a = create(&c, "First blocker", json!({})).await;
    let b = create(&c, "Second blocker", json!({})).await;
    let both = create(&c, "Waits on both", json!({"blockedBy": [a, b]})).await;
    let closed_too = create(&c, "Waits on the first, closed in the batch", json!({"blockedBy": [a]})).await;
    let only_a = create(&c, "Waits on the first only", json!({"blockedBy": [a]})).await;
    let first = call(&c, "issues_update_batch", json!({"updates": [{"id": a, "status": "closed"}]})).await;
    assert_eq!(structured(&first)["unblocked"], json!([closed_too, only_a]), "{}", text(&first));
    let r = call(
        &c,
        "issues_update_batch",
        json!({"updates": [{"id": closed_too, "status": "closed"}, {"id": b, "status": "closed"}, {"id": only_a, "priority": "high"}]}),
    )
    .await;
    let out = structured(&r);
    assert_eq!(out["unblocked"], json!([both]), "{out}");
    assert!(text(&r).contains(&format!("Unblocked (now ready unless taken): {both}")), "{}", text(&r));
    let quiet =
        structured(&call(&c, "issues_update_batch", json!({"updates": [{"id": both, "priority": "low"}]})).await);
    assert!(quiet.get("unblocked").is_none(), "{quiet}");
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn cycles_self_blocks_and_unknown_ids_are_refused_and_nothing_is_written() {
    let ws = workspace();
    let c = start(ws.path()).await;
    let one = create(&c, "One", json!({})).await;
    let two = create(&c, "Two", json!({"blockedBy": [one]})).await;
    let three = create(&c, "Three", json!({"blockedBy": [two]})).await;
    let before = common::snapshot(ws.path());

    let r = call(&c, "issues_update", json!({"id": one, "blockedBy": [three]})).await;
    assert!(is_error(&r));
    let cycle = format!("{one} -> {three} -> {two} -> {one}");
    assert!(text(&r).contains(&cycle), "names the cycle {cycle}: {}", text(&r));
    let r = call(&c, "issues_update", json!({"id": one, "blockedBy": [one]})).await;
    assert!(is_error(&r) && text(&r).contains("cannot block itself"), "{}", text(&r));
    let r = call(&c, "issues_update", json!({"id": one, "blockedBy": ["ISS-000999"]})).await;
    assert!(is_error(&r) && text(&r).contains("ISS-000999"), "{}", text(&r));
    let r = call(&c, "issues_create", json!({"title": "X", "description": "x", "blockedBy": ["SPEC-000404"]})).await;
    assert!(is_error(&r), "{}", text(&r));
    assert_eq!(common::snapshot(ws.path()), before, "refused calls write nothing");

    // A file without the key is left without it; an empty list removes it.
    let r = call(&c, "issues_update", json!({"id": one, "priority": "high"})).await;
    assert!(!is_error(&r));
    assert!(!file_of(ws.path(), &one).contains("blockedBy"));
    let r = call(&c, "issues_update", json!({"id": three, "blockedBy": []})).await;
    assert_eq!(structured(&r)["changed"], json!(["blockedBy"]), "{}", text(&r));
    assert!(!file_of(ws.path(), &three).contains("blockedBy"));
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn if_updated_at_is_compare_and_set() {
    let ws = workspace();
    let c = start(ws.path()).await;
    let id = create(&c, "Shared", json!({})).await;
    let seen = structured(&call(&c, "issues_get", json!({"id": id})).await)["issue"]["updatedAt"].clone();
    let ok = call(&c, "issues_update", json!({"id": id, "priority": "high", "ifUpdatedAt": seen})).await;
    assert!(!is_error(&ok), "{}", text(&ok));
    let stale = call(&c, "issues_update", json!({"id": id, "priority": "low", "ifUpdatedAt": seen})).await;
    assert!(is_error(&stale), "the first update moved updatedAt");
    assert!(
        text(&stale).contains("CONFLICT") || text(&stale).contains("changed since you read it"),
        "{}",
        text(&stale)
    );
    let now = structured(&call(&c, "issues_get", json!({"id": id})).await)["issue"].clone();
    assert_eq!(now["priority"], "high");
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn claims_conflict_on_holders_and_blockers_and_repeat_for_the_winner() {
    let ws = workspace();
    let c = start(ws.path()).await;
    let a = create(&c, "First", json!({})).await;
    let b = create(&c, "Second", json!({"blockedBy": [a]})).await;
    let r = call(&c, "issues_claim", json!({"id": b, "assignee": "ann"})).await;
    assert!(is_error(&r) && text(&r).contains(&a), "names the open blocker: {}", text(&r));
    let r = call(&c, "issues_claim", json!({"id": a, "assignee": "ann"})).await;
    assert_eq!(structured(&r)["claimed"], true, "{}", text(&r));
    let again = call(&c, "issues_claim", json!({"id": a, "assignee": "ann"})).await;
    assert_eq!(structured(&again)["claimed"], false, "{}", text(&again));
    let other = call(&c, "issues_claim", json!({"id": a, "assignee": "bob"})).await;
    assert!(is_error(&other) && text(&other).contains("ann"), "names the holder: {}", text(&other));
    let file = file_of(ws.path(), &a);
    assert!(file.contains("status: in_progress") && file.contains("assignee: ann"), "{file}");
    c.cancel().await.unwrap();
}

#[tokio::test]
async fn two_processes_racing_fifty_claims_each_over_ten_issues_give_one_winner_per_issue() {
    let ws = workspace();
    let first = start(ws.path()).await;
    let mut ids = Vec::new();
    for i in 0..10 {
        ids.push(create(&first, &format!("Race {i}"), json!({})).await);
    }
    let second = start(ws.path()).await;
    let (first, second) = (std::sync::Arc::new(first), std::sync::Arc::new(second));
    let claims = |prefix: &'static str, c: &std::sync::Arc<common::Client>| {
        join_all((0..50).map(|n| {
            let (id, who, c) = (ids[n % 10].clone(), format!("{prefix}-{n}"), std::sync::Arc::clone(c));
            async move {
                let r = call(&c, "issues_claim", json!({"id": id, "assignee": who})).await;
                (id, who, r)
            }
        }))
    };
    let (one, two) = tokio::join!(claims("p1", &first), claims("p2", &second));
    let mut winners: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (id, who, r) in one.into_iter().chain(two) {
        if is_error(&r) {
            assert!(text(&r).contains("Cannot claim"), "a losing claim is a CONFLICT: {}", text(&r));
        } else {
            assert_eq!(structured(&r)["claimed"], true, "{}", text(&r));
            winners.entry(id).or_default().push(who);
        }
    }
    assert_eq!(winners.len(), 10, "every issue was claimed: {winners:?}");
    for (id, who) in &winners {
        assert_eq!(who.len(), 1, "{id} had more than one winner: {who:?}");
        assert!(file_of(ws.path(), id).contains(&format!("assignee: {}", who[0])), "the file names the winner");
    }
    for c in [first, second] {
        std::sync::Arc::into_inner(c).expect("one owner").cancel().await.unwrap();
    }
}

#[tokio::test]
async fn doctor_reports_hand_made_cycles_and_missing_blockers_and_outside_edits_reach_the_index() {
    let ws = workspace();
    let c = start(ws.path()).await;
    let x = create(&c, "Ex", json!({})).await;
    let y = create(&c, "Why", json!({})).await;
    // Hand edits, as a person (or wrangler's files) would make them: the watcher picks them up.
    for (id, blockers) in [(&x, format!("[{y}]")), (&y, format!("[{x}, ISS-000777]"))] {
        let dir = ws.path().join(".docket/issues");
        let entry = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().starts_with(id.as_str()))
            .unwrap();
        let text = std::fs::read_to_string(entry.path()).unwrap();
        std::fs::write(entry.path(), text.replacen("\n---\n", &format!("\nblockedBy: {blockers}\n---\n"), 1)).unwrap();
    }
    let doctor = structured(&call(&c, "workspace_doctor", json!({})).await);
    let kinds: Vec<&str> = doctor["problems"].as_array().unwrap().iter().map(|p| p["kind"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"missing_blocker") && kinds.contains(&"blocker_cycle"), "{doctor}");
    let cycle = doctor["problems"].as_array().unwrap().iter().find(|p| p["kind"] == "blocker_cycle").unwrap();
    assert!(cycle["message"].as_str().unwrap().contains(&format!("{x} -> {y} -> {x}")), "{cycle}");
    let ready = structured(&call(&c, "issues_ready", json!({})).await);
    assert_eq!(ready["totalCount"], 0, "both wait on each other: {ready}");
    assert_eq!(ready["blocked"], 2);
    c.cancel().await.unwrap();
}

#[test]
fn cli_block_unblock_claim_ready_and_tree() {
    let ws = workspace();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_docket"))
            .args(args)
            .arg("--workspace")
            .arg(ws.path())
            .env_remove("DOCKET_WORKSPACE")
            .output()
            .expect("docket runs");
        (out.status.code(), String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr))
    };
    for title in ["One", "Two"] {
        assert_eq!(run(&["create", "--title", title]).0, Some(0));
    }
    assert_eq!(
        run(&["block", "ISS-000002", "--by", "ISS-000001"]),
        (Some(0), "ISS-000002 is blocked by ISS-000001.\n".into())
    );
    let (code, out) = run(&["block", "ISS-000001", "--by", "ISS-000002"]);
    assert!(code == Some(1) && out.contains("ISS-000001 -> ISS-000002 -> ISS-000001"), "{out}");
    let (_, tree) = run(&["tree", "ISS-000002"]);
    assert!(tree.contains("blocked by:\n    ISS-000001 open One"), "{tree}");
    let (_, ready) = run(&["ready"]);
    assert!(ready.contains("ISS-000001") && !ready.contains("ISS-000002 "), "{ready}");
    let (code, out) = run(&["claim", "ISS-000002", "--as", "ann"]);
    assert!(code == Some(1) && out.contains("blocked by ISS-000001"), "{out}");
    assert_eq!(run(&["unblock", "ISS-000002", "--by", "ISS-000001"]).1, "ISS-000002 has no blockers now.\n");
    assert_eq!(run(&["claim", "ISS-000002", "--as", "ann"]), (Some(0), "Claimed ISS-000002 for ann: Two\n".into()));
}

/// Writes issues ISS-000001..=ISS-n into a fresh workspace, issue `i` blocked by `blockers(i)`
/// (numbers), as hand-written files.
fn graph_workspace(n: usize, blockers: impl Fn(usize) -> Vec<usize>) -> tempfile::TempDir {
    let ws = workspace();
    let dir = ws.path().join(".docket/issues");
    for i in 1..=n {
        let named: Vec<String> = blockers(i).iter().map(|b| format!("ISS-{b:06}")).collect();
        let list = if named.is_empty() { String::new() } else { format!("blockedBy: [{}]\n", named.join(", ")) };
        let text = format!(
            "---\nid: ISS-{i:06}\ntitle: Link {i}\ntype: issue\nstatus: open\npriority: medium\nlabels: []\n\
             createdAt: '2026-01-01T00:00:00.000Z'\nupdatedAt: '2026-01-01T00:00:00.000Z'\n{list}---\nLink {i}.\n"
        );
        std::fs::write(dir.join(format!("ISS-{i:06}-link-{i}.md")), text).unwrap();
    }
    ws
}

async fn cycle_problems(c: &common::Client) -> Vec<String> {
    let r = call(c, "workspace_doctor", json!({})).await;
    assert!(text(&r).chars().count() < 25_000, "an answer of {} characters", text(&r).chars().count());
    let doctor = structured(&r);
    let problems = doctor["problems"].as_array().cloned().unwrap_or_default();
    problems
        .iter()
        .filter(|p| p["kind"] == "blocker_cycle")
        .map(|p| p["message"].as_str().unwrap().to_string())
        .collect()
}

/// A chain of 300 (and of 10,000) issues, each blocked by the one before: the first alone is
/// ready and doctor finds no cycle; closing the chain by a write is refused (nothing written),
/// and closing it by a hand edit is reported by doctor, named by its ends and its length.
#[tokio::test]
async fn chains_of_300_and_10000_closed_into_a_cycle_are_refused_and_reported() {
    for n in [300, 10_000] {
        let ws = graph_workspace(n, |i| if i > 1 { vec![i - 1] } else { vec![] });
        let c = start(ws.path()).await;
        let ready = structured(&call(&c, "issues_ready", json!({})).await);
        assert_eq!(ready_ids(&ready), vec!["ISS-000001".to_string()], "{n}: {ready}");
        assert_eq!(ready["blocked"], n - 1, "{n}");
        assert!(cycle_problems(&c).await.is_empty(), "{n}: a chain is not a cycle");

        let before = common::snapshot(ws.path());
        let last = format!("ISS-{n:06}");
        let r = call(&c, "issues_update", json!({"id": "ISS-000001", "blockedBy": [last]})).await;
        assert!(is_error(&r), "{n}: closing the chain is refused: {}", text(&r));
        let named = format!("ISS-000001 -> {last} -> ISS-{:06}", n - 1);
        assert!(text(&r).contains(&named) && text(&r).contains(&format!("({n} issues)")), "{n}: {}", text(&r));
        assert_eq!(common::snapshot(ws.path()), before, "{n}: a refused write writes nothing");

        let first = ws.path().join(".docket/issues/ISS-000001-link-1.md");
        let text_1 = std::fs::read_to_string(&first).unwrap();
        std::fs::write(&first, text_1.replacen("\n---\n", &format!("\nblockedBy: [{last}]\n---\n"), 1)).unwrap();
        let found = cycle_problems(&c).await;
        assert_eq!(found.len(), 1, "{n}: {found:?}");
        assert!(
            found[0].contains(&format!("ISS-000001 -> {last} -> ")) && found[0].contains(&format!("({n} issues)")),
            "{found:?}"
        );
        c.cancel().await.unwrap();
    }
}

/// A short way back to the issue behind a long detour: 2 is blocked by a 250-issue detour
/// (14..=263) that ends at 3, and by 3 itself; 3 leads back to 1 in eleven steps. Making 1
/// blocked by 2 closes a 13-issue cycle, which the write check finds and refuses.
#[tokio::test]
async fn a_short_cycle_behind_a_long_detour_is_refused() {
    let ws = graph_workspace(263, |i| match i {
        1 => vec![],
        2 => vec![14, 3],
        13 => vec![1],
        263 => vec![3],
        _ => vec![i + 1],
    });
    let c = start(ws.path()).await;
    let r = call(&c, "issues_update", json!({"id": "ISS-000001", "blockedBy": ["ISS-000002"]})).await;
    assert!(is_error(&r), "{}", text(&r));
    assert!(
        text(&r).contains("ISS-000001 -> ISS-000002 -> ISS-000003 -> ISS-000004"),
        "the shortest way: {}",
        text(&r)
    );
    assert!(text(&r).contains("(13 issues)"), "{}", text(&r));
    assert!(cycle_problems(&c).await.is_empty());
    c.cancel().await.unwrap();
}

/// A name of whitespace names no one: a claim for `" "` (from the command line) or `"\t"` (over
/// MCP) is refused as INVALID_ARGUMENT naming the assignee, and nothing is written; the issue
/// stays open and claimable. An update or create with a padded name writes it trimmed.
#[tokio::test]
async fn a_blank_assignee_is_refused_and_a_padded_one_is_trimmed() {
    let ws = workspace();
    let c = start(ws.path()).await;
    let id = create(&c, "Claim me", json!({})).await;
    let before = common::snapshot(ws.path());
    for blank in ["\t", " ", " \n "] {
        let r = call(&c, "issues_claim", json!({"id": id, "assignee": blank})).await;
        assert!(is_error(&r) && text(&r).starts_with("INVALID_ARGUMENT"), "{blank:?}: {}", text(&r));
        assert!(text(&r).contains("assignee"), "names the field: {}", text(&r));
    }
    let out = common::docket(ws.path(), &["claim", &id, "--as", " "]);
    let said = String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success() && said.contains("assignee"), "{said}");
    assert_eq!(common::snapshot(ws.path()), before, "nothing written");

    let r = call(&c, "issues_claim", json!({"id": id, "assignee": " ann "})).await;
    assert_eq!(structured(&r)["issue"]["assignee"], "ann", "{}", text(&r));
    assert!(file_of(ws.path(), &id).contains("\nassignee: ann\n"));
    let r = call(&c, "issues_update", json!({"id": id, "assignee": "  "})).await;
    assert!(!is_error(&r), "{}", text(&r));
    assert!(!file_of(ws.path(), &id).contains("assignee"), "whitespace clears it, as \"\" does");
    let other = create(&c, "Padded", json!({"assignee": "  bob\t"})).await;
    assert!(file_of(ws.path(), &other).contains("\nassignee: bob\n"));
    c.cancel().await.unwrap();
}

/// The guard is on the file's content: an editor's save that leaves `updatedAt` alone still
/// changes the version issues_get gave, so an update guarded by that version is refused
/// (CONFLICT, nothing written), and one guarded by the version read again is applied.
#[tokio::test]
async fn if_version_sees_an_editor_save_that_leaves_updated_at_alone() {
    let ws = workspace();
    let c = start(ws.path()).await;
    let id = create(&c, "Original title", json!({})).await;
    let got = structured(&call(&c, "issues_get", json!({"id": id})).await);
    let version = got["version"].as_str().expect("issues_get gives the file's version").to_string();
    let fields = structured(&call(&c, "issues_get", json!({"id": id, "fields": ["title"]})).await);
    assert_eq!(fields["version"], version.as_str(), "the same version whatever the fields");

    let path = ws.path().join(".docket/issues").join(
        std::fs::read_dir(ws.path().join(".docket/issues"))
            .unwrap()
            .flatten()
            .find(|e| e.file_name().to_string_lossy().starts_with(&id))
            .unwrap()
            .file_name(),
    );
    let saved = std::fs::read_to_string(&path).unwrap().replace("Original title", "Title from an editor");
    std::fs::write(&path, &saved).unwrap();
    let r = call(&c, "issues_update", json!({"id": id, "priority": "high", "ifVersion": version})).await;
    assert!(is_error(&r) && text(&r).starts_with("CONFLICT"), "{}", text(&r));
    assert!(text(&r).contains("ifVersion"), "names the guard to repeat: {}", text(&r));
    // The older guard too: this server answered that updatedAt with other bytes.
    let r = call(&c, "issues_update", json!({"id": id, "priority": "high", "ifUpdatedAt": got["issue"]["updatedAt"]}))
        .await;
    assert!(is_error(&r) && text(&r).starts_with("CONFLICT"), "ifUpdatedAt: {}", text(&r));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), saved, "nothing written");

    let now = structured(&call(&c, "issues_get", json!({"id": id})).await);
    assert_ne!(now["version"], version.as_str());
    let r = call(&c, "issues_update", json!({"id": id, "priority": "high", "ifVersion": now["version"]})).await;
    assert!(!is_error(&r), "{}", text(&r));
    assert!(file_of(ws.path(), &id).contains("Title from an editor"), "the editor's title kept");
    c.cancel().await.unwrap();
}
