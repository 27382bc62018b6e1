//! Error intelligence: a SQLite memory of failed tool calls (`cache/errors.db` in the workspace
//! directory), so a call that keeps failing the same way carries a warning and the known fix.
//!
//! Only the parameters a tool declares as its error context (tools.yaml `error_context:`) are
//! stored, never whole arguments, so descriptions and anything secret stay out of the database.
//! The memory never fails or slows a call on its own account: every error becomes a warning.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};

use crate::store::fs::Root;
use serde::Serialize;
use serde_json::{Map, Value};

/// Schema migrations, applied in order; `PRAGMA user_version` records how many ran.
const MIGRATIONS: &[&str] = &["
    CREATE TABLE error_patterns (
        id INTEGER PRIMARY KEY,
        operation TEXT NOT NULL,
        error_class TEXT NOT NULL,
        message TEXT NOT NULL,
        context_hash TEXT NOT NULL,
        context_json TEXT NOT NULL,
        frequency INTEGER NOT NULL DEFAULT 1,
        first_seen TEXT NOT NULL,
        last_seen TEXT NOT NULL,
        resolution TEXT,
        UNIQUE(operation, error_class, context_hash)
    );
    CREATE TABLE resolutions (
        id INTEGER PRIMARY KEY,
        error_pattern_id INTEGER NOT NULL REFERENCES error_patterns(id) ON DELETE CASCADE,
        description TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE INDEX idx_patterns_operation ON error_patterns(operation, context_hash);
    CREATE INDEX idx_patterns_recent ON error_patterns(last_seen DESC);
"];

/// Tunables (defaults from SPEC section 6).
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Failures of the same operation in the same context before a call is warned.
    pub preflight_threshold: u32,
    /// How far back preflight looks.
    pub window_days: i64,
    /// Patterns not seen for this long are deleted.
    pub retention_days: i64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { preflight_threshold: 3, window_days: 7, retention_days: 30 }
    }
}

/// A recorded failure pattern.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pattern {
    pub id: i64,
    pub operation: String,
    pub error_class: String,
    pub message: String,
    pub context: Value,
    pub frequency: i64,
    pub first_seen: String,
    pub last_seen: String,
    pub resolution: Option<String>,
}

pub struct ErrorMemory {
    /// `cache/errors.db` of the workspace served (see [`ErrorMemory::move_to`]).
    path: Mutex<PathBuf>,
    settings: Settings,
    /// Opened on first use; `None` until then.
    conn: Mutex<Option<Result<Connection, String>>>,
}

impl ErrorMemory {
    /// The memory in `cache/errors.db` under `workspace_dir`, opened (created, migrated,
    /// retention applied) now if `cache/` exists. Without it nothing is created: the database is
    /// opened on first use, and created only to record a failure once `cache/` exists, which a
    /// write makes (its lock lives there); until then the workspace is left as it was found, and
    /// lookups find nothing. A database that cannot be opened is remembered as the reason for
    /// warnings.
    pub fn open(workspace_dir: &Path, settings: Settings) -> ErrorMemory {
        let path = workspace_dir.join("cache").join("errors.db");
        let memory = ErrorMemory { path: Mutex::new(path), settings, conn: Mutex::new(None) };
        let _ = memory.use_db(true, |_| Ok(()));
        memory
    }

    /// From now on the memory of the workspace `workspace_dir` (a process that switched to a
    /// workspace made after it started): the database there, opened on next use.
    pub fn move_to(&self, workspace_dir: &Path) {
        let mut guard = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        *self.path.lock().unwrap_or_else(|p| p.into_inner()) = workspace_dir.join("cache").join("errors.db");
        *guard = None;
    }

    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// Runs `work` on the database; when there is none yet (and `create` is false, or `cache/`
    /// does not exist), answers what an empty memory would without creating it.
    fn use_db<T: Default>(
        &self,
        create: bool,
        work: impl FnOnce(&Connection) -> rusqlite::Result<T>,
    ) -> Result<T, String> {
        let mut guard = self.conn.lock().unwrap_or_else(|p| p.into_inner());
        let path = self.path.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if guard.is_none() {
            let may_create = create && path.parent().is_some_and(Path::is_dir);
            if !(path.exists() || may_create) {
                return Ok(T::default());
            }
            let opened = connect(&path);
            if let Ok(conn) = &opened {
                let _ = remove_expired(conn, self.settings);
            }
            *guard = Some(opened);
        }
        match guard.as_ref().expect("opened above") {
            Ok(conn) => work(conn).map_err(|e| format!("{}: {e}", path.display())),
            Err(why) => Err(why.clone()),
        }
    }

