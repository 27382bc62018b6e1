//! Writing a batch of issues brought over from another tracker: every file created through the
//! same path as [`Store::create`] (workspace lock, ids allocated above every branch, atomic
//! create that never replaces a file), but with the timestamps the old tracker gave, and with
//! blockers and parents that may name issues of the same batch before they have an id.

use crate::Store;
use crate::files::frontmatter;
use crate::files::{self, WorkspaceLock};
use crate::fs::Root;
use crate::model::{IssueFilter, IssueMeta, IssueType, NewIssue, SortField, SortOrder, StoreError};
use serde_json::{Map, Value};
use std::sync::Arc;

/// An issue named by an imported one: another issue of the batch (by its place in it), or an
/// issue the workspace already has (by its ID).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Link {
    /// The issue at this place (from 0) of the same batch.
    Batch(usize),
    /// An issue the workspace already has, by its docket ID (written as given).
    Id(String),
}

/// An edge of the old tracker that docket has no field for (a `related` link, a second parent,
/// an edge to an issue not imported), kept as data in `wranglerContext.importedLinks`:
/// `{type, to, id}`, where `to` is the old tracker's id and `id` the docket ID when it has one.
#[derive(Debug, Clone)]
pub struct KeptLink {
    /// `type`: the old tracker's name for the edge (`related`, `parent`, ...).
    pub kind: String,
    /// `to`: the old tracker's ID of the issue at the other end.
    pub to: String,
    /// `id`: the docket issue at the other end, when it has one (written as its ID).
    pub link: Option<Link>,
}

/// One issue of an import: its fields as for a create (`blocked_by` there is ignored), the old
/// tracker's timestamps, and its links.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The issue's fields; its `blocked_by` is ignored (see [`Imported::blocked_by`]) and its
    /// assignee written as given.
    pub new: NewIssue,
    /// `createdAt`, as the old tracker gave it (written as is).
    pub created_at: String,
    /// `updatedAt`, as the old tracker gave it (written as is).
    pub updated_at: String,
    /// `closedAt`, as the old tracker gave it; `None` or empty writes no key.
    pub closed_at: Option<String>,
    /// `blockedBy`: the issues it waits on (a link to itself and repeats are dropped).
    pub blocked_by: Vec<Link>,
    /// `wranglerContext.parentTaskId`: its parent, if any.
    pub parent: Option<Link>,
    /// `wranglerContext.importedLinks`: the edges docket has no field for (no key when empty).
    pub kept_links: Vec<KeptLink>,
}

impl Store {
    /// Writes `text` to the workspace's `import/` folder at `name` (`full/NAME.md`,
    /// `beads-idmap.tsv`: plain names, one folder deep at most), creating the folders, through the
    /// rooted layer (atomic); returns the path. What an import keeps beside the issues: the id map
    /// and the whole texts of the issues it had to cut.
    pub fn write_import_file(&self, name: &str, text: &str) -> Result<std::path::PathBuf, StoreError> {
        let ws = self.workspace();
        let dir = ws.dir.join("import");
        let plain = |part: &str| !part.is_empty() && part != "." && part != ".." && !part.contains('\\');
        let parts: Vec<&str> = name.split('/').collect();
        if parts.len() > 2 || !parts.iter().all(|p| plain(p)) {
            let reason = "an import file is a plain name in import/ or one folder below it".into();
            return Err(StoreError::Refused { path: dir.join(name), reason });
        }
        let path = dir.join(name);
        let root = Root::workspace(ws)?;
        root.create_dir_all(path.parent().unwrap_or(&dir))?;
        root.write_atomic(&path, text.as_bytes(), None)?;
        Ok(path)
    }

    /// Creates every issue of `batch` in one hold of the workspace lock, numbered in batch order
    /// (per collection) above the highest id of the workspace and of every git branch; returns
    /// their metadata in batch order. A blocker or parent naming a place outside the batch is
    /// refused before anything is written, and a file that cannot be written takes back the
    /// ones written before it. Cycles are not checked here: a cycle the old tracker had is
    /// written as it was, and `graph_problems` reports it.
    pub fn import(&self, batch: Vec<Imported>) -> Result<Vec<IssueMeta>, StoreError> {
        self.import_with(|_| batch)
    }

