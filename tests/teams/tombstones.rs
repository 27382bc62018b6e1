//! Tombstones that end (issue 45). A close leaves a tombstone ("closed by ann at T") that ready
//! and claim honour until the close can be seen where the other checkouts look: for clones, the
//! remote-tracking branch of the remote's default branch; for `worktrees: local`, the branch of
//! the main checkout; outside git, the files. Then ready (or `docket doctor --fix`) removes it,
//! compare-and-set; one whose close is not visible yet stays. Real clones of a bare remote, real
//! linked worktrees, real git.

use crate::common;
use crate::common::many::origin_and_clones;

use std::path::Path;

use common::git;
use common::many::{Layout, docket_in, ok_in, repo_with_issues};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The claim ref of `id` in the repository at `dir` (a bare remote or any checkout), if any.
fn claim_ref(dir: &Path, id: &str) -> Option<String> {
    let name = format!("refs/docket/claims/{id}");
    let out = common::git_command(dir).args(["cat-file", "blob", &name]).output().expect("git runs");
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Commits the files of issue `id` (in issues/ and issues/archived/) and nothing else.
fn commit_issue(dir: &Path, id: &str, message: &str) {
    git(dir, &["add", "-A", "--", &format!(".docket/issues/{id}-*"), &format!(".docket/issues/archived/{id}-*")]);
    git(dir, &["commit", "-q", "-m", message]);
}

#[test]
fn a_tombstone_ends_once_the_close_is_on_the_remote_tracking_branch_and_not_before() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 3, 2);
    let env: &[(&str, &str)] = &[("DOCKET_CLAIMS_REMOTE", "origin")];
    let (a, b) = (&clones[0], &clones[1]);
    for id in ["ISS-000001", "ISS-000002"] {
        ok_in(a, &["claim", id, "--as", "ann"], env);
        ok_in(a, &["close", id], env);
        let tomb = claim_ref(&origin, id).expect("a tombstone on the remote");
        assert!(tomb.contains("state closed") && tomb.contains("holder ann"), "{tomb}");
    }
    // Nobody can see either close yet: ready and doctor --fix leave both tombstones.
    ok_in(a, &["ready"], env);
    ok_in(b, &["ready"], env);
    let fixed = docket_in(a, &["doctor", "--fix"], env);
    assert!(!stderr(&fixed).contains("tombstone") && !String::from_utf8_lossy(&fixed.stdout).contains("tombstone"));
    assert!(claim_ref(&origin, "ISS-000001").is_some() && claim_ref(&origin, "ISS-000002").is_some());
    // ISS-000001's close reaches origin/main (A pushes, B pulls); ISS-000002's does not.
    commit_issue(a, "ISS-000001", "close ISS-000001");
    git(a, &["push", "-q", "origin", "main"]);
    git(b, &["pull", "-q", "--no-rebase", "origin", "main"]);
    ok_in(b, &["ready"], env);
    assert!(claim_ref(&origin, "ISS-000001").is_none(), "its close is on origin/main: the tombstone is gone");
    assert!(claim_ref(&origin, "ISS-000002").is_some(), "a close not visible yet keeps its tombstone");
    let late = docket_in(b, &["claim", "ISS-000002", "--as", "bob"], env);
    assert!(!late.status.success() && stderr(&late).contains("closed by ann"), "{}", stderr(&late));
    // Once ISS-000002's close is pushed too, doctor --fix ends its tombstone and says so.
    commit_issue(a, "ISS-000002", "close ISS-000002");
    git(a, &["push", "-q", "origin", "main"]);
    let fixed = ok_in(a, &["doctor", "--fix"], env);
    assert!(fixed.contains("removed the tombstone of ISS-000002") && fixed.contains("origin/main"), "{fixed}");
    assert!(claim_ref(&origin, "ISS-000002").is_none());
}

#[test]
fn between_local_worktrees_a_tombstone_ends_once_the_main_checkout_has_the_close() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = tmp.path().join("main");
    repo_with_issues(&main, ".docket", 3);
    let wt = Layout::Sibling.add(&main, "a");
    let local: &[(&str, &str)] = &[("DOCKET_WORKTREES", "local")];
    ok_in(&wt, &["claim", "ISS-000001", "--as", "ann"], local);
    ok_in(&wt, &["close", "ISS-000001"], local);
    assert!(claim_ref(&main, "ISS-000001").is_some_and(|t| t.contains("state closed")));
    // Committed on the worktree's branch only: the main checkout still says open.
    commit_issue(&wt, "ISS-000001", "close ISS-000001");
    ok_in(&wt, &["ready"], local);
    assert!(claim_ref(&main, "ISS-000001").is_some(), "main does not show the close yet");
    let other = docket_in(&main, &["claim", "ISS-000001", "--as", "bob"], local);
    assert!(!other.status.success() && stderr(&other).contains("closed by ann"), "{}", stderr(&other));
    git(&main, &["merge", "-q", "--no-edit", "a"]);
    ok_in(&wt, &["ready"], local);
    assert!(claim_ref(&main, "ISS-000001").is_none(), "the main checkout has the close: the tombstone is gone");
    // A tombstone older than the bound goes whatever the branches say.
    let old = "docket claim\nissue ISS-000002\nholder ann\ntaken 2020-01-01T00:00:00.000Z\nstate closed\n";
    let out = common::git_command(&main)
        .args(["hash-object", "-w", "--stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            std::io::Write::write_all(c.stdin.as_mut().expect("stdin"), old.as_bytes())?;
            c.wait_with_output()
        })
        .expect("hash-object");
    let oid = String::from_utf8_lossy(&out.stdout).trim().to_string();
    git(&main, &["update-ref", "refs/docket/claims/ISS-000002", &oid]);
    let fixed = ok_in(&main, &["doctor", "--fix"], local);
    assert!(fixed.contains("removed the tombstone of ISS-000002") && fixed.contains("older than 7 days"), "{fixed}");
    assert!(claim_ref(&main, "ISS-000002").is_none());
    ok_in(&wt, &["claim", "ISS-000002", "--as", "carol"], local);
}
