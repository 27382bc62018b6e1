//! What the browser tests share: `docket web` and chromedriver as child processes, a Chromium
//! session, polling a page, and the screenshots.

#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub use crate::common::http::WebBoard;
use docket::store::{IssueFilter, SortField, SortOrder, Status, Store};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

/// Kills a child process on drop.
pub struct Running(pub Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn which(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|n| std::env::split_paths(&path).map(|d| d.join(n)).find(|p| p.is_file()))
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

pub fn chromedriver(binary: &Path) -> (Running, String) {
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

/// What a browser test opens the board with: `docket web` on the workspace, chromedriver, and a
/// 1440x900 Chromium profile; the processes end and the profile goes when it is dropped.
pub struct Board {
    /// The URL `docket web` printed.
    pub url: String,
    /// [`Board::url`] without its trailing `/`.
    pub base: String,
    /// chromedriver's URL, for more browsers (a dark one, another profile).
    pub driver: String,
    _web: WebBoard,
    _driver: Running,
    _profile: tempfile::TempDir,
}

/// Serves `root` with `docket web` and opens a light Chromium session (not yet on the board).
pub async fn open_board(root: &Path, driver_bin: &Path, chromium: &Path) -> (Board, Client) {
    let web = WebBoard::start(root, &[]);
    let url = web.url.clone();
    let base = url.trim_end_matches('/').to_string();
    let (running_driver, driver) = chromedriver(driver_bin);
    let profile = tempfile::tempdir().expect("profile dir");
    let c = browser(&driver, chromium, profile.path(), false).await;
    c.set_window_size(1440, 900).await.expect("window size");
    (Board { url, base, driver, _web: web, _driver: running_driver, _profile: profile }, c)
}

pub async fn browser(driver: &str, chromium: &Path, profile: &Path, dark: bool) -> Client {
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
pub async fn wait_js(c: &Client, check: &str, limit: Duration, what: &str) -> Duration {
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

pub async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.expect("script runs")
}

pub async fn column_count(c: &Client, status: &str) -> u64 {
    js(c, &format!("return Number(document.querySelector('.column[data-status={status}] .count').textContent)"))
        .await
        .as_u64()
        .expect("a count")
}

pub fn count(store: &Store, filter: IssueFilter) -> usize {
    store.list(&filter, SortField::Updated, SortOrder::Desc).expect("list").value.len()
}

pub fn of_status(status: Status) -> IssueFilter {
    IssueFilter { status: vec![status], ..IssueFilter::default() }
}

pub fn open_ids(store: &Store) -> Vec<String> {
    store
        .list(&of_status(Status::Open), SortField::Id, SortOrder::Asc)
        .expect("list")
        .value
        .iter()
        .map(|m| m.id.clone())
        .collect()
}

/// Waits until the file holding `id` says `status: STATUS` (the write is on disk).
pub async fn wait_file_status(store: &Store, id: &str, status: &str) {
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

/// Picks `value` in the `<select>` at `css`, as a person would; a live update may re-render the
/// board between finding the control and using it, so a stale control is looked up again.
pub async fn choose(c: &Client, css: &str, value: &str) {
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
pub fn screenshots() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("DOCKET_UPDATE_SCREENSHOTS").is_some_and(|v| v == "1") {
        root.join("docs/screenshots")
    } else {
        root.join("target/screenshots")
    }
}

pub async fn shoot(c: &Client, name: &str) {
    // Fonts loaded and, on a page with the live indicator, the indicator on.
    let settled = "document.fonts.status === 'loaded' && (!document.querySelector('#live') || document.querySelector('#live.on'))";
    wait_js(c, settled, Duration::from_secs(5), "fonts and the live indicator").await;
    let png = c.screenshot().await.expect("screenshot");
    let dir = screenshots();
    std::fs::create_dir_all(&dir).expect("screenshots dir");
    std::fs::write(dir.join(name), png).expect("save screenshot");
}

/// Chromium and chromedriver, or `None` (after saying why the test is skipped).
pub fn tools(test: &str) -> Option<(PathBuf, PathBuf)> {
    match (which(&["chromium", "chromium-browser", "google-chrome"]), which(&["chromedriver"])) {
        (Some(chromium), Some(driver)) => Some((chromium, driver)),
        _ => {
            eprintln!(
                "SKIP {test}: chromium and chromedriver are not both installed (apt-get install -y chromium chromium-driver)"
            );
            None
        }
    }
}

/// One browser test at a time: each runs a browser, and CI machines are small.
pub async fn one_at_a_time() -> tokio::sync::MutexGuard<'static, ()> {
    static LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    LOCK.lock().await
}

/// Polls the file at `path` until `check` holds for its text; panics after 5 s with the text.
pub async fn wait_file(path: &Path, what: &str, check: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if check(&text) {
            return text;
        }
        assert!(Instant::now() < deadline, "{what}: never true of {}:\n{text}", path.display());
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Clicks the element at `css` (waiting for it), looking it up again if a live update replaced
/// it in between.
pub async fn click(c: &Client, css: &str) {
    for _ in 0..50 {
        let e = c.wait().for_element(Locator::Css(css)).await.unwrap_or_else(|e| panic!("{css}: {e}"));
        match e.click().await {
            Ok(()) => return,
            Err(fantoccini::error::CmdError::Standard(e))
                if e.error == fantoccini::error::ErrorStatus::StaleElementReference => {}
            Err(e) => panic!("clicking {css}: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{css} kept going stale");
}

/// Ticks `value` in the multi-value filter `name` of the filter bar, as a person would: open
/// the list, click the box, close the list.
pub async fn tick(c: &Client, name: &str, value: &str) {
    click(c, &format!("details.multi[data-name={name}] summary")).await;
    click(c, &format!("details.multi[data-name={name}] input[value='{value}']")).await;
    click(c, &format!("details.multi[data-name={name}] summary")).await;
}

/// The lines of `after` that differ from `before` (same line count assumed), as (old, new).
pub fn changed_lines(before: &str, after: &str) -> Vec<(String, String)> {
    assert_eq!(before.lines().count(), after.lines().count(), "line count changed:\n{before}\n---\n{after}");
    before.lines().zip(after.lines()).filter(|(a, b)| a != b).map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

/// Types `text` into whatever has the keyboard focus (WebDriver key actions): unlike sending
/// keys to an element, a re-render of the page in between cannot make it stale (the pages keep
/// the focused field, and its text, across re-renders).
pub async fn keys(c: &Client, text: &str) {
    use fantoccini::actions::{InputSource, KeyAction, KeyActions};
    let mut actions = KeyActions::new("keyboard".into());
    for ch in text.chars() {
        actions = actions.then(KeyAction::Down { value: ch }).then(KeyAction::Up { value: ch });
    }
    c.perform_actions(actions).await.expect("key actions");
}

/// Clicks the element at `css` to focus it, looking it up again if a re-render replaced it.
pub async fn focus(c: &Client, css: &str) {
    for _ in 0..50 {
        let e = c.wait().for_element(Locator::Css(css)).await.unwrap_or_else(|e| panic!("{css}: {e}"));
        match e.click().await {
            Ok(()) => {
                let focused = c
                    .execute(&format!("return document.activeElement === document.querySelector({css:?})"), vec![])
                    .await;
                if focused.is_ok_and(|v| v == Value::Bool(true)) {
                    return;
                }
            }
            Err(fantoccini::error::CmdError::Standard(e))
                if e.error == fantoccini::error::ErrorStatus::StaleElementReference => {}
            Err(e) => panic!("clicking {css}: {e}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{css} never took the focus");
}
