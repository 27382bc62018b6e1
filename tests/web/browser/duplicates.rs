//! A card whose id several files hold: the card carries a "duplicate id" marker, and a move of
//! it is refused with one line (how many files, and what repairs it), not every file's path.

use std::time::Duration;

use serde_json::json;

use super::support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicated_card_is_marked_and_its_refusal_is_one_line() {
    let Some((chromium, driver_bin)) = tools("a_duplicated_card_is_marked") else { return };
    let _serial = one_at_a_time().await;
    let root = tempfile::tempdir().expect("temp dir");
    let ws_dir = root.path().join("copied-app");
    docket::store::generate::generate_workspace(&ws_dir, 8, 5);
    let issues = ws_dir.join(".docket/issues");
    let mut files: Vec<std::path::PathBuf> =
        std::fs::read_dir(&issues).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_file()).collect();
    files.sort();
    // An open issue, copied twice by hand: three files hold its id.
    let (original, text) = files
        .iter()
        .map(|p| (p.clone(), std::fs::read_to_string(p).unwrap()))
        .find(|(_, t)| t.contains("\nstatus: open\n"))
        .expect("an open issue");
    let id = text
        .lines()
        .find_map(|l| l.strip_prefix("id: "))
        .expect("an id line")
        .trim_matches(|c| c == '\'' || c == '"')
        .to_string();
    for n in 1..=2 {
        std::fs::copy(&original, original.with_extension("").with_extension(format!("copy{n}.md"))).unwrap();
    }
    let single = files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .find(|t| t.contains("\nstatus: open\n") && !t.contains(&format!("id: {id}\n")))
        .and_then(|t| t.lines().find_map(|l| l.strip_prefix("id: ")).map(|s| s.trim_matches('\'').to_string()));

    let (board, c) = open_board(&ws_dir, &driver_bin, &chromium).await;
    c.goto(&board.url).await.expect("board");
    let card = format!(".card[data-id=\"{id}\"]");
    wait_js(&c, &format!("document.querySelector('{card}')"), Duration::from_secs(10), "the card").await;

    // The marker, with its explanation in a title.
    let mark = js(
        &c,
        &format!("const m = document.querySelector('{card} .duplicate-mark'); return m && [m.textContent, m.title]"),
    )
    .await;
    assert_eq!(mark, json!(["duplicate id", "This id is held by 3 files: run `docket doctor --fix`"]), "{mark}");
    if let Some(single) = single {
        let other =
            js(&c, &format!("return !!document.querySelector('.card[data-id=\"{single}\"] .duplicate-mark')")).await;
        assert_eq!(other, json!(false), "{single} is held by one file and has no marker");
    }

    // A move is refused in one line.
    choose(&c, &format!("{card} select.move"), "closed").await;
    wait_js(&c, "document.querySelector('.toast-error')", Duration::from_secs(10), "the refusal").await;
    let toast = js(&c, "return document.querySelector('.toast-error').textContent").await;
    let toast = toast.as_str().unwrap();
    assert_eq!(toast, format!("{id}: this id is held by 3 files: run `docket doctor --fix`"));
    assert!(!toast.contains(".md"), "no file paths: {toast}");
    c.close().await.expect("close the browser");
}
