//! `docket doctor`'s check and repairs, the store's own: what is wrong with a workspace's files,
//! and (with `--fix`, see [`fix`]) the repairs that are safe, planned from the check's scan and
//! written as every store write is, through the rooted layer ([`crate::fs::Root`]) under the
//! workspace lock ([`crate::files::WorkspaceLock`]), one value at a time with the store's
//! byte-preserving editor ([`crate::files::yaml_edit::in_place`]). Reads the workspace through the
//! [`Store`], so ids, statuses and broken files are exactly what every other docket call sees.
//! The CLI (`docket doctor`, the git hooks) and the workspace_doctor tool only present results.

mod claims;
pub mod fix;
mod states;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::files::yaml_edit::in_place as edit;
use crate::{IssueFilter, IssueMeta, IssueType, SortField, SortOrder, Store, StoreError, Workspace};

/// A temp file of an atomic write lives for milliseconds; one older than this was abandoned.
const STALE_TEMP_AFTER: Duration = Duration::from_secs(60);

/// What kind of problem the doctor found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Several files hold one id.
    DuplicateId,
    /// Several issues hold one `docketKey` (a copied file): the merge driver would take them
    /// for one issue.
    DuplicateKey,
    /// One issue in both a folder and its `archived/`: a move that was interrupted.
    InterruptedMove,
    /// An open issue in `archived/`, or a closed one outside it.
    Misplaced,
    /// The file name starts with another id than the file's own.
    NameMismatch,
    /// A file whose frontmatter does not parse.
    BrokenFrontmatter,
    /// `wranglerContext.parentTaskId` names an id no file holds.
    MissingParent,
    /// A temp file of an atomic write left behind (older than a minute).
    StaleTempFile,
    /// An id or file name whose number is beyond the id format's range: allocation ignores it.
    MalformedId,
    /// `blockedBy` names an id no file holds.
    MissingBlocker,
    /// `blockedBy` lists that go round in a circle (made by hand edits; docket refuses them).
    BlockerCycle,
    /// A claim ref and the issue's file disagree (see [`claims`]).
    ClaimRef,
}

impl Kind {
    /// The kind's name on the wire (`duplicate_id`).
    pub fn as_str(&self) -> &'static str {
        match self {
            Kind::DuplicateId => "duplicate_id",
            Kind::DuplicateKey => "duplicate_key",
            Kind::InterruptedMove => "interrupted_move",
            Kind::Misplaced => "misplaced",
            Kind::NameMismatch => "name_mismatch",
            Kind::BrokenFrontmatter => "broken_frontmatter",
            Kind::MissingParent => "missing_parent",
            Kind::StaleTempFile => "stale_temp_file",
            Kind::MalformedId => "malformed_id",
            Kind::MissingBlocker => "missing_blocker",
            Kind::BlockerCycle => "blocker_cycle",
            Kind::ClaimRef => "claim_ref",
        }
    }

    /// Whether `docket doctor --fix` repairs every problem of this kind (a name mismatch only
    /// when the file can simply be renamed after its id: see [`Problem::fixable`]).
    fn always_fixable(&self) -> bool {
        matches!(
            self,
            Kind::DuplicateId | Kind::DuplicateKey | Kind::InterruptedMove | Kind::Misplaced | Kind::StaleTempFile
        )
    }
}

/// One problem the doctor found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// What kind of problem.
    pub kind: Kind,
    /// The issue it is about, when one.
    pub id: Option<String>,
    /// Files concerned, relative to the workspace root.
    pub paths: Vec<String>,
    /// What is wrong and what to do, in words.
    pub message: String,
    /// Whether `docket doctor --fix` (or workspace_doctor with fix: true) repairs it; the rest
    /// need a person, and the message says what to do.
    pub fixable: bool,
}

/// What a check's problems ask for, which `docket doctor` says with its exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Nothing wrong: exit 0.
    Clean,
    /// At least one problem `--fix` repairs: exit 1.
    Fixable,
    /// Problems only a person can resolve (each message says how): exit 3.
    NeedsPerson,
}

