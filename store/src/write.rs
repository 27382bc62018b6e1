//! Creating, updating and deleting issue files. Every write happens under the workspace lock, on
//! the file as it is on disk at that moment; an update changes only the frontmatter keys it was
//! asked to change; just before the rename the file is compared with what was read, so an edit
//! made meanwhile (by an editor, say) is re-read and the change re-applied, never overwritten.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde_json::{Map, Value};
use serde_yaml::Value as Yaml;

use crate::Store;
use crate::claiming::Gate;
use crate::files::frontmatter::{self, Document};
use crate::files::yaml_edit::KeyEdit;
use crate::files::{self, WorkspaceLock, iso};
use crate::fs::{Rename, Root};
use crate::git::claims::Claim;
use crate::index::lookup::resolve_for_write;
use crate::model::{Expect, Issue, IssueMeta, IssuePatch, IssueType, NewIssue, StoreError, Updated};

/// Times an update re-reads a file that changed under it before giving up with a conflict.
const ATTEMPTS: usize = 5;

impl Store {
    /// Creates an issue under the workspace lock: the next ID of its collection (inside git,
    /// also above every branch head and worktree, unless
    /// [`branch_aware_ids`](crate::StoreOptions::branch_aware_ids) is off), in
    /// `{collection}/[archived/]{ID}-{slug}.md`, never replacing a file. Its blockers are
    /// checked (known IDs, no cycle) and written as the IDs found. The file also gets a random
    /// `docketKey` that tells it from an issue another clone creates at the same path. Returns
    /// the issue as written, with its version.
    pub fn create(&self, new: NewIssue) -> Result<Issue, StoreError> {
        let _lock = WorkspaceLock::acquire(&self.ws)?;
        let (index, _) = self.fresh()?;
        let allocated = index.next_id(new.issue_type, 0)?;
        drop(index);
        // Inside git, also above every branch head and worktree; the lock is held until written.
        let (id, _branch_lock) =
            crate::git::ids::above_branches(&self.ws, new.issue_type, allocated, self.branch_aware_ids)?;
        let blocked_by = match new.blocked_by.is_empty() {
            true => Vec::new(),
            false => crate::work::check_blockers(&mut self.lock(), &id, &new.blocked_by)?,
        };
        let now = iso(SystemTime::now());
        let path = files::new_path(&self.ws, new.issue_type, new.status.is_archived(), &id, &new.title);
        let meta = IssueMeta {
            id,
            title: new.title,
            issue_type: new.issue_type,
            status: new.status,
            priority: new.priority,
            labels: new.labels,
            assignee: name(&new.assignee),
            project: new.project,
            created_at: now.clone(),
            updated_at: now.clone(),
            closed_at: new.status.is_archived().then_some(now),
            context: new.context,
            blocked_by,
            path,
            body_len: new.description.chars().count(),
            frontmatter: true,
        };
        if let Some(dir) = meta.path.parent() {
            files::ensure_inside(&self.ws, dir)?;
        }
        let text = frontmatter::render_created(&meta, &frontmatter::new_identity(), &new.description);
        Root::workspace(&self.ws)?.create_atomic(&meta.path, text.as_bytes())?;
        self.lock().upsert(meta.clone(), &new.description);
        Ok(Issue { meta, body: new.description, version: files::version_of(text.as_bytes()) })
    }

    /// A write to issue `id` of a workspace that does not exist yet (started in an empty folder):
    /// no file holds it, and the refusal creates nothing (no workspace folder, lock or cache).
    fn refuse_in_pending(&self, id: &str) -> Result<(), StoreError> {
        match self.ws.exists() {
            true => Ok(()),
            false => {
                files::validate_id(id.trim())?;
                Err(StoreError::NotFound { id: id.trim().to_string() })
            }
        }
    }

