//! The counts and list orders the index keeps (issue 30) against a recount and a full sort:
//! after random sequences of creates, updates, closes, deletes and edits made outside docket,
//! every kept count equals a count over every issue, and every page (any filter, sort, order,
//! offset and limit) equals the same slice of a naive filter-and-sort of every issue, and the
//! ready list of the work graph, patched across changes, equals one built from scratch.

use std::collections::BTreeMap;
use std::sync::Arc;

use docket_store::generate::generate_workspace;
use docket_store::{
    GroupBy, IssueFilter, IssueMeta, IssuePatch, IssueType, NewIssue, Priority, SearchField, SearchQuery, SortField,
    SortOrder, Status, Store, StoreOptions,
};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

const LABELS: &[&str] = &["bug", "feature", "docs", "ux", "api", "new-label", "Bug"];
const NAMES: &[&str] = &["ann", "bo", "core", "web", "zed", ""];

/// Every issue, straight from an unfiltered list (its set is what every other test checks).
fn everything(store: &Store) -> Vec<Arc<IssueMeta>> {
    store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).expect("list").value
}

fn matches(f: &IssueFilter, m: &IssueMeta) -> bool {
    (f.status.is_empty() || f.status.contains(&m.status))
        && (f.priority.is_empty() || f.priority.contains(&m.priority))
        && (f.types.is_empty() || f.types.contains(&m.issue_type))
        && (f.labels.is_empty() || f.labels.iter().any(|l| m.labels.contains(l)))
        && f.assignee.as_ref().is_none_or(|a| m.assignee.as_ref() == Some(a))
        && f.project.as_ref().is_none_or(|p| m.project.as_ref() == Some(p))
        && f.parent_task_id
            .as_ref()
            .is_none_or(|p| m.context.get("parentTaskId").and_then(|v| v.as_str()) == Some(p.as_str()))
        && (f.ids.is_empty() || f.ids.iter().any(|id| id.eq_ignore_ascii_case(&m.id)))
}

/// What lists always returned: list order (issues first, newest update first, then ID, then
/// path) for updated/desc, else a stable sort of that by the field, then ID.
fn naive(all: &[Arc<IssueMeta>], f: &IssueFilter, sort: SortField, order: SortOrder) -> Vec<Arc<IssueMeta>> {
    let mut out: Vec<Arc<IssueMeta>> = all.iter().filter(|m| matches(f, m)).cloned().collect();
    out.sort_by(|a, b| {
        b.frontmatter
            .cmp(&a.frontmatter)
            .then_with(|| b.updated_at.cmp(&a.updated_at))
            .then_with(|| a.id.cmp(&b.id))
            .then_with(|| a.path.cmp(&b.path))
    });
    if (sort, order) != (SortField::Updated, SortOrder::Desc) {
        out.sort_by(|a, b| {
            let ord = match sort {
                SortField::Created => a.created_at.cmp(&b.created_at),
                SortField::Updated => a.updated_at.cmp(&b.updated_at),
                SortField::Priority => a.priority.cmp(&b.priority),
                SortField::Status => a.status.cmp(&b.status),
                SortField::Id => a.id.cmp(&b.id),
            }
            .then_with(|| a.id.cmp(&b.id));
            let ord = if order == SortOrder::Desc { ord.reverse() } else { ord };
            b.frontmatter.cmp(&a.frontmatter).then(ord)
        });
    }
    out
}

fn some<T: Copy>(rng: &mut StdRng, all: &[T], p: f64) -> Vec<T> {
    all.iter().copied().filter(|_| rng.random_bool(p)).collect()
}

