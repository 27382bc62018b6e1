//! Many agents, one truth (issue 38), on one machine: linked git worktrees in the three layouts
//! agents make share the main worktree's workspace, so claims, ids and the ready queue are one
//! state; `worktrees: local` keeps each worktree's files while claims still hold across them.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::many::{
    Layout, commit_all, docket_cmd, docket_in, issue_files, ok_in, repo_with_issues, serve_in, status_of,
};
use common::{call, git, is_error, structured, text};
use serde_json::json;

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A repository at `tmp/main` with 6 committed tasks.
fn repo(tmp: &Path, dir_name: &str) -> PathBuf {
    let main = tmp.join("main");
    repo_with_issues(&main, dir_name, 6);
    main
}

#[test]
fn every_layout_serves_the_main_worktrees_workspace_both_ways() {
    for dir_name in [".docket", ".wrangler"] {
        for layout in Layout::ALL {
            let tmp = tempfile::tempdir().expect("tmp");
            let main = repo(tmp.path(), dir_name);
            let wt = layout.add(&main, "agent");
            // Created by the orchestrator after the worktree exists: seen in the worktree.
            let late = ok_in(&main, &["create", "--title", "made after the worktree"], &[]).trim().to_string();
            let shown = docket_in(&wt, &["show", &late], &[]);
            assert!(shown.status.success(), "{layout:?} {dir_name}: {}", stderr(&shown));
            // Created in the worktree: seen from the main checkout, with the next id.
            let from_wt = ok_in(&wt, &["create", "--title", "made in the worktree"], &[]).trim().to_string();
            assert_eq!(from_wt, "ISS-000008", "{layout:?} {dir_name}: one numbering");
            assert!(ok_in(&main, &["show", &from_wt], &[]).contains("made in the worktree"), "{layout:?} {dir_name}");
            assert!(!issue_files(&wt.join(dir_name)).iter().any(|n| n.starts_with("ISS-000008")));
            // doctor says which workspace it checked, and why.
            let doctor = ok_in(&wt, &["doctor"], &[]);
            assert!(doctor.contains("serving the main worktree's workspace"), "{doctor}");
        }
    }
}

#[test]
fn the_start_up_line_names_the_main_worktrees_workspace() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = repo(tmp.path(), ".docket");
    let wt = Layout::Sibling.add(&main, "a");
    // `--workspace` naming the worktree (or DOCKET_WORKSPACE) is mapped the same way.
    for (args, env) in [
        (vec!["serve"], vec![]),
        (vec!["serve", "--workspace", wt.to_str().expect("utf-8")], vec![]),
        (vec!["serve"], vec![("DOCKET_WORKSPACE", wt.to_str().expect("utf-8"))]),
    ] {
        let o = docket_in(&wt, &args, &env);
        let err = stderr(&o);
        let main_ws = main.canonicalize().expect("canon").join(".docket");
        assert!(
            err.contains(&format!("serving the main worktree's workspace {}", main_ws.display())),
            "{args:?}: {err}"
        );
        assert!(err.contains(&format!("serving {}", main_ws.display())), "{err}");
    }
}

