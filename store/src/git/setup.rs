//! `docket git-setup`: route the workspace's issue files through the merge driver and install
//! the hooks that renumber ids a merge duplicated ([`super::hooks`]). Writes a `.gitattributes`
//! inside the workspace directory (it applies to that directory only and moves with it), the
//! `merge.docket` driver to the repository's config, and the hooks. Idempotent: running it again
//! changes nothing and says so.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;

use super::Repo;
use crate::fs::Root;
use crate::model::{IssueType, StoreError};
use crate::workspace::Workspace;

const HEADER: &str = "# docket: merge issue files field by field (written by `docket git-setup`)";

/// The attribute lines for the workspace's markdown issue files (archived ones included).
fn attribute_lines() -> Vec<String> {
    IssueType::ALL.iter().map(|t| format!("{}/**/*.md merge=docket", t.folder())).collect()
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
    // git runs the driver through `sh`: the executable is quoted for it, and git quotes %P itself.
    let mut driver = super::shell_quote(exe.as_os_str());
    driver.extend_from_slice(b" merge-file %O %A %B %P");
    let rel = Repo::ws_rel_path(&ws.dir, &repo.toplevel).ok_or_else(|| {
        format!(
            "{} is not inside the worktree at {}; run `docket git-setup` from the repository",
            ws.dir.display(),
            repo.toplevel.display()
        )
    })?;
    let values: [(&str, &OsStr); 3] = [
        ("merge.docket.name", OsStr::new("docket issue files, merged field by field")),
        ("merge.docket.driver", OsStr::from_bytes(&driver)),
        (super::HOOK_WORKSPACE_KEY, rel.as_os_str()),
    ];
    for (key, value) in values {
        if super::config_value(&repo.toplevel, key).as_deref() == Some(value) {
            report.push(format!("git config {key}: already set"));
        } else {
            config_set(&repo.toplevel, key, value)?;
            report.push(format!("git config {key} = {}", value.to_string_lossy()));
        }
    }
    report.extend(super::hooks::install(&repo, exe)?);
    Ok(report)
}

/// Sets a key of the repository's own config to `value`, passed to git as an argument (no shell).
fn config_set(top: &Path, key: &str, value: &OsStr) -> Result<(), String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(top)
        .args(["config", "--local", key])
        .arg(value)
        .output()
        .map_err(|e| format!("cannot run git ({e}); is git installed and on PATH?"))?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!("`git config --local {key}` failed: {}", String::from_utf8_lossy(&out.stderr).trim()))
}
