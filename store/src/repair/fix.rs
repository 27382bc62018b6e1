//! `docket doctor --fix`: the repairs that are safe, planned from one check and then applied under
//! the workspace lock. Removes stale temp files; resolves interrupted moves (keeps the copy updated
//! last; two states of one issue are merged, [`super::states`]); moves files to the folder their status asks for; renames a file named after another id
//! than its own when that is unambiguous; gives every holder of a duplicate id but the one that
//! keeps it (on a remote branch, else created first) a new id (file renamed, its `id:` line
//! rewritten, nothing else); points `parentTaskId` and `blockedBy` references that unambiguously
//! meant a renumbered file at its new id. Which file a reference meant is read from git: the
//! holders present in the commit that added the referencing file. Ambiguous references and
//! mentions in bodies are reported, never rewritten.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::states;
use super::{Scan, check_files, id_parts, in_archive, interrupted_pair, parent_of, same_id};
use crate::files::WorkspaceLock;
use crate::files::yaml_edit::in_place as edit;
use crate::fs::{Entry, Rename, Root};
use crate::git::Repo;
use crate::git::split::split_origins;
use crate::{IssueMeta, IssueType, Store, Workspace};

/// What `--fix` did (`changes`) and what it leaves to a person (`notes`).
#[derive(Debug, Default)]
pub struct Outcome {
    /// What was changed, one sentence each.
    pub changes: Vec<String>,
    /// What is left to a person.
    pub notes: Vec<String>,
    /// Every file path a change removed, created or rewrote (absolute): what a git hook commits.
    pub touched: Vec<PathBuf>,
}

/// Where a reference to another issue is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    /// `wranglerContext.parentTaskId`.
    Parent,
    /// An entry of `blockedBy`.
    Blocker,
}

impl Field {
    fn name(self) -> &'static str {
        match self {
            Field::Parent => "parentTaskId",
            Field::Blocker => "blockedBy",
        }
    }
}

/// A reference naming a duplicate id that git history cannot attribute to one holder.
struct Ambiguous<'a> {
    referrer: &'a Arc<IssueMeta>,
    field: Field,
    target: &'a str,
    holders: &'a [Arc<IssueMeta>],
}

/// A reference that git history attributes to a renumbered holder: `old` becomes `new`.
struct Rewrite {
    referrer: Arc<IssueMeta>,
    field: Field,
    old: String,
    new: String,
    /// Why this holder, when it is not git history's answer (doctor listed the same words).
    why: Option<String>,
}

/// One holder of a duplicate id that gets a new id.
struct Renumber {
    old_id: String,
    new_id: String,
    path: PathBuf,
}

/// What a repair covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Everything `docket doctor --fix` repairs.
    All,
    /// What a merge can cause: duplicate ids, copies left in a folder and its `archived/`, and
    /// the references to renumbered files (the git hooks' repair).
    Ids,
}

/// `docket doctor --fix`: every safe repair.
pub fn fix(store: &Store) -> Result<Outcome, String> {
    let mut out = fix_in(store, Scope::All, None, None)?;
    // After the files' repairs, with the workspace lock released: completing a claim takes it.
    let scan = check_files(store).map_err(|e| e.to_string())?.scan;
    let (changes, notes) = super::claims::fix(store, &scan);
    out.changes.extend(changes);
    // Tombstones whose close can be seen where the other checkouts look, or older than a week.
    out.changes.extend(store.end_tombstones());
    out.notes.extend(notes);
    Ok(out)
}

/// The repairs of `scope`. `before` names the branch as it was before a rebase (`ORIG_HEAD`):
/// a reference the rebased history cannot attribute is read in the history it was written in.
/// `only` limits the duplicate ids repaired (upper-cased): the ones a merge made.
pub fn fix_in(
    store: &Store,
    scope: Scope,
    before: Option<&str>,
    only: Option<&std::collections::HashSet<String>>,
) -> Result<Outcome, String> {
    run(store, scope, before, only, true)
}

