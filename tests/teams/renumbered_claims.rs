//! A claim follows its issue when a merge renumbers it (issue 45). Two clones can give one id to
//! two issues before they merge; the post-merge hook then renumbers one of them, and the claim
//! record, keyed by id, would be left naming the other issue. Here the merge's result is written
//! by hand (the claimed issue moved to a new id, the other clone's issue at the old one), in a
//! workspace outside git, whose claim records are files with the same rules as refs.

use crate::common;
use crate::teams::leases::{Agent, eventually};

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::many::{issue_files, ok_in, status_of};
use serde_json::json;

/// A `.docket/` workspace in no git repository with the tasks `titles`, ISS-000001 on.
fn workspace(tmp: &Path, titles: &[&str]) -> PathBuf {
    let root = tmp.join("plain");
    std::fs::create_dir_all(&root).expect("mkdir");
    docket::store::Workspace::init(&root).expect("init");
    for t in titles {
        ok_in(&root, &["create", "--title", t], &[]);
    }
    root
}

/// The claim record of `id`, if there is one.
fn record(root: &Path, id: &str) -> Option<String> {
    std::fs::read_to_string(root.join(".docket/cache/claims").join(id)).ok()
}

/// What a merge and its hook leave: the issues at `a` and `b` swap ids (file names and `id:`
/// lines), as when the issue claimed as `a` was renumbered to `b` and the other clone's issue,
/// given `a` there, kept it.
pub(crate) fn swap_ids(root: &Path, a: &str, b: &str) {
    let dir = root.join(".docket/issues");
    let file = |id: &str| issue_files(&root.join(".docket")).into_iter().find(|n| n.starts_with(id)).expect("a file");
    let (fa, fb) = (file(a), file(b));
    let text = |name: &str| std::fs::read_to_string(dir.join(name)).expect("read");
    let (ta, tb) = (text(&fa), text(&fb));
    std::fs::remove_file(dir.join(&fa)).expect("rm");
    std::fs::remove_file(dir.join(&fb)).expect("rm");
    std::fs::write(dir.join(fa.replacen(a, b, 1)), ta.replacen(&format!("id: {a}"), &format!("id: {b}"), 1))
        .expect("write");
    std::fs::write(dir.join(fb.replacen(b, a, 1)), tb.replacen(&format!("id: {b}"), &format!("id: {a}"), 1))
        .expect("write");
}

fn title_at(root: &Path, id: &str) -> String {
    let name = issue_files(&root.join(".docket")).into_iter().find(|n| n.starts_with(id)).expect("a file");
    let text = std::fs::read_to_string(root.join(".docket/issues").join(name)).expect("read");
    text.lines().find_map(|l| l.strip_prefix("title: ")).expect("a title").to_string()
}

/// The holder's write to the old id is refused (it would close the other issue), names the new
/// id, and the claim is there; the close under the new id closes the issue that was claimed.
#[test]
fn a_holders_close_after_a_merge_renumbered_its_issue_names_the_new_id_and_never_closes_the_other() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = workspace(tmp.path(), &["the claimed one", "task 2", "the other clone's one"]);
    let mut ann = Agent::start(&root, &[]);
    let (err, t) = ann.call("issues_claim", json!({"id": "ISS-000001", "assignee": "ann"}));
    assert!(!err, "{t}");
    swap_ids(&root, "ISS-000001", "ISS-000003");
    assert_eq!(title_at(&root, "ISS-000003"), "the claimed one");

    let (err, t) = ann.call("issues_update", json!({"id": "ISS-000001", "status": "closed"}));
    assert!(err && t.contains("retry with id ISS-000003"), "refused, naming the new id: {t}");
    assert_eq!(status_of(&root.join(".docket"), "ISS-000001"), "open", "the other clone's issue is not closed");
    let moved = record(&root, "ISS-000003").expect("the claim moved with its issue");
    assert!(moved.contains("holder ann"), "{moved}");
    assert!(record(&root, "ISS-000001").is_none(), "and left the old id");
    // Refused again, whatever the renewal did meanwhile.
    let (err, t) = ann.call("issues_update", json!({"id": "ISS-000001", "labels": ["x"]}));
    assert!(err && t.contains("retry with id ISS-000003"), "{t}");

    let (err, t) = ann.call("issues_update", json!({"id": "ISS-000003", "status": "closed"}));
    assert!(!err && t.contains("the claimed one"), "the close under the new id is the claimed issue's: {t}");
    let (err, t) = ann.call("issues_claim", json!({"id": "ISS-000001", "assignee": "bob"}));
    assert!(!err && t.contains("Claimed ISS-000001 for bob"), "the other issue is free: {t}");
}

/// A holder killed after a merge renumbered its issue: once the lease lapses, the issue is ready
/// again under its new id and is claimed without a reason, and the issue now at the old id is
/// claimable too (it never was anyone's).
#[test]
fn a_dead_holders_claim_of_a_renumbered_issue_lapses_under_the_new_id() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = workspace(tmp.path(), &["the claimed one", "task 2", "the other clone's one"]);
    let env: &[(&str, &str)] = &[("DOCKET_CLAIM_TTL", "2s")];
    let mut ann = Agent::start(&root, env);
    let (err, t) = ann.call("issues_claim", json!({"id": "ISS-000001", "assignee": "ann"}));
    assert!(!err, "{t}");
    ann.kill9();
    swap_ids(&root, "ISS-000001", "ISS-000003");
    assert_eq!(status_of(&root.join(".docket"), "ISS-000003"), "in_progress");

    let mut bob = Agent::start(&root, env);
    let mut last = String::new();
    let back = eventually(Duration::from_secs(20), || {
        let (err, t) = bob.call("issues_ready", json!({}));
        last = t;
        !err && last.contains("ISS-000003") && last.contains("lease lapsed")
    });
    assert!(back, "the renumbered issue is offered again, under its new id: {last}");
    let (err, t) = bob.call("issues_claim", json!({"id": "ISS-000003", "assignee": "bob"}));
    assert!(!err && t.contains("Claimed ISS-000003 for bob"), "no takeover reason needed: {t}");
    let (err, t) = bob.call("issues_claim", json!({"id": "ISS-000001", "assignee": "carol"}));
    assert!(!err && t.contains("Claimed ISS-000001 for carol"), "the issue at the old id: {t}");
    assert!(record(&root, "ISS-000003").is_some_and(|r| r.contains("holder bob")));
}
