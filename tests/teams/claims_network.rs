//! The network never holds a lock, and doctor judges by evidence (issue 45): a claims remote
//! that accepts connections and never answers (a black hole, like a dropped VPN) costs a call its
//! deadline, never blocks another process's write, never stalls `issues_ready` or a `git pull`
//! with docket's hooks; and a clone that has not pulled is not told another clone's claim is a
//! problem, nor does its `doctor --fix` undo it.

use crate::common;

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::many::{docket_cmd, docket_in, ok_in, origin_and_clones, serve_in, status_of};
use common::{call, git, git_command, is_error, structured};
use serde_json::json;

/// The deadline the tests give each call to the claims remote.
const DEADLINE: &str = "3";

fn env(remote: &'static str) -> Vec<(&'static str, &'static str)> {
    vec![("DOCKET_CLAIMS_REMOTE", remote), ("DOCKET_REMOTE_TIMEOUT", DEADLINE)]
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A loopback listener that accepts every connection and never answers; it stops when dropped
/// (and after two minutes at most).
pub(crate) struct BlackHole {
    port: u16,
    accepted: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl BlackHole {
    pub(crate) fn start() -> BlackHole {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.set_nonblocking(true).expect("nonblocking");
        let port = listener.local_addr().expect("addr").port();
        let (accepted, stop) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
        let (count, stopped) = (Arc::clone(&accepted), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut held: Vec<TcpStream> = Vec::new();
            let until = Instant::now() + Duration::from_secs(120);
            while !stopped.load(Ordering::SeqCst) && Instant::now() < until {
                match listener.accept() {
                    Ok((stream, _)) => {
                        held.push(stream);
                        count.fetch_add(1, Ordering::SeqCst);
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(10)),
                }
            }
        });
        BlackHole { port, accepted, stop }
    }

    pub(crate) fn url(&self) -> String {
        format!("git://127.0.0.1:{}/x.git", self.port)
    }

    /// Waits (at most `limit`) until someone has connected; whether they did.
    fn wait_for_a_caller(&self, limit: Duration) -> bool {
        let until = Instant::now() + limit;
        while Instant::now() < until {
            if self.accepted.load(Ordering::SeqCst) > 0 {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }
}

impl Drop for BlackHole {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Waits for `child` at most `limit`; its output, or `None` (then it is killed) when it did not end.
fn wait_at_most(mut child: Child, limit: Duration) -> Option<Output> {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if child.try_wait().expect("wait").is_some() {
            return Some(child.wait_with_output().expect("output"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

fn spawn(mut cmd: Command) -> Child {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn")
}

fn claim_refs(origin: &Path) -> Vec<String> {
    git(origin, &["for-each-ref", "--format=%(refname)", "refs/docket/claims/"]).lines().map(str::to_string).collect()
}

#[test]
fn a_close_through_a_silent_remote_returns_in_time_queues_its_release_and_blocks_no_writer() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 6, 1);
    let clone = &clones[0];
    ok_in(clone, &["claim", "ISS-000002", "--as", "ann"], &env("origin"));
    let hole = BlackHole::start();
    git(clone, &["remote", "set-url", "origin", &hole.url()]);

    let started = Instant::now();
    let close = spawn(docket_cmd(clone, &["close", "ISS-000002"], &env("origin")));
    assert!(hole.wait_for_a_caller(Duration::from_secs(20)), "the close asks the remote");
    // While the close waits on the remote, another process writes to the same workspace.
    let create_started = Instant::now();
    let create = wait_at_most(
        spawn(docket_cmd(clone, &["create", "--title", "written during the hang"], &env("origin"))),
        Duration::from_secs(20),
    )
    .expect("the create finishes while the close waits on the remote");
    let create_took = create_started.elapsed();
    assert!(create.status.success(), "{}", stderr(&create));
    let deadline = Duration::from_secs(DEADLINE.parse().expect("seconds"));
    assert!(create_took < deadline, "the create waited on the close's remote: {create_took:?}");

    let closed = wait_at_most(close, deadline + Duration::from_secs(20)).expect("the close ends at its deadline");
    let close_took = started.elapsed();
    let err = stderr(&closed);
    assert!(closed.status.success(), "{err}");
    assert!(close_took < deadline + Duration::from_secs(10), "{close_took:?}");
    assert!(err.contains("did not answer in 3 s") && err.contains("queued"), "the answer says so: {err}");
    let archived = clone.join(".docket/issues/archived");
    let names: Vec<String> = std::fs::read_dir(&archived)
        .map(|d| d.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    assert!(names.iter().any(|n| n.starts_with("ISS-000002")), "closed here: {names:?}");
    let record = || git(&origin, &["cat-file", "blob", "refs/docket/claims/ISS-000002"]);
    assert!(!record().contains("state closed"), "the remote has not seen the close: {}", record());

    // The remote is back: the next call that reaches it finishes the close (a tombstone, so no
    // clone that has not pulled is offered the finished work).
    git(clone, &["remote", "set-url", "origin", origin.to_str().expect("utf-8")]);
    ok_in(clone, &["ready"], &env("origin"));
    assert_eq!(claim_refs(&origin), ["refs/docket/claims/ISS-000002"]);
    assert!(record().contains("state closed"), "the queued close is done: {}", record());
    let doctor = docket_in(clone, &["doctor"], &env("origin"));
    assert!(doctor.status.success(), "{}", String::from_utf8_lossy(&doctor.stdout));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn ready_answers_within_the_deadline_from_the_last_list_when_the_remote_is_silent() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_origin, clones) = origin_and_clones(tmp.path(), 6, 2);
    ok_in(&clones[0], &["claim", "ISS-000001", "--as", "ann"], &env("origin"));
    let bob = serve_in(&clones[1], &env("origin")).await;
    let first = call(&bob, "issues_ready", json!({})).await;
    assert!(!structured(&first)["rows"].to_string().contains("ISS-000001"));
    let hole = BlackHole::start();
    git(&clones[1], &["remote", "set-url", "origin", &hole.url()]);
    // Past the list's reuse time, so the remote is asked again.
    tokio::time::sleep(Duration::from_millis(2_100)).await;
    let limit = Duration::from_secs(DEADLINE.parse::<u64>().expect("seconds") + 10);
    let again = tokio::time::timeout(limit, call(&bob, "issues_ready", json!({})))
        .await
        .expect("issues_ready answers while the remote is silent");
    assert!(hole.accepted.load(Ordering::SeqCst) > 0, "the remote was asked");
    assert!(!is_error(&again));
    let rows = structured(&again)["rows"].to_string();
    assert!(!rows.contains("ISS-000001") && rows.contains("ISS-000002"), "the last list still hides ann's: {rows}");
    let meta = serde_json::to_value(&again.meta).expect("meta");
    let claims = &meta["tool_context"]["claims"];
    assert_eq!(claims["stale"], true, "{meta}");
    assert!(claims["age_ms"].as_u64().is_some_and(|ms| ms >= 2_000), "how old the list is: {meta}");
    assert!(meta.to_string().contains("did not answer in 3 s"), "{meta}");
    bob.cancel().await.expect("close");
}

#[test]
fn a_git_pull_with_the_hooks_never_waits_on_the_claims_remote() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_origin, clones) = origin_and_clones(tmp.path(), 6, 2);
    let (a, b) = (&clones[0], &clones[1]);
    ok_in(a, &["git-setup"], &[]);
    let hole = BlackHole::start();
    git(a, &["remote", "add", "claims", &hole.url()]);
    ok_in(b, &["create", "--title", "from b"], &[]);
    common::many::commit_all(b, "b");
    git(b, &["push", "-q", "origin", "main"]);
    let mut pull = git_command(a);
    pull.args(["pull", "-q", "--no-rebase", "origin", "main"]).stdin(Stdio::null());
    for (k, v) in env("claims") {
        pull.env(k, v);
    }
    let done = wait_at_most(spawn(pull), Duration::from_secs(60)).expect("git pull finishes");
    assert!(done.status.success(), "{}", stderr(&done));
    assert_eq!(hole.accepted.load(Ordering::SeqCst), 0, "the hook never called the claims remote");
    assert_eq!(status_of(&a.join(".docket"), "ISS-000007"), "open", "pulled");
}

#[test]
fn doctor_in_a_clone_that_has_not_pulled_leaves_another_clones_claims_alone() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 6, 2);
    let (a, b) = (&clones[0], &clones[1]);
    // In clone a: a claim of an issue both know, and a claim of an issue only a has.
    ok_in(a, &["claim", "ISS-000001", "--as", "ann"], &env("origin"));
    let new = ok_in(a, &["create", "--title", "only in a"], &env("origin"));
    let new = new.split_whitespace().find(|w| w.starts_with("ISS-")).expect("new id").trim_end_matches(':').to_string();
    ok_in(a, &["claim", &new, "--as", "ann"], &env("origin"));
    let before = common::snapshot(&b.join(".docket/issues"));

    let doctor = docket_in(b, &["doctor"], &env("origin"));
    let out = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(0), "another clone's claim is no problem: {out}");
    assert!(out.contains("claimed in another clone") && out.contains("pull to see it"), "{out}");

    let fixed = docket_in(b, &["doctor", "--fix"], &env("origin"));
    let out = String::from_utf8_lossy(&fixed.stdout);
    assert!(fixed.status.success(), "{out}");
    assert!(!out.contains("removed the claim ref"), "{out}");
    assert_eq!(
        claim_refs(&origin),
        ["refs/docket/claims/ISS-000001".to_string(), format!("refs/docket/claims/{new}")],
        "both of ann's claims stay: {out}"
    );
    assert_eq!(common::snapshot(&b.join(".docket/issues")), before, "no other clone's claim is written here: {out}");
    // And in the clone that made them, they are what they should be.
    let there = docket_in(a, &["doctor"], &env("origin"));
    assert_eq!(there.status.code(), Some(0), "{}", String::from_utf8_lossy(&there.stdout));
}

#[test]
fn a_ref_that_holds_no_claim_is_one_problem_and_the_others_are_still_checked() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 6, 1);
    let clone = &clones[0];
    // An interrupted claim of this clone: the ref is there, the file says open.
    ok_in(clone, &["claim", "ISS-000001", "--as", "ann"], &env("origin"));
    git(clone, &["checkout", "--", ".docket"]);
    let head = git(clone, &["rev-parse", "HEAD"]);
    git(clone, &["push", "-q", "origin", &format!("{}:refs/docket/claims/ISS-000003", head.trim())]);
    let o = docket_in(clone, &["doctor", "--json"], &env("origin"));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    let claims: Vec<&serde_json::Value> =
        report["problems"].as_array().expect("problems").iter().filter(|p| p["kind"] == "claim_ref").collect();
    let ids: Vec<&str> = claims.iter().filter_map(|p| p["id"].as_str()).collect();
    assert_eq!(ids.len(), 2, "{report}");
    assert!(ids.contains(&"ISS-000001") && ids.contains(&"ISS-000003"), "{report}");
    let bad = claims.iter().find(|p| p["id"] == "ISS-000003").expect("the bad ref");
    assert!(bad["message"].as_str().is_some_and(|m| m.contains("points at a commit")), "{bad}");
    let fixed = docket_in(clone, &["doctor", "--fix"], &env("origin"));
    assert!(String::from_utf8_lossy(&fixed.stdout).contains("completed ISS-000001's claim for ann"));
    assert_eq!(status_of(&clone.join(".docket"), "ISS-000001"), "in_progress");
    assert_eq!(claim_refs(&origin).len(), 2, "the bad ref is left to a person");
}

