//! Claims at scale (issue 45): a server renews all its sessions' claims in one round with one
//! git call that writes (one push through a remote), and leaves alone a claim someone else took.
//! Real processes and real git: clones of a local bare remote, and a `git` wrapper on PATH that
//! logs every git the server starts.

use crate::common;
use crate::common::many::origin_and_clones;
use crate::teams::leases::{Agent, eventually};

use std::path::Path;
use std::time::Duration;

use common::git;
use common::many::{docket_in, ok_in};
use serde_json::json;

/// A folder with a `git` that logs its arguments (one line per run) to `log`, then runs git.
fn logging_git(dir: &Path, log: &Path) -> String {
    let real = std::process::Command::new("sh").args(["-c", "command -v git"]).output().expect("sh");
    let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
    assert!(!real.is_empty(), "git on PATH");
    std::fs::create_dir_all(dir).expect("mkdir");
    let script = format!("#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\nexec '{real}' \"$@\"\n", log.display());
    let path = dir.join("git");
    std::fs::write(&path, script).expect("write the wrapper");
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    format!("{}:{}", dir.display(), std::env::var("PATH").unwrap_or_default())
}

fn pushes(log: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines().filter(|l| l.contains(" push --porcelain ")).map(str::to_string).collect()
}

fn lease_of(origin: &Path, id: &str) -> String {
    let blob = git(origin, &["cat-file", "blob", &format!("refs/docket/claims/{id}")]);
    blob.lines().find_map(|l| l.strip_prefix("lease ")).unwrap_or_default().to_string()
}

#[test]
fn one_renewal_round_is_one_push_and_a_claim_someone_took_is_not_renewed() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 5, 2);
    let log = tmp.path().join("git.log");
    let path = logging_git(&tmp.path().join("bin"), &log);
    let env: &[(&str, &str)] = &[("DOCKET_CLAIMS_REMOTE", "origin"), ("DOCKET_CLAIM_TTL", "3s")];
    let ann_env: Vec<(&str, &str)> = env.iter().copied().chain([("PATH", path.as_str())]).collect();
    let mut ann = Agent::start(&clones[0], &ann_env);
    let ids = ["ISS-000001", "ISS-000002", "ISS-000003", "ISS-000004"];
    for id in ids {
        let (err, t) = ann.call("issues_claim", json!({"id": id, "assignee": "ann"}));
        assert!(!err, "{t}");
    }
    // bob takes ISS-000003 over in another clone: it is his now.
    // (A takeover that loses its compare-and-set to one of ann's renewals is refused: again.)
    let takeover = || docket_in(&clones[1], &["claim", "ISS-000003", "--as", "bob", "--force", "ann is away"], env);
    assert!(eventually(Duration::from_secs(20), || takeover().status.success()), "bob takes ISS-000003 over");
    let leases: Vec<String> = ids.iter().map(|id| lease_of(&origin, id)).collect();
    std::fs::write(&log, "").expect("truncate the log");
    // A round already under way may have listed before bob's takeover: the rounds after it count.
    assert!(eventually(Duration::from_secs(30), || pushes(&log).len() >= 4), "renewals push: {:?}", pushes(&log));
    let rounds = pushes(&log);
    for push in &rounds[1..] {
        for id in ["ISS-000001", "ISS-000002", "ISS-000004"] {
            assert!(
                push.contains(&format!("--force-with-lease=refs/docket/claims/{id}:")),
                "each renewal push carries every claim of ann's: {push}"
            );
        }
        assert!(!push.contains("claims/ISS-000003"), "bob's claim is not renewed: {push}");
    }
    for (i, id) in ids.iter().enumerate() {
        let now = lease_of(&origin, id);
        match *id {
            "ISS-000003" => assert_eq!(now, leases[i], "bob's record untouched"),
            _ => assert!(now > leases[i], "{id} renewed: {} then {now}", leases[i]),
        }
    }
    let record = git(&origin, &["cat-file", "blob", "refs/docket/claims/ISS-000003"]);
    assert!(record.contains("holder bob"), "{record}");
    // Not renewed, but not forgotten: ann's write to it is refused (fencing).
    let (err, t) = ann.call("issues_update", json!({"id": "ISS-000003", "status": "closed"}));
    assert!(err && t.contains("now held by bob"), "{t}");
}