fn random_filter(rng: &mut StdRng, ids: &[String]) -> IssueFilter {
    let pick = |rng: &mut StdRng| NAMES.choose(rng).map(|s| s.to_string());
    let mut f = IssueFilter::default();
    if rng.random_bool(0.5) {
        f.status = some(rng, Status::ALL, 0.4);
    }
    if rng.random_bool(0.4) {
        f.types = some(rng, IssueType::ALL, 0.5);
    }
    if rng.random_bool(0.25) {
        f.priority = some(rng, Priority::ALL, 0.4);
    }
    if rng.random_bool(0.4) {
        f.labels = (0..rng.random_range(1..=2)).filter_map(|_| LABELS.choose(rng).map(|l| l.to_string())).collect();
    }
    if rng.random_bool(0.2) {
        f.assignee = pick(rng);
    }
    if rng.random_bool(0.2) {
        f.project = pick(rng);
    }
    if rng.random_bool(0.1) {
        f.parent_task_id = Some("SPEC-000001".into());
    }
    if rng.random_bool(0.15) && !ids.is_empty() {
        f.ids = (0..rng.random_range(1..=4))
            .filter_map(|_| ids.choose(rng).map(|id| if rng.random_bool(0.5) { id.to_lowercase() } else { id.clone() }))
            .chain(["ISS-999999".to_string()])
            .collect();
    }
    f
}

fn random_labels(rng: &mut StdRng) -> Vec<String> {
    let mut labels: Vec<String> =
        (0..rng.random_range(0..=3)).filter_map(|_| LABELS.choose(rng).map(|l| l.to_string())).collect();
    if rng.random_bool(0.3) && !labels.is_empty() {
        labels.push(labels[0].clone()); // the same label twice
    }
    labels
}

fn random_name(rng: &mut StdRng) -> Option<String> {
    rng.random_bool(0.6).then(|| NAMES[..5].choose(rng).expect("names").to_string())
}

/// One random change, through the store or behind its back.
fn change(rng: &mut StdRng, store: &Store, step: usize) {
    let all = everything(store);
    let target = all.choose(rng).cloned();
    let status = *Status::ALL.choose(rng).expect("statuses");
    match (rng.random_range(0..9), target) {
        (0, _) | (_, None) => {
            let new = NewIssue {
                title: format!("Random issue {step}"),
                description: "Made by the kept-orders test.".into(),
                issue_type: *IssueType::ALL.choose(rng).expect("types"),
                status,
                priority: *Priority::ALL.choose(rng).expect("priorities"),
                labels: random_labels(rng),
                assignee: random_name(rng),
                project: random_name(rng),
                context: Default::default(),
                blocked_by: vec![],
            };
            store.create(new).expect("create");
        }
        (1, Some(m)) => {
            let patch = IssuePatch {
                status: Some(status),
                priority: rng.random_bool(0.5).then(|| *Priority::ALL.choose(rng).expect("priorities")),
                labels: rng.random_bool(0.5).then(|| random_labels(rng)),
                assignee: rng.random_bool(0.5).then(|| random_name(rng)),
                project: rng.random_bool(0.5).then(|| random_name(rng)),
                ..IssuePatch::default()
            };
            let _ = store.update(&m.id, patch);
        }
        (2, Some(m)) => {
            let _ = store.update(&m.id, IssuePatch { add_labels: random_labels(rng), ..IssuePatch::default() });
        }
        (3, Some(m)) => {
            let _ = store.update(&m.id, IssuePatch { status: Some(Status::Closed), ..IssuePatch::default() });
        }
        (4, Some(m)) => {
            let _ = store.delete(&m.id);
        }
        (5, Some(m)) => {
            // Rewritten outside docket: every counted field may change.
            let labels = random_labels(rng).join(", ");
            let project = random_name(rng).map(|p| format!("project: {p}\n")).unwrap_or_default();
            let assignee = random_name(rng).map(|a| format!("assignee: {a}\n")).unwrap_or_default();
            let text = format!(
                "---\nid: {}\ntitle: Edited outside {step}\ntype: {}\nstatus: {status}\npriority: {}\nlabels: [{labels}]\n{project}{assignee}createdAt: 2026-03-0{}T00:00:00.000Z\nupdatedAt: 2026-12-{:02}T00:00:00.000Z\n---\nEdited by hand.\n",
                m.id,
                m.issue_type,
                Priority::ALL.choose(rng).expect("priorities"),
                rng.random_range(1..10),
                rng.random_range(1..29),
            );
            std::fs::write(&m.path, text).expect("edit outside");
        }
        (6, Some(m)) => std::fs::remove_file(&m.path).expect("delete outside"),
        (8, Some(m)) => {
            // A blocker set or cleared (refused ones, such as a cycle, change nothing).
            let blockers = match rng.random_bool(0.7) {
                true => all.choose(rng).map(|b| vec![b.id.clone()]).unwrap_or_default(),
                false => Vec::new(),
            };
            let _ = store.update(&m.id, IssuePatch { blocked_by: Some(blockers), ..IssuePatch::default() });
        }
        (_, Some(m)) => {
            // A file without frontmatter beside the issues, and a copy of an issue (a duplicate ID).
            let dir = m.path.parent().expect("folder");
            std::fs::write(dir.join(format!("notes-{step}.md")), "Just notes.\n").expect("notes");
            if let Ok(text) = std::fs::read_to_string(&m.path) {
                std::fs::write(dir.join(format!("{}-copy-{step}.md", m.id)), text).expect("copy");
            }
        }
    }
}

