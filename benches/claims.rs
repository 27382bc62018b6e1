//! Claims through a shared remote (issue 38): a clone of a local bare repository serves MCP over
//! stdio with `DOCKET_CLAIMS_REMOTE=origin`; times issues_claim (a create-only push each),
//! issues_ready while the remote's claim list is reused (warm) and right after a claim (one
//! `git ls-remote`), and the same two calls without a remote for comparison. Prints a markdown
//! table of medians and 95th percentiles, client round trips. It asserts nothing.
//!
//! Run: `cargo bench --bench claims` (release), or `cargo test --release --bench claims`; another
//! binary: `DOCKET_BIN=path`.

// Shared with benches/stdio.rs, which uses the server times, memory and token counts this bench does not.
#[allow(dead_code)]
mod common;

use std::path::Path;
use std::process::Command;

use common::Server;
use serde_json::{Value, json};

const ISSUES: usize = 500;
const CLAIMS: usize = 40;

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.invalid")
        .env("GIT_COMMITTER_NAME", "Bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.invalid")
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "git {args:?} failed in {}", dir.display());
}

fn quantiles(mut samples: Vec<f64>) -> (f64, f64) {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95))
}

/// The ids of up to `n` ready issues.
fn ready_ids(server: &mut Server, n: usize) -> Vec<String> {
    let ready = server.call("issues_ready", json!({"limit": 100}));
    let rows = ready.result["structuredContent"]["rows"].as_array().cloned().unwrap_or_default();
    rows.iter().filter_map(Value::as_str).filter_map(|r| r.split(' ').next()).take(n).map(str::to_string).collect()
}

/// Medians and p95 of: a claim, issues_ready warm, issues_ready right after a claim.
fn measure(server: &mut Server) -> [(f64, f64); 3] {
    let ids = ready_ids(server, CLAIMS * 2);
    assert!(ids.len() >= CLAIMS * 2, "not enough ready issues: {}", ids.len());
    let (mut claim, mut warm, mut after) = (Vec::new(), Vec::new(), Vec::new());
    for (i, id) in ids.iter().enumerate().take(CLAIMS) {
        claim.push(server.call("issues_claim", json!({"id": id, "assignee": format!("bench-{i}")})).client_ms);
        after.push(server.call("issues_ready", json!({})).client_ms);
        for _ in 0..3 {
            warm.push(server.call("issues_ready", json!({})).client_ms);
        }
    }
    [quantiles(claim), quantiles(warm), quantiles(after)]
}

fn main() {
    let bin =
        std::env::var_os("DOCKET_BIN").map_or_else(|| env!("CARGO_BIN_EXE_docket").into(), std::path::PathBuf::from);
    let tmp = tempfile::tempdir().expect("tmp");
    let seed = tmp.path().join("seed");
    std::fs::create_dir_all(&seed).expect("mkdir");
    git(&seed, &["init", "-q", "-b", "main"]);
    docket::store::generate::generate_workspace(&seed, ISSUES, 7);
    git(&seed, &["add", "-A"]);
    git(&seed, &["commit", "-q", "-m", "workspace"]);
    let origin = tmp.path().join("origin.git");
    git(tmp.path(), &["clone", "-q", "--bare", seed.to_str().expect("utf-8"), origin.to_str().expect("utf-8")]);
    let mut rows = Vec::new();
    for (label, remote) in [("claims_remote = origin (local bare repository)", true), ("no claims remote", false)] {
        let clone = tmp.path().join(if remote { "remote" } else { "alone" });
        git(tmp.path(), &["clone", "-q", origin.to_str().expect("utf-8"), clone.to_str().expect("utf-8")]);
        let mut cmd = Command::new(&bin);
        cmd.arg("serve").current_dir(&clone).env_remove("DOCKET_WORKSPACE").env_remove("WRANGLER_WORKSPACE_ROOT");
        cmd.env("GIT_CONFIG_NOSYSTEM", "1").env("GIT_CONFIG_GLOBAL", "/dev/null");
        if remote {
            cmd.env("DOCKET_CLAIMS_REMOTE", "origin");
        } else {
            cmd.env_remove("DOCKET_CLAIMS_REMOTE");
        }
        let (mut server, _) = Server::spawn(cmd);
        rows.push((label, measure(&mut server)));
    }
    println!("{ISSUES} issues, {CLAIMS} claims; client round trips over stdio, ms (median / p95)\n");
    println!("| | issues_claim | issues_ready, warm | issues_ready after a claim |");
    println!("|---|---|---|---|");
    for (label, [c, w, a]) in rows {
        println!("| {label} | {:.1} / {:.1} | {:.2} / {:.2} | {:.1} / {:.1} |", c.0, c.1, w.0, w.1, a.0, a.1);
    }
}
