//! Claim refs against the files (issue 38, "reconcile, never lose"; issue 45, "judge by
//! evidence"), where claims are held in refs (a claims remote, `worktrees: local`, a bare
//! repository). A clone sees every clone's claims on the remote but only the files it has pulled,
//! so a mismatch is a problem only with evidence that it is one:
//! - a claim taken here (the claim records where: this workspace's worktree) whose file says
//!   open is interrupted: `--fix` completes it for its holder;
//! - a claim taken elsewhere is "claimed in another clone (pull to see it)", a note, not a
//!   problem, for as long as its lease lives (its holder's server renews it, however long the
//!   work takes); it becomes one only once its lease lapsed while the remote-tracking branch still
//!   shows the issue open: its holder stopped before pushing its file (interrupted; the issue is
//!   ready again, nothing is written). A claim that has no lease (made before leases) counts as
//!   lapsed one lease (`claim_ttl`) after it was taken;
//! - a ref naming an id the files do not know is never removed (it may be an issue another clone
//!   has not pushed yet);
//! - a closed issue's ref is removed only when the claim was taken here or before the close;
//! - a file in progress with no ref gets its holder's ref only when the remote-tracking branch
//!   does not show that claim already (then it came from another clone, which released it since).
//!
//! `--fix` never writes another clone's claim into this clone's files, so two clones running it
//! do not undo each other. All refs are read at once: one list, one fetch when objects are
//! missing, one `git cat-file --batch`; a ref that is not a claim is one problem of its own.

use std::collections::{HashMap, HashSet};

use super::{Kind, Problem, Scan};
use crate::git::Repo;
use crate::git::claims::Claim;
use crate::{IssueMeta, Status, Store};

/// Notes about other clones' claims listed one by one; the rest are counted.
const NOTES_SHOWN: usize = 10;

/// What to do about one mismatch.
enum Mend {
    /// Remove the ref (its issue is finished here, and the claim is this clone's or older).
    Drop(Claim),
    /// Write the claim into the file for the ref's holder (a claim taken here).
    Complete(Claim),
    /// Create the ref for the file's holder.
    Record { id: String, holder: String },
    /// Finish the releases the remote has not taken yet.
    Settle,
}

/// What the check found: problems with their repair (`None`: a person decides), and notes that
/// are no problem (claims of other clones).
#[derive(Default)]
struct Findings {
    problems: Vec<(Problem, Option<Mend>)>,
    notes: Vec<String>,
}

/// An issue's status and assignee on the remote-tracking branch, if it has the file.
type Upstream = HashMap<String, (Status, Option<String>)>;

