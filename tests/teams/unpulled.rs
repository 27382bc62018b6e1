//! A clone that has not pulled (issue 45): ready and claim judge by the claims remote's default
//! branch as well as by the files. An issue closed there is never offered again, even once its
//! tombstone has ended; an issue created here since the last push is not offered to claim-next
//! (a merge may still renumber it); and a close whose process died between its tombstone and
//! its file is offered again instead of stranding the issue. Real clones of a bare remote.

use crate::common;
use crate::common::many::origin_and_clones;

use std::path::Path;

use common::many::{docket_in, ok_in, serve_in};
use common::{call, git, is_error, text};
use serde_json::json;

const REMOTE: (&str, &str) = ("DOCKET_CLAIMS_REMOTE", "origin");

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn claim_ref(dir: &Path, id: &str) -> Option<String> {
    let name = format!("refs/docket/claims/{id}");
    let out = common::git_command(dir).args(["cat-file", "blob", &name]).output().expect("git runs");
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn push_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A", "--", ".docket"]);
    git(dir, &["commit", "-q", "-m", message]);
    git(dir, &["push", "-q", "origin", "main"]);
}

#[test]
fn a_clone_that_has_not_pulled_is_never_offered_work_closed_on_the_remote() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 3, 2);
    let env = &[REMOTE];
    let (a, b) = (&clones[0], &clones[1]);
    ok_in(a, &["claim", "ISS-000001", "--as", "ann"], env);
    ok_in(a, &["close", "ISS-000001"], env);
    push_all(a, "close ISS-000001");
    // The close is on origin/main: A's doctor ends its tombstone.
    let fixed = ok_in(a, &["doctor", "--fix"], env);
    assert!(fixed.contains("removed the tombstone of ISS-000001"), "{fixed}");
    assert!(claim_ref(&origin, "ISS-000001").is_none());
    // B has not pulled: its files still say open, and the remote's branch says closed.
    let ready = ok_in(b, &["ready"], env);
    assert!(!ready.contains("ISS-000001"), "{ready}");
    assert!(ready.contains("1 more are closed on origin/main"), "{ready}");
    let claim = docket_in(b, &["claim", "ISS-000001", "--as", "bob"], env);
    assert!(!claim.status.success(), "a claim of work closed on origin/main must be refused");
    assert!(
        stderr(&claim).contains("closed on origin/main") && stderr(&claim).contains("git pull"),
        "{}",
        stderr(&claim)
    );
    let next = ok_in(b, &["claim", "--next", "--as", "bob"], env);
    assert!(next.contains("ISS-000002") && !next.contains("ISS-000001"), "{next}");
}

#[test]
fn an_issue_created_since_the_last_push_is_claimed_next_only_once_pushed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (_origin, clones) = origin_and_clones(tmp.path(), 2, 1);
    let env = &[REMOTE];
    let a = &clones[0];
    ok_in(a, &["claim", "ISS-000001", "--as", "ann"], env);
    ok_in(a, &["claim", "ISS-000002", "--as", "bob"], env);
    let created = ok_in(a, &["create", "--title", "found while working", "--priority", "critical"], env);
    assert!(created.contains("ISS-000003"), "{created}");
    let ready = ok_in(a, &["ready"], env);
    assert!(ready.contains("not on origin/main yet") && !ready.contains("ISS-000003 "), "{ready}");
    let next = docket_in(a, &["claim", "--next", "--as", "cy"], env);
    let said = format!("{}{}", String::from_utf8_lossy(&next.stdout), stderr(&next));
    assert!(!said.contains("Claimed ISS-000003"), "claim-next took an id a merge may still renumber: {said}");
    push_all(a, "the new issue");
    let next = ok_in(a, &["claim", "--next", "--as", "cy"], env);
    assert!(next.contains("ISS-000003"), "{next}");
}

