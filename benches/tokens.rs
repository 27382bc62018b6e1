//! Tokens the model sees, through tools only, in each of the two views (the text blocks alone;
//! structuredContent alone as compact JSON, as `JSON.stringify` writes it), for docket's
//! granular and consolidated profiles and, when `WRANGLER_BUNDLE` names wrangler's
//! `mcp/dist/bundle.cjs`, for wrangler's own server run with `node` on a copy of the same
//! workspace. Three workflows (issue 25):
//!
//! * **thin**: issue 13's standard workflow (list 20 minimal, search, get one, update 10, stats)
//!   on a generated workspace (1,000 issues unless a size is given);
//! * **spec review**: five generated specifications of 10-12k tokens each among 200 generated
//!   issues: list the specifications, then read each to find its acceptance criteria (wrangler:
//!   five whole issues_get; docket: the five outlines, then the five acceptance criteria sections,
//!   each one issues_get_batch);
//! * **title match**: the title gives the spec away: list, then read that one (docket: its outline
//!   and its acceptance criteria);
//!
//! and, when `DOCKET_REAL_FIXTURE` names a wrangler workspace (as for the tests), its five
//! largest specifications read whole (wrangler)
//! against their outlines plus one section (docket). Prints markdown tables; asserts nothing.
//!
//! Run: `cargo bench --bench tokens` (Cargo builds `target/release/docket` first); token counts do
//! not depend on the build profile, so `DOCKET_BIN=target/debug/docket cargo bench --bench tokens
//! --profile dev` is quicker; another size for the thin workflow: `cargo bench --bench tokens -- 10000`.

// Shared with benches/stdio.rs, which uses the timings and memory figures this bench does not.
#[allow(dead_code)]
mod common;

#[path = "tokens/specs.rs"]
mod specs;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Server, structured_tokens, text_tokens};
use serde_json::{Value, json};

const SEED: u64 = 42;
const SEARCH_WORD: &str = "webhook";

/// Which server, and how its tools are named.
#[derive(Clone, Copy, PartialEq)]
pub enum Subject {
    Granular,
    Consolidated,
    Wrangler,
}

impl Subject {
    pub fn label(self) -> &'static str {
        match self {
            Subject::Granular => "docket granular",
            Subject::Consolidated => "docket consolidated",
            Subject::Wrangler => "wrangler",
        }
    }

    pub fn start(self, bin: &Path, workspace: &Path, bundle: Option<&Path>) -> Server {
        let mut command = match (self, bundle) {
            (Subject::Wrangler, Some(bundle)) => {
                let mut c = Command::new("node");
                c.arg(bundle).current_dir(workspace).env("WRANGLER_WORKSPACE_ROOT", workspace);
                c
            }
            _ => {
                let mut c = Command::new(bin);
                c.args(["serve", "--workspace"]).arg(workspace);
                if self == Subject::Consolidated {
                    c.args(["--tool-style", "consolidated"]);
                }
                c
            }
        };
        command.env_remove("DOCKET_WORKSPACE");
        Server::spawn(command).0
    }

    /// The tool and arguments for a granular tool name (consolidated: group + action).
    pub fn call(self, server: &mut Server, tool: &str, mut args: Value) -> Value {
        let name = match (self, tool.split_once('_')) {
            (Subject::Consolidated, Some((group, action))) => {
                args["action"] = json!(action);
                group.to_string()
            }
            _ => tool.to_string(),
        };
        server.call(&name, args).result
    }
}

/// Token counts of one step: (text view, structured view). wrangler sends no structuredContent,
/// so a structured-view client shows its text.
pub fn cost(subject: Subject, result: &Value) -> (usize, usize) {
    let text = text_tokens(result);
    let structured = if subject == Subject::Wrangler { text } else { structured_tokens(result) };
    (text, structured)
}

/// IDs in a result, in order of appearance (records, rows or plain text).
pub fn ids_in(result: &Value) -> Vec<String> {
    let text: String = result["content"].as_array().into_iter().flatten().filter_map(|b| b["text"].as_str()).collect();
    let mut ids: Vec<String> = Vec::new();
    for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
        let is_id = word.split_once('-').is_some_and(|(p, n)| {
            ["ISS", "SPEC", "IDEA"].contains(&p) && n.len() == 6 && n.bytes().all(|b| b.is_ascii_digit())
        });
        if is_id && !ids.iter().any(|i| i == word) {
            ids.push(word.to_string());
        }
    }
    ids
}

