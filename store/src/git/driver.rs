//! The merge driver git runs for issue files (`docket merge-file %O %A %B %P`, set up by
//! [`super::setup`]): one issue's two versions merged field by field ([`merge`]); one issue both
//! branches moved (each closed it) merged against its version before the moves, both bodies kept;
//! two different issues at one path kept apart ([`super::split`]). The result replaces %A through
//! the rooted layer.

use std::path::Path;

use super::merge::{self, identity_key};
use super::run;

/// What the driver did: whether the merge is clean (git's exit status), and what to tell the user
/// (git shows a driver's stderr).
#[derive(Debug)]
pub struct Merged {
    /// No conflict is left.
    pub clean: bool,
    /// The lines to print, in order.
    pub said: Vec<String>,
}

/// `docket merge-file %O %A %B %P`: merges `theirs_file` (%B) into `ours_file` (%A) against
/// `base_file` (%O), the file git merges at `path` (%P); the result replaces %A.
pub fn merge_file(
    base_file: &Path,
    ours_file: &Path,
    theirs_file: &Path,
    path: Option<&str>,
) -> Result<Merged, String> {
    let mut said = Vec::new();
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {e}", p.display()));
    let (mut base, ours, theirs) = (read(base_file)?, read(ours_file)?, read(theirs_file)?);
    let mut moved = false;
    // Both branches moved one issue here (each closed it, or one closed it and git saw no
    // rename): one issue in two states, merged against its version before the moves, never
    // split into two issues.
    if base.is_empty()
        && let Some(path) = path
        && let Some(before) = moved_from(path, theirs_file, &ours, &theirs)
    {
        (base, moved) = (before, true);
    }
    if let Some(path) = path
        && (merge::two_issues(&ours, &theirs) || (base.is_empty() && !merge::same_issue_added(&ours, &theirs)))
    {
        said.push(super::split::split(ours_file, theirs_file, path, &ours, &theirs)?);
        return Ok(Merged { clean: true, said });
    }
    let mut merged = merge::merge_file(&base, &ours, &theirs);
    if moved && merged.conflicts {
        // Both closes appended to the body (two completion notes, a hand-over): keep both.
        merged.text = both_sides(&merged.text);
        merged.conflicts = false;
    }
    // Rooted at the folder git named: the result replaces %A itself, never a link's target.
    crate::fs::replace_named(ours_file, merged.text.as_bytes()).map_err(|e| format!("cannot write {e}"))?;
    if merged.conflicts {
        said.push(format!(
            "docket merge-file: {}: the body has conflict markers (the frontmatter is merged); edit the body, then `git add` it",
            path.unwrap_or("the file")
        ));
    }
    Ok(Merged { clean: !merged.conflicts, said })
}

/// The version of the issue in `ours` and `theirs` (two files added at `path` on both branches
/// with one `docketKey`) before either branch moved it to `path`: the file of that key at the
/// same name in the other folder (`issues/` for `issues/archived/`, and back) in the merge base
/// of HEAD and the branch whose file at `path` is `theirs` (a local or remote-tracking branch:
/// `git pull` has just updated it), else in HEAD's history. `None` when neither held it: then
/// the two are two issues (two hand copies of one file), as before.
fn moved_from(path: &str, theirs_file: &Path, ours: &str, theirs: &str) -> Option<String> {
    let key = identity_key(ours).filter(|k| identity_key(theirs).as_ref() == Some(k))?;
    let (dir, name) = path.rsplit_once('/')?;
    let other = match dir.strip_suffix("/archived") {
        Some(folder) => format!("{folder}/{name}"),
        None => format!("{dir}/archived/{name}"),
    };
    let here = Path::new(".");
    let version = |rev: &str| {
        run(here, &["cat-file", "blob", &format!("{}:{other}", rev.trim())])
            .filter(|text| identity_key(text).as_deref() == Some(key.as_str()))
    };
    let blob = run(here, &["hash-object", "--", &theirs_file.to_string_lossy()])?;
    let tips = run(here, &["for-each-ref", "--format=%(refname)", "refs/remotes", "refs/heads"]).unwrap_or_default();
    let theirs_tip = tips.lines().find(|tip| {
        run(here, &["rev-parse", "-q", "--verify", &format!("{tip}:{path}")]).is_some_and(|b| b.trim() == blob.trim())
    });
    if let Some(tip) = theirs_tip
        && let Some(merge_base) = run(here, &["merge-base", "HEAD", tip])
        && let Some(text) = version(&merge_base)
    {
        return Some(text);
    }
    // Our last version there: the commit that moved it away had it in its parent.
    let last = run(here, &["rev-list", "-1", "HEAD", "--", &other])?;
    version(&last).or_else(|| version(&format!("{}^", last.trim())))
}

/// `text` with each conflict of [`merge::merge_file`] (`<<<<<<< ours`, ours,
/// `=======`, theirs, `>>>>>>> theirs`, each marker a line of its own) replaced by ours then
/// theirs: nothing either side wrote is lost.
fn both_sides(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut inside = false;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        match bare {
            "<<<<<<< ours" if !inside => inside = true,
            "=======" if inside => {}
            ">>>>>>> theirs" if inside => inside = false,
            _ => out.push_str(line),
        }
    }
    out
}