/// `GIT_TRACE` lines of `file` naming git subcommand `name` (one per git process that ran it).
fn traced(file: &Path, name: &str) -> usize {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let needle = format!("built-in: git {name}");
    text.lines().filter(|l| l.contains(&needle)).count()
}

#[test]
fn a_thousand_claim_refs_cost_doctor_a_few_git_calls_and_a_pull_none_on_the_remote() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 6, 3);
    let (maker, reader, puller) = (&clones[0], &clones[1], &clones[2]);
    // 1,000 claims made elsewhere (ids this clone does not have), pushed in one go.
    let mut hash = git_command(maker);
    hash.args(["hash-object", "-w", "--stdin"]).stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = hash.spawn().expect("hash-object");
    std::io::Write::write_all(
        &mut child.stdin.take().expect("stdin"),
        b"docket claim\nholder someone\ntaken 2030-01-01T00:00:00Z\nat elsewhere:/work\n",
    )
    .expect("write");
    let oid = String::from_utf8_lossy(&child.wait_with_output().expect("oid").stdout).trim().to_string();
    let lines: String = (1000..2000).map(|n| format!("create refs/docket/claims/ISS-{n:06} {oid}\n")).collect();
    let mut update = git_command(maker);
    update.args(["update-ref", "--stdin"]).stdin(Stdio::piped());
    let mut child = update.spawn().expect("update-ref");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), lines.as_bytes()).expect("write");
    assert!(child.wait().expect("update-ref").success());
    git(maker, &["push", "-q", "origin", "refs/docket/claims/*:refs/docket/claims/*"]);
    assert_eq!(claim_refs(&origin).len(), 1_000);

    let trace = tmp.path().join("doctor.trace");
    // Not about a slow remote: a deadline no loaded machine reaches.
    let roomy = [("DOCKET_CLAIMS_REMOTE", "origin"), ("DOCKET_REMOTE_TIMEOUT", "120")];
    let mut doctor = docket_cmd(reader, &["doctor"], &roomy);
    doctor.env("GIT_TRACE", &trace);
    let o = doctor.output().expect("doctor");
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stdout));
    let calls: usize = ["ls-remote", "fetch", "cat-file"].iter().map(|n| traced(&trace, n)).sum();
    assert!(calls <= 6, "one list, one fetch, a batch read or two, not one per ref: {calls} git calls");

    ok_in(puller, &["git-setup"], &[]);
    ok_in(maker, &["create", "--title", "one new issue"], &[]);
    common::many::commit_all(maker, "one new issue");
    git(maker, &["push", "-q", "origin", "main"]);
    let trace = tmp.path().join("pull.trace");
    let mut pull = git_command(puller);
    pull.args(["pull", "-q", "--no-rebase", "origin", "main"]).env("GIT_TRACE", &trace);
    for (k, v) in roomy {
        pull.env(k, v);
    }
    let out = pull.output().expect("pull");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&trace).unwrap_or_default();
    assert!(text.contains("post-merge"), "the hook ran");
    assert_eq!(traced(&trace, "ls-remote"), 0, "the hook lists no remote claims");
}

