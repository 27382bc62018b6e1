//! Claims that hold (issue 45): one claim record for every path, with a lease. Real processes
//! and real git: clones of a local bare remote (`claims_remote`), linked worktrees, servers
//! killed with SIGKILL or paused with SIGSTOP past their lease, many agents claiming the next
//! ready issue at once, and each ordinary path that used to give an issue two holders.

use crate::common;

use std::collections::BTreeSet;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use common::many::{Layout, docket_cmd, docket_in, ok_in, origin_and_clones, repo_with_issues, status_of};
use common::{call, git, is_error, structured, text};
use serde_json::{Value, json};

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `docket serve` in `dir` as a child whose pid the test can signal, speaking JSON-RPC lines.
pub(crate) struct Agent {
    child: Child,
    stdin: std::process::ChildStdin,
    lines: Receiver<Value>,
    next: i64,
}

impl Agent {
    pub(crate) fn start(dir: &Path, env: &[(&str, &str)]) -> Agent {
        let mut cmd = docket_cmd(dir, &["serve"], env);
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        let mut child = cmd.spawn().expect("spawn docket serve");
        let stdin = child.stdin.take().expect("stdin");
        let out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in out.lines() {
                let Ok(line) = line else { break };
                if let Ok(v) = serde_json::from_str::<Value>(&line)
                    && tx.send(v).is_err()
                {
                    break;
                }
            }
        });
        let mut agent = Agent { child, stdin, lines, next: 1 };
        agent.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "lease-test", "version": "0"}}),
        );
        agent.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        agent
    }

    fn send(&mut self, msg: &Value) {
        writeln!(self.stdin, "{msg}").and_then(|_| self.stdin.flush()).expect("write to docket");
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.checked_duration_since(Instant::now()).expect("an answer within 60 s");
            let msg = self.lines.recv_timeout(left).expect("an answer within 60 s");
            if msg.get("id") == Some(&json!(id)) {
                return msg;
            }
        }
    }

    /// A tool call: (is it an error, its text).
    pub(crate) fn call(&mut self, tool: &str, args: Value) -> (bool, String) {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        let result = &r["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_default().to_string();
        (result["isError"] == json!(true), text)
    }

    pub(crate) fn signal(&self, sig: i32) {
        // SAFETY: a signal to our own child process, by its pid.
        let rc = unsafe { libc::kill(self.child.id() as i32, sig) };
        assert_eq!(rc, 0, "signal {sig} to docket");
    }

    pub(crate) fn kill9(&mut self) {
        self.signal(libc::SIGKILL);
        let _ = self.child.wait();
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Waits (up to `limit`) until `check` holds; whether it did.
pub(crate) fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    check()
}

#[test]
fn a_killed_servers_claims_lapse_and_are_ready_again_in_another_worktree_and_another_clone() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 4, 2);
    let wt = Layout::Sibling.add(&clones[0], "wt");
    let env: &[(&str, &str)] = &[("DOCKET_CLAIMS_REMOTE", "origin"), ("DOCKET_CLAIM_TTL", "2s")];
    let mut ann = Agent::start(&clones[0], env);
    for id in ["ISS-000001", "ISS-000002"] {
        let (err, t) = ann.call("issues_claim", json!({"id": id, "assignee": "ann"}));
        assert!(!err, "{t}");
    }
    // While ann's server lives, her claims hold everywhere.
    let held = docket_in(&clones[1], &["claim", "ISS-000001", "--as", "bob"], env);
    assert!(!held.status.success() && stderr(&held).contains("held by ann"), "{}", stderr(&held));
    ann.kill9();
    // After the lease (and the skew tolerated) nobody renews them: ready offers them again,
    // in the other clone (whose files say open) and in a worktree of ann's clone (whose files
    // still say in_progress for ann).
    assert!(
        eventually(Duration::from_secs(20), || ok_in(&clones[1], &["ready"], env).contains("ISS-000001")),
        "the killed holder's issue comes back in the other clone"
    );
    // ISS-000002's lease was taken a moment after ISS-000001's and may lapse a moment later.
    let ready_in_wt = || ok_in(&wt, &["ready", "--json"], env);
    assert!(
        eventually(Duration::from_secs(20), || ready_in_wt().contains("ISS-000002")),
        "and in the worktree of the killed holder's clone: {}",
        ready_in_wt()
    );
    assert_eq!(status_of(&clones[0].join(".docket"), "ISS-000002"), "in_progress");
    // Claimable without a takeover reason, and the hand-over is recorded.
    let bob = ok_in(&clones[1], &["claim", "ISS-000001", "--as", "bob"], env);
    assert!(bob.contains("Claimed ISS-000001 for bob"), "{bob}");
    let carol = ok_in(&wt, &["claim", "ISS-000002", "--as", "carol"], env);
    assert!(carol.contains("Claimed ISS-000002 for carol"), "{carol}");
    let shown = ok_in(&wt, &["show", "ISS-000002"], env);
    assert!(shown.contains("the lease of ann at") && shown.contains("had lapsed"), "{shown}");
    let record = git(&origin, &["cat-file", "blob", "refs/docket/claims/ISS-000002"]);
    assert!(record.contains("holder carol") && record.contains("lapsed ann at"), "{record}");
}

