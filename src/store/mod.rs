//! The workspace store: markdown issues with YAML frontmatter in wrangler's layout, an always-fresh
//! in-memory index, atomic writes under a workspace lock. It knows nothing of MCP.

mod files;
mod frontmatter;
pub mod generate;
mod index;
mod layout;
mod model;
pub mod sessions;
mod snapshot;
mod watch;
mod workspace;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

pub use layout::{LayoutReport, Split};
pub use model::*;
pub use workspace::Workspace;

use files::WorkspaceLock;
use frontmatter::Document;
use index::{Index, iso};

/// How the store caches.
#[derive(Debug, Clone, Copy)]
pub struct StoreOptions {
    /// Keep the in-memory index (off: re-read every file on every call, like wrangler).
    pub cache: bool,
    /// Full revalidation interval, a safety net behind the change watcher.
    pub ttl: Duration,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions { cache: true, ttl: Duration::from_secs(60) }
    }
}

pub struct Store {
    ws: Workspace,
    index: Mutex<Index>,
}

impl Store {
    pub fn open(ws: Workspace, opts: StoreOptions) -> Store {
        let index = Mutex::new(Index::new(ws.clone(), opts.cache, opts.ttl));
        Store { ws, index }
    }

    pub fn workspace(&self) -> &Workspace {
        &self.ws
    }

    /// The index, brought up to date, and whether that needed no file reads. If revalidation
    /// fails after a good load, the last good index is served and `warnings` says so.
    fn fresh(&self) -> Result<(MutexGuard<'_, Index>, bool), StoreError> {
        let mut index = self.index.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        match index.refresh() {
            Ok(cached) => {
                index.stale = None;
                Ok((index, cached))
            }
            Err(e) if index.len() > 0 => {
                index.stale = Some(e.to_string());
                Ok((index, true))
            }
            Err(e) => Err(e),
        }
    }

    /// Waits until the index snapshot for the next process is on disk (tests and benchmarks).
    pub fn wait_for_snapshot(&self) {
        self.index.lock().unwrap_or_else(|p| p.into_inner()).wait_for_snapshot();
    }

    pub fn index_info(&self) -> IndexInfo {
        let index = self.index.lock().unwrap_or_else(|p| p.into_inner());
        IndexInfo { entries: index.len(), last_refresh: index.last_refresh(), enabled: index.enabled() }
    }

    pub fn create(&self, new: NewIssue) -> Result<Issue, StoreError> {
        let _lock = WorkspaceLock::acquire(&self.ws)?;
        let id = files::next_id(&self.ws, new.issue_type)?;
        let now = iso(SystemTime::now());
        let path = files::new_path(&self.ws, new.issue_type, false, &id, &new.title);
        let meta = IssueMeta {
            id,
            title: new.title,
            issue_type: new.issue_type,
            status: new.status,
            priority: new.priority,
            labels: new.labels,
            assignee: new.assignee,
            project: new.project,
            created_at: now.clone(),
            updated_at: now.clone(),
            closed_at: new.status.is_archived().then_some(now),
            context: new.context,
            path,
            body_len: new.description.chars().count(),
        };
        let mut doc = Document { front: Default::default(), body: new.description };
        frontmatter::store_meta(&mut doc.front, &meta);
        files::create_atomic(&meta.path, &frontmatter::render(&doc))?;
        self.index.lock().unwrap_or_else(|p| p.into_inner()).upsert(meta.clone());
        Ok(Issue { meta, body: doc.body })
    }

    pub fn get(&self, id: &str) -> Result<Snapshot<Issue>, StoreError> {
        let (index, cached) = self.fresh()?;
        let path = resolve(&index, id)?;
        let warnings = index.warnings_about(&path);
        drop(index);
        let (meta, doc) = self.read(&path)?;
        Ok(Snapshot { value: Issue { meta, body: doc.body }, cached, warnings })
    }

    pub fn get_meta(&self, id: &str) -> Result<Snapshot<IssueMeta>, StoreError> {
        let (index, cached) = self.fresh()?;
        let path = resolve(&index, id)?;
        let meta = index.meta_at(&path).ok_or_else(|| StoreError::NotFound { id: id.to_string() })?;
        Ok(Snapshot { value: (*meta).clone(), cached, warnings: index.warnings_about(&path) })
    }

    /// Reads one file from disk (never from the index), refusing one whose frontmatter is broken.
    fn read(&self, path: &Path) -> Result<(IssueMeta, Document), StoreError> {
        let text = std::fs::read_to_string(path).map_err(StoreError::io(path))?;
        let doc =
            frontmatter::parse(&text).map_err(|reason| StoreError::Malformed { path: path.to_path_buf(), reason })?;
        let folder_type = folder_type(&self.ws, path).unwrap_or(IssueType::Issue);
        let modified = std::fs::metadata(path).and_then(|m| m.modified()).map(iso).unwrap_or_default();
        Ok((frontmatter::meta(&doc, path, folder_type, &modified), doc))
    }