#[test]
fn a_clone_that_would_claim_alone_is_told_and_named_the_setting() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_origin, clones) = origin_and_clones(tmp.path(), 6, 2);
    let (a, b) = (&clones[0], &clones[1]);
    // Clone a claims through origin, as its team does.
    ok_in(a, &["claim", "ISS-000001", "--as", "ann"], &env("origin"));
    // Clone b has no claims_remote: its claims would be local only.
    let claim = docket_in(b, &["claim", "ISS-000002", "--as", "bob"], &[]);
    assert!(claim.status.success(), "{}", stderr(&claim));
    let err = stderr(&claim);
    assert!(
        err.contains("claims alone") && err.contains("claims_remote: origin") && err.contains("config/docket.yaml"),
        "{err}"
    );
    let ready = docket_in(b, &["ready"], &[]);
    assert!(stderr(&ready).contains("claims alone"), "{}", stderr(&ready));
    let doctor = docket_in(b, &["doctor"], &[]);
    assert!(
        String::from_utf8_lossy(&doctor.stdout).contains("claims alone"),
        "{}",
        String::from_utf8_lossy(&doctor.stdout)
    );
    // With the setting, no warning.
    let set = docket_in(b, &["ready"], &env("origin"));
    assert!(!stderr(&set).contains("claims alone"), "{}", stderr(&set));
}