fn recount(keys: impl Iterator<Item = String>) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for k in keys {
        *counts.entry(k).or_default() += 1;
    }
    counts
}

fn group_key(m: &IssueMeta, by: GroupBy) -> Option<String> {
    match by {
        GroupBy::Status => Some(m.status.as_str().to_string()),
        GroupBy::Priority => Some(m.priority.as_str().to_string()),
        GroupBy::Type => Some(m.issue_type.as_str().to_string()),
        GroupBy::Project => m.project.clone().filter(|p| !p.is_empty()),
        GroupBy::Assignee => m.assignee.clone().filter(|a| !a.is_empty()),
    }
}

fn check(rng: &mut StdRng, store: &Store, round: usize) {
    let all = everything(store);
    let at = format!("round {round}");
    let labels: BTreeMap<String, usize> = store.label_counts().expect("labels").value.into_iter().collect();
    assert_eq!(labels, recount(all.iter().flat_map(|m| m.labels.iter().cloned())), "label counts, {at}");
    let projects: BTreeMap<String, usize> = store.project_counts().expect("projects").value.into_iter().collect();
    let counted = recount(all.iter().filter_map(|m| m.project.clone().filter(|p| !p.is_empty())));
    assert_eq!(projects, counted, "project counts, {at}");

    // Each label, collection and status alone: the totals the kept counts give.
    let mut simple: Vec<IssueFilter> =
        LABELS.iter().map(|l| IssueFilter { labels: vec![l.to_string()], ..IssueFilter::default() }).collect();
    simple.extend(Status::ALL.iter().map(|&s| IssueFilter { status: vec![s], ..IssueFilter::default() }));
    simple.extend(IssueType::ALL.iter().map(|&t| IssueFilter { types: vec![t], ..IssueFilter::default() }));
    simple.extend(NAMES.iter().map(|n| IssueFilter { project: Some(n.to_string()), ..IssueFilter::default() }));
    for filter in simple {
        let page = store.list_page(&filter, SortField::Updated, SortOrder::Desc, 0, Some(1)).expect("page").value;
        let want = all.iter().filter(|m| matches(&filter, m)).count();
        assert_eq!(page.total, want, "total of {filter:?}, {at}");
    }

    let ids: Vec<String> = all.iter().map(|m| m.id.clone()).collect();
    for _ in 0..12 {
        let filter = if rng.random_bool(0.2) { IssueFilter::default() } else { random_filter(rng, &ids) };
        for by in [GroupBy::Status, GroupBy::Priority, GroupBy::Type, GroupBy::Project, GroupBy::Assignee] {
            let (total, groups) = store.count_by(&filter, by).expect("count").value;
            let mut want: BTreeMap<Option<String>, usize> = BTreeMap::new();
            // Files without frontmatter (notes beside the issues) are not issues: not counted.
            for m in all.iter().filter(|m| m.frontmatter && matches(&filter, m)) {
                *want.entry(group_key(m, by)).or_default() += 1;
            }
            assert_eq!(total, want.values().sum::<usize>(), "{by:?} total of {filter:?}, {at}");
            assert_eq!(groups.into_iter().collect::<BTreeMap<_, _>>(), want, "{by:?} of {filter:?}, {at}");
        }
        let matching = naive(&all, &filter, SortField::Updated, SortOrder::Desc);
        let open: Vec<&str> = matching
            .iter()
            .filter(|m| matches!(m.status, Status::Open | Status::InProgress))
            .map(|m| m.path.to_str().expect("utf-8"))
            .collect();
        // Whole and cut to a first page: the count and the total stay those of the whole scope.
        for limit in [usize::MAX, 3] {
            let got = store.unfinished(&filter, limit, |m| m.path.clone()).expect("unfinished").value;
            assert_eq!(got.total, matching.len(), "all-complete total of {filter:?}, {at}");
            assert_eq!(got.count, open.len(), "incomplete count of {filter:?}, {at}");
            let rows: Vec<&str> = got.rows.iter().map(|p| p.to_str().expect("utf-8")).collect();
            assert_eq!(rows, open[..open.len().min(limit)], "incomplete issues of {filter:?}, {at}");
        }

        let sort = *[SortField::Updated, SortField::Created, SortField::Priority, SortField::Status, SortField::Id]
            .choose(rng)
            .expect("sorts");
        let order = if rng.random_bool(0.6) { SortOrder::Desc } else { SortOrder::Asc };
        let want = naive(&all, &filter, sort, order);
        let offset = if rng.random_bool(0.6) { 0 } else { rng.random_range(0..=want.len() + 3) };
        let limit = match rng.random_range(0..4) {
            0 => None,
            1 => Some(0),
            _ => Some(rng.random_range(1..30)),
        };
        check_search(rng, store, &filter, &at);
        let page = store.list_page(&filter, sort, order, offset, limit).expect("page").value;
        let end = limit.map_or(want.len(), |l| (offset + l).min(want.len()));
        let want_page: Vec<&str> = want
            .get(offset.min(want.len())..end.max(offset.min(want.len())))
            .unwrap_or_default()
            .iter()
            .map(|m| m.path.to_str().expect("utf-8"))
            .collect();
        let got: Vec<&str> = page.items.iter().map(|m| m.path.to_str().expect("utf-8")).collect();
        assert_eq!(page.total, want.len(), "total of {filter:?} {sort:?} {order:?}, {at}");
        assert_eq!(got, want_page, "page {offset}+{limit:?} of {filter:?} {sort:?} {order:?}, {at}");
    }
}

