//! Workflow sessions in wrangler's format (and, in `history`, the sessions that concern one issue):
//! `sessions/{id}/context.json` (the session), `checkpoint.json` (resumable state) and
//! `audit.jsonl` (one JSON entry per event).
//! IDs are `YYYY-MM-DD-{git short hash or nogit}-{4 hex}`, so sorting them sorts by date; wrangler's
//! workflow engine writes sessions `wf-YYYY-MM-DD-{8 hex}` in the same folder and format.

pub(crate) mod history;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

use rand::Rng;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::Store;
use crate::files::{WorkspaceLock, iso, validate_id};
use crate::fs::{Entry, Root};
use crate::model::StoreError;

/// `context.json`: keys unknown to docket are kept on rewrite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// `id`, also the name of its folder under `sessions/`: `YYYY-MM-DD-{git short hash or
    /// nogit}-{4 hex}`, or `wf-...` for a session of wrangler's workflow engine.
    pub id: String,
    /// `specFile`: the spec file as `session_start` was given it.
    pub spec_file: String,
    /// running, paused, completed or failed.
    pub status: String,
    /// `currentPhase`: the last phase recorded: `init` at the start, then what `session_phase`
    /// names, `complete` at the end.
    pub current_phase: String,
    /// `worktreePath`: where the session's work happens: its new worktree, else the working
    /// directory.
    pub worktree_path: String,
    /// `branchName`: `wrangler/{spec name}/{id}` for a new worktree, else the branch checked
    /// out; `current` outside git.
    pub branch_name: String,
    /// `workflow`: the workflow named at the start (wrangler's engine runs it; docket records
    /// it); `None` when the file has no such key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow: Option<String>,
    /// `skipChecks` as given at the start (recorded for wrangler's engine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_checks: Option<bool>,
    /// `skipStepNames` as given at the start; `None` when none were given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_step_names: Option<Vec<String>>,
    /// `phasesCompleted`: each phase recorded with status `complete`, once, in order (`init`
    /// first).
    #[serde(default)]
    pub phases_completed: Vec<String>,
    /// `tasksCompleted` as of the last checkpoint.
    #[serde(default)]
    pub tasks_completed: Vec<String>,
    /// `tasksPending` as of the last checkpoint.
    #[serde(default)]
    pub tasks_pending: Vec<String>,
    /// `startedAt` (RFC 3339 UTC with milliseconds).
    pub started_at: String,
    /// `updatedAt`: the last phase, checkpoint or completion.
    pub updated_at: String,
    /// `completedAt`: when the session was completed or failed; `None` until then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    /// `prUrl`: the pull request the session produced, if one was given at completion.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pr_url: Option<String>,
    /// `prNumber`: that pull request's number, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pr_number: Option<i64>,
    /// Every other key of `context.json`, kept on rewrite (completion's `summary` and
    /// `stepExecutionSummary` land here).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Session {
    /// Whether it is still `running` or `paused`: the kind [`Store::session_get`] picks when no
    /// ID is given.
    pub fn is_incomplete(&self) -> bool {
        matches!(self.status.as_str(), "running" | "paused")
    }
}

/// What `session_start` needs.
#[derive(Debug, Clone, Default)]
pub struct StartSession {
    /// The spec file, from the working directory (or absolute); it must be a file inside the
    /// workspace root (the repository).
    pub spec_file: String,
    /// Where the session works, from the workspace root (or absolute, inside it); `None`: the
    /// workspace root.
    pub working_directory: Option<PathBuf>,
    /// Recorded as `workflow` (the name wrangler's workflow engine runs; docket runs none).
    pub workflow: String,
    /// Recorded as `skipChecks`.
    pub skip_checks: bool,
    /// Recorded as `skipStepNames` (no key when empty).
    pub skip_step_names: Vec<String>,
    /// Create a git worktree and branch for the session, as wrangler does (`false`: work in place).
    pub worktree: bool,
}

/// A started session and what `session_start` reports beside it (wrangler's fields).
#[derive(Debug, Clone)]
pub struct Started {
    /// The session as written to `context.json`.
    pub session: Session,
    /// The session's `audit.jsonl`.
    pub audit_path: PathBuf,
    /// Whether a git worktree and branch were created (asked for, and inside git).
    pub worktree_created: bool,
    /// Whether the working directory is inside a git repository.
    pub in_git: bool,
}

