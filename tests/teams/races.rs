//! Two claim races made to happen every time (issue 45), with real processes, real git, real
//! clones of a local bare remote and real linked worktrees. A `git` of the test's own on the PATH
//! of one docket process runs the real git for every call except one write of a claim record,
//! which it pauses at the moment the race needs (no seam in docket itself):
//! - **a close paused past its lease.** A holder's close pushes its tombstone first, then writes
//!   its file; a tombstone of this clone older than a lease (and its skew) whose file is not
//!   closed reads to everyone else as a close that died, and they may take the issue. The server
//!   is stopped (SIGSTOP) right after its tombstone's push: on resume it renews its tombstone and
//!   finishes the close if the tombstone is still its own, and writes nothing if the issue has
//!   been taken since.
//! - **a takeover against a renewing holder.** A takeover (a reason given) that lost its
//!   compare-and-set to the holder's own renewal is tried again while the record still names the
//!   same holder, and refused naming the new holder when someone else took the issue meanwhile.
//! - **a claim whose push waits while another clone closes the issue.** Its read saw no record
//!   and an open issue; the close was pushed and its tombstone ended before the claim's push,
//!   which then found no record at all. The branch read after the push refuses it.
//! - **a write that meets a merge.** Between a holder's (or a wrangler-style claim's) gate and
//!   its file, a merge gives the id to another issue: nothing is written to that issue.

use super::leases::{Agent, eventually};
use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::Duration;

use common::git;
use common::many::{Layout, docket_cmd, docket_in, ok_in, origin_and_clones, repo_with_issues, status_of};
use serde_json::json;

const ID: &str = "ISS-000001";

/// The test's `git`: the real one, except for the first write of a claim ref (a push, or an
/// update-ref in the common git directory) that `RACE_MODE` names. `stop-after-tombstone`: a write
/// of a tombstone is run, and once it took, the docket process that started it is stopped and its
/// pid written to `$RACE_GATE/stopped`. `stop-after-renewal`: the same for the first single write
/// of a held claim once `$RACE_GATE/arm` exists (a write's own renewal: the renewal thread writes
/// its batch with `update-ref --stdin`). `hold-claim`: any claim push waits until `$RACE_GATE/go`
/// exists, `$RACE_GATE/holding` saying it waits.
const FAKE_GIT: &str = r#"#!/bin/sh
real="$RACE_REAL_GIT"
gate="$RACE_GATE"
dir=.
if [ "$1" = "-C" ]; then dir=$2; fi
# `stop-after-file`: the first git call once `$RACE_FILES` (a folder) holds a file stops the
# docket process that made it, and runs only once that process is resumed.
if [ "$RACE_MODE" = stop-after-file ]; then
  if [ -n "$(ls -A "$RACE_FILES" 2>/dev/null)" ] && mkdir "$gate/once" 2>/dev/null; then
    kill -STOP "$PPID"
    echo "$PPID" > "$gate/stopped.tmp" && mv "$gate/stopped.tmp" "$gate/stopped"
    while grep -q '^State:.*T' "/proc/$PPID/status" 2>/dev/null; do sleep 0.01; done
  fi
  exec "$real" "$@"