/// What `docket doctor --fix` would change, in the words it prints when it does (`changes`), and
/// what it would leave to a person (`notes`), writing nothing: the same code as the repairs with
/// every write left out, so doctor lists exactly the changes --fix makes. The claim refs' repairs
/// are not in it (they may need the network).
pub fn plan(store: &Store) -> Result<Outcome, String> {
    run(store, Scope::All, None, None, false)
}

/// The repairs of `scope`, made when `apply`, else only said.
fn run(
    store: &Store,
    scope: Scope,
    before: Option<&str>,
    only: Option<&std::collections::HashSet<String>>,
    apply: bool,
) -> Result<Outcome, String> {
    let ws = store.workspace().clone();
    let _lock = match apply {
        true => Some(
            WorkspaceLock::acquire_existing(&ws)
                .map_err(|e| format!("cannot lock the workspace ({e}); retry when other docket calls are done"))?,
        ),
        false => None,
    };
    let root = Root::workspace(&ws).map_err(|e| e.to_string())?;
    // The files only: the claim refs may be on a remote, never asked under the lock.
    let mut scan = check_files(store).map_err(|e| e.to_string())?.scan;
    if let Some(only) = only {
        scan.duplicates.retain(|id, _| only.contains(id));
    }
    // A pair whose bodies differ is kept whole: the copy updated first gets a new id instead of
    // being removed, so no text that only one file held is lost.
    let diverged = diverged_copies(&scan);
    // Everything that reads git history is decided first, on the files where they were committed.
    let plan = plan_renumbering(&scan, &diverged);
    let (rewrites, ambiguous, kept_parents) = attribute_references(&scan, &plan, before);
    let mut out = Outcome::default();
    // Where each file is now, as the repairs move it.
    let mut moved: HashMap<PathBuf, PathBuf> = HashMap::new();
    let at = |moved: &HashMap<PathBuf, PathBuf>, p: &Path| moved.get(p).cloned().unwrap_or_else(|| p.to_path_buf());
    // Where a file's text is read: where the repairs moved it, or (only said) where it still is.
    let text_at = |moved: &HashMap<PathBuf, PathBuf>, p: &Path| if apply { at(moved, p) } else { p.to_path_buf() };

    let all = scope == Scope::All;
    for tmp in scan.temps.iter().filter(|_| all) {
        let removed = if apply { root.remove_file(tmp) } else { Ok(()) };
        match removed.or_else(|e| match e {
            crate::StoreError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => Ok(()),
            e => Err(e),
        }) {
            Ok(()) => {
                out.changes.push(format!("removed stale temp file {}", scan.rel(tmp)));
                out.touched.push(tmp.clone());
            }
            Err(e) => out.notes.push(format!("could not remove {}: {e}", scan.rel(tmp))),
        }
    }

    let mut removed: Vec<PathBuf> = Vec::new();
    for holders in scan.duplicates.values().filter(|h| interrupted_pair(h)) {
        // One issue in two states: merged into one file, never renumbered apart.
        if let Some(merge) = states::plan(&holders[0], &holders[1]) {
            let words = merge.words(|p| scan.rel(p));
            let done = match apply {
                true => {
                    write_atomic(&ws, &merge.keep.path, &merge.text).and_then(|()| root.remove_file(&merge.drop.path))
                }
                false => Ok(()),
            };
            match done {
                Ok(()) => {
                    removed.push(merge.drop.path.clone());
                    out.touched.extend([merge.keep.path.clone(), merge.drop.path.clone()]);
                    out.changes.push(format!("merged the two copies of {} (one issue): {words}", merge.keep.id));
                }
                Err(e) => out.notes.push(format!("could not merge the two copies of {}: {e}", merge.keep.id)),
            }
            continue;
        }
        if let Some(older) = holders.iter().find(|h| diverged.iter().any(|d| d.path == h.path)) {
            let kept = holders.iter().find(|h| h.path != older.path).unwrap_or(older);
            out.notes.push(format!(
                "{} is in both {} and {} with different bodies: both are kept ({} gets a new id below); merge them by hand",
                older.id,
                scan.rel(&kept.path),
                scan.rel(&older.path),
                scan.rel(&older.path)
            ));
            continue;
        }
        let Some((keep, drop)) = pick_copy(&holders[0], &holders[1]) else {
            out.notes.push(format!(
                "{} is in both {} and {} with the same updatedAt but different contents; compare them and delete one by hand",
                holders[0].id,
                scan.rel(&holders[0].path),
                scan.rel(&holders[1].path)
            ));
            continue;
        };
        match if apply { root.remove_file(&drop.path) } else { Ok(()) } {
            Ok(()) => {
                removed.push(drop.path.clone());
                out.touched.push(drop.path.clone());
                out.changes.push(format!(
                    "removed {}: the older copy of {} left by an interrupted move (kept {}, updated {})",
                    scan.rel(&drop.path),
                    keep.id,
                    scan.rel(&keep.path),
                    keep.updated_at
                ));
            }
            Err(e) => out.notes.push(format!("could not remove {}: {e}", scan.rel(&drop.path))),
        }
    }

    // The hooks move the misplaced holders of the ids they repair: a rename on one branch (a
    // close) meeting another issue at the old path leaves the other issue in `archived/`.
    let repaired = |m: &IssueMeta| only.is_some_and(|o| o.contains(&m.id.to_uppercase()));
    for m in scan.issues.iter().filter(|m| (all || repaired(m)) && !removed.contains(&m.path)) {
        if m.status.is_archived() == in_archive(&m.path) {
            continue;
        }
        let Some(t) = scan.folder_type(&m.path) else { continue };
        let dir = if m.status.is_archived() { ws.collection(t).join("archived") } else { ws.collection(t) };
        let dest = dir.join(m.path.file_name().unwrap_or_default());
        if root.entry(&dest).map_or(true, |e| e != Entry::Missing) {
            out.notes.push(format!(
                "{} belongs in {} but {} exists; merge them by hand",
                scan.rel(&m.path),
                scan.rel(&dir),
                scan.rel(&dest)
            ));
            continue;
        }
        let done = if apply { root.rename(&m.path, &dest, Rename::NoReplace) } else { Ok(()) };
        match done {
            Ok(()) => {
                out.changes.push(format!("moved {} -> {} (status {})", scan.rel(&m.path), scan.rel(&dest), m.status));
                out.touched.extend([m.path.clone(), dest.clone()]);
                moved.insert(m.path.clone(), dest);
            }
            Err(e) => out.notes.push(format!("could not move {}: {e}", scan.rel(&m.path))),
        }
    }

    for m in scan.issues.iter().filter(|m| all && !removed.contains(&m.path)) {
        let Some(dest) = super::renamed_after_id(&scan, m) else { continue };
        let (from, name) = (at(&moved, &m.path), dest.file_name().unwrap_or_default());
        let to = from.with_file_name(name);
        match if apply { root.rename(&from, &to, Rename::NoReplace) } else { Ok(()) } {
            Ok(()) => {
                out.changes.push(format!("renamed {} -> {} (after its id {})", scan.rel(&from), scan.rel(&to), m.id));
                out.touched.extend([from, to.clone()]);
                moved.insert(m.path.clone(), to);
            }
            Err(e) => out.notes.push(format!("could not rename {}: {e}", scan.rel(&from))),
        }
    }

    // `ISS-000135-x.md` holding `id: "000135"`: the frontmatter gets the name's id, the name is kept.
    for m in scan.issues.iter().filter(|m| all && !removed.contains(&m.path)) {
        let Some(Ok(wanted)) = super::prefixed_id(&scan, m) else { continue };
        let path = at(&moved, &m.path);
        let result = set_value(&ws, &text_at(&moved, &m.path), &path, "id", &wanted, apply);
        match result {
            Ok(()) => {
                out.changes.push(format!(
                    "gave {} the id its name carries: {} -> {wanted} in its frontmatter (the name is kept)",
                    scan.rel(&path),
                    m.id
                ));
                out.touched.push(path);
            }
            Err(why) => out.notes.push(format!("could not give {} the id {wanted}: {why}", scan.rel(&path))),
        }
    }

    for r in &plan {
        let path = at(&moved, &r.path);
        match renumber(&root, &path, &text_at(&moved, &r.path), &r.new_id, apply) {
            Ok(dest) => {
                out.changes.push(format!(
                    "renumbered {} -> {}: {} -> {}",
                    r.old_id,
                    r.new_id,
                    scan.rel(&path),
                    scan.rel(&dest)
                ));
                out.touched.extend([path.clone(), dest.clone()]);
                moved.insert(r.path.clone(), dest);
            }
            Err(why) => out.notes.push(format!("could not renumber {} ({}): {why}", r.old_id, scan.rel(&path))),
        }
    }

    // A key several issues hold (a copied file): the first keeps it, the others get fresh ones,
    // so a later merge tells them apart. The hooks do it for the files they renumber.
    for (key, holders) in &scan.keys {
        if !all && !holders.iter().any(|h| plan.iter().any(|r| r.path == h.path)) {
            continue;
        }
        for m in &holders[1..] {
            let path = at(&moved, &m.path);
            let id = plan.iter().find(|r| r.path == m.path).map_or(m.id.as_str(), |r| r.new_id.as_str());
            let fresh = crate::new_identity();
            let result = set_value(&ws, &text_at(&moved, &m.path), &path, crate::IDENTITY_KEY, &fresh, apply);
            match result {
                Ok(()) => {
                    // The fresh key is not in the sentence: doctor says it before it is drawn.
                    out.changes.push(format!(
                        "gave {id} ({}) a fresh docketKey: {key} stays with {}",
                        scan.rel(&path),
                        holders[0].id
                    ));
                    out.touched.push(path);
                }
                Err(why) => out.notes.push(format!("could not give {id} a fresh docketKey: {why}")),
            }
        }
    }

    for Ambiguous { referrer: m, field, target, holders } in &ambiguous {
        let now = |h: &Arc<IssueMeta>| {
            let id = plan.iter().find(|r| r.path == h.path).map_or(h.id.as_str(), |r| r.new_id.as_str());
            format!("{id} ({})", scan.rel(&at(&moved, &h.path)))
        };
        out.notes.push(format!(
            "{}'s {} names {target}, which {} files held, and git history cannot tell which it meant; it now means {}. The others: {}. Check it by hand",
            now(m),
            field.name(),
            holders.len(),
            now(&holders[0]),
            holders[1..].iter().map(now).collect::<Vec<_>>().join(", ")
        ));
    }

    for why in kept_parents {
        out.notes.push(format!("kept as written: {why}"));
    }

    for Rewrite { referrer: m, field, old, new, why } in &rewrites {
        let path = at(&moved, &m.path);
        let result = crate::read_file_safely(&text_at(&moved, &m.path)).map_err(|e| e.to_string()).and_then(|text| {
            let edited = match field {
                Field::Parent => {
                    edit::replace_value(&text, Some("wranglerContext"), "parentTaskId", new).ok_or_else(|| {
                        "its parentTaskId is not a plain `parentTaskId: value` line under wranglerContext".to_string()
                    })?
                }
                Field::Blocker => edit::replace_list_item(&text, "blockedBy", old, new)
                    .ok_or_else(|| format!("its blockedBy does not list {old} as a plain item"))?,
            };
            if !apply {
                return Ok(());
            }
            write_atomic(&ws, &path, &edited).map_err(|e| e.to_string())
        });
        match result {
            Ok(()) => {
                let why = why.as_deref().map(|w| format!("; {w}")).unwrap_or_default();
                out.changes.push(format!(
                    "rewrote {} of {} ({}): {old} -> {new}{why}",
                    field.name(),
                    m.id,
                    scan.rel(&path)
                ));
                out.touched.push(path);
            }
            Err(why) => out.notes.push(format!("could not point {}'s {} {old} at {new}: {why}", m.id, field.name())),
        }
    }

    if !plan.is_empty() {
        for m in &scan.issues {
            let path = at(&moved, &m.path);
            let Ok(text) = crate::read_file_safely(&text_at(&moved, &m.path)) else { continue };
            // One note per file and old id, however many holders of that id were renumbered.
            let mut renumbered_to: Vec<(&str, Vec<&str>)> = Vec::new();
            for r in plan.iter().filter(|r| mentions(edit::body(&text), &r.old_id)) {
                match renumbered_to.iter_mut().find(|(old, _)| old.eq_ignore_ascii_case(&r.old_id)) {
                    Some((_, new)) => new.push(&r.new_id),
                    None => renumbered_to.push((&r.old_id, vec![&r.new_id])),
                }
            }
            for (old, new) in renumbered_to {
                let which = match new.as_slice() {
                    [one] => format!("the one renumbered to {one}"),
                    many => format!("one of those renumbered to {}", many.join(", ")),
                };
                out.notes.push(format!(
                    "{} ({}) mentions {old} in its body; not rewritten: it may mean the file that kept {old} or {which}",
                    m.id,
                    scan.rel(&path),
                ));
            }
        }
    }
    out.notes.dedup();
    out.touched.sort();
    out.touched.dedup();
    Ok(out)
}

