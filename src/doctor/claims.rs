//! Claim refs against the files (issue 38, "reconcile, never lose"), where claims are held in
//! refs (a claims remote, `worktrees: local`, a bare repository): a claim killed between the ref
//! and the file write, a ref whose issue was deleted or renumbered by a merge, a ref a close did
//! not release, a file in progress with no ref. `--fix` makes the two agree without dropping a
//! claim: the interrupted claim is completed for its holder, an in-progress file gets its holder's
//! ref, and only a ref naming no open issue is removed (compare-and-set on it).

use std::collections::HashSet;

use super::{Kind, Problem, Scan};
use crate::store::git::claims::Claim;
use crate::store::{Status, Store};

/// What to do about one mismatch.
enum Mend {
    /// Remove the ref (its issue is gone or finished).
    Drop(Claim),
    /// Write the claim into the file for the ref's holder.
    Complete(Claim),
    /// Create the ref for the file's holder.
    Record { id: String, holder: String },
}

/// Every mismatch between the claim refs and the files, with its repair (`None`: a person decides).
fn mismatches(store: &Store, scan: &Scan) -> Vec<(Problem, Option<Mend>)> {
    if !store.claims_need_refs() || matches!(store.claim_refs(), Ok(None)) {
        return Vec::new();
    }
    let claims = match store.claim_ref_list() {
        Ok(claims) => claims,
        Err(why) => {
            let message = format!("the claim refs could not be read: {why}");
            return vec![(problem(None, Vec::new(), message, false), None)];
        }
    };
    let mut out = Vec::new();
    let mut with_ref = HashSet::new();
    for c in claims {
        with_ref.insert(c.id.to_uppercase());
        // A lapsed lease is free work, not a claim to complete or repair.
        if c.lapsed(store.claim_ttl()).is_some() {
            continue;
        }
        let issue = scan.issues.iter().find(|m| m.id.eq_ignore_ascii_case(&c.id));
        let paths = issue.map(|m| vec![scan.rel(&m.path)]).unwrap_or_default();
        let who = c.describe();
        let holder = issue.and_then(|m| m.assignee.as_deref()).map(str::trim).filter(|a| !a.is_empty());
        let (message, mend) = match issue.map(|m| (m.status, holder)) {
            None => (
                format!(
                    "the claim ref of {} ({who}) names no issue (deleted, or renumbered by a merge); --fix removes the ref, and a renumbered issue in progress gets its own",
                    c.id
                ),
                Some(Mend::Drop(c.clone())),
            ),
            Some((s, _)) if s.is_archived() => (
                format!(
                    "{} is {s} but its claim ref remains ({who}), a release that did not happen; --fix removes the ref",
                    c.id
                ),
                Some(Mend::Drop(c.clone())),
            ),
            Some((Status::InProgress, Some(h))) if h == c.holder => continue,
            Some((Status::Open, h)) if h.is_none_or(|h| h == c.holder) => (
                format!(
                    "{} is {who} in its claim ref, but its file says open: a claim interrupted before its file write; --fix completes it for {}",
                    c.id, c.holder
                ),
                Some(Mend::Complete(c.clone())),
            ),
            Some((s, h)) => (
                format!(
                    "{}'s claim ref says it is {who}, its file says {s} for {}; decide who has it: issues_claim with takeoverReason moves the claim, issues_update sets the file",
                    c.id,
                    h.unwrap_or("nobody")
                ),
                None,
            ),
        };
        out.push((problem(Some(&c.id), paths, message, mend.is_some()), mend));
    }
    for m in scan.issues.iter().filter(|m| m.status == Status::InProgress && !with_ref.contains(&m.id.to_uppercase())) {
        let Some(holder) = m.assignee.as_deref().map(str::trim).filter(|a| !a.is_empty()) else { continue };
        let message = format!(
            "{} is in progress for {holder} in its file, but no claim ref holds it, so other clones or worktrees could claim it too; --fix records {holder}'s claim",
            m.id
        );
        let mend = Mend::Record { id: m.id.clone(), holder: holder.to_string() };
        out.push((problem(Some(&m.id), vec![scan.rel(&m.path)], message, true), Some(mend)));
    }
    out
}

fn problem(id: Option<&str>, paths: Vec<String>, message: String, fixable: bool) -> Problem {
    Problem { kind: Kind::ClaimRef, id: id.map(str::to_string), paths, message, fixable }
}

/// The claim problems of the workspace.
pub(super) fn check(store: &Store, scan: &Scan) -> Vec<Problem> {
    mismatches(store, scan).into_iter().map(|(p, _)| p).collect()
}

/// Repairs what [`check`] found; what it did, and what it left to a person. Call without the
/// workspace lock held (a completed claim takes it).
pub(super) fn fix(store: &Store, scan: &Scan) -> (Vec<String>, Vec<String>) {
    let (mut changes, mut notes) = (Vec::new(), Vec::new());
    let Ok(Some(refs)) = store.claim_refs() else { return (changes, notes) };
    for (problem, mend) in mismatches(store, scan) {
        let done = match mend {
            None => {
                notes.push(problem.message);
                continue;
            }
            Some(Mend::Drop(c)) => refs.drop_claim(&c).map_err(|r| r.reason()).and_then(|gone| {
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