    fn with<T: Default>(&self, work: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, String> {
        self.use_db(false, work)
    }

    /// Counts one more failure of `operation` in `context`.
    pub fn record(
        &self,
        operation: &str,
        class: &str,
        message: &str,
        context: &Map<String, Value>,
    ) -> Result<(), String> {
        let (hash, json) = fingerprint(context);
        let now = now();
        self.use_db(true, |c| {
            c.execute(
                "INSERT INTO error_patterns (operation, error_class, message, context_hash, context_json, first_seen, last_seen)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)
                 ON CONFLICT(operation, error_class, context_hash)
                 DO UPDATE SET frequency = frequency + 1, last_seen = excluded.last_seen, message = excluded.message",
                params![operation, class, message, hash, json, now],
            )
            .map(|_| ())
        })
    }

    /// Patterns of `operation` in `context` seen at least the threshold number of times within
    /// the window, most frequent first.
    pub fn preflight(&self, operation: &str, context: &Map<String, Value>) -> Result<Vec<Pattern>, String> {
        let (hash, _) = fingerprint(context);
        let since = days_ago(self.settings.window_days);
        let threshold = i64::from(self.settings.preflight_threshold);
        self.with(|c| {
            let mut stmt = c.prepare(&format!(
                "SELECT {COLUMNS} FROM error_patterns WHERE operation = ?1 AND context_hash = ?2 AND last_seen > ?3
                 AND frequency >= ?4 ORDER BY frequency DESC LIMIT 5"
            ))?;
            stmt.query_map(params![operation, hash, since, threshold], row)?.collect()
        })
    }

    /// Records how pattern `id` was fixed; `None` if there is no such pattern.
    pub fn resolve(&self, id: i64, resolution: &str) -> Result<Option<Pattern>, String> {
        let now = now();
        self.with(|c| {
            if c.execute("UPDATE error_patterns SET resolution = ?1 WHERE id = ?2", params![resolution, id])? == 0 {
                return Ok(None);
            }
            c.execute(
                "INSERT INTO resolutions (error_pattern_id, description, created_at) VALUES (?1, ?2, ?3)",
                params![id, resolution, now],
            )?;
            c.query_row(&format!("SELECT {COLUMNS} FROM error_patterns WHERE id = ?1"), [id], row).optional()
        })
    }

    /// The most recently seen patterns.
    pub fn recent(&self, limit: usize) -> Result<Vec<Pattern>, String> {
        self.with(|c| {
            let mut stmt =
                c.prepare(&format!("SELECT {COLUMNS} FROM error_patterns ORDER BY last_seen DESC, id DESC LIMIT ?1"))?;
            stmt.query_map([limit as i64], row)?.collect()
        })
    }

    /// Deletes patterns not seen within the retention period; returns how many.
    pub fn cleanup(&self) -> Result<usize, String> {
        self.with(|c| remove_expired(c, self.settings))
    }
}

/// Deletes patterns not seen within the retention period; returns how many.
fn remove_expired(conn: &Connection, settings: Settings) -> rusqlite::Result<usize> {
    conn.execute("DELETE FROM error_patterns WHERE last_seen < ?1", [days_ago(settings.retention_days)])
}

const COLUMNS: &str = "id, operation, error_class, message, context_json, frequency, first_seen, last_seen, resolution";

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Pattern> {
    let context: String = r.get(4)?;
    Ok(Pattern {
        id: r.get(0)?,
        operation: r.get(1)?,
        error_class: r.get(2)?,
        message: r.get(3)?,
        context: serde_json::from_str(&context).unwrap_or(Value::Null),
        frequency: r.get(5)?,
        first_seen: r.get(6)?,
        last_seen: r.get(7)?,
        resolution: r.get(8)?,
    })
}

/// Opens the database through the rooted layer: `cache/`, `errors.db` and its journal files must
/// be real, so a committed link cannot make SQLite create or write a file outside the workspace,
/// and SQLite itself refuses a link that appears later (`SQLITE_OPEN_NOFOLLOW`).
fn connect(path: &Path) -> Result<Connection, String> {
    let shown = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let workspace_root = path.parent().and_then(Path::parent).and_then(Path::parent).unwrap_or(Path::new("/"));
    let conn = Root::open(workspace_root).and_then(|root| root.sqlite(path)).map_err(|e| e.to_string())?;
    migrate(conn).map_err(|e| shown(&e))
}

fn migrate(mut conn: Connection) -> rusqlite::Result<Connection> {
    conn.busy_timeout(Duration::from_secs(5))?;
    // Switching a new database to WAL while other processes open it too can answer "database is
    // locked" at once: SQLite does not call the busy handler where waiting could deadlock. Such
    // a refusal changed nothing (a migration's transaction rolls back), so try again a while.
    let mut tries = 0;
    loop {
        match set_up(&mut conn) {
            Err(e) if tries < 200 && is_busy(&e) => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(5));
            }
            done => return done.map(|()| conn),
        }
    }
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(e.sqlite_error_code(), Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
}

fn set_up(conn: &mut Connection) -> rusqlite::Result<()> {
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    // The version is read inside a write transaction: agents starting at once on a new workspace
    // take turns, and the second finds the first's tables instead of creating them again.
    loop {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let version = tx.pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0))? as usize;
        let Some(migration) = MIGRATIONS.get(version) else { return Ok(()) };
        tx.execute_batch(migration)?;
        tx.pragma_update(None, "user_version", (version + 1) as i64)?;
        tx.commit()?;
    }
}

