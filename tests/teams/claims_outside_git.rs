//! Claims outside git (issue 45): a workspace in no repository keeps the same claim record as one
//! in git (one file per claim in its cache, `cache/claims/ID`), with the same rules: a lease that
//! a killed server's claims lose, renewal by a live server, fencing of a paused holder, claim-next
//! giving concurrent agents distinct issues, hand-over, wrangler-style claims, release and the
//! tombstone of a close. Real processes: `docket serve` children signalled by pid, CLI processes.

use crate::common;
use crate::teams::leases::{Agent, eventually};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::many::{docket_cmd, docket_in, ok_in, status_of};
use serde_json::json;

/// A `.docket/` workspace with `issues` tasks in a folder that is in no git repository.
fn plain_workspace(tmp: &Path, issues: usize) -> PathBuf {
    let root = tmp.join("plain");
    std::fs::create_dir_all(&root).expect("mkdir");
    docket::store::Workspace::init(&root).expect("init");
    for i in 1..=issues {
        ok_in(&root, &["create", "--title", &format!("task {i}")], &[]);
    }
    let inside = common::git_command(&root).args(["rev-parse", "--git-dir"]).output().expect("git runs");
    assert!(!inside.status.success(), "the test workspace must be outside git");
    root
}

/// The claim record of `id`, if the workspace has one.
fn record(root: &Path, id: &str) -> Option<String> {
    std::fs::read_to_string(root.join(".docket/cache/claims").join(id)).ok()
}

/// A [`plain_workspace`] of `issues` tasks, and ann's server (started with `env`) holding `ids`.
fn ann_holding(tmp: &Path, issues: usize, env: &[(&str, &str)], ids: &[&str]) -> (PathBuf, Agent) {
    let root = plain_workspace(tmp, issues);
    let mut ann = Agent::start(&root, env);
    for id in ids {
        let (err, t) = ann.call("issues_claim", json!({"id": id, "assignee": "ann"}));
        assert!(!err, "{t}");
    }
    (root, ann)
}