    pub fn read_body(&self, meta: &IssueMeta) -> Result<String, StoreError> {
        Ok(self.read(&meta.path)?.1.body)
    }

    /// Applies `patch` under the workspace lock to the file as it is on disk now.
    pub fn update(&self, id: &str, patch: IssuePatch) -> Result<Issue, StoreError> {
        let _lock = WorkspaceLock::acquire(&self.ws)?;
        let (index, _) = self.fresh()?;
        let path = resolve(&index, id)?;
        drop(index);
        let (mut meta, mut doc) = self.read(&path)?;
        let was_archived = meta.status.is_archived();
        let old_type = meta.issue_type;
        apply(&mut meta, &mut doc, patch);
        let in_archive = meta.status.is_archived();
        let now = iso(SystemTime::now());
        meta.updated_at = now.clone();
        if in_archive && !was_archived {
            meta.closed_at = Some(now);
        } else if !in_archive {
            meta.closed_at = None;
        }
        let dir = {
            let base = self.ws.collection(meta.issue_type);
            if in_archive { base.join("archived") } else { base }
        };
        let dest = if in_archive != was_archived || meta.issue_type != old_type {
            dir.join(path.file_name().unwrap_or_default())
        } else {
            path.clone()
        };
        meta.path = dest.clone();
        meta.body_len = doc.body.chars().count();
        frontmatter::store_meta(&mut doc.front, &meta);
        if dest != path {
            // Move first, then rewrite: at every instant exactly one file holds the issue.
            if let Some(parent) = dest.parent() {
                std::fs::create_dir_all(parent).map_err(StoreError::io(parent))?;
            }
            if dest.exists() {
                return Err(StoreError::Io {
                    path: dest,
                    source: std::io::Error::new(
                        std::io::ErrorKind::AlreadyExists,
                        "a file with this name already exists",
                    ),
                });
            }
            std::fs::rename(&path, &dest).map_err(StoreError::io(&path))?;
        }
        files::write_atomic(&dest, &frontmatter::render(&doc))?;
        let mut index = self.index.lock().unwrap_or_else(|p| p.into_inner());
        index.forget(&path);
        index.upsert(meta.clone());
        Ok(Issue { meta, body: doc.body })
    }

    pub fn delete(&self, id: &str) -> Result<IssueMeta, StoreError> {
        let _lock = WorkspaceLock::acquire(&self.ws)?;
        let (mut index, _) = self.fresh()?;
        let path = resolve(&index, id)?;
        let meta = index.meta_at(&path).ok_or_else(|| StoreError::NotFound { id: id.to_string() })?;
        std::fs::remove_file(&path).map_err(StoreError::io(&path))?;
        index.forget(&path);
        Ok((*meta).clone())
    }

    /// Every issue matching `filter`, sorted; the caller pages.
    pub fn list(
        &self,
        filter: &IssueFilter,
        sort: SortField,
        order: SortOrder,
    ) -> Result<Snapshot<Vec<Arc<IssueMeta>>>, StoreError> {
        let (mut index, cached) = self.fresh()?;
        let warnings = index.warnings();
        let mut items: Vec<Arc<IssueMeta>> =
            index.by_updated().iter().filter(|m| matches(filter, m)).cloned().collect();
        if (sort, order) != (SortField::Updated, SortOrder::Desc) {
            sort_metas(&mut items, sort, order);
        }
        Ok(Snapshot { value: items, cached, warnings })
    }

    /// Case-insensitive search over every issue matching the filter; title hits score highest.
    pub fn search(&self, q: &SearchQuery) -> Result<Snapshot<Vec<SearchHit>>, StoreError> {
        let needle = q.text.trim().to_lowercase();
        let Snapshot { value: candidates, cached, warnings } =
            self.list(&q.filter, SortField::Updated, SortOrder::Desc)?;
        let mut hits = Vec::new();
        for meta in candidates {
            let mut score = 0;
            if q.fields.contains(&SearchField::Title) && meta.title.to_lowercase().contains(&needle) {
                score += 100;
            }
            if q.fields.contains(&SearchField::Labels) && meta.labels.iter().any(|l| l.to_lowercase().contains(&needle))
            {
                score += 10;
            }
            let mut excerpt = None;
            if q.fields.contains(&SearchField::Description)
                && let Ok(body) = self.read_body(&meta)
                && let Some(at) = find_ci(&body, &needle)
            {
                score += 1;
                excerpt = Some(excerpt_around(&body, at, needle.len()));
            }
            if score > 0 {
                hits.push(SearchHit { meta, score, excerpt });
            }
        }
        Ok(Snapshot { value: hits, cached: cached && !q.fields.contains(&SearchField::Description), warnings })
    }
}