    /// Applies `patch` under the workspace lock to the file as it is on disk now. A file that
    /// changes between the read and the rename is read again and the patch applied again.
    pub fn update(&self, id: &str, mut patch: IssuePatch) -> Result<Updated, StoreError> {
        self.refuse_in_pending(id)?;
        // Who holds the issue is the claim record's to say: a fenced-off writer or a claim of
        // someone else's is refused before anything is written.
        let gate = std::time::Instant::now();
        let (tombstoned, holding, claimed) = match self.claim_gate(id, &patch)? {
            Gate::Close { held, tomb } => (Some((*held, *tomb)), None, None),
            Gate::Hold(held) => (None, Some(*held), None),
            Gate::Claimed(taken) => (None, None, Some(*taken)),
            Gate::Free => (None, None, None),
        };
        // A holder (or a claim the gate just took) writes the issue its claim is about: a merge
        // may give the id to another issue between the gate and the write.
        let held = tombstoned.as_ref().map(|(held, _)| held).or(holding.as_ref());
        let by_holder = held.is_some();
        if patch.identity.is_none() {
            patch.identity = held.or(claimed.as_ref().map(|t| t.claim().0)).and_then(|c| c.key.clone());
        }
        // A holder's close pushed its tombstone first. A tombstone of this checkout a lease old
        // whose file is not closed reads as a close that died (`Store::interrupted_close`), so the
        // file is written within a lease of the tombstone (counted from before it was pushed: a
        // pause in the push counts); a call paused past that renews the tombstone if it is
        // still its own, or writes nothing.
        let lease = |from: std::time::Instant| from + self.claim_ttl;
        let mut until = tombstoned.as_ref().map(|(_, tomb)| (lease(gate), tomb.clone()));
        let done = loop {
            match self.update_unfenced(id, patch.clone(), until.as_ref(), holding.as_ref()) {
                Ok(Some(updated)) => break Ok(updated),
                Err(e) => break Err(e),
                Ok(None) => {
                    let renewing = std::time::Instant::now();
                    let Some(renewed) = self.renew_own_tombstone(id) else {
                        let reason = "this close was paused past its lease, and the issue is someone else's since (nothing was written); issues_ready lists work to claim".to_string();
                        return Err(StoreError::ClaimLost { id: id.to_string(), reason });
                    };
                    until = Some((lease(renewing), renewed));
                }
            }
        };
        // A close undone because its claim was lost has nothing to put back: the record is not its own.
        if let Some((claim, _)) = tombstoned
            && !matches!(&done, Ok(u) if u.issue.meta.status.is_archived())
            && !matches!(&done, Err(StoreError::ClaimLost { .. } | StoreError::CloseStood { .. }))
        {
            self.restore_claim(&claim);
        }
        if let (Some(taken), Err(_), Ok(Some(refs))) = (&claimed, &done, self.claim_refs()) {
            self.take_back(refs, taken);
        }
        match done {
            Err(StoreError::ClaimRefused { reason, .. }) if by_holder && reason.contains(NOT_THE_CLAIMED) => {
                Err(self.holders_issue_renumbered(id))
            }
            done => done,
        }
    }

