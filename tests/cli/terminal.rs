//! `docket list` and `docket board` in a real terminal (tmux) at 60 and 160 columns, on a wrangler
//! workspace (tests/common/wrangler.rs): lines fit the terminal's width (read from the tty, not
//! COLUMNS), colour is on in a terminal, real issues come before markdown files without
//! frontmatter. Skips, saying why, without tmux.

use crate::common;
use crate::on_each_fixture;

use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux server of our own (its own socket), killed on drop.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn new() -> Tmux {
        Tmux { socket: format!("docket-test-{}-{}", std::process::id(), rand_suffix()) }
    }

    fn tmux(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux").arg("-L").arg(&self.socket).args(args).output().expect("tmux runs")
    }

    /// Runs `command` in a new `width`-column window and returns the screen, once as plain text
    /// (wrapped lines joined) and once with its escape sequences.
    fn run(&self, name: &str, width: u16, command: &str) -> (String, String) {
        let script = format!("{command}; echo __DONE__; sleep 30");
        let out =
            self.tmux(&["new-session", "-d", "-s", name, "-x", &width.to_string(), "-y", "50", "sh", "-c", &script]);
        assert!(out.status.success(), "tmux new-session: {}", String::from_utf8_lossy(&out.stderr));
        let target = format!("{name}:0");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let plain = self.tmux(&["capture-pane", "-p", "-J", "-S", "-", "-t", &target]);
            let text = String::from_utf8_lossy(&plain.stdout).into_owned();
            if text.contains("__DONE__") {
                let coloured = self.tmux(&["capture-pane", "-p", "-e", "-S", "-", "-t", &target]);
                return (text, String::from_utf8_lossy(&coloured.stdout).into_owned());
            }
            assert!(Instant::now() < deadline, "`{command}` did not finish in tmux:\n{text}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

fn rand_suffix() -> u32 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos())
}

on_each_fixture! {
    fn list_and_board_fit_60_and_160_column_terminals(fx) {
        let has_tmux = Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success());
        if !has_tmux {
            eprintln!(
                "SKIP list_and_board_fit_60_and_160_column_terminals: tmux is not installed (apt-get install -y tmux)"
            );
            return;
        }
        let ws = fx.path();
        let bin = env!("CARGO_BIN_EXE_docket");
        let tmux = Tmux::new();
        for width in [60u16, 160] {
            let docket =
                |args: &str| format!("env -u COLUMNS -u NO_COLOR {bin} {args} --workspace '{}' 2>/dev/null", ws.display());
            let (list, coloured) = tmux.run(&format!("list{width}"), width, &docket("list --limit 12"));
            let lines: Vec<&str> = list.lines().take_while(|l| !l.contains("__DONE__")).collect();
            assert!(lines.iter().all(|l| l.chars().count() <= usize::from(width)), "list at {width}:\n{list}");
            assert!(lines[0].starts_with("ID") && lines[0].contains("TITLE"), "{list}");
            assert_eq!(lines[0].contains("TYPE"), width >= 100, "TYPE only when there is room:\n{list}");
            let statuses = ["open", "in_progress", "closed", "cancelled"];
            let rows: Vec<&&str> = lines
                .iter()
                .skip(1)
                .filter(|l| l.split_whitespace().nth(1).is_some_and(|s| statuses.contains(&s)))
                .collect();
            assert_eq!(rows.len(), 12, "{list}");
            assert!(
                rows.iter().all(|r| ["ISS-", "SPEC-", "IDEA-", "0"].iter().any(|p| r.starts_with(p))),
                "real issues first, files without frontmatter (README, notes) last:\n{list}"
            );
            assert!(coloured.contains("\u{1b}["), "colour in a terminal:\n{coloured}");

            let (board, _) = tmux.run(&format!("board{width}"), width, &docket("board"));
            let lines: Vec<&str> = board.lines().take_while(|l| !l.contains("__DONE__")).collect();
            assert!(lines.iter().all(|l| l.chars().count() <= usize::from(width)), "board at {width}:\n{board}");
            assert!(
                lines[0].starts_with("OPEN (") && lines[0].contains("IN_PROGRESS (") && lines[0].contains("CLOSED ("),
                "{board}"
            );
            assert!(lines.len() > 5, "cards under the headers:\n{board}");
            if width == 160 {
                assert!(lines.iter().map(|l| l.chars().count()).max().unwrap() > 100, "the board uses the width:\n{board}");
            }
        }
    }
}