#[test]
fn a_live_server_idle_for_several_leases_keeps_its_claims() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 2, 2);
    let env: &[(&str, &str)] = &[("DOCKET_CLAIMS_REMOTE", "origin"), ("DOCKET_CLAIM_TTL", "1s")];
    let mut ann = Agent::start(&clones[0], env);
    let (err, t) = ann.call("issues_claim", json!({"id": "ISS-000001", "assignee": "ann"}));
    assert!(!err, "{t}");
    let first = git(&origin, &["cat-file", "blob", "refs/docket/claims/ISS-000001"]);
    // Six leases of silence from the model: the server renews on its own.
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(6) {
        let o = docket_in(&clones[1], &["claim", "ISS-000001", "--as", "bob"], env);
        assert!(!o.status.success() && stderr(&o).contains("held by ann"), "{}", stderr(&o));
        std::thread::sleep(Duration::from_millis(700));
    }
    let later = git(&origin, &["cat-file", "blob", "refs/docket/claims/ISS-000001"]);
    let lease = |t: &str| t.lines().find_map(|l| l.strip_prefix("lease ")).map(str::to_string);
    assert!(lease(&later) > lease(&first), "renewed: {first} then {later}");
    let (err, t) = ann.call("issues_update", json!({"id": "ISS-000001", "status": "closed"}));
    assert!(!err, "the holder still closes it: {t}");
}

#[test]
fn a_paused_holder_that_wakes_after_another_took_the_issue_cannot_close_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_origin, clones) = origin_and_clones(tmp.path(), 2, 1);
    let wt = Layout::Sibling.add(&clones[0], "wt");
    let env: &[(&str, &str)] = &[("DOCKET_CLAIM_TTL", "1s")];
    let mut ann = Agent::start(&clones[0], env);
    let (err, t) = ann.call("issues_claim", json!({"id": "ISS-000001", "assignee": "ann"}));
    assert!(!err, "{t}");
    ann.signal(libc::SIGSTOP);
    // Past her lease, bob takes it in a worktree of the same repository.
    let took = eventually(Duration::from_secs(20), || {
        docket_in(&wt, &["claim", "ISS-000001", "--as", "bob"], env).status.success()
    });
    assert!(took, "the paused holder's claim lapses");
    ann.signal(libc::SIGCONT);
    let before = common::snapshot(&clones[0].join(".docket"));
    let (err, t) = ann.call("issues_update", json!({"id": "ISS-000001", "status": "closed"}));
    assert!(err && t.contains("now held by bob") && t.contains("nothing was written"), "{t}");
    let (err, t) = ann.call("issues_update", json!({"id": "ISS-000001", "description": "mine"}));
    assert!(err && t.contains("now held by bob"), "every write is fenced: {t}");
    assert_eq!(common::snapshot(&clones[0].join(".docket")), before, "nothing written");
    assert_eq!(status_of(&clones[0].join(".docket"), "ISS-000001"), "in_progress");
}