impl Verdict {
    /// What `problems` ask for.
    pub fn of(problems: &[Problem]) -> Verdict {
        if problems.is_empty() {
            Verdict::Clean
        } else if problems.iter().any(|p| p.fixable) {
            Verdict::Fixable
        } else {
            Verdict::NeedsPerson
        }
    }

    /// `docket doctor`'s exit code for it.
    pub fn exit_code(self) -> u8 {
        match self {
            Verdict::Clean => 0,
            Verdict::Fixable => 1,
            Verdict::NeedsPerson => 3,
        }
    }
}

/// What the doctor found; `issues` is the scan it was found in (for [`fix`]).
pub struct Report {
    /// Every problem found.
    pub problems: Vec<Problem>,
    /// What is no problem but worth saying (claims made in other clones, not pulled yet).
    pub notes: Vec<String>,
    pub(crate) scan: Scan,
}

impl Report {
    /// Each id several files hold (interrupted moves included), with the paths of its holders.
    pub fn holders_of_duplicates(&self) -> Vec<(String, Vec<PathBuf>)> {
        let ids = self.scan.duplicates.values();
        ids.map(|h| (h[0].id.clone(), h.iter().map(|m| m.path.clone()).collect())).collect()
    }
}

/// Everything one check reads.
pub(crate) struct Scan {
    pub ws: Workspace,
    pub issues: Vec<Arc<IssueMeta>>,
    pub broken: Vec<PathBuf>,
    pub temps: Vec<PathBuf>,
    /// Upper-cased id -> its holders, for ids held by more than one file.
    pub duplicates: BTreeMap<String, Vec<Arc<IssueMeta>>>,
    /// `docketKey` -> the issues holding it, for keys held by more than one issue (the copies
    /// of an interrupted move aside); the first keeps the key, the others get fresh ones.
    pub keys: BTreeMap<String, Vec<Arc<IssueMeta>>>,
}

impl Scan {
    pub fn rel(&self, p: &Path) -> String {
        p.strip_prefix(&self.ws.root).unwrap_or(p).display().to_string()
    }

    /// The collection a file's folder belongs to.
    pub fn folder_type(&self, p: &Path) -> Option<IssueType> {
        let parent = p.parent()?;
        self.ws.issue_dirs().into_iter().find(|(_, d)| d == parent).map(|(t, _)| t)
    }
}

/// A pair of holders of one id with one file name, one in a folder and one in its `archived/`,
/// created at one time: two copies of one issue. Two issues that only share a name (two clones
/// numbered and titled alike, one of them closed) are a duplicate id, never a pair to thin out.
pub(crate) fn interrupted_pair(holders: &[Arc<IssueMeta>]) -> bool {
    let [a, b] = holders else { return false };
    let (pa, pb) = (a.path.parent(), b.path.parent());
    a.created_at == b.created_at
        && a.path.file_name() == b.path.file_name()
        && (pa.map(|p| p.join("archived")).as_deref() == pb || pb.map(|p| p.join("archived")).as_deref() == pa)
}

/// Whether `p` is in an `archived/` folder.
pub(crate) fn in_archive(p: &Path) -> bool {
    p.parent().and_then(Path::file_name).is_some_and(|n| n == "archived")
}

/// (prefix, number) of an id such as `ISS-000042` or legacy `000042`.
pub(crate) fn id_parts(id: &str) -> Option<(String, u64)> {
    let split = id.find(|c: char| c.is_ascii_digit())?;
    let (prefix, digits) = id.split_at(split);
    crate::bounded_id_number(digits).map(|n| (prefix.to_uppercase(), n))
}

/// Two ids name the same issue: equal, or equal numbers where one has no prefix (`000042` and
/// `ISS-000042`, the way lookups resolve short forms).
pub(crate) fn same_id(a: &str, b: &str) -> bool {
    if a.eq_ignore_ascii_case(b) {
        return true;
    }
    match (id_parts(a), id_parts(b)) {
        (Some((pa, na)), Some((pb, nb))) => na == nb && (pa.is_empty() || pb.is_empty() || pa == pb),
        _ => false,
    }
}