const QUERIES: &[&str] = &[
    "request",
    "fix",
    "fi",
    "hook",
    "login redirect",
    "ISS-000010",
    "10",
    "#12",
    "bug",
    "zzz",
    "random issue",
    "edited",
];

/// A page of ranked search hits against every hit sorted (score, newest update, ID, path).
fn check_search(rng: &mut StdRng, store: &Store, filter: &IssueFilter, at: &str) {
    let fields = match rng.random_range(0..3) {
        0 => vec![SearchField::Title, SearchField::Description, SearchField::Labels],
        1 => vec![SearchField::Title],
        _ => vec![SearchField::Labels, SearchField::Description],
    };
    let text = QUERIES.choose(rng).expect("queries").to_string();
    let q = SearchQuery { text, fields, filter: filter.clone() };
    let mut want = store.search(&q).expect("search").value;
    want.sort_by(docket_store::SearchHit::best_first);
    let offset = if rng.random_bool(0.7) { 0 } else { rng.random_range(0..=want.len() + 2) };
    let limit = rng.random_range(1..25);
    let page = store.search_page(&q, offset, limit).expect("search page").value;
    let shown = |hits: &[docket_store::SearchHit]| -> Vec<(String, u32)> {
        hits.iter().map(|h| (h.meta.path.display().to_string(), h.score)).collect()
    };
    let end = (offset + limit).min(want.len());
    assert_eq!(page.total, want.len(), "hits of {:?} with {filter:?}, {at}", q.text);
    assert_eq!(
        shown(&page.hits),
        shown(want.get(offset.min(end)..end).unwrap_or_default()),
        "page {offset}+{limit} of {:?} with {filter:?}, {at}",
        q.text
    );
}

/// Ready work as the store keeps it (its graph patched across changes where it can be) against
/// a store opened anew, whose graph is built from every issue.
/// Ready rows for `who`, counted by walking a page of every row (a filter that matches all, so
/// the kept count is not used).
fn rows_for(store: &Store, who: Option<&str>) -> usize {
    let all_types = IssueFilter { types: IssueType::ALL.to_vec(), ..IssueFilter::default() };
    let page = store.ready(&all_types, who, 0, usize::MAX).expect("ready").value;
    assert_eq!(page.total, page.issues.len());
    page.total
}