/// In a terminal, `show` of an issue taller than the screen goes through `$PAGER`; one that fits
/// is printed as is.
#[test]
fn show_pages_what_does_not_fit_the_terminal() {
    let has_tmux = Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success());
    if !has_tmux {
        eprintln!("SKIP show_pages_what_does_not_fit_the_terminal: tmux is not installed (apt-get install -y tmux)");
        return;
    }
    let dir = common::workspace();
    let bin = env!("CARGO_BIN_EXE_docket");
    let ws = dir.path().display().to_string();
    let create = |title: &str, body: &str| {
        let out = Command::new(bin)
            .args(["create", title, "--description", body, "--workspace", &ws])
            .output()
            .expect("docket create");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let tall = create("Tall", &"a line\n".repeat(80));
    let short = create("Short", "one line");
    let tmux = Tmux::new();
    let show = |id: &str| format!("env PAGER='echo PAGER-RAN; cat' {bin} show {id} --workspace '{ws}'");
    let (paged, _) = tmux.run("tall", 80, &show(&tall));
    assert!(paged.contains("PAGER-RAN"), "{paged}");
    let (plain, _) = tmux.run("short", 80, &show(&short));
    assert!(!plain.contains("PAGER-RAN") && plain.contains("one line"), "{plain}");
}

/// `docket board --interactive` in a real terminal: the three columns drawn, `>` moves the
/// selected (highest priority) open card to in progress through a tool call (the file says so),
/// Enter opens it, q quits.
#[test]
fn the_interactive_board_moves_a_card_and_opens_an_issue() {
    let has_tmux = Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success());
    if !has_tmux {
        eprintln!("SKIP the_interactive_board_moves_a_card_and_opens_an_issue: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().expect("tmp");
    docket::store::generate::generate_workspace(dir.path(), 40, 7);
    let store = || {
        docket::store::Store::open(
            docket::store::Workspace::at(dir.path()).expect("workspace"),
            docket::store::StoreOptions::default(),
        )
    };
    let tmux = Tmux::new();
    let bin = env!("CARGO_BIN_EXE_docket");
    let command = format!(
        "env -u COLUMNS {bin} board --interactive --workspace '{}'; echo __DONE__; sleep 30",
        dir.path().display()
    );
    let out = tmux.tmux(&["new-session", "-d", "-s", "tui", "-x", "150", "-y", "40", "sh", "-c", &command]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let screen = |until: &dyn Fn(&str) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let shot = tmux.tmux(&["capture-pane", "-p", "-t", "tui:0"]);
            let text = String::from_utf8_lossy(&shot.stdout).into_owned();
            if until(&text) {
                return text;
            }
            assert!(Instant::now() < deadline, "the board never showed what was expected:\n{text}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let first = screen(&|t| t.contains("OPEN (") && t.contains("IN_PROGRESS (") && t.contains("CLOSED ("));
    assert!(first.contains("Enter open"), "the keys are shown:\n{first}");
    // The selected card: the first open card, highest priority first.
    let card = first
        .lines()
        .nth(1)
        .and_then(|l| l.trim_start_matches(['│', ' ']).split_whitespace().next())
        .expect("a card")
        .to_string();
    assert!(card.contains('-'), "an issue id: {card}\n{first}");
    tmux.tmux(&["send-keys", "-t", "tui:0", ">"]);
    let moved = screen(&|t| t.contains(&format!("{card} is in_progress now.")));
    assert!(moved.contains("IN_PROGRESS ("), "{moved}");
    assert_eq!(store().get_meta(&card).expect("issue").value.status, docket::store::Status::InProgress);
    tmux.tmux(&["send-keys", "-t", "tui:0", "Enter"]);
    let title = store().get_meta(&card).expect("issue").value.title;
    screen(&|t| t.contains("any key closes") && t.contains(&title));
    tmux.tmux(&["send-keys", "-t", "tui:0", "Escape"]);
    tmux.tmux(&["send-keys", "-t", "tui:0", "q"]);
    screen(&|t| t.contains("__DONE__"));
}

/// The interactive board follows changes made elsewhere without a key pressed (here `docket
/// close` in another process lifts a blocker: the card that waited loses its mark, the closed
/// count grows), marks blocked cards, and the arrows move between columns (→ then Enter opens the
/// in-progress column's first card, as `docket show` prints it).
#[test]
fn the_interactive_board_follows_changes_made_elsewhere_and_marks_blocked_cards() {
    let has_tmux = Command::new("tmux").arg("-V").output().is_ok_and(|o| o.status.success());
    if !has_tmux {
        eprintln!("SKIP the_interactive_board_follows_changes_made_elsewhere: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().expect("tmp");
    docket::store::generate::generate_workspace(dir.path(), 20, 5);
    let bin = env!("CARGO_BIN_EXE_docket");
    let ws = dir.path().display().to_string();
    let docket = |args: &[&str]| {
        let out = Command::new(bin).args(args).args(["--workspace", &ws]).output().expect("docket");
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    let blocker = docket(&["create", "Blocker first", "--priority", "critical"]);
    let waits = docket(&["create", "Waits for it", "--priority", "critical", "--blocked-by", &blocker]);
    let store = docket::store::Store::open(
        docket::store::Workspace::at(dir.path()).expect("workspace"),
        docket::store::StoreOptions::default(),
    );
    let doing = store
        .list(
            &docket::store::IssueFilter { status: vec![docket::store::Status::InProgress], ..Default::default() },
            docket::store::SortField::Updated,
            docket::store::SortOrder::Desc,
        )
        .expect("list")
        .value;
    let tmux = Tmux::new();
    let command = format!("env -u COLUMNS {bin} board -i --workspace '{ws}'; echo __DONE__; sleep 30");
    let out = tmux.tmux(&["new-session", "-d", "-s", "live", "-x", "160", "-y", "40", "sh", "-c", &command]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let screen = |what: &str, until: &dyn Fn(&str) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let shot = tmux.tmux(&["capture-pane", "-p", "-t", "live:0"]);
            let text = String::from_utf8_lossy(&shot.stdout).into_owned();
            if until(&text) {
                return text;
            }
            assert!(Instant::now() < deadline, "{what}: the board never showed it:\n{text}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    // The card of `id`: its cell of the screen line (a line crosses every column).
    let line_of = |text: &str, id: &str| {
        text.lines().flat_map(|l| l.split('│')).find(|cell| cell.contains(id)).unwrap_or_default().to_string()
    };
    let first = screen("blocked mark", &|t| line_of(t, &waits).contains("⊘ Waits for it"));
    assert!(!line_of(&first, &blocker).contains('⊘'), "{first}");
    let closed_count =
        |t: &str| t.split("CLOSED (").nth(1).and_then(|r| r.split(')').next()).and_then(|n| n.parse::<usize>().ok());
    let before = closed_count(&first).expect("closed count");
    docket(&["close", &blocker]);
    let after = screen("the close made elsewhere", &|t| {
        closed_count(t) == Some(before + 1) && !line_of(t, &waits).contains('⊘') && line_of(t, &waits).contains("Waits")
    });
    assert!(after.contains("Enter open"), "{after}");
    if !doing.is_empty() {
        tmux.tmux(&["send-keys", "-t", "live:0", "Right"]);
        // The in-progress column is sorted by priority: open its selected card, whichever it is.
        tmux.tmux(&["send-keys", "-t", "live:0", "Enter"]);
        // The window's frame can be on screen before its text: wait for the dates, its last field.
        let opened = screen("an in-progress card opened", &|t| t.contains("any key closes") && t.contains(" ago)"));
        let id = opened
            .lines()
            .find_map(|l| l.split(": any key closes").next()?.rsplit(' ').next().filter(|s| s.contains('-')));
        let id = id.expect("the opened card's id").to_string();
        assert!(doing.iter().any(|m| m.id == id), "an in-progress card: {id}\n{opened}");
        // As `docket show` prints it: fields by name, dates with how long ago.
        assert!(opened.contains("Status:   in_progress") && opened.contains(" ago)"), "{opened}");
        tmux.tmux(&["send-keys", "-t", "live:0", "Escape"]);
    }
    tmux.tmux(&["send-keys", "-t", "live:0", "q"]);
    screen("quit", &|t| t.contains("__DONE__"));
}