/// Each of `n` agents (CLI processes, two per checkout) claims the next ready issue at once.
fn claim_next_at_once(checkouts: &[PathBuf], agents: usize, env: &[(&str, &str)]) -> Vec<Output> {
    let children: Vec<Child> = (0..agents)
        .map(|i| {
            let name = format!("agent-{i}");
            let mut cmd = docket_cmd(&checkouts[i % checkouts.len()], &["claim", "--next", "--as", &name], env);
            cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
            cmd.spawn().expect("spawn")
        })
        .collect();
    children.into_iter().map(|c| c.wait_with_output().expect("wait")).collect()
}

/// Three clones of a remote, each with a linked worktree: six checkouts.
fn six_checkouts(tmp: &Path, issues: usize) -> Vec<PathBuf> {
    let (_origin, clones) = origin_and_clones(tmp, issues, 3);
    let mut out = clones.clone();
    out.extend(clones.iter().enumerate().map(|(i, c)| Layout::Sibling.add(c, &format!("wt{i}"))));
    out
}

#[test]
fn twelve_agents_in_three_clones_and_three_worktrees_claiming_next_get_twelve_issues() {
    let tmp = tempfile::tempdir().expect("tmp");
    let checkouts = six_checkouts(tmp.path(), 12);
    let env: &[(&str, &str)] = &[("DOCKET_CLAIMS_REMOTE", "origin")];
    let outs = claim_next_at_once(&checkouts, 12, env);
    let mut got = BTreeSet::new();
    for o in &outs {
        assert!(o.status.success(), "{}", stderr(o));
        let line = stdout(o);
        let id = line.split_whitespace().nth(1).expect("Claimed ID").to_string();
        assert!(line.starts_with("Claimed ISS-"), "{line}");
        assert!(got.insert(id.clone()), "{id} claimed twice");
    }
    assert_eq!(got.len(), 12, "{got:?}");
}