    /// [`Store::import`] of the batch `plan` makes from every issue of the workspace as it is
    /// under the workspace lock: what an import already brought is read in the same hold as the
    /// batch is written, so two imports at once (two processes, two worktrees sharing one
    /// workspace) bring each issue once, the second seeing what the first wrote.
    pub fn import_with(
        &self,
        plan: impl FnOnce(&[Arc<IssueMeta>]) -> Vec<Imported>,
    ) -> Result<Vec<IssueMeta>, StoreError> {
        let _lock = WorkspaceLock::acquire(&self.ws)?;
        let all = self.list(&IssueFilter::default(), SortField::Created, SortOrder::Asc)?.value;
        let batch = plan(&all);
        drop(all);
        let (index, _) = self.fresh()?;
        let mut next: Vec<(IssueType, u64)> = Vec::new();
        // One hold of the repository's id lock for every collection of the batch (taking it
        // again for the second while the first is held would wait on this process forever).
        let mut branch_lock = None;
        for t in IssueType::ALL {
            if !batch.iter().any(|b| b.new.issue_type == *t) {
                continue;
            }
            let allocated = index.next_id(*t, 0)?;
            let first = crate::git::ids::above_branches_holding(
                &self.ws,
                *t,
                allocated,
                self.branch_aware_ids,
                &mut branch_lock,
            )?;
            next.push((*t, number_of(&first)));
        }
        drop(index);
        let mut ids = Vec::with_capacity(batch.len());
        for item in &batch {
            let slot = next.iter_mut().find(|(t, _)| *t == item.new.issue_type).expect("allocated above");
            ids.push(crate::model::id_after(slot.0, slot.1 - 1, self.ws.collection(slot.0))?);
            slot.1 += 1;
        }
        let resolve = |link: &Link| -> Result<String, StoreError> {
            match link {
                Link::Id(id) => Ok(id.clone()),
                Link::Batch(i) => ids.get(*i).cloned().ok_or_else(|| StoreError::Refused {
                    path: self.ws.dir.clone(),
                    reason: format!("an imported issue links to place {i} of a batch of {}", ids.len()),
                }),
            }
        };
        let mut metas = Vec::with_capacity(batch.len());
        for (item, id) in batch.iter().zip(&ids) {
            let mut blocked_by: Vec<String> = Vec::new();
            for link in &item.blocked_by {
                let b = resolve(link)?;
                if !blocked_by.contains(&b) && b != *id {
                    blocked_by.push(b);
                }
            }
            let mut context = item.new.context.clone();
            if let Some(parent) = &item.parent {
                context.insert("parentTaskId".into(), Value::String(resolve(parent)?));
            }
            if !item.kept_links.is_empty() {
                let mut kept = Vec::with_capacity(item.kept_links.len());
                for k in &item.kept_links {
                    let mut m = Map::new();
                    m.insert("type".into(), Value::String(k.kind.clone()));
                    m.insert("to".into(), Value::String(k.to.clone()));
                    if let Some(link) = &k.link {
                        m.insert("id".into(), Value::String(resolve(link)?));
                    }
                    kept.push(Value::Object(m));
                }
                context.insert("importedLinks".into(), Value::Array(kept));
            }
            let new = &item.new;
            let path = files::new_path(&self.ws, new.issue_type, new.status.is_archived(), id, &new.title);
            metas.push(IssueMeta {
                id: id.clone(),
                title: new.title.clone(),
                issue_type: new.issue_type,
                status: new.status,
                priority: new.priority,
                labels: new.labels.clone(),
                assignee: new.assignee.clone(),
                project: new.project.clone(),
                created_at: item.created_at.clone(),
                updated_at: item.updated_at.clone(),
                closed_at: item.closed_at.clone(),
                context,
                blocked_by,
                path,
                body_len: new.description.chars().count(),
                frontmatter: true,
            });
        }
        let root = Root::workspace(&self.ws)?;
        for (n, (meta, item)) in metas.iter().zip(&batch).enumerate() {
            let written = match meta.path.parent() {
                Some(dir) => files::ensure_inside(&self.ws, dir),
                None => Ok(()),
            }
            .and_then(|()| {
                root.create_atomic(&meta.path, frontmatter::render_new(meta, &item.new.description).as_bytes())
            });
            if let Err(e) = written {
                // All or nothing: the files written link to ids of the batch that would never
                // exist, and a second import would number those issues anew.
                for done in &metas[..n] {
                    let _ = root.remove_file(&done.path);
                    self.lock().forget(&done.path);
                }
                return Err(e);
            }
            self.lock().upsert(meta.clone(), &item.new.description);
        }
        drop(branch_lock);
        Ok(metas)
    }
}

/// The number of an id `allocate` just made (`ISS-000042` -> 42).
fn number_of(id: &str) -> u64 {
    let digits = id.trim_start_matches(|c: char| !c.is_ascii_digit());
    crate::model::bounded_id_number(digits).unwrap_or(1)
}
