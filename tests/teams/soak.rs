//! The soak (issue 45): agents as they really work, all at once. A local bare origin with
//! generated issues, three clones of it (each with `docket git-setup` and a linked worktree) and
//! `claims_remote: origin` committed in the workspace's config, a short lease. Two real
//! `docket serve` processes per checkout (twelve MCP sessions over stdio) loop claim-next ->
//! maybe a write -> close (issues_update or issues_mark_complete) -> sometimes a follow-up
//! issue, while each clone commits, pulls (docket's hooks run) and pushes every couple of
//! seconds, and every few seconds an agent is killed (SIGKILL, then a new session) or paused
//! (SIGSTOP past its lease, then SIGCONT; its fenced writes are refused, which is right).
//!
//! At the end the agents stop, the clones pull and push until they agree, one agent finishes
//! what is left, and the invariants are checked from the files and the servers' answers: no
//! issue closed by two agents, no claim of work already closed (unless the answer itself came
//! after the lease it states had lapsed: a pause just before the answer), none stranded, no id held by two
//! files, every issue (generated or created) present exactly once by `docketKey` and by title,
//! and every clone showing the same set. The counts are printed (`--nocapture`), never asserted.
//!
//! `DOCKET_SOAK_SECS` (default 15) is how long the agents work; `DOCKET_SOAK_ISSUES` (40) how
//! many issues there are to start with; `DOCKET_SOAK_SEED` varies the kills, pauses and pauses'
//! victims; `DOCKET_SOAK_KEEP=1` keeps the folders (and each server's stderr) for a post-mortem.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::many::{Layout, commit_all, docket_cmd, ok_in};
use common::{git, git_command};
use serde_json::{Value, json};

/// The lease every agent gets; a claim counts as lapsed half a lease after it ends.
const TTL: &str = "2s";
const TTL_SECS: f64 = 2.0;

