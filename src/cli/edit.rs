//! `docket edit ID`: the issue's file in the user's editor. The editor works on a copy; the
//! file is replaced only if the copy still has parsing frontmatter with the same ID, and only
//! if nobody changed the file meanwhile (an agent, another editor). Otherwise the file is left
//! as it was and the edited copy is kept, so no work is lost. A saved edit gets what an update
//! gets: a new `updatedAt`, `closedAt` when it closes, and the folder its status asks for.

use std::path::Path;
use std::process::Command;

use super::args::WorkspaceArg;
use crate::store::{EditCopy, Store, StoreOptions, check_issue_text};

pub(super) fn edit(ws: &WorkspaceArg, id: &str) -> Result<String, String> {
    let ws =
        ws.resolve().map_err(|e| format!("{e}\nRun `docket init` in your repository or pass --workspace PATH."))?;
    let store = Store::open(ws, StoreOptions::default());
    let (path, original) = store.editable_file(id).map_err(|e| match e {
        crate::store::StoreError::NotFound { .. } => {
            format!("{e}. `docket list` or `docket search TEXT` shows the IDs.")
        }
        other => other.to_string(),
    })?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("issue.md");
    let copy = EditCopy::of(name, &original).map_err(|e| format!("cannot create a copy to edit: {e}"))?;
    run_editor(copy.path())?;
    let edited = std::fs::read_to_string(copy.path())
        .map_err(|e| format!("cannot read the edited copy {}: {e}", copy.path().display()))?;
    let rel = path.strip_prefix(&store.workspace().root).unwrap_or(&path).display().to_string();
    if edited == original {
        return Ok(format!("No change to {id} ({rel}).\n"));
    }
    let keep = |why: String| -> String {
        let where_ = match copy.keep_rejected(&edited) {
            Ok(kept) => format!("Your edit is kept in {}", kept.display()),
            Err(e) => format!("(your edit could not be kept: {e})"),
        };
        format!("{why}. {rel} is unchanged. {where_}; fix it and copy it over, or run `docket edit {id}` again.")
    };
    if let Err(reason) = check_issue_text(&original, &edited) {
        return Err(keep(format!("{id} was not saved: {reason}")));
    }
    match store.replace_text(&path, &original, &edited) {
        Ok(Some(now)) if now != path => {
            let moved = now.strip_prefix(&store.workspace().root).unwrap_or(&now).display().to_string();
            Ok(format!("Saved {id} and moved it to {moved} (its status asks for that folder).\n"))
        }
        Ok(Some(_)) => Ok(format!("Saved {id} ({rel}).\n")),
        Ok(None) => Err(keep(format!(
            "{id} was not saved: the file changed on disk while you edited it (an agent or another editor wrote it)"
        ))),
        Err(e) => Err(keep(format!("{id} was not saved: {e}"))),
    }
}

/// Runs `$VISUAL`, else `$EDITOR`, else `vi` on `file`, through the shell like git does (so an
/// editor with arguments, `code --wait`, works), with the terminal.
fn run_editor(file: &Path) -> Result<(), String> {
    let editor = ["VISUAL", "EDITOR"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|e| !e.trim().is_empty()))
        .unwrap_or_else(|| "vi".to_string());
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("docket-edit")
        .arg(file)
        .status()
        .map_err(|e| format!("cannot start the editor `{editor}`: {e}. Set EDITOR to your editor's command."))?;
    if !status.success() {
        return Err(format!(
            "the editor `{editor}` exited with {status}; nothing was saved. Set EDITOR to your editor's command, e.g. EDITOR=nano."
        ));
    }
    Ok(())
}