/// The references (`parentTaskId`, `blockedBy` entries) that name a renumbered id: (referencing
/// file, old id, new id) for those git history (or, for a legacy parent, wrangler's rule)
/// attributes to one holder, the ambiguous rest, and the legacy parents left naming the
/// specification that keeps its id (why, in doctor's words).
fn attribute_references<'a>(
    scan: &'a Scan,
    plan: &[Renumber],
    before: Option<&str>,
) -> (Vec<Rewrite>, Vec<Ambiguous<'a>>, Vec<String>) {
    let repo = Repo::discover(&scan.ws.dir);
    let mut commit_names: HashMap<String, Vec<String>> = HashMap::new();
    let mut rewrites: Vec<Rewrite> = Vec::new();
    let mut ambiguous: Vec<Ambiguous> = Vec::new();
    let mut kept: Vec<String> = Vec::new();
    for m in &scan.issues {
        let references = parent_of(m)
            .map(|p| (Field::Parent, p))
            .into_iter()
            .chain(m.blocked_by.iter().map(|b| (Field::Blocker, b.as_str())));
        for (field, target) in references {
            let Some((id, holders)) =
                scan.duplicates.iter().find(|(id, h)| !interrupted_pair(h) && same_id(id, target))
            else {
                continue;
            };
            let renumbered: Vec<&Renumber> = plan.iter().filter(|r| r.old_id.eq_ignore_ascii_case(id)).collect();
            if renumbered.is_empty() {
                continue;
            }
            // A legacy bare parent of an issue means the specification (wrangler's own rule),
            // whatever git history says: pointed at its new id, or left naming it.
            if let Some((spec, why)) = super::wrangler_parent(scan, m, holders).filter(|_| field == Field::Parent) {
                let (old, why) = (target.to_string(), Some(why));
                match renumbered.iter().find(|r| r.path == holders[spec].path) {
                    Some(r) => {
                        rewrites.push(Rewrite { referrer: Arc::clone(m), field, old, new: r.new_id.clone(), why })
                    }
                    None => kept.extend(why),
                }
                continue;
            }
            // After a rebase the branch as it was comes first: the replayed commits hold both
            // sides, and a name there may hold the other side's issue; a file that only came
            // from upstream is not in it and is read in HEAD.
            let histories = before.into_iter().chain(std::iter::once("HEAD"));
            let meant =
                histories.into_iter().find_map(|rev| meant_holder(repo.as_ref(), &mut commit_names, rev, m, holders));
            match meant {
                Some(i) => {
                    if let Some(r) = renumbered.iter().find(|r| r.path == holders[i].path) {
                        let (old, new) = (target.to_string(), r.new_id.clone());
                        rewrites.push(Rewrite { referrer: Arc::clone(m), field, old, new, why: None });
                    }
                }
                None => ambiguous.push(Ambiguous { referrer: m, field, target, holders }),
            }
        }
    }
    (rewrites, ambiguous, kept)
}