fn env_num(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// xorshift64*: reproducible choices from a seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// What happened, for the invariants and the printed counts.
#[derive(Default)]
struct Log {
    /// Successful claims: (title, id, agent), in the order they were answered.
    claims: Vec<(String, String, String)>,
    /// Successful closes: (title, id, agent), in order.
    closes: Vec<(String, String, String)>,
    /// Claims answered after the same issue's (by title) close had been answered: (title, agent).
    claimed_closed: Vec<(String, String, String)>,
    /// Claims answered after the lease they state had ended (a pause between the server's last
    /// read and its answer): stale by their own words, so not counted as claims of closed work;
    /// the agent's writes after them must be fenced, which invariant 1 checks.
    answered_lapsed: usize,
    /// Closes answered with another issue than the one the agent had claimed: (claimed title,
    /// closed title, agent).
    closed_other: Vec<(String, String, String)>,
    /// Writes refused because a merge had renumbered the claimed issue, retried under its new id.
    renumbered: usize,
    /// Issues created: title -> the id the server answered.
    created: BTreeMap<String, String>,
    nothing_ready: usize,
    lost_races: usize,
    fenced: usize,
    writes: usize,
    kills: usize,
    pauses: usize,
    restarts: usize,
    commits: usize,
    pulls: usize,
    pull_retries: usize,
    add_retries: usize,
    /// Conflicts a pull stopped on, resolved by the README's rules: kind -> how many.
    conflicts: BTreeMap<String, usize>,
    /// Per tool: calls, seconds in all, the slowest call's seconds.
    latency: BTreeMap<String, (usize, f64, f64)>,
    /// Every call and git step, with its wall-clock time (a failure prints the lines of its ids).
    trace: Vec<String>,
    pushes: usize,
    push_rejected: usize,
    /// Anything an agent or git was told that the soak does not expect, with who was told.
    surprises: Vec<String>,
}

type Shared = Arc<Mutex<Log>>;

/// Why a session stopped answering.
#[derive(Debug)]
struct Gone;

/// `docket serve` in a checkout, spoken to over its stdio pipe (newline-delimited JSON-RPC, as
/// an MCP client does), with a pid the controller can signal.
struct Agent {
    child: Child,
    stdin: Option<std::process::ChildStdin>,
    lines: Receiver<Value>,
    next: i64,
}

impl Agent {
    fn start(dir: &Path, env: &[(&str, &str)], stderr: Stdio) -> Result<Agent, Gone> {
        let mut cmd = docket_cmd(dir, &["serve"], env);
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(stderr);
        let mut child = cmd.spawn().expect("spawn docket serve");
        let stdin = child.stdin.take();
        let out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in out.lines() {
                let Ok(line) = line else { break };
                let v: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("stdout carries only JSON-RPC, got {line:?}: {e}"));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let mut agent = Agent { child, stdin, lines, next: 1 };
        agent.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "soak", "version": "0"}}),
        )?;
        agent.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))?;
        Ok(agent)
    }

    fn send(&mut self, msg: &Value) -> Result<(), Gone> {
        let stdin = self.stdin.as_mut().ok_or(Gone)?;
        writeln!(stdin, "{msg}").and_then(|_| stdin.flush()).map_err(|_| Gone)
    }

    /// A request's answer; `Gone` when the process died (its stdout closed) or did not answer in
    /// two minutes (a paused agent is answered after its SIGCONT, well within that).
    fn request(&mut self, method: &str, params: Value) -> Result<Value, Gone> {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let left = deadline.checked_duration_since(Instant::now()).ok_or(Gone)?;
            match self.lines.recv_timeout(left) {
                Ok(msg) if msg.get("id") == Some(&json!(id)) => return Ok(msg),
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return Err(Gone),
            }
        }
    }

    /// A tool call: (is it an error, its text, its structured content).
    fn call(&mut self, tool: &str, args: Value) -> Result<(bool, String, Value), Gone> {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}))?;
        if let Some(e) = r.get("error") {
            return Ok((true, format!("protocol error: {e}"), Value::Null));
        }
        let result = &r["result"];
        let text = result["content"][0]["text"].as_str().unwrap_or_default().to_string();
        Ok((result["isError"] == json!(true), text, result["structuredContent"].clone()))
    }

    /// Closes stdin (the session ends as a client's would) and waits a moment, then kills.
    fn stop(mut self) {
        drop(self.stdin.take());
        let until = Instant::now() + Duration::from_secs(10);
        while Instant::now() < until {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// One agent slot: its checkout, and the pid of its current process (None between sessions),
/// locked while the controller signals it so a pid is never signalled after it was reaped.
struct Slot {
    dir: PathBuf,
    /// The current session's name (for the trace).
    name: Mutex<String>,
    pid: Mutex<Option<i32>>,
    paused: AtomicBool,
}

fn signal(pid: i32, sig: i32) {
    // SAFETY: a signal to a child process of this test, by a pid not yet reaped (see Slot).
    unsafe { libc::kill(pid, sig) };
}

/// `agent.call(tool, args)`, its time counted in the log (calls, total and slowest, per tool).
fn timed(agent: &mut Agent, log: &Shared, who: &str, tool: &str, args: Value) -> Result<(bool, String, Value), Gone> {
    let start = Instant::now();
    let (at, shown) = (now(), args.to_string());
    let out = agent.call(tool, args);
    let took = start.elapsed().as_secs_f64();
    let mut log = log.lock().unwrap();
    let answer = match &out {
        Ok((err, text, _)) => {
            format!("{}{}", if *err { "ERROR " } else { "" }, text.lines().next().unwrap_or_default())
        }
        Err(Gone) => "(the process died)".to_string(),
    };
    log.trace.push(format!("{at} {who} {tool} {shown} -> {answer}"));
    let e = log.latency.entry(tool.to_string()).or_default();
    e.0 += 1;
    e.1 += took;
    e.2 = e.2.max(took);
    out
}

/// The wall-clock time, for the trace (ISO 8601, milliseconds).
fn now() -> String {
    let d = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let (secs, ms) = (d.as_secs(), d.subsec_millis());
    format!("{:02}:{:02}:{:02}.{ms:03}", (secs / 3600) % 24, (secs / 60) % 60, secs % 60)
}

/// Whether a claim's answer ("Claimed ISS-1 for ann (lease until 2026-12-02T10:00:01.250Z, ...")
/// arrived after the lease it states had lapsed (ended, and half a lease more for skew), when
/// another agent may have taken the issue.
fn lease_lapsed_before_now(text: &str) -> bool {
    let Some(rest) = text.split("lease until ").nth(1) else { return false };
    let end = rest.split([' ', ',', ')']).next().unwrap_or_default();
    let grace = chrono::Duration::milliseconds((TTL_SECS * 500.0) as i64);
    chrono::DateTime::parse_from_rfc3339(end).is_ok_and(|end| end + grace < chrono::Utc::now())
}

fn title_of(structured: &Value) -> (String, String) {
    let issue = &structured["issue"];
    (issue["id"].as_str().unwrap_or_default().to_string(), issue["title"].as_str().unwrap_or_default().to_string())
}

/// A write to the issue the agent claimed as `id`, retried once under the id the refusal names
/// when a merge renumbered that issue since ("... retry with id ISS-7"), as an agent would.
fn renumbered_retry(
    agent: &mut Agent,
    log: &Shared,
    who: &str,
    tool: &str,
    id: &mut String,
    mut args: Value,
) -> Result<(bool, String, Value), Gone> {
    args["id"] = json!(id);
    let out = timed(agent, log, who, tool, args.clone())?;
    let Some(to) = out.1.split("retry with id ").nth(1).and_then(|r| r.split_whitespace().next()) else {
        return Ok(out);
    };
    *id = to.trim_end_matches(['.', ',', ';']).to_string();
    log.lock().unwrap().renumbered += 1;
    args["id"] = json!(id);
    timed(agent, log, who, tool, args)
}

/// One pass of an agent's loop: claim the next ready issue, maybe write to it, close it,
/// sometimes create a follow-up. `Err(Gone)` when its process died under it.
fn one_round(
    agent: &mut Agent,
    name: &str,
    rng: &mut Rng,
    log: &Shared,
    follow_ups: Option<&AtomicUsize>,
) -> Result<(), Gone> {
    let (err, text, out) = timed(agent, log, name, "issues_claim", json!({"assignee": name}))?;
    if err {
        let mut log = log.lock().unwrap();
        if text.contains("CONFLICT") || text.contains("held by") || text.contains("closed by") {
            log.lost_races += 1;
        } else {
            log.surprises.push(format!("{name}: claim-next failed: {text}"));
        }
        drop(log);
        std::thread::sleep(Duration::from_millis(100));
        return Ok(());
    }
    if out["issue"].is_null() {
        log.lock().unwrap().nothing_ready += 1;
        std::thread::sleep(Duration::from_millis(300));
        return Ok(());
    }
    let (id, title) = title_of(&out);
    if out["claimed"] == json!(true) {
        let mut log = log.lock().unwrap();
        if lease_lapsed_before_now(&text) {
            log.answered_lapsed += 1;
        } else if let Some((_, closed_id, closer)) = log.closes.iter().find(|(t, _, _)| *t == title).cloned() {
            log.claimed_closed.push((title.clone(), format!("{id} (closed as {closed_id} by {closer})"), name.into()));
        }
        log.claims.push((title.clone(), id.clone(), name.to_string()));
    }
    // The work (the finishing agent, without follow-ups, only closes).
    let finishing = follow_ups.is_none();
    if !finishing {
        std::thread::sleep(Duration::from_millis(rng.below(700)));
    }
    let fenced = |text: &str| {
        text.contains("now held by")
            || text.to_lowercase().contains("nothing was written")
            || text.contains("was undone")
    };
    let mut id = id;
    if !finishing && rng.below(3) == 0 {
        let (err, text, _) =
            renumbered_retry(agent, log, name, "issues_update", &mut id, json!({"labels": ["soak", name]}))?;
        let mut log = log.lock().unwrap();
        match (err, fenced(&text)) {
            (false, _) => log.writes += 1,
            (true, true) => log.fenced += 1,
            (true, false) => log.surprises.push(format!("{name}: a write to {id} failed: {text}")),
        }
    }
    let (err, text, out) = if rng.below(2) == 0 {
        renumbered_retry(agent, log, name, "issues_update", &mut id, json!({"status": "closed"}))?
    } else {
        let note = json!({"note": format!("done by {name}")});
        renumbered_retry(agent, log, name, "issues_mark_complete", &mut id, note)?
    };
    {
        let mut log = log.lock().unwrap();
        match (err, fenced(&text)) {
            (false, _) => {
                let (closed_id, closed_title) = title_of(&out);
                let closed_title = if closed_title.is_empty() { title.clone() } else { closed_title };
                let changed = out.get("changed").and_then(Value::as_array).is_none_or(|c| !c.is_empty());
                if changed && closed_title != title {
                    log.closed_other.push((title.clone(), closed_title.clone(), name.to_string()));
                }
                if changed {
                    log.closes.push((closed_title, closed_id, name.to_string()));
                }
            }
            (true, true) => log.fenced += 1,
            // Refused, but written and pushed before the refusal: a close all the same.
            (true, false) if text.contains("close stands") => log.closes.push((title.clone(), id.clone(), name.into())),
            (true, false) => log.surprises.push(format!("{name}: the close of {id} failed: {text}")),
        }
    }
    if let Some(follow_ups) = follow_ups.filter(|_| rng.below(4) == 0) {
        let n = follow_ups.fetch_add(1, Ordering::SeqCst);
        let new_title = format!("follow-up {n} of {title} by {name}");
        let (err, text, out) = timed(
            agent,
            log,
            name,
            "issues_create",
            json!({"title": new_title, "description": format!("Found while doing {id}.")}),
        )?;
        let mut log = log.lock().unwrap();
        if err {
            log.surprises.push(format!("{name}: create {new_title:?} failed: {text}"));
        } else {
            let (new_id, _) = title_of(&out);
            log.created.insert(new_title, new_id);
        }
    }
    Ok(())
}

/// What every agent slot shares.
#[derive(Clone, Copy)]
struct Run<'a> {
    env: &'a [(&'a str, &'a str)],
    logs: &'a Path,
    stop: &'a AtomicBool,
    log: &'a Shared,
    follow_ups: &'a AtomicUsize,
    seed: u64,
}

/// An agent slot's life: sessions one after another (a killed one replaced by a new one,
/// with a new name) until `stop`.
fn run_slot(index: usize, slot: &Slot, cx: &Run<'_>) {
    let Run { env, logs, stop, log, follow_ups, seed } = *cx;
    let mut rng = Rng(seed ^ (index as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut session = 0;
    while !stop.load(Ordering::SeqCst) {
        session += 1;
        let name = format!("a{index}s{session}");
        let err = std::fs::File::create(logs.join(format!("{name}.stderr"))).map(Stdio::from).unwrap_or(Stdio::null());
        let Ok(mut agent) = Agent::start(&slot.dir, env, err) else { continue };
        if session > 1 {
            log.lock().unwrap().restarts += 1;
        }
        *slot.pid.lock().unwrap() = Some(agent.child.id() as i32);
        *slot.name.lock().unwrap() = name.clone();
        let mut alive = true;
        while alive && !stop.load(Ordering::SeqCst) {
            alive = one_round(&mut agent, &name, &mut rng, log, Some(follow_ups)).is_ok();
        }
        *slot.pid.lock().unwrap() = None;
        if alive {
            agent.stop();
        }
    }
}

/// Kills or pauses an agent every few seconds until `stop`; a paused one is resumed after
/// `pause` (past its lease), and every paused one is resumed before this returns.
fn run_controller(slots: &[Arc<Slot>], stop: &AtomicBool, log: &Shared, seed: u64, pause: Duration) {
    let mut rng = Rng(seed.wrapping_add(0x5eed));
    let mut resume: Vec<(Instant, Arc<Slot>, i32)> = Vec::new();
    let mut next_act = Instant::now() + Duration::from_millis(2_000);
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(100));
        resume.retain(|(at, slot, pid)| {
            if Instant::now() < *at {
                return true;
            }
            if *slot.pid.lock().unwrap() == Some(*pid) {
                signal(*pid, libc::SIGCONT);
                let who = slot.name.lock().unwrap().clone();
                log.lock().unwrap().trace.push(format!("{} {who} SIGCONT", now()));
            }
            slot.paused.store(false, Ordering::SeqCst);
            false
        });
        if Instant::now() < next_act {
            continue;
        }
        next_act = Instant::now() + Duration::from_millis(1_500 + rng.below(2_000));
        let slot = &slots[rng.below(slots.len() as u64) as usize];
        if slot.paused.load(Ordering::SeqCst) {
            continue;
        }
        let held = slot.pid.lock().unwrap();
        let Some(pid) = *held else { continue };
        let who = slot.name.lock().unwrap().clone();
        if rng.below(2) == 0 {
            signal(pid, libc::SIGKILL);
            let mut log = log.lock().unwrap();
            log.kills += 1;
            log.trace.push(format!("{} {who} SIGKILL", now()));
        } else {
            signal(pid, libc::SIGSTOP);
            slot.paused.store(true, Ordering::SeqCst);
            resume.push((Instant::now() + pause, Arc::clone(slot), pid));
            let mut log = log.lock().unwrap();
            log.pauses += 1;
            log.trace.push(format!("{} {who} SIGSTOP", now()));
        }
    }
    for (_, slot, pid) in resume {
        if *slot.pid.lock().unwrap() == Some(pid) {
            signal(pid, libc::SIGCONT);
        }
        slot.paused.store(false, Ordering::SeqCst);
    }
}

/// `git ARGS` in `dir`: (success, stdout and stderr).
fn git_try(dir: &Path, args: &[&str]) -> (bool, String) {
    let o = git_command(dir).args(args).stdin(Stdio::null()).output().expect("git runs");
    (o.status.success(), format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)))
}

