//! The web board in a real browser: headless Chromium driven through chromedriver (WebDriver)
//! against `docket web` on a generated workspace. Skips, saying why, when chromium or
//! chromedriver is not installed (`apt-get install -y chromium chromium-driver`; CI does).
//! More in tests/web/browser/: editing.rs (title, description, task boxes, the save model), graph.rs
//! (blocked cards, adding and removing blockers), duplicates.rs (a duplicated card's marker and refusal),
//! problems.rs (warnings and the duplicate banner), views.rs (the list and the statistics),
//! polish.rs (files without frontmatter, the axis years, repairing, the outline, one Edit).
//! Also takes the screenshots (light and dark, desktop and phone) into target/screenshots/, or into
//! docs/screenshots/ with DOCKET_UPDATE_SCREENSHOTS=1.

mod duplicates;
mod editing;
mod graph;
mod polish;
mod problems;
mod support;
mod views;

use std::time::Duration;

use docket::store::{
    IssueFilter, IssueType, NewIssue, Priority, SortField, SortOrder, Status, Store, StoreOptions, Workspace,
};
use fantoccini::Locator;
use serde_json::{Value, json};
use support::*;

/// A realistic body with hostile HTML pasted in (and `ISS-000001`, which the board links).
const HOSTILE: &str = "A crash log pasted into an issue must show as text. Seen while closing ISS-000001.\n\n\
## Steps\n\n| step | what | result |\n|------|------|--------|\n| 1 | paste the log | shown |\n| 2 | open the board | no script runs |\n\n\
```sh\ndocket web --open\n```\n\n- [x] reproduced\n- [x] sanitized\n- [ ] released\n\n> The raw HTML below stays inert.\n\n\
<script>window.__pwned = 'script';</script>\n\n<img src=x onerror=\"window.__pwned = 'img'\">\n\n\
[a js link](javascript:window.__pwned='link')\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_board_in_a_real_browser() {
    let Some((chromium, driver_bin)) = tools("the_board_in_a_real_browser") else { return };
    let _serial = one_at_a_time().await;
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
    let (board, c) = open_board(&ws_dir, &driver_bin, &chromium).await;
    let (url, base, driver) = (board.url.clone(), board.base.clone(), board.driver.clone());

    // The columns show the right counts.
    c.goto(&url).await.expect("open the board");
    wait_js(&c, "document.querySelector('.column[data-status=closed] .count')", Duration::from_secs(10), "board").await;
    for (name, status) in [("open", Status::Open), ("in_progress", Status::InProgress), ("closed", Status::Closed)] {
        assert_eq!(column_count(&c, name).await as usize, count(&store, of_status(status)), "{name}");
    }
    let cards = js(&c, "return document.querySelectorAll('.column[data-status=open] .card').length").await;
    assert_eq!(cards.as_u64().unwrap() as usize, count(&store, of_status(Status::Open)).min(50));

    // Every card shows its age: the issue's createdAt, shortened (`12d`, `4mo`).
    let ages = js(&c, "return [...document.querySelectorAll('.card')].map(c => [c.dataset.id, c.querySelector('time.age')?.getAttribute('datetime'), c.querySelector('time.age')?.textContent])").await;
    let ages = ages.as_array().expect("cards");
    assert!(!ages.is_empty());
    for a in ages {
        let id = a[0].as_str().unwrap();
        assert_eq!(a[1].as_str(), Some(store.get_meta(id).unwrap().value.created_at.as_str()), "age of {id}: {a}");
        let text = a[2].as_str().unwrap_or_default();
        let unit = text.trim_start_matches(|c: char| c.is_ascii_digit());
        assert!(text.len() > unit.len() && ["m", "h", "d", "mo", "y"].contains(&unit), "age of {id}: {text:?}");
    }

    // The filter narrows them, and the address carries it; a filter takes several values.
    tick(&c, "priority", "critical").await;
    let with = |s, p: Vec<Priority>| IssueFilter { status: vec![s], priority: p, ..IssueFilter::default() };
    let want = count(&store, with(Status::Open, vec![Priority::Critical]));
    wait_js(&c, &format!("location.search.includes('priority=critical') && document.querySelector('.column[data-status=open] .count').textContent === '{want}'"), Duration::from_secs(5), "priority filter").await;
    assert_eq!(
        column_count(&c, "in_progress").await as usize,
        count(&store, with(Status::InProgress, vec![Priority::Critical]))
    );
    assert!(want < count(&store, of_status(Status::Open)), "the generated workspace has non-critical open issues");
    tick(&c, "priority", "high").await;
    let both = count(&store, with(Status::Open, vec![Priority::Critical, Priority::High]));
    assert!(both > want, "the generated workspace has high open issues");
    wait_js(&c, &format!("decodeURIComponent(location.search).includes('priority=critical,high') && document.querySelector('.column[data-status=open] .count').textContent === '{both}'"), Duration::from_secs(5), "two priorities").await;
    let assignees = store.list(&of_status(Status::Open), SortField::Id, SortOrder::Asc).unwrap().value;
    let mut people: Vec<String> = assignees.iter().filter_map(|m| m.assignee.clone()).collect();
    people.sort();
    people.dedup();
    assert!(people.len() >= 2, "the generated workspace has two assignees with open issues");
    tick(&c, "assignee", &people[0]).await;
    tick(&c, "assignee", &people[1]).await;
    let of_two = assignees
        .iter()
        .filter(|m| matches!(m.priority, Priority::Critical | Priority::High))
        .filter(|m| m.assignee.as_ref().is_some_and(|a| a == &people[0] || a == &people[1]))
        .count();
    wait_js(&c, &format!("decodeURIComponent(location.search).includes('assignee={},{}') && document.querySelector('.column[data-status=open] .count').textContent === '{of_two}'", people[0], people[1]), Duration::from_secs(5), "two assignees").await;
    assert_eq!(
        js(&c, "return document.querySelector('details.multi[data-name=assignee] summary').textContent").await,
        json!(format!("Assignee: {}, {}", people[0], people[1]))
    );
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
    // The page says it saved, and shows the saved issue again; then type.
    wait_js(
        &c,
        "document.querySelector('#save-state').textContent === 'Saved priority' && document.querySelector('select[name=priority]').value === 'critical'",
        Duration::from_secs(5),
        "priority saved",
    )
    .await;
    // The assignee saves when the field is left, like every field (no Save button).
    focus(&c, "#edit-form input[name=assignee]").await;
    keys(&c, &format!("dana{}", fantoccini::key::Key::Tab)).await;
    let path = store.get_meta(&created).unwrap().value.path;
    wait_file(&path, "priority and assignee saved", |t| {
        t.contains("priority: critical") && t.contains("assignee: dana")
    })
    .await;
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
    let guarded = WebBoard::start(&ws_dir, &["--token", "let-me-in"]);
    let token_url = guarded.url.clone();
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