/// Claims issues 1..=4 from `n` agents at once; for each issue, who won.
async fn race_mcp(dirs: &[PathBuf], env: &[(&str, &str)]) -> BTreeMap<String, Vec<String>> {
    let mut clients = Vec::new();
    for d in dirs {
        clients.push(serve_in(d, env).await);
    }
    let mut calls = Vec::new();
    for (n, client) in clients.iter().enumerate() {
        for i in 1..=4 {
            let id = format!("ISS-{i:06}");
            calls.push(async move {
                let r = call(client, "issues_claim", json!({"id": id, "assignee": format!("agent-{n}")})).await;
                (id, n, r)
            });
        }
    }
    let mut winners: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (id, n, r) in futures::future::join_all(calls).await {
        let entry = winners.entry(id.clone()).or_default();
        if is_error(&r) {
            let t = text(&r);
            assert!(t.contains("held by agent-") && t.contains(" ago"), "a loser is told the holder and when: {t}");
        } else {
            assert_eq!(structured(&r)["claimed"], true, "{}", text(&r));
            entry.push(format!("agent-{n}"));
        }
    }
    for c in clients {
        c.cancel().await.expect("close");
    }
    winners
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn mcp_servers_in_three_worktrees_racing_for_four_issues_get_one_winner_each() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = repo(tmp.path(), ".docket");
    let dirs: Vec<PathBuf> = Layout::ALL.iter().enumerate().map(|(i, l)| l.add(&main, &format!("w{i}"))).collect();
    let winners = race_mcp(&dirs, &[]).await;
    for (id, who) in &winners {
        assert_eq!(who.len(), 1, "{id}: {who:?}");
    }
    let listed = ok_in(&main, &["list", "--status", "in_progress"], &[]);
    assert_eq!(listed.lines().filter(|l| l.contains("in_progress")).count(), 4, "{listed}");
}

#[test]
fn cli_processes_in_worktrees_racing_get_one_winner_each_and_an_mcp_claim_after_conflicts() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = repo(tmp.path(), ".wrangler");
    let dirs: Vec<PathBuf> = Layout::ALL.iter().enumerate().map(|(i, l)| l.add(&main, &format!("c{i}"))).collect();
    let children: Vec<(String, std::process::Child)> = (1..=4)
        .flat_map(|i| dirs.iter().enumerate().map(move |(n, d)| (i, n, d)))
        .map(|(i, n, d)| {
            let id = format!("ISS-{i:06}");
            let mut cmd = docket_cmd(d, &["claim", &id, "--as", &format!("cli-{n}")], &[]);
            cmd.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
            (id, cmd.spawn().expect("spawn"))
        })
        .collect();
    let mut wins: BTreeMap<String, usize> = BTreeMap::new();
    for (id, child) in children {
        let o = child.wait_with_output().expect("wait");
        if o.status.success() {
            *wins.entry(id).or_default() += 1;
        } else {
            assert!(stderr(&o).contains("held by cli-"), "{}", stderr(&o));
        }
    }
    assert_eq!(wins.values().copied().collect::<Vec<_>>(), vec![1, 1, 1, 1], "{wins:?}");
    // A closed issue is not taken over: the refusal offers no takeover.
    ok_in(&dirs[2], &["close", "ISS-000005"], &[]);
    let closed = docket_in(&dirs[1], &["claim", "ISS-000005", "--as", "z"], &[]);
    assert!(!closed.status.success() && !stderr(&closed).contains("--force"), "{}", stderr(&closed));
    // `docket claim` in one worktree, then issues_claim in another: CONFLICT naming the holder.
    ok_in(&dirs[0], &["claim", "ISS-000006", "--as", "x"], &[]);
    let rt = tokio::runtime::Runtime::new().expect("rt");
    rt.block_on(async {
        let client = serve_in(&dirs[1], &[]).await;
        let r = call(&client, "issues_claim", json!({"id": "ISS-000006", "assignee": "y"})).await;
        assert!(is_error(&r) && text(&r).contains("held by x"), "{}", text(&r));
        assert!(text(&r).contains("takeoverReason"), "the refusal names the takeover: {}", text(&r));
        client.cancel().await.expect("close");
    });
}