/// A session with what its folder says about its progress (for `session_status`).
#[derive(Debug, Clone)]
pub struct SessionProgress {
    /// The session's `context.json`.
    pub session: Session,
    /// `audit.jsonl`, one JSON value per line (lines that do not parse are skipped).
    pub audit: Vec<Value>,
    /// `checkpoint.json` as the last checkpoint saved it; `None` when there is none or it does
    /// not parse.
    pub checkpoint: Option<Value>,
    /// `blocker.json`: why a workflow run paused.
    pub blocker: Option<Value>,
}

/// What `session_checkpoint` saves.
#[derive(Debug, Clone, Default)]
pub struct CheckpointData {
    /// `tasksCompleted`, also copied into the session's `context.json`.
    pub tasks_completed: Vec<String>,
    /// `tasksPending`, also copied into the session's `context.json`.
    pub tasks_pending: Vec<String>,
    /// `lastAction`: what was done last.
    pub last_action: String,
    /// `resumeInstructions`: what an agent resuming the session does next.
    pub resume_instructions: String,
    /// `variables`: any state the resumed session needs.
    pub variables: Map<String, Value>,
    /// `stepResults`, written as given; no key when `None`.
    pub step_results: Option<Value>,
}

/// How a session ends.
#[derive(Debug, Clone, Default)]
pub struct Completion {
    /// Ends it as `failed` instead of `completed`.
    pub failed: bool,
    /// `prUrl`; `None` keeps the one the session has.
    pub pr_url: Option<String>,
    /// `prNumber`; `None` keeps the one the session has.
    pub pr_number: Option<i64>,
    /// Written as `summary` in `context.json`.
    pub summary: Option<String>,
    /// Written as `stepExecutionSummary` in `context.json`.
    pub step_execution_summary: Option<Value>,
}

impl Store {
    /// A session's folder; one that resolves outside the workspace (a symlink in a cloned
    /// repository) is refused, so session files are never written elsewhere.
    fn session_dir(&self, id: &str) -> Result<PathBuf, StoreError> {
        validate_id(id)?;
        let dir = self.workspace().sessions_dir().join(id);
        crate::files::ensure_inside(self.workspace(), &dir)?;
        Ok(dir)
    }