/// Commit what the agents wrote, pull (docket's hooks run), push; a rejected push pulls and
/// tries again. Whether this clone ended level with origin.
fn sync(clone: &Path, log: &Shared, round: usize) -> bool {
    for attempt in 0..6 {
        let (_, status) = git_try(clone, &["status", "--porcelain", "--", ".docket"]);
        if !status.trim().is_empty() {
            // A temp file an agent's atomic write renames away under `git add` makes it fail
            // ("unable to stat"): try again.
            if !git_try(clone, &["add", "-A", "--", ".docket"]).0 {
                log.lock().unwrap().add_retries += 1;
                continue;
            }
            let (ok, out) = git_try(clone, &["commit", "-q", "-m", &format!("soak: agents' work, round {round}")]);
            if ok {
                log.lock().unwrap().commits += 1;
            } else if !out.contains("nothing to commit") {
                log.lock().unwrap().surprises.push(format!("{}: commit failed: {out}", clone.display()));
            }
        }
        let (ok, out) = git_try(clone, &["pull", "-q", "--no-edit", "--no-rebase", "origin", "main"]);
        {
            let mut log = log.lock().unwrap();
            log.pulls += 1;
            let name = clone.file_name().unwrap_or_default().to_string_lossy().into_owned();
            log.trace.push(format!("{} {name} git pull: {}", now(), if ok { "ok" } else { "failed" }));
            for line in out.lines().filter(|l| !l.trim().is_empty()) {
                log.trace.push(format!("{} {name}   {line}", now()));
            }
        }
        if !ok {
            if clone.join(".git/MERGE_HEAD").exists() {
                // A merge git stopped: resolved the way the README says, or aborted and retried.
                if !resolve(clone, log, &out) {
                    git_try(clone, &["merge", "--abort"]);
                }
            } else {
                // Agents wrote between the commit and the pull ("local changes would be
                // overwritten"): commit again and retry.
                log.lock().unwrap().pull_retries += 1;
            }
            std::thread::sleep(Duration::from_millis(50 * (attempt + 1)));
            continue;
        }
        let (ok, out) = git_try(clone, &["push", "-q", "origin", "HEAD:main"]);
        if ok {
            log.lock().unwrap().pushes += 1;
            return true;
        }
        if !out.contains("rejected") && !out.contains("fetch first") && !out.contains("non-fast-forward") {
            log.lock().unwrap().surprises.push(format!("{}: push failed: {out}", clone.display()));
        }
        log.lock().unwrap().push_rejected += 1;
    }
    false
}

