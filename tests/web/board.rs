//! The web board over real HTTP (no browser; tests/web/browser.rs drives Chromium): the board beside
//! `/mcp`, `docket web` alone, the guard (Origin, CSRF, token cookie), writes through the tool
//! handlers (files, error memory, MCP subscribers) and the event stream.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::http::{HttpServer, WebBoard, origin};

use docket::store::{IssueFilter, SortField, SortOrder, Status, Store, StoreOptions, Workspace};
use rmcp::model::{ResourceUpdatedNotificationParam, SubscribeRequestParams};
use rmcp::service::NotificationContext;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

/// A running docket serving the board over a generated workspace of 40 issues; killed on drop.
struct Board {
    /// `http://127.0.0.1:PORT` (no trailing slash).
    base: String,
    /// The served workspace.
    dir: PathBuf,
    _server: Server,
}

/// What serves the board: `docket serve --http` (beside /mcp) or `docket web`.
enum Server {
    Mcp { _server: HttpServer },
    Web { _board: WebBoard, _dir: tempfile::TempDir },
}

fn generated() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    docket::store::generate::generate_workspace(dir.path(), 40, 7);
    dir
}

impl Board {
    /// `docket serve --http 127.0.0.1:0 ARGS`.
    fn serve(extra: &[&str]) -> Board {
        let server = HttpServer::start_in(generated(), extra);
        Board { base: origin(&server.url), dir: server.dir().to_path_buf(), _server: Server::Mcp { _server: server } }
    }

    /// `docket web --workspace DIR ARGS`.
    fn web(extra: &[&str]) -> Board {
        let dir = generated();
        let web = WebBoard::start(dir.path(), extra);
        Board { base: web.origin(), dir: dir.path().to_path_buf(), _server: Server::Web { _board: web, _dir: dir } }
    }