#[test]
fn worktree_local_keeps_its_files_but_claims_hold_across_worktrees() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = repo(tmp.path(), ".docket");
    let (a, b) = (Layout::Wrangler.add(&main, "a"), Layout::Sibling.add(&main, "b"));
    let local: &[(&str, &str)] = &[("DOCKET_WORKTREES", "local")];
    // Its own files: a task created with --worktree-local stays in the worktree.
    let own = ok_in(&a, &["create", "--title", "only in a", "--worktree-local"], &[]).trim().to_string();
    assert!(issue_files(&a.join(".docket")).iter().any(|n| n.starts_with(&own)));
    let in_main = docket_in(&main, &["show", &own], &[]);
    assert!(!in_main.status.success() || !stdout(&in_main).contains("only in a"), "not in main's files");
    // Claims hold across worktrees through the common git directory.
    ok_in(&a, &["claim", "ISS-000002", "--as", "ann"], local);
    let lost = docket_in(&b, &["claim", "ISS-000002", "--as", "bob"], local);
    assert!(!lost.status.success() && stderr(&lost).contains("held by ann since"), "{}", stderr(&lost));
    assert_eq!(status_of(&b.join(".docket"), "ISS-000002"), "open", "nothing written in b");
    // b's ready queue leaves out what a holds.
    let ready = ok_in(&b, &["ready"], local);
    assert!(!ready.contains("ISS-000002") && ready.contains("ISS-000001"), "{ready}");
    // Closing leaves a tombstone (compare-and-set on the holder's record): b, whose files still
    // say open, is not offered the finished work and cannot claim it.
    ok_in(&a, &["close", "ISS-000002"], local);
    let tomb = git(&main, &["cat-file", "-p", "refs/docket/claims/ISS-000002"]);
    assert!(tomb.contains("state closed") && tomb.contains("holder ann"), "{tomb}");
    let late = docket_in(&b, &["claim", "ISS-000002", "--as", "bob"], local);
    assert!(!late.status.success() && stderr(&late).contains("closed by ann at"), "{}", stderr(&late));
    // A release hands it back: b can take it.
    ok_in(&a, &["claim", "ISS-000004", "--as", "ann"], local);
    ok_in(&a, &["release", "ISS-000004", "--as", "ann"], local);
    ok_in(&b, &["claim", "ISS-000004", "--as", "bob"], local);
    // A stale claim is taken over only on purpose, with a reason.
    ok_in(&b, &["claim", "ISS-000003", "--as", "bob"], local);
    let refused = docket_in(&a, &["claim", "ISS-000003", "--as", "ann"], local);
    assert!(!refused.status.success() && stderr(&refused).contains("--force"), "{}", stderr(&refused));
    ok_in(&a, &["claim", "ISS-000003", "--as", "ann", "--force", "bob's session crashed"], local);
    let claim = git(&main, &["cat-file", "-p", "refs/docket/claims/ISS-000003"]);
    assert!(claim.contains("holder ann") && claim.contains("takeover from bob: bob's session crashed"), "{claim}");
    commit_all(&a, "a's local task");
}

#[test]
fn a_bare_repository_with_only_linked_worktrees_keeps_each_worktrees_files_and_one_claim() {
    let tmp = tempfile::tempdir().expect("tmp");
    let seed = tmp.path().join("seed");
    repo_with_issues(&seed, ".docket", 3);
    let bare = tmp.path().join("repo.git");
    git(tmp.path(), &["clone", "-q", "--bare", seed.to_str().expect("utf-8"), bare.to_str().expect("utf-8")]);
    let (w1, w2) = (tmp.path().join("w1"), tmp.path().join("w2"));
    git(&bare, &["worktree", "add", "-q", w1.to_str().expect("utf-8"), "main"]);
    git(&bare, &["worktree", "add", "-q", w2.to_str().expect("utf-8"), "-b", "two"]);
    let o = docket_in(&w1, &["doctor"], &[]);
    assert!(stdout(&o).contains("claims hold across worktrees"), "{}", stdout(&o));
    ok_in(&w1, &["claim", "ISS-000001", "--as", "one"], &[]);
    let lost = docket_in(&w2, &["claim", "ISS-000001", "--as", "two"], &[]);
    assert!(!lost.status.success() && stderr(&lost).contains("held by one"), "{}", stderr(&lost));
}