/// A merge `git pull` stopped on: each conflict git left in an issue file is resolved as the
/// README says (a modify/delete of a file the other side moved to `archived/`: keep the archived
/// file; a file the driver merged but git still marks, as after a rename/delete: take the
/// driver's result), then the merge is committed (docket's post-commit hook runs). Whether it
/// was; each conflict is counted, and one the README has no rule for is a surprise.
fn resolve(clone: &Path, log: &Shared, pulled: &str) -> bool {
    let (_, unmerged) = git_try(clone, &["diff", "--name-only", "--diff-filter=U"]);
    let paths: Vec<&str> = unmerged.lines().filter(|l| !l.trim().is_empty()).collect();
    for path in &paths {
        let file = clone.join(path);
        let archived = Path::new(path)
            .parent()
            .filter(|p| !p.ends_with("archived"))
            .map(|p| p.join("archived").join(Path::new(path).file_name().unwrap_or_default()));
        let (kind, args): (&str, Vec<String>) = match archived {
            Some(a) if clone.join(&a).exists() => {
                ("modify/delete of a closed issue", vec!["rm".into(), "-q".into(), path.to_string()])
            }
            _ if file.exists() && !std::fs::read_to_string(&file).unwrap_or_default().contains("<<<<<<<") => {
                ("a merged file git still marks", vec!["add".into(), path.to_string()])
            }
            _ => {
                log.lock()
                    .unwrap()
                    .surprises
                    .push(format!("{}: no rule for the conflict in {path}: {pulled}", clone.display()));
                return false;
            }
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        if !git_try(clone, &args).0 {
            return false;
        }
        *log.lock().unwrap().conflicts.entry(kind.to_string()).or_default() += 1;
    }
    git_try(clone, &["commit", "-q", "--no-edit"]).0
}

/// One issue file, as the invariants read it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct FileIssue {
    id: String,
    key: String,
    title: String,
    status: String,
    path: String,
}