    /// [`Store::update`] once the claim record allowed it; `None` (nothing written) when `until`
    /// (the time by which this session's close, its tombstone pushed, must be written) passed
    /// before the write.
    fn update_unfenced(
        &self,
        id: &str,
        mut patch: IssuePatch,
        until: Option<&(std::time::Instant, Claim)>,
        holding: Option<&Claim>,
    ) -> Result<Option<Updated>, StoreError> {
        let lock = WorkspaceLock::acquire(&self.ws)?;
        let (mut index, _) = self.fresh()?;
        let path = resolve_for_write(&index, id)?;
        if let Some(given) = &patch.blocked_by {
            let own = index.meta_at(&path).map_or_else(|| id.trim().to_string(), |m| m.id.clone());
            patch.blocked_by = Some(crate::work::check_blockers(&mut index, &own, given)?);
        }
        drop(index);
        // Blockers added or removed apply to the list as the file has it at each attempt.
        let given_blockers = patch.blocked_by.clone();
        for _ in 0..ATTEMPTS {
            let original = settled_read(&path)?;
            let text = String::from_utf8(original.clone())
                .map_err(|_| StoreError::Refused { path: path.clone(), reason: "it is not UTF-8 text".into() })?;
            let doc =
                frontmatter::parse(&text).map_err(|reason| StoreError::Malformed { path: path.clone(), reason })?;
            let before = self.meta_of(&path, &doc);
            if let Some(key) = &patch.identity
                && crate::git::merge::identity_key(&text).as_ref() != Some(key)
            {
                let reason = format!(
                    "{} {NOT_THE_CLAIMED} (a merge renumbered ids meanwhile); issues_ready lists work to claim",
                    before.id
                );
                return Err(StoreError::ClaimRefused { id: before.id.clone(), reason });
            }
            if !patch.add_blockers.is_empty() || !patch.remove_blockers.is_empty() {
                let base = given_blockers.as_deref().unwrap_or(&before.blocked_by);
                let edited = crate::work::edited_blockers(base, &patch.add_blockers, &patch.remove_blockers);
                patch.blocked_by = Some(crate::work::check_blockers(&mut self.lock(), &before.id, &edited)?);
            }
            let version = files::version_of(&original);
            if let Some(expected) = patch.if_version.as_ref().filter(|v| **v != version) {
                let (id, expected) = (before.id.clone(), expected.clone());
                return Err(StoreError::StaleVersion { id, current: version, expected });
            }
            if let Some(expect) = &patch.expect {
                crate::work::check_expect(&mut self.lock(), &before, expect)?;
                // The field matched; the bytes answered with it must still be the file's.
                if let Expect::UpdatedAt(_) = expect
                    && let Some(shown) = self.shown.changed_since(&path, &before.updated_at, &version)
                {
                    return Err(StoreError::StaleVersion { id: before.id.clone(), current: version, expected: shown });
                }
            }
            let plan = plan(&path, &doc, &before, &patch)?;
            if plan.changed.is_empty() {
                let issue = Issue { meta: before.clone(), body: doc.body, version };
                return Ok(Some(Updated { issue, before, changed: vec![] }));
            }
            let new_text = doc
                .edited(&plan.edits, plan.body.as_deref())
                .map_err(|reason| StoreError::Unwritable { path: path.clone(), reason })?;
            // A file moves only when this update changes its status or type: a priority change
            // to a file that says `status: Closed` outside archived/ does not move it.
            let moves = plan.changed.iter().any(|c| matches!(*c, "status" | "type"));
            let dest = if moves { self.destination(&path, &plan.meta) } else { path.clone() };
            if until.is_some_and(|(u, _)| std::time::Instant::now() > *u) {
                return Ok(None);
            }
            if self.replace(&path, &original, &dest, &new_text)? {
                let mut meta = plan.meta;
                meta.path = dest.clone();
                let body = frontmatter::parse(&new_text).map(|d| d.body).unwrap_or_default();
                meta.body_len = body.chars().count();
                let mut index = self.lock();
                if dest != path {
                    index.forget(&path);
                }
                // In place: one change the work graph can take in (a forget, then a put, is two).
                index.upsert(meta.clone(), &body);
                drop(index);
                // The claim's release may reach the remote: never under the workspace lock.
                drop(lock);
                // This session's close pushed its tombstone first: it stands only if that
                // tombstone is still its own once the file is written.
                let undo = Undo { path: &path, original: &original, dest: &dest, written: &new_text };
                match until.filter(|_| meta.status.is_archived()) {
                    Some((_, tomb)) => {
                        if let Err(now) = self.finish_own_close(&before, &meta, tomb) {
                            return Err(self.undo_lost_write(undo, &before, &doc.body, &now, "close"));
                        }
                    }
                    None => {
                        // A holder's write paused past its lease while another session took the issue.
                        if let Some(now) = holding.and_then(|held| self.lost_during_write(held)) {
                            return Err(self.undo_lost_write(undo, &before, &doc.body, &now, "write"));
                        }
                        self.claim_ended(&before, Some(&meta))
                    }
                }
                let version = files::version_of(new_text.as_bytes());
                return Ok(Some(Updated { before, issue: Issue { meta, body, version }, changed: plan.changed }));
            }
            tracing::info!(path = %path.display(), "the file changed while it was being updated; applying again");
        }
        Err(StoreError::Conflict { path, attempts: ATTEMPTS })
    }

