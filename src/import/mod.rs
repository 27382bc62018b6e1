//! `docket import beads|backlog PATH`: brings another tracker's issues into the workspace, one
//! file each, through the store's own write path ([`Store::import`]). A reader per tracker
//! ([`beads`], [`backlog`]) turns its files into [`Incoming`] issues in docket's terms; this
//! module links them (old ids to new), skips what an earlier import already brought (by the old
//! id, kept as `wranglerContext.importedFrom`), writes them and the id map, and words the summary.
//! The tables of what maps to what are in docs/import.md.

mod backlog;
mod beads;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::store::{
    Imported, IssueFilter, IssueMeta, KeptLink, Link, MAX_FILE_BYTES, NewIssue, SortField, SortOrder, Store, StoreError,
};

/// The trackers docket imports from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Source {
    /// beads (`bd`): a `.beads/` folder or its `issues.jsonl` export.
    Beads,
    /// Backlog.md: a project holding `backlog/` (tasks, completed, drafts).
    Backlog,
}

impl Source {
    fn name(self) -> &'static str {
        match self {
            Source::Beads => "beads",
            Source::Backlog => "backlog",
        }
    }

    /// The key two spellings of one old id share: beads ids as written; Backlog.md ids by their
    /// number, since its files name `task-24.1` for `BACK-24.1` after a prefix change.
    fn key(self, old: &str) -> String {
        match self {
            Source::Beads => old.trim().to_string(),
            Source::Backlog => backlog::key(old),
        }
    }
}

/// One issue as read from the old tracker, in docket's terms; its links still name old ids.
pub(crate) struct Incoming {
    /// Where it was read: `FILE:LINE` (beads) or the file (Backlog.md).
    pub at: String,
    pub old_id: String,
    /// Its kind in the old tracker (beads' issue_type, Backlog.md's folder), for the counts.
    pub kind: String,
    /// Fields for the create; `context` holds `importedFields` (what docket has no field for).
    pub new: NewIssue,
    pub created_at: String,
    pub updated_at: String,
    pub closed_at: Option<String>,
    /// Set by [`fit`] when the text was cut: (file name in `import/full/`, the whole text).
    pub full_text: Option<(String, String)>,
    /// Old ids of the issues that must be done first.
    pub blockers: Vec<String>,
    /// Old ids of its parents (the first becomes `parentTaskId`, any other is kept as a link).
    pub parents: Vec<String>,
    /// Other edges, kept as data: (type, old id).
    pub links: Vec<(String, String)>,
}

/// What a reader found: the issues, what it skipped (where: why), and how it mapped values.
#[derive(Default)]
pub(crate) struct Read {
    pub issues: Vec<Incoming>,
    pub skipped: Vec<String>,
    /// "what -> to what" with how often.
    pub mapped: BTreeMap<String, usize>,
    /// Facts about the input a person should look at (beyond skipped lines and dangling edges).
    pub notes: Vec<String>,
    /// The project the issues belong to, when their ids are only unique within it (Backlog.md).
    pub project: Option<String>,
}

impl Read {
    pub fn tally(&mut self, what: String) {
        *self.mapped.entry(what).or_default() += 1;
    }
}

