//! workspace_doctor: `docket doctor` for an agent; `fix: true` is `docket doctor --fix` (the same
//! repairs, the same rules), so an agent with only MCP can repair a duplicated id.

use super::Handlers;
use super::convert::store_error;
use crate::generated::{
    DoctorProblem, DoctorProblemKind, ResponseFormat, WorkspaceDoctorInput, WorkspaceDoctorOutput, errors,
};
use crate::runtime::{Reply, ResultCounts, ToolResult};
use crate::store::Store;
use crate::store::repair as doctor;

pub fn check(cx: &Handlers, input: WorkspaceDoctorInput) -> ToolResult<WorkspaceDoctorOutput> {
    let store: &Store = &cx.store;
    let outcome = if input.fix { Some(doctor::fix::fix(store).map_err(errors::storage_failed)?) } else { None };
    let report = doctor::check(store).map_err(store_error)?;
    let problems: Vec<DoctorProblem> = report
        .problems
        .iter()
        .map(|p| DoctorProblem {
            kind: kind(p.kind),
            id: p.id.clone(),
            paths: p.paths.clone(),
            message: p.message.clone(),
            fixable: p.fixable,
        })
        .collect();
    let note = store.workspace().worktree_note();
    let text = match input.response_format {
        ResponseFormat::Json => None,
        ResponseFormat::Markdown => {
            // What fix: true would change, in the words it says when it does.
            let planned = match outcome.is_none() && problems.iter().any(|p| p.fixable) {
                true => doctor::fix::plan(store).map_err(errors::storage_failed)?.changes,
                false => Vec::new(),
            };
            let mut body = markdown(&problems, &report.problems, outcome.as_ref(), &planned);
            // Claims of other clones and a clone claiming alone: no problem, but worth saying.
            for n in &report.notes {
                body.push_str(&format!("\n- note: {n}"));
            }
            Some(note.iter().map(|n| format!("Worktrees: {n}.\n")).collect::<String>() + &body)
        }
    };
    let counts = ResultCounts { total: problems.len(), returned: problems.len(), truncated: false };
    let total = problems.len() as i64;
    let (changes, notes) = outcome.map(|o| (o.changes, o.notes)).unzip();
    let mut reply = Reply::new(WorkspaceDoctorOutput { problems, total, changes, notes }).with_results(counts);
    if let Some(n) = note {
        reply = reply.with_context(serde_json::json!({"worktrees": n}));
    }
    reply.text = text;
    Ok(reply)
}

fn markdown(
    problems: &[DoctorProblem],
    found: &[doctor::Problem],
    outcome: Option<&doctor::fix::Outcome>,
    planned: &[String],
) -> String {
    let mut lines: Vec<String> = Vec::new();
    if let Some(o) = outcome {
        lines.extend(o.changes.iter().map(|c| format!("- fixed: {c}")));
        lines.extend(o.notes.iter().map(|n| format!("- note: {n}")));
        if o.changes.is_empty() {
            lines.push("Nothing to repair.".into());
        }
    }
    if problems.is_empty() {
        lines.push("No problems found in the workspace files.".into());
        return lines.join("\n");
    }
    lines.extend(problems.iter().map(|p| format!("- {}: {}", p.kind, p.message)));
    lines.extend(planned.iter().map(|c| format!("- fix: true will: {c}")));
    let fixable = problems.iter().filter(|p| p.fixable).count();
    let next = match (fixable, outcome.is_some()) {
        (0, _) => "They need a person: each says what to do.".to_string(),
        (n, false) => format!("Call workspace_doctor with fix: true to repair {n} of them."),
        (n, true) => format!("{n} could not be repaired: see the notes."),
    };
    lines.push(format!("{} problem(s): {}. {next}", problems.len(), doctor::summary(found)));
    lines.join("\n")
}

/// Exhaustive: a kind added on either side fails to compile until mapped here.
fn kind(k: doctor::Kind) -> DoctorProblemKind {
    match k {
        doctor::Kind::DuplicateId => DoctorProblemKind::DuplicateId,
        doctor::Kind::DuplicateKey => DoctorProblemKind::DuplicateKey,
        doctor::Kind::InterruptedMove => DoctorProblemKind::InterruptedMove,
        doctor::Kind::Misplaced => DoctorProblemKind::Misplaced,
        doctor::Kind::NameMismatch => DoctorProblemKind::NameMismatch,
        doctor::Kind::BrokenFrontmatter => DoctorProblemKind::BrokenFrontmatter,
        doctor::Kind::MissingParent => DoctorProblemKind::MissingParent,
        doctor::Kind::StaleTempFile => DoctorProblemKind::StaleTempFile,
        doctor::Kind::MalformedId => DoctorProblemKind::MalformedId,
        doctor::Kind::MissingBlocker => DoctorProblemKind::MissingBlocker,
        doctor::Kind::BlockerCycle => DoctorProblemKind::BlockerCycle,
        doctor::Kind::ClaimRef => DoctorProblemKind::ClaimRef,
    }
}
