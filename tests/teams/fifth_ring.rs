//! The fifth attack round (issue 44): a worktree, a copied file and an empty folder mean what
//! they say. Real git throughout: real `git worktree add`, a real `mv` of a main checkout, real
//! clones of a bare remote and real merges.

use crate::common;

use std::path::{Path, PathBuf};

use common::git;
use common::many::{Layout, commit_all, docket_in, issue_files, ok_in, repo_with_issues};

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A repository at `tmp/main` with a root `.docket` holding 3 committed tasks.
fn repo(tmp: &Path) -> PathBuf {
    let main = tmp.join("main");
    repo_with_issues(&main, ".docket", 3);
    main
}

/// Adds a `packages/app/.docket` with one task, committed, in `checkout`; its folder.
fn add_app_workspace(checkout: &Path, title: &str) -> PathBuf {
    let app = checkout.join("packages/app");
    std::fs::create_dir_all(&app).expect("mkdir packages/app");
    docket::store::Workspace::init(&app).expect("init packages/app");
    ok_in(&app, &["create", "--title", title], &[]);
    commit_all(checkout, "packages/app workspace");
    app
}

#[test]
fn a_worktrees_own_nested_workspace_is_served_unless_the_main_checkout_has_one_there() {
    for layout in [Layout::Wrangler, Layout::Sibling] {
        let tmp = tempfile::tempdir().expect("tmp");
        let main = repo(tmp.path());
        let wt = layout.add(&main, "app");
        let app = add_app_workspace(&wt, "app task one");
        let main_files = issue_files(&main.join(".docket"));
        // Run in packages/app: the worktree's own nested workspace, not the main checkout's root.
        let made = ok_in(&app, &["create", "--title", "made in packages/app"], &[]).trim().to_string();
        assert_eq!(made, "ISS-000002", "{layout:?}: numbered in packages/app/.docket");
        assert_eq!(issue_files(&app.join(".docket")).len(), 2, "{layout:?}");
        assert_eq!(issue_files(&main.join(".docket")), main_files, "{layout:?}: the main checkout's root is untouched");
        // Named from the worktree's root: served as named.
        let named = ok_in(&wt, &["create", "--workspace", "packages/app/.docket", "--title", "named"], &[]);
        assert_eq!(named.trim(), "ISS-000003", "{layout:?}");
        assert_eq!(issue_files(&main.join(".docket")), main_files, "{layout:?}: a named folder is never redirected");
        // The worktree's root still shares the main checkout's root workspace.
        let root_made = ok_in(&wt, &["create", "--title", "made at the worktree root"], &[]);
        assert_eq!(root_made.trim(), "ISS-000004", "{layout:?}");
        assert_eq!(issue_files(&main.join(".docket")).len(), main_files.len() + 1, "{layout:?}");
    }
}

#[test]
fn a_nested_workspace_the_main_checkout_also_has_is_shared_but_a_named_folder_is_not() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = repo(tmp.path());
    let main_app = add_app_workspace(&main, "app task one");
    let wt = Layout::Sibling.add(&main, "app");
    let wt_app = wt.join("packages/app");
    let made = ok_in(&wt_app, &["create", "--title", "shared"], &[]).trim().to_string();
    assert_eq!(made, "ISS-000002");
    assert_eq!(issue_files(&main_app.join(".docket")).len(), 2, "shared with the main checkout's packages/app");
    assert_eq!(issue_files(&wt_app.join(".docket")).len(), 1);
    let dir = wt_app.join(".docket");
    ok_in(&wt, &["create", "--workspace", dir.to_str().expect("utf-8"), "--title", "named"], &[]);
    assert_eq!(issue_files(&wt_app.join(".docket")).len(), 2);
    assert_eq!(issue_files(&main_app.join(".docket")).len(), 2, "the main checkout's files are untouched");
}

#[test]
fn a_linked_worktree_whose_main_checkout_moved_is_refused_naming_git_worktree_repair() {
    let tmp = tempfile::tempdir().expect("tmp");
    let main = repo(tmp.path());
    let wt = Layout::Sibling.add(&main, "agent");
    ok_in(&main, &["claim", "ISS-000001", "--as", "ann"], &[]);
    let moved = tmp.path().join("main-moved");
    let mv = std::process::Command::new("mv").arg(&main).arg(&moved).status().expect("mv");
    assert!(mv.success());
    let before = issue_files(&wt.join(".docket"));
    for args in [
        vec!["claim", "ISS-000001", "--as", "bob"],
        vec!["create", "--title", "split off"],
        vec!["list"],
        vec!["serve"],
    ] {
        let o = docket_in(&wt, &args, &[]);
        assert!(!o.status.success(), "{args:?} must be refused: {}", String::from_utf8_lossy(&o.stdout));
        assert!(stderr(&o).contains("git worktree repair"), "{args:?}: {}", stderr(&o));
    }
    assert_eq!(issue_files(&wt.join(".docket")), before, "nothing written in the worktree's own files");
    // Repaired: the worktree shares the moved checkout's workspace again, with ann's claim.
    git(&moved, &["worktree", "repair", wt.to_str().expect("utf-8")]);
    let o = docket_in(&wt, &["claim", "ISS-000001", "--as", "bob"], &[]);
    assert!(!o.status.success() && stderr(&o).contains("ann"), "{}", stderr(&o));
}