fn mismatches(store: &Store, scan: &Scan) -> Findings {
    let mut out = Findings::default();
    if !store.claims_need_refs() {
        return out;
    }
    let Ok(Some(refs)) = store.claim_refs() else { return out };
    let pending = store.pending_claims();
    for p in &pending {
        let why = if p.why.is_empty() { String::new() } else { format!(" ({})", p.why) };
        let message = format!(
            "the release of {}'s claim of {} is queued since {}: the claims remote has not taken it{why}; --fix finishes it",
            p.holder, p.id, p.queued
        );
        out.problems.push((problem(Some(&p.id), Vec::new(), message, true), Some(Mend::Settle)));
    }
    let claims = match store.claim_ref_list() {
        Ok(claims) => claims,
        Err(why) => {
            let message = format!("the claim refs could not be read: {why}");
            out.problems.push((problem(None, Vec::new(), message, false), None));
            return out;
        }
    };
    let remote = refs.remote().map(str::to_string);
    let upstream = remote.as_ref().map(|_| upstream_files(store, scan)).unwrap_or_default();
    let mut with_ref = HashSet::new();
    for c in claims {
        let c = match c {
            Ok(c) => c,
            Err((id, why)) => {
                with_ref.insert(id.to_uppercase());
                let undo = match &remote {
                    Some(r) => format!("`git push {r} :refs/docket/claims/{id}`"),
                    None => format!("`git update-ref -d refs/docket/claims/{id}`"),
                };
                let message = format!(
                    "the claim ref of {id} holds no claim: {why}; no claim of {id} can be read until a person removes it ({undo})"
                );
                out.problems.push((problem(Some(&id), Vec::new(), message, false), None));
                continue;
            }
        };
        with_ref.insert(c.id.to_uppercase());
        // A lapsed lease is free work, not a claim to complete or repair; only another clone's
        // whose issue is open here may be interrupted (below: the remote-tracking branch says).
        let ttl = store.claim_ttl();
        let lapsed = c.lapsed(ttl).is_some();
        // A claim made before leases never lapses, but stops counting as live a lease after it.
        let stopped = lapsed || c.close_lapsed(ttl) || (c.lease.is_empty() && c.older_than(ttl));
        let here = refs.taken_here(&c);
        let issue = scan.issues.iter().find(|m| m.id.eq_ignore_ascii_case(&c.id));
        let open_for_holder = |m: &IssueMeta| {
            m.status == Status::Open
                && m.assignee.as_deref().map(str::trim).is_none_or(|a| a.is_empty() || a == c.holder)
        };
        if lapsed && (here || !issue.is_some_and(|m| open_for_holder(m))) {
            continue;
        }
        if pending.iter().any(|p| p.id.eq_ignore_ascii_case(&c.id) && p.holder == c.holder) {
            continue;
        }
        let paths = issue.map(|m| vec![scan.rel(&m.path)]).unwrap_or_default();
        let who = c.describe();
        let elsewhere = if remote.is_some() { "another clone" } else { "another worktree" };
        let holder = issue.and_then(|m| m.assignee.as_deref()).map(str::trim).filter(|a| !a.is_empty());
        let (message, mend) = match issue.map(|m| (m, m.status, holder)) {
            None if !here => {
                out.notes.push(format!(
                    "{} is claimed in {elsewhere} ({who}); no issue here has that id yet (pull to see it)",
                    c.id
                ));
                continue;
            }
            None => (
                format!(
                    "the claim ref of {} ({who}) was taken here but names no issue here (deleted, or renumbered by a merge); it is left alone: release it with {}",
                    c.id,
                    undo_hint(remote.as_deref(), &c.id)
                ),
                None,
            ),
            Some((m, s, _)) if s.is_archived() => {
                if !here && !taken_before_close(&c, m) {
                    out.notes.push(format!(
                        "{} is {s} here, but {elsewhere} claimed it after that ({who}); pull to see it",
                        c.id
                    ));
                    continue;
                }
                (
                    format!(
                        "{} is {s} but its claim ref remains ({who}), a release that did not happen; --fix removes the ref",
                        c.id
                    ),
                    Some(Mend::Drop(c.clone())),
                )
            }
            Some((_, Status::InProgress, Some(h))) if h == c.holder => continue,
            Some((_, Status::Open, h)) if h.is_none_or(|h| h == c.holder) && here => (
                format!(
                    "{} is {who} in its claim ref, but its file says open: a claim interrupted before its file write; --fix completes it for {}",
                    c.id, c.holder
                ),
                Some(Mend::Complete(c.clone())),
            ),
            Some((m, Status::Open, h)) if h.is_none_or(|h| h == c.holder) => {
                let upstream_open = upstream.get(&m.id.to_uppercase()).is_some_and(|(s, _)| *s == Status::Open);
                if !(upstream_open && stopped) {
                    if lapsed {
                        continue;
                    }
                    out.notes.push(format!("{} is claimed in {elsewhere} ({who}); pull to see it", c.id));
                    continue;
                }
                let message = match lapsed {
                    true => format!(
                        "{} is {who} in {elsewhere}, but its lease lapsed and the remote-tracking branch still shows it open: {} stopped renewing it before pushing its file, so the claim was interrupted; issues_ready offers it again and issues_claim takes it without a reason (ask {} first if the work may be somewhere)",
                        c.id, c.holder, c.holder
                    ),
                    // A claim made before leases: nothing says whether its holder still works.
                    false => format!(
                        "{} is {who} in {elsewhere} (a claim without a lease, taken more than a lease ago), but the remote-tracking branch still shows it open: its file was never pushed, so it may be interrupted; ask {}, or take it over with issues_claim and takeoverReason",
                        c.id, c.holder
                    ),
                };
                (message, None)
            }
            Some((_, s, h)) => (
                format!(
                    "{}'s claim ref says it is {who}, its file says {s} for {}; decide who has it: issues_claim with takeoverReason moves the claim, issues_update sets the file",
                    c.id,
                    h.unwrap_or("nobody")
                ),
                None,
            ),
        };
        out.problems.push((problem(Some(&c.id), paths, message, mend.is_some()), mend));
    }
    for m in scan.issues.iter().filter(|m| m.status == Status::InProgress && !with_ref.contains(&m.id.to_uppercase())) {
        let Some(holder) = m.assignee.as_deref().map(str::trim).filter(|a| !a.is_empty()) else { continue };
        // Pulled from a clone that has released it since (closed, handed back there): recording
        // it would take back that clone's release.
        let pulled = upstream
            .get(&m.id.to_uppercase())
            .is_some_and(|(s, a)| *s == Status::InProgress && a.as_deref().map(str::trim) == Some(holder));
        if pulled {
            out.notes.push(format!(
                "{} is in progress for {holder} in the files pulled from the remote, but no claim ref holds it: it was released in another clone since; pull to see it",
                m.id
            ));
            continue;
        }
        let message = format!(
            "{} is in progress for {holder} in its file, but no claim ref holds it, so other clones or worktrees could claim it too; --fix records {holder}'s claim",
            m.id
        );
        let mend = Mend::Record { id: m.id.clone(), holder: holder.to_string() };
        out.problems.push((problem(Some(&m.id), vec![scan.rel(&m.path)], message, true), Some(mend)));
    }
    if out.notes.len() > NOTES_SHOWN {
        let more = out.notes.len() - NOTES_SHOWN;
        out.notes.truncate(NOTES_SHOWN);
        out.notes.push(format!("and {more} more claims of other clones or worktrees (pull to see them)"));
    }
    out
}