    /// Puts back the file a close (or another write of the holder's) wrote after its claim was
    /// lost (see [`Store::finish_own_close`], [`Store::lost_during_write`]) if no one has
    /// written it since and it is not pushed yet, and says what happened.
    fn undo_lost_write(&self, undo: Undo<'_>, before: &IssueMeta, body: &str, now: &Claim, what: &str) -> StoreError {
        let id = before.id.clone();
        if self.pushed_as_written(undo.dest, undo.written) {
            let reason = format!(
                "this {what} was paused past its lease, and the issue is {} since; the {what} was written within its lease and pushed already, so it stands beside theirs; issues_ready lists work to claim",
                now.describe()
            );
            return StoreError::CloseStood { id, reason };
        }
        let put_back = WorkspaceLock::acquire(&self.ws).and_then(|_lock| {
            let original = String::from_utf8_lossy(undo.original);
            let back = self.replace(undo.dest, undo.written.as_bytes(), undo.path, &original)?;
            if back {
                let mut index = self.lock();
                index.forget(undo.dest);
                index.upsert(before.clone(), body);
            }
            Ok(back)
        });
        let lost = format!("this {what} was paused past its lease, and {id} is {} since", now.describe());
        match put_back {
            Ok(true) => StoreError::ClaimLost {
                id,
                reason: format!(
                    "{lost}, so the {what} was undone (the file is as it was before it); issues_ready lists work to claim"
                ),
            },
            Ok(false) => StoreError::CloseStood {
                reason: format!(
                    "{lost}, and the file has changed since the {what} wrote it, so it was left as it is; issues_get {id} shows it"
                ),
                id,
            },
            Err(e) => StoreError::CloseStood {
                reason: format!("{lost}, and putting the file back failed ({e}); issues_get {id} shows it"),
                id,
            },
        }
    }

    /// Deletes the file of issue `id` under the workspace lock (an ID several files hold is
    /// refused) and releases its claim ref, if it had one; returns what the index knew of it.
    pub fn delete(&self, id: &str) -> Result<IssueMeta, StoreError> {
        self.refuse_in_pending(id)?;
        let lock = WorkspaceLock::acquire(&self.ws)?;
        let (mut index, _) = self.fresh()?;
        let path = resolve_for_write(&index, id)?;
        let meta = index.meta_at(&path).ok_or_else(|| StoreError::NotFound { id: id.to_string() })?;
        Root::workspace(&self.ws)?.remove_file(&path)?;
        index.forget(&path);
        drop(index);
        drop(lock);
        self.claim_ended(&meta, None);
        Ok((*meta).clone())
    }

    /// The issue a parsed file describes.
    pub(super) fn meta_of(&self, path: &Path, doc: &Document) -> IssueMeta {
        let folder = self.ws.folder_type(path).unwrap_or(IssueType::Issue);
        let modified = std::fs::symlink_metadata(path).and_then(|m| m.modified()).map(iso).unwrap_or_default();
        frontmatter::meta(doc, path, folder, &modified)
    }

    /// Where the file belongs after the update: its collection, in `archived/` when closed.
    pub(super) fn destination(&self, path: &Path, after: &IssueMeta) -> PathBuf {
        let old_type = self.ws.folder_type(path);
        let was_archived = path.parent().and_then(Path::file_name).is_some_and(|n| n == "archived");
        let in_archive = after.status.is_archived();
        if in_archive == was_archived && old_type == Some(after.issue_type) {
            return path.to_path_buf();
        }
        let base = self.ws.collection(after.issue_type);
        let dir = if in_archive { base.join("archived") } else { base };
        dir.join(path.file_name().unwrap_or_default())
    }