#[test]
fn with_fewer_issues_than_agents_the_rest_are_told_nothing_is_ready() {
    let tmp = tempfile::tempdir().expect("tmp");
    let checkouts = six_checkouts(tmp.path(), 4);
    let env: &[(&str, &str)] = &[("DOCKET_CLAIMS_REMOTE", "origin")];
    let outs = claim_next_at_once(&checkouts, 8, env);
    let mut got = BTreeSet::new();
    let mut nothing = 0;
    for o in &outs {
        assert!(o.status.success(), "not an error: {}", stderr(o));
        let line = stdout(o);
        if line.starts_with("Nothing is ready") {
            nothing += 1;
        } else {
            assert!(got.insert(line.split_whitespace().nth(1).expect("ID").to_string()), "{line}");
        }
    }
    assert_eq!((got.len(), nothing), (4, 4), "{got:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_ordinary_paths_that_gave_two_holders_end_with_one() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_origin, clones) = origin_and_clones(tmp.path(), 6, 2);
    let env: &[(&str, &str)] = &[("DOCKET_CLAIMS_REMOTE", "origin")];
    let (a, b) = (&clones[0], &clones[1]);
    // A hand-over replaces the holder and never drops the claim.
    ok_in(a, &["claim", "ISS-000001", "--as", "ann"], env);
    ok_in(a, &["update", "ISS-000001", "--assignee", "dave"], env);
    let o = docket_in(b, &["claim", "ISS-000001", "--as", "carol"], env);
    assert!(!o.status.success() && stderr(&o).contains("held by dave"), "{}", stderr(&o));
    // A wrangler-style claim (issues_update to in_progress with an assignee) is a claim.
    let ann = common::many::serve_in(a, env).await;
    let w = call(&ann, "issues_update", json!({"id": "ISS-000002", "status": "in_progress", "assignee": "ann"})).await;
    assert!(!is_error(&w), "{}", text(&w));
    let o = docket_in(b, &["claim", "ISS-000002", "--as", "carol"], env);
    assert!(!o.status.success() && stderr(&o).contains("held by ann"), "{}", stderr(&o));
    let carol = common::many::serve_in(b, env).await;
    let w2 =
        call(&carol, "issues_update", json!({"id": "ISS-000002", "status": "in_progress", "assignee": "carol"})).await;
    assert!(is_error(&w2) && text(&w2).contains("held by ann"), "refused like a claim: {}", text(&w2));
    assert_eq!(status_of(&b.join(".docket"), "ISS-000002"), "open", "nothing written");
    // A close leaves a tombstone: the clone that has not pulled is not offered the finished work.
    ok_in(a, &["claim", "ISS-000003", "--as", "ann"], env);
    ok_in(a, &["close", "ISS-000003"], env);
    let ready = call(&carol, "issues_ready", json!({})).await;
    assert!(!structured(&ready)["rows"].to_string().contains("ISS-000003"), "{}", text(&ready));
    let late = call(&carol, "issues_claim", json!({"id": "ISS-000003", "assignee": "carol"})).await;
    assert!(is_error(&late) && text(&late).contains("closed by ann"), "{}", text(&late));
    // Two sessions that both call themselves claude are two holders.
    let one = common::many::serve_in(a, env).await;
    let two = common::many::serve_in(b, env).await;
    let first = call(&one, "issues_claim", json!({"id": "ISS-000004", "assignee": "claude"})).await;
    assert!(!is_error(&first), "{}", text(&first));
    let second = call(&two, "issues_claim", json!({"id": "ISS-000004", "assignee": "claude"})).await;
    assert!(is_error(&second) && text(&second).contains("held by claude in another session"), "{}", text(&second));
    let again = call(&one, "issues_claim", json!({"id": "ISS-000004", "assignee": "claude"})).await;
    assert!(!is_error(&again) && structured(&again)["claimed"] == json!(false), "{}", text(&again));
    // Release: the holder ends it, someone else only with a reason.
    let r = call(&two, "issues_claim", json!({"id": "ISS-000004", "assignee": "claude", "release": true})).await;
    assert!(is_error(&r) && text(&r).contains("takeoverReason"), "{}", text(&r));
    let r = call(&one, "issues_claim", json!({"id": "ISS-000004", "assignee": "claude", "release": true})).await;
    assert!(!is_error(&r), "{}", text(&r));
    let next = call(&two, "issues_claim", json!({"id": "ISS-000004", "assignee": "claude"})).await;
    assert!(!is_error(&next), "released, so the other session takes it: {}", text(&next));
    for c in [ann, carol, one, two] {
        c.cancel().await.expect("close");
    }
}

#[test]
fn a_hand_over_between_local_worktrees_keeps_one_holder() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = tmp.path().join("main");
    repo_with_issues(&main, ".docket", 3);
    let (a, b) = (Layout::Sibling.add(&main, "a"), Layout::Sibling.add(&main, "b"));
    let local: &[(&str, &str)] = &[("DOCKET_WORKTREES", "local")];
    ok_in(&a, &["claim", "ISS-000001", "--as", "ann"], local);
    ok_in(&a, &["update", "ISS-000001", "--assignee", "dave"], local);
    let o = docket_in(&b, &["claim", "ISS-000001", "--as", "carol"], local);
    assert!(!o.status.success() && stderr(&o).contains("held by dave"), "{}", stderr(&o));
    // dave renews it by claiming it himself; released, it is carol's to take.
    ok_in(&b, &["claim", "ISS-000001", "--as", "dave"], local);
    ok_in(&b, &["release", "ISS-000001", "--as", "dave"], local);
    ok_in(&b, &["claim", "ISS-000001", "--as", "carol"], local);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn lost_claim_races_are_not_remembered_as_failures_and_show_says_who_holds_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = tmp.path().join("main");
    repo_with_issues(&main, ".docket", 3);
    ok_in(&main, &["claim", "ISS-000001", "--as", "ann"], &[]);
    let bob = common::many::serve_in(&main, &[]).await;
    for _ in 0..4 {
        let lost = call(&bob, "issues_claim", json!({"id": "ISS-000001", "assignee": "bob"})).await;
        assert!(is_error(&lost) && text(&lost).contains("held by ann"), "{}", text(&lost));
        let whole = serde_json::to_string(&lost).expect("json");
        assert!(!whole.contains("times in the last"), "a lost race is not a known failure: {whole}");
    }
    let won = call(&bob, "issues_claim", json!({"id": "ISS-000002", "assignee": "bob"})).await;
    let whole = serde_json::to_string(&won).expect("json");
    assert!(!is_error(&won) && !whole.contains("failed"), "no warning about other calls: {whole}");
    // Who holds it, since when and until when, from the claim record.
    let got = call(&bob, "issues_get", json!({"id": "ISS-000002"})).await;
    assert!(text(&got).contains("Claim: held by bob since") && text(&got).contains("lease until"), "{}", text(&got));
    let shown = ok_in(&main, &["show", "ISS-000001"], &[]);
    assert!(shown.contains("Claim:") && shown.contains("held by ann since"), "{shown}");
    bob.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ready_leaves_out_an_id_several_files_hold_and_says_so() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = tmp.path().join("main");
    repo_with_issues(&main, ".docket", 3);
    let issues = main.join(".docket/issues");
    let first = std::fs::read_dir(&issues)
        .expect("issues")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("ISS-000001")))
        .expect("ISS-000001's file");
    std::fs::copy(&first, issues.join("ISS-000001-copy.md")).expect("copy");
    let client = common::many::serve_in(&main, &[]).await;
    let ready = call(&client, "issues_ready", json!({})).await;
    let rows = structured(&ready)["rows"].to_string();
    assert!(!rows.contains("ISS-000001") && rows.contains("ISS-000002"), "{rows}");
    assert!(
        text(&ready).contains("1 more ID(s) are ready but left out: each is held by several files"),
        "{}",
        text(&ready)
    );
    assert_eq!(structured(&ready)["totalCount"], 2);
    client.cancel().await.expect("close");
    let next = ok_in(&main, &["claim", "--next", "--as", "ann"], &[]);
    assert!(next.starts_with("Claimed ISS-000002"), "{next}");
}