fn undo_hint(remote: Option<&str>, id: &str) -> String {
    match remote {
        Some(r) => format!("`git push {r} :refs/docket/claims/{id}`"),
        None => format!("`git update-ref -d refs/docket/claims/{id}`"),
    }
}

/// Whether claim `c` was taken before issue `m` was closed here (a claim that says no time, or
/// an issue that says no close time, counts as before).
fn taken_before_close(c: &Claim, m: &IssueMeta) -> bool {
    let time = |s: &str| chrono::DateTime::parse_from_rfc3339(s).ok();
    match (time(&c.taken_at), m.closed_at.as_deref().and_then(time)) {
        (Some(taken), Some(closed)) => taken <= closed,
        _ => true,
    }
}

/// Status and assignee of the workspace's issues on the branch this one tracks, read with one
/// `git cat-file --batch` (the file where it is here, and in or out of `archived/`).
fn upstream_files(store: &Store, scan: &Scan) -> Upstream {
    let mut found = Upstream::new();
    let ws = store.workspace();
    let Some(repo) = Repo::discover(&ws.dir) else { return found };
    let Some(upstream) =
        crate::git::run(&repo.toplevel, &["rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"])
    else {
        return found;
    };
    let upstream = upstream.trim().to_string();
    let mut specs: Vec<(String, String)> = Vec::new();
    for m in &scan.issues {
        for p in crate::git::paths_on_branch(&repo.toplevel, &m.path) {
            specs.push((m.id.to_uppercase(), format!("{upstream}:{p}")));
        }
    }
    if specs.is_empty() {
        return found;
    }
    let text = crate::git::show_batch(&repo.toplevel, specs.iter().map(|(_, s)| s.as_str()));
    for ((id, _), body) in specs.iter().zip(text) {
        if let Some(body) = body
            && let Some(state) = status_of(&body)
        {
            found.entry(id.clone()).or_insert(state);
        }
    }
    found
}

/// `status` and `assignee` of an issue file's frontmatter.
fn status_of(text: &str) -> Option<(Status, Option<String>)> {
    let front = text.strip_prefix("---")?.split("\n---").next()?;
    let field = |name: &str| {
        front.lines().find_map(|l| {
            let v = l.strip_prefix(name)?.strip_prefix(':')?.trim().trim_matches(['"', '\'']).to_string();
            Some(v).filter(|v| !v.is_empty())
        })
    };
    let status = Status::parse_loose(&field("status")?)?;
    Some((status, field("assignee")))
}

fn problem(id: Option<&str>, paths: Vec<String>, message: String, fixable: bool) -> Problem {
    Problem { kind: Kind::ClaimRef, id: id.map(str::to_string), paths, message, fixable }
}

/// The claim problems of the workspace, and notes about other clones' claims.
pub(super) fn check(store: &Store, scan: &Scan) -> (Vec<Problem>, Vec<String>) {
    let found = mismatches(store, scan);
    (found.problems.into_iter().map(|(p, _)| p).collect(), found.notes)
}

/// Repairs what [`check`] found; what it did, and what it left to a person. Call without the
/// workspace lock held (a completed claim takes it; the remote is asked).
pub(super) fn fix(store: &Store, scan: &Scan) -> (Vec<String>, Vec<String>) {
    let (mut changes, mut notes) = (Vec::new(), Vec::new());
    let Ok(Some(refs)) = store.claim_refs() else { return (changes, notes) };
    let mut settled = false;
    for (problem, mend) in mismatches(store, scan).problems {
        let done = match mend {
            None => {
                notes.push(problem.message);
                continue;
            }
            Some(Mend::Settle) if settled => continue,
            Some(Mend::Settle) => {
                settled = true;
                let before = store.pending_claims();
                let left = store.settle_claims(refs.until());
                for p in before.iter().filter(|p| !left.contains(p)) {
                    changes.push(format!("finished the queued release of {}'s claim of {}", p.holder, p.id));
                }
                match left.first() {
                    None => continue,
                    Some(p) => Err(format!("{} release(s) still queued: {}", left.len(), p.why)),
                }
            }
            Some(Mend::Drop(c)) => refs.drop_claim(&c).map_err(|r| r.short()).and_then(|gone| {
                gone.then(|| format!("removed the claim ref of {} ({})", c.id, c.describe()))
                    .ok_or_else(|| "it changed meanwhile".to_string())
            }),
            Some(Mend::Complete(c)) => store
                .claim_with(&c.id, &c.holder, None)
                .map(|_| {
                    format!(
                        "completed {}'s claim for {} (its ref was taken, its file write was interrupted)",
                        c.id, c.holder
                    )
                })
                .map_err(|e| e.to_string()),
            Some(Mend::Record { id, holder }) => match refs.take(&id, &holder, None) {
                Ok(_) => Ok(format!("recorded {holder}'s claim of {id} in its claim ref")),
                Err(r) => Err(r.reason()),
            },
        };
        match done {
            Ok(change) => changes.push(change),
            Err(why) => notes.push(format!("{} (not repaired: {why})", problem.message)),
        }
    }
    (changes, notes)
}