    fn store(&self) -> Store {
        Store::open(Workspace::at(&self.dir).expect("workspace"), StoreOptions::default())
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A write the way the board's page sends it: same origin, JSON, guarded by the version of
    /// the file as it is now (unless `body` has a guard).
    fn patch(&self, id: &str, mut body: Value) -> reqwest::RequestBuilder {
        if body.get("ifVersion").is_none() {
            body["ifVersion"] = json!(self.store().get(id).map(|s| s.value.version).unwrap_or_default());
        }
        self.patch_unguarded(id, body)
    }

    fn patch_unguarded(&self, id: &str, body: Value) -> reqwest::RequestBuilder {
        reqwest::Client::new().patch(self.url(&format!("/api/issues/{id}"))).header("origin", &self.base).json(&body)
    }

    fn path_of(&self, id: &str) -> PathBuf {
        self.store().get_meta(id).expect("issue exists").value.path
    }
}

fn count(store: &Store, status: Status) -> usize {
    let filter = IssueFilter { status: vec![status], ..IssueFilter::default() };
    store.list(&filter, SortField::Updated, SortOrder::Desc).expect("list").value.len()
}

/// The first open issue of the workspace (by the store's order).
fn an_open_issue(store: &Store) -> String {
    let filter = IssueFilter { status: vec![Status::Open], ..IssueFilter::default() };
    store.list(&filter, SortField::Id, SortOrder::Asc).expect("list").value[0].id.clone()
}

async fn get_json(url: &str) -> Value {
    let r = reqwest::get(url).await.expect("GET");
    assert!(r.status().is_success(), "GET {url}: {}", r.status());
    r.json().await.expect("JSON")
}

#[tokio::test]
async fn the_board_is_served_beside_mcp_with_the_right_counts_and_a_strict_csp() {
    let board = Board::serve(&[]);
    let page = reqwest::get(board.url("/")).await.unwrap();
    assert_eq!(page.status(), 200);
    let csp = page.headers().get("content-security-policy").expect("a CSP").to_str().unwrap().to_string();
    assert!(csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"), "{csp}");
    assert!(page.text().await.unwrap().contains("/assets/app.js"));
    assert_eq!(reqwest::get(board.url("/assets/app.js")).await.unwrap().status(), 200);

    let data = get_json(&board.url("/api/board")).await;
    let store = board.store();
    let columns = data["columns"].as_array().unwrap();
    let statuses: Vec<&str> = columns.iter().map(|c| c["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["open", "in_progress", "closed"]);
    for (column, status) in columns.iter().zip([Status::Open, Status::InProgress, Status::Closed]) {
        assert_eq!(column["count"], count(&store, status), "{status:?}");
        assert!(column["cards"].as_array().unwrap().iter().all(|c| c["status"] == status.as_str()));
    }
    let with_cancelled = get_json(&board.url("/api/board?cancelled=1")).await;
    assert_eq!(with_cancelled["columns"][3]["count"], count(&store, Status::Cancelled));

    let critical = get_json(&board.url("/api/board?priority=critical")).await;
    for c in critical["columns"].as_array().unwrap() {
        assert!(c["cards"].as_array().unwrap().iter().all(|card| card["priority"] == "critical"), "{c}");
    }
    let bad = reqwest::get(board.url("/api/board?priority=urgent")).await.unwrap();
    assert_eq!(bad.status(), 400);
    assert!(bad.text().await.unwrap().contains("use one of: low, medium, high, critical"));

    // /mcp still answers MCP.
    let client = ().serve(StreamableHttpClientTransport::from_uri(board.url("/mcp"))).await.expect("MCP over /mcp");
    assert_eq!(client.list_all_tools().await.unwrap().len(), docket::generated::TOOLS.len());
}

#[tokio::test]
async fn a_write_from_another_origin_is_refused_and_one_from_the_board_lands_on_disk() {
    let board = Board::serve(&[]);
    let id = an_open_issue(&board.store());
    let path = board.path_of(&id);
    let before = std::fs::read_to_string(&path).unwrap();
    let client = reqwest::Client::new();
    let url = board.url(&format!("/api/issues/{id}"));
    let port = board.base.rsplit(':').next().unwrap().parse::<u16>().unwrap();
    for origin in ["http://evil.example", &format!("http://localhost:{}", port.wrapping_add(1))] {
        let r = client.patch(&url).header("origin", origin).json(&json!({"status": "closed"})).send().await.unwrap();
        assert_eq!(r.status(), 403, "{origin}");
        let why = r.text().await.unwrap();
        assert!(why.contains(origin) && why.contains("--allow-origin"), "{why}");
    }
    let cross_site = client
        .patch(&url)
        .header("origin", &board.base)
        .header("sec-fetch-site", "cross-site")
        .json(&json!({"status": "closed"}))
        .send()
        .await
        .unwrap();
    assert_eq!(cross_site.status(), 403);
    let form = client
        .patch(&url)
        .header("origin", &board.base)
        .header("content-type", "application/x-www-form-urlencoded")
        .body("status=closed")
        .send()
        .await
        .unwrap();
    assert_eq!(form.status(), 415);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), before, "no refused write touched the file");

    let ok = board.patch(&id, json!({"status": "in_progress", "labels": ["web"]})).send().await.unwrap();
    assert_eq!(ok.status(), 200, "{}", ok.text().await.unwrap());
    let text = std::fs::read_to_string(board.path_of(&id)).unwrap();
    assert!(text.contains("status: in_progress") && text.contains("web"), "{text}");

    let created = client
        .post(board.url("/api/issues"))
        .header("origin", &board.base)
        .json(&json!({"title": "Made on the board", "priority": "high"}))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let new_id = created.json::<Value>().await.unwrap()["result"]["issue"]["id"].as_str().unwrap().to_string();
    assert!(std::fs::read_to_string(board.path_of(&new_id)).unwrap().contains("title: Made on the board"));
}

#[tokio::test]
async fn web_failures_share_the_error_memory_of_mcp_calls() {
    let board = Board::serve(&[]);
    let id = an_open_issue(&board.store());
    let mut last = String::new();
    for _ in 0..4 {
        let r = board.patch(&id, json!({"priority": "urgent"})).send().await.unwrap();
        assert_eq!(r.status(), 422);
        last = r.json::<Value>().await.unwrap()["error"].as_str().unwrap().to_string();
    }
    assert!(last.contains("urgent") && last.contains("critical"), "the tool's message: {last}");
    assert!(last.contains("failed 3 times"), "the fourth failure is foretold by the error memory: {last}");
}

#[tokio::test]
async fn with_a_token_a_browser_signs_in_once_and_nothing_works_without_it() {
    let board = Board::serve(&["--token", "t0ken"]);
    let plain = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    for path in ["/", "/api/board", "/assets/app.js", "/issues/ISS-000001"] {
        assert_eq!(plain.get(board.url(path)).send().await.unwrap().status(), 401, "{path}");
    }
    let id = an_open_issue(&board.store());
    let write = board.patch(&id, json!({"status": "closed"})).send().await.unwrap();
    assert_eq!(write.status(), 401);
    assert!(write.text().await.unwrap().contains("?token="));
    assert_eq!(plain.get(board.url("/?token=wrong")).send().await.unwrap().status(), 401);

    let signed = plain.get(board.url("/?token=t0ken&priority=high")).send().await.unwrap();
    assert_eq!(signed.status(), 303);
    assert_eq!(signed.headers()["location"], "/?priority=high", "the token leaves the address");
    let cookie = signed.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "{cookie}");
    assert!(!cookie.contains("t0ken"), "the cookie is a session value, not the token: {cookie}");
    let session = cookie.split(';').next().unwrap().to_string();
    let board_data = plain.get(board.url("/api/board")).header("cookie", &session).send().await.unwrap();
    assert_eq!(board_data.status(), 200);
    let write = board.patch(&id, json!({"status": "closed"})).header("cookie", &session).send().await.unwrap();
    assert_eq!(write.status(), 200);
    let bearer = plain.get(board.url("/api/board")).bearer_auth("t0ken").send().await.unwrap();
    assert_eq!(bearer.status(), 200);
    // The board's cookie is no key to /mcp.
    let mcp = plain
        .post(board.url("/mcp"))
        .header("cookie", &session)
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .send()
        .await
        .unwrap();
    assert_eq!(mcp.status(), 401);
}

/// Records the URIs of `notifications/resources/updated`.
#[derive(Clone, Default)]
struct Heard(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl ClientHandler for Heard {
    async fn on_resource_updated(&self, params: ResourceUpdatedNotificationParam, _: NotificationContext<RoleClient>) {
        self.0.lock().unwrap().push(params.uri);
    }
}

#[tokio::test]
#[allow(deprecated)] // resources/subscribe: the protocol versions docket serves still have it
async fn a_board_write_reaches_mcp_subscribers() {
    let board = Board::serve(&[]);
    let id = an_open_issue(&board.store());
    let heard = Heard::default();
    let client =
        heard.clone().serve(StreamableHttpClientTransport::from_uri(board.url("/mcp"))).await.expect("MCP client");
    client.subscribe(SubscribeRequestParams::new("docket://board")).await.expect("subscribe board");
    client.subscribe(SubscribeRequestParams::new(format!("docket://issues/{id}"))).await.expect("subscribe issue");
    assert_eq!(board.patch(&id, json!({"priority": "critical"})).send().await.unwrap().status(), 200);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let got = heard.0.lock().unwrap().clone();
        if got.contains(&"docket://board".to_string()) && got.contains(&format!("docket://issues/{id}")) {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no notification for the web write: {got:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn an_edit_on_disk_is_announced_on_the_event_stream() {
    let board = Board::serve(&[]);
    let id = an_open_issue(&board.store());
    let path = board.path_of(&id);
    let mut events = reqwest::get(board.url("/api/events")).await.unwrap();
    assert_eq!(events.headers()["content-type"], "text/event-stream");
    let mut seen = String::new();
    read_until(&mut events, &mut seen, "event: hello").await;
    edit_status(&path, "open", "in_progress");
    read_until(&mut events, &mut seen, "event: change").await;
}

/// Reads the event stream until `until` has been seen (10 s at most).
async fn read_until(events: &mut reqwest::Response, seen: &mut String, until: &str) {
    let read = async {
        while !seen.contains(until) {
            match events.chunk().await.expect("stream") {
                Some(chunk) => seen.push_str(&String::from_utf8_lossy(&chunk)),
                None => panic!("the stream ended"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), read).await.unwrap_or_else(|_| panic!("no `{until}` in 10 s"));
}

/// Changes `status: FROM` to `status: TO` in the file, as an editor would.
fn edit_status(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    let changed = text.replacen(&format!("status: {from}"), &format!("status: {to}"), 1);
    assert_ne!(text, changed, "{} has status {from}", path.display());
    std::fs::write(path, changed).unwrap();
}

#[tokio::test]
async fn issue_pages_render_markdown_safely_and_link_issues() {
    let board = Board::serve(&[]);
    let store = board.store();
    let other = an_open_issue(&store);
    let body = format!(
        "Relates to {other}.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n\n<script>window.pwned=1</script>\n<img src=x onerror=\"window.pwned=1\">\n\n---\n**Completion Notes (2026-01-01):**\nAll good."
    );
    let new = docket::store::NewIssue {
        title: "Hostile body".into(),
        description: body,
        issue_type: docket::store::IssueType::Issue,
        status: Status::Open,
        priority: docket::store::Priority::Medium,
        labels: vec![],
        assignee: None,
        project: None,
        context: serde_json::Map::from_iter([("parentTaskId".to_string(), json!(other))]),
        blocked_by: vec![other.clone()],
    };
    let id = store.create(new).unwrap().meta.id;
    let data = get_json(&board.url(&format!("/api/issues/{id}"))).await;
    let html = data["bodyHtml"].as_str().unwrap();
    assert!(!html.contains("<script") && !html.contains("onerror"), "{html}");
    assert!(html.contains("<table>") && html.contains("checkbox"), "{html}");
    assert!(html.contains(&format!("href=\"/issues/{other}\"")), "{html}");
    assert!(data["notesHtml"].as_str().unwrap().contains("All good."));
    assert_eq!(data["parent"]["id"], other.as_str());
    let parent = get_json(&board.url(&format!("/api/issues/{other}"))).await;
    assert!(parent["children"].as_array().unwrap().iter().any(|c| c["id"] == id.as_str()), "{parent}");
    // The work graph: the page lists the blocker (with the form to add or remove one) and the other way round.
    assert_eq!(data["blockedBy"][0]["id"], other.as_str(), "{data}");
    assert_eq!(data["openBlockers"], json!([other]), "{data}");
    assert_eq!(parent["blocks"][0]["id"], id.as_str(), "{parent}");
    let cards = get_json(&board.url("/api/board")).await["columns"][0]["cards"].clone();
    let card = |i: &str| cards.as_array().unwrap().iter().find(|c| c["id"] == i).cloned().unwrap_or_default();
    assert_eq!(card(&id)["blocked"], true, "the blocked card is marked: {cards}");
    assert!(card(&other).get("blocked").is_none(), "{cards}");
    assert_eq!(reqwest::get(board.url("/api/issues/ISS-999999")).await.unwrap().status(), 404);
}

#[tokio::test]
async fn an_issue_page_lists_the_workflow_sessions_about_it() {
    let board = Board::serve(&[]);
    let id = an_open_issue(&board.store());
    let rel = board.path_of(&id).strip_prefix(&board.dir).unwrap().display().to_string();
    let write = |name: &str, spec: &str, tasks: &[&str]| {
        let dir = board.dir.join(".docket/sessions").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let context = json!({
            "id": name, "specFile": spec, "status": "running", "currentPhase": "implement",
            "worktreePath": ".", "branchName": "main", "tasksCompleted": tasks, "tasksPending": [],
            "startedAt": "2026-11-01T10:00:00.000Z", "updatedAt": "2026-11-01T11:00:00.000Z",
        });
        std::fs::write(dir.join("context.json"), context.to_string()).unwrap();
    };
    write("2026-11-01-nogit-aaaa", &rel, &[]);
    write("2026-11-02-nogit-bbbb", "other/spec.md", &[&id]);
    write("2026-11-03-nogit-cccc", "other/spec.md", &["ISS-000999"]);
    let data = get_json(&board.url(&format!("/api/issues/{id}"))).await;
    let sessions: Vec<&str> = data["sessions"].as_array().unwrap().iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(sessions, ["2026-11-02-nogit-bbbb", "2026-11-01-nogit-aaaa"], "newest first, only those about it");
}

#[tokio::test]
async fn docket_web_serves_the_board_alone_and_prints_a_url_with_the_token() {
    let board = Board::web(&["--token", "abc 123"]);
    assert!(board.base.starts_with("http://127.0.0.1:"), "{}", board.base);
    let plain = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    assert_eq!(plain.get(board.url("/api/board")).send().await.unwrap().status(), 401);
    let signed = plain.get(board.url("/?token=abc+123")).send().await.unwrap();
    assert_eq!(signed.status(), 303);
    let no_mcp = plain.post(board.url("/mcp")).bearer_auth("abc 123").json(&json!({})).send().await.unwrap();
    assert_eq!(no_mcp.status(), 404, "docket web serves no MCP endpoint");
}

#[test]
#[cfg(not(any(target_os = "macos", windows)))]
fn docket_web_open_without_a_display_prints_the_url_and_says_why_no_browser_opened() {
    let dir = tempfile::tempdir().expect("temp dir");
    docket::store::generate::generate_workspace(dir.path(), 3, 1);
    let mut child = Command::new(env!("CARGO_BIN_EXE_docket"))
        .args(["web", "--open", "--workspace"])
        .arg(dir.path())
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("DOCKET_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn docket web --open");
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let url_line = out.next().expect("a line").expect("UTF-8");
    assert!(url_line.starts_with("docket: board at http://127.0.0.1:"), "{url_line}");
    let url = url_line.trim_start_matches("docket: board at ").to_string();
    // Read on a thread, so a missing note fails the test instead of hanging it.
    let (tx, rx) = std::sync::mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen = Vec::new();
    let note = loop {
        match rx.recv_timeout(Duration::from_secs(10)) {
            Ok(line) if line.contains("--open") => break Some(line),
            Ok(line) => seen.push(line),
            Err(_) => break None,
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    let note = note.unwrap_or_else(|| panic!("no note about --open on stderr; it said: {seen:?}"));
    assert!(note.contains("no display") && note.contains(&url), "{note}");
}

/// The board writes only with a guard: a change without one is refused (428, nothing written),
/// and one made to a version of the file that is gone (an editor's save that kept `updatedAt`)
/// is refused as a conflict, for fields and for the description alike.
#[tokio::test]
async fn a_board_write_requires_the_version_it_was_made_to() {
    let board = Board::serve(&[]);
    let id = an_open_issue(&board.store());
    let path = board.path_of(&id);
    let r = board.patch_unguarded(&id, json!({"status": "closed"})).send().await.unwrap();
    assert_eq!(r.status(), 428);
    assert!(r.text().await.unwrap().contains("ifVersion"));
    let page: Value = reqwest::get(board.url(&format!("/api/issues/{id}"))).await.unwrap().json().await.unwrap();
    let (version, hash) = (page["version"].as_str().unwrap().to_string(), page["descriptionHash"].clone());

    let saved = std::fs::read_to_string(&path).unwrap().replacen("title: ", "title: Edited ", 1);
    std::fs::write(&path, &saved).unwrap();
    let r = board.patch(&id, json!({"status": "closed", "ifVersion": version})).send().await.unwrap();
    assert_eq!(r.status(), 409, "{}", r.text().await.unwrap());
    let put = reqwest::Client::new()
        .put(board.url(&format!("/api/issues/{id}/description")))
        .header("origin", &board.base)
        .json(&json!({"description": "Replaced.", "ifVersion": version, "ifDescription": hash}))
        .send()
        .await
        .unwrap();
    assert_eq!(put.status(), 409, "{}", put.text().await.unwrap());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), saved, "nothing written");
    let ok = board.patch(&id, json!({"status": "closed"})).send().await.unwrap();
    assert_eq!(ok.status(), 200, "guarded by the version as it is now");
}