/// A stable hash of the context (keys sorted) and its JSON.
fn fingerprint(context: &Map<String, Value>) -> (String, String) {
    let sorted: std::collections::BTreeMap<&String, &Value> = context.iter().collect();
    let json = serde_json::to_string(&sorted).unwrap_or_default();
    let hash = json.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    (format!("{hash:016x}"), json)
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn days_ago(days: i64) -> String {
    (chrono::Utc::now() - chrono::Duration::days(days)).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Agents started at once on a new workspace each open the error memory: every one gets it
    /// (the migration ran once, not "table error_patterns already exists" for the others).
    #[test]
    fn many_processes_opening_a_new_database_at_once_all_get_it() {
        let tmp = tempfile::tempdir().expect("tmp");
        let ws = tmp.path().join(".docket");
        std::fs::create_dir_all(ws.join("cache")).expect("mkdir");
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(8));
        let opened: Vec<Result<(), String>> = (0..8)
            .map(|_| {
                let (path, barrier) = (ws.join("cache/errors.db"), std::sync::Arc::clone(&barrier));
                std::thread::spawn(move || {
                    barrier.wait();
                    connect(&path).map(|_| ())
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|t| t.join().expect("thread"))
            .collect();
        assert!(opened.iter().all(Result::is_ok), "{opened:?}");
    }

    fn ctx(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    /// A memory in a workspace a write has been made in (so `cache/` exists).
    fn memory(threshold: u32) -> (tempfile::TempDir, ErrorMemory) {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::create_dir_all(dir.path().join("cache")).expect("mkdir");
        let m = ErrorMemory::open(dir.path(), Settings { preflight_threshold: threshold, ..Settings::default() });
        (dir, m)
    }

    #[test]
    fn frequency_first_and_last_seen_are_tracked_per_context() {
        let (_d, m) = memory(3);
        for _ in 0..3 {
            m.record("issues_delete", "confirmation_required", "need confirm", &ctx(json!({"confirm": false})))
                .expect("record");
        }
        m.record("issues_delete", "confirmation_required", "other", &ctx(json!({"confirm": true}))).expect("record");
        let recent = m.recent(10).expect("recent");
        assert_eq!(recent.len(), 2);
        let p = recent.iter().find(|p| p.context == json!({"confirm": false})).expect("pattern");
        assert_eq!(p.frequency, 3);
        assert!(p.first_seen <= p.last_seen);
    }

    #[test]
    fn preflight_needs_the_threshold_and_carries_the_resolution() {
        let (_d, m) = memory(2);
        let c = ctx(json!({"confirm": false}));
        m.record("issues_delete", "confirmation_required", "need confirm", &c).expect("record");
        assert!(m.preflight("issues_delete", &c).expect("preflight").is_empty());
        let id = m.recent(1).expect("recent")[0].id;
        m.resolve(id, "Pass confirm: true").expect("resolve");
        m.record("issues_delete", "confirmation_required", "need confirm", &c).expect("record");
        let warned = m.preflight("issues_delete", &c).expect("preflight");
        assert_eq!(warned[0].resolution.as_deref(), Some("Pass confirm: true"));
        assert!(
            m.preflight("issues_delete", &ctx(json!({"confirm": true}))).expect("preflight").is_empty(),
            "other contexts are not warned"
        );
    }

    #[test]
    fn retention_deletes_old_patterns() {
        let (dir, m) = memory(3);
        m.record("op", "validation", "x", &Map::new()).expect("record");
        m.with(|c| c.execute("UPDATE error_patterns SET last_seen = '2000-01-01T00:00:00.000Z'", [])).expect("age it");
        assert_eq!(m.cleanup().expect("cleanup"), 1);
        drop(m);
        let reopened = ErrorMemory::open(dir.path(), Settings::default());
        assert!(reopened.recent(10).expect("recent").is_empty());
    }

    #[test]
    fn nothing_is_created_before_a_write_made_the_cache() {
        let dir = tempfile::tempdir().expect("tmp");
        let m = ErrorMemory::open(dir.path(), Settings::default());
        m.record("op", "validation", "x", &Map::new()).expect("not remembered, not an error");
        assert!(m.recent(10).expect("recent").is_empty());
        assert!(m.preflight("op", &Map::new()).expect("preflight").is_empty());
        assert_eq!(m.resolve(1, "fix").expect("resolve"), None);
        assert!(std::fs::read_dir(dir.path()).expect("list").next().is_none(), "no cache/ and no errors.db");
        std::fs::create_dir_all(dir.path().join("cache")).expect("the first write's lock makes it");
        m.record("op", "validation", "x", &Map::new()).expect("record");
        assert_eq!(m.recent(10).expect("recent").len(), 1, "remembered from then on");
    }

    #[test]
    fn a_corrupt_database_is_reported_not_fatal() {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::create_dir_all(dir.path().join("cache")).expect("mkdir");
        std::fs::write(dir.path().join("cache/errors.db"), "this is not a database, just text that is long enough")
            .expect("write");
        let m = ErrorMemory::open(dir.path(), Settings::default());
        let err = m.record("op", "validation", "x", &Map::new()).expect_err("reported");
        assert!(err.contains("errors.db"), "{err}");
    }
}
