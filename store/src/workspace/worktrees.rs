//! Linked worktrees share one workspace: started anywhere in a linked worktree (`.worktrees/NAME`,
//! `.claude/worktrees/NAME`, a sibling folder), docket serves the main worktree's workspace, found
//! through the git common directory, so every agent on the machine sees one set of claims, ids,
//! ready queue, index, sessions and error memory.
//!
//! The main worktree is the common directory's parent when that parent's `.git` is the common
//! directory and the repository is not bare. A workspace path inside the linked worktree is mapped
//! onto the same path in the main worktree: the nearest workspace inside the linked worktree is
//! found first, and shared only when the main worktree has a workspace at that same path. When
//! the main worktree has none there (the workspace exists only on the worktree's branch), the
//! repository is bare (only linked worktrees), or a workspace folder is named explicitly, the
//! worktree's own workspace is served in place, as with `worktrees: local`. A linked worktree
//! whose main checkout moved is refused, naming `git worktree repair`.

use std::path::{Path, PathBuf};

use super::Workspace;

/// Whether a linked worktree serves the main worktree's workspace (the default) or its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Worktrees {
    /// Every worktree serves the main worktree's workspace.
    #[default]
    Shared,
    /// Each worktree serves its own files; claims still hold across worktrees through claim refs
    /// in the common git directory (see `crate::git::claims`).
    Local,
}

impl Worktrees {
    /// The environment variable that chooses (`shared` or `local`).
    pub const ENV: &'static str = "DOCKET_WORKTREES";
    /// The key of `config/docket.yaml` that chooses.
    pub const KEY: &'static str = "worktrees";
    /// The accepted values, in the order of the variants.
    pub const VALUES: [&'static str; 2] = ["shared", "local"];

    /// `shared` or `local` (any case, surrounding space ignored); `None` for anything else.
    pub fn parse(value: &str) -> Option<Worktrees> {
        match value.trim().to_ascii_lowercase().as_str() {
            "shared" => Some(Worktrees::Shared),
            "local" => Some(Worktrees::Local),
            _ => None,
        }
    }

    /// `flag`, else `DOCKET_WORKTREES`, else the `worktrees` key of `ws_dir`'s config file, else shared.
    fn choose(flag: Option<Worktrees>, ws_dir: Option<&Path>) -> Worktrees {
        flag.or_else(|| std::env::var(Worktrees::ENV).ok().as_deref().and_then(Worktrees::parse))
            .or_else(|| ws_dir.and_then(configured))
            .unwrap_or_default()
    }
}

/// The `worktrees` key of a workspace's `config/docket.yaml`, if it names a valid mode (the
/// config loader reports a bad value with the rest of the file).
fn configured(ws_dir: &Path) -> Option<Worktrees> {
    let bytes = crate::fs::read_file(&ws_dir.join("config/docket.yaml"), 1024 * 1024).ok()?;
    let doc: serde_yaml::Value = serde_yaml::from_slice(&bytes).ok()?;
    doc.get(Worktrees::KEY)?.as_str().and_then(Worktrees::parse)
}

/// Where a directory sits among a repository's worktrees.
#[derive(Debug, Clone)]
struct Linked {
    /// The top level of the linked worktree.
    toplevel: PathBuf,
    /// The main worktree's top level; `None` for a bare repository (only linked worktrees).
    main: Option<PathBuf>,
}

/// The linked worktree holding `dir`, or `None` when `dir` is in a main worktree or outside git.
fn linked(dir: &Path) -> Option<Linked> {
    // Asked of the git command line directly, like `is_bare`: the `git` module is a floor above
    // this one (it numbers ids in a workspace), so finding a workspace does not call into it.
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir", "--git-common-dir"])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let out = String::from_utf8_lossy(&out.stdout);
    let mut lines = out.lines().map(|l| PathBuf::from(l.trim_end()));
    let (toplevel, git_dir, common) = (lines.next()?, lines.next()?, lines.next()?);
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let common = canon(&common);
    if canon(&git_dir) == common {
        return None;
    }
    let main = common.parent().map(Path::to_path_buf).filter(|parent| {
        let dot_git = parent.join(".git");
        dot_git.is_dir() && canon(&dot_git) == common && !is_bare(&common)
    });
    Some(Linked { toplevel: canon(&toplevel), main })
}

/// Whether the repository of `common_dir` says it is bare (`core.bare`).
fn is_bare(common_dir: &Path) -> bool {
    let out = std::process::Command::new("git")
        .arg("--git-dir")
        .arg(common_dir)
        .args(["config", "--bool", "core.bare"])
        .output();
    out.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "true")
}

/// The workspace the first write creates, named `name`, in `root`; in a linked worktree that
/// shares the main worktree's files, in the same folder of the main worktree when it exists
/// there, so the first write of any agent creates the one workspace every worktree serves.
pub(super) fn pending(root: PathBuf, flag: Option<Worktrees>, name: &str) -> Workspace {
    let root = root.canonicalize().unwrap_or(root);
    let in_place = |root: PathBuf| {
        let dir = root.join(name);
        Workspace { worktrees: Worktrees::choose(flag, None), ..Workspace::new(root, dir) }
    };
    let Some(tree) = linked(&root) else { return in_place(root) };
    let Some(main) = tree.main else { return Workspace { worktrees: Worktrees::Local, ..in_place(root) } };
    let mapped = root.strip_prefix(&tree.toplevel).ok().map(|rel| main.join(rel)).filter(|m| m.is_dir());
    match (Worktrees::choose(flag, None), mapped) {
        (Worktrees::Shared, Some(mapped)) => Workspace { shared_from: Some(tree.toplevel), ..in_place(mapped) },
        _ => in_place(root),
    }
}