/// Sets the top-level frontmatter `key` of the file read from `source` to `value`, every other
/// byte kept, and (when `apply`) writes it to `path`; why not, when the line is not a plain
/// `key: value` line.
fn set_value(ws: &Workspace, source: &Path, path: &Path, key: &str, value: &str, apply: bool) -> Result<(), String> {
    let text = crate::read_file_safely(source).map_err(|e| e.to_string())?;
    let edited = edit::replace_value(&text, None, key, value)
        .ok_or_else(|| format!("its `{key}:` line is not a plain `{key}: value` line"))?;
    match apply {
        true => write_atomic(ws, path, &edited).map_err(|e| e.to_string()),
        false => Ok(()),
    }
}

/// Writes `contents` to `path` through the rooted layer (a synced temp file beside it and a
/// rename), keeping the file's mode.
fn write_atomic(ws: &Workspace, path: &Path, contents: &str) -> Result<(), crate::StoreError> {
    Root::workspace(ws)?.write_atomic(path, contents.as_bytes(), None)
}

/// Of each interrupted pair whose bodies differ, the copy updated first (ties: the one whose
/// folder does not fit its status): it keeps its text under a new id.
fn diverged_copies(scan: &Scan) -> Vec<Arc<IssueMeta>> {
    let body = |m: &Arc<IssueMeta>| crate::read_file_safely(&m.path).ok().map(|t| edit::body(&t).to_string());
    scan.duplicates
        .values()
        .filter(|h| interrupted_pair(h))
        .filter(|h| body(&h[0]) != body(&h[1]))
        .filter(|h| states::plan(&h[0], &h[1]).is_none())
        .map(|h| {
            let (a, b) = (&h[0], &h[1]);
            let a_first = (a.updated_at.as_str(), a.status.is_archived() == in_archive(&a.path))
                < (b.updated_at.as_str(), b.status.is_archived() == in_archive(&b.path));
            Arc::clone(if a_first { a } else { b })
        })
        .collect()
}

