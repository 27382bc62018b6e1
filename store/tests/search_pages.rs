//! A page of search hits (issue 30) against every hit sorted, for queries of one word with no
//! filter: the path that ranks hits by where the word occurs without offering each to a heap.
//! Issues hold the word (or words it is a prefix of, or holds inside) in their titles, labels
//! and bodies in every mix, with update times that tie, and files rewritten between searches
//! leave dead slots behind.

use std::path::Path;

use docket_store::{SearchField, SearchHit, SearchQuery, Store, StoreOptions, Workspace};
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

const TITLES: &[&str] = &["Alpha", "Alphabet soup", "Alpha beta", "Gamma ray", "Delta alpha gamma", "Plain"];
const LABELS: &[&str] = &["alpha", "alphas", "ops", "gamma"];
const WORDS: &[&str] = &["alpha", "alphas", "alphanumeric", "gamma", "request", "the", "zeta"];
const QUERIES: &[&str] = &["alpha", "alph", "alphas", "gamma", "request", "a", "lph", "zzz", "ops", "the"];

fn write_issue(rng: &mut StdRng, dir: &Path, n: usize) {
    let title = TITLES.choose(rng).expect("titles");
    let labels: Vec<&str> = LABELS.iter().copied().filter(|_| rng.random_bool(0.3)).collect();
    let body: Vec<&str> = (0..rng.random_range(0..12)).map(|_| *WORDS.choose(rng).expect("words")).collect();
    // Few distinct update times, so most ties fall to the ID.
    let text = format!(
        "---\nid: ISS-{n:06}\ntitle: {title} {n}\ntype: issue\nstatus: open\npriority: medium\nlabels: [{}]\ncreatedAt: '2026-01-01T00:00:00.000Z'\nupdatedAt: '2026-0{}-0{}T00:00:00.000Z'\n---\n{}\n",
        labels.join(", "),
        rng.random_range(1..4),
        rng.random_range(1..4),
        body.join(" "),
    );
    std::fs::write(dir.join(format!("ISS-{n:06}-x.md")), text).expect("write");
}

fn check(rng: &mut StdRng, store: &Store, round: usize) {
    let mut field_sets = vec![
        vec![SearchField::Title, SearchField::Description, SearchField::Labels],
        vec![SearchField::Title],
        vec![SearchField::Labels, SearchField::Description],
    ];
    let mut queries = QUERIES.to_vec();
    // Every other round backwards, so a round's first search is the last one before the
    // files changed (the marks a page keeps for the next page of the same word must go).
    if round % 2 == 1 {
        field_sets.reverse();
        queries.reverse();
    }
    for text in queries {
        for fields in field_sets.clone() {
            let q = SearchQuery { text: text.to_string(), fields: fields.clone(), filter: Default::default() };
            let mut want = store.search(&q).expect("search").value;
            want.sort_by(SearchHit::best_first);
            let shown = |hits: &[SearchHit]| -> Vec<(String, u32)> {
                hits.iter().map(|h| (h.meta.id.clone(), h.score)).collect()
            };
            let mut pages = vec![(0, 1), (0, 20), (0, want.len() + 5), (want.len(), 3)];
            pages.extend((0..6).map(|_| (rng.random_range(0..=want.len() + 2), rng.random_range(1..60))));
            for (offset, limit) in pages {
                let page = store.search_page(&q, offset, limit).expect("search page").value;
                let end = (offset + limit).min(want.len());
                let at = format!("{text:?} in {fields:?}, page {offset}+{limit}, round {round}");
                assert_eq!(page.total, want.len(), "hits of {at}");
                assert_eq!(shown(&page.hits), shown(want.get(offset.min(end)..end).unwrap_or_default()), "{at}");
            }
        }
    }
}

#[test]
fn one_word_pages_equal_the_same_slice_of_every_hit_sorted() {
    let dir = tempfile::tempdir().expect("tmp");
    let issues = dir.path().join(".docket/issues");
    std::fs::create_dir_all(&issues).expect("folder");
    let mut rng = StdRng::seed_from_u64(30);
    for n in 1..=600 {
        write_issue(&mut rng, &issues, n);
    }
    let ws = Workspace::at(dir.path()).expect("workspace");
    let store = Store::open(ws, StoreOptions { branch_aware_ids: false, ..StoreOptions::default() });
    for round in 0..3 {
        check(&mut rng, &store, round);
        // Rewritten and deleted outside docket: their old slots die.
        for _ in 0..40 {
            let n = rng.random_range(1..=600);
            write_issue(&mut rng, &issues, n);
        }
        for _ in 0..5 {
            let _ = std::fs::remove_file(issues.join(format!("ISS-{:06}-x.md", rng.random_range(1..=600))));
        }
    }
}

#[test]
fn a_page_after_many_changes_to_files_that_are_not_issues_still_holds_every_hit() {
    // 300 files whose frontmatter does not parse sit beside the issues; editing them all is over
    // 256 changes in one scan, which drops the list orders (and must drop the search ranks
    // taken from them) although no issue changed.
    let dir = tempfile::tempdir().expect("tmp");
    let issues = dir.path().join(".docket/issues");
    std::fs::create_dir_all(&issues).expect("folder");
    let mut rng = StdRng::seed_from_u64(31);
    for n in 1..=300 {
        write_issue(&mut rng, &issues, n);
    }
    let broken = |round: usize| {
        for n in 0..300 {
            let text = format!("---\ntitle: [unclosed {round}\n---\nNot an issue.\n");
            std::fs::write(issues.join(format!("broken-{n}.md")), text).expect("broken");
        }
    };
    broken(0);
    let ws = Workspace::at(dir.path()).expect("workspace");
    // Every call scans every folder, as the safety net after the change watcher does.
    let options = StoreOptions { branch_aware_ids: false, ttl: std::time::Duration::ZERO, ..StoreOptions::default() };
    let store = Store::open(ws, options);
    let q = SearchQuery {
        text: "alpha".into(),
        fields: vec![SearchField::Title, SearchField::Description],
        filter: Default::default(),
    };
    let before = store.search_page(&q, 0, 1000).expect("search").value;
    assert!(before.total > 50, "{}", before.total);
    broken(1);
    let after = store.search_page(&q, 0, 1000).expect("search").value;
    assert_eq!(after.total, before.total);
    assert_eq!(after.hits.len(), before.hits.len(), "every hit on the page, not only the count");
}