fn check_ready(store: &Store, dir: &std::path::Path, round: usize) {
    let rows = |s: &Store| -> Vec<(String, usize, usize)> {
        let r = s.ready(&IssueFilter::default(), None, 0, usize::MAX).expect("ready").value;
        r.issues.iter().map(|(m, n)| (m.path.display().to_string(), *n, r.open_blocked)).collect()
    };
    store.flush();
    let ws = docket_store::Workspace::at(dir).expect("ws");
    let fresh = Store::open(ws, StoreOptions { branch_aware_ids: false, ..StoreOptions::default() });
    assert_eq!(rows(store), rows(&fresh), "ready work, round {round}");
    for who in [None, Some("ann"), Some("bo"), Some("nobody")] {
        let total = |s: &Store| s.ready(&IssueFilter::default(), who, 0, 3).expect("ready").value.total;
        let counted = rows_for(&fresh, who);
        assert_eq!((total(store), total(&fresh)), (counted, counted), "ready total for {who:?}, round {round}");
    }
    for m in everything(&fresh) {
        let (kept, built) = (store.blockers(&m).expect("blockers"), fresh.blockers(&m).expect("blockers"));
        let view = |b: &docket_store::Blockers| (b.open.clone(), b.blocks.clone(), b.epic);
        assert_eq!(view(&kept), view(&built), "{}'s place in the graph, round {round}", m.id);
    }
}

fn run(seed: u64, issues: usize, steps: usize) {
    let dir = tempfile::tempdir().expect("tmp");
    let ws = generate_workspace(dir.path(), issues, seed);
    let store = Store::open(ws, StoreOptions { branch_aware_ids: false, ..StoreOptions::default() });
    let mut rng = StdRng::seed_from_u64(seed);
    check(&mut rng, &store, 0);
    for step in 1..=steps {
        change(&mut rng, &store, step);
        if step % 3 == 0 {
            check(&mut rng, &store, step);
            check_ready(&store, dir.path(), step);
        } else if step % 3 == 1 {
            // A warm graph, so the next change is taken in by a patch where it can be.
            store.ready(&IssueFilter::default(), None, 0, 1).expect("ready");
        }
    }
    // A new process starts from the snapshot and must derive the same.
    store.flush();
    drop(store);
    let ws = docket_store::Workspace::at(dir.path()).expect("ws");
    let again = Store::open(ws, StoreOptions { branch_aware_ids: false, ..StoreOptions::default() });
    check(&mut rng, &again, steps + 1);
}

#[test]
fn kept_counts_and_pages_equal_a_recount_and_a_full_sort() {
    for seed in [1, 2, 3] {
        run(seed, 150, 60);
    }
}

#[test]
fn bulk_changes_rebuild_the_orders_right() {
    // Over 256 files changed in one scan: the orders are rebuilt, not kept up to date.
    let dir = tempfile::tempdir().expect("tmp");
    let ws = generate_workspace(dir.path(), 400, 9);
    let store = Store::open(ws.clone(), StoreOptions { branch_aware_ids: false, ..StoreOptions::default() });
    let mut rng = StdRng::seed_from_u64(9);
    check(&mut rng, &store, 0);
    for m in everything(&store).iter().take(300) {
        let text = std::fs::read_to_string(&m.path).expect("read");
        std::fs::write(&m.path, text.replacen("status: open", "status: cancelled", 1)).expect("edit");
    }
    for round in 1..4 {
        check(&mut rng, &store, round);
    }
}