    fn load_session(&self, id: &str) -> Result<Session, StoreError> {
        // A workspace not created yet (started in an empty folder) holds no session.
        if !self.workspace().exists() {
            validate_id(id)?;
            return Err(StoreError::SessionNotFound { id: Some(id.to_string()) });
        }
        let path = self.session_dir(id)?.join("context.json");
        let text = crate::files::read_text(&path).map_err(|e| match e {
            StoreError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                StoreError::SessionNotFound { id: Some(id.to_string()) }
            }
            other => other,
        })?;
        serde_json::from_str(&text).map_err(|e| StoreError::Malformed { path, reason: e.to_string() })
    }

    fn save_session(&self, session: &Session) -> Result<(), StoreError> {
        let path = self.session_dir(&session.id)?.join("context.json");
        let text = serde_json::to_string_pretty(session).unwrap_or_default();
        Root::workspace(self.workspace())?.write_atomic(&path, text.as_bytes(), None)
    }

    fn audit(&self, id: &str, entry: Value) -> Result<(), StoreError> {
        let path = self.session_dir(id)?.join("audit.jsonl");
        // Through the rooted layer: an audit.jsonl that is a symlink (to a shell startup file, say)
        // or a FIFO is refused, never appended to. One write of one line: appends from several
        // processes never interleave mid-line.
        Root::workspace(self.workspace())?.append(&path, format!("{entry}\n").as_bytes())
    }

    /// Starts a session on a spec: writes `sessions/{id}/context.json` (status `running`, phase
    /// `init`) and the first `audit.jsonl` entry. With [`StartSession::worktree`] inside git,
    /// first adds a worktree `.worktrees/{spec name}` (see [`spec_name`]) on a new branch
    /// `wrangler/{spec name}/{id}`; otherwise the session works in place.
    pub fn session_start(&self, req: StartSession) -> Result<Started, StoreError> {
        let root = &self.workspace().root;
        let base = match &req.working_directory {
            Some(dir) => inside_root(root, "workingDirectory", &root.join(dir))?,
            None => root.clone(),
        };
        // Joining an absolute path replaces the base, as wrangler allowed; both must stay inside
        // the repository, so a session cannot probe or touch files elsewhere on the host.
        let spec = inside_root(root, "specFile", &base.join(&req.spec_file))?;
        if !spec.is_file() {
            return Err(StoreError::SpecNotFound { path: spec });
        }
        let _lock = WorkspaceLock::acquire(self.workspace())?;
        let now = SystemTime::now();
        let in_git = git(&base, &["rev-parse", "--is-inside-work-tree"]).is_some_and(|t| t == "true");
        let hash = git(&base, &["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "nogit".into());
        let suffix = format!("{:04x}", rand::rng().random::<u16>());
        let id = format!("{}-{hash}-{suffix}", &iso(now)[..10]);
        let (worktree_path, branch_name, worktree_created) = if req.worktree && in_git {
            let spec_name = spec_name(&req.spec_file);
            let branch = format!("wrangler/{spec_name}/{id}");
            // `.worktrees` must be a real folder of the repository: a committed link there would
            // make git check the branch out wherever it points.
            let rooted = Root::open(&base)?;
            let parent = base.join(".worktrees");
            rooted.create_dir_all(&parent)?;
            let mut path = parent.join(&spec_name);
            if rooted.entry(&path)? != Entry::Missing {
                path = parent.join(format!("{spec_name}-{suffix}"));
                if rooted.entry(&path)? != Entry::Missing {
                    return Err(StoreError::Refused {
                        path,
                        reason: "something is already there; remove it or start the session again".into(),
                    });
                }
            }
            let out = Command::new("git")
                .current_dir(&base)
                .args(["worktree", "add", "-b", &branch])
                .arg(&path)
                .output()
                .map_err(|e| StoreError::Git { details: e.to_string() })?;
            if !out.status.success() {
                return Err(StoreError::Git { details: String::from_utf8_lossy(&out.stderr).trim().to_string() });
            }
            (path, branch, true)
        } else if in_git {
            let branch = git(&base, &["rev-parse", "--abbrev-ref", "HEAD"]).unwrap_or_else(|| "current".into());
            (base.clone(), branch, false)
        } else {
            // wrangler's fallback outside git: work in place, on no particular branch.
            (base.clone(), "current".to_string(), false)
        };
        let started = iso(now);
        let session = Session {
            id: id.clone(),
            spec_file: req.spec_file,
            status: "running".into(),
            current_phase: "init".into(),
            worktree_path: worktree_path.display().to_string(),
            branch_name,
            workflow: Some(req.workflow),
            skip_checks: Some(req.skip_checks),
            skip_step_names: (!req.skip_step_names.is_empty()).then_some(req.skip_step_names),
            phases_completed: vec!["init".into()],
            tasks_completed: vec![],
            tasks_pending: vec![],
            started_at: started.clone(),
            updated_at: started.clone(),
            completed_at: None,
            pr_url: None,
            pr_number: None,
            extra: Map::new(),
        };
        self.save_session(&session)?;
        self.audit(
            &id,
            json!({"phase": "init", "timestamp": started, "status": "complete", "session_id": id,
            "worktree": session.worktree_path, "branch": session.branch_name, "spec_file": session.spec_file}),
        )?;
        let audit_path = self.session_dir(&id)?.join("audit.jsonl");
        Ok(Started { session, audit_path, worktree_created, in_git })
    }

    /// Records a phase event; a completed phase joins `phasesCompleted`.
    pub fn session_phase(
        &self,
        id: &str,
        phase: &str,
        status: &str,
        metadata: Map<String, Value>,
    ) -> Result<Session, StoreError> {
        let _lock = WorkspaceLock::acquire(self.workspace())?;
        let mut session = self.load_session(id)?;
        session.current_phase = phase.to_string();
        if status == "complete" && !session.phases_completed.iter().any(|p| p == phase) {
            session.phases_completed.push(phase.to_string());
        }
        let now = iso(SystemTime::now());
        session.updated_at = now.clone();
        self.save_session(&session)?;
        let mut entry = json!({"phase": phase, "timestamp": now, "status": status});
        if let Some(obj) = entry.as_object_mut() {
            for (k, v) in metadata {
                obj.entry(k).or_insert(v);
            }
        }
        self.audit(id, entry)?;
        Ok(session)
    }

    /// Saves checkpoint.json and returns the session with the new checkpoint's ID.
    pub fn session_checkpoint(&self, id: &str, data: CheckpointData) -> Result<(Session, String), StoreError> {
        let _lock = WorkspaceLock::acquire(self.workspace())?;
        let mut session = self.load_session(id)?;
        let now = SystemTime::now();
        let created = iso(now);
        let millis = now.duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or_default();
        let checkpoint_id = format!("chk-{millis}-{:08x}", rand::rng().random::<u32>());
        let mut checkpoint = json!({
            "sessionId": id, "checkpointId": checkpoint_id, "createdAt": created, "currentPhase": session.current_phase,
            "tasksCompleted": data.tasks_completed, "tasksPending": data.tasks_pending, "variables": data.variables,
            "lastAction": data.last_action, "resumeInstructions": data.resume_instructions,
        });
        if let (Some(obj), Some(steps)) = (checkpoint.as_object_mut(), data.step_results) {
            obj.insert("stepResults".into(), steps);
        }
        Root::workspace(self.workspace())?.write_atomic(
            &self.session_dir(id)?.join("checkpoint.json"),
            serde_json::to_string_pretty(&checkpoint).unwrap_or_default().as_bytes(),
            None,
        )?;
        session.tasks_completed = data.tasks_completed.clone();
        session.tasks_pending = data.tasks_pending.clone();
        session.updated_at = created.clone();
        self.save_session(&session)?;
        self.audit(
            id,
            json!({"phase": "checkpoint", "timestamp": created, "status": "complete", "checkpoint_id": checkpoint_id,
            "tasks_completed": data.tasks_completed.len(), "tasks_pending": data.tasks_pending.len()}),
        )?;
        Ok((session, checkpoint_id))
    }

    /// Ends session `id`: status `completed` (or `failed`), phase `complete`, `completedAt` now,
    /// what `done` gives recorded, and a `complete` audit entry with the session's duration.
    pub fn session_complete(&self, id: &str, done: Completion) -> Result<Session, StoreError> {
        let _lock = WorkspaceLock::acquire(self.workspace())?;
        let mut session = self.load_session(id)?;
        let now = iso(SystemTime::now());
        session.status = if done.failed { "failed" } else { "completed" }.into();
        session.current_phase = "complete".into();
        session.completed_at = Some(now.clone());
        session.updated_at = now.clone();
        session.pr_url = done.pr_url.or(session.pr_url);
        session.pr_number = done.pr_number.or(session.pr_number);
        if let Some(summary) = done.summary {
            session.extra.insert("summary".into(), json!(summary));
        }
        if let Some(steps) = done.step_execution_summary {
            session.extra.insert("stepExecutionSummary".into(), steps);
        }
        self.save_session(&session)?;
        let duration_ms = chrono::DateTime::parse_from_rfc3339(&now)
            .ok()
            .zip(chrono::DateTime::parse_from_rfc3339(&session.started_at).ok())
            .map_or(0, |(end, start)| (end - start).num_milliseconds());
        self.audit(id, json!({"phase": "complete", "timestamp": now, "status": if done.failed { "failed" } else { "complete" },
            "session_id": id, "duration_ms": duration_ms, "tasks_completed": session.tasks_completed.len(), "pr_url": session.pr_url}))?;
        Ok(session)
    }

    /// A session and its last checkpoint; without an ID, the most recent incomplete session.
    pub fn session_get(&self, id: Option<&str>) -> Result<(Session, Option<Value>), StoreError> {
        let session = match id {
            Some(id) => self.load_session(id)?,
            None => self.newest_session(Session::is_incomplete)?,
        };
        let checkpoint_path = self.session_dir(&session.id)?.join("checkpoint.json");
        let checkpoint = crate::files::read_text(&checkpoint_path).ok().and_then(|t| serde_json::from_str(&t).ok());
        Ok((session, checkpoint))
    }

    /// A session and its audit log, checkpoint and blocker; without an ID, the most recently
    /// started workflow-engine session (`wf-*`), as wrangler picks it.
    pub fn session_status(&self, id: Option<&str>) -> Result<SessionProgress, StoreError> {
        let session = match id {
            Some(id) => self.load_session(id)?,
            None => {
                let mut runs: Vec<Session> = self
                    .session_ids()
                    .iter()
                    .filter(|id| id.starts_with("wf-"))
                    .filter_map(|id| self.load_session(id).ok())
                    .collect();
                runs.sort_by(|a, b| b.started_at.cmp(&a.started_at));
                runs.into_iter().next().ok_or(StoreError::SessionNotFound { id: None })?
            }
        };
        let dir = self.session_dir(&session.id)?;
        let read_json =
            |name: &str| crate::files::read_text(&dir.join(name)).ok().and_then(|t| serde_json::from_str(&t).ok());
        let audit = crate::files::read_text(&dir.join("audit.jsonl"))
            .map(|t| t.lines().filter_map(|l| serde_json::from_str(l).ok()).collect())
            .unwrap_or_default();
        Ok(SessionProgress {
            checkpoint: read_json("checkpoint.json"),
            blocker: read_json("blocker.json"),
            audit,
            session,
        })
    }

    /// Names of the folders under `sessions/`.
    fn session_ids(&self) -> Vec<String> {
        std::fs::read_dir(self.workspace().sessions_dir())
            .map(|rd| {
                rd.flatten().filter(|e| e.path().is_dir()).filter_map(|e| e.file_name().into_string().ok()).collect()
            })
            .unwrap_or_default()
    }

    fn newest_session(&self, wanted: impl Fn(&Session) -> bool) -> Result<Session, StoreError> {
        let mut ids = self.session_ids();
        ids.sort_unstable_by(|a, b| b.cmp(a));
        ids.iter()
            .filter_map(|id| self.load_session(id).ok())
            .find(|s| wanted(s))
            .ok_or(StoreError::SessionNotFound { id: None })
    }
}

/// The name wrangler gives a spec's worktree and branch: the file name without `.md` and a
/// `SPEC-000001-` or `spec-` prefix, lowercased, reduced to ASCII word characters joined by single
/// dashes, at most 50 characters (`implementation` if nothing is left).
pub fn spec_name(spec_file: &str) -> String {
    let base = spec_file.rsplit(['/', '\\']).next().unwrap_or(spec_file);
    let base = base.strip_suffix(".md").unwrap_or(base);
    let base = match base.strip_prefix("SPEC-") {
        Some(rest) => {
            let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            match rest[digits..].strip_prefix('-') {
                Some(tail) if digits > 0 => tail,
                _ => base,
            }
        }
        None => base,
    };
    let base = base.strip_prefix("spec-").unwrap_or(base);
    let kept: String = base
        .to_lowercase()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-' || c.is_whitespace())
        .collect();
    let mut out = String::new();
    for c in kept.chars() {
        if c.is_whitespace() || c == '_' || c == '-' {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c);
        }
    }
    let out: String = out.trim_matches('-').chars().take(50).collect();
    if out.is_empty() { "implementation".into() } else { out }
}