/// Of two copies of one issue, the one to keep and the one to remove: the later `updatedAt`;
/// with equal times, identical bytes keep the copy whose folder fits its status. `None` when
/// equal times hide different contents.
fn pick_copy<'a>(a: &'a Arc<IssueMeta>, b: &'a Arc<IssueMeta>) -> Option<(&'a Arc<IssueMeta>, &'a Arc<IssueMeta>)> {
    if a.updated_at != b.updated_at {
        return Some(if a.updated_at > b.updated_at { (a, b) } else { (b, a) });
    }
    let same =
        crate::read_file_safely(&a.path).ok().zip(crate::read_file_safely(&b.path).ok()).is_some_and(|(x, y)| x == y);
    if !same {
        return None;
    }
    Some(if a.status.is_archived() == in_archive(&a.path) { (a, b) } else { (b, a) })
}

/// New ids for every holder of a duplicate id but the first created, numbered above everything
/// in the collection, in this worktree and (inside git) on every branch and worktree.
fn plan_renumbering(scan: &Scan, diverged: &[Arc<IssueMeta>]) -> Vec<Renumber> {
    let mut next: HashMap<IssueType, u64> = HashMap::new();
    for m in &scan.issues {
        let Some(t) = scan.folder_type(&m.path) else { continue };
        let from_name = m.path.file_name().and_then(|n| n.to_str()).and_then(crate::git::ids::number_in_file_name);
        let n = id_parts(&m.id).map(|(_, n)| n).into_iter().chain(from_name).max().unwrap_or(0);
        let e = next.entry(t).or_default();
        *e = (*e).max(n);
    }
    let mut asked_git = std::collections::HashSet::new();
    let mut plan = Vec::new();
    let renumbered =
        scan.duplicates.values().filter(|h| !interrupted_pair(h)).flat_map(|h| h[1..].iter()).chain(diverged.iter());
    for m in renumbered {
        let Some(t) = scan.folder_type(&m.path) else { continue };
        let n = next.entry(t).or_default();
        if asked_git.insert(t) {
            *n = (*n).max(crate::git::highest_id_number(&scan.ws, t).unwrap_or(0));
        }
        // Never past the format's range (no wrap-around): a file left with its id is reported.
        let Ok(new_id) = crate::id_after(t, *n, scan.ws.collection(t)) else { continue };
        *n += 1;
        plan.push(Renumber { old_id: m.id.clone(), new_id, path: m.path.clone() });
    }
    plan
}

