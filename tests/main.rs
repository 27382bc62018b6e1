//! docket's integration tests: one test crate, so the application and its dev-dependencies are
//! linked once, not once per file (53 binaries of about 100 MB each before; see
//! docs/benchmarks.md, "One test crate"). Each file of tests/ is a module here; run one with
//! `cargo test --test integration MODULE::` (e.g. `cargo test --test integration issue_tools::`).
//!
//! `autotests = false` in Cargo.toml: a new tests/NAME.rs must be declared below, and
//! `every_test_file_is_declared_here` fails until it is.

mod common;

mod abuse;
mod agents;
mod architecture;
mod browser;
mod chains;
mod claims_network;
mod claims_outside_git;
mod claims_scale;
mod cli;
mod cli_daily;
mod cli_work;
mod compatibility;
mod config;
mod consolidated;
mod crash;
mod deferred_words;
mod doc_counts;
mod error_intelligence;
mod escape;
mod example_server;
mod fifth_ring;
mod generated;
mod hostile_files;
mod hostile_hooks;
mod http;
mod import;
mod import_finished;
mod input_schemas;
mod issue_tools;
mod kept_orders;
mod leases;
mod limits;
mod lossless;
mod merge_hooks;
mod one_shot;
mod output_schemas;
mod polish;
mod protocol_errors;
mod published_limits;
mod races;
mod reading;
mod remote_claims;
mod resources;
mod search_index;
mod search_pages;
mod search_ranking;
mod session_tools;
mod soak;
mod start_anywhere;
mod stdio_server;
mod store_workspace;
mod teams;
mod terminal;
mod token_budget;
mod tombstones;
mod tool_budgets;
mod web;
mod work_graph;
mod worktrees;
mod wrangler_compat;
mod wrangler_docs;
mod wrangler_dropin;
mod wrangler_facts;
mod write_caps;

/// A file of tests/ that this crate does not declare would never be compiled nor run.
#[test]
fn every_test_file_is_declared_here() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let this = std::fs::read_to_string(dir.join("main.rs")).expect("read tests/main.rs");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("read tests/") {
        let path = entry.expect("entry").path();
        let Some(name) = path.file_stem().and_then(|s| s.to_str()) else { continue };
        if path.extension().is_some_and(|e| e == "rs") && name != "main" && !this.contains(&format!("\nmod {name};\n"))
        {
            missing.push(name.to_string());
        }
    }
    assert!(missing.is_empty(), "tests/ files that tests/main.rs does not declare (add `mod NAME;`): {missing:?}");
}
