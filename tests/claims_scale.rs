//! Claims at scale (issue 45): a server renews all its sessions' claims in one round with one
//! git call that writes (one push through a remote), and leaves alone a claim someone else took.
//! Real processes and real git: clones of a local bare remote, and a `git` wrapper on PATH that
//! logs every git the server starts.

use crate::common;
use crate::leases::{Agent, eventually, origin_and_clones};

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
    let bob = ok_in(&clones[1], &["claim", "ISS-000003", "--as", "bob", "--force", "ann is away"], env);
    assert!(bob.contains("Claimed ISS-000003 for bob"), "{bob}");
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
    // And bob's claim still holds against ann's other clone-mates.
    let o = docket_in(&clones[0], &["claim", "ISS-000003", "--as", "carol"], env);
    assert!(!o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
}
