//! Claims at scale (issues 38 and 45), release build: claim, claim-next, release, close and one renewal
//! round, with the claim records in the common git directory (a server in a linked worktree) and
//! on a claims remote (a clone of a local bare repository, `DOCKET_CLAIMS_REMOTE=origin`);
//! `issues_ready` warm with 1,000 live leases; and the pushes a serving agent makes for its
//! renewals (counted by a `git` wrapper on PATH over a run with a short lease). Claim, claim-next,
//! release, close and ready are client round trips over stdio; a renewal round is
//! `Store::renew_sessions` in this process (the serving thread's work, no call from a client).
//! Prints markdown tables of medians and 95th percentiles. It asserts nothing.
//!
//! Run: `cargo bench --bench claims` (release), or `cargo test --release --bench claims`; another
//! binary: `DOCKET_BIN=path`.

// Shared with benches/stdio.rs, which uses the server times, memory and token counts this bench does not.
#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use common::Server;
use serde_json::{Value, json};

const ISSUES: usize = 1_500;
const CLAIMS: usize = 30;
/// Live leases for the ready measurement.
const LEASES: usize = 1_000;
/// Claims held while renewal rounds are timed, and how many rounds.
const HELD: [usize; 3] = [1, 10, 50];
const ROUNDS: usize = 15;
/// The short lease of the renewal-rate run, and how long it runs.
const SHORT_TTL_S: u64 = 3;
const RATE_RUN_S: u64 = 30;

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

/// The server command for `dir`, with the claims remote or without.
fn serve(bin: &Path, dir: &Path, remote: bool, env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(bin);
    cmd.arg("serve").current_dir(dir).env_remove("DOCKET_WORKSPACE").env_remove("WRANGLER_WORKSPACE_ROOT");
    cmd.env("GIT_CONFIG_NOSYSTEM", "1").env("GIT_CONFIG_GLOBAL", "/dev/null").env_remove("DOCKET_CLAIM_TTL");
    match remote {
        true => cmd.env("DOCKET_CLAIMS_REMOTE", "origin"),
        false => cmd.env_remove("DOCKET_CLAIMS_REMOTE"),
    };
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// A new clone of `origin` (and, for the common git directory, a linked worktree of it): the
/// directory to serve.
fn place(tmp: &Path, origin: &Path, name: &str, remote: bool) -> PathBuf {
    let clone = tmp.join(name);
    git(tmp, &["clone", "-q", origin.to_str().expect("utf-8"), clone.to_str().expect("utf-8")]);
    if remote {
        return clone;
    }
    let wt = tmp.join(format!("{name}-wt"));
    git(&clone, &["worktree", "add", "-q", "-b", &format!("{name}-wt"), wt.to_str().expect("utf-8")]);
    wt
}

/// Medians and p95 of: a claim by id, a claim of the next ready issue, a release, and the
/// holder's close of the issue claim-next took (its tombstone pushed before the file is written,
/// its lease cleared after).
fn measure(server: &mut Server) -> [(f64, f64); 4] {
    // Claims by id from the end of the ready list; claim-next takes from its start.
    let ids = ready_ids(server, 100);
    assert!(ids.len() >= CLAIMS * 2, "not enough ready issues: {}", ids.len());
    let ids: Vec<String> = ids.into_iter().rev().take(CLAIMS).collect();
    let (mut claim, mut next, mut release, mut close) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, id) in ids.iter().enumerate() {
        let who = format!("bench-{i}");
        let c = server.call("issues_claim", json!({"id": id, "assignee": who}));
        assert!(c.result["isError"] != json!(true), "claim: {}", c.result);
        claim.push(c.client_ms);
        let n = server.call("issues_claim", json!({"assignee": format!("next-{i}")}));
        assert!(n.result["isError"] != json!(true), "claim-next: {}", n.result);
        next.push(n.client_ms);
        let r = server.call("issues_claim", json!({"id": id, "assignee": who, "release": true}));
        assert!(r.result["isError"] != json!(true), "release: {}", r.result);
        release.push(r.client_ms);
        let taken =
            n.result["structuredContent"]["issue"]["id"].as_str().expect("claim-next names its issue").to_string();
        let d = server.call("issues_update", json!({"id": taken, "status": "closed"}));
        assert!(d.result["isError"] != json!(true), "close: {}", d.result);
        close.push(d.client_ms);
    }
    [quantiles(claim), quantiles(next), quantiles(release), quantiles(close)]
}

