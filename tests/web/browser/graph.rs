//! The work graph in a browser: blocked cards are marked on the board and in the list; an issue's
//! page adds and removes blockers (each a tool call that lands in the file), refuses an unknown
//! id and a cycle saying why, and a blocker that closes lifts the mark without a reload.

use std::time::Duration;

use docket::store::{IssueType, NewIssue, Priority, Status, Store, StoreOptions, Workspace};
use fantoccini::key::Key;

use super::support::*;

fn new_issue(title: &str, blocked_by: Vec<String>) -> NewIssue {
    NewIssue {
        title: title.into(),
        description: format!("{title}.\n"),
        issue_type: IssueType::Issue,
        status: Status::Open,
        priority: Priority::Critical,
        labels: vec![],
        assignee: None,
        project: None,
        context: serde_json::Map::new(),
        blocked_by,
    }
}

/// The card of `id` on the board and whether it is marked blocked, as a JavaScript check.
fn card_marked(id: &str, blocked: bool) -> String {
    let not = if blocked { "" } else { "!" };
    format!(
        "(() => {{ const c = document.querySelector(\".card[data-id='{id}']\"); return !!c && {not}(c.classList.contains('blocked') && !!c.querySelector('.blocked-mark')); }})()"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocked_cards_are_marked_and_the_issue_page_adds_and_removes_blockers() {
    let Some((chromium, driver_bin)) = tools("blocked_cards_are_marked_and_the_issue_page_adds_and_removes_blockers")
    else {
        return;
    };
    let _serial = one_at_a_time().await;
    let root = tempfile::tempdir().expect("temp dir");
    let ws_dir = root.path().join("acme-app");
    docket::store::generate::generate_workspace(&ws_dir, 12, 3);
    let store = Store::open(Workspace::at(&ws_dir).expect("workspace"), StoreOptions::default());
    let first = store.create(new_issue("Design the schema", vec![])).expect("create").meta.id;
    let second = store.create(new_issue("Write the migration", vec![first.clone()])).expect("create").meta.id;
    let third = store.create(new_issue("Ship the importer", vec![])).expect("create").meta.id;
    let path_of = |id: &str| store.get_meta(id).unwrap().value.path;
    let (board, c) = open_board(&ws_dir, &driver_bin, &chromium).await;

    // The board marks the card that waits, and only that one.
    c.goto(&board.url).await.expect("board");
    wait_js(&c, &card_marked(&second, true), Duration::from_secs(10), "blocked card marked").await;
    for id in [&first, &third] {
        wait_js(&c, &card_marked(id, false), Duration::from_secs(5), "unblocked card unmarked").await;
    }
    // So does the list.
    c.goto(&format!("{}/list", board.base)).await.expect("list");
    wait_js(
        &c,
        &format!("document.querySelector(\"#list tr[data-id='{second}'] .blocked-mark\") && !document.querySelector(\"#list tr[data-id='{third}'] .blocked-mark\")"),
        Duration::from_secs(5),
        "list marks",
    )
    .await;

    // Add a blocker on the third issue's page: typed, Enter; the file names it, the card is marked.
    c.goto(&format!("{}/issues/{third}", board.base)).await.expect("issue page");
    wait_js(
        &c,
        "document.querySelector('#add-blocker input[name=blocker]') && document.querySelector('#live.on')",
        Duration::from_secs(10),
        "blockers section",
    )
    .await;
    assert_eq!(
        js(&c, "return document.querySelector('#blockers').textContent.includes('Nothing blocks it.')").await,
        serde_json::json!(true)
    );
    focus(&c, "#add-blocker input[name=blocker]").await;
    keys(&c, &format!("{first}{}", Key::Enter)).await;
    let text = wait_file(&path_of(&third), "blocker added", |t| t.contains(&first)).await;
    assert!(text.contains("blockedBy:"), "{text}");
    wait_js(
        &c,
        &format!("document.querySelector('#save-state').textContent === 'Saved blockers' && document.querySelector(\"#blockers a[href='/issues/{first}']\") && document.querySelector('#blockers h3').textContent === 'Blocked by (1 open)'"),
        Duration::from_secs(5),
        "the page lists the blocker",
    )
    .await;
    shoot(&c, "issue-blockers-light-desktop.png").await;

    // An unknown id and a cycle are refused, saying why; the file stays as it was.
    let before = std::fs::read_to_string(path_of(&first)).unwrap();
    c.goto(&format!("{}/issues/{first}", board.base)).await.expect("first's page");
    wait_js(&c, "document.querySelector('#add-blocker input[name=blocker]')", Duration::from_secs(10), "blockers")
        .await;
    focus(&c, "#add-blocker input[name=blocker]").await;
    keys(&c, &format!("ISS-999999{}", Key::Enter)).await;
    wait_js(
        &c,
        "document.querySelector('#save-state').textContent.startsWith('Not saved (blockers)') && document.querySelector('#save-state').textContent.includes('ISS-999999')",
        Duration::from_secs(5),
        "unknown blocker refused",
    )
    .await;
    let said = js(&c, "return document.querySelector('#save-state').textContent").await;
    assert!(said.as_str().unwrap().ends_with("add only existing issues other than this one."), "{said}");
    focus(&c, "#add-blocker input[name=blocker]").await;
    js(&c, "document.activeElement.value = ''; return true").await;
    keys(&c, &format!("{second}{}", Key::Enter)).await;
    wait_js(
        &c,
        &format!("document.querySelector('#save-state').textContent.includes('{first} -> {second} -> {first}')"),
        Duration::from_secs(5),
        "cycle refused, named",
    )
    .await;
    let said = js(&c, "return document.querySelector('#save-state').textContent").await;
    let said = said.as_str().unwrap();
    assert!(said.contains("These blockers would close a cycle"), "{said}");
    assert!(!said.contains("issues_get") && !said.contains("blockedBy"), "a person's words on the page: {said}");
    assert_eq!(std::fs::read_to_string(path_of(&first)).unwrap(), before, "nothing written");
    // A page that shows the issue as it was (an agent wrote since) writes no blocker list over
    // the agent's: refused, and the page shows the issue as it is now.
    js(&c, "issueBase.version = '0000000000000000'; return true").await;
    focus(&c, "#add-blocker input[name=blocker]").await;
    js(&c, "document.activeElement.value = ''; return true").await;
    keys(&c, &format!("ISS-000001{}", Key::Enter)).await;
    wait_js(
        &c,
        "document.querySelector('#save-state').textContent.includes('The page shows it as it is now')",
        Duration::from_secs(5),
        "a stale list refused",
    )
    .await;
    assert_eq!(std::fs::read_to_string(path_of(&first)).unwrap(), before, "nothing written");

    // Remove the second issue's blocker: its file has none, its card is unmarked.
    c.goto(&format!("{}/issues/{second}", board.base)).await.expect("second's page");
    wait_js(&c, "document.querySelector('#blockers .remove-blocker')", Duration::from_secs(10), "remove button").await;
    click(&c, "#blockers .remove-blocker").await;
    wait_file(&path_of(&second), "blocker removed", |t| !t.contains(&first)).await;
    wait_js(
        &c,
        "document.querySelector('#blockers').textContent.includes('Nothing blocks it.')",
        Duration::from_secs(5),
        "no blockers",
    )
    .await;
    c.goto(&board.url).await.expect("board");
    wait_js(&c, &card_marked(&second, false), Duration::from_secs(5), "second unmarked").await;
    wait_js(&c, &card_marked(&third, true), Duration::from_secs(5), "third marked").await;

    // The blocker closes in an editor: the card that waited loses its mark without a reload.
    wait_js(&c, "document.querySelector('#live.on')", Duration::from_secs(5), "live").await;
    js(&c, "window.__sameDocument = true; return true").await;
    let path = path_of(&first);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("status: open", "status: closed", 1)).unwrap();
    wait_js(&c, &card_marked(&third, false), Duration::from_secs(5), "mark lifted").await;
    assert_eq!(js(&c, "return window.__sameDocument === true").await, serde_json::json!(true));

    // A live update while a person types a blocker keeps what they typed, and where: the page
    // re-renders (an agent edits the issue), the field is the new one, its text and focus kept.
    c.goto(&format!("{}/issues/{third}", board.base)).await.expect("third's page");
    wait_js(&c, "document.querySelector('#add-blocker input[name=blocker]')", Duration::from_secs(10), "blockers")
        .await;
    wait_js(&c, "document.querySelector('#live.on')", Duration::from_secs(5), "live").await;
    let (typed, rest) = second.split_at(6);
    focus(&c, "#add-blocker input[name=blocker]").await;
    keys(&c, typed).await;
    js(&c, "document.querySelector('#add-blocker input').dataset.before = 'yes'; return true").await;
    let path = path_of(&third);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("priority: critical", "priority: high", 1)).unwrap();
    wait_js(
        &c,
        "document.querySelector('#add-blocker input') && !document.querySelector('#add-blocker input').dataset.before",
        Duration::from_secs(5),
        "the page re-rendered",
    )
    .await;
    let kept = js(
        &c,
        "const i = document.querySelector('#add-blocker input'); return [i.value, document.activeElement === i];",
    )
    .await;
    assert_eq!(kept, serde_json::json!([typed, true]), "the typed text and the focus survive the re-render");
    // The page's edits are made to the file it shows (ifVersion): the save waits for the page to
    // show the agent's write itself, not a read taken while the file was being written.
    let now = docket::store::version_of(&std::fs::read(&path).unwrap());
    wait_js(&c, &format!("issueBase.version === '{now}'"), Duration::from_secs(5), "the page shows the file as it is")
        .await;
    keys(&c, &format!("{rest}{}", Key::Enter)).await;
    wait_file(&path, "blocker typed across a re-render added", |t| t.contains(&second)).await;
    c.close().await.expect("close the browser");
}
