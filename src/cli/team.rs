//! The commands for working in a team: `doctor`, `git-setup` and the `merge-file` driver. They
//! present what the store does (its check and repairs, `store::repair`; the git setup; the merge
//! driver, `store::git::driver`), which writes every file (`doctor` without `--fix` reads through
//! the same check as the workspace_doctor tool).

use std::fmt::Write;

use serde_json::{Value, json};

use super::args::{DoctorArgs, GitSetupArgs, MergeFileArgs};
use crate::app::App;
use crate::store::Workspace;
use crate::store::repair::{self as doctor, Problem, Verdict};

fn problem_json(p: &Problem) -> Value {
    json!({"kind": p.kind.as_str(), "id": p.id, "paths": p.paths, "message": p.message, "fixable": p.fixable})
}

/// `docket doctor [--fix]`: the text (or JSON) to print and what is left (the exit code).
pub(super) fn doctor(a: &DoctorArgs) -> Result<(String, Verdict), String> {
    // No workspace yet is not a problem: the rule every command follows (`docket list` too).
    let ws =
        a.ws.resolve_or_pending()
            .map_err(|e| format!("{e}\nRun `docket init` in your repository or pass --workspace PATH."))?;
    if !ws.exists() {
        let rule = super::words::in_cli_terms(&crate::call::no_workspace_yet(&ws).message);
        if a.json {
            let out = json!({"problems": [], "total": 0, "workspace": null, "note": rule});
            return Ok((super::json_text(&out), Verdict::Clean));
        }
        let what = if a.fix { "Nothing to repair" } else { "Nothing to check" };
        return Ok((format!("{rule}\n{what}.\n"), Verdict::Clean));
    }
    let app = App::load(ws, &[]).map_err(|e| e.to_string())?;
    let outcome = if a.fix { Some(doctor::fix::fix(&app.store)?) } else { None };
    let report = doctor::check(&app.store).map_err(|e| e.to_string())?;
    // What --fix would change, in the words it prints when it does.
    let planned = match a.fix || report.problems.iter().all(|p| !p.fixable) {
        true => Vec::new(),
        false => doctor::fix::plan(&app.store)?.changes,
    };
    let mut verdict = Verdict::of(&report.problems);
    // Exit 1 says `--fix` repairs something: not after a --fix that could repair nothing.
    if a.fix && verdict == Verdict::Fixable && outcome.as_ref().is_some_and(|o| o.changes.is_empty()) {
        verdict = Verdict::NeedsPerson;
    }
    let clean = verdict == Verdict::Clean;
    if a.json {
        let mut out = json!({
            "problems": report.problems.iter().map(problem_json).collect::<Vec<_>>(),
            "total": report.problems.len(),
        });
        out["notes"] = json!(report.notes);
        if !a.fix {
            out["repairs"] = json!(planned);
        }
        if let Some(o) = &outcome {
            out["changes"] = json!(o.changes);
            out["notes"] = json!(o.notes.iter().chain(&report.notes).collect::<Vec<_>>());
        }
        if let Some(note) = app.store.workspace().worktree_note() {
            out["worktrees"] = json!(note);
        }
        return Ok((super::json_text(&out), verdict));
    }
    let mut text = String::new();
    if let Some(note) = app.store.workspace().worktree_note() {
        let _ = writeln!(text, "Worktrees: {note}.");
    }
    if let Some(o) = &outcome {
        for change in &o.changes {
            let _ = writeln!(text, "fixed: {change}");
        }
        for note in &o.notes {
            let _ = writeln!(text, "note: {note}");
        }
        if o.changes.is_empty() {
            let _ = writeln!(text, "Nothing to repair.");
        } else {
            let _ = writeln!(text, "{} change(s) made.", o.changes.len());
        }
    }
    for note in &report.notes {
        let _ = writeln!(text, "note: {note}");
    }
    let width = report.problems.iter().map(|p| p.kind.as_str().len()).max().unwrap_or(0);
    for p in &report.problems {
        let _ = writeln!(text, "{:<width$}  {}", p.kind.as_str(), p.message);
    }
    for change in &planned {
        let _ = writeln!(text, "--fix will: {change}");
    }
    let ws = app.store.workspace().dir.display().to_string();
    if clean {
        let _ = writeln!(text, "No problems found in {ws}.");
    } else {
        let fixable = report.problems.iter().filter(|p| p.fixable).count();
        let _ = write!(text, "{} problem(s) in {ws}: {}.", report.problems.len(), doctor::summary(&report.problems));
        if fixable > 0 && !a.fix {
            let _ = write!(
                text,
                " `docket doctor --fix` repairs {fixable} of them, making the {} change(s) listed (--fix will: ...).",
                planned.len()
            );
        }
        if fixable < report.problems.len() {
            let _ = write!(
                text,
                " {} need a person (each line says what to do).",
                if fixable == 0 { "They" } else { "The rest" }
            );
        }
        text.push('\n');
    }
    Ok((text, verdict))
}

pub(super) fn git_setup(a: &GitSetupArgs) -> Result<String, String> {
    let ws =
        a.ws.resolve().map_err(|e| format!("{e}\nRun `docket init` in your repository or pass --workspace PATH."))?;
    setup_lines(&ws)
}

/// Runs the git setup for `ws` with this executable as the driver; one line per step.
pub fn setup_lines(ws: &Workspace) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the docket executable's path: {e}"))?;
    let lines = crate::store::git::setup::git_setup(ws, &exe)?;
    Ok(lines.into_iter().map(|l| l + "\n").collect())
}

/// `docket merge-file %O %A %B %P`: true when the merge is clean (the store's merge driver,
/// [`crate::store::git::driver`], writes the result; its words go to stderr, where git shows them).
pub(super) fn merge_file(a: &MergeFileArgs) -> Result<bool, String> {
    let merged = crate::store::git::driver::merge_file(&a.base, &a.ours, &a.theirs, a.path.as_deref())?;
    for line in &merged.said {
        eprintln!("{line}");
    }
    Ok(merged.clean)
}