/// Imports `path` from `source` into `store`'s workspace (or only says what it would do); the
/// summary for a person.
pub fn run(store: &Store, source: Source, path: &Path, dry_run: bool) -> Result<String, String> {
    let mut read = match source {
        Source::Beads => beads::read(path)?,
        Source::Backlog => backlog::read(path)?,
    };
    let ws_name =
        store.workspace().dir.file_name().map_or_else(|| ".docket".into(), |n| n.to_string_lossy().into_owned());
    fit(&mut read, source, &ws_name);
    if dry_run {
        // A workspace that does not exist yet is not made (nor read) by a dry run.
        let ws = &store.workspace().dir;
        let all = match ws.is_dir() {
            true => {
                store
                    .list(&IssueFilter::default(), SortField::Created, SortOrder::Asc)
                    .map_err(|e| e.to_string())?
                    .value
            }
            false => Vec::new(),
        };
        let plan = Plan::new(source, read, &imported_already(&all, source));
        let mut out = plan.summary_head(source, path, dry_run);
        let _ = writeln!(
            out,
            "Would write to the workspace {}{}.",
            ws.display(),
            if ws.is_dir() { "" } else { " (it does not exist yet: the import creates it)" }
        );
        let _ = writeln!(out, "Dry run: nothing was written. Run it again without --dry-run to import.");
        return Ok(out);
    }
    // What is already imported is read under the workspace lock the batch is written in.
    let mut planned = None;
    let created = store
        .import_with(|all| {
            let mut plan = Plan::new(source, read, &imported_already(all, source));
            let batch = std::mem::take(&mut plan.batch);
            planned = Some(plan);
            batch
        })
        .map_err(|e| e.to_string())?;
    let Some(plan) = planned else { return Err("the import planned nothing".into()) };
    let mut out = plan.summary_head(source, path, dry_run);
    write_full_texts(store, &plan.full).map_err(|e| e.to_string())?;
    let map_path = write_id_map(store, source).map_err(|e| e.to_string())?;
    // One line per collection: ids of two collections make no range.
    for t in crate::store::IssueType::ALL {
        let ids: Vec<&str> = created.iter().filter(|m| m.issue_type == *t).map(|m| m.id.as_str()).collect();
        if let (Some(first), Some(last)) = (ids.first(), ids.last()) {
            let _ = writeln!(out, "Created {} {}(s): {first} .. {last}.", ids.len(), t.as_str());
        }
    }
    let _ = writeln!(out, "Workspace: {}", store.workspace().dir.display());
    let _ = writeln!(out, "Id map: {}", map_path.display());
    let (missing, cycles) = store.graph_problems().map_err(|e| e.to_string())?;
    if !cycles.is_empty() || !missing.is_empty() {
        let _ = writeln!(
            out,
            "The workspace's graph has {} cycle(s) and {} blocker(s) naming no issue: `docket doctor` lists them.",
            cycles.len(),
            missing.len()
        );
    }
    Ok(out)
}

/// The key an old id is matched by: the project it came from (Backlog.md's; none for beads,
/// whose ids carry their own prefix), then the id's key within it ([`Source::key`]).
fn key_in(source: Source, project: &str, old: &str) -> String {
    format!("{project}\u{1f}{}", source.key(old))
}

/// Old id key ([`key_in`]) -> docket ID of every issue of `all` an earlier import from
/// `source` brought.
fn imported_already(all: &[Arc<IssueMeta>], source: Source) -> HashMap<String, String> {
    imported_from(all, source).into_iter().map(|(old, id, project)| (key_in(source, &project, &old), id)).collect()
}

/// (old id, docket ID, project or "") of every issue of `all` imported from `source`.
fn imported_from(all: &[Arc<IssueMeta>], source: Source) -> Vec<(String, String, String)> {
    let prefix = format!("{}:", source.name());
    all.iter()
        .filter_map(|m| {
            let from = m.context.get(IMPORTED_FROM)?.as_str()?.strip_prefix(&prefix)?;
            let project = m.context.get(IMPORTED_PROJECT).and_then(Value::as_str).unwrap_or_default();
            Some((from.to_string(), m.id.clone(), project.to_string()))
        })
        .collect()
}

/// The frontmatter key (in `wranglerContext`) naming where an issue came from: `beads:bd-123`.
const IMPORTED_FROM: &str = "importedFrom";

/// The frontmatter key (in `wranglerContext`) naming the Backlog.md project an issue came from
/// (its `project_name`, else its folder's name): two projects' `task-1` are two issues.
const IMPORTED_PROJECT: &str = "importedProject";

/// Room left in an issue file for what [`fit`] does not count exactly (frontmatter keys, times).
const MARGIN: usize = 64 * 1024;