/// Every id of a scan, for [`same_id`] lookups without a pass over all issues.
struct Known {
    exact: std::collections::HashSet<String>,
    prefixes: std::collections::HashMap<u64, Vec<String>>,
}

impl Known {
    fn new(issues: &[Arc<IssueMeta>]) -> Known {
        let mut known = Known { exact: Default::default(), prefixes: Default::default() };
        for m in issues {
            known.exact.insert(m.id.to_uppercase());
            if let Some((prefix, n)) = id_parts(&m.id) {
                known.prefixes.entry(n).or_default().push(prefix);
            }
        }
        known
    }

    fn resolves(&self, id: &str) -> bool {
        self.exact.contains(&id.to_uppercase())
            || id_parts(id).is_some_and(|(p, n)| {
                self.prefixes.get(&n).is_some_and(|ps| ps.iter().any(|q| p.is_empty() || q.is_empty() || *q == p))
            })
    }
}

/// The id a file name starts with, if any (`ISS-000042-x.md`, `000042-x.md`).
pub(crate) fn id_in_name(p: &Path) -> Option<String> {
    let name = p.file_name()?.to_str()?;
    crate::git::ids::number_in_file_name(name)?;
    let end = name.find(|c: char| c.is_ascii_digit())?;
    let digits = name[end..].chars().take_while(char::is_ascii_digit).count();
    Some(name[..end + digits].to_string())
}

/// Whether `text` starts with an id (a known prefix or none, then digits) whose number is beyond
/// the id format's range.
pub(crate) fn number_out_of_range(text: &str) -> bool {
    let Some(split) = text.find(|c: char| c.is_ascii_digit()) else { return false };
    let prefix = &text[..split];
    let known = prefix.is_empty() || IssueType::ALL.iter().any(|t| t.prefix().eq_ignore_ascii_case(prefix));
    let digits: String = text[split..].chars().take_while(char::is_ascii_digit).collect();
    known && digits.len() >= 6 && crate::bounded_id_number(&digits).is_none()
}