    /// Replaces `path` (which must still hold `original`) by `text` at `dest`. Returns false,
    /// leaving everything as it was, when the file changed since it was read. The check is made
    /// on the file actually displaced (swapped out atomically, then compared, and swapped back if
    /// it was someone else's save), so an editor's save is never overwritten. On any failure the
    /// old file is left where it was with its old content.
    pub(super) fn replace(&self, path: &Path, original: &[u8], dest: &Path, text: &str) -> Result<bool, StoreError> {
        let dir = dest.parent().unwrap_or(&self.ws.dir);
        files::ensure_inside(&self.ws, dir)?;
        let root = Root::workspace(&self.ws)?;
        let tmp = root.temp(dest, text.as_bytes(), root.mode_of(path))?;
        if files::read_regular(path)? != original {
            return Ok(false);
        }
        if dest == path {
            match root.rename(tmp.path(), path, Rename::Exchange) {
                Err(StoreError::Io { source, .. }) if source.kind() == std::io::ErrorKind::Unsupported => {
                    root.put_in_place(tmp, path, Rename::Replace)?;
                    return Ok(true);
                }
                other => other?,
            }
            // `tmp` now holds the file that was at `path`; dropping it deletes it.
            if files::read_regular(tmp.path()).ok().as_deref() != Some(original) {
                // Someone saved between the check and the swap: their file goes back. If they
                // also wrote into ours while it was in place, that write is the newest: keep it.
                root.rename(tmp.path(), path, Rename::Exchange)?;
                if files::read_regular(tmp.path()).ok().as_deref() != Some(text.as_bytes()) {
                    root.rename(tmp.path(), path, Rename::Exchange)?;
                }
                return Ok(false);
            }
            return Ok(true);
        }
        // A move: the new content is already durable in a temp file beside `dest`. The old file
        // is then renamed to `dest` (never replacing anything there) and checked, and the temp
        // file renamed over it. The issue is in exactly one file at every instant; a failure at
        // any step puts the old file back where it was; a kill between the two renames leaves
        // the old bytes in the new folder, which `docket doctor --fix` repairs.
        if let Err(e) = root.rename(path, dest, Rename::NoReplace) {
            return Err(match e {
                StoreError::Io { source, .. } if source.kind() == std::io::ErrorKind::AlreadyExists => {
                    StoreError::Refused {
                        path: dest.to_path_buf(),
                        reason: "a file with this name already exists there; move or renumber it, then retry".into(),
                    }
                }
                other => other,
            });
        }
        let put_back = || root.rename(dest, path, Rename::NoReplace);
        if files::read_regular(dest).ok().as_deref() != Some(original) {
            // Someone saved it between the check and the rename: their file goes back.
            put_back()?;
            return Ok(false);
        }
        if let Err(e) = root.put_in_place(tmp, dest, Rename::Replace) {
            let _ = put_back();
            return Err(e);
        }
        Ok(true)
    }
}