/// Gives the file at `path` the id `new`: renamed when its name starts with an id, and its `id:`
/// line (if any) rewritten; every other byte unchanged. Returns where the file is now.
/// Its text is read at `source` (`path` itself, unless the file is only said to have moved there);
/// without `apply` nothing is written, and the answer says where it would be.
fn renumber(root: &Root, path: &Path, source: &Path, new: &str, apply: bool) -> Result<PathBuf, String> {
    let text = crate::read_file_safely(source).map_err(|e| e.to_string())?;
    let edited = if edit::has_key(&text, "id") {
        Some(edit::replace_value(&text, None, "id", new).ok_or("its `id:` line is not a plain `id: value` line")?)
    } else {
        None
    };
    // A name that starts with an id (this one or another) starts with the new one instead.
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let renamed = super::id_in_name(path).map(|named| format!("{new}{}", &name[named.len()..]));
    if edited.is_none() && renamed.is_none() {
        return Err("neither its name nor an `id:` line carries the id".into());
    }
    let dest = renamed.map_or_else(|| path.to_path_buf(), |n| path.with_file_name(n));
    if !apply {
        return match dest != path && root.entry(&dest).map_or(true, |e| e != Entry::Missing) {
            true => Err(format!("{} exists", dest.display())),
            false => Ok(dest),
        };
    }
    if dest != path {
        // Rename first (never over another file), then rewrite: at every instant one file holds
        // the issue.
        root.rename(path, &dest, Rename::NoReplace).map_err(|e| e.to_string())?;
    }
    if let Some(edited) = edited {
        // Keeps the file's mode (a 0644 file stays 0644).
        root.write_atomic(&dest, edited.as_bytes(), None).map_err(|e| e.to_string())?;
    }
    Ok(dest)
}

