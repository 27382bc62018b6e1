//! The git hooks `docket git-setup` installs so merges repair themselves: after a merge
//! (`post-merge`), a rebase (`post-rewrite`) or a merge commit concluded by hand (`post-commit`),
//! `docket hook NAME` renumbers the ids the merge duplicated, with `doctor --fix`'s rules.
//!
//! A hook the user already has is kept: it is renamed to `NAME.legacy` (the pre-commit
//! framework's convention) and docket's hook runs it first with the same arguments and input.
//! Hooks go where git looks for them (`core.hooksPath` honoured), through the rooted file layer:
//! inside the repository's git directory or its working tree, never through a link, and never
//! into a hooks folder outside the repository (a global `core.hooksPath` serves every repository
//! on the machine: docket says what to add by hand instead).

use std::path::{Path, PathBuf};

use super::Repo;
use crate::fs::{Entry, Rename, Root};

/// The first line after the shebang of every hook docket writes: how it recognizes its own.
const MARK: &str = "# docket: renumber ids a merge duplicated (written by `docket git-setup`)";

/// The hooks docket installs.
pub const HOOKS: [&str; 3] = ["post-merge", "post-rewrite", "post-commit"];

/// The script of hook `name`: the kept hook first, then `docket hook`; never fails the git
/// command (these hooks run after the fact, and git ignores their status anyway).
///
/// No text of the repository reaches the script: `docket hook` finds the workspace itself (the
/// `docket.workspace` key git-setup writes, from the top level git runs hooks in), so a folder
/// named `$(...)`, with a backquote, a quote or a newline runs nothing. The only path in it is
/// docket's own executable, single-quoted byte for byte by [`super::shell_quote`].
fn script(name: &str, exe: &Path) -> Vec<u8> {
    let mut s = format!(
        "#!/bin/sh\n{MARK}\nhooks=\"$(dirname \"$0\")\"\nif [ -x \"$hooks/{name}.legacy\" ]; then \"$hooks/{name}.legacy\" \"$@\"; fi\nexe="
    )
    .into_bytes();
    s.extend(super::shell_quote(exe.as_os_str()));
    s.extend(format!("\n{CALL_PREFIX}{name} \"$@\" </dev/null || true; {CALL_SUFFIX}\nexit 0\n").into_bytes());
    s
}

/// The line that runs docket, up to the hook's name, and its end: with the `exe=` line, all
/// that differs between docket versions' installs (an older one passed `--workspace PATH` here).
const CALL_PREFIX: &str = "if [ -x \"$exe\" ]; then \"$exe\" hook ";
const CALL_SUFFIX: &str =
    "else echo \"docket hook: $exe is gone; run \\`docket git-setup\\` again to point the hooks at docket\" >&2; fi";

/// Where git runs hooks from, and the trusted directory to write them through.
fn hooks_dir(repo: &Repo) -> Result<(Root, PathBuf), String> {
    let dir = repo
        .git(&["rev-parse", "--path-format=absolute", "--git-path", "hooks"])
        .map(|s| PathBuf::from(s.trim_end()))
        .ok_or("git did not say where its hooks live (`git rev-parse --git-path hooks` failed)")?;
    for anchor in [&repo.common_dir, &repo.toplevel] {
        let real = anchor.canonicalize().unwrap_or_else(|_| anchor.to_path_buf());
        if let Ok(rel) = dir.strip_prefix(anchor).or_else(|_| dir.strip_prefix(&real)) {
            let root = Root::open(&real).map_err(|e| e.to_string())?;
            return Ok((root, real.join(rel)));
        }
    }
    Err(format!(
        "git runs this repository's hooks from {}, outside the repository (core.hooksPath, or a hooks folder that is a link); docket installs no hook there (it could run in every repository that uses it). To renumber ids after merges, call `docket hook post-merge` from your own post-merge hook (and `docket hook post-rewrite` from post-rewrite)",
        dir.display()
    ))
}

