//! The web board in a real browser: headless Chromium driven through chromedriver (WebDriver)
//! against `docket web` on a generated workspace. Skips, saying why, when chromium or
//! chromedriver is not installed (`apt-get install -y chromium chromium-driver`; CI does).
//! Also takes the screenshots (light and dark, desktop and phone) into target/screenshots/, or into
//! docs/screenshots/ with DOCKET_UPDATE_SCREENSHOTS=1.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use docket::store::{
    IssueFilter, IssueType, NewIssue, Priority, SortField, SortOrder, Status, Store, StoreOptions, Workspace,
};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

/// Kills a child process on drop.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn which(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|n| std::env::split_paths(&path).map(|d| d.join(n)).find(|p| p.is_file()))
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

/// `docket web --workspace ROOT ARGS`; returns it and the URL it printed.
fn docket_web(root: &Path, extra: &[&str]) -> (Running, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_docket"))
        .args(["web", "--workspace"])
        .arg(root)
        .args(extra)
        .env_remove("DOCKET_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn docket web");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let line = lines.next().expect("docket web prints its URL").expect("UTF-8");
    let url = line[line.find("http://").expect("a URL")..].trim().to_string();
    std::thread::spawn(move || lines.for_each(drop));
    (Running(child), url)
}

fn chromedriver(binary: &Path) -> (Running, String) {
    let port = free_port();
    let child = Command::new(binary)
        .arg(format!("--port={port}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn chromedriver");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "chromedriver did not listen on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
    (Running(child), format!("http://127.0.0.1:{port}"))
}

async fn browser(driver: &str, chromium: &Path, profile: &Path, dark: bool) -> Client {
    let mut args = vec![
        "--headless".to_string(),
        "--no-sandbox".into(),
        "--disable-gpu".into(),
        "--disable-quic".into(),
        "--no-first-run".into(),
        "--disable-background-networking".into(),
        "--disable-component-update".into(),
        "--disable-sync".into(),
        "--disable-dev-shm-usage".into(),
        "--hide-scrollbars".into(),
        format!("--user-data-dir={}", profile.display()),
    ];
    if dark {
        args.push("--force-dark-mode".into());
    }
    let caps = json!({
        "browserName": "chrome",
        "goog:chromeOptions": {"binary": chromium.display().to_string(), "args": args},
    });
    let caps = caps.as_object().cloned().expect("object");
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    ClientBuilder::new(connector).capabilities(caps).connect(driver).await.expect("a WebDriver session")
}

/// Polls `check` (a JavaScript expression) until it is true; panics after `limit`.
async fn wait_js(c: &Client, check: &str, limit: Duration, what: &str) -> Duration {
    let started = Instant::now();
    loop {
        let v = c.execute(&format!("return !!({check});"), vec![]).await.expect("script runs");
        if v == Value::Bool(true) {
            return started.elapsed();
        }
        assert!(started.elapsed() < limit, "{what}: `{check}` still false after {limit:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.expect("script runs")
}

async fn column_count(c: &Client, status: &str) -> u64 {
    js(c, &format!("return Number(document.querySelector('.column[data-status={status}] .count').textContent)"))
        .await
        .as_u64()
        .expect("a count")
}

fn count(store: &Store, filter: IssueFilter) -> usize {
    store.list(&filter, SortField::Updated, SortOrder::Desc).expect("list").value.len()
}

fn of_status(status: Status) -> IssueFilter {
    IssueFilter { status: vec![status], ..IssueFilter::default() }
}

fn open_ids(store: &Store) -> Vec<String> {
    store
        .list(&of_status(Status::Open), SortField::Id, SortOrder::Asc)
        .expect("list")
        .value
        .iter()
        .map(|m| m.id.clone())
        .collect()
}

/// Waits until the file holding `id` says `status: STATUS` (the write is on disk).
async fn wait_file_status(store: &Store, id: &str, status: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Ok(meta) = store.get_meta(id)
            && std::fs::read_to_string(&meta.value.path).is_ok_and(|t| t.contains(&format!("status: {status}")))
        {
            return;
        }
        assert!(Instant::now() < deadline, "{id} never became {status} on disk");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// A realistic body with hostile HTML pasted in (and `ISS-000001`, which the board links).
const HOSTILE: &str = "A crash log pasted into an issue must show as text. Seen while closing ISS-000001.\n\n\
## Steps\n\n| step | what | result |\n|------|------|--------|\n| 1 | paste the log | shown |\n| 2 | open the board | no script runs |\n\n\
```sh\ndocket web --open\n```\n\n- [x] reproduced\n- [x] sanitized\n- [ ] released\n\n> The raw HTML below stays inert.\n\n\
<script>window.__pwned = 'script';</script>\n\n<img src=x onerror=\"window.__pwned = 'img'\">\n\n\
[a js link](javascript:window.__pwned='link')\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_in_a_real_browser() {
    let (Some(chromium), Some(driver_bin)) =
        (which(&["chromium", "chromium-browser", "google-chrome"]), which(&["chromedriver"]))
    else {
        eprintln!(
            "SKIP the_board_in_a_real_browser: chromium and chromedriver are not both installed (apt-get install -y chromium chromium-driver)"
        );
        return;
    };
    let root = tempfile::tempdir().expect("temp dir");
    // A stable name for the header in the screenshots.
    let ws_dir = root.path().join("acme-app");
    docket::store::generate::generate_workspace(&ws_dir, 36, 11);
    let store = Store::open(Workspace::at(&ws_dir).expect("workspace"), StoreOptions::default());
    let hostile = store
        .create(NewIssue {
            title: "Pasted crash log renders inert".into(),
            description: HOSTILE.into(),
            issue_type: IssueType::Issue,
            status: Status::Open,
            priority: Priority::High,
            labels: vec!["security".into(), "ui".into()],
            assignee: Some("ann".into()),
            project: Some("web".into()),
            context: serde_json::Map::from_iter([("parentTaskId".to_string(), json!("ISS-000004"))]),
            blocked_by: vec![],
        })
        .expect("create")
        .meta
        .id;
    let (_web, url) = docket_web(&ws_dir, &[]);
    let base = url.trim_end_matches('/').to_string();
    let (_driver, driver) = chromedriver(&driver_bin);
    let profile = tempfile::tempdir().expect("profile dir");
    let c = browser(&driver, &chromium, profile.path(), false).await;
    c.set_window_size(1440, 900).await.expect("window size");

    // The columns show the right counts.
    c.goto(&url).await.expect("open the board");
    wait_js(&c, "document.querySelector('.column[data-status=closed] .count')", Duration::from_secs(10), "board").await;
    for (name, status) in [("open", Status::Open), ("in_progress", Status::InProgress), ("closed", Status::Closed)] {
        assert_eq!(column_count(&c, name).await as usize, count(&store, of_status(status)), "{name}");
    }
    let cards = js(&c, "return document.querySelectorAll('.column[data-status=open] .card').length").await;
    assert_eq!(cards.as_u64().unwrap() as usize, count(&store, of_status(Status::Open)).min(50));

    // The filter narrows them, and the address carries it.
    choose(&c, "select[name=priority]", "critical").await;
    let critical = |s| IssueFilter { status: vec![s], priority: vec![Priority::Critical], ..IssueFilter::default() };
    let want = count(&store, critical(Status::Open));
    wait_js(&c, &format!("location.search.includes('priority=critical') && document.querySelector('.column[data-status=open] .count').textContent === '{want}'"), Duration::from_secs(5), "priority filter").await;
    assert_eq!(column_count(&c, "in_progress").await as usize, count(&store, critical(Status::InProgress)));
    assert!(want < count(&store, of_status(Status::Open)), "the generated workspace has non-critical open issues");
    c.goto(&url).await.expect("back to the board");
    let search = c.wait().for_element(Locator::Css("input[name=q]")).await.expect("search box");
    search.send_keys("inert").await.expect("type");
    wait_js(
        &c,
        "location.search.includes('q=inert') && document.querySelectorAll('.card').length === 1",
        Duration::from_secs(5),
        "text search",
    )
    .await;
    let found = js(&c, "return document.querySelector('.card').dataset.id").await;
    assert_eq!(found, Value::String(hostile.clone()));

    // Screenshots of the board (light, desktop and phone).
    std::fs::create_dir_all(screenshots()).expect("screenshots dir");
    c.goto(&url).await.expect("board");
    wait_js(&c, "document.querySelectorAll('.card').length > 10", Duration::from_secs(5), "board for screenshot").await;
    shoot(&c, "board-light-desktop.png").await;

    // Opening a card shows the rendered body; the hostile parts are inert.
    let ids = open_ids(&store);
    let (first, second, third) = (ids[0].clone(), ids[1].clone(), ids[2].clone());
    c.find(Locator::Css(&format!(".card[data-id='{hostile}'] a.title")))
        .await
        .expect("the card")
        .click()
        .await
        .expect("click");
    wait_js(&c, "document.querySelector('#issue-body table')", Duration::from_secs(5), "rendered body").await;
    assert!(c.current_url().await.unwrap().path().ends_with(&format!("/issues/{hostile}")));
    let body_html = c.find(Locator::Css("#issue-body")).await.unwrap().html(true).await.unwrap();
    assert!(body_html.contains("<h2>Steps</h2>") && body_html.contains("type=\"checkbox\""), "{body_html}");
    assert!(body_html.contains("href=\"/issues/ISS-000001\""), "mentions link: {body_html}");
    assert!(
        !body_html.contains("<script") && !body_html.contains("onerror") && !body_html.contains("javascript:"),
        "{body_html}"
    );
    // Give a script every chance to run, then prove none did.
    if let Ok(link) = c.find(Locator::Css("#issue-body a:not(.issue-link)")).await {
        let _ = link.click().await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(js(&c, "return typeof window.__pwned").await, json!("undefined"), "a script in the body ran");
    shoot(&c, "issue-light-desktop.png").await;

    // Moving a card to in_progress (the card's status control, as a keyboard user would) changes
    // the file on disk.
    c.goto(&url).await.expect("board");
    wait_js(&c, "document.querySelector('#live.on')", Duration::from_secs(5), "live").await;
    choose(&c, &format!("select[data-move='{first}']"), "in_progress").await;
    wait_file_status(&store, &first, "in_progress").await;
    wait_js(
        &c,
        &format!("document.querySelector(\".column[data-status=in_progress] .card[data-id='{first}']\")"),
        Duration::from_secs(5),
        "card in in_progress",
    )
    .await;

    // Dragging a card onto another column does the same (HTML5 drag and drop events).
    js(
        &c,
        &format!(
            "const card = document.querySelector(\".card[data-id='{second}']\");
         const column = document.querySelector('.column[data-status=closed]');
         const dt = new DataTransfer();
         card.dispatchEvent(new DragEvent('dragstart', {{bubbles: true, dataTransfer: dt}}));
         column.dispatchEvent(new DragEvent('dragover', {{bubbles: true, cancelable: true, dataTransfer: dt}}));
         column.dispatchEvent(new DragEvent('drop', {{bubbles: true, cancelable: true, dataTransfer: dt}}));
         card.dispatchEvent(new DragEvent('dragend', {{bubbles: true, dataTransfer: dt}}));
         return true;"
        ),
    )
    .await;
    wait_file_status(&store, &second, "closed").await;

    // A file edited on disk moves its card without a reload, within a second.
    wait_js(&c, &format!("document.querySelector(\".column[data-status=open] .card[data-id='{third}']\") && document.querySelector('#live.on')"), Duration::from_secs(5), "third card open, live").await;
    js(&c, "window.__sameDocument = true; return true;").await;
    let path = store.get_meta(&third).unwrap().value.path;
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("status: open", "status: in_progress", 1)).unwrap();
    let took = wait_js(
        &c,
        &format!("document.querySelector(\".column[data-status=in_progress] .card[data-id='{third}']\")"),
        Duration::from_secs(1),
        "the edited card moved within 1 s",
    )
    .await;
    assert_eq!(js(&c, "return window.__sameDocument === true").await, json!(true), "the page was not reloaded");
    eprintln!("an edit on disk reached the board in {took:?}");

    // Creating an issue from the dialog writes a new file; editing on the issue page changes it.
    c.find(Locator::Css("#new-issue")).await.expect("new issue button").click().await.expect("open dialog");
    let form = c.wait().for_element(Locator::Css("#create-form")).await.expect("dialog");
    form.find(Locator::Css("input[name=title]")).await.unwrap().send_keys("Filed from the board").await.unwrap();
    form.find(Locator::Css("input[name=labels]")).await.unwrap().send_keys("ui, web").await.unwrap();
    form.find(Locator::Css("textarea[name=description]"))
        .await
        .unwrap()
        .send_keys("Made in **Chromium**.")
        .await
        .unwrap();
    c.find(Locator::Css("#create-submit")).await.unwrap().click().await.expect("create");
    wait_js(
        &c,
        "[...document.querySelectorAll('.card .title')].some(t => t.textContent === 'Filed from the board')",
        Duration::from_secs(5),
        "new card",
    )
    .await;
    let created = js(&c, "return [...document.querySelectorAll('.card')].find(c => c.querySelector('.title').textContent === 'Filed from the board').dataset.id").await;
    let created = created.as_str().expect("an id").to_string();
    let created_text = std::fs::read_to_string(store.get_meta(&created).unwrap().value.path).unwrap();
    assert!(
        created_text.contains("title: Filed from the board") && created_text.contains("Made in **Chromium**."),
        "{created_text}"
    );
    c.goto(&format!("{base}/issues/{created}")).await.expect("its page");
    choose(&c, "select[name=priority]", "critical").await;
    wait_file_status(&store, &created, "open").await;
    // The page shows the saved issue again (and the live update after it); then type.
    wait_js(
        &c,
        "document.querySelector('.toast') && document.querySelector('select[name=priority]').value === 'critical'",
        Duration::from_secs(5),
        "priority saved",
    )
    .await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let assignee = c.wait().for_element(Locator::Css("#edit-form input[name=assignee]")).await.unwrap();
    assignee.click().await.unwrap();
    assignee.send_keys("dana").await.unwrap();
    c.find(Locator::Css("#edit-form button[type=submit]")).await.unwrap().click().await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let text = std::fs::read_to_string(store.get_meta(&created).unwrap().value.path).unwrap();
        if text.contains("priority: critical") && text.contains("assignee: dana") {
            break;
        }
        assert!(Instant::now() < deadline, "the issue page's edits never reached the file:\n{text}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }

    // Phone width.
    c.set_window_size(375, 812).await.expect("phone size");
    c.goto(&url).await.expect("board");
    wait_js(&c, "document.querySelectorAll('.card').length > 5", Duration::from_secs(5), "phone board").await;
    shoot(&c, "board-light-phone.png").await;
    c.goto(&format!("{base}/issues/{hostile}")).await.expect("issue page");
    wait_js(&c, "document.querySelector('#issue-body table')", Duration::from_secs(5), "phone issue").await;
    shoot(&c, "issue-light-phone.png").await;
    c.close().await.expect("close the browser");

    // Dark: the same pages with the system in dark mode.
    let dark_profile = tempfile::tempdir().expect("profile dir");
    let d = browser(&driver, &chromium, dark_profile.path(), true).await;
    assert_eq!(js(&d, "return matchMedia('(prefers-color-scheme: dark)').matches").await, json!(true));
    for (w, h, suffix) in [(1440, 900, "desktop"), (375, 812, "phone")] {
        d.set_window_size(w, h).await.expect("size");
        d.goto(&url).await.expect("board");
        wait_js(&d, "document.querySelectorAll('.card').length > 5", Duration::from_secs(5), "dark board").await;
        shoot(&d, &format!("board-dark-{suffix}.png")).await;
        d.goto(&format!("{base}/issues/{hostile}")).await.expect("issue");
        wait_js(&d, "document.querySelector('#issue-body table')", Duration::from_secs(5), "dark issue").await;
        shoot(&d, &format!("issue-dark-{suffix}.png")).await;
    }
    d.close().await.expect("close the browser");

    // With a token: no token means no board and no write; the printed URL signs the browser in.
    let (_guarded, token_url) = docket_web(&ws_dir, &["--token", "let-me-in"]);
    let token_base = token_url.split("/?").next().unwrap().to_string();
    let t_profile = tempfile::tempdir().expect("profile dir");
    let t = browser(&driver, &chromium, t_profile.path(), false).await;
    t.goto(&format!("{token_base}/")).await.expect("board without token");
    let page = js(&t, "return document.body.innerText").await;
    assert!(page.as_str().unwrap().contains("needs its token"), "{page}");
    assert_eq!(js(&t, "return document.querySelectorAll('.card').length").await, json!(0));
    let refused = js(&t, &format!(
        "return fetch('/api/issues/{third}', {{method: 'PATCH', headers: {{'Content-Type': 'application/json'}}, body: JSON.stringify({{status: 'closed'}})}}).then(r => r.status)"
    ))
    .await;
    assert_eq!(refused, json!(401));
    t.goto(&token_url).await.expect("the printed URL");
    wait_js(
        &t,
        "document.querySelectorAll('.card').length > 0 && !location.search.includes('token')",
        Duration::from_secs(5),
        "signed in",
    )
    .await;
    assert_eq!(column_count(&t, "closed").await as usize, count(&store, of_status(Status::Closed)));
    t.close().await.expect("close the browser");

    // A write from a foreign origin gets 403 (a page elsewhere cannot forge one).
    let foreign = reqwest::Client::new()
        .patch(format!("{base}/api/issues/{third}"))
        .header("origin", "http://evil.example")
        .json(&json!({"status": "closed"}))
        .send()
        .await
        .expect("request");
    assert_eq!(foreign.status(), 403);
}

/// Picks `value` in the `<select>` at `css`, as a person would; a live update may re-render the
/// board between finding the control and using it, so a stale control is looked up again.
async fn choose(c: &Client, css: &str, value: &str) {
    // On a loaded machine the control may also be found before its options are rendered.
    let mut last = String::new();
    for _ in 0..50 {
        let control = c.wait().for_element(Locator::Css(css)).await.expect("the control");
        match control.select_by_value(value).await {
            Ok(()) => return,
            Err(fantoccini::error::CmdError::Standard(e))
                if matches!(
                    e.error,
                    fantoccini::error::ErrorStatus::StaleElementReference
                        | fantoccini::error::ErrorStatus::NoSuchElement
                ) =>
            {
                last = e.to_string();
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => panic!("choosing {value} in {css}: {e}"),
        }
    }
    panic!("choosing {value} in {css} kept failing for 5 s: {last}");
}

/// `target/screenshots/` on every run; `docs/screenshots/` (the README's) only when
/// `DOCKET_UPDATE_SCREENSHOTS=1`, so a test run never leaves the work tree modified.
fn screenshots() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("DOCKET_UPDATE_SCREENSHOTS").is_some_and(|v| v == "1") {
        root.join("docs/screenshots")
    } else {
        root.join("target/screenshots")
    }
}

async fn shoot(c: &Client, name: &str) {
    // Let fonts and the live indicator settle.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let png = c.screenshot().await.expect("screenshot");
    std::fs::write(screenshots().join(name), png).expect("save screenshot");
}