impl Workspace {
    /// One sentence on how worktrees share this workspace, for the start-up line and doctor;
    /// `None` when there is nothing to say (not started in a linked worktree, shared mode).
    pub fn worktree_note(&self) -> Option<String> {
        match (&self.shared_from, self.worktrees) {
            (Some(linked), _) => Some(format!(
                "started in the linked worktree {}: serving the main worktree's workspace {}, shared by every worktree (--worktree-local or `worktrees: local` keeps a worktree's own files)",
                linked.display(),
                self.dir.display()
            )),
            (None, Worktrees::Local) => Some(format!(
                "serving {} in place (this worktree keeps its own files: `worktrees: local`, a workspace only this branch has, or a workspace folder named explicitly); claims hold across worktrees through refs/docket/claims/ in the common git directory",
                self.dir.display()
            )),
            (None, Worktrees::Shared) => None,
        }
    }

    /// Like [`Workspace::resolve`], with the worktree mode chosen by `flag` (`--worktree-local`)
    /// before `DOCKET_WORKTREES` and the config key.
    ///
    /// In a linked worktree the nearest workspace inside the worktree is found first; it is
    /// replaced by the main worktree's only when the main worktree has a workspace at the same
    /// path (a workspace that exists only on the worktree's branch is served in place). A path
    /// naming a workspace folder itself (`--workspace packages/app/.docket`) is never redirected.
    /// A linked worktree whose main checkout moved (its `.git` file names a folder that is gone)
    /// is refused, naming `git worktree repair`.
    pub fn resolve_with(
        explicit: Option<&Path>,
        flag: Option<Worktrees>,
    ) -> Result<Workspace, crate::model::StoreError> {
        let chosen = super::chosen_path(explicit);
        let names_folder = chosen.as_deref().and_then(super::named_root);
        let start = match &chosen {
            Some(path) => names_folder.clone().unwrap_or_else(|| path.clone()),
            None => std::env::current_dir().map_err(crate::model::StoreError::io("."))?,
        };
        let start = start.canonicalize().unwrap_or(start);
        refuse_broken_link(&start)?;
        let in_place = || match &chosen {
            Some(path) => super::at_path(path),
            None => Workspace::discover(&start),
        };
        let Some(tree) = linked(&start) else {
            let mut ws = in_place()?;
            ws.worktrees = Worktrees::choose(flag, Some(&ws.dir));
            return Ok(ws);
        };
        // The worktree's own workspace: the nearest one inside the worktree.
        let own = in_place().ok().filter(|w| w.root.starts_with(&tree.toplevel));
        let shared = match (&tree.main, &own) {
            // A folder named explicitly is served as named.
            _ if names_folder.is_some() => None,
            (Some(main), Some(own)) => {
                own.root.strip_prefix(&tree.toplevel).ok().map(|rel| main.join(rel)).and_then(|m| Workspace::at(&m))
            }
            (Some(main), None) => main_workspace(&tree.toplevel, main, &start),
            (None, _) => None,
        };
        let mode = Worktrees::choose(flag, own.as_ref().or(shared.as_ref()).map(|w| w.dir.as_path()));
        let mut ws = match (mode, shared) {
            (Worktrees::Shared, Some(mut main_ws)) => {
                main_ws.shared_from = Some(tree.toplevel.clone());
                main_ws.worktrees = mode;
                return Ok(main_ws);
            }
            _ => match own {
                Some(ws) => ws,
                None => in_place()?,
            },
        };
        // Served in place in a linked worktree (a bare repository, `worktrees: local`, a
        // workspace only this branch has, a folder named explicitly): each worktree keeps its
        // files, and claims hold across them through the common git directory.
        ws.worktrees = Worktrees::Local;
        Ok(ws)
    }
}

/// Refuses a start inside a linked worktree whose `.git` file names a git directory that is gone
/// (the main checkout was moved or deleted): git itself says "not a git repository" there, and
/// serving the worktree's files would split the state from the main checkout's without a word.
fn refuse_broken_link(start: &Path) -> Result<(), crate::model::StoreError> {
    let Some(top) = start.ancestors().find(|a| a.join(".git").symlink_metadata().is_ok()) else { return Ok(()) };
    let dot_git = top.join(".git");
    if !dot_git.is_file() {
        return Ok(());
    }
    let Ok(bytes) = crate::fs::read_file(&dot_git, 64 * 1024) else { return Ok(()) };
    let text = String::from_utf8_lossy(&bytes);
    let Some(target) = text.lines().find_map(|l| l.strip_prefix("gitdir:")).map(str::trim) else { return Ok(()) };
    let target = top.join(target);
    if target.is_dir() {
        return Ok(());
    }
    Err(crate::model::StoreError::Refused {
        path: top.to_path_buf(),
        reason: format!(
            "this linked worktree's .git file points to {}, which does not exist: the main checkout was moved or \
             deleted, so git does not see this folder as a repository and docket would split its state from the \
             main checkout's. Run `git -C <main checkout's new path> worktree repair {}` (or `git worktree repair` \
             in the moved main checkout), then retry",
            target.display(),
            top.display()
        ),
    })
}

/// The main worktree's workspace for `start` in the linked worktree `toplevel`: at the same path
/// under `main`, else the nearest one above it within the main worktree.
fn main_workspace(toplevel: &Path, main: &Path, start: &Path) -> Option<Workspace> {
    let mapped = main.join(start.strip_prefix(toplevel).ok()?);
    mapped.ancestors().take_while(|a| a.starts_with(main)).find_map(Workspace::at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_case_blind_and_refuse_others() {
        assert_eq!(Worktrees::parse(" Local "), Some(Worktrees::Local));
        assert_eq!(Worktrees::parse("shared"), Some(Worktrees::Shared));
        assert_eq!(Worktrees::parse("per-worktree"), None);
    }
}
