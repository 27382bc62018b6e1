//! Counts that change when a maintainer adds a tool are written in one place, docs/tools.md, which
//! `cargo run -p codegen -- docs` generates from tools.yaml (the tool count, the groups, the
//! tools/list budgets) and CI keeps current (`docs --check`). The hand-written docs point there,
//! and measured sizes go to docs/benchmarks.md with their date. This test fails on a count of
//! tools or a tools/list total written anywhere else in README.md or docs/, before it goes stale.

use std::path::{Path, PathBuf};

/// wrangler's tools: a fixed number (docket keeps all 18 names), not a count of docket's.
const WRANGLER_TOOLS: usize = 18;

fn manifest() -> codegen::model::Model {
    codegen::load("tools.yaml", include_str!("../tools.yaml")).unwrap_or_else(|diags| {
        panic!("tools.yaml: {}", diags.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))
    })
}

/// README.md and docs/*.md, without the generated reference and the dated measurements
/// (benchmarks.md and benchmarks-history.md).
fn hand_written() -> Vec<(PathBuf, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs")).expect("docs/") {
        let path = entry.expect("entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if path.extension().is_some_and(|e| e == "md") && name != "tools.md" && !name.starts_with("benchmarks") {
            files.push(path);
        }
    }
    files.sort();
    files.into_iter().map(|p| (p.clone(), std::fs::read_to_string(&p).expect("read"))).collect()
}

/// The numbers in `text` written before `word` ("25 tools"), with their line numbers.
fn counts_before(text: &str, word: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        for pair in words.windows(2) {
            let next = pair[1].trim_end_matches(|c: char| !c.is_alphanumeric());
            if next == word
                && let Ok(n) = pair[0].replace(',', "").parse::<usize>()
            {
                out.push((i + 1, n));
            }
        }
    }
    out
}

/// A number of 1,000 or more: a tools/list total (per-tool budgets are in the hundreds).
fn totals_in(paragraph: &str) -> Vec<String> {
    paragraph
        .split(|c: char| !(c.is_ascii_digit() || c == ','))
        .map(|w| w.trim_matches(','))
        .filter(|w| w.replace(',', "").parse::<usize>().is_ok_and(|n| n >= 1000))
        .map(str::to_string)
        .collect()
}

#[test]
fn no_hand_written_doc_counts_the_tools() {
    let model = manifest();
    let allowed = [WRANGLER_TOOLS, model.groups.len()];
    let mut stale = Vec::new();
    for (path, text) in hand_written() {
        for (line, n) in counts_before(&text, "tools") {
            if !allowed.contains(&n) {
                stale.push(format!("{}:{line}: {n} tools", path.display()));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "docket has {} tools; write the count nowhere but docs/tools.md (generated), and point there: {stale:?}",
        model.tools.len()
    );
}

#[test]
fn no_hand_written_doc_states_a_tools_list_total() {
    let mut stale = Vec::new();
    for (path, text) in hand_written() {
        for paragraph in text.split("\n\n").filter(|p| p.contains("tools/list")) {
            for total in totals_in(paragraph) {
                let head: String = paragraph.chars().take(60).collect();
                stale.push(format!("{}: {total} in “{head}…”", path.display()));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "tools/list totals go stale when a tool is added: the budgets are at the top of docs/tools.md \
         (generated from server.tools_list_tokens), the measured sizes in docs/benchmarks.md: {stale:?}"
    );
}

/// The checks above find what they look for (so an empty result means something).
#[test]
fn the_checks_see_counts_and_totals() {
    assert_eq!(counts_before("served: 25 tools, and 4 tools.", "tools"), [(1, 25), (1, 4)]);
    assert_eq!(totals_in("costs 2,699 tokens, budget 185, or 13067"), ["2,699", "13067"]);
    let generated = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/tools.md")).expect("tools.md");
    let n = manifest().tools.len();
    assert!(counts_before(&generated, "tools").contains(&(5, n)), "docs/tools.md states the tool count ({n})");
}
