//! Any bytes as an issue file: the store never panics on it, lists it or skips it with a
//! SKIPPED_FILES warning (leaving it byte-for-byte alone), and a file it accepts survives a
//! rewrite with its title, labels and body unchanged.
#![no_main]

use docket::store::{IssueFilter, IssuePatch, IssueType, SortField, SortOrder, Store, StoreOptions, Workspace};
use libfuzzer_sys::fuzz_target;

thread_local! {
    static WORKSPACE: (tempfile::TempDir, Workspace) = {
        let dir = tempfile::tempdir().expect("temp dir");
        let ws = Workspace::init(dir.path()).expect("workspace");
        (dir, ws)
    };
}

fuzz_target!(|data: &[u8]| {
    WORKSPACE.with(|(_, ws)| {
        for (_, dir) in ws.issue_dirs() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        let path = ws.collection(IssueType::Issue).join("ISS-000001-fuzz.md");
        std::fs::write(&path, data).expect("write the input");
        let store = Store::open(ws.clone(), StoreOptions { cache: false, ..StoreOptions::default() });
        let all = IssueFilter::default();
        let listed = store.list(&all, SortField::Id, SortOrder::Asc).expect("a bad file never fails a list");
        let Some(meta) = listed.value.first().cloned() else {
            assert!(listed.warnings.iter().any(|w| w.code == "SKIPPED_FILES"), "an unlisted file is reported");
            assert_eq!(std::fs::read(&path).expect("read"), data, "a skipped file is never rewritten");
            return;
        };
        // An id from the frontmatter may be unusable (e.g. `../x`): then it is refused, not resolved.
        let Ok(before) = store.get(&meta.id) else { return };
        let before = before.value;
        if let Ok(after) = store.update(&meta.id, IssuePatch::default()) {
            let reread = store.get(&after.meta.id).expect("a rewritten file reads back").value;
            assert_eq!(reread.meta.title, before.meta.title);
            assert_eq!(reread.meta.labels, before.meta.labels);
            assert_eq!(reread.meta.status, before.meta.status);
            assert_eq!(reread.body, before.body);
        }
    });
});
