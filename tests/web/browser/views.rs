//! The list view and the statistics page in a browser: the table sorts by its columns and takes
//! the filter bar; the statistics count what the store counts, and the chart's totals agree.

use std::time::Duration;

use docket::store::{IssueFilter, Priority, SortField, SortOrder, Status, Store, StoreOptions, Workspace};
use serde_json::json;

use super::support::*;

async fn rows(c: &fantoccini::Client) -> Vec<(String, String)> {
    let v = js(
        c,
        "return [...document.querySelectorAll('#list tbody tr[data-id]')].map(r => [r.dataset.id, r.dataset.created])",
    )
    .await;
    v.as_array().unwrap().iter().map(|r| (r[0].as_str().unwrap().into(), r[1].as_str().unwrap().into())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_sorts_and_the_statistics_count_what_the_store_counts() {
    let Some((chromium, driver_bin)) = tools("the_list_sorts_and_the_statistics_count_what_the_store_counts") else {
        return;
    };
    let _serial = one_at_a_time().await;
    let root = tempfile::tempdir().expect("temp dir");
    let ws_dir = root.path().join("acme-app");
    docket::store::generate::generate_workspace(&ws_dir, 36, 11);
    let store = Store::open(Workspace::at(&ws_dir).expect("workspace"), StoreOptions::default());
    let all = store.list(&IssueFilter::default(), SortField::Id, SortOrder::Asc).unwrap().value;
    let (board, c) = open_board(&ws_dir, &driver_bin, &chromium).await;
    let (url, base, driver) = (board.url.clone(), board.base.clone(), board.driver.clone());

    // The List tab: open, in progress and closed issues, as the board has them.
    c.goto(&url).await.expect("board");
    wait_js(&c, "document.querySelector('.card')", Duration::from_secs(10), "board").await;
    click(&c, "#views a[data-view=list]").await;
    wait_js(
        &c,
        "location.pathname === '/list' && document.querySelector('#list[aria-busy=false]')",
        Duration::from_secs(5),
        "list",
    )
    .await;
    let shown: Vec<_> = all.iter().filter(|m| m.status != Status::Cancelled).collect();
    assert_eq!(rows(&c).await.len(), shown.len());

    // Created: newest first, then (clicked again) oldest first, in the address too.
    click(&c, "button.sort[data-sort=created]").await;
    wait_js(
        &c,
        "document.querySelector('th[data-key=created]')?.getAttribute('aria-sort') === 'descending'",
        Duration::from_secs(5),
        "sorted",
    )
    .await;
    let created: Vec<String> = rows(&c).await.into_iter().map(|r| r.1).collect();
    let mut want = created.clone();
    want.sort_by(|a, b| b.cmp(a));
    assert_eq!(created, want, "newest first");
    click(&c, "button.sort[data-sort=created]").await;
    wait_js(&c, "document.querySelector('th[data-key=created]')?.getAttribute('aria-sort') === 'ascending' && location.search.includes('sort=created&order=asc')", Duration::from_secs(5), "ascending").await;
    let created: Vec<String> = rows(&c).await.into_iter().map(|r| r.1).collect();
    want.reverse();
    assert_eq!(created, want, "oldest first");
    let oldest = shown.iter().min_by_key(|m| m.created_at.clone()).unwrap();
    assert_eq!(rows(&c).await[0].0, oldest.id);
    // ID: by number.
    click(&c, "button.sort[data-sort=id]").await;
    wait_js(
        &c,
        "document.querySelector('th[data-key=id]')?.getAttribute('aria-sort') === 'ascending'",
        Duration::from_secs(5),
        "by id",
    )
    .await;
    let ids: Vec<String> = rows(&c).await.into_iter().map(|r| r.0).collect();
    let mut by_id: Vec<&String> = shown.iter().map(|m| &m.id).collect();
    by_id.sort_by_key(|i| (i[..i.find('-').unwrap()].to_string(), i.to_string()));
    assert_eq!(ids.iter().collect::<Vec<_>>(), by_id);

    // Filters with several values, the cancelled status among them.
    tick(&c, "status", "cancelled").await;
    tick(&c, "priority", "critical").await;
    tick(&c, "priority", "low").await;
    let want = all
        .iter()
        .filter(|m| m.status == Status::Cancelled && matches!(m.priority, Priority::Critical | Priority::Low))
        .count();
    wait_js(&c, &format!("decodeURIComponent(location.search).includes('priority=critical,low') && document.querySelector('#list').dataset.count === '{want}'"), Duration::from_secs(5), "filtered list").await;
    assert!(rows(&c).await.len() == want && want > 0, "{want} cancelled critical or low issues");
    assert!(js(&c, "return location.search.includes('sort=id')").await == json!(true), "the sort stays");
    c.goto(&format!("{base}/list?sort=priority")).await.expect("list");
    wait_js(&c, "document.querySelector('#list[aria-busy=false]')", Duration::from_secs(5), "list").await;
    shoot(&c, "list-light-desktop.png").await;

    // Statistics: counts by status, priority and assignee, as the store has them.
    click(&c, "#views a[data-view=stats]").await;
    wait_js(
        &c,
        "location.pathname === '/stats' && document.querySelector('#stats[aria-busy=false]')",
        Duration::from_secs(5),
        "stats",
    )
    .await;
    let count_of = |block: &str, key: &str| {
        format!("return Number(document.querySelector(\"#{block} tr[data-key='{key}'] td.num\")?.textContent)")
    };
    for s in Status::ALL {
        let n = all.iter().filter(|m| m.status == *s).count();
        assert_eq!(js(&c, &count_of("stat-status", s.as_str())).await, json!(n), "{s}");
    }
    for p in Priority::ALL {
        let n = all.iter().filter(|m| m.priority == *p).count();
        assert_eq!(js(&c, &count_of("stat-priority", p.as_str())).await, json!(n), "{p}");
    }
    let mut people: Vec<&str> = all.iter().filter_map(|m| m.assignee.as_deref()).collect();
    people.sort();
    people.dedup();
    assert!(!people.is_empty());
    for who in people {
        let n = all.iter().filter(|m| m.assignee.as_deref() == Some(who)).count();
        assert_eq!(js(&c, &count_of("stat-assignee", who)).await, json!(n), "{who}");
    }
    // The chart: two lines, running up to every issue created and every one closed or cancelled.
    let chart = js(&c, "const s = document.querySelector('#stat-chart svg.chart'); return [s.dataset.created, s.dataset.closed, s.querySelectorAll('polyline').length]").await;
    let closed = all.iter().filter(|m| m.status.is_archived()).count();
    assert_eq!(chart, json!([all.len().to_string(), closed.to_string(), 2]));
    assert!(closed > 0 && closed < all.len());
    shoot(&c, "stats-light-desktop.png").await;
    c.close().await.expect("close the browser");

    // Dark.
    let dark_profile = tempfile::tempdir().expect("profile dir");
    let d = browser(&driver, &chromium, dark_profile.path(), true).await;
    d.set_window_size(1440, 900).await.expect("size");
    for (path, name) in [("/stats", "stats-dark-desktop.png"), ("/list?sort=priority", "list-dark-desktop.png")] {
        d.goto(&format!("{base}{path}")).await.expect("page");
        wait_js(&d, "document.querySelector('[aria-busy=false]')", Duration::from_secs(5), path).await;
        shoot(&d, name).await;
    }
    d.close().await.expect("close the browser");
}