/// Puts a claim of `id` with `text` (a claim blob) on the bare `origin`, as another clone would.
fn claim_on_origin(origin: &Path, id: &str, text: &str) {
    let mut cmd = common::git_command(origin);
    cmd.args(["hash-object", "-w", "--stdin"]).stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped());
    let mut child = cmd.spawn().expect("git");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), text.as_bytes()).expect("write");
    let out = child.wait_with_output().expect("git");
    let oid = String::from_utf8_lossy(&out.stdout).trim().to_string();
    git(origin, &["update-ref", &format!("refs/docket/claims/{id}"), &oid]);
}

#[test]
fn doctor_calls_a_live_claim_of_another_clone_a_note_however_old_it_is() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 2, 1);
    // Taken years ago in another clone, never pushed, but its holder's server still renews it.
    let text = "docket claim\nissue ISS-000001\nholder ann\nsession 1-abc\ntaken 2020-01-01T00:00:00Z\nlease 2099-01-01T00:00:00Z\nat elsewhere:/work\n";
    claim_on_origin(&origin, "ISS-000001", text);
    let env: &[(&str, &str)] = &[("DOCKET_CLAIMS_REMOTE", "origin")];
    let doctor = docket_in(&clones[0], &["doctor"], env);
    let out = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(0), "a live lease is someone at work, not an interrupted claim: {out}");
    assert!(out.contains("ISS-000001 is claimed in another clone"), "{out}");
}

#[test]
fn doctor_calls_another_clones_claim_interrupted_once_its_lease_lapsed_with_the_issue_open_upstream() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (origin, clones) = origin_and_clones(tmp.path(), 2, 2);
    let (a, b) = (&clones[0], &clones[1]);
    let env: &[(&str, &str)] = &[("DOCKET_CLAIMS_REMOTE", "origin"), ("DOCKET_CLAIM_TTL", "1s")];
    ok_in(a, &["claim", "ISS-000001", "--as", "ann"], env);
    // Nobody renews a CLI claim: once its lease (and the skew tolerated) passed, ann has stopped,
    // and the remote-tracking branch of b still shows the issue open: her file was never pushed.
    let lapsed = || {
        let o = docket_in(b, &["doctor"], env);
        (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned())
    };
    // Exit 3: a problem for a person (nothing to repair by writing).
    assert!(eventually(Duration::from_secs(20), || lapsed().0 == Some(3)), "{:?}", lapsed());
    let (_, out) = lapsed();
    assert!(out.contains("ISS-000001") && out.contains("lease lapsed") && out.contains("interrupted"), "{out}");
    // b read ann's claim object by its id: no ref of it written in b.
    assert_eq!(git(b, &["for-each-ref", "refs/docket/"]), "", "doctor writes no refs");
    // Nothing of it is repaired by writing: the ref stays, b's files stay, and the issue is ready.
    let before = common::snapshot(&b.join(".docket/issues"));
    let fixed = docket_in(b, &["doctor", "--fix"], env);
    assert!(!String::from_utf8_lossy(&fixed.stdout).contains("removed the claim ref"));
    assert_eq!(common::snapshot(&b.join(".docket/issues")), before);
    assert!(git(&origin, &["cat-file", "blob", "refs/docket/claims/ISS-000001"]).contains("holder ann"));
    assert!(ok_in(b, &["ready"], env).contains("ISS-000001"));
    // Once ann's clone pushes the claim (in_progress upstream), it is no longer interrupted there.
    git(a, &["add", "-A"]);
    git(a, &["commit", "-qm", "ann's claim"]);
    git(a, &["push", "-q"]);
    git(b, &["pull", "-q", "--no-rebase"]);
    let o = docket_in(b, &["doctor"], env);
    assert!(!String::from_utf8_lossy(&o.stdout).contains("interrupted"), "{}", String::from_utf8_lossy(&o.stdout));
}