fn lease(record: &str) -> Option<String> {
    record.lines().find_map(|l| l.strip_prefix("lease ")).map(str::to_string)
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn a_killed_servers_claims_outside_git_lapse_and_another_server_takes_them_without_a_reason() {
    let tmp = tempfile::tempdir().expect("tmp");
    let env: &[(&str, &str)] = &[("DOCKET_CLAIM_TTL", "2s")];
    let (root, mut ann) = ann_holding(tmp.path(), 3, env, &["ISS-000001", "ISS-000002"]);
    let held = record(&root, "ISS-000001").expect("a claim record in the cache");
    assert!(held.contains("holder ann") && lease(&held).is_some(), "{held}");
    ann.kill9();
    // Nobody renews them now: once the lease (and the skew tolerated) has passed, a second
    // server's ready offers them again, saying whose lease lapsed.
    let mut bob = Agent::start(&root, env);
    let mut last = String::new();
    let back = eventually(Duration::from_secs(20), || {
        let (err, t) = bob.call("issues_ready", json!({}));
        last = t;
        !err && ["ISS-000001", "ISS-000002"].iter().all(|id| last.contains(id)) && last.contains("lease lapsed")
    });
    assert!(back, "the killed holder's issues come back: {last}");
    assert_eq!(status_of(&root.join(".docket"), "ISS-000001"), "in_progress", "the file still names ann");
    for id in ["ISS-000001", "ISS-000002"] {
        let (err, t) = bob.call("issues_claim", json!({"id": id, "assignee": "bob"}));
        assert!(!err && t.contains(&format!("Claimed {id} for bob")), "no takeover reason needed: {t}");
    }
    // The hand-over note as one line (show wraps the body).
    let shown = ok_in(&root, &["show", "ISS-000002"], &[]).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(shown.contains("the lease of ann at") && shown.contains("had lapsed"), "{shown}");
    assert!(shown.contains("Claim: held by bob since"), "{shown}");
    let taken = record(&root, "ISS-000002").expect("record");
    assert!(taken.contains("holder bob") && taken.contains("lapsed ann at"), "{taken}");
}

#[test]
fn a_live_server_outside_git_idle_for_several_leases_keeps_its_claims() {
    let tmp = tempfile::tempdir().expect("tmp");
    let env: &[(&str, &str)] = &[("DOCKET_CLAIM_TTL", "1s")];
    let (root, mut ann) = ann_holding(tmp.path(), 2, env, &["ISS-000001"]);
    let first = record(&root, "ISS-000001").expect("a claim record in the cache");
    // Six leases of silence from the model: the server renews on its own.
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(6) {
        let o = docket_in(&root, &["claim", "ISS-000001", "--as", "bob"], env);
        assert!(!o.status.success() && stderr(&o).contains("held by ann"), "{}", stderr(&o));
        assert!(stderr(&o).contains("lease until"), "the refusal says until when: {}", stderr(&o));
        std::thread::sleep(Duration::from_millis(700));
    }
    let later = record(&root, "ISS-000001").expect("still recorded");
    assert!(lease(&later) > lease(&first), "renewed: {first} then {later}");
    let (err, t) = ann.call("issues_update", json!({"id": "ISS-000001", "status": "closed"}));
    assert!(!err, "the holder still closes it: {t}");
}

#[test]
fn a_paused_holder_outside_git_that_wakes_after_another_took_the_issue_cannot_close_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    let env: &[(&str, &str)] = &[("DOCKET_CLAIM_TTL", "1s")];
    let (root, mut ann) = ann_holding(tmp.path(), 2, env, &["ISS-000001"]);
    ann.signal(libc::SIGSTOP);
    let took = eventually(Duration::from_secs(20), || {
        docket_in(&root, &["claim", "ISS-000001", "--as", "bob"], env).status.success()
    });
    assert!(took, "the paused holder's claim lapses");
    ann.signal(libc::SIGCONT);
    let before = common::snapshot(&root.join(".docket/issues"));
    let (err, t) = ann.call("issues_update", json!({"id": "ISS-000001", "status": "closed"}));
    assert!(err && t.contains("now held by bob") && t.contains("nothing was written"), "{t}");
    let (err, t) = ann.call("issues_update", json!({"id": "ISS-000001", "description": "mine"}));
    assert!(err && t.contains("now held by bob"), "every write is fenced: {t}");
    assert_eq!(common::snapshot(&root.join(".docket/issues")), before, "nothing written");
    assert_eq!(status_of(&root.join(".docket"), "ISS-000001"), "in_progress");
    assert!(record(&root, "ISS-000001").expect("record").contains("holder bob"));
}

#[test]
fn six_agents_outside_git_claiming_next_at_once_get_six_issues_each_with_its_record() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = plain_workspace(tmp.path(), 6);
    let children: Vec<(String, Child)> = (0..6)
        .map(|i| {
            let name = format!("agent-{i}");
            let mut cmd = docket_cmd(&root, &["claim", "--next", "--as", &name], &[]);
            cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
            (name, cmd.spawn().expect("spawn"))
        })
        .collect();
    let mut got = BTreeSet::new();
    for (name, child) in children {
        let o = child.wait_with_output().expect("wait");
        assert!(o.status.success(), "{}", stderr(&o));
        let line = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(line.starts_with("Claimed ISS-"), "{line}");
        let id = line.split_whitespace().nth(1).expect("Claimed ID").to_string();
        assert!(got.insert(id.clone()), "{id} claimed twice");
        let held = record(&root, &id).unwrap_or_else(|| panic!("{id} has a claim record"));
        assert!(held.contains(&format!("holder {name}")) && lease(&held).is_some(), "{held}");
    }
    assert_eq!(got.len(), 6, "{got:?}");
    let next = ok_in(&root, &["claim", "--next", "--as", "late"], &[]);
    assert!(next.starts_with("Nothing is ready"), "{next}");
}