/// Whether `id` is in the numbered form docket allocates (`ISS-000042`, legacy `000042`), as
/// opposed to a custom id such as `SPEC-TOS`.
pub(crate) fn numbered_id(id: &str) -> bool {
    let Some(split) = id.find(|c: char| c.is_ascii_digit()) else { return false };
    let (prefix, digits) = id.split_at(split);
    let known = prefix.is_empty() || IssueType::ALL.iter().any(|t| t.prefix() == prefix);
    known && digits.len() >= 6 && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Where `--fix` renames a file named after another id than its frontmatter's: the same name
/// with the frontmatter id in front. `None` unless that is safe: a numbered id of the file's own
/// collection, held by no other file, and a free destination name.
pub(crate) fn renamed_after_id(scan: &Scan, m: &IssueMeta) -> Option<PathBuf> {
    let named = id_in_name(&m.path)?;
    // `ISS-000135-x.md` holding `id: "000135"` names the same issue (lookups take both forms):
    // nothing disagrees, doctor lists nothing, and --fix must not drop the prefix the name has.
    if same_id(&named, &m.id) {
        return None;
    }
    let t = scan.folder_type(&m.path)?;
    let prefix = m.id.find(|c: char| c.is_ascii_digit()).map(|i| &m.id[..i])?;
    if !numbered_id(&m.id) || (prefix != t.prefix() && !prefix.is_empty()) {
        return None;
    }
    if scan.duplicates.contains_key(&m.id.to_uppercase()) {
        return None;
    }
    let name = m.path.file_name()?.to_str()?;
    let dest = m.path.with_file_name(format!("{}{}", m.id, &name[named.len()..]));
    (!dest.exists() && dest.symlink_metadata().is_err()).then_some(dest)
}

/// The id `--fix` writes into the frontmatter of a file whose name carries its collection's
/// prefix while its `id:` does not (`ISS-000135-x.md` holding `id: "000135"`, as some wrangler
/// versions wrote them): `Ok` with the name's id, `ISS-000135` (the name is kept); `Err` with why
/// a person must decide instead (another file holds `ISS-000135`, so to every lookup the two
/// share an id; the `id:` line is not plain). `None` for any other file, and for a holder of a
/// duplicated id that --fix renumbers (the duplicate says so); the holder that keeps the id is
/// given its prefix too.
pub(crate) fn prefixed_id(scan: &Scan, m: &IssueMeta) -> Option<Result<String, String>> {
    let named = id_in_name(&m.path)?;
    let t = scan.folder_type(&m.path)?;
    let (prefix, _) = id_parts(&named)?;
    let (bare, _) = id_parts(&m.id)?;
    let wanted = format!("{}{}", t.prefix(), m.id);
    if !bare.is_empty() || prefix != t.prefix() || !numbered_id(&m.id) || !named.eq_ignore_ascii_case(&wanted) {
        return None;
    }
    let duplicate = scan.duplicates.get(&m.id.to_uppercase());
    if duplicate.is_some_and(|h| interrupted_pair(h) || h[0].path != m.path || !h[1..].iter().all(|o| renumberable(o)))
    {
        return None;
    }
    let renumbered = |o: &IssueMeta| duplicate.is_some_and(|h| h[1..].iter().any(|x| x.path == o.path));
    let others: Vec<String> = scan
        .issues
        .iter()
        .filter(|o| o.path != m.path && !renumbered(o) && same_id(&o.id, &wanted))
        .map(|o| format!("{} holds {}", scan.rel(&o.path), o.id))
        .collect();
    if !others.is_empty() {
        return Some(Err(format!(
            "{}, so to every lookup the two share one id: give one of them another id by hand (--fix cannot tell which keeps it)",
            others.join(", ")
        )));
    }
    let text = crate::read_file_safely(&m.path).ok()?;
    Some(match edit::replace_value(&text, None, "id", &wanted) {
        Some(_) => Ok(wanted),
        None => Err(format!("its `id:` line is not a plain `id: value` line: write {wanted} there by hand")),
    })
}

/// Whether `--fix` can give the file a new id: its name starts with one, or it has an `id:` line.
fn renumberable(m: &IssueMeta) -> bool {
    id_in_name(&m.path).is_some() || crate::read_file_safely(&m.path).is_ok_and(|text| edit::has_key(&text, "id"))
}

/// Which holder of a duplicate id a legacy bare `parentTaskId` (`000001`, no prefix) of an issue
/// means when one holder is a specification: that one, since wrangler's parentTaskId on an issue
/// names a specification. The holder's index and the sentence doctor lists and `--fix` prints
/// (the same words in both). `None` for a prefixed target, a referrer that is not in the issues
/// collection, or holders with no specification or several.
pub(crate) fn wrangler_parent(
    scan: &Scan,
    referrer: &IssueMeta,
    holders: &[Arc<IssueMeta>],
) -> Option<(usize, String)> {
    let target = parent_of(referrer)?;
    if id_parts(target).is_none_or(|(prefix, _)| !prefix.is_empty())
        || scan.folder_type(&referrer.path) != Some(IssueType::Issue)
    {
        return None;
    }
    let specs: Vec<usize> =
        (0..holders.len()).filter(|&i| scan.folder_type(&holders[i].path) == Some(IssueType::Specification)).collect();
    let [spec] = specs.as_slice() else { return None };
    if holders.len() < 2 {
        return None;
    }
    let others: Vec<String> =
        holders.iter().enumerate().filter(|(i, _)| i != spec).map(|(_, h)| scan.rel(&h.path)).collect();
    Some((
        *spec,
        format!(
            "{}'s parentTaskId {target} means the specification {}, not {} (wrangler's parentTaskId on an issue names a specification)",
            referrer.id,
            scan.rel(&holders[*spec].path),
            others.join(", ")
        ),
    ))
}

/// The parentTaskId a file names, if any.
pub(crate) fn parent_of(m: &IssueMeta) -> Option<&str> {
    m.context.get("parentTaskId").and_then(|v| v.as_str()).map(str::trim).filter(|s| !s.is_empty())
}

/// The issue file names on any remote-tracking branch (what `git fetch` brought): files a
/// teammate may already have. Empty outside git.
fn published_names(ws: &Workspace) -> std::collections::HashSet<String> {
    let Some(repo) = crate::git::Repo::discover(&ws.dir) else { return Default::default() };
    let dirs: Vec<String> = IssueType::ALL
        .iter()
        .flat_map(|t| {
            let folder = repo.in_ws(t.folder());
            [format!("{folder}/archived"), folder]
        })
        .collect();
    repo.branch_tips()
        .into_iter()
        .filter(|(name, _)| name.starts_with("refs/remotes/"))
        .filter_map(|(_, oid)| repo.names_in_commit(&oid, &dirs))
        .flatten()
        .collect()
}

fn read_scan(store: &Store) -> Result<Scan, StoreError> {
    let ws = store.workspace().clone();
    // Before the store reads the workspace: its first scan removes temp files it deems abandoned.
    let mut temps = Vec::new();
    for (_, dir) in ws.issue_dirs() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > STALE_TEMP_AFTER));
            if name.starts_with(".docket-") && name.ends_with(".tmp") && old {
                temps.push(entry.path());
            }
        }
    }
    temps.sort();
    let snap = store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc)?;
    let broken: Vec<PathBuf> = snap
        .warnings
        .iter()
        .filter(|w| w.code == crate::StoreWarningCode::SkippedFiles)
        .flat_map(|w| w.paths.clone())
        .collect();
    let mut by_id: BTreeMap<String, Vec<Arc<IssueMeta>>> = BTreeMap::new();
    for m in &snap.value {
        by_id.entry(m.id.to_uppercase()).or_default().push(Arc::clone(m));
    }
    by_id.retain(|_, holders| holders.len() > 1);
    // Which holder keeps the id: one already on a remote-tracking branch first (teammates may
    // have it, and references to it, already), then the one created first.
    let published = if by_id.is_empty() { Default::default() } else { published_names(&ws) };
    let unpublished =
        |m: &IssueMeta| !m.path.file_name().and_then(|n| n.to_str()).is_some_and(|n| published.contains(n));
    for holders in by_id.values_mut() {
        holders.sort_by(|a, b| (unpublished(a), &a.created_at, &a.path).cmp(&(unpublished(b), &b.created_at, &b.path)));
    }
    let keys = shared_keys(&snap.value, &by_id);
    Ok(Scan { ws, issues: snap.value, broken, temps, duplicates: by_id, keys })
}