/// The changes the graph takes in without a rebuild, each checked against a store opened anew:
/// claims (open to in progress) of an issue that blocks another, of one that is blocked, and of
/// a child; creates, closes and deletes of issues nothing names.
#[test]
fn the_patched_work_graph_equals_one_built_anew() {
    let dir = tempfile::tempdir().expect("tmp");
    let ws = generate_workspace(dir.path(), 60, 5);
    let store = Store::open(ws, StoreOptions { branch_aware_ids: false, ..StoreOptions::default() });
    let issue = |title: &str, blocked_by: Vec<String>, parent: Option<&str>| {
        let mut context = serde_json::Map::new();
        if let Some(p) = parent {
            context.insert("parentTaskId".into(), p.into());
        }
        let new = NewIssue {
            title: title.into(),
            description: "-".into(),
            issue_type: IssueType::Issue,
            status: Status::Open,
            priority: Priority::High,
            labels: vec![],
            assignee: None,
            project: None,
            context,
            blocked_by,
        };
        store.create(new).expect("create").meta.id.clone()
    };
    let blocker = issue("Blocker", vec![], None);
    let blocked = issue("Blocked", vec![blocker.clone()], None);
    let epic = issue("Epic", vec![], None);
    let child = issue("Child", vec![], Some(&epic));
    let loose = issue("Loose", vec![], None);
    let steps: Vec<(&str, IssuePatch)> = vec![
        (&blocked, IssuePatch { status: Some(Status::InProgress), ..IssuePatch::default() }),
        (&blocker, IssuePatch { status: Some(Status::InProgress), ..IssuePatch::default() }),
        (&child, IssuePatch { status: Some(Status::InProgress), ..IssuePatch::default() }),
        (
            &blocked,
            IssuePatch { status: Some(Status::Open), assignee: Some(Some("ann".into())), ..IssuePatch::default() },
        ),
        (&loose, IssuePatch { priority: Some(Priority::Low), ..IssuePatch::default() }),
        (&loose, IssuePatch { status: Some(Status::Closed), ..IssuePatch::default() }),
        (&blocker, IssuePatch { status: Some(Status::Closed), ..IssuePatch::default() }),
    ];
    for (round, (id, patch)) in steps.into_iter().enumerate() {
        store.ready(&IssueFilter::default(), None, 0, 1).expect("a warm graph");
        store.update(id, patch).expect("update");
        check_ready(&store, dir.path(), round);
    }
    store.ready(&IssueFilter::default(), None, 0, 1).expect("a warm graph");
    let _ = issue("Created warm", vec![], None);
    check_ready(&store, dir.path(), 100);
    store.ready(&IssueFilter::default(), None, 0, 1).expect("a warm graph");
    store.delete(&loose).expect("delete");
    check_ready(&store, dir.path(), 101);
}

/// Edits made while no docket runs: some issues' update times rewritten (so their place in the
/// list order moves), some files deleted, some copied under new IDs.
fn edit_between_processes(rng: &mut StdRng, dir: &std::path::Path, round: usize) {
    let folder = dir.join(".docket/issues");
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(&folder)
        .expect("issues folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    for (k, path) in files.choose_multiple(rng, 30).enumerate() {
        let Ok(text) = std::fs::read_to_string(path) else { continue };
        match k % 10 {
            0 => std::fs::remove_file(path).expect("delete"),
            1 => {
                let id = format!("NEW-{round}{k:03}");
                let copy = text.replacen("id: ISS-", &format!("id: {id}\nformerly: ISS-"), 1);
                std::fs::write(folder.join(format!("{id}-copy.md")), copy).expect("copy");
            }
            _ => {
                let day = rng.random_range(1..29);
                let edited: String = text
                    .lines()
                    .map(|l| match l.starts_with("updatedAt:") {
                        true => format!("updatedAt: '2026-1{}-{day:02}T00:00:00.000Z'\n", round % 3),
                        false => format!("{l}\n"),
                    })
                    .collect();
                std::fs::write(path, edited).expect("edit");
            }
        }
    }
}

#[test]
fn a_new_process_merges_outside_edits_into_the_snapshots_order() {
    // Over 200 issues, so each process leaves a snapshot whose list order the next one starts
    // from; the files changed between the two are merged into it.
    let dir = tempfile::tempdir().expect("tmp");
    let ws = generate_workspace(dir.path(), 400, 11);
    let mut rng = StdRng::seed_from_u64(11);
    for round in 0..4 {
        let store = Store::open(ws.clone(), StoreOptions { branch_aware_ids: false, ..StoreOptions::default() });
        check(&mut rng, &store, round);
        for step in 0..6 {
            change(&mut rng, &store, 1000 * round + step);
        }
        check(&mut rng, &store, round);
        store.flush();
        assert!(dir.path().join(".docket/cache/index.bin").exists(), "a snapshot, round {round}");
        drop(store);
        edit_between_processes(&mut rng, dir.path(), round);
    }
}
