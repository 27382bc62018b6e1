//! The workflow sessions that concern one issue: those whose spec file is the issue's file, or
//! whose completed or pending tasks name it. Read-only; for people looking at an issue.

use std::path::Path;

use super::Session;
use crate::Store;
use crate::files;
use crate::model::IssueMeta;

/// Most sessions a lookup reads (newest first), so a workspace with years of sessions stays quick.
const MAX_SCANNED: usize = 500;

impl Store {
    /// Sessions about `meta`, newest first. Unreadable sessions are skipped.
    pub fn sessions_about(&self, meta: &IssueMeta) -> Vec<Session> {
        let dir = self.workspace().sessions_dir();
        let mut ids: Vec<String> = std::fs::read_dir(&dir)
            .map(|rd| rd.flatten().filter_map(|e| e.file_name().into_string().ok()).collect())
            .unwrap_or_default();
        ids.sort_unstable_by(|a, b| b.cmp(a));
        let root = &self.workspace().root;
        ids.iter()
            .take(MAX_SCANNED)
            .filter(|id| files::validate_id(id).is_ok())
            .filter_map(|id| {
                let path = dir.join(id).join("context.json");
                serde_json::from_str::<Session>(&files::read_text(&path).ok()?).ok()
            })
            .filter(|s| concerns(s, meta, root))
            .collect()
    }
}

fn concerns(s: &Session, meta: &IssueMeta, root: &Path) -> bool {
    let id = meta.id.as_str();
    let spec = Path::new(&s.spec_file);
    let spec_is_file = !s.spec_file.is_empty()
        && (root.join(spec) == meta.path || spec.file_name().is_some_and(|n| Some(n) == meta.path.file_name()));
    spec_is_file || s.tasks_completed.iter().chain(&s.tasks_pending).any(|t| t.eq_ignore_ascii_case(id))
}