/// The `docketKey` line of a file's frontmatter, if any (read line by line: doctor reads every
/// file, and a key is one plain line docket wrote).
fn key_of(path: &Path) -> Option<String> {
    let text = crate::read_file_safely(path).ok()?;
    let rest = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n"))?;
    let prefix = format!("{}:", crate::IDENTITY_KEY);
    rest.lines()
        .take_while(|l| l.trim_end() != "---")
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .map(|v| v.trim().trim_matches(['\'', '"']).to_string())
        .filter(|k| !k.is_empty())
}

/// Keys held by more than one issue, each with its holders in the order that decides which one
/// keeps the key: a file keeping its id before one a duplicate id renumbers, then the one created
/// first, then the lower id, then the path. The two copies of an interrupted move are one issue.
fn shared_keys(
    issues: &[Arc<IssueMeta>],
    duplicates: &BTreeMap<String, Vec<Arc<IssueMeta>>>,
) -> BTreeMap<String, Vec<Arc<IssueMeta>>> {
    let mut by_key: BTreeMap<String, Vec<Arc<IssueMeta>>> = BTreeMap::new();
    let pairs: Vec<&PathBuf> = duplicates.values().filter(|h| interrupted_pair(h)).map(|h| &h[1].path).collect();
    for m in issues.iter().filter(|m| m.frontmatter && !pairs.contains(&&m.path)) {
        if let Some(key) = key_of(&m.path) {
            by_key.entry(key).or_default().push(Arc::clone(m));
        }
    }
    by_key.retain(|_, holders| holders.len() > 1);
    let renumbered = |m: &IssueMeta| {
        duplicates.get(&m.id.to_uppercase()).is_some_and(|h| !interrupted_pair(h) && h[0].path != m.path)
    };
    let number = |m: &IssueMeta| id_parts(&m.id).map(|(_, n)| n);
    for holders in by_key.values_mut() {
        holders.sort_by(|a, b| {
            (renumbered(a), &a.created_at, number(a), &a.path).cmp(&(renumbered(b), &b.created_at, number(b), &b.path))
        });
    }
    by_key
}

