//! Finding the file that holds an ID: exactly, or by a short form (`42`, `000042`), and what a
//! read or a write does when several files hold it.

use std::path::PathBuf;

use super::Index;
use super::slots::digits_of;
use crate::files;
use crate::model::{StoreError, StoreWarning, StoreWarningCode};

/// The one file holding `id`, for a write: an ID held by several files is refused (a write must
/// never pick one of them at random).
pub fn resolve_for_write(index: &Index, id: &str) -> Result<PathBuf, StoreError> {
    let mut paths = candidates(index, id)?;
    match paths.len() {
        1 => Ok(paths.remove(0)),
        _ => Err(StoreError::Ambiguous { id: id.trim().to_string(), paths }),
    }
}

/// The file holding `id`, for a read. When several files hold it, the first in a fixed order
/// (not archived before archived, then earliest created, then path) and a DUPLICATE_ID warning
/// that names it and the others, so an agent can still read the issue.
pub fn resolve_for_read(index: &Index, id: &str) -> Result<(PathBuf, Option<StoreWarning>), StoreError> {
    let (mut paths, aliased) = lookup(index, id)?;
    if aliased {
        return Ok(became(index, id, paths));
    }
    if paths.len() == 1 {
        return Ok((paths.remove(0), None));
    }
    let key = |p: &PathBuf| {
        let m = index.meta_at(p);
        (m.as_ref().is_some_and(|m| m.status.is_archived()), m.map(|m| m.created_at.clone()), p.clone())
    };
    paths.sort_by_key(key);
    let rel = |p: &PathBuf| p.strip_prefix(index.root()).unwrap_or(p).display().to_string();
    let others: Vec<String> = paths[1..].iter().map(rel).collect();
    let warning = StoreWarning {
        code: StoreWarningCode::DuplicateId,
        message: format!(
            "{} is held by {} files; this is {} (reads show an open one before a closed one, then the one created first). The others: {}. Updates to \
             this ID are refused until the duplicates are renumbered: call workspace_doctor with fix: true (or run \
             `docket doctor --fix`).",
            id.trim(),
            paths.len(),
            rel(&paths[0]),
            others.join(", ")
        ),
        paths: paths.clone(),
    };
    Ok((paths.remove(0), Some(warning)))
}

/// The issue an old tracker's id names, for a read: the first (in path order) when several
/// imported issues had it (two Backlog.md projects' `task-1`), with an IMPORTED_ID warning that
/// says which docket issue the old id became.
fn became(index: &Index, id: &str, mut paths: Vec<PathBuf>) -> (PathBuf, Option<StoreWarning>) {
    let name = |p: &PathBuf| {
        index.meta_at(p).map_or_else(
            || p.display().to_string(),
            |m| match m.context.get("importedProject").and_then(|v| v.as_str()) {
                Some(project) => format!("{} (from {project})", m.id),
                None => m.id.clone(),
            },
        )
    };
    let from = index
        .meta_at(&paths[0])
        .and_then(|m| m.context.get("importedFrom").and_then(|v| v.as_str()).map(str::to_string))
        .unwrap_or_default();
    let message = match paths.len() {
        1 => format!(
            "{} is the id this issue had before it was imported (wranglerContext.importedFrom: {from}); it is {} now: use that id.",
            id.trim(),
            name(&paths[0])
        ),
        n => format!(
            "{} was the id of {n} imported issues: {}; this is {}. Name the one you mean by its docket id.",
            id.trim(),
            paths.iter().map(name).collect::<Vec<_>>().join(", "),
            name(&paths[0])
        ),
    };
    let warning = StoreWarning { code: StoreWarningCode::ImportedId, message, paths: paths.clone() };
    (paths.remove(0), Some(warning))
}

/// Every file holding `id`: exact match first, then short forms (`42`, `000042`, `ISS-000042` for
/// a legacy `000042`), then the issues imported from a tracker that named them so (`BACK-12`,
/// `bd-a1b2.3`: `wranglerContext.importedFrom`).
pub fn candidates(index: &Index, id: &str) -> Result<Vec<PathBuf>, StoreError> {
    lookup(index, id).map(|(paths, _)| paths)
}

/// [`candidates`], and whether they were found by an old tracker's id.
fn lookup(index: &Index, id: &str) -> Result<(Vec<PathBuf>, bool), StoreError> {
    let id = id.trim();
    if let Err(invalid) = files::validate_id(id) {
        // An old tracker's id may hold what a docket id may not (`BACK-2.1`, `bd-a1b2.3`); it is
        // only looked up in the index, never joined to a path.
        let aliased = if id.len() <= 200 { index.paths_of_alias(id) } else { Vec::new() };
        return if aliased.is_empty() { Err(invalid) } else { Ok((aliased, true)) };
    }
    let exact = index.paths_of(id);
    let candidates: Vec<PathBuf> = if !exact.is_empty() {
        exact
    } else {
        let digits = digits_of(id);
        let prefix = id[..id.len() - digits.len()].to_uppercase();
        match digits.parse::<u64>() {
            Ok(n) if digits.chars().all(|c| c.is_ascii_digit()) => index
                .ids_with_digits(&format!("{n:06}"))
                .iter()
                .filter(|known| {
                    let kp = &known[..known.len() - digits_of(known).len()];
                    prefix.is_empty() || kp.is_empty() || kp.to_uppercase() == prefix
                })
                .flat_map(|k| index.paths_of(k))
                .collect(),
            _ => Vec::new(),
        }
    };
    if candidates.is_empty() {
        let aliased = index.paths_of_alias(id);
        if !aliased.is_empty() {
            return Ok((aliased, true));
        }
        return Err(StoreError::NotFound { id: id.to_string() });
    }
    Ok((candidates, false))
}