/// An issue whose file would pass the store's read cap ([`MAX_FILE_BYTES`]: docket would not
/// read it back) has its text cut to fit, with a line saying so and where the whole text is
/// (`import/full/NAME` in the workspace folder, written with the issue, once); one whose other
/// fields alone are too large is not imported. Either is listed, by `FILE:LINE` or file, for a
/// person.
fn fit(read: &mut Read, source: Source, ws_name: &str) {
    let cap = MAX_FILE_BYTES as usize;
    let mb = |n: usize| format!("{:.1} MB", n as f64 / (1024.0 * 1024.0));
    let mut kept = Vec::with_capacity(read.issues.len());
    for mut issue in std::mem::take(&mut read.issues) {
        let new = &issue.new;
        // YAML quoting may take more than JSON's: counted twice.
        let rest = new.title.len()
            + new.labels.iter().map(|l| l.len() + 8).sum::<usize>()
            + new.assignee.as_ref().map_or(0, String::len)
            + new.project.as_ref().map_or(0, String::len)
            + 2 * serde_json::to_string(&new.context).map_or(0, |c| c.len())
            + issue.blockers.iter().chain(&issue.parents).map(|b| 2 * b.len() + 64).sum::<usize>()
            + issue.links.iter().map(|(k, o)| 2 * (k.len() + o.len()) + 64).sum::<usize>();
        let body = new.description.len();
        if rest + body + MARGIN <= cap {
            kept.push(issue);
            continue;
        }
        if rest + 2 * MARGIN > cap / 2 {
            read.skipped.push(format!(
                "{}: {}: its fields other than the text take about {}, more than a docket issue file holds ({}); not imported: shorten them in the old tracker and import again",
                issue.at,
                issue.old_id,
                mb(rest),
                mb(cap)
            ));
            continue;
        }
        let project = read.project.as_deref().map(|p| format!("{p}-")).unwrap_or_default();
        let name: String = format!("{}-{project}{}", source.name(), issue.old_id)
            .chars()
            .take(150)
            .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' })
            .collect::<String>()
            + ".md";
        let whole = std::mem::take(&mut issue.new.description);
        let mut cut = cap - rest - 2 * MARGIN;
        while !whole.is_char_boundary(cut) {
            cut -= 1;
        }
        // At the end of a line when there is one in the last few kilobytes.
        if let Some(nl) = whole[..cut].rfind('\n').filter(|nl| cut - nl < 4096) {
            cut = nl + 1;
        }
        let kept_at = format!("{ws_name}/import/full/{name}");
        issue.new.description = format!(
            "{}\n\n> docket import cut this text at {cut} of its {} bytes (an issue file holds at most {}); the whole text is in {kept_at}.\n",
            whole[..cut].trim_end(),
            whole.len(),
            mb(cap)
        );
        read.notes.push(format!(
            "{}: {}: its text is {}, more than a docket issue file holds ({}): cut at {cut} bytes, the whole text kept in {kept_at}",
            issue.at,
            issue.old_id,
            mb(whole.len()),
            mb(cap)
        ));
        issue.full_text = Some((name, whole));
        kept.push(issue);
    }
    read.issues = kept;
}

/// The whole texts of the issues [`fit`] cut, each in `import/full/NAME` of the workspace.
fn write_full_texts(store: &Store, full: &[(String, String)]) -> Result<(), StoreError> {
    if full.is_empty() {
        return Ok(());
    }
    for (name, text) in full {
        store.write_import_file(&format!("full/{name}"), text)?;
    }
    Ok(())
}

/// The id map: one `old<TAB>new` line per issue imported from `source`, sorted by old id,
/// rewritten whole from the workspace (so it is the same after a second import), and written
/// only when it changed.
fn write_id_map(store: &Store, source: Source) -> Result<PathBuf, StoreError> {
    // Under the workspace lock (an import of nothing), so that an import running at the same
    // time never has its rows overwritten by an older list.
    let mut written = None;
    store.import_with(|all| {
        written = Some(write_id_map_of(store, all, source));
        Vec::new()
    })?;
    written.unwrap_or_else(|| {
        Err(StoreError::Refused { path: store.workspace().dir.clone(), reason: "the id map was not written".into() })
    })
}