/// Every issue file of the clone's workspace (open and archived).
fn read_issues(clone: &Path) -> Vec<FileIssue> {
    let mut out = Vec::new();
    for sub in ["issues", "issues/archived"] {
        let Ok(entries) = clone.join(".docket").join(sub).read_dir() else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "md") {
                continue;
            }
            let body = std::fs::read_to_string(&path).unwrap_or_default();
            let field = |name: &str| {
                body.lines()
                    .skip(1)
                    .take_while(|l| *l != "---")
                    .find_map(|l| l.strip_prefix(&format!("{name}: ")))
                    .map(|v| v.trim().trim_matches('\'').trim_matches('"').to_string())
                    .unwrap_or_default()
            };
            out.push(FileIssue {
                id: field("id"),
                key: field("docketKey"),
                title: field("title"),
                status: field("status"),
                path: format!("{sub}/{}", entry.file_name().to_string_lossy()),
            });
        }
    }
    out.sort();
    out
}

/// The clones pull and push until each is level with origin and all show the same files.
fn converge(clones: &[PathBuf], log: &Shared) -> bool {
    for round in 0..10 {
        let level = clones.iter().all(|c| sync(c, log, 10_000 + round));
        let heads: BTreeSet<String> = clones.iter().map(|c| git(c, &["rev-parse", "HEAD"])).collect();
        let origin = git(&clones[0], &["ls-remote", "origin", "refs/heads/main"]);
        let clean = clones.iter().all(|c| git_try(c, &["status", "--porcelain", "--", ".docket"]).1.trim().is_empty());
        if level && clean && heads.len() == 1 && origin.starts_with(heads.iter().next().expect("a head").trim()) {
            return true;
        }
    }
    false
}