/// Runs git in `dir`; its trimmed stdout, or `None` outside a repository or without git.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").current_dir(dir).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string()).filter(|s| !s.is_empty())
}

/// `path` with `..` and symlinks resolved, if it lies inside `root`. A path that does not exist
/// yet is judged by its nearest existing ancestor.
fn inside_root(root: &Path, param: &'static str, path: &Path) -> Result<PathBuf, StoreError> {
    let outside = || StoreError::OutsideWorkspace { param, path: path.to_path_buf(), root: root.to_path_buf() };
    let root = root.canonicalize().map_err(StoreError::io(root))?;
    let mut existing = path;
    let mut rest = Vec::new();
    let resolved = loop {
        match existing.canonicalize() {
            Ok(p) => break p,
            Err(_) => {
                rest.push(existing.file_name().ok_or_else(outside)?.to_owned());
                existing = existing.parent().ok_or_else(outside)?;
            }
        }
    };
    // `file_name` is never `..` (a path ending in `..` has none, and is refused above), so the
    // parts re-appended below cannot climb out of the resolved ancestor.
    let full = rest.iter().rev().fold(resolved, |p, part| p.join(part));
    if full.starts_with(&root) { Ok(full) } else { Err(outside()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{StoreOptions, Workspace};

    fn store_with_spec() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("tmp");
        let ws = Workspace::init(dir.path()).expect("init");
        std::fs::write(dir.path().join("spec.md"), "# Spec").expect("spec");
        (dir, Store::open(ws, StoreOptions::default()))
    }

    fn start(store: &Store) -> Session {
        store
            .session_start(StartSession {
                spec_file: "spec.md".into(),
                workflow: "spec-implementation".into(),
                ..Default::default()
            })
            .expect("start")
            .session
    }

    #[test]
    fn start_writes_context_and_an_init_audit_entry_in_wranglers_format() {
        let (dir, store) = store_with_spec();
        let started = store
            .session_start(StartSession { spec_file: "spec.md".into(), worktree: true, ..Default::default() })
            .expect("start");
        assert!(!started.in_git && !started.worktree_created, "a temp dir is not a git repository");
        assert_eq!(started.session.branch_name, "current", "wrangler's branch name outside git");
        assert_eq!(started.session.phases_completed, ["init"]);
        assert!(started.audit_path.ends_with(format!("{}/audit.jsonl", started.session.id)));
        let s = started.session;
        let parts: Vec<&str> = s.id.split('-').collect();
        assert_eq!(parts.len(), 5, "YYYY-MM-DD-hash-xxxx: {}", s.id);
        assert_eq!(parts[3], "nogit", "a temp dir is not a git repository");
        let session_dir = dir.path().join(".docket/sessions").join(&s.id);
        let context: Value =
            serde_json::from_str(&std::fs::read_to_string(session_dir.join("context.json")).expect("context"))
                .expect("json");
        assert_eq!(
            (context["id"].as_str(), context["status"].as_str(), context["specFile"].as_str()),
            (Some(s.id.as_str()), Some("running"), Some("spec.md"))
        );
        let audit = std::fs::read_to_string(session_dir.join("audit.jsonl")).expect("audit");
        let first: Value = serde_json::from_str(audit.lines().next().expect("a line")).expect("json");
        assert_eq!((first["phase"].as_str(), first["session_id"].as_str()), (Some("init"), Some(s.id.as_str())));
    }

    #[test]
    fn a_missing_spec_file_is_reported() {
        let (_dir, store) = store_with_spec();
        let err = store
            .session_start(StartSession { spec_file: "nope.md".into(), ..Default::default() })
            .expect_err("missing spec");
        assert!(matches!(err, StoreError::SpecNotFound { .. }));
    }

    #[test]
    fn spec_files_and_working_directories_outside_the_repository_are_refused() {
        let (_dir, store) = store_with_spec();
        for spec in ["/etc/passwd", "../../etc/passwd", "../outside.md", "/nonexistent/x.md"] {
            let err = store
                .session_start(StartSession { spec_file: spec.into(), ..Default::default() })
                .expect_err("outside the repository");
            assert!(matches!(err, StoreError::OutsideWorkspace { param: "specFile", .. }), "{spec}: {err}");
        }
        let err = store
            .session_start(StartSession {
                spec_file: "spec.md".into(),
                working_directory: Some("/tmp".into()),
                ..Default::default()
            })
            .expect_err("working directory outside");
        assert!(matches!(err, StoreError::OutsideWorkspace { param: "workingDirectory", .. }), "{err}");
        let inside = store.workspace().root.join("spec.md");
        let ok = store.session_start(StartSession { spec_file: inside.display().to_string(), ..Default::default() });
        assert!(ok.is_ok(), "an absolute path inside the repository is fine: {ok:?}");
    }

    #[test]
    fn phases_checkpoints_and_completion_update_the_session_and_audit_log() {
        let (dir, store) = store_with_spec();
        let s = start(&store);
        store.session_phase(&s.id, "plan", "complete", Map::new()).expect("phase");
        let cp = CheckpointData {
            tasks_completed: vec!["ISS-000001".into()],
            tasks_pending: vec!["ISS-000002".into()],
            last_action: "did".into(),
            resume_instructions: "next".into(),
            ..Default::default()
        };
        let (_, checkpoint_id) = store.session_checkpoint(&s.id, cp).expect("checkpoint");
        let (got, checkpoint) = store.session_get(None).expect("most recent incomplete");
        assert_eq!(got.id, s.id);
        assert_eq!(got.phases_completed, vec!["init", "plan"]);
        let checkpoint = checkpoint.expect("checkpoint");
        assert_eq!(checkpoint["resumeInstructions"], "next");
        assert_eq!(checkpoint["checkpointId"], checkpoint_id.as_str(), "the ID returned is the one saved");
        let done =
            store.session_complete(&s.id, Completion { pr_number: Some(7), ..Default::default() }).expect("complete");
        assert_eq!((done.status.as_str(), done.pr_number), ("completed", Some(7)));
        assert!(matches!(store.session_get(None), Err(StoreError::SessionNotFound { id: None })));
        assert!(
            matches!(store.session_status(None), Err(StoreError::SessionNotFound { id: None })),
            "without an id, only workflow-engine (wf-*) sessions count"
        );
        let progress = store.session_status(Some(&s.id)).expect("by id");
        assert_eq!(progress.audit.len(), 4);
        assert_eq!(progress.checkpoint.expect("checkpoint")["lastAction"], "did");
        let audit = std::fs::read_to_string(dir.path().join(".docket/sessions").join(&s.id).join("audit.jsonl"))
            .expect("audit");
        let phases: Vec<String> = audit
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|v| v["phase"].as_str().map(str::to_string))
            .collect();
        assert_eq!(phases, ["init", "plan", "checkpoint", "complete"]);
    }

    #[test]
    fn unknown_sessions_and_unsafe_ids_are_errors() {
        let (_dir, store) = store_with_spec();
        assert!(matches!(
            store.session_phase("2026-01-01-nogit-abcd", "plan", "started", Map::new()),
            Err(StoreError::SessionNotFound { .. })
        ));
        assert!(matches!(store.session_get(Some("../../etc")), Err(StoreError::InvalidId { .. })));
    }

    #[test]
    fn spec_names_follow_wranglers_rules() {
        assert_eq!(spec_name(".wrangler/specifications/SPEC-000042-Auth System.md"), "auth-system");
        assert_eq!(spec_name("docs/spec-login_flow.md"), "login-flow");
        assert_eq!(spec_name("SPEC-000049-init-workspace-mcp-tool.md"), "init-workspace-mcp-tool");
        assert_eq!(spec_name("SPEC-x.md"), "spec-x");
        assert_eq!(spec_name("Ünïcode only.md"), "ncode-only");
        assert_eq!(spec_name("---.md"), "implementation");
        assert_eq!(spec_name(&format!("{}.md", "a".repeat(80))).len(), 50);
    }

    #[test]
    fn status_without_an_id_picks_the_latest_started_workflow_run() {
        let (dir, store) = store_with_spec();
        start(&store);
        let sessions = dir.path().join(".docket/sessions");
        for (id, started) in [
            ("wf-2026-02-16-aaaaaaaa", "2026-02-16T10:00:00.000Z"),
            ("wf-2026-02-15-ffffffff", "2026-02-17T10:00:00.000Z"),
        ] {
            std::fs::create_dir_all(sessions.join(id)).expect("mkdir");
            let context = json!({"id": id, "specFile": "spec.md", "status": "running", "currentPhase": "execute",
                "worktreePath": "/w", "branchName": "b", "phasesCompleted": [], "tasksCompleted": [], "tasksPending": [],
                "startedAt": started, "updatedAt": started});
            std::fs::write(sessions.join(id).join("context.json"), context.to_string()).expect("context");
        }
        std::fs::write(sessions.join("wf-2026-02-15-ffffffff/blocker.json"), r#"{"details":"tests fail"}"#)
            .expect("blocker");
        let progress = store.session_status(None).expect("a workflow run");
        assert_eq!(progress.session.id, "wf-2026-02-15-ffffffff", "latest startedAt wins, not the latest name");
        assert_eq!(progress.blocker.expect("blocker")["details"], "tests fail");
        assert!(progress.audit.is_empty());
    }
}