/// The workflow's steps and their costs for one subject.
fn workflow(subject: Subject, bin: &Path, workspace: &Path, bundle: Option<&Path>) -> Vec<(String, (usize, usize))> {
    let mut server = subject.start(bin, workspace, bundle);
    let mut steps = Vec::new();
    let list = subject.call(&mut server, "issues_list", json!({"format": "minimal", "limit": 20}));
    steps.push(("issues_list minimal, 20 rows".to_string(), cost(subject, &list)));
    let search = subject.call(&mut server, "issues_search", json!({"query": SEARCH_WORD}));
    steps.push((format!("issues_search \"{SEARCH_WORD}\", first page"), cost(subject, &search)));
    let first_hit = ids_in(&search).into_iter().next().expect("the search finds something");
    let get = match subject {
        Subject::Wrangler => subject.call(&mut server, "issues_get", json!({"id": first_hit})),
        _ => subject.call(
            &mut server,
            "issues_get",
            json!({"id": first_hit, "fields": ["title", "status", "description"]}),
        ),
    };
    steps.push(("issues_get, fields title, status, description".to_string(), cost(subject, &get)));
    let open = subject.call(&mut server, "issues_list", json!({"status": ["open"], "format": "minimal", "limit": 10}));
    let ten: Vec<String> = ids_in(&open).into_iter().take(10).collect();
    if subject == Subject::Wrangler {
        let mut sum = (0, 0);
        for id in &ten {
            let r = subject.call(&mut server, "issues_update", json!({"id": id, "status": "in_progress"}));
            let (t, s) = cost(subject, &r);
            sum = (sum.0 + t, sum.1 + s);
        }
        steps.push(("update 10 (wrangler: 10 issues_update)".to_string(), sum));
        steps.push(("issues_stats by status (wrangler: none)".to_string(), (0, 0)));
    } else {
        let updates: Vec<Value> = ten.iter().map(|id| json!({"id": id, "status": "in_progress"})).collect();
        let batch = subject.call(&mut server, "issues_update_batch", json!({"updates": updates}));
        steps.push(("update 10 (wrangler: 10 issues_update)".to_string(), cost(subject, &batch)));
        let stats = subject.call(&mut server, "issues_stats", json!({"groupBy": "status"}));
        steps.push(("issues_stats by status (wrangler: none)".to_string(), cost(subject, &stats)));
    }
    steps
}

/// A fresh copy of `from` for one subject (the workflow writes), with wrangler's folder name.
pub fn copy_of(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    let status = Command::new("cp").arg("-R").arg(from).arg(to).status().expect("cp");
    assert!(status.success(), "cannot copy the workspace");
    let docket = to.join(".docket");
    if docket.exists() {
        std::fs::rename(&docket, to.join(".wrangler")).expect("rename to .wrangler");
    }
}

fn main() {
    let bin = std::env::var_os("DOCKET_BIN").map_or_else(|| env!("CARGO_BIN_EXE_docket").into(), PathBuf::from);
    let bundle = std::env::var_os("WRANGLER_BUNDLE").map(PathBuf::from);
    let n: usize = std::env::args().skip(1).find_map(|a| a.replace([',', '_'], "").parse().ok()).unwrap_or(1_000);
    let dir = tempfile::tempdir().expect("tmp");
    let source = dir.path().join("generated");
    docket::store::generate::generate_workspace(&source, n, SEED);

    let mut subjects = vec![Subject::Granular, Subject::Consolidated];
    match &bundle {
        Some(_) => subjects.push(Subject::Wrangler),
        None => eprintln!("WRANGLER_BUNDLE is not set: wrangler's column is left out"),
    }
    let mut columns = Vec::new();
    for subject in &subjects {
        let ws = dir.path().join(subject.label().replace(' ', "-"));
        copy_of(&source, &ws);
        columns.push(workflow(*subject, &bin, &ws, bundle.as_deref()));
    }

    println!("\nTokens the model sees (o200k_base), the thin workflow (issue 13) on {n} generated issues\n");
    let mut header = String::from("| call |");
    let mut rule = String::from("|---|");
    for s in &subjects {
        header += &format!(" {}: text | structured |", s.label());
        rule += "---:|---:|";
    }
    println!("{header}\n{rule}");
    for (i, (label, _)) in columns[0].iter().enumerate() {
        let cells: String = columns.iter().map(|c| format!(" {} | {} |", c[i].1.0, c[i].1.1)).collect();
        println!("| {label} |{cells}");
    }
    let totals: Vec<(usize, usize)> =
        columns.iter().map(|c| c.iter().fold((0, 0), |(t, s), (_, (a, b))| (t + a, s + b))).collect();
    let cells: String = totals.iter().map(|(t, s)| format!(" **{t}** | **{s}** |")).collect();
    println!("| **workflow total** |{cells}");
    if let (Some(w), true) = (totals.last(), bundle.is_some()) {
        for (s, (t, st)) in subjects.iter().zip(&totals).take(2) {
            println!(
                "\n{}: text {}% and structured {}% of wrangler's {} tokens",
                s.label(),
                100 * t / w.0.max(1),
                100 * st / w.0.max(1),
                w.0
            );
        }
    }
    specs::run(&bin, bundle.as_deref(), &subjects, dir.path());
}