fn setup(tmp: &Path, issues: usize) -> (PathBuf, Vec<PathBuf>, Vec<PathBuf>) {
    let seed = tmp.join("seed");
    common::many::repo_with_issues(&seed, ".docket", issues);
    // The README's recommended setting, committed: every clone claims through origin.
    std::fs::write(seed.join(".docket/config/docket.yaml"), "claims_remote: origin\n").expect("config");
    ok_in(&seed, &["git-setup"], &[]);
    commit_all(&seed, "claims through origin; docket's merge driver");
    let origin = tmp.join("origin.git");
    git(tmp, &["clone", "-q", "--bare", seed.to_str().expect("utf-8"), origin.to_str().expect("utf-8")]);
    let mut clones = Vec::new();
    let mut worktrees = Vec::new();
    for i in 0..3 {
        let dir = tmp.join(format!("clone-{i}"));
        git(tmp, &["clone", "-q", origin.to_str().expect("utf-8"), dir.to_str().expect("utf-8")]);
        git(&dir, &["config", "user.name", "Tester"]);
        git(&dir, &["config", "user.email", "tester@example.invalid"]);
        ok_in(&dir, &["git-setup"], &[]);
        worktrees.push(Layout::Sibling.add(&dir, &format!("wt{i}")));
        clones.push(dir);
    }
    (origin, clones, worktrees)
}

