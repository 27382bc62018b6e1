//! Finding and creating workspaces: a directory holding `.wrangler/` (wrangler's) or `.docket/`;
//! the layout `init_workspace` creates and checks is in `crate::layout` (a floor above: it writes
//! issue files under the workspace lock).

pub mod worktrees;

use std::path::{Path, PathBuf};

use crate::fs::{Entry, Root};
use crate::model::{IssueType, StoreError};
pub use worktrees::Worktrees;

/// Names of the workspace directory, in the order they are looked for.
const DIR_NAMES: &[&str] = &[".wrangler", ".docket"];

/// Where a workspace is, and whether linked worktrees share it. Found with
/// [`Workspace::resolve`] or [`Workspace::discover`], made with [`Workspace::init`]; a plain
/// value (it holds no folder open), served by a [`Store`](crate::Store).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    /// The directory holding `.wrangler/` or `.docket/` (usually the repository root).
    pub root: PathBuf,
    /// The `.wrangler/` or `.docket/` directory itself.
    pub dir: PathBuf,
    /// The linked worktree docket was started in, when it serves the main worktree's workspace
    /// instead of that worktree's own (see [`Worktrees`]).
    pub shared_from: Option<PathBuf>,
    /// Whether linked worktrees share this workspace or keep their own files (then claims hold
    /// across worktrees through claim refs in the common git directory).
    pub worktrees: Worktrees,
}

/// The rooted layer knows no workspace: the workspace hands out its root directory.
impl Root {
    /// The workspace's root directory (the one holding `.docket/` or `.wrangler/`).
    pub fn workspace(ws: &Workspace) -> Result<Root, StoreError> {
        Root::open(&ws.root)
    }
}

impl Workspace {
    /// The workspace at `root`, if it has one.
    pub fn at(root: &Path) -> Option<Workspace> {
        DIR_NAMES.iter().map(|n| root.join(n)).find(|d| d.is_dir()).map(|dir| Workspace::new(root.to_path_buf(), dir))
    }

    /// The workspace `dir` inside `root`, served in place (not shared from a linked worktree).
    pub fn new(root: PathBuf, dir: PathBuf) -> Workspace {
        Workspace { root, dir, shared_from: None, worktrees: Worktrees::Shared }
    }

    /// The nearest workspace at `start` or above it.
    pub fn discover(start: &Path) -> Result<Workspace, StoreError> {
        let start = start.canonicalize().unwrap_or_else(|_| start.to_path_buf());
        start.ancestors().find_map(Workspace::at).ok_or(StoreError::NoWorkspace { searched_from: start })
    }

    /// `explicit`, else `DOCKET_WORKSPACE`, else `WRANGLER_WORKSPACE_ROOT`, else discovery from the
    /// current directory. An explicit path may be the root or the `.wrangler/`/`.docket/` itself.
    /// In a linked git worktree this is the main worktree's workspace unless `worktrees: local`
    /// (config key or `DOCKET_WORKTREES`) says otherwise: see [`Worktrees`].
    pub fn resolve(explicit: Option<&Path>) -> Result<Workspace, StoreError> {
        Workspace::resolve_with(explicit, None)
    }

    /// [`Workspace::resolve_with`], or when no workspace is found, the one the first write
    /// creates: `.wrangler/` in the folder wrangler's server would use (`explicit`, else
    /// `DOCKET_WORKSPACE`, else `WRANGLER_WORKSPACE_ROOT`, else the current directory; in a linked
    /// worktree sharing the main worktree's files, that folder in the main worktree). Nothing is
    /// created here; see [`Workspace::exists`]. A folder named explicitly must exist.
    pub fn resolve_or_pending(explicit: Option<&Path>, flag: Option<Worktrees>) -> Result<Workspace, StoreError> {
        match Workspace::resolve_with(explicit, flag) {
            Err(StoreError::NoWorkspace { .. }) => {
                let root = match chosen_path(explicit) {
                    Some(path) if path.is_dir() => path,
                    Some(path) => return Err(StoreError::NoWorkspace { searched_from: path }),
                    None => std::env::current_dir().map_err(StoreError::io("."))?,
                };
                Ok(worktrees::pending(root, flag, DIR_NAMES[0]))
            }
            found => found,
        }
    }

    /// Whether the workspace folder exists (a pending one has none until the first write).
    pub fn exists(&self) -> bool {
        self.dir.is_dir()
    }

    /// The first write into a pending workspace creates its folder, with a `.gitignore` for the
    /// `cache/` that the write's lock lives in; an existing workspace is left as it is.
    pub(crate) fn create_if_missing(&self) -> Result<(), StoreError> {
        if self.exists() {
            return Ok(());
        }
        // A workspace made beside the pending one since this process started (`docket init .`
        // while a server waited): a second one would hide one set of issues from every later
        // process, which finds the first name first.
        if let Some(other) = Workspace::at(&self.root) {
            return Err(StoreError::Refused {
                path: other.dir.clone(),
                reason: format!(
                    "this workspace was made after this docket process started, which was to create {} at its \
                     first write; docket does not create a second workspace beside it. Restart the server (or \
                     rerun the command) to serve {}, then retry",
                    self.dir.display(),
                    other.dir.display()
                ),
            });
        }
        let rooted = Root::open(&self.root)?;
        rooted.create_dir_all(&self.dir)?;
        let ignore = self.dir.join(".gitignore");
        if rooted.entry(&ignore)? == Entry::Missing {
            rooted.create_atomic(&ignore, b"cache/\n")?;
        }
        Ok(())
    }