/// One renewal round (`Store::renew_sessions`) with `held` claims of one session, medians/p95.
fn renewal(dir: &Path, remote: bool, held: usize) -> (f64, f64) {
    use docket::store::{Store, StoreOptions, Workspace, holder};
    let ws = Workspace::discover(dir).expect("the workspace");
    let store = Store::open(ws, StoreOptions::default()).with_claims_remote(remote.then(|| "origin".to_string()));
    let session = store.open_session();
    let ids: Vec<String> = {
        let snap = store.ready_claimable(&Default::default(), None, 0, held).expect("ready").0;
        snap.value.issues.iter().map(|(m, _)| m.id.clone()).collect()
    };
    assert_eq!(ids.len(), held, "ready issues to hold");
    holder::within(Some(session.clone()), || {
        for id in &ids {
            store.claim_with(id, "renewer", None).expect("claim");
        }
    });
    let mut times = Vec::new();
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let renewed = store.renew_sessions();
        times.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(renewed, held, "every claim renewed");
    }
    quantiles(times)
}

/// `LEASES` live claims (lease in 2099) of issues ISS-000001.. written as refs in `dir`'s
/// repository, and pushed to origin when `remote`.
fn leases(tmp: &Path, dir: &Path, remote: bool) {
    let blobs = tmp.join("lease-blobs");
    std::fs::create_dir_all(&blobs).expect("mkdir");
    let mut paths = String::new();
    for n in 1..=LEASES {
        let p = blobs.join(n.to_string());
        let text = format!(
            "docket claim\nissue ISS-{n:06}\nholder agent-{n}\nsession 1-{n:08x}\ntaken 2026-01-01T00:00:00Z\nlease 2099-01-01T00:00:00.000Z\nat elsewhere:/work\n"
        );
        std::fs::write(&p, text).expect("write");
        paths.push_str(&format!("{}\n", p.display()));
    }
    let oids = run(dir, &["hash-object", "-w", "--stdin-paths"], &paths);
    let updates: String = oids
        .lines()
        .enumerate()
        .map(|(i, oid)| format!("update refs/docket/claims/ISS-{:06} {oid}\n", i + 1))
        .collect();
    run(dir, &["update-ref", "--stdin"], &updates);
    if remote {
        git(dir, &["push", "-q", "origin", "+refs/docket/claims/*:refs/docket/claims/*"]);
        let local = run(dir, &["for-each-ref", "--format=delete %(refname)", "refs/docket/claims/"], "");
        run(dir, &["update-ref", "--stdin"], &local);
    }
}

