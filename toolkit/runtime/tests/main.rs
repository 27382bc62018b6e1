//! The runtime's integration tests: one test crate, as docket's tests/main.rs is, so rmcp and
//! tokio are linked into one test binary, not one per file. Each file of toolkit/runtime/tests/
//! is a module here; run one with `cargo test -p toolkit-runtime --test runtime MODULE::`.
//!
//! `autotests = false` in toolkit/runtime/Cargo.toml: a new tests/NAME.rs must be declared below,
//! and `every_test_file_is_declared_here` fails until it is.

mod golden_compiles;
mod inner_and_stdio;

/// A file of toolkit/runtime/tests/ that this crate does not declare would never be compiled nor run.
#[test]
fn every_test_file_is_declared_here() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let this = std::fs::read_to_string(dir.join("main.rs")).expect("read toolkit/runtime/tests/main.rs");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("read toolkit/runtime/tests/") {
        let path = entry.expect("entry").path();
        let Some(name) = path.file_stem().and_then(|s| s.to_str()) else { continue };
        if path.extension().is_some_and(|e| e == "rs") && name != "main" && !this.contains(&format!("\nmod {name};\n"))
        {
            missing.push(name.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "toolkit/runtime/tests/ files that its main.rs does not declare (add `mod NAME;`): {missing:?}"
    );
}