/// The soak (tests/teams/soak.rs) found issues closed twice: a close's tombstone is a compare-and-set
/// on the claim record, and the serving process's own renewal thread can replace the record
/// between the close's read and its push. The tombstone was then lost, the record stayed "held"
/// with nobody renewing it, and once its lease lapsed a clone that had not pulled claimed the
/// finished work. With a 1 s lease the renewals run every few hundred milliseconds, pushing one
/// claim after another: every close must still leave its tombstone.
#[test]
fn every_close_leaves_its_tombstone_while_the_server_renews_its_claims() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 8, 1);
    let env: &[(&str, &str)] = &[("DOCKET_CLAIMS_REMOTE", "origin"), ("DOCKET_CLAIM_TTL", "1s")];
    let mut ann = Agent::start(&clones[0], env);
    let ids: Vec<String> = (1..=8).map(|n| format!("ISS-{n:06}")).collect();
    for id in &ids {
        let (err, t) = ann.call("issues_claim", json!({"id": id, "assignee": "ann"}));
        assert!(!err, "{t}");
    }
    for id in &ids {
        let (err, t) = ann.call("issues_update", json!({"id": id, "status": "closed"}));
        assert!(!err, "{t}");
    }
    let open: Vec<String> = ids
        .iter()
        .filter(|id| !git(&origin, &["cat-file", "blob", &format!("refs/docket/claims/{id}")]).contains("state closed"))
        .cloned()
        .collect();
    assert!(open.is_empty(), "closed here, yet the remote's record still says held: {open:?}");
}
