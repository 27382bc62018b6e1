//! The store a long-running process serves, and the one switch it may make. A process started
//! where no workspace was yet serves a pending `.wrangler/` that its first write would create;
//! when a workspace was made in that same folder meanwhile (`docket init .` while a server
//! waited), creating a second one beside it would hide one set of issues from every later
//! process (which finds `.wrangler/` first). So before its first write the process resolves
//! again ([`Served::resolve_again`]) and from then on serves the workspace that appeared: a
//! store of its own (index, watcher, snapshot, claims), with the sessions of the first. The
//! switch happens at most once, so a [`Served`] derefs to the current [`Store`] without a lock.

use std::ops::Deref;
use std::sync::{Arc, Mutex, OnceLock};

use crate::{Store, Workspace};

/// Opens a store on a workspace with the settings of the process (claims remote, leases, ...).
type Reopen = Box<dyn Fn(Workspace) -> Store + Send + Sync>;

/// The store a process serves: the one it opened, or the one it switched to.
pub struct Served {
    first: Arc<Store>,
    appeared: OnceLock<Arc<Store>>,
    reopen: Reopen,
    /// Held while switching, so two writes at once open one store and one of them says so.
    switching: Mutex<()>,
    /// Whether the first store's claims are renewed by a thread (then the new one's are too).
    renewing: std::sync::atomic::AtomicBool,
}

/// What [`Served::resolve_again`] switched from and to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Switched {
    /// The pending workspace the process was to create at its first write.
    pub from: Workspace,
    /// The workspace that appeared in its folder, served from now on.
    pub to: Workspace,
}

impl Switched {
    /// The sentence an answer carries, once, when the process switched.
    pub fn sentence(&self) -> String {
        format!(
            "{} was made (docket init) after this docket process started, which was to create {} at its first \
             write: serving {} now; this write and every later call use it, and no second workspace is created",
            self.to.dir.display(),
            self.from.dir.display(),
            self.to.dir.display()
        )
    }
}

impl Deref for Served {
    type Target = Store;

    fn deref(&self) -> &Store {
        self.current()
    }
}

impl Served {
    /// Serves `store`; a switch opens the workspace that appeared with `reopen`.
    pub fn new(store: Store, reopen: impl Fn(Workspace) -> Store + Send + Sync + 'static) -> Served {
        Served {
            first: Arc::new(store),
            appeared: OnceLock::new(),
            reopen: Box::new(reopen),
            switching: Mutex::new(()),
            renewing: Default::default(),
        }
    }

    /// The store served now.
    pub fn current(&self) -> &Arc<Store> {
        self.appeared.get().unwrap_or(&self.first)
    }

    /// Renews the claims of the served store's sessions on a thread ([`Store::start_renewals`]),
    /// and of the store switched to, if the process switches.
    pub fn start_renewals(&self) {
        self.renewing.store(true, std::sync::atomic::Ordering::Relaxed);
        self.current().start_renewals();
    }

    /// Before a write: when the served workspace is still pending (its folder does not exist) and
    /// a workspace was made in the same folder since, serves that one from now on and says what
    /// it switched from and to (`Some` to one caller only, once per process). `None` otherwise:
    /// a workspace that exists, or a pending one whose folder is still empty of workspaces (the
    /// write creates it as before).
    pub fn resolve_again(&self) -> Option<Switched> {
        if self.appeared.get().is_some() || self.first.workspace().exists() {
            return None;
        }
        let _one = self.switching.lock().unwrap_or_else(|p| p.into_inner());
        let from = self.first.workspace();
        if self.appeared.get().is_some() || from.exists() {
            return None;
        }
        let found = Workspace::at(&from.root)?;
        let to = Workspace { shared_from: from.shared_from.clone(), worktrees: from.worktrees, ..found };
        let store = Arc::new((self.reopen)(to.clone()));
        store.adopt_sessions(&self.first);
        if self.renewing.load(std::sync::atomic::Ordering::Relaxed) {
            store.start_renewals();
        }
        tracing::info!(from = %from.dir.display(), to = %to.dir.display(), "a workspace appeared: serving it");
        self.appeared.set(store).ok()?;
        Some(Switched { from: from.clone(), to })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::StoreOptions;

    fn served(root: &std::path::Path) -> Served {
        let ws = Workspace::resolve_or_pending(Some(root), None).expect("pending");
        Served::new(Store::open(ws, StoreOptions::default()), |ws| Store::open(ws, StoreOptions::default()))
    }

    #[test]
    fn a_pending_store_switches_once_to_the_workspace_made_in_its_folder() {
        let tmp = tempfile::tempdir().expect("tmp");
        let served = served(tmp.path());
        assert_eq!(served.resolve_again(), None, "nothing appeared yet");
        assert!(std::fs::read_dir(tmp.path()).expect("list").next().is_none(), "nothing created");
        let made = Workspace::init(tmp.path()).expect("init");
        let switched = served.resolve_again().expect("switched");
        assert!(switched.from.dir.ends_with(".wrangler") && switched.to.dir.ends_with(".docket"), "{switched:?}");
        assert!(switched.sentence().contains(&made.dir.display().to_string()));
        assert_eq!(served.workspace().dir, switched.to.dir, "served from now on");
        assert_eq!(served.resolve_again(), None, "said once");
        assert!(!tmp.path().join(".wrangler").exists());
    }

    #[test]
    fn an_existing_workspace_is_never_switched() {
        let tmp = tempfile::tempdir().expect("tmp");
        std::fs::create_dir_all(tmp.path().join(".wrangler/issues")).expect("mkdir");
        let served = served(tmp.path());
        Workspace::init(&tmp.path().join("nested")).expect("init another");
        assert_eq!(served.resolve_again(), None);
        assert!(served.workspace().dir.ends_with(".wrangler"));
    }
}
