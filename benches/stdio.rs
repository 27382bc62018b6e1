//! End-to-end benchmark over a real stdio pipe: spawns the release `docket serve --workspace DIR`
//! on generated workspaces of 1,000 and 10,000 issues (and 100,000 with `DOCKET_BENCH_100K=1`)
//! and speaks newline-delimited JSON-RPC to it, the way an MCP client does. Prints markdown
//! tables with the targets beside the numbers and `MISS` where a number misses its target, then
//! one table of how each figure grows with the workspace. It asserts nothing.
//!
//! Run: `cargo bench --bench stdio` (Cargo builds `target/release/docket` first).
//! Only some sizes: `cargo bench --bench stdio -- 100 1000`. Another binary: `DOCKET_BIN=path`.
//!
//! Client times are round trips measured here (write the request, read the response line).
//! Server times are the `_meta.duration_ms` the server reports for a tool call. Token counts are
//! o200k_base (tiktoken-rs; the server's `_meta.tokens` estimates it) of the text block the model reads.

mod common;

use std::path::Path;
use std::time::Instant;

use common::{Call, Server, structured_tokens, text_tokens, tokens};
use serde_json::{Value, json};

const SEED: u64 = 42;
/// Repetitions: (startup, cold servers, warm lists, other calls); fewer for the largest sizes.
fn runs(n: usize) -> (usize, usize, usize, usize) {
    if n >= 50_000 { (3, 3, 50, 20) } else { (10, 5, 200, 50) }
}
/// A word in about one generated title in twenty, and in every body of those issues.
const SEARCH_WORD: &str = "webhook";

/// Median and 95th percentile.
#[derive(Clone, Copy)]
struct Stats {
    median: f64,
    p95: f64,
}

fn stats(mut samples: Vec<f64>) -> Stats {
    samples.sort_by(f64::total_cmp);
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    Stats { median: at(0.5), p95: at(0.95) }
}

