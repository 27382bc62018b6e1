//! The workspace's problems in a browser: one line on the board whatever their number, the
//! doctor's list behind "Details", and the banner of an issue held by two files naming the file
//! shown and the one `docket doctor --fix` would keep.

use std::time::Duration;

use docket::store::repair::{self as doctor, Kind};
use docket::store::{Store, StoreOptions, Workspace};
use serde_json::json;

use super::support::*;

/// An issue file as a person might leave it.
fn issue_file(id: &str, title: &str, status: &str, created: &str) -> String {
    format!(
        "---\nid: {id}\ntitle: {title}\ntype: issue\nstatus: {status}\npriority: medium\nlabels: []\ncreatedAt: '{created}'\nupdatedAt: '{created}'\n---\nThe {title}.\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn problems_fold_into_one_line_and_the_duplicate_banner_agrees_with_doctor() {
    let Some((chromium, driver_bin)) = tools("problems_fold_into_one_line") else { return };
    let _serial = one_at_a_time().await;
    let root = tempfile::tempdir().expect("temp dir");
    let ws_dir = root.path().join("busy-app");
    docket::store::generate::generate_workspace(&ws_dir, 36, 11);
    let issues = ws_dir.join(".docket/issues");
    // 24 ids held twice (a bad merge), one unreadable file...
    let mut files: Vec<std::path::PathBuf> = [issues.clone(), issues.join("archived")]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).unwrap().flatten().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(files.len() >= 24, "the generated workspace has 24 issues to copy");
    for path in &files[..24] {
        std::fs::copy(path, path.with_extension("").with_extension("copy.md")).unwrap();
    }
    std::fs::write(issues.join("ISS-000080-broken.md"), "---\nid: ISS-000080\ntitle: [unclosed\n---\nbody\n").unwrap();
    // ...and ISS-000090 twice: the copy docket reads (status open) sits in archived/ and was made
    // later; the doctor keeps the one created first.
    std::fs::create_dir_all(issues.join("archived")).unwrap();
    let older = ".docket/issues/ISS-000090-first-copy.md";
    let shown = ".docket/issues/archived/ISS-000090-second-copy.md";
    std::fs::write(ws_dir.join(older), issue_file("ISS-000090", "Old copy", "closed", "2025-01-01T00:00:00.000Z"))
        .unwrap();
    std::fs::write(ws_dir.join(shown), issue_file("ISS-000090", "New copy", "open", "2025-06-01T00:00:00.000Z"))
        .unwrap();
    let store = Store::open(Workspace::at(&ws_dir).expect("workspace"), StoreOptions::default());
    let report = doctor::check(&store).expect("doctor");
    let duplicates: Vec<&doctor::Problem> = report.problems.iter().filter(|p| p.kind == Kind::DuplicateId).collect();
    assert_eq!(duplicates.len(), 25, "{:?}", report.problems);
    let kept = &duplicates.iter().find(|p| p.id.as_deref() == Some("ISS-000090")).expect("ISS-000090").paths[0];
    assert_eq!(kept, older, "the doctor keeps the copy created first");

    let (board, c) = open_board(&ws_dir, &driver_bin, &chromium).await;
    let (url, base) = (board.url.clone(), board.base.clone());

    // One line, and the first card on the first screen.
    c.goto(&url).await.expect("board");
    wait_js(
        &c,
        "document.querySelector('.card') && document.querySelector('#warnings .warning')",
        Duration::from_secs(10),
        "board",
    )
    .await;
    assert_eq!(js(&c, "return document.querySelectorAll('.warning').length").await, json!(1));
    let line = js(&c, "return document.querySelector('#warnings .warning').textContent").await;
    let line = line.as_str().unwrap();
    assert!(line.contains("25 duplicate ids and 1 file with broken frontmatter"), "{line}");
    let top = js(&c, "return document.querySelector('.card').getBoundingClientRect().top / window.innerHeight").await;
    assert!(top.as_f64().unwrap() < 0.33, "the first card starts {top} screens down");
    shoot(&c, "problems-line-light-desktop.png").await;

    // Details: what the doctor reports, one entry each.
    click(&c, "#problems-link").await;
    wait_js(
        &c,
        "location.pathname === '/problems' && document.querySelector('#problems[aria-busy=false]')",
        Duration::from_secs(10),
        "problems page",
    )
    .await;
    let listed = js(&c, "return document.querySelectorAll('.problem-item[data-kind]').length").await;
    let page = js(&c, "return document.querySelector('#main').innerText").await;
    assert_eq!(listed.as_u64().unwrap() as usize, report.problems.len(), "{page}");
    let dup_items = js(&c, "return document.querySelectorAll('.problem-item[data-kind=duplicate_id]').length").await;
    assert_eq!(dup_items, json!(25));
    let text = js(&c, "return document.querySelector('#problems').innerText").await;
    assert!(text.as_str().unwrap().contains(&duplicates[0].message), "the doctor's own words");

    // The issue page says which file it shows, and which the doctor would keep.
    c.goto(&format!("{base}/issues/ISS-000090")).await.expect("issue page");
    wait_js(&c, "document.querySelector('.issue-warning')", Duration::from_secs(10), "banner").await;
    assert_eq!(js(&c, "return document.querySelectorAll('.issue-warning').length").await, json!(1));
    let banner = js(&c, "return document.querySelector('.issue-warning').textContent").await;
    let banner = banner.as_str().unwrap();
    assert!(banner.contains(&format!("This page shows {shown} (open, created 2025-06-01")), "{banner}");
    assert!(banner.contains(&format!("would keep the id on {kept}")), "{banner}");
    assert!(!banner.contains("not archived"), "{banner}");
    // Read in the page (a live re-render may replace the element between a find and a read).
    let file = js(&c, "return document.querySelector('.field code')?.textContent ?? null").await;
    assert_eq!(file, json!(shown), "the page shows the file the banner names");
    c.close().await.expect("close the browser");
}