/// A bare origin with a committed `.docket/` holding one template issue, and two clones set up
/// with `docket git-setup` (merge driver and hooks).
fn origin_with_template(tmp: &Path) -> (PathBuf, PathBuf) {
    let origin = tmp.join("origin.git");
    git(tmp, &["init", "-q", "--bare", "-b", "main", origin.to_str().expect("utf-8")]);
    git(tmp, &["clone", "-q", origin.to_str().expect("utf-8"), "seed"]);
    let seed = tmp.join("seed");
    docket::store::Workspace::init(&seed).expect("init");
    ok_in(&seed, &["git-setup"], &[]);
    ok_in(&seed, &["create", "--title", "template", "--description", "## Steps\n\n- [ ] fill me in\n"], &[]);
    commit_all(&seed, "workspace with a template");
    git(&seed, &["push", "-q", "origin", "main"]);
    let clone = |name: &str| {
        git(tmp, &["clone", "-q", origin.to_str().expect("utf-8"), name]);
        let dir = tmp.join(name);
        ok_in(&dir, &["git-setup"], &[]);
        dir
    };
    (clone("a"), clone("b"))
}

/// The template copied by hand into a new issue, the way a careless collaborator makes one:
/// id, title and assignee edited, everything else (docketKey, createdAt, body) kept.
fn copy_template(dir: &Path, id: &str, title: &str, assignee: &str) -> PathBuf {
    let issues = dir.join(".docket/issues");
    let template = issue_files(&dir.join(".docket")).into_iter().find(|n| n.contains("template")).expect("template");
    let text = std::fs::read_to_string(issues.join(&template)).expect("read template");
    let edited = text.replacen("id: ISS-000001", &format!("id: {id}"), 1).replacen(
        "title: template",
        &format!("title: {title}\nassignee: {assignee}"),
        1,
    );
    assert!(edited.contains(&format!("id: {id}")) && edited.contains("docketKey:"), "{text}");
    let path = issues.join(format!("{id}-new-task.md"));
    std::fs::write(&path, edited).expect("write the copy");
    path
}

fn doctor_json(dir: &Path) -> serde_json::Value {
    let o = docket_in(dir, &["doctor", "--json"], &[]);
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("doctor --json: {e}: {}", stderr(&o)))
}

fn assignees(dir: &Path) -> Vec<String> {
    let out = ok_in(dir, &["list", "--all", "--json", "--format", "full"], &[]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let mut who: Vec<String> = v["issues"]
        .as_array()
        .expect("issues")
        .iter()
        .filter_map(|i| i["assignee"].as_str().map(str::to_string))
        .collect();
    who.sort();
    who
}

#[test]
fn a_copied_issue_file_shares_its_key_and_doctor_fix_gives_the_copy_a_fresh_one() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (a, _) = origin_with_template(tmp.path());
    copy_template(&a, "ISS-000002", "New task", "ann");
    let report = doctor_json(&a);
    let problems = report["problems"].as_array().expect("problems");
    let shared: Vec<&serde_json::Value> = problems.iter().filter(|p| p["kind"] == "duplicate_key").collect();
    assert_eq!(shared.len(), 1, "{report}");
    let message = shared[0]["message"].as_str().expect("message");
    assert!(message.contains("ISS-000001") && message.contains("ISS-000002"), "{message}");
    let fixed = ok_in(&a, &["doctor", "--fix"], &[]);
    assert!(fixed.contains("gave ISS-000002") && fixed.contains("fresh docketKey"), "{fixed}");
    let key = |file: &str| {
        let text = std::fs::read_to_string(a.join(".docket/issues").join(file)).expect("read");
        text.lines().find_map(|l| l.strip_prefix("docketKey: ")).map(str::to_string).expect("a key")
    };
    let files = issue_files(&a.join(".docket"));
    assert_ne!(key(&files[0]), key(&files[1]), "{files:?}");
    assert!(files[0].starts_with("ISS-000001"), "the template keeps its key and name: {files:?}");
    assert!(doctor_json(&a)["problems"].as_array().expect("problems").is_empty(), "clean after --fix");
}

