//! The web board's first render on a generated workspace of 10,000 issues (default; other sizes
//! as arguments: `cargo bench --bench web -- 1000 10000`). Spawns the release binary
//! `docket web --workspace DIR` (or `DOCKET_BIN`), then times what a browser fetches to show the
//! board: the page, its script and style, and `/api/board` (counts, first cards of each column,
//! filter choices). Server time is the handler's own `Server-Timing: app;dur=` (the page and
//! assets are static); client time is the HTTP round trip. The server builds its index as it
//! starts; "at once" requests arrive while it does, "0.5 s after" as a person opening the printed
//! URL would. Prints numbers; asserts nothing.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start(bin: &std::path::Path, ws: &std::path::Path) -> (Running, String) {
    let mut child = Command::new(bin)
        .args(["web", "--workspace"])
        .arg(ws)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn docket web");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let line = lines.next().expect("a URL").expect("UTF-8");
    let url = line[line.find("http://").expect("URL")..].trim().trim_end_matches('/').to_string();
    (Running(child), url)
}

/// One GET: (client ms, server ms from Server-Timing if any, body bytes).
async fn get(client: &reqwest::Client, url: &str) -> (f64, Option<f64>, usize) {
    let t = Instant::now();
    let r = client.get(url).send().await.expect("GET");
    assert!(r.status().is_success(), "{url}: {}", r.status());
    let server = r
        .headers()
        .get("server-timing")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split("dur=").nth(1))
        .and_then(|d| d.parse::<f64>().ok());
    let body = r.bytes().await.expect("body");
    (t.elapsed().as_secs_f64() * 1000.0, server, body.len())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn p95(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[(v.len() * 95 / 100).min(v.len() - 1)]
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let bin =
        std::env::var_os("DOCKET_BIN").map_or_else(|| env!("CARGO_BIN_EXE_docket").into(), std::path::PathBuf::from);
    let mut sizes: Vec<usize> =
        std::env::args().skip(1).filter_map(|a| a.replace([',', '_'], "").parse().ok()).collect();
    if sizes.is_empty() {
        sizes = vec![10_000];
    }
    let client = reqwest::Client::new();
    for n in sizes {
        let dir = tempfile::tempdir().expect("tmp");
        docket::store::generate::generate_workspace(dir.path(), n, 42);
        println!("\n{n} issues");
        // A fresh server: its first board load also builds the index (from the files; later
        // servers start from the snapshot the first one saved).
        let cases = [
            ("first server ever (no index snapshot), at once", Duration::ZERO),
            ("fresh server (index snapshot), at once", Duration::ZERO),
            ("fresh server, opened 0.5 s after the URL is printed", Duration::from_millis(500)),
        ];
        for (label, after) in cases {
            let (_server, url) = start(&bin, dir.path());
            tokio::time::sleep(after).await;
            let t = Instant::now();
            let page = get(&client, &format!("{url}/")).await;
            let js = get(&client, &format!("{url}/assets/app.js")).await;
            let css = get(&client, &format!("{url}/assets/app.css")).await;
            let board = get(&client, &format!("{url}/api/board")).await;
            let total = t.elapsed().as_secs_f64() * 1000.0;
            println!(
                "  {label}: page {:.2} ms, app.js {:.2} ms, app.css {:.2} ms, /api/board {:.2} ms (server {:.2} ms, {} bytes); all four {:.1} ms",
                page.0,
                js.0,
                css.0,
                board.0,
                board.1.unwrap_or(f64::NAN),
                board.2,
                total
            );
            tokio::time::sleep(Duration::from_millis(300)).await; // the snapshot is written in the background
        }
        let (_server, url) = start(&bin, dir.path());
        get(&client, &format!("{url}/api/board")).await;
        for (label, path) in [
            ("warm /api/board", "/api/board"),
            ("warm /api/board?priority=critical", "/api/board?priority=critical"),
            ("warm /api/board?q=webhook (search)", "/api/board?q=webhook"),
            ("warm /api/column (open, cards 50-99)", "/api/column?status=open&offset=50"),
            ("warm /api/issues/ISS-000042", "/api/issues/ISS-000042"),
        ] {
            let runs = if path.contains("q=") { 10 } else { 50 };
            let mut client_ms = Vec::new();
            let mut server_ms = Vec::new();
            for _ in 0..runs {
                let (c, s, _) = get(&client, &format!("{url}{path}")).await;
                client_ms.push(c);
                server_ms.extend(s);
            }
            println!(
                "  {label}: server median {:.2} / p95 {:.2} ms, client median {:.2} / p95 {:.2} ms ({runs} runs)",
                median(server_ms.clone()),
                p95(server_ms),
                median(client_ms.clone()),
                p95(client_ms)
            );
        }
    }
}
