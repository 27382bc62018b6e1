//! The commands for working in a team: `doctor`, `git-setup` and the `merge-file` driver. They
//! work on the workspace files and the repository directly rather than through a tool call
//! (`doctor` without `--fix` reads through the same check as the workspace_doctor tool).

use std::fmt::Write;
use std::path::Path;

use serde_json::{Value, json};

use super::args::{DoctorArgs, GitSetupArgs, MergeFileArgs};
use crate::app::App;
use crate::doctor::{self, Problem, Verdict};
use crate::store::Workspace;

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

/// The version of the issue in `ours` and `theirs` (two files added at `path` on both branches
/// with one `docketKey`) before either branch moved it to `path`: the file of that key at the
/// same name in the other folder (`issues/` for `issues/archived/`, and back) in the merge base
/// of HEAD and the branch whose file at `path` is `theirs` (a local or remote-tracking branch:
/// `git pull` has just updated it), else in HEAD's history. `None` when neither held it: then
/// the two are two issues (two hand copies of one file), as before.
fn moved_from(path: &str, theirs_file: &Path, ours: &str, theirs: &str) -> Option<String> {
    use crate::store::git::merge::identity_key;
    use crate::store::git::run;
    let key = identity_key(ours).filter(|k| identity_key(theirs).as_ref() == Some(k))?;
    let (dir, name) = path.rsplit_once('/')?;
    let other = match dir.strip_suffix("/archived") {
        Some(folder) => format!("{folder}/{name}"),
        None => format!("{dir}/archived/{name}"),
    };
    let here = Path::new(".");
    let version = |rev: &str| {
        run(here, &["cat-file", "blob", &format!("{}:{other}", rev.trim())])
            .filter(|text| identity_key(text).as_deref() == Some(key.as_str()))
    };
    let blob = run(here, &["hash-object", "--", &theirs_file.to_string_lossy()])?;
    let tips = run(here, &["for-each-ref", "--format=%(refname)", "refs/remotes", "refs/heads"]).unwrap_or_default();
    let theirs_tip = tips.lines().find(|tip| {
        run(here, &["rev-parse", "-q", "--verify", &format!("{tip}:{path}")]).is_some_and(|b| b.trim() == blob.trim())
    });
    if let Some(tip) = theirs_tip
        && let Some(merge_base) = run(here, &["merge-base", "HEAD", tip])
        && let Some(text) = version(&merge_base)
    {
        return Some(text);
    }
    // Our last version there: the commit that moved it away had it in its parent.
    let last = run(here, &["rev-list", "-1", "HEAD", "--", &other])?;
    version(&last).or_else(|| version(&format!("{}^", last.trim())))
}

/// `text` with each conflict of [`crate::store::git::merge::merge_file`] (`<<<<<<< ours`, ours,
/// `=======`, theirs, `>>>>>>> theirs`, each marker a line of its own) replaced by ours then
/// theirs: nothing either side wrote is lost.
fn both_sides(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        match bare {
            "<<<<<<< ours" if !inside => inside = true,
            "=======" if inside => {}
            ">>>>>>> theirs" if inside => inside = false,
            _ => out.push_str(line),
        }
    }
    out
}

/// `docket merge-file %O %A %B %P`: true when the merge is clean.
pub(super) fn merge_file(a: &MergeFileArgs) -> Result<bool, String> {
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()));
    let (mut base, ours, theirs) = (read(&a.base)?, read(&a.ours)?, read(&a.theirs)?);
    let mut moved = false;
    // Both branches moved one issue here (each closed it, or one closed it and git saw no
    // rename): one issue in two states, merged against its version before the moves, never
    // split into two issues.
    if base.is_empty()
        && let Some(path) = a.path.as_deref()
        && let Some(before) = moved_from(path, &a.theirs, &ours, &theirs)
    {
        (base, moved) = (before, true);
    }
    if let Some(path) = a.path.as_deref()
        && (crate::store::git::merge::two_issues(&ours, &theirs)
            || (base.is_empty() && !crate::store::git::merge::same_issue_added(&ours, &theirs)))
    {
        eprintln!("{}", super::split::split(&a.ours, &a.theirs, path, &ours, &theirs)?);
        return Ok(true);
    }
    let mut merged = crate::store::git::merge::merge_file(&base, &ours, &theirs);
    if moved && merged.conflicts {
        // Both closes appended to the body (two completion notes, a hand-over): keep both.
        merged.text = both_sides(&merged.text);
        merged.conflicts = false;
    }
    // Rooted at the folder git named: the result replaces %A itself, never a link's target.
    crate::store::fs::replace_named(&a.ours, merged.text.as_bytes()).map_err(|e| format!("cannot write {e}"))?;
    if merged.conflicts {
        eprintln!(
            "docket merge-file: {}: the body has conflict markers (the frontmatter is merged); edit the body, then `git add` it",
            a.path.as_deref().unwrap_or("the file")
        );
    }
    Ok(!merged.conflicts)
}