/// Client and server timings of `runs` repetitions of one call.
fn repeat(server: &mut Server, runs: usize, mut args: impl FnMut(usize) -> (&'static str, Value)) -> (Stats, Stats) {
    let (mut client, mut srv) = (Vec::new(), Vec::new());
    for i in 0..runs {
        let (tool, a) = args(i);
        let c = server.call(tool, a);
        client.push(c.client_ms);
        srv.push(c.server_ms.unwrap_or(f64::NAN));
    }
    (stats(client), stats(srv))
}

/// The ids `generate_workspace` gives issues: every index except i % 20 in {0, 1} is an ISS-.
fn issue_ids(n: usize, count: usize) -> Vec<String> {
    let issues = (0..n).filter(|i| i % 20 >= 2).count();
    (0..count).map(|k| format!("ISS-{:06}", 1 + k * issues / count)).collect()
}

/// Everything measured for one workspace size.
struct Row {
    n: usize,
    startup: Stats,
    cold_client: Stats,
    cold_server: Stats,
    first_client: Stats,
    first_server: Stats,
    warm_client: Stats,
    warm_server: Stats,
    get: (Stats, Stats),
    batch: (Stats, Stats),
    search: (Stats, Stats),
    search_total: u64,
    search_cold: Stats,
    create: (Stats, Stats),
    stats: (Stats, Stats),
    rss: f64,
    hwm: f64,
    first_hwm: f64,
    cold_hwm: f64,
    minimal_20: (usize, usize),
    summary_20: (usize, usize),
    get_one: (usize, usize),
    search_page: (usize, usize),
}

fn measure(bin: &Path, n: usize) -> (Row, usize) {
    let (startup_runs, cold_runs, warm_runs, call_runs) = runs(n);
    let dir = tempfile::tempdir().expect("tmp");
    let t = Instant::now();
    docket::store::generate::generate_workspace(dir.path(), n, SEED);
    eprintln!("{n} issues: workspace generated in {:.1} s", t.elapsed().as_secs_f64());

    let startup = stats((0..startup_runs).map(|_| Server::start(bin, dir.path()).1).collect());

    // The first server ever on this workspace reads every file (no snapshot yet) and leaves
    // cache/index.bin behind for the next process (at the latest when it exits).
    let (mut first, _) = Server::start(bin, dir.path());
    let c = first.call("issues_list", json!({}));
    let (first_client, first_server) = (stats(vec![c.client_ms]), stats(vec![c.server_ms.unwrap_or(f64::NAN)]));
    let first_hwm = first.memory_mb().1;
    drop(first);

    // A cold process whose first call is a search (from the snapshot).
    let search_cold = stats(
        (0..cold_runs)
            .map(|_| {
                let (mut s, _) = Server::start(bin, dir.path());
                s.call("issues_search", json!({"query": SEARCH_WORD})).client_ms
            })
            .collect(),
    );

    // Cold: a fresh server per repetition; the first issues_list builds the index (from the
    // snapshot, re-reading only files whose stamp changed).
    let (mut cold_client, mut cold_server, mut cold_hwm) = (Vec::new(), Vec::new(), Vec::new());
    let mut server = None;
    for _ in 0..cold_runs {
        let (mut s, _) = Server::start(bin, dir.path());
        let c = s.call("issues_list", json!({}));
        assert_eq!(c.result["structuredContent"]["totalCount"], json!(n), "cold list total");
        cold_client.push(c.client_ms);
        cold_server.push(c.server_ms.unwrap_or(f64::NAN));
        cold_hwm.push(s.memory_mb().1);
        server = Some(s);
    }
    let mut s = server.expect("a server");

    let (warm_client, warm_server) = repeat(&mut s, warm_runs, |_| ("issues_list", json!({})));
    let ids = issue_ids(n, 50);
    let get = repeat(&mut s, call_runs, |i| ("issues_get", json!({"id": ids[i % ids.len()]})));
    let batch = repeat(&mut s, call_runs, |_| ("issues_get_batch", json!({"ids": ids})));
    let search = repeat(&mut s, call_runs, |_| ("issues_search", json!({"query": SEARCH_WORD})));
    let stats_ = repeat(&mut s, call_runs, |_| ("issues_stats", json!({"groupBy": "status"})));
    let (rss, hwm) = s.memory_mb();

    // A standard agent workflow, and the token cost of each reply.
    let count = |c: Call| (text_tokens(&c.result), structured_tokens(&c.result));
    let minimal_20 = count(s.call("issues_list", json!({"format": "minimal", "limit": 20})));
    let summary_20 = count(s.call("issues_list", json!({"format": "summary", "limit": 20})));
    let get_one = count(s.call("issues_get", json!({"id": ids[1]})));
    let found = s.call("issues_search", json!({"query": SEARCH_WORD}));
    let search_total = found.result["structuredContent"]["totalCount"].as_u64().unwrap_or(0);
    let search_page = count(found);

    let tools = s.request("tools/list", json!({}));
    let tools_tokens = tokens(&tools["result"].to_string());
    // Last, as they change the workspace: creates, each with a new title.
    let create = repeat(&mut s, call_runs, |i| {
        ("issues_create", json!({"title": format!("Benchmark issue number {i}"), "description": "Made by the bench."}))
    });
    drop(s);

    let row = Row {
        n,
        startup,
        cold_client: stats(cold_client),
        cold_server: stats(cold_server),
        first_client,
        first_server,
        warm_client,
        warm_server,
        get,
        batch,
        search,
        search_total,
        search_cold,
        create,
        stats: stats_,
        rss,
        hwm,
        first_hwm,
        cold_hwm: stats(cold_hwm).median,
        minimal_20,
        summary_20,
        get_one,
        search_page,
    };
    (row, tools_tokens)
}

/// `value` formatted, with MISS when it is not under `limit`.
fn judged(value: f64, limit: Option<f64>, digits: usize) -> String {
    let text = format!("{value:.digits$}");
    match limit {
        Some(l) if value.is_nan() || value >= l => format!("{text} MISS"),
        _ => text,
    }
}

fn main() {
    let bin =
        std::env::var_os("DOCKET_BIN").map_or_else(|| env!("CARGO_BIN_EXE_docket").into(), std::path::PathBuf::from);
    let mut sizes: Vec<usize> =
        std::env::args().skip(1).filter_map(|a| a.replace([',', '_'], "").parse().ok()).collect();
    if sizes.is_empty() {
        sizes = vec![1_000, 10_000];
        if std::env::var_os("DOCKET_BENCH_100K").is_some_and(|v| v != "0") {
            sizes.push(100_000);
        }
    }
    tokens(""); // load the tokenizer before anything is timed
    eprintln!("server: {}", bin.display());

    let mut rows = Vec::new();
    let mut tools_tokens = 0;
    for &n in &sizes {
        let (row, t) = measure(&bin, n);
        tools_tokens = t;
        rows.push(row);
    }

    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!("\n## docket over stdio ({cores} cores; ms are medians unless marked p95)\n");
    let header: Vec<String> = rows.iter().map(|r| format!("{} issues", r.n)).collect();
    println!("| measurement | {} | target (SPEC 5) |", header.join(" | "));
    println!("|---|{}---|", "---:|".repeat(rows.len()));
    type Cell = Box<dyn Fn(&Row) -> String>;
    let line = |name: &str, target: &str, cell: Cell| {
        let cells: Vec<String> = rows.iter().map(&cell).collect();
        println!("| {name} | {} | {target} |", cells.join(" | "));
    };
    // Targets stated "for 10,000 issues" are judged at 10,000 only (100,000 has its own, below).
    let at_10k = |r: &Row, limit: f64| (r.n == 10_000).then_some(limit);
    let pair = |s: Stats, limit: Option<f64>| format!("{} / {:.2}", judged(s.median, limit, 2), s.p95);
    line("startup: spawn to initialize response", "< 20 ms", Box::new(|r| judged(r.startup.median, Some(20.0), 1)));
    line(
        "first issues_list, cold index (client)",
        "< 150 ms at 10k",
        Box::new(move |r| judged(r.cold_client.median, at_10k(r, 150.0), 1)),
    );
    line("first issues_list, cold index (server)", "", Box::new(|r| format!("{:.1}", r.cold_server.median)));
    line(
        "first issues_list of the first server ever, no snapshot (client)",
        "< 150 ms at 10k",
        Box::new(move |r| judged(r.first_client.median, at_10k(r, 150.0), 1)),
    );
    line(
        "first issues_list of the first server ever, no snapshot (server)",
        "",
        Box::new(|r| format!("{:.1}", r.first_server.median)),
    );
    line(
        "warm issues_list summary page, server: median / p95",
        "< 2 ms server time at 10k",
        Box::new(move |r| pair(r.warm_server, at_10k(r, 2.0))),
    );
    line("warm issues_list summary page, client: median / p95", "", Box::new(move |r| pair(r.warm_client, None)));
    line("issues_get, client: median / p95", "", Box::new(move |r| pair(r.get.0, None)));
    line("issues_get, server: median / p95", "", Box::new(move |r| pair(r.get.1, None)));
    line(
        "issues_get_batch of 50, client: median / p95",
        "< 5 ms at 10k",
        Box::new(move |r| pair(r.batch.0, at_10k(r, 5.0))),
    );
    line("issues_get_batch of 50, server: median / p95", "", Box::new(move |r| pair(r.batch.1, None)));
    line(
        &format!("issues_search \"{SEARCH_WORD}\", client: median / p95"),
        "",
        Box::new(move |r| format!("{} ({} hits)", pair(r.search.0, None), r.search_total)),
    );
    line(
        &format!("issues_search \"{SEARCH_WORD}\", server: median / p95"),
        "",
        Box::new(move |r| pair(r.search.1, None)),
    );
    line(
        &format!("issues_search \"{SEARCH_WORD}\" as a cold process's first call (client)"),
        "< 150 ms at 10k",
        Box::new(move |r| judged(r.search_cold.median, at_10k(r, 150.0), 1)),
    );
    line("issues_create, client: median / p95", "", Box::new(move |r| pair(r.create.0, None)));
    line("issues_create, server: median / p95", "", Box::new(move |r| pair(r.create.1, None)));
    line("issues_stats by status, client: median / p95", "", Box::new(move |r| pair(r.stats.0, None)));
    line("issues_stats by status, server: median / p95", "", Box::new(move |r| pair(r.stats.1, None)));
    line("VmRSS after the warm runs, MB", "< 60 MB at 10k", Box::new(move |r| judged(r.rss, at_10k(r, 60.0), 1)));
    line("VmHWM (peak RSS), MB", "", Box::new(|r| format!("{:.1}", r.hwm)));
    line("VmHWM of the first server ever after its first call, MB", "", Box::new(|r| format!("{:.1}", r.first_hwm)));
    line("VmHWM of a server started from the snapshot, first call, MB", "", Box::new(|r| format!("{:.1}", r.cold_hwm)));
    let tok = |t: (usize, usize), limit: Option<f64>| format!("{} ({})", judged(t.0 as f64, limit, 0), t.1);
    line("tokens: issues_list minimal, 20 issues", "< 350", Box::new(move |r| tok(r.minimal_20, Some(350.0))));
    line("tokens: issues_list summary, 20 issues", "< 900", Box::new(move |r| tok(r.summary_20, Some(900.0))));
    line("tokens: issues_get, one whole issue", "", Box::new(move |r| tok(r.get_one, None)));
    line(
        &format!("tokens: issues_search \"{SEARCH_WORD}\", first page"),
        "",
        Box::new(move |r| tok(r.search_page, None)),
    );
    line(
        "tokens: workflow = the four above",
        "",
        Box::new(|r| {
            let parts = [r.minimal_20, r.summary_20, r.get_one, r.search_page];
            format!("{} ({})", parts.iter().map(|p| p.0).sum::<usize>(), parts.iter().map(|p| p.1).sum::<usize>())
        }),
    );
    println!(
        "\nTokens: o200k of the text block the model reads; in brackets, of structuredContent as JSON. \
         tools/list result: {tools_tokens} tokens (the JSON a client receives)."
    );
    println!(
        "Startup: median of 10 spawns (3 at 100k). Cold list and cold search: median of 5 fresh servers (3). \
         Warm list: 200 calls (50); get, get_batch, search, stats, create: 50 calls each (20)."
    );
    growth(&rows);
}

/// One table: how each scaling figure grows with the workspace, against issue 14's targets.
fn growth(rows: &[Row]) {
    println!("\n## How each figure grows (ms unless MB)\n");
    let header: Vec<String> = rows.iter().map(|r| format!("{} issues", r.n)).collect();
    println!("| figure | {} | target at 10k | target at 100k |", header.join(" | "));
    println!("|---|{}---|---|", "---:|".repeat(rows.len()));
    let one_k = rows.iter().find(|r| r.n == 1_000).map(|r| r.create.1.median);
    type Limits = (Option<f64>, Option<f64>);
    let line = |name: &str, targets: (&str, &str), limits: Limits, value: &dyn Fn(&Row) -> f64| {
        let cells: Vec<String> = rows
            .iter()
            .map(|r| {
                let limit = match r.n {
                    10_000 => limits.0,
                    100_000 => limits.1,
                    _ => None,
                };
                judged(value(r), limit, 1)
            })
            .collect();
        println!("| {name} | {} | {} | {} |", cells.join(" | "), targets.0, targets.1);
    };
    line("first call, no snapshot (client)", ("", ""), (None, None), &|r| r.first_client.median);
    line("first call, from the snapshot (client)", ("< 100", "< 500"), (Some(100.0), Some(500.0)), &|r| {
        r.cold_client.median
    });
    line(&format!("search \"{SEARCH_WORD}\", warm (server)"), ("< 5", "< 30"), (Some(5.0), Some(30.0)), &|r| {
        r.search.1.median
    });
    line("search, cold process (client)", ("< 150", ""), (Some(150.0), None), &|r| r.search_cold.median);
    line("create, warm (server, with fsync)", ("< 3 + fsync", "as at 1k"), (None, one_k.map(|v| v * 1.5)), &|r| {
        r.create.1.median
    });
    line("stats, warm (server)", ("", "< 20"), (None, Some(20.0)), &|r| r.stats.1.median);
    line("peak RSS, first server ever (MB)", ("", "< 150"), (None, Some(150.0)), &|r| r.first_hwm);
    line("peak RSS, started from the snapshot (MB)", ("", "< 150"), (None, Some(150.0)), &|r| r.cold_hwm);
    line("peak RSS after the warm runs (MB)", ("", "< 150"), (None, Some(150.0)), &|r| r.hwm);
}
