//! What a warm call costs as the workspace grows (issue 30): the calls that used to cost
//! O(workspace) each time, timed by the server (`_meta.duration_ms`) at 10,000 and 100,000
//! generated issues, with the cold figures (first server ever, first call from the snapshot) and
//! peak memory. Prints a markdown table; asserts nothing about time.
//!
//! Run: `cargo build --release && DOCKET_BIN=target/release/docket cargo bench --bench scale
//! --profile dev` (the client's work is one JSON line per call; the times are the server's).
//! Other sizes: `... -- 10000 100000`; repetitions per call: `DOCKET_BENCH_RUNS` (default 30);
//! `DOCKET_BENCH_DIR=DIR` keeps each generated workspace in `DIR/N` and reuses it next time.

#[allow(dead_code)]
mod common;

use std::path::{Path, PathBuf};

use common::Server;
use serde_json::{Value, json};

/// A word in most issues' text, so a search of it has tens of thousands of hits at 100,000.
const COMMON_WORD: &str = "request";
/// Another: searched in turn with the first, so no search repeats the one before it.
const OTHER_COMMON_WORD: &str = "reproduce";
const LABEL: &str = "bug";

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

struct Row {
    n: usize,
    /// (name, median server ms, what the last call returned in all)
    warm: Vec<(&'static str, f64, String)>,
    first_ever_ms: f64,
    first_ever_hwm: f64,
    first_search_ms: f64,
    first_search_hwm: f64,
    snapshot_list_ms: f64,
    snapshot_get_ms: f64,
    snapshot_hwm: f64,
    warm_hwm: f64,
    snapshot_mb: f64,
}

fn total_of(result: &Value) -> String {
    let s = &result["structuredContent"];
    for key in ["totalCount", "total"] {
        if let Some(n) = s[key].as_i64() {
            return n.to_string();
        }
    }
    for key in ["labels", "projects", "groups"] {
        if let Some(a) = s[key].as_array() {
            return format!("{} {key}", a.len());
        }
    }
    String::new()
}

fn measure(bin: &Path, n: usize, runs: usize) -> Row {
    // `DOCKET_BENCH_DIR`: generate each size once under it and reuse it in later runs.
    let (_temp, root) = match std::env::var_os("DOCKET_BENCH_DIR") {
        Some(d) => (None, PathBuf::from(d).join(n.to_string())),
        None => {
            let t = tempfile::tempdir().expect("tmp");
            let root = t.path().to_path_buf();
            (Some(t), root)
        }
    };
    let ws = match docket::store::Workspace::at(&root) {
        Some(ws) => ws,
        None => docket::store::generate::generate_workspace(&root, n, 42),
    };
    let root = root.as_path();
    let list = json!({"format": "minimal", "limit": 20});

    // The first server ever: no snapshot; it writes one when its input ends. It indexes the
    // words only after its first answer: a search right after waits for them. Three runs (the
    // first read of the files after a pause is the slowest).
    let (mut firsts, mut searches) = (Vec::new(), Vec::new());
    let (mut first_ever_hwm, mut first_search_hwm) = (0f64, 0f64);
    for _ in 0..3 {
        let _ = std::fs::remove_file(ws.cache_dir().join("index.bin"));
        let (mut first, _) = Server::start(bin, root);
        firsts.push(first.call("issues_list", list.clone()).client_ms);
        first_ever_hwm = first_ever_hwm.max(first.memory_mb().1);
        searches.push(first.call("issues_search", json!({"query": COMMON_WORD})).client_ms);
        first_search_hwm = first_search_hwm.max(first.memory_mb().1);
    }
    let (first_ever_ms, first_search_ms) = (median(firsts), median(searches));
    let snapshot: PathBuf = ws.cache_dir().join("index.bin");
    let snapshot_mb = std::fs::metadata(&snapshot).map_or(f64::NAN, |m| m.len() as f64 / 1e6);

    // Fresh servers from the snapshot: a list, or one issue, as the first call.
    let mut lists = Vec::new();
    let mut gets = Vec::new();
    let mut snapshot_hwm = 0f64;
    for i in 0..3 {
        let (mut s, _) = Server::start(bin, root);
        lists.push(s.call("issues_list", list.clone()).client_ms);
        snapshot_hwm = snapshot_hwm.max(s.memory_mb().1);
        drop(s);
        let (mut s, _) = Server::start(bin, root);
        gets.push(s.call("issues_get", json!({"id": format!("ISS-{:06}", 100 + i)})).client_ms);
    }

    let (mut s, _) = Server::start(bin, root);
    let calls: Vec<(&'static str, &'static str, Value)> = vec![
        ("issues_list minimal 20", "issues_list", list.clone()),
        (
            "issues_list minimal 20, one label",
            "issues_list",
            json!({"format": "minimal", "limit": 20, "labels": [LABEL]}),
        ),
        (
            "issues_list minimal 20, open, one project",
            "issues_list",
            json!({"format": "minimal", "limit": 20, "status": ["open"], "project": "core"}),
        ),
        ("issues_search a common word", "issues_search", json!({"query": COMMON_WORD})),
        ("issues_labels list", "issues_labels", json!({"operation": "list"})),
        ("issues_projects list", "issues_projects", json!({"operation": "list"})),
        ("issues_stats by status", "issues_stats", json!({"groupBy": "status"})),
        ("issues_all_complete by label", "issues_all_complete", json!({"labels": [LABEL]})),
    ];
    let mut warm = Vec::new();
    for (name, tool, args) in &calls {
        s.call(tool, args.clone());
        let mut times = Vec::new();
        let mut last = Value::Null;
        for _ in 0..runs {
            let c = s.call(tool, args.clone());
            times.push(c.server_ms.unwrap_or(f64::NAN));
            last = c.result;
        }
        warm.push((*name, median(times), total_of(&last)));
    }
    // Each list right after a write (an update of another issue each time).
    let mut after = Vec::new();
    for i in 0..runs {
        let id = format!("ISS-{:06}", 200 + i);
        s.call("issues_update", json!({"id": id, "priority": if i % 2 == 0 { "high" } else { "low" }}));
        after.push(s.call("issues_list", list.clone()).server_ms.unwrap_or(f64::NAN));
    }
    warm.insert(1, ("issues_list minimal 20, after a write", median(after), String::new()));
    // A page of the same word again reuses its marks; two words in turn never do.
    let mut turns = Vec::new();
    let mut total = String::new();
    for i in 0..runs {
        let word = if i % 2 == 0 { OTHER_COMMON_WORD } else { COMMON_WORD };
        let c = s.call("issues_search", json!({"query": word}));
        turns.push(c.server_ms.unwrap_or(f64::NAN));
        total = total_of(&c.result);
    }
    let at = warm.iter().position(|w| w.0 == "issues_search a common word").map_or(warm.len(), |p| p + 1);
    warm.insert(at, ("issues_search two common words in turn", median(turns), total));
    let warm_hwm = s.memory_mb().1;
    Row {
        n,
        warm,
        first_ever_ms,
        first_ever_hwm,
        first_search_ms,
        first_search_hwm,
        snapshot_list_ms: median(lists),
        snapshot_get_ms: median(gets),
        snapshot_hwm,
        warm_hwm,
        snapshot_mb,
    }
}

fn main() {
    let bin = std::env::var_os("DOCKET_BIN").map_or_else(|| env!("CARGO_BIN_EXE_docket").into(), PathBuf::from);
    let mut sizes: Vec<usize> =
        std::env::args().skip(1).filter_map(|a| a.replace([',', '_'], "").parse().ok()).collect();
    if sizes.is_empty() {
        sizes = vec![10_000, 100_000];
    }
    let runs = std::env::var("DOCKET_BENCH_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(30);
    eprintln!("server: {}", bin.display());
    let rows: Vec<Row> = sizes.iter().map(|&n| measure(&bin, n, runs)).collect();

    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!("\n## Warm calls as the workspace grows ({cores} cores; server ms, median of {runs})\n");
    let header: Vec<String> = rows.iter().map(|r| format!("{} issues", r.n)).collect();
    let growth = rows.len() > 1;
    println!("| call | {} |{}", header.join(" | "), if growth { " growth |" } else { "" });
    println!("|---|{}{}", "---:|".repeat(rows.len()), if growth { "---:|" } else { "" });
    for (i, (name, _, _)) in rows[0].warm.iter().enumerate() {
        let cells: Vec<String> = rows
            .iter()
            .map(|r| {
                let (_, ms, total) = &r.warm[i];
                if total.is_empty() { format!("{ms:.3}") } else { format!("{ms:.3} ({total})") }
            })
            .collect();
        let g = if growth {
            format!(" {:.1}x |", rows[rows.len() - 1].warm[i].1 / rows[0].warm[i].1)
        } else {
            String::new()
        };
        println!("| {name} | {} |{g}", cells.join(" | "));
    }
    println!("\n## Cold and memory\n");
    println!("| measurement | {} |", header.join(" | "));
    println!("|---|{}", "---:|".repeat(rows.len()));
    type Cell = fn(&Row) -> String;
    let lines: [(&str, Cell); 9] = [
        ("first server ever, first issues_list (client ms, median of 3)", |r| format!("{:.0}", r.first_ever_ms)),
        ("its peak RSS (VmHWM, MB)", |r| format!("{:.0}", r.first_ever_hwm)),
        ("then at once a search, which waits for the words (client ms, median of 3)", |r| {
            format!("{:.0}", r.first_search_ms)
        }),
        ("its peak RSS (VmHWM, MB)", |r| format!("{:.0}", r.first_search_hwm)),
        ("from the snapshot, first issues_list (client ms)", |r| format!("{:.0}", r.snapshot_list_ms)),
        ("from the snapshot, first issues_get (client ms)", |r| format!("{:.0}", r.snapshot_get_ms)),
        ("its peak RSS (VmHWM, MB)", |r| format!("{:.0}", r.snapshot_hwm)),
        ("warm server after every call above, peak RSS (MB)", |r| format!("{:.0}", r.warm_hwm)),
        ("snapshot file (MB)", |r| format!("{:.1}", r.snapshot_mb)),
    ];
    for (name, cell) in lines {
        let cells: Vec<String> = rows.iter().map(cell).collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
}
