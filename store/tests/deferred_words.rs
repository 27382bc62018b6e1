//! The full-text index of a first start (issue 30): a scan with no snapshot enters the issues
//! without their words, and the snapshot's writer (at once, on a thread of its own) or the first
//! search reads them in one more pass. Whatever happens before, during or after that pass
//! (writes, edits made outside docket, searches from several threads at once), every search must
//! give what a store without a cache, which reads every word on every call, gives. That the scan
//! leaves the words out is checked without the writer's thread in `index::scan`'s tests.

use std::path::Path;
use std::sync::Arc;

use docket_store::generate::generate_workspace;
use docket_store::{
    IssueFilter, IssuePatch, IssueType, NewIssue, Priority, SearchField, SearchQuery, SortField, SortOrder, Status,
    Store, StoreOptions, Workspace,
};

fn open(dir: &Path) -> Store {
    let ws = Workspace::at(dir).expect("workspace");
    Store::open(ws, StoreOptions { branch_aware_ids: false, ..StoreOptions::default() })
}

fn hits(store: &Store, text: &str) -> Vec<(String, u32)> {
    let fields = vec![SearchField::Title, SearchField::Description, SearchField::Labels];
    let q = SearchQuery { text: text.into(), fields, filter: IssueFilter::default() };
    let page = store.search_page(&q, 0, 10_000).expect("search").value;
    page.hits.iter().map(|h| (h.meta.id.clone(), h.score)).collect()
}

fn first_list(store: &Store) -> usize {
    store.list_page(&IssueFilter::default(), SortField::Updated, SortOrder::Desc, 0, Some(5)).expect("list").value.total
}

fn new_issue(title: &str, body: &str) -> NewIssue {
    NewIssue {
        title: title.into(),
        description: body.into(),
        issue_type: IssueType::Issue,
        status: Status::Open,
        priority: Priority::Medium,
        labels: vec![],
        assignee: None,
        project: None,
        context: Default::default(),
        blocked_by: vec![],
    }
}

const WORDS: &[&str] = &["request", "fix", "webhook", "quokka", "platypus", "numbat", "zzz", "wombat"];

#[test]
fn words_left_out_of_a_first_scan_come_back_through_writes_and_outside_edits() {
    let dir = tempfile::tempdir().expect("tmp");
    generate_workspace(dir.path(), 600, 4);
    let store = open(dir.path());
    assert_eq!(first_list(&store), 600);

    // Before any search (and most likely before or during the pass): a create, an update and an
    // outside edit, each with words of its own.
    let created = store.create(new_issue("Quokka sightings", "A platypus was seen too.")).expect("create").meta.id;
    let all = store.list_page(&IssueFilter::default(), SortField::Id, SortOrder::Asc, 0, None).expect("all").value;
    let (updated, edited) = (all.items[10].clone(), all.items[20].clone());
    store
        .update(&updated.id, IssuePatch { description: Some("Now about a numbat.".into()), ..Default::default() })
        .expect("update");
    let text = std::fs::read_to_string(&edited.path).expect("read");
    let body_at = text.find("\n---\n").expect("frontmatter") + 5;
    std::fs::write(&edited.path, format!("{}A wombat, edited by hand.\n", &text[..body_at])).expect("edit");

    let found = hits(&store, "quokka");
    assert!(!store.words_pending(), "a search waits for the pass");
    assert_eq!(found.first().map(|h| h.0.as_str()), Some(created.as_str()), "{found:?}");
    let ids = |word: &str| hits(&store, word).into_iter().map(|h| h.0).collect::<Vec<_>>();
    assert_eq!(ids("numbat"), [updated.id.as_str()]);
    assert_eq!(ids("wombat"), [edited.id.as_str()]);
    assert!(!hits(&store, "request").iter().any(|h| h.0 == updated.id || h.0 == edited.id), "their old words are gone");

    // A store that had every word from the start (it reads the snapshot this one leaves).
    store.flush();
    let again = open(dir.path());
    assert!(!again.words_pending(), "a snapshot holds the words");
    for word in WORDS {
        assert_eq!(hits(&store, word), hits(&again, word), "hits of {word:?}");
    }
    // And one without a cache, which reads every file with its words on every call.
    let ws = Workspace::at(dir.path()).expect("workspace");
    let eager = Store::open(ws, StoreOptions { cache: false, branch_aware_ids: false, ..StoreOptions::default() });
    for word in WORDS {
        assert_eq!(hits(&store, word), hits(&eager, word), "hits of {word:?}, read anew");
    }
}

#[test]
fn searches_from_several_threads_wait_for_one_pass() {
    let dir = tempfile::tempdir().expect("tmp");
    generate_workspace(dir.path(), 800, 5);
    let store = Arc::new(open(dir.path()));
    assert_eq!(first_list(&store), 800);
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let store = Arc::clone(&store);
            std::thread::spawn(move || {
                let word = WORDS[i % 3];
                (word, hits(&store, word))
            })
        })
        .collect();
    let results: Vec<_> = threads.into_iter().map(|t| t.join().expect("thread")).collect();
    for (word, got) in results {
        assert!(!got.is_empty(), "{word} is in the generated texts");
        assert_eq!(got, hits(&store, word), "{word}");
    }
}

#[test]
fn the_snapshot_writer_makes_the_pass_when_no_search_comes() {
    let dir = tempfile::tempdir().expect("tmp");
    generate_workspace(dir.path(), 500, 6);
    let store = open(dir.path());
    assert_eq!(first_list(&store), 500);
    store.wait_for_snapshot();
    assert!(!store.words_pending(), "the writer read the words before it wrote");
    assert!(dir.path().join(".docket/cache/index.bin").exists());
    let again = open(dir.path());
    assert_eq!(hits(&again, "request"), hits(&store, "request"));
}