fn run(dir: &Path, args: &[&str], input: &str) -> String {
    use std::io::Write;
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("git");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("git");
    let _ = writer.join();
    assert!(out.status.success(), "git {args:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// issues_ready with `LEASES` live leases of other agents: the first call, then warm (median/p95).
fn ready_with_leases(bin: &Path, dir: &Path, remote: bool) -> (f64, (f64, f64), usize) {
    let (mut server, _) = Server::spawn(serve(bin, dir, remote, &[]));
    let first = server.call("issues_ready", json!({}));
    let shown = first.result["structuredContent"].to_string().len();
    let mut warm = Vec::new();
    for _ in 0..30 {
        warm.push(server.call("issues_ready", json!({})).client_ms);
    }
    (first.client_ms, quantiles(warm), shown)
}

/// Pushes and listings a serving agent holding `held` claims makes over `RATE_RUN_S` seconds
/// with a lease of `SHORT_TTL_S`, counted by a `git` wrapper on PATH.
fn renewal_rate(bin: &Path, tmp: &Path, dir: &Path, held: usize) -> (usize, usize) {
    let wrapper = tmp.join("wrapper");
    std::fs::create_dir_all(&wrapper).expect("mkdir");
    let log = tmp.join("git.log");
    let real = Command::new("sh").args(["-c", "command -v git"]).output().expect("sh");
    let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
    let script = format!("#!/bin/sh\nprintf '%s\\n' \"$*\" >> '{}'\nexec '{real}' \"$@\"\n", log.display());
    std::fs::write(wrapper.join("git"), script).expect("write");
    std::fs::set_permissions(wrapper.join("git"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let path = format!("{}:{}", wrapper.display(), std::env::var("PATH").unwrap_or_default());
    let ttl = format!("{SHORT_TTL_S}s");
    let env = [("PATH", path.as_str()), ("DOCKET_CLAIM_TTL", ttl.as_str())];
    let (mut server, _) = Server::spawn(serve(bin, dir, true, &env));
    for i in 0..held {
        let c = server.call("issues_claim", json!({"assignee": format!("rate-{i}")}));
        assert!(c.result["isError"] != json!(true), "claim-next: {}", c.result);
    }
    std::fs::write(&log, "").expect("truncate");
    std::thread::sleep(std::time::Duration::from_secs(RATE_RUN_S));
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let pushes = text.lines().filter(|l| l.contains(" push --porcelain ")).count();
    let lists = text.lines().filter(|l| l.contains(" ls-remote ")).count();
    drop(server);
    (pushes, lists)
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
    let places =
        [("common git directory (a linked worktree)", false), ("claims_remote = origin (local bare repository)", true)];
    let mut calls = Vec::new();
    let mut rounds = Vec::new();
    let mut ready = Vec::new();
    for (i, (label, remote)) in places.iter().enumerate() {
        let dir = place(tmp.path(), &origin, &format!("calls-{i}"), *remote);
        let (mut server, _) = Server::spawn(serve(&bin, &dir, *remote, &[]));
        calls.push((label, measure(&mut server)));
        drop(server);
        for held in HELD {
            let dir = place(tmp.path(), &origin, &format!("renew-{i}-{held}"), *remote);
            rounds.push((label, held, renewal(&dir, *remote, held)));
        }
        let dir = place(tmp.path(), &origin, &format!("ready-{i}"), *remote);
        leases(tmp.path(), &dir, *remote);
        ready.push((label, ready_with_leases(&bin, &dir, *remote)));
        if *remote {
            // The other places of this remote see these leases too: clean them for the next.
            let refs = run(&origin, &["for-each-ref", "--format=delete %(refname)", "refs/docket/claims/"], "");
            run(&origin, &["update-ref", "--stdin"], &refs);
        }
    }
    let rate_dir = place(tmp.path(), &origin, "rate", true);
    let (pushes, lists) = renewal_rate(&bin, tmp.path(), &rate_dir, 5);

    println!("{ISSUES} issues; client round trips over stdio, ms (median / p95), {CLAIMS} of each\n");
    println!("| claim records | issues_claim (id) | claim-next (no id) | release | the holder's close |");
    println!("|---|---|---|---|---|");
    for (label, [c, n, r, d]) in &calls {
        println!(
            "| {label} | {:.1} / {:.1} | {:.1} / {:.1} | {:.1} / {:.1} | {:.1} / {:.1} |",
            c.0, c.1, n.0, n.1, r.0, r.1, d.0, d.1
        );
    }
    println!("\nOne renewal round (`Store::renew_sessions`), ms (median / p95) of {ROUNDS}\n");
    println!("| claim records | claims held | one round |");
    println!("|---|---|---|");
    for (label, held, (m, p)) in &rounds {
        println!("| {label} | {held} | {m:.1} / {p:.1} |");
    }
    println!("\nissues_ready with {LEASES} live leases of other agents, ms\n");
    println!("| claim records | first call | warm (median / p95 of 30) |");
    println!("|---|---|---|");
    for (label, (first, (m, p), _)) in &ready {
        println!("| {label} | {first:.1} | {m:.2} / {p:.2} |");
    }
    println!(
        "\nRenewals through the remote: 5 claims held, lease {SHORT_TTL_S} s, {RATE_RUN_S} s: {pushes} pushes, {lists} ls-remote"
    );
}