/// The file's bytes, once it is not empty: a writer that truncates and then writes (`echo >`,
/// many editors) leaves it empty for a moment, and an update must not be based on that moment.
/// A file that stays empty for half a second is taken as it is.
fn settled_read(path: &Path) -> Result<Vec<u8>, StoreError> {
    for _ in 0..50 {
        let bytes = files::read_regular(path)?;
        if !bytes.is_empty() {
            return Ok(bytes);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    files::read_regular(path)
}

/// A name as it is written: trimmed, and none when nothing is left (`" "` holds no issue).
fn name(given: &Option<String>) -> Option<String> {
    given.as_deref().map(str::trim).filter(|n| !n.is_empty()).map(str::to_string)
}

/// The new state of an issue and the frontmatter edits that produce it.
struct Plan {
    meta: IssueMeta,
    edits: Vec<KeyEdit>,
    body: Option<String>,
    changed: Vec<&'static str>,
}

/// Applies `patch` to the issue as read, and lists the keys to write: only those whose value
/// changes (plus updatedAt, and closedAt when the issue enters or leaves the archive).
fn plan(path: &Path, doc: &Document, before: &IssueMeta, patch: &IssuePatch) -> Result<Plan, StoreError> {
    let refuse = |key: &str| -> Result<(), StoreError> {
        match frontmatter::not_editable(doc, key) {
            Some(value) => Err(StoreError::NotEditable { path: path.to_path_buf(), key: key.into(), value }),
            None => Ok(()),
        }
    };
    let mut m = before.clone();
    if let Some(v) = &patch.title {
        m.title = v.clone();
    }
    if let Some(v) = patch.issue_type {
        m.issue_type = v;
    }
    if let Some(v) = patch.status {
        m.status = v;
    }
    if let Some(v) = patch.priority {
        m.priority = v;
    }
    if let Some(v) = &patch.labels {
        m.labels = v.clone();
    }
    if !patch.add_labels.is_empty() || !patch.remove_labels.is_empty() {
        refuse("labels")?;
        for l in &patch.add_labels {
            if !m.labels.contains(l) {
                m.labels.push(l.clone());
            }
        }
        m.labels.retain(|l| !patch.remove_labels.contains(l));
    }
    if let Some(v) = &patch.assignee {
        m.assignee = name(v);
    }
    if let Some(v) = &patch.project {
        m.project = v.clone();
    }
    if let Some(v) = &patch.context {
        m.context = v.clone();
    }
    if let Some(v) = &patch.blocked_by {
        m.blocked_by = v.clone();
    }
    if !patch.set_context.is_empty() || !patch.remove_context.is_empty() {
        refuse("wranglerContext")?;
        for (k, v) in &patch.set_context {
            m.context.insert(k.clone(), v.clone());
        }
        for k in &patch.remove_context {
            m.context.remove(k);
        }
    }
    let body = match (&patch.description, &patch.append_body) {
        (None, None) => None,
        (d, a) => Some(format!("{}{}", d.as_deref().unwrap_or(&doc.body), a.as_deref().unwrap_or(""))),
    };

    let mut changed = Vec::new();
    let mut edits: Vec<KeyEdit> = Vec::new();
    let s = |v: &str| Some(Yaml::String(v.to_string()));
    let opt = |v: &Option<String>| v.as_deref().filter(|s| !s.is_empty()).and_then(s);
    let differs = |a: &Option<String>, b: &Option<String>| a.as_deref().unwrap_or("") != b.as_deref().unwrap_or("");
    let mut field = |name: &'static str, key: &'static str, did: bool, value: Option<Yaml>| {
        if did {
            changed.push(name);
            edits.push((key, value));
        }
    };
    field("title", "title", m.title != before.title, s(&m.title));
    field("type", "type", m.issue_type != before.issue_type, s(m.issue_type.as_str()));
    field("status", "status", m.status != before.status, s(m.status.as_str()));
    field("priority", "priority", m.priority != before.priority, s(m.priority.as_str()));
    let labels = Yaml::Sequence(m.labels.iter().map(|l| Yaml::String(l.clone())).collect());
    field("labels", "labels", m.labels != before.labels, Some(labels));
    field("assignee", "assignee", differs(&m.assignee, &before.assignee), opt(&m.assignee));
    field("project", "project", differs(&m.project, &before.project), opt(&m.project));
    field("wranglerContext", "wranglerContext", m.context != before.context, context_value(&m.context));
    let blockers = frontmatter::blocked_by_value(&m.blocked_by);
    field("blockedBy", "blockedBy", m.blocked_by != before.blocked_by, blockers);
    if body.as_deref().is_some_and(|b| b != doc.body) {
        changed.push("description");
    }
    if changed.is_empty() {
        return Ok(Plan { meta: m, edits, body: None, changed });
    }
    let now = iso(SystemTime::now());
    m.updated_at = now.clone();
    edits.push(("updatedAt", s(&now)));
    let (was, is) = (before.status.is_archived(), m.status.is_archived());
    if is && !was {
        m.closed_at = Some(now.clone());
        edits.push(("closedAt", s(&now)));
    } else if was && !is && doc.front.contains_key("closedAt") {
        m.closed_at = None;
        edits.push(("closedAt", None));
    }
    Ok(Plan { meta: m, edits, body, changed })
}

fn context_value(context: &Map<String, Value>) -> Option<Yaml> {
    (!context.is_empty()).then(|| serde_yaml::to_value(context).ok()).flatten()
}

/// Why a claim's (or a holder's) write is refused when the file at its id has another
/// `docketKey` than the issue the claim is about.
const NOT_THE_CLAIMED: &str = "names another issue now than the one this claim is about";

/// A write as [`Store::replace`] made it: the file at `path` that held `original` is now `dest`
/// holding `written`.
struct Undo<'a> {
    path: &'a Path,
    original: &'a [u8],
    dest: &'a Path,
    written: &'a str,
}
