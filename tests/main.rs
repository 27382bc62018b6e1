//! docket's integration tests: one test crate, so the application and its dev-dependencies are
//! linked once, not once per file (53 binaries of about 100 MB each before; see
//! docs/benchmarks.md, "One test crate"). The tests are grouped by the room they drive (`mcp/`,
//! `cli/`, `web/`, `teams/`, `wrangler/`, `limits/`, `hostile/`), each folder a module with a
//! mod.rs; run one file's tests with `cargo test --test integration MODULE::` (a filter matches
//! inside the name, so `issue_tools::` runs `mcp::issue_tools::…`, and `teams::` a whole room).
//! The store's own tests, which need no server, are in store/tests.
//!
//! `autotests = false` in Cargo.toml: a new file must be declared, in its room's mod.rs (a new
//! room or a file of no room below), and `every_test_file_is_declared_here` fails until it is.

mod common;

// The rooms the tests drive, each a folder with a mod.rs that declares its files.
mod cli;
mod hostile;
mod limits;
mod mcp;
mod teams;
mod web;
mod wrangler;

// The house's own checks, of no one room: the module graph of every crate, the counts docs/tools.md
// holds, and what tools/list costs (docs/tools.md, generated, names tests/tool_budgets.rs).
mod architecture;
mod doc_counts;
mod tool_budgets;

// The toolkit's example server (toolkit/examples/bookmarks), in docket's test crate for now.
mod example_server;

// The stdio abuse cases are reused against other stdio servers (`crate::abuse_stdio::malformed_lines`).
#[allow(unused_imports)]
use hostile::abuse_stdio;

/// A file of tests/ that this crate does not declare would never be compiled nor run: each file
/// of tests/ is declared here, and each file of a room's folder in the room's mod.rs.
#[test]
fn every_test_file_is_declared_here() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut missing = Vec::new();
    let mut check = |folder: &std::path::Path, declared_in: &str| {
        let this = std::fs::read_to_string(folder.join(declared_in)).expect("read the declaring file");
        let mut names = Vec::new();
        for entry in std::fs::read_dir(folder).expect("read the folder") {
            let path = entry.expect("entry").path();
            let Some(name) = path.file_stem().and_then(|s| s.to_str()).map(str::to_string) else { continue };
            let file = path.extension().is_some_and(|e| e == "rs") && !["main", "mod"].contains(&name.as_str());
            // A room: a folder with a mod.rs (common/ is the helpers' folder, declared the same way).
            let room = folder == dir && path.join("mod.rs").is_file();
            if (file || room)
                && !this.contains(&format!("\nmod {name};\n"))
                && !this.contains(&format!("\npub(crate) mod {name};\n"))
            {
                missing.push(format!("{}/{name}", folder.strip_prefix(&dir).unwrap_or(folder).display()));
            }
            if room && name != "common" {
                names.push(path);
            }
        }
        names
    };
    for room in check(&dir, "main.rs") {
        check(&room, "mod.rs");
    }
    assert!(
        missing.is_empty(),
        "files and rooms of tests/ that tests/main.rs or their room's mod.rs does not declare (add `mod NAME;`): {missing:?}"
    );
}