/// Which of `holders` the file at `referrer` meant: the only one present in the commit that
/// added `referrer` in the history of `rev`. `None` outside git, for an uncommitted file, or
/// when several were present.
fn meant_holder(
    repo: Option<&Repo>,
    names_at: &mut HashMap<String, Vec<String>>,
    rev: &str,
    referrer: &IssueMeta,
    holders: &[Arc<IssueMeta>],
) -> Option<usize> {
    let repo = repo?;
    let oid = commit_adding(repo, rev, referrer)?;
    if !names_at.contains_key(&oid) {
        let dirs: Vec<String> = IssueType::ALL
            .iter()
            .flat_map(|t| {
                let folder = repo.in_ws(t.folder());
                [format!("{folder}/archived"), folder]
            })
            .collect();
        names_at.insert(oid.clone(), repo.names_in_commit(&oid, &dirs)?);
    }
    let names = names_at.get(&oid)?;
    let present: Vec<usize> = holders
        .iter()
        .enumerate()
        .filter(|(_, h)| h.path.file_name().and_then(|n| n.to_str()).is_some_and(|n| names.iter().any(|x| x == n)))
        .map(|(i, _)| i)
        .collect();
    // A name can hold another issue than the holder of that name now: two issues added at one
    // path (the merge driver kept one there and moved the other beside it), or one name in a
    // folder and in its `archived/`. The file the reference meant is the holder created when
    // a file of a holder's name in that commit was.
    let created_then = |h: &IssueMeta| -> Option<Vec<String>> {
        let name = h.path.file_name()?.to_str()?;
        let real = h.path.parent()?.canonicalize().ok()?;
        let folder = if in_archive(&h.path) { real.parent()? } else { &real };
        let folder = folder.strip_prefix(&repo.toplevel).ok()?.to_string_lossy().into_owned();
        let prefix = if folder.is_empty() { String::new() } else { format!("{folder}/") };
        let found = ["", "archived/"].iter().filter_map(|sub| {
            let text = repo.git(&["cat-file", "blob", &format!("{oid}:{prefix}{sub}{name}")])?;
            crate::git::merge::created_at(&text)
        });
        Some(found.collect())
    };
    let then: Vec<String> = present.iter().filter_map(|i| created_then(&holders[*i])).flatten().collect();
    let same: Vec<usize> = holders
        .iter()
        .enumerate()
        .filter(|(_, h)| {
            !h.created_at.trim().is_empty() && then.iter().any(|c| crate::git::merge::same_time(c, &h.created_at))
        })
        .map(|(i, _)| i)
        .collect();
    match (same.as_slice(), present.as_slice()) {
        ([only], _) => Some(*only),
        // Files without createdAt (wrangler's oldest): the name alone.
        ([], [one]) if then.is_empty() => Some(*one),
        _ => None,
    }
}