fn write_id_map_of(store: &Store, all: &[Arc<IssueMeta>], source: Source) -> Result<PathBuf, StoreError> {
    let ws = store.workspace();
    let mut rows = imported_from(all, source);
    rows.sort();
    // Backlog.md's ids are unique within a project only: a third column names it.
    let with_project = source == Source::Backlog;
    let mut text = format!("{}\tdocket{}\n", source.name(), if with_project { "\tproject" } else { "" });
    let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
    for (old, new, project) in rows {
        match with_project {
            true => writeln!(text, "{}\t{new}\t{}", clean(&old), clean(&project)),
            false => writeln!(text, "{}\t{new}", clean(&old)),
        }
        .expect("a String takes every write");
    }
    let name = format!("{}-idmap.tsv", source.name());
    let path = ws.dir.join("import").join(&name);
    if std::fs::read(&path).ok().as_deref() != Some(text.as_bytes()) {
        return store.write_import_file(&name, &text);
    }
    Ok(path)
}

/// The batch to write and what the summary says about it.
struct Plan {
    batch: Vec<Imported>,
    /// The whole texts of the issues of the batch [`fit`] cut: (file name in `import/full/`, text).
    full: Vec<(String, String)>,
    /// How many the batch holds (the batch itself is handed to the store).
    creating: usize,
    read_count: usize,
    already: usize,
    kinds: BTreeMap<String, usize>,
    read: Read,
    /// Edge type -> (kept as docket's own field, kept as data).
    edges: BTreeMap<String, (usize, usize)>,
    dangling: Vec<String>,
}

impl Plan {
    fn new(source: Source, mut read: Read, existing: &HashMap<String, String>) -> Plan {
        let incoming = std::mem::take(&mut read.issues);
        let read_count = incoming.len();
        let project = read.project.clone().unwrap_or_default();
        let key = |old: &str| key_in(source, &project, old);
        // An issue imported before the project was kept (no importedProject) is matched by its
        // id alone, so that importing the same project again still brings nothing twice.
        let known = |old: &str| existing.get(&key(old)).or_else(|| existing.get(&key_in(source, "", old)));
        let fresh: Vec<Incoming> = incoming.into_iter().filter(|i| known(&i.old_id).is_none()).collect();
        // Two issues of the input that one id names (Backlog.md's `task-5` and `BACK-5`): the
        // first is imported, the other reported.
        let mut seen = std::collections::HashSet::new();
        let (fresh, twins): (Vec<Incoming>, Vec<Incoming>) =
            fresh.into_iter().partition(|i| seen.insert(key(&i.old_id)));
        read.skipped.extend(twins.iter().map(|t| format!("{}: the same id as an issue read before it", t.old_id)));
        let place: HashMap<String, usize> = fresh.iter().enumerate().map(|(n, i)| (key(&i.old_id), n)).collect();
        let link = |old: &str| -> Option<Link> {
            place.get(&key(old)).map(|n| Link::Batch(*n)).or_else(|| known(old).map(|id| Link::Id(id.clone())))
        };
        let mut plan = Plan {
            batch: Vec::with_capacity(fresh.len()),
            full: Vec::new(),
            creating: fresh.len(),
            read_count,
            already: read_count - fresh.len() - twins.len(),
            kinds: BTreeMap::new(),
            read,
            edges: BTreeMap::new(),
            dangling: Vec::new(),
        };
        for mut item in fresh {
            *plan.kinds.entry(item.kind.clone()).or_default() += 1;
            plan.full.extend(item.full_text.take());
            let mut kept: Vec<KeptLink> = Vec::new();
            let mut keep = |plan: &mut Plan, kind: &str, old: &str, to: Option<Link>| {
                if to.is_none() {
                    plan.dangling.push(format!("{} {kind} {old}", item.old_id));
                }
                plan.edges.entry(kind.to_string()).or_default().1 += 1;
                kept.push(KeptLink { kind: kind.to_string(), to: old.to_string(), link: to });
            };
            let mut blocked_by = Vec::new();
            for b in &item.blockers {
                match link(b) {
                    Some(l) => {
                        plan.edges.entry("blocks".into()).or_default().0 += 1;
                        blocked_by.push(l);
                    }
                    None => keep(&mut plan, "blocks", b, None),
                }
            }
            let mut parent = None;
            for p in &item.parents {
                match link(p) {
                    Some(l) if parent.is_none() => {
                        plan.edges.entry("parent-child".into()).or_default().0 += 1;
                        parent = Some(l);
                    }
                    l => keep(&mut plan, "parent-child", p, l),
                }
            }
            for (kind, old) in &item.links {
                let l = link(old);
                keep(&mut plan, kind, old, l);
            }
            let mut new = item.new;
            let mut context = Map::new();
            context.insert(IMPORTED_FROM.into(), Value::String(format!("{}:{}", source.name(), item.old_id)));
            if let Some(p) = &plan.read.project {
                context.insert(IMPORTED_PROJECT.into(), Value::String(p.clone()));
            }
            context.append(&mut new.context);
            new.context = context;
            plan.batch.push(Imported {
                new,
                created_at: item.created_at,
                updated_at: item.updated_at,
                closed_at: item.closed_at,
                blocked_by,
                parent,
                kept_links: kept,
            });
        }
        plan
    }