/// The file holding `id`: exact match first, then short forms (`42`, `000042`, `ISS-000042` for a
/// legacy `000042`) when exactly one issue fits.
fn resolve(index: &Index, id: &str) -> Result<PathBuf, StoreError> {
    let id = id.trim();
    files::validate_id(id)?;
    let exact = index.paths_of(id);
    let candidates: Vec<PathBuf> = if !exact.is_empty() {
        exact.to_vec()
    } else {
        let digits: String = id.chars().skip_while(|c| !c.is_ascii_digit()).collect();
        let prefix = id[..id.len() - digits.len()].to_uppercase();
        match digits.parse::<u64>() {
            Ok(n) if digits.chars().all(|c| c.is_ascii_digit()) => {
                let wanted = format!("{n:06}");
                let mut ids: Vec<&String> = index
                    .ids()
                    .filter(|known| {
                        let kd: String = known.chars().skip_while(|c| !c.is_ascii_digit()).collect();
                        let kp = &known[..known.len() - kd.len()];
                        kd == wanted && (prefix.is_empty() || kp.is_empty() || kp == prefix)
                    })
                    .collect();
                ids.sort();
                ids.iter().flat_map(|k| index.paths_of(k).to_vec()).collect()
            }
            _ => Vec::new(),
        }
    };
    match candidates.len() {
        0 => Err(StoreError::NotFound { id: id.to_string() }),
        1 => Ok(candidates[0].clone()),
        _ => Err(StoreError::Ambiguous { id: id.to_string(), paths: candidates }),
    }
}

fn folder_type(ws: &Workspace, path: &Path) -> Option<IssueType> {
    let parent = path.parent()?;
    ws.issue_dirs().into_iter().find(|(_, d)| d == parent).map(|(t, _)| t)
}

fn apply(meta: &mut IssueMeta, doc: &mut Document, patch: IssuePatch) {
    if let Some(v) = patch.title {
        meta.title = v;
    }
    if let Some(v) = patch.description {
        doc.body = v;
    }
    if let Some(v) = patch.append_body {
        doc.body.push_str(&v);
    }
    if let Some(v) = patch.issue_type {
        meta.issue_type = v;
    }
    if let Some(v) = patch.status {
        meta.status = v;
    }
    if let Some(v) = patch.priority {
        meta.priority = v;
    }
    if let Some(v) = patch.labels {
        meta.labels = v;
    }
    if let Some(v) = patch.assignee {
        meta.assignee = v;
    }
    if let Some(v) = patch.project {
        meta.project = v;
    }
    if let Some(v) = patch.context {
        meta.context = v;
    }
}

fn matches(f: &IssueFilter, m: &IssueMeta) -> bool {
    (f.status.is_empty() || f.status.contains(&m.status))
        && (f.priority.is_empty() || f.priority.contains(&m.priority))
        && (f.types.is_empty() || f.types.contains(&m.issue_type))
        && (f.labels.is_empty() || f.labels.iter().any(|l| m.labels.contains(l)))
        && f.assignee.as_ref().is_none_or(|a| m.assignee.as_ref() == Some(a))
        && f.project.as_ref().is_none_or(|p| m.project.as_ref() == Some(p))
        && f.parent_task_id
            .as_ref()
            .is_none_or(|p| m.context.get("parentTaskId").and_then(|v| v.as_str()) == Some(p.as_str()))
        && (f.ids.is_empty() || f.ids.iter().any(|id| id.eq_ignore_ascii_case(&m.id)))
}

fn sort_metas(items: &mut [Arc<IssueMeta>], sort: SortField, order: SortOrder) {
    items.sort_by(|a, b| {
        let ord = match sort {
            SortField::Created => a.created_at.cmp(&b.created_at),
            SortField::Updated => a.updated_at.cmp(&b.updated_at),
            SortField::Priority => a.priority.cmp(&b.priority),
            SortField::Status => a.status.cmp(&b.status),
            SortField::Id => a.id.cmp(&b.id),
        }
        .then_with(|| a.id.cmp(&b.id));
        if order == SortOrder::Desc { ord.reverse() } else { ord }
    });
}

/// Byte offset of the first case-insensitive occurrence of `needle` (already lower-case).
fn find_ci(haystack: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    haystack.char_indices().map(|(i, _)| i).find(|&i| {
        let mut rest = haystack[i..].chars().flat_map(char::to_lowercase);
        needle.chars().all(|n| rest.next() == Some(n))
    })
}

/// About 200 characters around byte offset `at`, on character boundaries, with ellipses.
fn excerpt_around(body: &str, at: usize, len: usize) -> String {
    let start = body[..at].char_indices().rev().nth(80).map_or(0, |(i, _)| i);
    let end = body[at..].char_indices().nth(len + 120).map_or(body.len(), |(i, _)| at + i);
    let mut s = body[start..end].trim().to_string();
    if start > 0 {
        s.insert(0, '…');
    }
    if end < body.len() {
        s.push('…');
    }
    s
}