/// Pushes `text` as the claim record of `id` from clone `dir`, over whatever is there.
fn push_record(dir: &Path, id: &str, text: &str) {
    use std::io::Write;
    let mut hash = common::git_command(dir);
    hash.args(["hash-object", "-w", "--stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = hash.spawn().expect("git");
    child.stdin.take().expect("stdin").write_all(text.as_bytes()).expect("write");
    let oid = String::from_utf8(child.wait_with_output().expect("git").stdout).expect("utf-8").trim().to_string();
    git(dir, &["push", "-q", "--force", "origin", &format!("{oid}:refs/docket/claims/{id}")]);
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").expect("hostname").trim().replace(':', "_")
}

fn ago(secs: i64) -> String {
    (chrono::Utc::now() - chrono::Duration::seconds(secs)).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The soak's stranded issue: a close killed between its tombstone and its file in clone A was
/// offered again only in A, so B's agents (and B's ready) never saw it free. A holder's close now
/// pushes its tombstone with the time its file must be written by, and clears it once written:
/// every clone tells a dead close from a finished one that is not pulled yet.
#[tokio::test(flavor = "multi_thread")]
async fn a_close_that_died_in_another_clone_is_offered_there_and_a_finished_one_is_not() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 3, 2);
    let env = [REMOTE, ("DOCKET_CLAIM_TTL", "1s")];
    let (a, b) = (&clones[0], &clones[1]);
    // A close that finished in A (by its holder's session), not pushed: its record says so.
    let ann = serve_in(a, &env).await;
    let claimed = call(&ann, "issues_claim", json!({"id": "ISS-000001", "assignee": "ann"})).await;
    assert!(!is_error(&claimed), "{}", text(&claimed));
    let closed = call(&ann, "issues_update", json!({"id": "ISS-000001", "status": "closed"})).await;
    assert!(!is_error(&closed), "{}", text(&closed));
    let record = claim_ref(&origin, "ISS-000001").expect("a tombstone");
    assert!(record.contains("state closed") && !record.contains("\nlease "), "a finished close: {record}");
    // A close killed in A after its tombstone: the file was to be written by 5 s ago.
    let top = a.canonicalize().expect("canonical");
    let dead = format!(
        "docket claim\nissue ISS-000002\nholder ann\ntaken {}\nlease {}\nstate closed\nat {}:{}\n",
        ago(7),
        ago(5),
        hostname(),
        top.display()
    );
    push_record(a, "ISS-000002", &dead);
    // Both tombstones are older than a lease and its skew.
    tokio::time::sleep(std::time::Duration::from_millis(1600)).await;
    let ready = ok_in(b, &["ready"], &env);
    assert!(ready.contains("ISS-000002") && ready.contains("did not finish"), "B offers the dead close: {ready}");
    assert!(!ready.contains("ISS-000001 "), "B does not offer the finished close it has not pulled: {ready}");
    let next = ok_in(b, &["claim", "--next", "--as", "bob"], &env);
    assert!(next.contains("ISS-000002"), "claim-next takes the dead close's issue: {next}");
    let refused = docket_in(b, &["claim", "ISS-000001", "--as", "bob"], &env);
    assert!(
        !refused.status.success(),
        "the finished close is not claimable: {}",
        String::from_utf8_lossy(&refused.stdout)
    );
    assert!(stderr(&refused).contains("closed by ann"), "{}", stderr(&refused));
}

#[test]
fn a_close_whose_process_died_before_its_file_was_written_is_offered_again() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 2, 1);
    let env = &[REMOTE, ("DOCKET_CLAIM_TTL", "1s")];
    let a = &clones[0];
    ok_in(a, &["claim", "ISS-000001", "--as", "ann"], env);
    // What a server killed inside its close leaves: the tombstone on the remote (written first),
    // and the file still in progress. Ten seconds ago, in this clone.
    let top = a.canonicalize().expect("canonical");
    let tomb = format!(
        "docket claim\nissue ISS-000001\nholder ann\ntaken {}\nstate closed\nat {}:{}\n",
        ago(10),
        hostname(),
        top.display()
    );
    push_record(a, "ISS-000001", &tomb);
    let ready = ok_in(a, &["ready"], env);
    assert!(ready.contains("ISS-000001") && ready.contains("did not finish"), "{ready}");
    let claimed = ok_in(a, &["claim", "ISS-000001", "--as", "bob"], env);
    assert!(claimed.contains("ISS-000001"), "{claimed}");
    let record = claim_ref(&origin, "ISS-000001").expect("a record");
    assert!(record.contains("holder bob") && !record.contains("state closed"), "{record}");
    let shown = ok_in(a, &["show", "ISS-000001"], env);
    assert!(shown.contains("did not finish"), "the hand-over is recorded in the issue: {shown}");
}