/// Checks the workspace of `store`. Writes nothing.
pub fn check(store: &Store) -> Result<Report, StoreError> {
    let mut report = check_files(store)?;
    let (problems, notes) = claims::check(store, &report.scan);
    report.problems.extend(problems);
    report.problems.sort_by(|a, b| a.kind.cmp(&b.kind).then_with(|| a.paths.cmp(&b.paths)));
    report.notes = notes;
    if let Some(remote) = store.claiming_alone() {
        report.notes.push(crate::pending::alone_warning(&remote));
    }
    Ok(report)
}

/// [`check`] of the files alone, without the claim refs: what the git hooks and the repairs
/// under the workspace lock use, since the claims may be on a remote, and they never wait on
/// the network.
pub fn check_files(store: &Store) -> Result<Report, StoreError> {
    let scan = read_scan(store)?;
    let mut problems = Vec::new();
    let mut push = |kind, id: Option<&str>, paths: Vec<String>, message: String| {
        problems.push(Problem { kind, id: id.map(str::to_string), paths, message, fixable: kind.always_fixable() });
    };
    let mut stuck_duplicates = Vec::new();
    for holders in scan.duplicates.values() {
        let paths: Vec<String> = holders.iter().map(|m| scan.rel(&m.path)).collect();
        let id = holders[0].id.as_str();
        if let Some(merge) = interrupted_pair(holders).then(|| states::plan(&holders[0], &holders[1])).flatten() {
            push(
                Kind::InterruptedMove,
                Some(id),
                paths.clone(),
                format!(
                    "{id} is in both {} and {}: one issue in two states (a merge or an interrupted move); --fix merges them: {}",
                    paths[0],
                    paths[1],
                    merge.words(|p| scan.rel(p))
                ),
            );
        } else if interrupted_pair(holders) {
            push(
                Kind::InterruptedMove,
                Some(id),
                paths.clone(),
                format!(
                    "{id} is in both {} and {}, left by an interrupted move; --fix keeps the copy updated last and removes the other when both bodies are the same (otherwise it keeps both and gives the other a new id)",
                    paths[0], paths[1]
                ),
            );
        } else if let Some(stuck) = holders[1..].iter().find(|h| !renumberable(h)) {
            // A note without frontmatter whose name carries no id (two README.md files):
            // nothing in the file says its id, so nothing can be renumbered.
            let message = format!(
                "{id} is held by {} files: {}; --fix cannot give {} a new id (it has no `id:` line and its name carries none): add an `id:` line to its frontmatter or rename the file",
                holders.len(),
                paths.join(", "),
                scan.rel(&stuck.path)
            );
            stuck_duplicates.push(Problem {
                kind: Kind::DuplicateId,
                id: Some(id.to_string()),
                paths: paths.clone(),
                message,
                fixable: false,
            });
        } else {
            // The legacy parents --fix attributes to the specification holding this id.
            let choices: Vec<String> = scan
                .issues
                .iter()
                .filter(|m| parent_of(m).is_some_and(|p| same_id(id, p)))
                .filter_map(|m| wrangler_parent(&scan, m, holders).map(|(_, why)| format!("; {why}")))
                .collect();
            push(
                Kind::DuplicateId,
                Some(id),
                paths.clone(),
                format!(
                    "{id} is held by {} files: {}; --fix keeps {} (on a remote branch, or else created first) and gives the others new ids{}",
                    holders.len(),
                    paths.join(", "),
                    paths[0],
                    choices.concat()
                ),
            );
        }
    }
    for (key, holders) in &scan.keys {
        let named: Vec<String> = holders.iter().map(|m| format!("{} ({})", m.id, scan.rel(&m.path))).collect();
        push(
            Kind::DuplicateKey,
            Some(&holders[0].id),
            holders.iter().map(|m| scan.rel(&m.path)).collect(),
            format!(
                "docketKey {key} is held by {} issues: {} (a copied file keeps the key of the file it was copied from, and a merge would take them for one issue); --fix keeps it for {} and gives the others fresh keys",
                holders.len(),
                named.join(", "),
                holders[0].id
            ),
        );
    }
    let paired: Vec<&PathBuf> =
        scan.duplicates.values().filter(|h| interrupted_pair(h)).flatten().map(|m| &m.path).collect();
    for m in scan.issues.iter().filter(|m| !paired.contains(&&m.path)) {
        if m.status.is_archived() != in_archive(&m.path) {
            let want = if m.status.is_archived() { "archived/" } else { "its collection folder, outside archived/" };
            push(
                Kind::Misplaced,
                Some(&m.id),
                vec![scan.rel(&m.path)],
                format!(
                    "{} has status {} but sits in {}; --fix moves it to {want}",
                    m.id,
                    m.status,
                    scan.rel(m.path.parent().unwrap_or(&m.path))
                ),
            );
        }
    }
    let mut mismatched = Vec::new();
    for m in &scan.issues {
        let Some(named) = id_in_name(&m.path).filter(|n| !same_id(n, &m.id)) else { continue };
        // A custom id (`SPEC-TOS` in `000005-template-override-system.md`) is wrangler's own
        // style: the leading number is only an ordinal, nothing disagrees.
        if !numbered_id(&m.id) {
            continue;
        }
        let rel = scan.rel(&m.path);
        let (message, fixable) = match renamed_after_id(&scan, m) {
            Some(dest) => (
                format!(
                    "{rel} is named after {named} but its frontmatter id is {}; --fix renames it to {} (every reference and lookup uses the frontmatter id)",
                    m.id,
                    dest.file_name().unwrap_or_default().to_string_lossy()
                ),
                true,
            ),
            None => (
                format!(
                    "{rel} is named after {named} but its frontmatter id is {}; rename the file or fix its id: line by hand (--fix cannot: the id is held twice, belongs to another collection, or the new name is taken)",
                    m.id
                ),
                false,
            ),
        };
        mismatched.push(Problem {
            kind: Kind::NameMismatch,
            id: Some(m.id.clone()),
            paths: vec![rel],
            message,
            fixable,
        });
    }
    for m in &scan.issues {
        let Some(wanted) = prefixed_id(&scan, m) else { continue };
        let rel = scan.rel(&m.path);
        let named = id_in_name(&m.path).unwrap_or_default();
        let (message, fixable) = match wanted {
            Ok(wanted) => (
                format!(
                    "{rel} is named after {wanted} but its frontmatter id is {} (no prefix); --fix gives the frontmatter the name's id {wanted} and keeps the name",
                    m.id
                ),
                true,
            ),
            Err(why) => {
                (format!("{rel} is named after {named} but its frontmatter id is {} (no prefix); {why}", m.id), false)
            }
        };
        mismatched.push(Problem {
            kind: Kind::NameMismatch,
            id: Some(m.id.clone()),
            paths: vec![rel.clone()],
            message,
            fixable,
        });
    }
    for p in &scan.broken {
        let why = crate::read_file_safely(p).map(|t| edit::frontmatter_error(&t)).unwrap_or_else(|e| e.to_string());
        push(
            Kind::BrokenFrontmatter,
            None,
            vec![scan.rel(p)],
            format!(
                "{}: the frontmatter does not parse ({why}); docket skips the file until the YAML between the --- lines is fixed",
                scan.rel(p)
            ),
        );
    }
    let known = Known::new(&scan.issues);
    // One problem per missing parent, however many children name it: one thing for a person to
    // decide (restore the parent, or point the children elsewhere).
    let mut orphans: BTreeMap<String, Vec<&Arc<IssueMeta>>> = BTreeMap::new();
    for m in &scan.issues {
        if let Some(parent) = parent_of(m)
            && !known.resolves(parent)
        {
            orphans.entry(parent.to_string()).or_default().push(m);
        }
    }
    for (parent, children) in &orphans {
        let ids: Vec<&str> = children.iter().map(|m| m.id.as_str()).collect();
        let whose = match ids.as_slice() {
            [one] => format!("{one}'s wranglerContext.parentTaskId is"),
            many => format!("{} issues ({}) have wranglerContext.parentTaskId", many.len(), many.join(", ")),
        };
        push(
            Kind::MissingParent,
            Some(parent),
            children.iter().map(|m| scan.rel(&m.path)).collect(),
            format!(
                "{whose} {parent}, which no file holds; restore {parent}, or point them at another parent with issues_update (wranglerContext.parentTaskId)"
            ),
        );
    }
    for m in &scan.issues {
        let name = m.path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let bad_id = number_out_of_range(&m.id);
        let bad_name = number_out_of_range(name);
        if bad_id || bad_name {
            let what = if bad_id { format!("its id {}", m.id) } else { format!("its file name {name}") };
            push(
                Kind::MalformedId,
                Some(&m.id),
                vec![scan.rel(&m.path)],
                format!(
                    "{}: {what} has a number beyond {}, the highest id docket allocates; new ids ignore it (they never wrap around). Give the file a free id by hand",
                    scan.rel(&m.path),
                    crate::MAX_ID_NUMBER
                ),
            );
        }
    }
    for m in &scan.issues {
        for b in m.blocked_by.iter().filter(|b| !known.resolves(b)) {
            let message = format!("{}'s blockedBy names {b}, which no file holds; correct or remove it", m.id);
            push(Kind::MissingBlocker, Some(&m.id), vec![scan.rel(&m.path)], message);
        }
    }
    let cycles = store.graph_problems()?.1;
    // The first file holding each ID, looked up once per cycle member, not searched for.
    let mut path_of: HashMap<&str, &Path> = HashMap::new();
    for m in scan.issues.iter().filter(|_| !cycles.is_empty()) {
        path_of.entry(m.id.as_str()).or_insert(m.path.as_path());
    }
    for cycle in cycles {
        // The files of the issues the message names (a long cycle's ends), not 10,000 paths.
        let named = crate::cycle_named(&cycle);
        let paths = named.into_iter().filter_map(|id| path_of.get(id.as_str())).map(|p| scan.rel(p));
        let message = format!(
            "blockedBy goes round in a circle: {}; none of them can become ready until one of these blockers is removed",
            crate::cycle_text(&cycle)
        );
        push(
            Kind::BlockerCycle,
            cycle.first().map(String::as_str),
            paths.collect::<std::collections::BTreeSet<_>>().into_iter().collect(),
            message,
        );
    }
    for p in &scan.temps {
        push(
            Kind::StaleTempFile,
            None,
            vec![scan.rel(p)],
            format!("{} is a temp file abandoned by an interrupted write; --fix removes it", scan.rel(p)),
        );
    }
    problems.extend(mismatched);
    problems.extend(stuck_duplicates);
    problems.sort_by(|a, b| a.kind.cmp(&b.kind).then_with(|| a.paths.cmp(&b.paths)));
    Ok(Report { problems, notes: Vec::new(), scan })
}

/// Problems per kind, for one-line summaries: `23 duplicate ids, 1 misplaced file`.
pub fn summary(problems: &[Problem]) -> String {
    let mut counts: BTreeMap<Kind, usize> = BTreeMap::new();
    for p in problems {
        *counts.entry(p.kind).or_default() += 1;
    }
    counts.iter().map(|(k, n)| format!("{} {n}", k.as_str())).collect::<Vec<_>>().join(", ")
}