    /// Creates `.docket/` under `root` (or completes an existing workspace's layout).
    pub fn init(root: &Path) -> Result<Workspace, StoreError> {
        let ws = Workspace::at(root).unwrap_or_else(|| Workspace::new(root.to_path_buf(), root.join(".docket")));
        // Through the rooted layer: a committed link where a folder or `.gitignore` belongs is
        // refused, never written through.
        let rooted = Root::open_or_create(root)?;
        for t in IssueType::ALL {
            rooted.create_dir_all(&ws.collection(*t).join("archived"))?;
        }
        for sub in ["sessions", "config", "cache"] {
            rooted.create_dir_all(&ws.dir.join(sub))?;
        }
        let ignore = ws.dir.join(".gitignore");
        match rooted.entry(&ignore)? {
            Entry::Missing => rooted.create_atomic(&ignore, b"cache/\n")?,
            Entry::File => {}
            Entry::Dir | Entry::Other(_) => {
                return Err(StoreError::Refused {
                    path: ignore,
                    reason: "it is a symbolic link, folder, FIFO or device where docket expects its own .gitignore; \
                             replace it with a regular file (or remove it), then retry"
                        .into(),
                });
            }
        }
        Ok(ws)
    }

    /// The folder of a collection (`issues/`, `specifications/`, `ideas/`).
    pub fn collection(&self, t: IssueType) -> PathBuf {
        self.dir.join(t.folder())
    }

    /// Every folder that holds issue files: each collection and its `archived/`.
    pub fn issue_dirs(&self) -> Vec<(IssueType, PathBuf)> {
        IssueType::ALL
            .iter()
            .flat_map(|t| [(*t, self.collection(*t)), (*t, self.collection(*t).join("archived"))])
            .collect()
    }

    /// The collection whose folder (or its `archived/`) holds `path`; `None` outside them.
    pub(crate) fn folder_type(&self, path: &Path) -> Option<IssueType> {
        let parent = path.parent()?;
        self.issue_dirs().into_iter().find(|(_, d)| d == parent).map(|(t, _)| t)
    }

    /// Where docket keeps its lock and other untracked state.
    pub fn cache_dir(&self) -> PathBuf {
        self.dir.join("cache")
    }

    /// `sessions/`: one folder per session (see [`crate::sessions`]).
    pub fn sessions_dir(&self) -> PathBuf {
        self.dir.join("sessions")
    }
}

/// `explicit`, else `DOCKET_WORKSPACE`, else `WRANGLER_WORKSPACE_ROOT`.
fn chosen_path(explicit: Option<&Path>) -> Option<PathBuf> {
    let from_env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    explicit
        .map(Path::to_path_buf)
        .or_else(|| from_env("DOCKET_WORKSPACE"))
        .or_else(|| from_env("WRANGLER_WORKSPACE_ROOT"))
}

/// The root of `path` when it names a `.wrangler/` or `.docket/` directory itself.
fn named_root(path: &Path) -> Option<PathBuf> {
    let named_dir = path.file_name().and_then(|n| n.to_str()).is_some_and(|n| DIR_NAMES.contains(&n));
    (named_dir && path.is_dir()).then(|| path.parent().map(Path::to_path_buf).unwrap_or_else(|| path.to_path_buf()))
}

/// The workspace an explicit path names, served in place.
fn at_path(path: &Path) -> Result<Workspace, StoreError> {
    if let Some(root) = named_root(path) {
        return Ok(Workspace::new(root, path.to_path_buf()));
    }
    Workspace::at(path).ok_or_else(|| StoreError::NoWorkspace { searched_from: path.to_path_buf() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_walks_up_to_the_workspace() {
        let tmp = tempfile::tempdir().expect("tmp");
        let ws = Workspace::init(tmp.path()).expect("init");
        let deep = tmp.path().join("src/a/b");
        std::fs::create_dir_all(&deep).expect("mkdir");
        assert_eq!(Workspace::discover(&deep).expect("found").dir.canonicalize().ok(), ws.dir.canonicalize().ok());
    }

    #[test]
    fn a_wrangler_directory_is_preferred_and_served_in_place() {
        let tmp = tempfile::tempdir().expect("tmp");
        std::fs::create_dir_all(tmp.path().join(".wrangler/issues")).expect("mkdir");
        let ws = Workspace::resolve(Some(tmp.path())).expect("resolve");
        assert!(ws.dir.ends_with(".wrangler"));
        let direct = Workspace::resolve(Some(&tmp.path().join(".wrangler"))).expect("resolve the dir itself");
        assert_eq!(direct.dir, ws.dir);
    }

    #[test]
    fn without_a_workspace_the_first_write_creates_wranglers_in_the_named_folder() {
        let tmp = tempfile::tempdir().expect("tmp");
        let ws = Workspace::resolve_or_pending(Some(tmp.path()), None).expect("pending");
        assert_eq!(ws.dir, tmp.path().join(".wrangler"));
        assert!(!ws.exists() && std::fs::read_dir(tmp.path()).expect("list").next().is_none(), "nothing created");
        ws.create_if_missing().expect("create");
        assert_eq!(std::fs::read_to_string(ws.dir.join(".gitignore")).expect("gitignore"), "cache/\n");
        assert_eq!(Workspace::resolve(Some(tmp.path())).expect("found now"), ws);
        let missing = tmp.path().join("nope");
        assert!(matches!(Workspace::resolve_or_pending(Some(&missing), None), Err(StoreError::NoWorkspace { .. })));
    }

    #[test]
    fn no_workspace_is_a_clear_error() {
        let tmp = tempfile::tempdir().expect("tmp");
        assert!(matches!(Workspace::resolve(Some(tmp.path())), Err(StoreError::NoWorkspace { .. })));
    }
}
