//! `docket git-setup`: route the workspace's issue files through the merge driver and install
//! the hooks that renumber ids a merge duplicated ([`super::hooks`]). Writes a `.gitattributes`
//! inside the workspace directory (it applies to that directory only and moves with it), the
//! `merge.docket` driver to the repository's config, and the hooks. Idempotent: running it again
//! changes nothing and says so.

use std::path::Path;

use super::Repo;
use crate::fs::Root;
use crate::{IssueType, StoreError, Workspace};

const HEADER: &str = "# docket: merge issue files field by field (written by `docket git-setup`)";

/// The attribute lines for the workspace's markdown issue files (archived ones included).
fn attribute_lines() -> Vec<String> {
    IssueType::ALL.iter().map(|t| format!("{}/**/*.md merge=docket", t.folder())).collect()
}

/// Single quotes for `sh`, which runs the driver command.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Sets up `ws`'s repository to merge issue files with `docket` at `exe`; returns one line per
/// change made (or found already in place).
pub fn git_setup(ws: &Workspace, exe: &Path) -> Result<Vec<String>, String> {
    let repo = Repo::discover(&ws.dir).ok_or_else(|| {
        format!(
            "{} is not inside a git repository (or git is not installed). Run `git init` in the repository root first, then `docket git-setup` again.",
            ws.dir.display()
        )
    })?;
    let mut report = Vec::new();
    let attributes = ws.dir.join(".gitattributes");
    // Through the rooted layer: a `.gitattributes` committed as a link is refused, never
    // read or written through.
    let root = Root::workspace(ws).map_err(|e| e.to_string())?;
    let existing = match root.read(&attributes, crate::files::MAX_FILE_BYTES) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(StoreError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("cannot read {e}")),
    };
    let present: Vec<&str> = existing.lines().map(str::trim).collect();
    let missing: Vec<String> = attribute_lines().into_iter().filter(|l| !present.contains(&l.as_str())).collect();
    if missing.is_empty() {
        report.push(format!("{}: already routes issue files to the docket merge driver", attributes.display()));
    } else {
        let mut text = existing.clone();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        if !present.contains(&HEADER) {
            text.push_str(HEADER);
            text.push('\n');
        }
        for line in &missing {
            text.push_str(line);
            text.push('\n');
        }
        root.write_atomic(&attributes, text.as_bytes(), None).map_err(|e| format!("cannot write {e}"))?;
        report.push(format!("{}: added {}", attributes.display(), missing.join(", ")));
    }
    let driver = format!("{} merge-file %O %A %B %P", shell_quote(&exe.to_string_lossy()));
    for (key, value) in
        [("merge.docket.name", "docket issue files, merged field by field"), ("merge.docket.driver", &driver)]
    {
        let current = repo.git(&["config", "--local", "--get", key]).map(|v| v.trim_end().to_string());
        if current.as_deref() == Some(value) {
            report.push(format!("git config {key}: already set"));
        } else {
            super::run_checked(&repo.toplevel, &["config", "--local", key, value])?;
            report.push(format!("git config {key} = {value}"));
        }
    }
    report.extend(super::hooks::install(&repo, exe)?);
    Ok(report)
}