#[test]
fn two_copies_of_one_template_merged_from_two_clones_stay_two_issues() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (a, b) = origin_with_template(tmp.path());
    for (dir, who) in [(&a, "ann"), (&b, "bob")] {
        copy_template(dir, "ISS-000002", "New task", who);
        commit_all(dir, &format!("{who}'s new task"));
    }
    git(&a, &["push", "-q", "origin", "main"]);
    let pulled = common::git_all(&b, &["pull", "--no-rebase", "--no-edit", "origin", "main"]);
    assert!(!pulled.contains("CONFLICT"), "{pulled}");
    assert_eq!(assignees(&b), ["ann", "bob"], "both copies are kept: {pulled}");
    let files = issue_files(&b.join(".docket"));
    assert_eq!(files.len(), 3, "the template and two issues, each with its own id: {files:?} {pulled}");
    // Every issue ends with its own key: the hook gave the renumbered copy one, doctor the other.
    ok_in(&b, &["doctor", "--fix"], &[]);
    let keys: std::collections::BTreeSet<String> = files
        .iter()
        .chain(issue_files(&b.join(".docket")).iter())
        .filter_map(|f| std::fs::read_to_string(b.join(".docket/issues").join(f)).ok())
        .filter_map(|t| t.lines().find_map(|l| l.strip_prefix("docketKey: ")).map(str::to_string))
        .collect();
    assert_eq!(keys.len(), 3, "{keys:?}");
    assert!(doctor_json(&b)["problems"].as_array().expect("problems").is_empty());
    // The same file added on both branches (nothing edited but what docket stamps) is one issue.
    let (c, d) = {
        let t2 = tmp.path().join("second");
        std::fs::create_dir_all(&t2).expect("mkdir");
        origin_with_template(&t2)
    };
    let same = copy_template(&c, "ISS-000002", "New task", "ann");
    commit_all(&c, "ann's");
    let text = std::fs::read_to_string(&same).expect("read");
    let d_path = d.join(".docket/issues").join(same.file_name().expect("name"));
    std::fs::write(&d_path, text.replacen("status: open", "status: closed", 1)).expect("write");
    commit_all(&d, "the same, closed");
    git(&c, &["push", "-q", "origin", "main"]);
    let pulled = common::git_all(&d, &["pull", "--no-rebase", "--no-edit", "origin", "main"]);
    assert_eq!(assignees(&d), ["ann"], "one issue: {pulled}");
}

