//! Who makes a call: the session a claim belongs to. Each MCP session (a stdio process, an HTTP
//! session) is its own holder, even when two of them give the same name; the CLI's holder is its
//! `--as NAME`, any session of that name. A front end runs a call inside [`within`]; the store
//! reads the caller with [`current`] when it takes, renews or fences a claim.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

/// One session: its id in claim records, and the issues it has claimed (to renew their leases
/// while it lives, and to refuse its writes to an issue someone else has taken since).
#[derive(Debug)]
pub struct Session {
    id: String,
    claimed: Mutex<HashSet<String>>,
    /// Issues this session claimed that a merge renumbered since: old id -> new id.
    renumbered: Mutex<HashMap<String, String>>,
}

impl Session {
    /// A new session with an id no other has (process id, and a random part).
    pub fn new() -> Arc<Session> {
        let id = format!("{}-{:08x}", std::process::id(), rand::random::<u32>());
        Arc::new(Session { id, claimed: Mutex::default(), renumbered: Mutex::default() })
    }

    /// Its id in claim records.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Remembers that this session claimed `id`.
    pub fn took(&self, id: &str) {
        self.claimed.lock().unwrap_or_else(|p| p.into_inner()).insert(id.to_uppercase());
        self.renumbered.lock().unwrap_or_else(|p| p.into_inner()).remove(&id.to_uppercase());
    }

    /// Remembers that the issue this session claimed as `from` is `to` now (a merge renumbered
    /// it, and its claim moved with it): `from` is another issue, which this session never claimed.
    pub fn renumbered(&self, from: &str, to: &str) {
        self.claimed.lock().unwrap_or_else(|p| p.into_inner()).remove(&from.to_uppercase());
        self.took(to);
        self.renumbered.lock().unwrap_or_else(|p| p.into_inner()).insert(from.to_uppercase(), to.to_string());
    }

    /// The id of the issue this session claimed as `id`, when a merge has renumbered it since.
    pub fn renumbered_to(&self, id: &str) -> Option<String> {
        self.renumbered.lock().unwrap_or_else(|p| p.into_inner()).get(&id.to_uppercase()).cloned()
    }

    /// Forgets `id` (released, closed, handed over, or taken by someone else).
    pub fn dropped(&self, id: &str) {
        self.claimed.lock().unwrap_or_else(|p| p.into_inner()).remove(&id.to_uppercase());
    }

    /// Whether this session claimed `id` (and has not let it go).
    pub fn claimed(&self, id: &str) -> bool {
        self.claimed.lock().unwrap_or_else(|p| p.into_inner()).contains(&id.to_uppercase())
    }

    /// The issues this session holds.
    pub fn claims(&self) -> Vec<String> {
        self.claimed.lock().unwrap_or_else(|p| p.into_inner()).iter().cloned().collect()
    }
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<Session>>> = const { RefCell::new(None) };
}

/// Runs `work` as a call of `session` (`None`: no session, the CLI or the board).
pub fn within<T>(session: Option<Arc<Session>>, work: impl FnOnce() -> T) -> T {
    let before = CURRENT.with(|c| c.replace(session));
    let out = work();
    CURRENT.with(|c| *c.borrow_mut() = before);
    out
}

/// The session of the call running on this thread, if any.
pub fn current() -> Option<Arc<Session>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// The id of the current session, empty without one.
pub fn current_id() -> String {
    current().map(|s| s.id().to_string()).unwrap_or_default()
}