/// The commit that first added the file of `m` in the history of `rev`: of the commits that
/// added a file at its path, at the same name in the other folder (`archived/` or not: a close
/// moves it) or, for a file the merge driver moved beside its path, at that path, the oldest
/// whose file there was created when `m` was. A path can hold another issue in other commits
/// (two branches added one name; a rebase replayed a move onto the other issue). Without a
/// `createdAt`, the oldest commit that added its path.
fn commit_adding(repo: &Repo, rev: &str, m: &IssueMeta) -> Option<String> {
    let created = m.created_at.trim();
    if created.is_empty() {
        return repo.commit_adding(rev, &m.path);
    }
    let name = m.path.file_name()?.to_str()?;
    let real = m.path.parent()?.canonicalize().ok()?;
    let folder = if in_archive(&m.path) { real.parent()? } else { &real };
    let folder = folder.strip_prefix(&repo.toplevel).ok()?.to_string_lossy().replace('\\', "/");
    let prefix = if folder.is_empty() { String::new() } else { format!("{folder}/") };
    let own = if in_archive(&m.path) { format!("{prefix}archived/{name}") } else { format!("{prefix}{name}") };
    let mut paths = vec![format!("{prefix}{name}"), format!("{prefix}archived/{name}")];
    paths.extend(split_origins(repo).remove(&own));
    let mut oldest: Option<(i64, String)> = None;
    for path in &paths {
        let Some(out) =
            repo.git(&["log", "--full-history", "--no-renames", "--diff-filter=A", "--format=%H %ct", rev, "--", path])
        else {
            continue;
        };
        for line in out.lines() {
            let Some((oid, at)) = line.split_once(' ') else { continue };
            let at: i64 = at.trim().parse().unwrap_or(i64::MAX);
            if oldest.as_ref().is_some_and(|(t, _)| *t < at) {
                continue;
            }
            let same = repo
                .git(&["cat-file", "blob", &format!("{oid}:{path}")])
                .and_then(|t| crate::git::merge::created_at(&t))
                .is_some_and(|c| crate::git::merge::same_time(&c, created));
            if same {
                oldest = Some((at, oid.to_string()));
            }
        }
    }
    oldest.map(|(_, oid)| oid)
}

/// `id` as a whole word of `text` (not part of a longer id or word).
fn mentions(text: &str, id: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let lower = text.to_ascii_lowercase();
    let id = id.to_ascii_lowercase();
    lower.match_indices(&id).any(|(i, _)| {
        !lower[..i].chars().next_back().is_some_and(word) && !lower[i + id.len()..].chars().next().is_some_and(word)
    })
}

#[cfg(test)]
mod tests {
    use super::mentions;

    #[test]
    fn mentions_are_whole_ids() {
        assert!(mentions("see ISS-000005.", "ISS-000005"));
        assert!(!mentions("see ISS-0000051", "ISS-000005"));
        assert!(!mentions("ISS-000001", "000001"));
        assert!(mentions("(000001)", "000001"));
    }
}