fi
case " $* " in
*" push "* | *" update-ref "*) ;;
*) exec "$real" "$@" ;;
esac
# The claim record written: `OID:refs/docket/claims/ID` (push), `refs/docket/claims/ID OID OLD`
# (update-ref, the common git directory of linked worktrees).
oid=
prev=
for arg in "$@"; do
  case "$arg" in
  *:refs/docket/claims/*) oid=${arg%%:*} ;;
  esac
  case "$prev" in
  refs/docket/claims/*) [ -n "$oid" ] || oid=$arg ;;
  esac
  prev=$arg
done
hit=
if [ -n "$oid" ]; then
  case "$RACE_MODE" in
  stop-after-tombstone) "$real" -C "$dir" cat-file blob "$oid" 2>/dev/null | grep -qx 'state closed' && hit=1 ;;
  stop-after-renewal)
    if [ -e "$gate/arm" ] && ! "$real" -C "$dir" cat-file blob "$oid" 2>/dev/null | grep -qx 'state closed'; then hit=1; fi ;;
  hold-claim) hit=1 ;;
  esac
fi
if [ -z "$hit" ] || ! mkdir "$gate/once" 2>/dev/null; then exec "$real" "$@"; fi
case "$RACE_MODE" in
stop-after-tombstone | stop-after-renewal)
  "$real" "$@" > "$gate/out"; rc=$?
  cat "$gate/out"
  # A push the remote refused (the server's own renewal won the race) is let through: the close
  # reads the record again and pushes once more.
  if [ $rc -ne 0 ] || grep -q '^!' "$gate/out"; then rmdir "$gate/once"; exit $rc; fi
  kill -STOP "$PPID"
  echo "$PPID" > "$gate/stopped.tmp" && mv "$gate/stopped.tmp" "$gate/stopped"
  exit $rc ;;
*)
  : > "$gate/holding"
  n=0
  while [ ! -e "$gate/go" ] && [ $n -lt 3000 ]; do sleep 0.01; n=$((n+1)); done
  exec "$real" "$@" ;;
esac
"#;

/// Where the fake git is, and the folder the test and it signal each other through.
struct Gate {
    bin: PathBuf,
    dir: PathBuf,
    path: String,
    real: String,
}

impl Gate {
    fn new(tmp: &Path) -> Gate {
        let bin = tmp.join("fake-bin");
        let dir = tmp.join("gate");
        std::fs::create_dir_all(&bin).expect("mkdir fake-bin");
        std::fs::create_dir_all(&dir).expect("mkdir gate");
        let script = bin.join("git");
        std::fs::write(&script, FAKE_GIT).expect("write the fake git");
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
        let path = std::env::var_os("PATH").expect("PATH");
        let real = std::env::split_paths(&path)
            .map(|d| d.join("git"))
            .find(|g| g.is_file())
            .expect("git on PATH")
            .to_string_lossy()
            .into_owned();
        let path = format!("{}:{}", bin.display(), path.to_string_lossy());
        Gate { bin, dir, path, real }
    }

    /// `base` and what a docket process needs to run the fake git in `mode`.
    fn env<'a>(&'a self, base: &[(&'a str, &'a str)], mode: &'a str) -> Vec<(&'a str, &'a str)> {
        let mut env = base.to_vec();
        env.extend([
            ("PATH", self.path.as_str()),
            ("RACE_REAL_GIT", self.real.as_str()),
            ("RACE_GATE", self.dir.to_str().expect("utf-8")),
            ("RACE_MODE", mode),
        ]);
        env
    }

    fn marker(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        // A process stopped by the fake git is never left stopped.
        if let Ok(pid) = std::fs::read_to_string(self.marker("stopped")) {
            resume(pid.trim());
        }
        let _ = std::fs::remove_dir_all(&self.bin);
    }
}

fn resume(pid: &str) {
    let pid: i32 = pid.parse().expect("a pid");
    // SAFETY: a signal to the docket process this test started (the fake git wrote its pid).
    unsafe { libc::kill(pid, libc::SIGCONT) };
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The claim record of `ID` in the repository at `dir` (the bare remote, or a repository whose
/// linked worktrees share its refs).
fn record(dir: &Path) -> String {
    git(dir, &["cat-file", "blob", &format!("refs/docket/claims/{ID}")])
}

fn field(record: &str, key: &str) -> String {
    record.lines().find_map(|l| l.strip_prefix(&format!("{key} "))).unwrap_or_default().to_string()
}

/// Whether the repository at `dir` has a claim record of `id`.
fn has_record(dir: &Path, id: &str) -> bool {
    let name = format!("refs/docket/claims/{id}");
    let out = common::git_command(dir).args(["rev-parse", "-q", "--verify", &name]).output().expect("git runs");
    out.status.success()
}

/// The object id of `ID`'s claim ref on the bare remote.
fn record_oid(origin: &Path) -> String {
    git(origin, &["rev-parse", &format!("refs/docket/claims/{ID}")]).trim().to_string()
}

/// ann's server in `clone` holds `ID` and closes it; the fake git stops the server right after
/// the tombstone's push. Returns the server's pending answer and its pid once it is stopped.
fn close_paused_after_its_tombstone(
    gate: &Gate,
    clone: &Path,
    base: &[(&str, &str)],
) -> (std::thread::JoinHandle<(bool, String)>, String) {
    let (closing, pid, _) = paused_close(gate, clone, &gate.env(base, "stop-after-tombstone"), None);
    (closing, pid)
}

/// What a paused close leaves: its pending answer, the stopped server's pid, and the snapshot of
/// the workspace folder asked for, taken between the claim and the close.
type Paused = (std::thread::JoinHandle<(bool, String)>, String, Option<Snapshot>);
type Snapshot = std::collections::BTreeMap<String, Vec<u8>>;

/// ann's server in `clone`, with `env` (a mode of the fake git), claims `ID` and closes it; the
/// fake git stops the server.
fn paused_close(gate: &Gate, clone: &Path, env: &[(&str, &str)], files: Option<&Path>) -> Paused {
    let mut ann = Agent::start(clone, env);
    let (err, t) = ann.call("issues_claim", json!({"id": ID, "assignee": "ann"}));
    assert!(!err, "{t}");
    let claimed = files.map(common::snapshot);
    let closing = std::thread::spawn(move || {
        let answer = ann.call("issues_update", json!({"id": ID, "status": "closed"}));
        drop(ann);
        answer
    });
    let stopped = gate.marker("stopped");
    assert!(eventually(Duration::from_secs(20), || stopped.exists()), "the fake git stopped the close");
    let pid = std::fs::read_to_string(&stopped).expect("pid").trim().to_string();
    (closing, pid, claimed)
}

/// ann's close in `checkout` is stopped right after its tombstone, and resumed once that
/// tombstone reads as a close that died; nobody took the issue meanwhile, so the close renews its
/// tombstone and finishes. `files` and `records` as for [`a_paused_close_loses_to_a_taker`].
fn a_paused_close_renews_its_tombstone(
    checkout: &Path,
    files: &Path,
    records: &Path,
    gate: &Gate,
    base: &[(&str, &str)],
) {
    let (closing, pid) = close_paused_after_its_tombstone(gate, checkout, base);
    let tomb = record(records);
    assert!(tomb.contains("state closed") && tomb.contains("holder ann"), "{tomb}");
    assert_eq!(status_of(files, ID), "in_progress", "the file is not written yet");
    // Past a lease and its skew, the paused close reads here as a close that died.
    let ready = || ok_in(checkout, &["ready"], base);
    assert!(
        eventually(Duration::from_secs(20), || ready().contains("did not finish")),
        "the paused close is taken for a dead one: {}",
        ready()
    );
    resume(&pid);
    let (err, t) = closing.join().expect("the close answers");
    assert!(!err, "the tombstone is still ann's: the close finishes: {t}");
    let archived = files.join("issues/archived").read_dir().expect("archived/");
    assert!(archived.flatten().any(|e| e.file_name().to_string_lossy().starts_with(ID)), "the file is closed");
    let after = record(records);
    assert!(after.contains("state closed") && after.contains("holder ann"), "{after}");
    assert!(
        field(&after, "taken") > field(&tomb, "taken"),
        "the resumed close renewed its tombstone before writing the file: {tomb} then {after}"
    );
    let late = docket_in(checkout, &["claim", ID, "--as", "bob"], base);
    assert!(!late.status.success() && stderr(&late).contains("closed"), "{}", stderr(&late));
    assert!(!ready().contains(ID), "closed work is not offered");
}

#[test]
fn a_close_paused_past_its_lease_after_its_tombstone_renews_it_and_finishes() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 2, 1);
    let gate = Gate::new(tmp.path());
    let base: &[(&str, &str)] = &[("DOCKET_CLAIMS_REMOTE", "origin"), ("DOCKET_CLAIM_TTL", "1s")];
    a_paused_close_renews_its_tombstone(&clones[0], &clones[0].join(".docket"), &origin, &gate, base);
}

#[test]
fn a_close_paused_past_its_lease_in_a_linked_worktree_renews_its_tombstone_and_finishes() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = tmp.path().join("main");
    repo_with_issues(&main, ".docket", 2);
    let wt = Layout::Sibling.add(&main, "wt");
    let gate = Gate::new(tmp.path());
    let files = main.join(".docket");
    a_paused_close_renews_its_tombstone(&wt, &files, &main, &gate, &[("DOCKET_CLAIM_TTL", "1s")]);
}

/// ann's close in `checkout` is stopped right after its tombstone; past its lease bob takes the
/// issue there for a close that died; ann's resumed close must write nothing. `files` is the
/// workspace folder the checkout writes (a linked worktree writes its main checkout's), `records`
/// the repository with the claim refs (the bare remote, or the repository of linked worktrees).
fn a_paused_close_loses_to_a_taker(checkout: &Path, files: &Path, records: &Path, gate: &Gate, base: &[(&str, &str)]) {
    let (closing, pid) = close_paused_after_its_tombstone(gate, checkout, base);
    let tomb = record(records);
    assert!(tomb.contains("state closed") && tomb.contains("holder ann"), "{tomb}");
    let took = eventually(Duration::from_secs(20), || {
        docket_in(checkout, &["claim", ID, "--as", "bob"], base).status.success()
    });
    assert!(took, "the paused close's issue is taken once its tombstone is a lease old");
    let before = common::snapshot(files);
    resume(&pid);
    let (err, t) = closing.join().expect("the close answers");
    assert!(
        err && t.starts_with("CONFLICT") && t.contains("paused past its lease") && t.contains("someone else's"),
        "{t}"
    );
    assert_eq!(common::snapshot(files), before, "nothing written");
    assert_eq!(status_of(files, ID), "in_progress");
    let now = record(records);
    assert!(now.contains("holder bob") && !now.contains("state closed"), "bob holds it still: {now}");
}

#[test]
fn a_close_paused_past_its_lease_after_another_took_the_issue_writes_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 2, 1);
    let gate = Gate::new(tmp.path());
    let base: &[(&str, &str)] = &[("DOCKET_CLAIMS_REMOTE", "origin"), ("DOCKET_CLAIM_TTL", "1s")];
    a_paused_close_loses_to_a_taker(&clones[0], &clones[0].join(".docket"), &origin, &gate, base);
}

#[test]
fn a_close_paused_past_its_lease_in_a_linked_worktree_after_another_took_the_issue_writes_nothing() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = tmp.path().join("main");
    repo_with_issues(&main, ".docket", 2);
    let wt = Layout::Sibling.add(&main, "wt");
    let gate = Gate::new(tmp.path());
    let files = main.join(".docket");
    a_paused_close_loses_to_a_taker(&wt, &files, &main, &gate, &[("DOCKET_CLAIM_TTL", "1s")]);
}

/// ann's close in clone 0 writes its file and is stopped before it marks its tombstone finished;
/// past the tombstone's lease, bob in clone 1 (which has not pulled) takes the issue for a close
/// that died. ann's resumed close must not stand: it is refused and her file is put back.
#[test]
fn a_close_paused_past_its_lease_after_its_file_write_is_undone_when_another_took_the_issue() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 2, 2);
    let gate = Gate::new(tmp.path());
    let files = clones[0].join(".docket");
    let archived = files.join("issues/archived");
    let base: &[(&str, &str)] = &[("DOCKET_CLAIMS_REMOTE", "origin"), ("DOCKET_CLAIM_TTL", "1s")];
    let mut env = gate.env(base, "stop-after-file");
    let watched = archived.to_string_lossy().into_owned();
    env.push(("RACE_FILES", &watched));
    let (closing, pid, claimed) = paused_close(&gate, &clones[0], &env, Some(&files));
    let tomb = record(&origin);
    assert!(
        tomb.contains("state closed") && tomb.contains("holder ann") && !field(&tomb, "lease").is_empty(),
        "{tomb}"
    );
    let took = eventually(Duration::from_secs(20), || {
        docket_in(&clones[1], &["claim", ID, "--as", "bob"], base).status.success()
    });
    assert!(took, "bob takes the issue once ann's unfinished close is a lease old");
    resume(&pid);
    let (err, t) = closing.join().expect("the close answers");
    assert!(err && t.starts_with("CONFLICT") && t.contains("paused past its lease") && t.contains("undone"), "{t}");
    let mut after = common::snapshot(&files);
    after.remove("issues/archived/"); // the folder her close made, empty again
    assert_eq!(Some(after), claimed, "ann's file is as her claim left it");
    let now = record(&origin);
    assert!(now.contains("holder bob") && !now.contains("state closed"), "bob holds it still: {now}");
}

/// ann's close writes its file and is stopped before it marks its tombstone finished; while it is
/// stopped the claims remote goes silent (a black hole). Resumed, the close waits one deadline for
/// the remote, not one per step, and queues the rest; the remote back, the next call finishes it.
#[test]
fn a_close_whose_remote_goes_silent_after_its_file_write_waits_one_deadline_and_queues_the_rest() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 2, 1);
    let gate = Gate::new(tmp.path());
    let archived = clones[0].join(".docket/issues/archived").to_string_lossy().into_owned();
    let deadline = Duration::from_secs(5);
    let base: &[(&str, &str)] =
        &[("DOCKET_CLAIMS_REMOTE", "origin"), ("DOCKET_CLAIM_TTL", "30s"), ("DOCKET_REMOTE_TIMEOUT", "5")];
    let mut env = gate.env(base, "stop-after-file");
    env.push(("RACE_FILES", &archived));
    let (closing, pid, _) = paused_close(&gate, &clones[0], &env, None);
    let hole = super::claims_network::BlackHole::start();
    git(&clones[0], &["remote", "set-url", "origin", &hole.url()]);
    let resumed = std::time::Instant::now();
    resume(&pid);
    let (err, t) = closing.join().expect("the close answers");
    let took = resumed.elapsed();
    assert!(!err, "the file is closed; the remote's part is queued: {t}");
    assert!(took < deadline * 2 - Duration::from_secs(1), "one deadline ({deadline:?}), not two: {took:?}");
    let tomb = record(&origin);
    assert!(tomb.contains("state closed") && !field(&tomb, "lease").is_empty(), "not cleared yet: {tomb}");
    git(&clones[0], &["remote", "set-url", "origin", origin.to_str().expect("utf-8")]);
    ok_in(&clones[0], &["ready"], base);
    let done = record(&origin);
    assert!(done.contains("state closed") && field(&done, "lease").is_empty(), "the queued clear is done: {done}");
}

/// `docket claim ID --as bob --force REASON` in `clone`, its claim push held by the fake git.
fn held_takeover(gate: &Gate, clone: &Path, base: &[(&str, &str)], reason: &str) -> Child {
    held(gate, clone, base, &["claim", ID, "--as", "bob", "--force", reason])
}

/// `docket ARGS` in `clone`, its claim push held by the fake git (its read of the record and of
/// the remote's branch done).
fn held(gate: &Gate, clone: &Path, base: &[(&str, &str)], args: &[&str]) -> Child {
    let env = gate.env(base, "hold-claim");
    let mut cmd = docket_cmd(clone, args, &env);
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = cmd.spawn().expect("spawn docket");
    let holding = gate.marker("holding");
    assert!(eventually(Duration::from_secs(20), || holding.exists()), "the claim reached its push");
    child
}

/// Seed 467 of the soak: bob's claim (`args`, in the second clone) read "no record, open on
/// origin/main", then waited. Meanwhile ann claimed, closed and pushed the issue, and her
/// tombstone ended once the close was on origin/main. bob's create-only push then found no
/// record at all: his claim must still not stand.
fn a_claim_waiting_while_another_clone_closes_the_issue_is_refused(args: &[&str]) {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 2, 2);
    let gate = Gate::new(tmp.path());
    let base: &[(&str, &str)] = &[("DOCKET_CLAIMS_REMOTE", "origin"), ("DOCKET_REMOTE_TIMEOUT", "30")];
    let bob = held(&gate, &clones[1], base, args);
    let a = &clones[0];
    ok_in(a, &["claim", ID, "--as", "ann"], base);
    ok_in(a, &["close", ID], base);
    common::many::commit_all(a, "close ISS-000001");
    git(a, &["push", "-q", "origin", "main"]);
    let fixed = ok_in(a, &["doctor", "--fix"], base);
    assert!(fixed.contains(&format!("removed the tombstone of {ID}")), "{fixed}");
    std::fs::write(gate.marker("go"), "").expect("go");
    let o = bob.wait_with_output().expect("docket ends");
    assert!(!o.status.success(), "bob claimed work ann closed: {}", String::from_utf8_lossy(&o.stdout));
    assert!(stderr(&o).contains("closed on origin/main"), "{}", stderr(&o));
    assert!(!has_record(&origin, ID), "bob's record is taken back");
    assert_eq!(status_of(&clones[1].join(".docket"), ID), "open", "bob wrote nothing");
}

#[test]
fn a_claim_whose_push_waits_while_another_clone_closes_the_issue_and_ends_its_tombstone_is_refused() {
    a_claim_waiting_while_another_clone_closes_the_issue_is_refused(&["claim", ID, "--as", "bob"]);
}

#[test]
fn a_wrangler_style_claim_whose_push_waits_while_another_clone_closes_the_issue_is_refused() {
    a_claim_waiting_while_another_clone_closes_the_issue_is_refused(&[
        "update",
        ID,
        "--status",
        "in_progress",
        "--assignee",
        "bob",
    ]);
}

#[test]
fn a_takeover_that_loses_to_the_holders_renewal_tries_again_and_leaves_one_holder() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 2, 2);
    let gate = Gate::new(tmp.path());
    let base: &[(&str, &str)] =
        &[("DOCKET_CLAIMS_REMOTE", "origin"), ("DOCKET_CLAIM_TTL", "2s"), ("DOCKET_REMOTE_TIMEOUT", "30")];
    let mut ann = Agent::start(&clones[0], base);
    let (err, t) = ann.call("issues_claim", json!({"id": ID, "assignee": "ann"}));
    assert!(!err, "{t}");
    let bob = held_takeover(&gate, &clones[1], base, "ann's agent is stuck");
    // bob has read ann's record; her server renews it before his push goes.
    let read = record_oid(&origin);
    assert!(eventually(Duration::from_secs(20), || record_oid(&origin) != read), "ann's server renews");
    // Her next renewal would race bob's second try too: she waits while he tries again.
    ann.signal(libc::SIGSTOP);
    std::fs::write(gate.marker("go"), "").expect("go");
    let o = bob.wait_with_output().expect("docket claim ends");
    ann.signal(libc::SIGCONT);
    assert!(o.status.success(), "the takeover is tried again on the renewed record: {}", stderr(&o));
    let now = record(&origin);
    assert!(now.contains("holder bob") && now.contains("takeover from ann: ann's agent is stuck"), "{now}");
    // One holder: ann's server, renewing again, does not win it back, and her writes are fenced.
    let (err, t) = ann.call("issues_update", json!({"id": ID, "description": "mine"}));
    assert!(err && t.contains("now held by bob"), "{t}");
    // Three of her renewal rounds (every third of the lease) later, it is still bob's.
    std::thread::sleep(Duration::from_secs(2));
    let later = record(&origin);
    assert!(later.contains("holder bob"), "{later}");
    // carol finds it bob's: refused while his lease lives, or (on a slow machine, his CLI claim
    // renewed by no server) taken from his lapsed lease, never from ann's.
    let o = docket_in(&clones[0], &["claim", ID, "--as", "carol"], base);
    let after = record(&origin);
    let bobs = match o.status.success() {
        false => stderr(&o).contains("held by bob"),
        true => after.contains("holder carol") && field(&after, "lapsed").starts_with("bob at"),
    };
    assert!(bobs, "{}\n{after}", stderr(&o));
}

#[test]
fn a_takeover_whose_holder_changed_meanwhile_is_refused_naming_the_new_holder() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 2, 3);
    let gate = Gate::new(tmp.path());
    let base: &[(&str, &str)] = &[("DOCKET_CLAIMS_REMOTE", "origin"), ("DOCKET_REMOTE_TIMEOUT", "30")];
    ok_in(&clones[0], &["claim", ID, "--as", "ann"], base);
    let bob = held_takeover(&gate, &clones[1], base, "ann is gone");
    // bob has read ann's record; carol takes it over before his push goes.
    ok_in(&clones[2], &["claim", ID, "--as", "carol", "--force", "ann handed it to me"], base);
    std::fs::write(gate.marker("go"), "").expect("go");
    let o = bob.wait_with_output().expect("docket claim ends");
    assert!(!o.status.success(), "a takeover from ann is not one from carol: {}", String::from_utf8_lossy(&o.stdout));
    assert!(stderr(&o).contains("held by carol"), "{}", stderr(&o));
    let now = record(&origin);
    assert!(now.contains("holder carol") && now.contains("takeover from ann: ann handed it to me"), "{now}");
    assert_eq!(status_of(&clones[1].join(".docket"), ID), "open", "bob wrote nothing");
}

/// ann's write of labels in a linked worktree of `main` (a repository of two tasks), stopped by
/// the fake git right after its gate renewed her claim, before the file is written: the pending
/// answer (with her agent) and the stopped server's pid.
type StoppedWrite = (std::thread::JoinHandle<((bool, String), Agent)>, String);

fn labels_write_stopped_after_its_gate(main: &Path, gate: &Gate, base: &[(&str, &str)]) -> StoppedWrite {
    repo_with_issues(main, ".docket", 2);
    let wt = Layout::Sibling.add(main, "wt");
    let mut ann = Agent::start(&wt, &gate.env(base, "stop-after-renewal"));
    let (err, t) = ann.call("issues_claim", json!({"id": ID, "assignee": "ann"}));
    assert!(!err, "{t}");
    std::fs::write(gate.marker("arm"), "").expect("arm the fake git");
    let writing = std::thread::spawn(move || {
        let answer = ann.call("issues_update", json!({"id": ID, "labels": ["late"]}));
        (answer, ann)
    });
    let stopped = gate.marker("stopped");
    assert!(eventually(Duration::from_secs(20), || stopped.exists()), "the fake git stopped the write");
    (writing, std::fs::read_to_string(&stopped).expect("the stopped pid").trim().to_string())
}

/// Past the lease of a stopped write, bob takes the issue. ann's resumed write must not stand
/// over bob's claim: it is refused and the file put back as bob's claim left it.
#[test]
fn a_write_paused_past_its_lease_between_its_gate_and_its_file_is_undone_when_another_took_the_issue() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (main, gate) = (tmp.path().join("main"), Gate::new(tmp.path()));
    let base: &[(&str, &str)] = &[("DOCKET_CLAIM_TTL", "1s")];
    let (writing, pid) = labels_write_stopped_after_its_gate(&main, &gate, base);
    let files = main.join(".docket");
    let took =
        eventually(Duration::from_secs(20), || docket_in(&main, &["claim", ID, "--as", "bob"], base).status.success());
    assert!(took, "bob takes the issue once ann's lease lapsed");
    let bobs = common::snapshot(&files);
    resume(&pid);
    let ((err, t), _) = writing.join().expect("the write answers");
    assert!(err && t.starts_with("CONFLICT") && t.contains("paused past its lease") && t.contains("undone"), "{t}");
    assert_eq!(common::snapshot(&files), bobs, "the file is as bob's claim left it");
    assert!(record(&main).contains("holder bob"), "bob holds it still");
}

/// While a write is stopped, a merge gives ann's issue's id to another issue (hers renumbered).
/// Resumed, the write must not land on the other issue: refused, naming the id her issue has
/// now, where her claim moved.
#[test]
fn a_holders_write_whose_id_a_merge_gives_to_another_issue_meanwhile_is_refused_naming_the_new_id() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (main, gate) = (tmp.path().join("main"), Gate::new(tmp.path()));
    let (writing, pid) = labels_write_stopped_after_its_gate(&main, &gate, &[]);
    super::renumbered_claims::swap_ids(&main, ID, "ISS-000002");
    let other = common::snapshot(&main.join(".docket"));
    resume(&pid);
    let ((err, t), mut ann) = writing.join().expect("the write answers");
    assert!(err && t.contains("retry with id ISS-000002"), "{t}");
    assert_eq!(common::snapshot(&main.join(".docket")), other, "nothing written to the issue now at {ID}");
    let moved = git(&main, &["cat-file", "blob", "refs/docket/claims/ISS-000002"]);
    assert!(moved.contains("holder ann"), "her claim moved with her issue: {moved}");
    let (err, t) = ann.call("issues_update", json!({"id": "ISS-000002", "labels": ["late"]}));
    assert!(!err && t.contains("task 1"), "the write under the new id is to her issue: {t}");
}

/// A wrangler-style claim (`issues_update` to in_progress with an assignee) takes its record at
/// the gate; a merge that gives the id to another issue before the file is written must not
/// make it a claim of that other issue: refused, nothing written, the record taken back.
#[test]
fn a_wrangler_style_claim_whose_id_a_merge_gives_to_another_issue_before_its_write_is_refused() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (main, gate) = (tmp.path().join("main"), Gate::new(tmp.path()));
    repo_with_issues(&main, ".docket", 2);
    let wt = Layout::Sibling.add(&main, "wt");
    let mut ann = Agent::start(&wt, &gate.env(&[], "stop-after-renewal"));
    std::fs::write(gate.marker("arm"), "").expect("arm the fake git");
    let claiming = std::thread::spawn(move || {
        let answer = ann.call("issues_update", json!({"id": ID, "status": "in_progress", "assignee": "ann"}));
        (answer, ann)
    });
    let stopped = gate.marker("stopped");
    assert!(eventually(Duration::from_secs(20), || stopped.exists()), "the fake git stopped the claim");
    super::renumbered_claims::swap_ids(&main, ID, "ISS-000002");
    let other = common::snapshot(&main.join(".docket"));
    resume(std::fs::read_to_string(&stopped).expect("the stopped pid").trim());
    let ((err, t), _ann) = claiming.join().expect("the claim answers");
    assert!(err && t.contains("names another issue now"), "{t}");
    assert_eq!(common::snapshot(&main.join(".docket")), other, "nothing written to the issue now at {ID}");
    assert!(!has_record(&main, ID), "the claim is taken back");
}