/// Every file and folder under `dir`, as paths from it.
fn listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("list").flatten() {
            out.push(e.path().strip_prefix(dir).expect("inside").display().to_string());
            if e.path().is_dir() {
                stack.push(e.path());
            }
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn refused_writes_in_an_empty_folder_create_nothing_and_session_get_says_not_found() {
    use serde_json::json;
    let tmp = tempfile::tempdir().expect("tmp");
    let client = common::many::serve_in(tmp.path(), &[]).await;
    for (tool, args) in [
        ("issues_update", json!({"id": "ISS-000001", "title": "x"})),
        ("issues_delete", json!({"id": "ISS-000001", "confirm": true})),
        ("issues_update_batch", json!({"updates": [{"id": "ISS-000001", "status": "closed"}]})),
        ("issues_update", json!({"id": "ISS-000001", "title": "x"})),
    ] {
        let r = common::call(&client, tool, args).await;
        let t = common::text(&r);
        assert!(t.contains("ISS-000001"), "{tool}: {t}");
        assert!(listing(tmp.path()).is_empty(), "{tool} created {:?}", listing(tmp.path()));
    }
    // Nothing incomplete: wrangler's success with found: false, never INTERNAL.
    let r = common::call(&client, "session_get", json!({})).await;
    assert!(!common::is_error(&r) && common::structured(&r)["found"] == false, "{}", common::text(&r));
    assert!(listing(tmp.path()).is_empty(), "{:?}", listing(tmp.path()));
    client.cancel().await.expect("close");
}

#[test]
fn docket_web_starts_in_an_empty_folder_like_docket_serve() {
    let tmp = tempfile::tempdir().expect("tmp");
    let mut child = common::many::docket_cmd(tmp.path(), &["web", "--port", "0"], &[])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn docket web");
    let mut line = String::new();
    let stdout = child.stdout.take().expect("stdout");
    std::io::BufRead::read_line(&mut std::io::BufReader::new(stdout), &mut line).expect("read");
    let _ = child.kill();
    let out = child.wait_with_output().expect("wait");
    assert!(line.contains("board at http://"), "{line} {}", stderr(&out));
    assert!(listing(tmp.path()).is_empty(), "{:?}", listing(tmp.path()));
}

#[tokio::test]
async fn session_get_without_a_workspace_answers_like_session_status() {
    use serde_json::json;
    for env in [vec![], vec![("WRANGLER_WORKSPACE_ROOT", "")]] {
        let tmp = tempfile::tempdir().expect("tmp");
        let client = common::many::serve_in(tmp.path(), &env).await;
        for (tool, args) in
            [("session_status", json!({})), ("session_get", json!({"sessionId": "2026-01-01-nogit-abcd"}))]
        {
            let r = common::call(&client, tool, args).await;
            assert!(common::is_error(&r) && common::text(&r).starts_with("NOT_FOUND"), "{tool}: {}", common::text(&r));
        }
        // Nothing incomplete and no id: wrangler's success with found: false, never INTERNAL.
        let r = common::call(&client, "session_get", json!({})).await;
        assert!(!common::is_error(&r) && common::structured(&r)["found"] == false, "{}", common::text(&r));
        assert!(listing(tmp.path()).is_empty(), "{:?}", listing(tmp.path()));
        client.cancel().await.expect("close");
    }
}

/// The warnings in an MCP result's `_meta`, as `CODE: message`.
fn meta_warnings(r: &rmcp::model::CallToolResult) -> Vec<String> {
    let meta = serde_json::to_value(&r.meta).expect("meta");
    let all = meta["warnings"].as_array().cloned().unwrap_or_default();
    all.iter()
        .map(|w| format!("{}: {}", w["code"].as_str().unwrap_or(""), w["message"].as_str().unwrap_or("")))
        .collect()
}

#[tokio::test]
async fn a_server_started_before_docket_init_switches_to_the_workspace_that_appeared_at_its_first_write() {
    use serde_json::json;
    let tmp = tempfile::tempdir().expect("tmp");
    let client = common::many::serve_in(tmp.path(), &[]).await;
    ok_in(tmp.path(), &["init", "."], &[]);
    ok_in(tmp.path(), &["create", "--title", "the CLI's issue"], &[]);
    // A read before the first write answers as before: the pending workspace, nothing in it.
    let r = common::call(&client, "issues_list", json!({})).await;
    assert!(!common::is_error(&r) && !common::text(&r).contains("the CLI's issue"), "{}", common::text(&r));
    let r = common::call(&client, "issues_create", json!({"title": "the agent's issue", "description": "d"})).await;
    assert!(!common::is_error(&r), "{}", common::text(&r));
    let said: Vec<String> = meta_warnings(&r).into_iter().filter(|w| w.starts_with("WORKSPACE_APPEARED")).collect();
    assert!(said.len() == 1 && said[0].contains(".docket") && said[0].contains("serving"), "{:?}", meta_warnings(&r));
    assert_eq!(common::structured(&r)["issue"]["id"], "ISS-000002", "numbered after the CLI's: {}", common::text(&r));
    assert!(!tmp.path().join(".wrangler").exists(), "no second workspace: {:?}", listing(tmp.path()));
    // Said once; every later read and write serves .docket/, its index seeing the CLI's writes.
    ok_in(tmp.path(), &["create", "--title", "the CLI's second issue"], &[]);
    let r =
        common::call(&client, "issues_update", json!({"id": "ISS-000001", "title": "the CLI's issue, renamed"})).await;
    assert!(!common::is_error(&r), "{}", common::text(&r));
    assert!(
        !meta_warnings(&r).iter().any(|w| w.starts_with("WORKSPACE_APPEARED")),
        "said once: {:?}",
        meta_warnings(&r)
    );
    let r = common::call(&client, "issues_list", json!({})).await;
    let t = serde_json::to_string(&common::structured(&r)).expect("json");
    for title in ["the CLI's issue, renamed", "the agent's issue", "the CLI's second issue"] {
        assert!(t.contains(title), "{title} listed by the server: {t}");
    }
    assert!(!meta_warnings(&r).iter().any(|w| w.starts_with("NO_WORKSPACE")), "{:?}", meta_warnings(&r));
    client.cancel().await.expect("close");
    assert!(!tmp.path().join(".wrangler").exists(), "no second workspace: {:?}", listing(tmp.path()));
    let listed = ok_in(tmp.path(), &["list"], &[]);
    for title in ["the CLI's issue, renamed", "the agent's issue", "the CLI's second issue"] {
        assert!(listed.contains(title), "{title}: {listed}");
    }
}

#[tokio::test]
async fn a_board_started_before_docket_init_writes_into_the_workspace_that_appeared() {
    use serde_json::json;
    let tmp = tempfile::tempdir().expect("tmp");
    let board = common::http::WebBoard::start(tmp.path(), &[]);
    let base = board.origin();
    ok_in(tmp.path(), &["init", "."], &[]);
    ok_in(tmp.path(), &["create", "--title", "the CLI's issue"], &[]);
    let client = reqwest::Client::new();
    let created = client
        .post(format!("{base}/api/issues"))
        .header("origin", &base)
        .json(&json!({"title": "made on the board"}))
        .send()
        .await
        .expect("post");
    assert_eq!(created.status(), 201);
    let body: serde_json::Value = created.json().await.expect("json");
    assert_eq!(body["result"]["issue"]["id"], "ISS-000002", "{body}");
    let warned = body["warnings"].to_string();
    assert!(warned.contains(".docket now") && warned.contains("no second workspace"), "{body}");
    let listed: serde_json::Value =
        client.get(format!("{base}/api/list")).send().await.expect("list").json().await.expect("json");
    let listed = listed.to_string();
    assert!(listed.contains("the CLI's issue") && listed.contains("made on the board"), "{listed}");
    drop(board);
    assert!(!tmp.path().join(".wrangler").exists(), "no second workspace: {:?}", listing(tmp.path()));
    let listed = ok_in(tmp.path(), &["list"], &[]);
    assert!(listed.contains("the CLI's issue") && listed.contains("made on the board"), "{listed}");
}

#[tokio::test]
async fn an_invalid_issue_id_names_the_field_it_came_in() {
    use serde_json::json;
    let ws = common::workspace();
    let client = common::start(ws.path()).await;
    let long = "A".repeat(120);
    for (tool, field, args) in [
        ("issues_get", "id", json!({"id": long})),
        ("issues_labels", "issueId", json!({"operation": "add", "issueId": long, "labels": ["x"]})),
        ("issues_labels", "issueId", json!({"operation": "list", "issueId": long})),
        ("issues_metadata", "issueId", json!({"operation": "get", "issueId": long})),
        ("issues_metadata", "issueId", json!({"operation": "set", "issueId": "a/b", "key": "k", "value": "1"})),
        ("issues_get", "id", json!({"id": long})),
    ] {
        let r = common::call(&client, tool, args).await;
        let t = common::text(&r);
        assert!(common::is_error(&r) && t.contains(&format!("'{field}'")), "{tool}: {t}");
    }
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn issues_update_batch_items_honour_if_version() {
    use serde_json::json;
    let ws = common::workspace();
    let client = common::start(ws.path()).await;
    let made = common::structured(
        &common::call(&client, "issues_create", json!({"title": "guarded", "description": "d", "labels": ["a"]})).await,
    );
    let id = made["issue"]["id"].as_str().expect("id").to_string();
    let read = common::structured(&common::call(&client, "issues_get", json!({"id": id})).await);
    let version = read["version"].as_str().expect("version").to_string();
    // Someone else adds a label after our read.
    let other =
        common::call(&client, "issues_labels", json!({"operation": "add", "issueId": id, "labels": ["b"]})).await;
    assert!(!common::is_error(&other), "{}", common::text(&other));
    let r = common::call(
        &client,
        "issues_update_batch",
        json!({"updates": [{"id": id, "labels": ["a", "c"], "ifVersion": version}]}),
    )
    .await;
    let out = common::structured(&r);
    assert_eq!(out["failed"], 1, "{}", common::text(&r));
    assert!(out["errors"][0]["error"].as_str().expect("error").contains("changed since you read it"), "{out}");
    assert!(!common::text(&r).contains("ifVersion' is not"), "no unknown-field warning: {}", common::text(&r));
    let now = common::structured(&common::call(&client, "issues_get", json!({"id": id})).await);
    assert_eq!(now["issue"]["labels"], json!(["a", "b"]), "the concurrent label is kept");
    let current = now["version"].as_str().expect("version").to_string();
    let r = common::call(
        &client,
        "issues_update_batch",
        json!({"updates": [{"id": id, "labels": ["a", "b", "c"], "ifVersion": current}]}),
    )
    .await;
    assert_eq!(common::structured(&r)["succeeded"], 1, "{}", common::text(&r));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn the_not_found_hint_about_the_prefix_is_given_only_where_ids_have_one() {
    use serde_json::json;
    let bare = tempfile::tempdir().expect("tmp");
    let issues = bare.path().join(".wrangler/issues");
    std::fs::create_dir_all(&issues).expect("mkdir");
    std::fs::write(
        issues.join("000001-bare.md"),
        "---\nid: '000001'\ntitle: bare\ntype: issue\nstatus: open\npriority: medium\n---\nBody.\n",
    )
    .expect("write");
    let prefixed = common::workspace();
    ok_in(
        prefixed.path(),
        &["create", "--title", "prefixed", "--workspace", prefixed.path().to_str().expect("utf-8")],
        &[],
    );
    for (dir, hinted) in [(bare.path(), false), (prefixed.path(), true)] {
        let client = common::start(dir).await;
        let r = common::call(&client, "issues_get", json!({"id": "000099"})).await;
        let t = common::text(&r);
        assert!(t.starts_with("NOT_FOUND"), "{t}");
        assert_eq!(t.contains("includes the prefix"), hinted, "{}: {t}", dir.display());
        client.cancel().await.expect("close");
    }
}

#[test]
fn show_and_tree_of_a_duplicated_id_say_which_file_they_show() {
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    docket::store::Workspace::init(root).expect("init");
    let parent = ok_in(root, &["create", "--title", "parent"], &[]).trim().to_string();
    ok_in(root, &["create", "--title", "child", "--parent", &parent], &[]);
    let issues = root.join(".docket/issues");
    let first = issue_files(&root.join(".docket")).into_iter().find(|n| n.starts_with(&parent)).expect("file");
    let text = std::fs::read_to_string(issues.join(&first)).expect("read");
    // A second holder of the id, naming the id as its own parent.
    let copy = text.replacen("title: parent", &format!("title: copy\nwranglerContext:\n  parentTaskId: {parent}"), 1);
    std::fs::write(issues.join(format!("{parent}-copy.md")), copy).expect("write the copy");
    let shown = ok_in(root, &["show", &parent], &[]);
    assert!(shown.contains("held by 2 files") && shown.contains(&format!("{parent}-copy.md")), "{shown}");
    let tree = ok_in(root, &["tree", &parent], &[]);
    assert!(tree.contains("held by 2 files"), "{tree}");
    let listed_under: Vec<&str> = tree.lines().skip(1).filter(|l| l.trim_start().starts_with(&parent)).collect();
    assert!(listed_under.is_empty(), "{parent} is not its own parent nor child: {tree}");
    assert_eq!(tree.matches("ISS-000002").count(), 1, "the child once: {tree}");
}

#[tokio::test]
async fn duplicate_id_warnings_are_said_once_per_session_then_counted() {
    use serde_json::json;
    let tmp = tempfile::tempdir().expect("tmp");
    let root = tmp.path();
    docket::store::Workspace::init(root).expect("init");
    let issues = root.join(".docket/issues");
    for n in 1..=3 {
        ok_in(root, &["create", "--title", &format!("task {n}"), "--workspace", root.to_str().expect("utf-8")], &[]);
    }
    for name in issue_files(&root.join(".docket")) {
        let text = std::fs::read_to_string(issues.join(&name)).expect("read");
        std::fs::write(issues.join(name.replace(".md", "-copy.md")), text).expect("copy");
    }
    let duplicate_warnings = |r: &rmcp::model::CallToolResult| -> Vec<String> {
        let meta = serde_json::to_value(&r.meta).expect("meta");
        let all = meta["warnings"].as_array().cloned().unwrap_or_default();
        all.iter()
            .filter(|w| w["code"] == "DUPLICATE_ID")
            .map(|w| w["message"].as_str().unwrap_or("").to_string())
            .collect()
    };
    for _session in 0..2 {
        let client = common::start(root).await;
        let first = duplicate_warnings(&common::call(&client, "issues_list", json!({})).await);
        assert_eq!(first.len(), 3, "the first answer names each duplicated id: {first:?}");
        for _ in 0..2 {
            let again = duplicate_warnings(&common::call(&client, "issues_list", json!({})).await);
            assert_eq!(again.len(), 1, "{again:?}");
            assert!(again[0].starts_with("3 ID(s)") && again[0].contains("earlier in this session"), "{again:?}");
        }
        client.cancel().await.expect("close");
    }
}

/// Every file under `dir`, as paths from it.
fn files_under(dir: &Path) -> std::collections::BTreeSet<String> {
    listing(dir).into_iter().filter(|p| dir.join(p).is_file()).collect()
}

#[test]
fn doctor_fix_on_wranglers_workspace_changes_only_files_doctor_listed() {
    // The real wrangler workspace when DOCKET_REAL_FIXTURE names one (as CI does), else the layout written below.
    let source = std::env::var_os("DOCKET_REAL_FIXTURE")
        .filter(|v| !v.is_empty())
        .map(|v| std::path::PathBuf::from(v).join(".wrangler"))
        .filter(|p| p.is_dir());
    let tmp = tempfile::tempdir().expect("tmp");
    let copy = if let Some(source) = source {
        let cp = std::process::Command::new("cp").arg("-R").arg(source).arg(tmp.path()).status().expect("cp");
        assert!(cp.success());
        tmp.path().to_path_buf()
    } else {
        // Without the shared fixture: the one layout this test is about, written here.
        let issues = tmp.path().join(".wrangler/issues");
        std::fs::create_dir_all(&issues).expect("mkdir");
        for n in [135, 136] {
            std::fs::write(
                issues.join(format!("ISS-{n:06}-legacy-{n}.md")),
                format!(
                    "---\nid: \"{n:06}\"\ntitle: legacy {n}\ntype: issue\nstatus: open\npriority: medium\n---\nBody.\n"
                ),
            )
            .expect("write");
        }
        tmp.path().to_path_buf()
    };
    let named: Vec<String> = files_under(&copy).into_iter().filter(|p| p.contains("issues/ISS-")).collect();
    let legacy: Vec<&String> = named
        .iter()
        .filter(|p| std::fs::read_to_string(copy.join(p)).is_ok_and(|t| t.lines().any(|l| l.starts_with("id: \"0"))))
        .collect();
    assert!(!legacy.is_empty(), "the layout is there: {named:?}");
    let report = docket_in(&copy, &["doctor", "--json"], &[]);
    let report: serde_json::Value = serde_json::from_slice(&report.stdout).expect("doctor --json");
    let listed: std::collections::BTreeSet<String> = report["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .flat_map(|p| p["paths"].as_array().cloned().unwrap_or_default())
        .filter_map(|p| p.as_str().map(str::to_string))
        .collect();
    let before = files_under(&copy);
    docket_in(&copy, &["doctor", "--fix"], &[]);
    let after = files_under(&copy);
    let gone: Vec<&String> = before.difference(&after).filter(|p| !p.contains("cache/")).collect();
    let unlisted: Vec<&&String> = gone.iter().filter(|p| !listed.contains(p.as_str())).collect();
    assert!(unlisted.is_empty(), "--fix moved or removed files doctor never listed: {unlisted:?}");
    for p in legacy {
        assert!(copy.join(p).is_file(), "{p} keeps its name");
    }
}

/// A wrangler file as wrangler writes it, in `folder` of `.wrangler/`: the bare id its name starts with.
fn wrangler_file(
    root: &Path,
    folder: &str,
    name: &str,
    kind: &str,
    status: &str,
    created: &str,
    extra: &str,
) -> PathBuf {
    let id = &name[..6];
    let path = root.join(".wrangler").join(folder).join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        format!(
            "---\nid: \"{id}\"\ntitle: {name}\ntype: {kind}\nstatus: {status}\npriority: medium\nlabels: []\ncreatedAt: '{created}'\nupdatedAt: '{created}'\n{extra}---\nThe {name}.\n"
        ),
    )
    .unwrap();
    path
}

#[test]
fn a_legacy_parent_naming_an_archived_issue_and_a_specification_is_pointed_at_the_specification() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    // The archived issue 000001 was created first, so it keeps the id; the specification 000001
    // gets a new one, and the issue whose wranglerContext.parentTaskId is 000001 meant it.
    wrangler_file(root, "issues/archived", "000001-first-task.md", "issue", "closed", "2025-01-01T00:00:00.000Z", "");
    let spec = wrangler_file(
        root,
        "specifications",
        "000001-the-plan.md",
        "specification",
        "open",
        "2025-02-01T00:00:00.000Z",
        "",
    );
    let child = wrangler_file(
        root,
        "issues",
        "000002-build-it.md",
        "issue",
        "open",
        "2025-02-02T00:00:00.000Z",
        "wranglerContext:\n  parentTaskId: \"000001\"\n",
    );
    let child_before = std::fs::read_to_string(&child).unwrap();

    let report = doctor_json(root);
    let problems = report["problems"].as_array().expect("problems");
    let duplicate = problems.iter().find(|p| p["kind"] == "duplicate_id").expect("the duplicate id is listed");
    let listed = duplicate["message"].as_str().unwrap();
    let choice = "000002's parentTaskId 000001 means the specification .wrangler/specifications/000001-the-plan.md, not .wrangler/issues/archived/000001-first-task.md";
    assert!(listed.contains(choice), "doctor says which holder the parent means: {listed}");
    let said = &listed[listed.find(choice).unwrap()..];

    let fixed = ok_in(root, &["doctor", "--fix"], &[]);
    let rewrote =
        fixed.lines().find(|l| l.contains("rewrote parentTaskId of 000002")).unwrap_or_else(|| panic!("{fixed}"));
    assert!(rewrote.ends_with(said), "--fix says the choice in doctor's words:\n{rewrote}\n{said}");
    assert!(!fixed.contains("cannot tell which it meant"), "{fixed}");

    // The specification has a new id; the parent names it, and nothing else of the file changed.
    assert!(!spec.exists());
    let specs: Vec<PathBuf> =
        std::fs::read_dir(root.join(".wrangler/specifications")).unwrap().flatten().map(|e| e.path()).collect();
    let [renumbered] = specs.as_slice() else { panic!("{specs:?}") };
    let spec_text = std::fs::read_to_string(renumbered).unwrap();
    let new_id = spec_text.lines().find_map(|l| l.strip_prefix("id: ")).unwrap().trim_matches('"').to_string();
    assert_ne!(new_id, "000001");
    let child_after = std::fs::read_to_string(&child).unwrap();
    assert_eq!(child_after, child_before.replace("parentTaskId: \"000001\"", &format!("parentTaskId: \"{new_id}\"")));
    assert!(doctor_json(root)["problems"].as_array().expect("problems").is_empty(), "clean after --fix");
}

/// One issue file as wrangler writes it, with `id_line` as its `id:` line and `extra` frontmatter.
fn mess_file(ws: &Path, rel: &str, id_line: &str, status: &str, created: &str, extra: &str) {
    let path = ws.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(
        &path,
        format!(
            "---\n{id_line}\ntitle: \"{rel}\"\ntype: issue\nstatus: {status}\npriority: medium\nlabels: []\ncreatedAt: '{created}'\nupdatedAt: '{created}'\n{extra}---\nThe body of {rel}.\n"
        ),
    )
    .expect("write");
}

crate::on_each_fixture! {
    fn doctor_lists_every_change_fix_makes_in_the_same_words_and_fix_touches_nothing_else(fx) {
        let ws = fx.path().join(".wrangler");
        // A name carrying the prefix its bare id lacks: --fix gives the frontmatter the prefix.
        mess_file(&ws, "issues/ISS-000901-named-with-its-prefix.md", "id: \"000901\"", "open", "2024-01-01T00:00:00.000Z", "");
        // The same, but another file holds the prefixed form: doctor asks a person.
        mess_file(&ws, "issues/ISS-000902-bare-and-taken.md", "id: \"000902\"", "open", "2024-01-02T00:00:00.000Z", "");
        mess_file(&ws, "issues/archived/ISS-000902-the-prefixed-one.md", "id: ISS-000902", "closed", "2024-01-03T00:00:00.000Z", "");
        // Closed outside archived/: moved.
        mess_file(&ws, "issues/ISS-000903-closed-in-the-open.md", "id: ISS-000903", "closed", "2024-01-04T00:00:00.000Z", "");
        // Named after another id than its own: renamed.
        mess_file(&ws, "issues/ISS-000999-named-after-another.md", "id: ISS-000904", "open", "2024-01-05T00:00:00.000Z", "");
        // One id held twice: the newer one renumbered.
        mess_file(&ws, "issues/ISS-000906-first.md", "id: ISS-000906", "open", "2024-01-06T00:00:00.000Z", "");
        mess_file(&ws, "issues/ISS-000906-second.md", "id: ISS-000906", "open", "2024-02-06T00:00:00.000Z", "");
        // A copied file keeps the key of the one it was copied from: the copy gets a fresh one.
        mess_file(&ws, "issues/ISS-000907-template.md", "id: ISS-000907", "open", "2024-01-07T00:00:00.000Z", "docketKey: k-copied-template\n");
        mess_file(&ws, "issues/ISS-000908-copy-of-it.md", "id: ISS-000908", "open", "2024-01-08T00:00:00.000Z", "docketKey: k-copied-template\n");
        let fx = fx.in_git();
        let root = fx.path();
        let ws = root.join(".wrangler");
        let strings = |v: &serde_json::Value| -> Vec<String> {
            v.as_array().cloned().unwrap_or_default().iter().filter_map(|s| s.as_str().map(str::to_string)).collect()
        };
        let report: serde_json::Value =
            serde_json::from_slice(&docket_in(root, &["doctor", "--json"], &[]).stdout).expect("doctor --json");
        let repairs = strings(&report["repairs"]);
        let problems = report["problems"].as_array().cloned().unwrap_or_default();
        let about = |name: &str| problems.iter().find(|p| p["paths"].to_string().contains(name)).cloned();
        let bare = about("ISS-000901-named").expect("the bare id is reported");
        assert_eq!(bare["fixable"], true, "{bare}");
        let taken = about("ISS-000902-bare-and-taken").expect("the bare id held twice is reported");
        assert_eq!(taken["fixable"], false, "{taken}");
        assert!(taken["message"].as_str().unwrap_or("").contains("ISS-000902-the-prefixed-one"), "{taken}");
        for name in ["ISS-000901", "ISS-000903", "ISS-000999", "ISS-000906", "ISS-000908"] {
            assert!(repairs.iter().any(|r| r.contains(name)), "a repair of {name} is listed: {repairs:#?}");
        }
        let before = common::snapshot(&ws);
        let fixed: serde_json::Value =
            serde_json::from_slice(&docket_in(root, &["doctor", "--fix", "--json"], &[]).stdout).expect("--fix --json");
        let changes = strings(&fixed["changes"]);
        let after = common::snapshot(&ws);
        let set = |v: &[String]| v.iter().cloned().collect::<std::collections::BTreeSet<String>>();
        assert_eq!(set(&repairs), set(&changes), "--fix makes exactly the changes doctor listed, in its words");
        assert_eq!(repairs.len(), changes.len(), "each once: {changes:#?}");
        let changed: Vec<String> = before
            .keys()
            .chain(after.keys())
            .filter(|p| !p.ends_with('/') && before.get(*p) != after.get(*p))
            .map(|p| format!(".wrangler/{p}"))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        for path in &changed {
            assert!(changes.iter().any(|c| c.contains(path.as_str())), "{path} changed but no change names it: {changes:#?}");
        }
        for change in &changes {
            assert!(changed.iter().any(|p| change.contains(p.as_str())), "{change}: no file changed with it");
        }
        // The prefixed name is kept, the frontmatter gets its id, every other byte as it was.
        let kept = "issues/ISS-000901-named-with-its-prefix.md";
        let was = String::from_utf8(before[kept].clone()).expect("utf8");
        let now = std::fs::read_to_string(ws.join(kept)).expect("the name is kept");
        assert_eq!(now, was.replacen("id: \"000901\"", "id: \"ISS-000901\"", 1));
        let asked = "issues/ISS-000902-bare-and-taken.md";
        assert_eq!(after.get(asked), before.get(asked), "a file doctor asks about is left alone");
        // Nothing --fix can still repair.
        let again: serde_json::Value =
            serde_json::from_slice(&docket_in(root, &["doctor", "--json"], &[]).stdout).expect("doctor --json");
        assert!(strings(&again["repairs"]).is_empty(), "{again}");
    }
}
