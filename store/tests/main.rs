//! The store's integration tests, against docket-store alone (no server, no MCP): one test
//! crate, as docket's tests/main.rs is. Each file of store/tests/ is a module here; run one with
//! `cargo test -p docket-store --test store MODULE::`.
//!
//! `autotests = false` in store/Cargo.toml: a new store/tests/NAME.rs must be declared below, and
//! `every_test_file_is_declared_here` fails until it is.

mod common;

mod deferred_words;
mod kept_orders;
mod search_pages;
mod workspace;

/// A file of store/tests/ that this crate does not declare would never be compiled nor run.
#[test]
fn every_test_file_is_declared_here() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let this = std::fs::read_to_string(dir.join("main.rs")).expect("read store/tests/main.rs");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("read store/tests/") {
        let path = entry.expect("entry").path();
        let Some(name) = path.file_stem().and_then(|s| s.to_str()) else { continue };
        if path.extension().is_some_and(|e| e == "rs") && name != "main" && !this.contains(&format!("\nmod {name};\n"))
        {
            missing.push(name.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "store/tests/ files that store/tests/main.rs does not declare (add `mod NAME;`): {missing:?}"
    );
}
