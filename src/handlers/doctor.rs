//! workspace_doctor: the read-only half of `docket doctor` (repairs stay with the CLI's `--fix`).

use super::Handlers;
use super::convert::store_error;
use crate::doctor;
use crate::generated::{DoctorProblem, DoctorProblemKind, ResponseFormat, WorkspaceDoctorInput, WorkspaceDoctorOutput};
use crate::runtime::{Reply, ResultCounts, ToolResult};
use crate::store::Store;

pub fn check(cx: &Handlers, input: WorkspaceDoctorInput) -> ToolResult<WorkspaceDoctorOutput> {
    let store: &Store = &cx.store;
    let report = doctor::check(store).map_err(store_error)?;
    let problems: Vec<DoctorProblem> = report
        .problems
        .iter()
        .map(|p| DoctorProblem {
            kind: kind(p.kind),
            id: p.id.clone(),
            paths: p.paths.clone(),
            message: p.message.clone(),
            fixable: p.kind.fixable(),
        })
        .collect();
    let text = match input.response_format {
        ResponseFormat::Json => None,
        ResponseFormat::Markdown if problems.is_empty() => Some("No problems found in the workspace files.".into()),
        ResponseFormat::Markdown => {
            let fixable = problems.iter().filter(|p| p.fixable).count();
            let mut lines: Vec<String> = problems.iter().map(|p| format!("- {}: {}", p.kind, p.message)).collect();
            lines.push(format!(
                "{} problem(s): {}. {fixable} can be repaired by a person running `docket doctor --fix`.",
                problems.len(),
                doctor::summary(&report.problems)
            ));
            Some(lines.join("\n"))
        }
    };
    let counts = ResultCounts { total: problems.len(), returned: problems.len(), truncated: false };
    let total = problems.len() as i64;
    let mut reply = Reply::new(WorkspaceDoctorOutput { problems, total }).with_results(counts);
    reply.text = text;
    Ok(reply)
}

/// Exhaustive: a kind added on either side fails to compile until mapped here.
fn kind(k: doctor::Kind) -> DoctorProblemKind {
    match k {
        doctor::Kind::DuplicateId => DoctorProblemKind::DuplicateId,
        doctor::Kind::InterruptedMove => DoctorProblemKind::InterruptedMove,
        doctor::Kind::Misplaced => DoctorProblemKind::Misplaced,
        doctor::Kind::NameMismatch => DoctorProblemKind::NameMismatch,
        doctor::Kind::BrokenFrontmatter => DoctorProblemKind::BrokenFrontmatter,
        doctor::Kind::MissingParent => DoctorProblemKind::MissingParent,
        doctor::Kind::StaleTempFile => DoctorProblemKind::StaleTempFile,
        doctor::Kind::MalformedId => DoctorProblemKind::MalformedId,
        doctor::Kind::MissingBlocker => DoctorProblemKind::MissingBlocker,
        doctor::Kind::BlockerCycle => DoctorProblemKind::BlockerCycle,
    }
}
