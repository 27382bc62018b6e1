//! Whole-file edits made outside the tools (`docket edit`): the file's text to edit, and a replace
//! that refuses when the file changed meanwhile (the edited text is checked by
//! [`check_issue_text`]).

use std::path::PathBuf;
use std::time::SystemTime;

use serde_yaml::Value as Yaml;

use crate::Store;
use crate::files::edit::check_issue_text;
use crate::files::frontmatter;
use crate::files::yaml_edit::KeyEdit;
use crate::files::{WorkspaceLock, iso, read_text};
use crate::index::lookup::resolve_for_write;
use crate::model::StoreError;

/// A copy of an issue's file for an editor (`docket edit`), in the temporary folder, never in the
/// workspace: the editor works on it, and [`Store::replace_text`] writes the issue file.
pub struct EditCopy {
    file: crate::fs::Scratch,
}

impl EditCopy {
    /// A copy of `text` named after the issue file `name` (`docket-edit-NAME-….md`).
    pub fn of(name: &str, text: &str) -> Result<EditCopy, StoreError> {
        let mut file = crate::fs::scratch_file(&format!("docket-edit-{}-", name.trim_end_matches(".md")), ".md")?;
        std::io::Write::write_all(file.as_file_mut(), text.as_bytes())
            .map_err(|e| StoreError::Io { path: file.path().to_path_buf(), source: e })?;
        Ok(EditCopy { file })
    }

    /// Where the copy is.
    pub fn path(&self) -> &std::path::Path {
        self.file.path()
    }

    /// Keeps an edit that was not saved beside the copy (`….rejected.md`, which outlives it);
    /// returns where.
    pub fn keep_rejected(&self, text: &str) -> Result<PathBuf, StoreError> {
        let kept = self.path().with_extension("rejected.md");
        crate::fs::replace_named(&kept, text.as_bytes())?;
        Ok(kept)
    }
}

impl Store {
    /// The one file holding `id` and its text, for editing.
    pub fn editable_file(&self, id: &str) -> Result<(PathBuf, String), StoreError> {
        let (index, _) = self.fresh()?;
        let path = resolve_for_write(&index, id)?;
        drop(index);
        Ok((path.clone(), read_text(&path)?))
    }

    /// Replaces the text of `path` by `text` if the file still holds `expected`. Returns false,
    /// writing nothing, when it changed since it was read (an agent or another editor wrote it).
    /// `text` must still be that issue's file (see [`check_issue_text`]). The edit gets what an
    /// update gets: `updatedAt` set to now (unless the edit changed it itself), `closedAt` set or
    /// removed when the status enters or leaves the archive, and the file moved to the folder its
    /// status and type ask for. Returns where the file is now.
    pub fn replace_text(
        &self,
        path: &std::path::Path,
        expected: &str,
        text: &str,
    ) -> Result<Option<PathBuf>, StoreError> {
        check_issue_text(expected, text)
            .map_err(|reason| StoreError::Malformed { path: path.to_path_buf(), reason })?;
        let malformed = |reason: String| StoreError::Malformed { path: path.to_path_buf(), reason };
        let (before_doc, after_doc) =
            (frontmatter::parse(expected).map_err(malformed)?, frontmatter::parse(text).map_err(malformed)?);
        let (before, after) = (self.meta_of(path, &before_doc), self.meta_of(path, &after_doc));
        let mut edits: Vec<KeyEdit> = Vec::new();
        let now = iso(SystemTime::now());
        let string = |v: &str| Some(Yaml::String(v.to_string()));
        if after_doc.has_frontmatter() && before_doc.front.get("updatedAt") == after_doc.front.get("updatedAt") {
            edits.push(("updatedAt", string(&now)));
        }
        let (was, is) = (before.status.is_archived(), after.status.is_archived());
        let closed_key = before_doc.front.get("closedAt") == after_doc.front.get("closedAt");
        if is && !was && closed_key {
            edits.push(("closedAt", string(&now)));
        } else if was && !is && closed_key && after_doc.front.contains_key("closedAt") {
            edits.push(("closedAt", None));
        }
        let settled = if edits.is_empty() {
            text.to_string()
        } else {
            after_doc
                .edited(&edits, None)
                .map_err(|reason| StoreError::Unwritable { path: path.to_path_buf(), reason })?
        };
        let moves = before.status.is_archived() != after.status.is_archived() || before.issue_type != after.issue_type;
        let dest = if moves { self.destination(path, &after) } else { path.to_path_buf() };
        let lock = WorkspaceLock::acquire(self.workspace())?;
        let replaced = self.replace(path, expected.as_bytes(), &dest, &settled)?;
        if replaced {
            // Brings the index up to date now rather than at the next call.
            let _ = self.fresh()?;
            drop(lock);
            // A status or assignee edited by hand ends a claim as an update does.
            self.claim_ended(&before, Some(&after));
        }
        Ok(replaced.then_some(dest))
    }
}