#[test]
fn the_merge_hook_in_a_linked_worktree_repairs_that_worktrees_tree() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = tmp.path().join("main");
    repo_with_issues(&main, ".docket", 0);
    ok_in(&main, &["git-setup"], &[]);
    commit_all(&main, "git-setup");
    let wt = Layout::Sibling.add(&main, "w");
    // Both sides number their own files without looking at the other branch: one id twice.
    let alone: &[(&str, &str)] = &[("DOCKET_BRANCH_AWARE_IDS", "false"), ("DOCKET_WORKTREES", "local")];
    assert_eq!(ok_in(&wt, &["create", "--title", "made in w"], alone).trim(), "ISS-000001");
    commit_all(&wt, "w's task");
    assert_eq!(ok_in(&main, &["create", "--title", "made in main"], alone).trim(), "ISS-000001");
    commit_all(&main, "main's task");
    let merge = common::git_command(&wt).args(["merge", "-q", "--no-edit", "main"]).output().expect("git merge");
    assert!(merge.status.success(), "{}", stderr(&merge));
    let names = issue_files(&wt.join(".docket"));
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("ISS-000002")), "the hook renumbered the worktree's copy: {names:?}");
    let in_main = issue_files(&main.join(".docket"));
    assert_eq!(in_main, ["ISS-000001-made-in-main.md"], "the main worktree's files are not the merged tree");
    // git exports GIT_DIR to hooks in a linked worktree; the repair is committed all the same.
    let status = common::git(&wt, &["status", "--porcelain"]);
    assert!(status.is_empty(), "the hook committed its repair: {status}{}", stderr(&merge));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_server_in_one_worktree_sees_a_task_created_in_another_at_the_next_call() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = repo(tmp.path(), ".docket");
    let (a, b) = (Layout::Claude.add(&main, "a"), Layout::Wrangler.add(&main, "b"));
    let client = serve_in(&a, &[]).await;
    let before = call(&client, "issues_ready", json!({})).await;
    assert_eq!(structured(&before)["totalCount"], 6);
    let id = ok_in(&b, &["create", "--title", "made in b while a serves"], &[]).trim().to_string();
    let got = call(&client, "issues_get", json!({"id": id})).await;
    assert!(!is_error(&got) && text(&got).contains("made in b while a serves"), "{}", text(&got));
    let after = call(&client, "issues_ready", json!({})).await;
    assert_eq!(structured(&after)["totalCount"], 7);
    client.cancel().await.expect("close");
}

/// With no workspace anywhere, the first write in a linked worktree creates the one every
/// worktree then serves: `.wrangler/` in the main worktree, and nothing in the linked one.
#[test]
fn the_first_write_in_a_worktree_of_a_repository_without_a_workspace_creates_the_main_worktrees() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = tmp.path().join("main");
    std::fs::create_dir_all(&main).expect("mkdir");
    common::git(&main, &["init", "-q", "-b", "main"]);
    common::git(&main, &["commit", "-q", "--allow-empty", "-m", "start"]);
    let wt = Layout::Sibling.add(&main, "w");
    let listed = ok_in(&wt, &["list"], &[]);
    assert!(!main.join(".wrangler").exists() && !wt.join(".wrangler").exists(), "a read creates nothing: {listed}");
    let id = ok_in(&wt, &["create", "--title", "first task"], &[]).trim().to_string();
    assert!(main.join(".wrangler/issues").is_dir(), "created in the main worktree");
    assert!(!wt.join(".wrangler").exists(), "not in the linked worktree");
    let shown = ok_in(&main, &["show", &id], &[]);
    assert!(shown.contains("first task"), "{shown}");
}

