//! What is wrong with the workspace's files, as the board shows it: one line on the board (the
//! way the command line sums it up), the doctor's full list on `/problems`, and on an issue
//! page held by several files, a banner that says which file is shown and which one
//! `docket doctor --fix` would keep (asked of [`crate::store::repair::check`], so the two agree).

use std::sync::Arc;
use std::time::Instant;

use axum::extract::State;
use axum::response::Response;
use serde_json::{Value, json};

use super::Web;
use super::answer::{ApiError, blocking, reply, store_error, workspace_name};
use crate::store::repair::{self as doctor, Kind};
use crate::store::{IssueFilter, IssueMeta, SortField, SortOrder, Store, StoreWarning, StoreWarningCode};

/// The board's one line about the workspace's warnings, or null when there are none:
/// `{"text": "24 duplicate ids and 1 file with broken frontmatter", "count": 25}`.
pub fn summary(warnings: &[StoreWarning]) -> Value {
    let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let duplicates = warnings.iter().filter(|w| w.code == StoreWarningCode::DuplicateId).count();
    let broken: usize =
        warnings.iter().filter(|w| w.code == StoreWarningCode::SkippedFiles).map(|w| w.paths.len().max(1)).sum();
    let stale = warnings.iter().any(|w| w.code == StoreWarningCode::StaleIndex);
    let mut parts = Vec::new();
    if duplicates > 0 {
        parts.push(plural(duplicates, "duplicate id", "duplicate ids"));
    }
    if broken > 0 {
        parts.push(plural(broken, "file with broken frontmatter", "files with broken frontmatter"));
    }
    if stale {
        parts.push("an index that could not be re-read".to_string());
    }
    let others = warnings.len() - duplicates - usize::from(broken > 0) - usize::from(stale);
    if others > 0 {
        parts.push(plural(others, "other warning", "other warnings"));
    }
    if parts.is_empty() {
        return Value::Null;
    }
    let text = match parts.len() {
        1 => parts.remove(0),
        _ => {
            let last = parts.pop().unwrap_or_default();
            format!("{} and {last}", parts.join(", "))
        }
    };
    json!({"text": format!("This workspace has {text}."), "count": duplicates + broken + usize::from(stale) + others})
}

/// `GET /api/problems`: what `docket doctor` reports, one entry per problem, and the store's
/// warnings the doctor has no kind for.
pub async fn list(State(web): State<Arc<Web>>) -> Result<Response, ApiError> {
    let started = Instant::now();
    let store = Arc::clone(&web.app.store);
    let body = blocking(move || {
        let report = doctor::check(&store).map_err(store_error)?;
        let problems: Vec<Value> = report
            .problems
            .iter()
            .map(|p| {
                json!({"kind": p.kind.as_str(), "id": p.id, "paths": p.paths, "message": p.message, "fixable": p.fixable})
            })
            .collect();
        let all = store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).map_err(store_error)?;
        let covered = [StoreWarningCode::DuplicateId, StoreWarningCode::SkippedFiles];
        let other: Vec<&str> =
            all.warnings.iter().filter(|w| !covered.contains(&w.code)).map(|w| w.message.as_str()).collect();
        Ok(json!({
            "problems": problems,
            "summary": doctor::summary(&report.problems),
            "fixable": report.problems.iter().filter(|p| p.fixable).count(),
            "otherWarnings": other,
            "workspace": workspace_name(&store),
        }))
    })
    .await?;
    Ok(reply(body, started))
}

/// The warnings an issue page shows for `meta`: the store's, except that a duplicate id gets a
/// banner saying which file this page shows and which one the doctor keeps.
pub fn issue_warnings(store: &Store, meta: &IssueMeta, warnings: &[StoreWarning]) -> Vec<String> {
    let mut out: Vec<String> =
        warnings.iter().filter(|w| w.code != StoreWarningCode::DuplicateId).map(|w| w.message.clone()).collect();
    if let Some(w) = warnings.iter().find(|w| w.code == StoreWarningCode::DuplicateId) {
        out.insert(0, duplicate_banner(store, meta, w));
    }
    out
}

fn duplicate_banner(store: &Store, meta: &IssueMeta, warning: &StoreWarning) -> String {
    let rel = |p: &std::path::Path| p.strip_prefix(&store.workspace().root).unwrap_or(p).display().to_string();
    let shown = rel(&meta.path);
    let others: Vec<String> = warning.paths.iter().filter(|p| **p != meta.path).map(|p| rel(p)).collect();
    let head = format!(
        "{} is held by {} files. This page shows {shown} ({}, created {}); the other{}: {}. Changes to {} are \
         refused until the duplicates are renumbered.",
        meta.id,
        others.len() + 1,
        meta.status,
        if meta.created_at.is_empty() { "at an unknown time" } else { &meta.created_at },
        if others.len() == 1 { " is" } else { "s are" },
        others.join(", "),
        meta.id
    );
    let problem = doctor::check(store).ok().and_then(|report| {
        report
            .problems
            .into_iter()
            .find(|p| matches!(p.kind, Kind::DuplicateId | Kind::InterruptedMove) && p.paths.contains(&shown))
    });
    let Some(problem) = problem else {
        return format!("{head} Run `docket doctor` to see how to resolve it.");
    };
    if problem.kind == Kind::DuplicateId && problem.fixable {
        let kept = &problem.paths[0];
        let which = if *kept == shown { "this file".to_string() } else { kept.clone() };
        format!(
            "{head} `docket doctor --fix` (workspace_doctor with fix: true) would keep the id on {which} (on a \
             remote branch, or else created first) and give the other{} new ids.",
            if others.len() == 1 { "" } else { "s" }
        )
    } else {
        format!("{head} `docket doctor` says: {}", problem.message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warning(code: StoreWarningCode, paths: usize) -> StoreWarning {
        StoreWarning { code, message: String::new(), paths: vec![Default::default(); paths] }
    }

    #[test]
    fn warnings_fold_into_one_line() {
        assert_eq!(summary(&[]), Value::Null);
        let mut many: Vec<StoreWarning> = (0..24).map(|_| warning(StoreWarningCode::DuplicateId, 2)).collect();
        many.push(warning(StoreWarningCode::SkippedFiles, 1));
        let line = summary(&many);
        assert_eq!(line["text"], "This workspace has 24 duplicate ids and 1 file with broken frontmatter.");
        assert_eq!(line["count"], 25);
        let one = summary(&[warning(StoreWarningCode::DuplicateId, 2)]);
        assert_eq!(one["text"], "This workspace has 1 duplicate id.");
    }
}