/// In CI at the default size (15 s of work, 40 issues); `cargo test --test integration soak::
/// -- --nocapture` prints its counts, and `DOCKET_SOAK_SECS=300` makes a long run.
#[test]
fn many_agents_in_clones_and_worktrees_with_kills_and_pauses_keep_every_invariant() {
    let secs = env_num("DOCKET_SOAK_SECS", 15);
    let issues = env_num("DOCKET_SOAK_ISSUES", 40) as usize;
    let seed = env_num("DOCKET_SOAK_SEED", 45);
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path().to_path_buf();
    let keep = std::env::var("DOCKET_SOAK_KEEP").is_ok_and(|v| v == "1");
    if keep {
        eprintln!("soak: keeping {}", root.display());
        std::mem::forget(tmp);
    }
    let started = Instant::now();
    let (_origin, clones, worktrees) = setup(&root, issues);
    let logs = root.join("logs");
    std::fs::create_dir_all(&logs).expect("logs");
    let env: Vec<(&str, &str)> = vec![("DOCKET_CLAIM_TTL", TTL)];
    let checkouts: Vec<PathBuf> = clones.iter().chain(worktrees.iter()).cloned().collect();
    let slots: Vec<Arc<Slot>> = (0..checkouts.len() * 2)
        .map(|i| {
            Arc::new(Slot {
                dir: checkouts[i % checkouts.len()].clone(),
                name: Mutex::default(),
                pid: Mutex::new(None),
                paused: false.into(),
            })
        })
        .collect();
    let log: Shared = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let follow_ups = Arc::new(AtomicUsize::new(1));
    let setup_took = started.elapsed();

    let pause = Duration::from_secs_f64(TTL_SECS * 2.5);
    std::thread::scope(|s| {
        let workers: Vec<_> = slots
            .iter()
            .enumerate()
            .map(|(i, slot)| {
                let cx = Run { env: &env, logs: &logs, stop: &stop, log: &log, follow_ups: &follow_ups, seed };
                s.spawn(move || run_slot(i, slot, &cx))
            })
            .collect();
        let controller = s.spawn(|| run_controller(&slots, &stop, &log, seed, pause));
        let gits: Vec<_> = clones
            .iter()
            .enumerate()
            .map(|(c, clone)| {
                let (stop, log) = (&stop, &log);
                s.spawn(move || {
                    let mut rng = Rng(seed.wrapping_mul(c as u64 + 7));
                    let mut round = 0;
                    while !stop.load(Ordering::SeqCst) {
                        std::thread::sleep(Duration::from_millis(1_500 + rng.below(1_000)));
                        round += 1;
                        sync(clone, log, round);
                    }
                })
            })
            .collect();
        std::thread::sleep(Duration::from_secs(secs));
        stop.store(true, Ordering::SeqCst);
        controller.join().expect("controller");
        for w in workers {
            w.join().expect("an agent slot");
        }
        for g in gits {
            g.join().expect("a clone's git loop");
        }
    });
    let worked = started.elapsed() - setup_took;

    // Every agent has stopped: the clones agree, then one agent finishes what is left (the
    // claims of killed and paused agents lapse on their own).
    if !converge(&clones, &log) {
        let log = log.lock().unwrap();
        if keep {
            std::fs::write(logs.join("trace.txt"), log.trace.join("\n")).expect("write the trace");
        }
        let told: BTreeSet<&String> = log.surprises.iter().collect();
        panic!("the clones did not reach one history after the agents stopped: {told:#?}");
    }
    let finisher_env: Vec<(&str, &str)> = env.clone();
    let mut finisher = Agent::start(&clones[0], &finisher_env, Stdio::null()).expect("the finishing agent");
    let mut rng = Rng(seed);
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut finished = 0;
    loop {
        let before = log.lock().unwrap().closes.len();
        one_round(&mut finisher, "finisher", &mut rng, &log, None).expect("the finisher answers");
        finished += log.lock().unwrap().closes.len() - before;
        let open: Vec<FileIssue> =
            read_issues(&clones[0]).into_iter().filter(|i| i.status != "closed" && i.status != "cancelled").collect();
        if open.is_empty() || Instant::now() > deadline {
            break;
        }
    }
    finisher.stop();
    assert!(converge(&clones, &log), "the clones reach one history after the finishing agent");

    // The servers' answers: in every clone nothing is ready, and issues_list counts what the
    // files hold.
    let mut answers = Vec::new();
    for clone in &clones {
        let mut a = Agent::start(clone, &env, Stdio::null()).expect("a server");
        let (_, ready_text, ready) = a.call("issues_ready", json!({})).expect("issues_ready");
        let (_, _, stats) = a.call("issues_stats", json!({"groupBy": "status"})).expect("issues_stats");
        answers.push((clone.clone(), ready["totalCount"].clone(), ready_text, stats));
        a.stop();
    }

    let log = log.lock().unwrap();
    let files: Vec<(PathBuf, Vec<FileIssue>)> = clones.iter().map(|c| (c.clone(), read_issues(c))).collect();
    eprintln!(
        "soak: {} issues to start, {secs} s of work by {} agent slots in {} checkouts (setup {:.1} s, work {:.1} s, \
         total {:.1} s)\nsoak: claims {}, closes {} (of which the finisher {finished}), follow-ups created {}, \
         other writes {}, fenced writes refused {}, lost races {}, nothing-ready answers {}, claims answered after \
         their lease {}, writes retried under a renumbered id {}\nsoak: kills {}, \
         pauses {} (each {:.1} s, TTL {TTL}), new sessions {}\nsoak: commits {}, pulls {} ({} retried), pushes {} \
         ({} rejected and retried), merge conflicts resolved by the README's rules {:?}\nsoak: {} issues at the end, \
         {} surprises",
        issues,
        slots.len(),
        checkouts.len(),
        setup_took.as_secs_f64(),
        worked.as_secs_f64(),
        started.elapsed().as_secs_f64(),
        log.claims.len(),
        log.closes.len(),
        log.created.len(),
        log.writes,
        log.fenced,
        log.lost_races,
        log.nothing_ready,
        log.answered_lapsed,
        log.renumbered,
        log.kills,
        log.pauses,
        pause.as_secs_f64(),
        log.restarts,
        log.commits,
        log.pulls,
        log.pull_retries,
        log.pushes,
        log.push_rejected,
        log.conflicts,
        files[0].1.len(),
        log.surprises.len(),
    );
    for (tool, (n, sum, max)) in &log.latency {
        eprintln!("soak: {tool}: {n} calls, mean {:.2} s, slowest {max:.2} s", sum / *n as f64);
    }
    for s in &log.surprises {
        eprintln!("soak: surprise: {s}");
    }

    let mut failures = Vec::new();
    // 1. No issue closed by two agents.
    let mut closers: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (title, id, agent) in &log.closes {
        closers.entry(title).or_default().push(format!("{agent} as {id}"));
    }
    let twice: Vec<String> =
        closers.iter().filter(|(_, v)| v.len() > 1).map(|(t, v)| format!("{t:?}: {}", v.join(", "))).collect();
    if !twice.is_empty() {
        failures.push(format!("{} issue(s) closed by two agents or more: {}", twice.len(), twice.join("; ")));
    }
    // 1b. Every close closed the issue its agent had claimed.
    if !log.closed_other.is_empty() {
        let list: Vec<String> =
            log.closed_other.iter().map(|(t, c, a)| format!("{a} claimed {t:?} and closed {c:?}")).collect();
        failures.push(format!("{} close(s) of another issue than the one claimed: {}", list.len(), list.join("; ")));
    }
    // 2. No claim of work someone had already closed.
    if !log.claimed_closed.is_empty() {
        let list: Vec<String> =
            log.claimed_closed.iter().map(|(t, id, a)| format!("{t:?} {id} claimed by {a}")).collect();
        failures.push(format!("{} claim(s) of work already closed: {}", list.len(), list.join("; ")));
    }
    for (clone, issues_here) in &files {
        let name = clone.file_name().expect("name").to_string_lossy();
        // 3. None stranded: every issue is closed once every agent has stopped and the
        // finisher ran out of ready work.
        let stranded: Vec<String> = issues_here
            .iter()
            .filter(|i| i.status != "closed" && i.status != "cancelled")
            .map(|i| format!("{} {} ({})", i.id, i.status, i.path))
            .collect();
        if !stranded.is_empty() {
            failures.push(format!("{name}: {} issue(s) stranded: {}", stranded.len(), stranded.join(", ")));
        }
        // 4. No id held by two files.
        let mut by_id: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        let mut by_key: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        let mut by_title: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for i in issues_here {
            by_id.entry(&i.id).or_default().push(&i.path);
            by_key.entry(&i.key).or_default().push(&i.path);
            by_title.entry(&i.title).or_default().push(&i.path);
        }
        for (what, map) in [("id", &by_id), ("docketKey", &by_key), ("title", &by_title)] {
            let dup: Vec<String> =
                map.iter().filter(|(_, v)| v.len() > 1).map(|(k, v)| format!("{k} in {}", v.join(" and "))).collect();
            if !dup.is_empty() {
                failures.push(format!("{name}: {} {what}(s) held by several files: {}", dup.len(), dup.join("; ")));
            }
        }
        // 5. Every issue present exactly once: the generated ones and every follow-up created.
        let expected: Vec<String> =
            (1..=issues).map(|n| format!("task {n}")).chain(log.created.keys().cloned()).collect();
        let missing: Vec<&String> = expected.iter().filter(|t| !by_title.contains_key(t.as_str())).collect();
        if !missing.is_empty() {
            failures.push(format!("{name}: {} issue(s) missing: {missing:?}", missing.len()));
        }
        let unknown: Vec<&&str> = by_title.keys().filter(|t| !expected.iter().any(|e| e == **t)).collect();
        if !unknown.is_empty() {
            failures.push(format!("{name}: {} issue(s) nobody created: {unknown:?}", unknown.len()));
        }
    }
    // 6. Every clone shows the same set.
    let shown = |f: &[FileIssue]| -> BTreeSet<(String, String, String, String)> {
        f.iter().map(|i| (i.id.clone(), i.key.clone(), i.title.clone(), i.status.clone())).collect()
    };
    for (clone, issues_here) in &files[1..] {
        let (a, b) = (shown(&files[0].1), shown(issues_here));
        if a != b {
            let only_a: Vec<_> = a.difference(&b).collect();
            let only_b: Vec<_> = b.difference(&a).collect();
            failures.push(format!(
                "{} and {} differ: only in the first {only_a:?}, only in the second {only_b:?}",
                files[0].0.display(),
                clone.display()
            ));
        }
    }
    // 7. The servers agree with the files: nothing ready, every issue counted.
    for (clone, ready_total, ready_text, stats) in &answers {
        let count = files.iter().find(|(c, _)| c == clone).map_or(0, |(_, f)| f.len());
        if *ready_total != json!(0) {
            failures.push(format!("{}: issues_ready still offers work: {ready_text}", clone.display()));
        }
        if stats["total"] != json!(count) {
            failures.push(format!(
                "{}: issues_stats counts {} issues, the files hold {count}",
                clone.display(),
                stats["total"]
            ));
        }
    }
    if keep {
        std::fs::write(logs.join("trace.txt"), log.trace.join("\n")).expect("write the trace");
    }
    if !failures.is_empty() {
        // What happened to the issues involved, in time order.
        let ids: BTreeSet<String> = failures
            .iter()
            .flat_map(|f| f.split(|c: char| !c.is_ascii_alphanumeric() && c != '-').map(str::to_string))
            .filter(|w| w.starts_with("ISS-"))
            .collect();
        let story: Vec<&String> =
            log.trace.iter().filter(|l| l.contains(" SIG") || ids.iter().any(|id| l.contains(id.as_str()))).collect();
        let story: Vec<&str> = story.iter().map(|l| l.as_str()).collect();
        panic!(
            "the soak broke {} invariant(s):\n{}\n\nwhat the agents and git did with {ids:?}:\n{}",
            failures.len(),
            failures.join("\n"),
            story.join("\n")
        );
    }
}