/// The HTTP server and the web board, started in linked worktrees the way a client and a person
/// start them (cwd = the worktree; `--workspace` naming the worktree), serve the main worktree's
/// workspace too: a task made over HTTP in one worktree is in the main checkout's files and on the
/// board started in another, and its claim over HTTP holds against the CLI in a third.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_and_the_board_in_worktrees_serve_the_one_workspace() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = repo(tmp.path(), ".docket");
    let (a, b, c) = (Layout::Claude.add(&main, "a"), Layout::Wrangler.add(&main, "b"), Layout::Sibling.add(&main, "c"));
    let mut server = docket_cmd(&a, &["serve", "--http", "127.0.0.1:0"], &[])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn docket serve --http");
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(server.stderr.take().expect("stderr")));
    let url = loop {
        let line = lines.next().expect("the server announces its URL").expect("UTF-8");
        if let Some(at) = line.find("http://") {
            break line[at..].trim().to_string();
        }
    };
    std::thread::spawn(move || lines.for_each(drop));
    let client = rmcp::ServiceExt::serve((), rmcp::transport::StreamableHttpClientTransport::from_uri(url.as_str()))
        .await
        .expect("initialize over HTTP");
    let made = call(&client, "issues_create", json!({"title": "made over HTTP in a", "description": "x"})).await;
    let id = structured(&made)["issue"]["id"].as_str().expect("id").to_string();
    assert_eq!(id, "ISS-000007", "one numbering: {}", text(&made));
    assert!(issue_files(&main.join(".docket")).iter().any(|n| n.starts_with(&id)), "in the main checkout's files");
    assert!(!a.join(".docket").join("issues").join(&id).exists());
    let claimed = call(&client, "issues_claim", json!({"id": id, "assignee": "agent-a"})).await;
    assert!(!is_error(&claimed), "{}", text(&claimed));
    let refused = docket_in(&c, &["claim", &id, "--as", "agent-c"], &[]);
    assert!(!refused.status.success() && stderr(&refused).contains("held by agent-a"), "{}", stderr(&refused));

    let board = common::http::WebBoard::start(&b, &[]);
    let list = reqwest::get(format!("{}/api/list", board.origin())).await.expect("GET /api/list");
    assert!(list.status().is_success(), "{}", list.status());
    let shown = list.text().await.expect("body");
    assert!(shown.contains("made over HTTP in a"), "the board in b shows a's task: {shown}");
    client.cancel().await.expect("close");
    let _ = server.kill();
    let _ = server.wait();
}

/// A claim ended by hand, `docket edit` closing the issue in one worktree of `worktrees: local`
/// (each worktree its own files, claims as refs of the common git dir), ends the claim as
/// issues_update does: a tombstone, so another worktree whose files still say open cannot claim
/// the finished work.
#[test]
fn closing_a_claimed_issue_in_the_editor_leaves_a_tombstone() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = repo(tmp.path(), ".docket");
    let (a, b) = (Layout::Claude.add(&main, "a"), Layout::Sibling.add(&main, "b"));
    let local = [("DOCKET_WORKTREES", "local")];
    ok_in(&a, &["claim", "ISS-000002", "--as", "agent-a"], &local);
    assert!(git(&main, &["for-each-ref", "refs/docket/claims/"]).contains("ISS-000002"), "the claim is a ref");
    let held = docket_in(&b, &["claim", "ISS-000002", "--as", "agent-b"], &local);
    assert!(!held.status.success() && stderr(&held).contains("held by agent-a"), "{}", stderr(&held));
    let close = [local[0], ("EDITOR", "sed -i -e 's/^status: .*/status: closed/'")];
    ok_in(&a, &["edit", "ISS-000002"], &close);
    let shown = ok_in(&a, &["show", "ISS-000002"], &local);
    assert!(shown.contains("closed"), "{shown}");
    let tomb = git(&main, &["cat-file", "-p", "refs/docket/claims/ISS-000002"]);
    assert!(tomb.contains("state closed") && tomb.contains("holder agent-a"), "the edit left a tombstone: {tomb}");
    let late = docket_in(&b, &["claim", "ISS-000002", "--as", "agent-b"], &local);
    assert!(!late.status.success() && stderr(&late).contains("closed by agent-a"), "{}", stderr(&late));
}