    fn summary_head(&self, source: Source, path: &Path, dry_run: bool) -> String {
        let mut out = String::new();
        let verb = if dry_run { "Would create" } else { "Creating" };
        let _ = writeln!(
            out,
            "docket import {} {}: {} issue(s) read, {} skipped (see below), {} already imported (left as they are). {verb} {}.",
            source.name(),
            path.display(),
            self.read_count,
            self.read.skipped.len(),
            self.already,
            self.creating
        );
        if !self.kinds.is_empty() {
            let kinds: Vec<String> = self.kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
            let _ = writeln!(out, "By kind: {}", kinds.join(", "));
        }
        if !self.edges.is_empty() {
            let _ = writeln!(out, "Edges:");
            for (kind, (own, data)) in &self.edges {
                let field = match kind.as_str() {
                    "blocks" => "blockedBy",
                    "parent-child" => "parentTaskId",
                    _ => "",
                };
                let mut parts = Vec::new();
                if *own > 0 {
                    parts.push(format!("{own} as {field}"));
                }
                if *data > 0 {
                    parts.push(format!("{data} kept in importedLinks"));
                }
                let _ = writeln!(out, "  {kind}: {}", parts.join(", "));
            }
        }
        if !self.read.mapped.is_empty() {
            let _ = writeln!(out, "Mapped:");
            for (what, n) in &self.read.mapped {
                let _ = writeln!(out, "  {what}: {n}");
            }
        }
        let needs = self.read.skipped.len() + self.dangling.len() + self.read.notes.len();
        if needs > 0 {
            let _ = writeln!(out, "Needs a person ({needs}):");
            for s in &self.read.skipped {
                let _ = writeln!(out, "  skipped {s}");
            }
            for d in &self.dangling {
                let _ = writeln!(out, "  edge to an issue not in the input, kept in importedLinks: {d}");
            }
            for n in &self.read.notes {
                let _ = writeln!(out, "  {n}");
            }
        }
        out
    }
}

/// An old tracker's time for docket's frontmatter: RFC 3339 in UTC (`...Z`, beads' own) as it
/// is written; RFC 3339 with another offset, or a date with an optional `HH:MM[:SS]` taken as UTC
/// (Backlog.md's), as docket writes times (UTC, milliseconds), so that times sort as text.
pub(crate) fn timestamp(s: &str) -> Option<String> {
    use chrono::{NaiveDate, NaiveDateTime, SecondsFormat, Utc};
    let s = s.trim();
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(s) {
        if s.ends_with(['Z', 'z']) && s.is_char_boundary(19) && s.as_bytes()[10] == b'T' {
            return Some(s.to_string());
        }
        return Some(t.with_timezone(&Utc).to_rfc3339_opts(SecondsFormat::Millis, true));
    }
    let naive = ["%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())
        .or_else(|| NaiveDate::parse_from_str(s, "%Y-%m-%d").ok().and_then(|d| d.and_hms_opt(0, 0, 0)))?;
    Some(naive.and_utc().to_rfc3339_opts(SecondsFormat::Millis, true))
}