/// Installs (or updates) the hooks; one line per hook saying what was done.
pub fn install(repo: &Repo, exe: &Path) -> Result<Vec<String>, String> {
    let (root, dir) = hooks_dir(repo)?;
    root.create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut report = Vec::new();
    for name in HOOKS {
        let path = dir.join(name);
        let want = script(name, exe);
        let current = match root.entry(&path).map_err(|e| e.to_string())? {
            Entry::Missing => None,
            Entry::File => Some(root.read(&path, 1 << 20).map_err(|e| format!("cannot read {e}"))?),
            _ => {
                return Err(format!("{} is not a regular file; remove it or install the hook by hand", path.display()));
            }
        };
        match current {
            Some(bytes) if bytes == want => {
                report.push(format!("{}: already installed", path.display()));
                continue;
            }
            // docket's, for another executable or workspace path: rewritten. docket's with lines
            // someone added: theirs would be lost, so it is left as it is.
            Some(bytes) if String::from_utf8_lossy(&bytes).contains(MARK) && !same_but_call(&bytes, &want, name) => {
                return Err(format!(
                    "{} is docket's hook with lines added by hand; docket would lose them. Move your lines to {}.legacy (docket's hook runs it first), then run `docket git-setup` again",
                    path.display(),
                    path.display()
                ));
            }
            Some(bytes) if !String::from_utf8_lossy(&bytes).contains(MARK) => {
                let legacy = dir.join(format!("{name}.legacy"));
                if root.entry(&legacy).map_err(|e| e.to_string())? != Entry::Missing {
                    return Err(format!(
                        "{} is not docket's, and {} exists too: docket would lose one of them. Merge them into {}, then run `docket git-setup` again",
                        path.display(),
                        legacy.display(),
                        legacy.display()
                    ));
                }
                root.rename(&path, &legacy, Rename::NoReplace).map_err(|e| e.to_string())?;
                report.push(format!("{}: kept as {} (docket's hook runs it first)", path.display(), legacy.display()));
            }
            _ => {}
        }
        root.write_atomic(&path, &want, Some(0o755)).map_err(|e| format!("cannot write {e}"))?;
        report.push(format!("{}: installed (renumbers ids a merge duplicated)", path.display()));
    }
    Ok(report)
}

/// Whether `current` is docket's script `want` but for the executable and the call of
/// `docket hook` (all that differs between docket versions' installs on one machine). The call
/// may span lines: older versions embedded the workspace path there, newlines included.
fn same_but_call(current: &[u8], want: &[u8], name: &str) -> bool {
    let split = |text: &[u8]| -> Option<(Vec<u8>, Vec<u8>)> {
        let text = String::from_utf8_lossy(text).into_owned();
        let head_end = text.find("\nexe=")? + 1;
        let call = text[head_end..].find(&format!("\n{CALL_PREFIX}{name} "))? + head_end + 1;
        let rest = &text[call..];
        let tail = rest.find(&format!("{CALL_SUFFIX}\n"))? + CALL_SUFFIX.len() + 1;
        Some((text.as_bytes()[..head_end].to_vec(), rest.as_bytes()[tail..].to_vec()))
    };
    matches!((split(current), split(want)), (Some(a), Some(b)) if a == b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: Vec<u8>) -> String {
        String::from_utf8(s).expect("utf-8")
    }

    #[test]
    fn the_script_quotes_the_executable_runs_the_kept_hook_first_and_names_no_workspace() {
        let s = text(script("post-merge", Path::new("/opt/it's here/docket")));
        assert!(s.starts_with("#!/bin/sh\n"));
        assert!(s.contains(MARK));
        assert!(s.contains(r"exe='/opt/it'\''s here/docket'"), "{s}");
        let legacy = s.find("post-merge.legacy\" \"$@\"").expect("legacy runs");
        let ours = s.find("\"$exe\" hook post-merge \"$@\"").expect("docket runs");
        assert!(legacy < ours);
        assert!(!s.contains("--workspace") && !s.contains("rev-parse"), "{s}");
    }

    #[test]
    fn another_executable_or_an_older_call_is_an_update_and_an_added_line_is_not() {
        let old = text(script("post-merge", Path::new("/old/docket")));
        let new = script("post-merge", Path::new("/new/docket"));
        assert!(same_but_call(old.as_bytes(), &new, "post-merge"));
        // What docket wrote before the workspace left the script, a newline in the path included.
        let older = old.replace(
            "hook post-merge \"$@\"",
            "hook post-merge --workspace \"$(git rev-parse --show-toplevel)/a\nb/.docket\" \"$@\"",
        );
        assert!(same_but_call(older.as_bytes(), &new, "post-merge"), "{older}");
        let edited = old.replace("exit 0\n", "make notify\nexit 0\n");
        assert!(!same_but_call(edited.as_bytes(), &new, "post-merge"));
        let before = old.replace("exe=", "make notify\nexe=");
        assert!(!same_but_call(before.as_bytes(), &new, "post-merge"));
    }
}