#[test]
fn outside_git_a_hand_over_a_wrangler_style_claim_a_release_and_a_close_go_through_the_record() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = plain_workspace(tmp.path(), 3);
    // A hand-over names the new holder in the record; it never drops the claim.
    ok_in(&root, &["claim", "ISS-000001", "--as", "ann"], &[]);
    ok_in(&root, &["update", "ISS-000001", "--assignee", "dave"], &[]);
    assert!(record(&root, "ISS-000001").expect("record").contains("holder dave"));
    let mut carol = Agent::start(&root, &[]);
    // A wrangler-style claim of someone else's issue is refused like a claim, nothing written.
    let (err, t) =
        carol.call("issues_update", json!({"id": "ISS-000001", "status": "in_progress", "assignee": "carol"}));
    assert!(err && t.contains("held by dave"), "{t}");
    assert!(record(&root, "ISS-000001").expect("record").contains("holder dave"));
    // One of a free issue is a claim with a record of its own.
    let (err, t) =
        carol.call("issues_update", json!({"id": "ISS-000002", "status": "in_progress", "assignee": "carol"}));
    assert!(!err, "{t}");
    assert!(record(&root, "ISS-000002").expect("a record").contains("holder carol"));
    let (err, t) = carol.call("issues_get", json!({"id": "ISS-000002"}));
    assert!(!err && t.contains("Claim: held by carol since") && t.contains("lease until"), "{t}");
    // A release ends the record; a close leaves a tombstone.
    ok_in(&root, &["release", "ISS-000001", "--as", "dave"], &[]);
    assert!(record(&root, "ISS-000001").is_none(), "released");
    let (err, t) = carol.call("issues_update", json!({"id": "ISS-000002", "status": "closed"}));
    assert!(!err, "{t}");
    let tomb = record(&root, "ISS-000002").expect("a tombstone");
    assert!(tomb.contains("state closed") && tomb.contains("holder carol"), "{tomb}");
    // Outside git the files are where every process looks: the next ready ends the tombstone.
    ok_in(&root, &["ready"], &[]);
    assert!(record(&root, "ISS-000002").is_none(), "the close is in the files: the tombstone is gone");
}

/// A tombstone whose id names another, open issue here (two clones gave one id to two issues, and
/// a merge renumbered the one that was closed) stays until the close of its own issue (by its
/// `docketKey`) can be seen: a clone where the id still names that issue needs it till then.
#[test]
fn a_tombstone_of_another_issue_at_the_same_id_stays_until_that_issues_close_is_seen() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = plain_workspace(tmp.path(), 2);
    let issue = |id: &str| {
        let dir = root.join(".docket/issues");
        let name = common::many::issue_files(&root.join(".docket")).into_iter().find(|n| n.starts_with(id));
        std::fs::read_to_string(dir.join(name.expect("the issue's file"))).expect("read")
    };
    let key = issue("ISS-000001").lines().find_map(|l| l.strip_prefix("docketKey: ")).expect("a docketKey").to_string();
    let taken = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    let tomb = format!("docket claim\nissue ISS-000002\nholder ann\ntaken {taken}\nstate closed\nkey {key}\n");
    let records = root.join(".docket/cache/claims");
    std::fs::create_dir_all(&records).expect("mkdir the records' folder");
    std::fs::write(records.join("ISS-000002"), tomb).expect("write the tombstone");
    let sweep = || docket_in(&root, &["doctor", "--fix"], &[]);
    let o = sweep();
    assert!(record(&root, "ISS-000002").is_some(), "kept while its own issue is open: {}", stderr(&o));
    ok_in(&root, &["close", "ISS-000001"], &[]);
    let o = sweep();
    assert!(record(&root, "ISS-000002").is_none(), "its issue's close is seen here: {}", stderr(&o));
    assert_eq!(status_of(&root.join(".docket"), "ISS-000002"), "open");
    ok_in(&root, &["claim", "ISS-000002", "--as", "bob"], &[]);
}
