//! What a newcomer notices on the board (issue 50): the statistics axis says the years of a
//! chart across them; files without frontmatter (a README in the issues folder) are named by
//! their file, apart, and neither listed nor counted as issues; the problems page repairs what
//! `docket doctor --fix` repairs; a long spec's page has an outline; an issue page has one Edit.

use std::time::Duration;

use serde_json::json;

use super::support::*;

/// An issue file as a person might leave it.
fn issue_file(id: &str, kind: &str, status: &str, created: &str, body: &str) -> String {
    format!(
        "---\nid: {id}\ntitle: The {id}\ntype: {kind}\nstatus: {status}\npriority: medium\nlabels: []\ncreatedAt: '{created}'\nupdatedAt: '{created}'\n---\n{body}"
    )
}

const SPEC: &str =
    "An intro.\n\n## Goals\n\nWhat it is for.\n\n## Design\n\nHow.\n\n### Storage\n\nFiles.\n\n## Rollout\n\nWhen.\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newcomers_board_names_files_repairs_and_outlines() {
    let Some((chromium, driver_bin)) = tools("a_newcomers_board_names_files_repairs_and_outlines") else { return };
    let _serial = one_at_a_time().await;
    let root = tempfile::tempdir().expect("temp dir");
    let ws_dir = root.path().join("newcomer");
    docket::store::Workspace::init(&ws_dir).expect("init");
    let dot = ws_dir.join(".docket");
    // 400 days from the first issue to the last, across a new year: counted week by week.
    let files = [
        ("issues/ISS-000001-first.md", issue_file("ISS-000001", "issue", "open", "2025-01-10T09:00:00.000Z", "One.\n")),
        ("issues/ISS-000002-last.md", issue_file("ISS-000002", "issue", "open", "2026-02-14T09:00:00.000Z", "Two.\n")),
        // Closed but outside archived/: misplaced, which --fix moves.
        (
            "issues/ISS-000003-done.md",
            issue_file("ISS-000003", "issue", "closed", "2025-06-01T09:00:00.000Z", "Done.\n"),
        ),
        (
            "specifications/SPEC-000004-plan.md",
            issue_file("SPEC-000004", "specification", "open", "2025-08-01T09:00:00.000Z", SPEC),
        ),
        // wrangler keeps one of these in its issues folder.
        ("issues/README.md", "# Issues\n\nOne markdown file per issue.\n".to_string()),
    ];
    for (path, text) in &files {
        std::fs::write(dot.join(path), text).expect("write");
    }
    let (board, c) = open_board(&ws_dir, &driver_bin, &chromium).await;
    let base = board.base.clone();

    // The board: a card for each issue, none for the README, which is named apart by its file.
    c.goto(&format!("{base}/")).await.expect("board");
    wait_js(&c, "document.querySelector('#board[aria-busy=false]')", Duration::from_secs(10), "board").await;
    let cards = js(&c, "return [...document.querySelectorAll('#board .card')].map(c => c.dataset.id).sort()").await;
    assert_eq!(cards, json!(["ISS-000001", "ISS-000002", "ISS-000003", "SPEC-000004"]), "no card for the README");
    let open = js(&c, "return document.querySelector('.column-open .count')?.dataset.count").await;
    assert_eq!(open, json!("3"), "the open column counts the issues only");
    let page = js(&c, "return document.querySelector('#main').innerText").await;
    assert!(!page.as_str().unwrap().contains("Untitled Issue"), "{page}");
    let apart = js(&c, "return document.querySelector('#board-files #plain-files')?.textContent ?? ''").await;
    assert!(apart.as_str().unwrap().starts_with("Not issues (files without frontmatter"), "{apart}");
    assert!(apart.as_str().unwrap().contains(".docket/issues/README.md"), "{apart}");

    // Statistics: the four issues, not the README; the axis says the years.
    c.goto(&format!("{base}/stats")).await.expect("stats");
    wait_js(&c, "document.querySelector('#stats[aria-busy=false]')", Duration::from_secs(10), "stats").await;
    let total = js(&c, "return document.querySelector('#stat-total strong').textContent").await;
    assert_eq!(total, json!("4"), "the README is not an issue");
    let created = js(&c, "return document.querySelector('#stat-chart svg.chart').dataset.created").await;
    assert_eq!(created, json!("4"), "nor is it created on the day of the clone");
    let unit = js(&c, "return document.querySelector('#stat-chart svg g.grid').dataset.unit").await;
    assert_eq!(unit, json!("week"));
    let labels = js(&c, "return [...document.querySelectorAll('#stat-chart svg text.axis')].map(t => t.textContent).filter(t => /[A-Za-z]/.test(t))").await;
    let labels: Vec<&str> = labels.as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert!(!labels.is_empty(), "dates under the chart");
    assert!(labels.first().is_some_and(|l| l.ends_with(" 2025")), "{labels:?}");
    assert!(labels.last().is_some_and(|l| l.ends_with(" 2026")), "{labels:?}");
    let apart = js(&c, "return document.querySelector('#plain-files')?.textContent ?? ''").await;
    assert!(apart.as_str().unwrap().contains(".docket/issues/README.md"), "{apart}");

    // The list: the issues, and the README named by its file, apart.
    c.goto(&format!("{base}/list?status=open,in_progress,closed")).await.expect("list");
    wait_js(&c, "document.querySelector('#list[aria-busy=false]')", Duration::from_secs(10), "list").await;
    let ids =
        js(&c, "return [...document.querySelectorAll('#list tbody tr[data-id]')].map(r => r.dataset.id).sort()").await;
    assert_eq!(ids, json!(["ISS-000001", "ISS-000002", "ISS-000003", "SPEC-000004"]));
    let page = js(&c, "return document.querySelector('#main').innerText").await;
    assert!(!page.as_str().unwrap().contains("Untitled Issue"), "{page}");
    let apart = js(&c, "return document.querySelector('#plain-files')?.textContent ?? ''").await;
    assert!(apart.as_str().unwrap().contains(".docket/issues/README.md"), "{apart}");

    // A long spec's page: an outline of its headings, each a link to its heading.
    c.goto(&format!("{base}/issues/SPEC-000004")).await.expect("spec page");
    wait_js(&c, "document.querySelector('#issue-body h2')", Duration::from_secs(10), "spec page").await;
    let outline = js(&c, "return [...document.querySelectorAll('#outline a')].map(a => [a.textContent, !!document.getElementById(a.getAttribute('href').slice(1))])").await;
    assert_eq!(outline, json!([["Goals", true], ["Design", true], ["Storage", true], ["Rollout", true]]));
    // One edit entry point.
    let edits = js(&c, "return [...document.querySelectorAll('#main button')].map(b => b.textContent.trim()).filter(t => /edit/i.test(t))").await;
    assert_eq!(edits, json!(["Edit"]), "one Edit, not Edit and Edit description");
    click(&c, "#edit-issue").await;
    wait_js(
        &c,
        "document.activeElement?.name === 'title' && document.querySelector('#body-editor textarea[name=description]')",
        Duration::from_secs(5),
        "the one editor holds the title and the description",
    )
    .await;
    click(&c, "#body-done").await;
    wait_js(&c, "!document.querySelector('#body-editor')", Duration::from_secs(5), "closed").await;

    // Problems: a button repairs what doctor --fix repairs, and says what it did.
    c.goto(&format!("{base}/problems")).await.expect("problems");
    wait_js(&c, "document.querySelector('#problems[aria-busy=false]')", Duration::from_secs(10), "problems").await;
    let misplaced = js(&c, "return document.querySelectorAll('.problem-item[data-kind=misplaced]').length").await;
    assert_eq!(misplaced, json!(1));
    click(&c, "#problems-fix").await;
    wait_js(
        &c,
        "document.querySelector('#problems-repaired') && !document.querySelector('.problem-item[data-kind=misplaced]')",
        Duration::from_secs(10),
        "repaired",
    )
    .await;
    let said = js(&c, "return document.querySelector('#problems-repaired').textContent").await;
    assert!(said.as_str().unwrap().contains("ISS-000003"), "{said}");
    assert!(dot.join("issues/archived/ISS-000003-done.md").is_file(), "moved to archived/");
    assert!(!dot.join("issues/ISS-000003-done.md").exists());
    c.close().await.expect("close the browser");
}
