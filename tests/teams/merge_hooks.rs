//! Teams without collisions (issue 28), with real git: a bare origin and five clones, each set up
//! with `docket git-setup`. Ids count every remote-tracking branch, and the hooks git-setup
//! installs renumber what a merge or a rebase duplicated and commit the repair, so after every
//! clone has merged in turn the issues hold distinct ids with no command typed by hand.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common;
use crate::on_each_fixture;

use common::{docket, git, git_all};

fn ok(root: &Path, args: &[&str]) -> String {
    let o = docket(root, args);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "docket {args:?} failed: {out}{err}");
    out.into_owned()
}

fn all_issues(root: &Path) -> Vec<Value> {
    let out = ok(root, &["list", "--all", "--json", "--format", "full"]);
    let v: Value = serde_json::from_str(&out).expect("JSON");
    v["issues"].as_array().cloned().expect("issues")
}

/// A bare origin holding a committed `.docket/` workspace (and its `.gitattributes`), and `n` clones of it, each set up
/// with `docket git-setup` (merge driver and hooks).
fn origin_and_clones(n: usize) -> (tempfile::TempDir, Vec<PathBuf>) {
    let tmp = tempfile::tempdir().expect("tmp");
    let origin = tmp.path().join("origin.git");
    git(tmp.path(), &["init", "-q", "--bare", "-b", "main", origin.to_str().expect("utf-8")]);
    let seed = tmp.path().join("seed");
    git(tmp.path(), &["clone", "-q", origin.to_str().expect("utf-8"), "seed"]);
    docket::store::Workspace::init(&seed).expect("init");
    // The README's order: git-setup once, its .gitattributes committed; then every clone runs
    // git-setup for its own config and hooks.
    ok(&seed, &["git-setup"]);
    git(&seed, &["add", "-A"]);
    git(&seed, &["commit", "-q", "-m", "docket workspace"]);
    git(&seed, &["push", "-q", "origin", "main"]);
    let clones: Vec<PathBuf> = (0..n)
        .map(|i| {
            let name = format!("clone-{i}");
            git(tmp.path(), &["clone", "-q", origin.to_str().expect("utf-8"), &name]);
            let dir = tmp.path().join(name);
            let setup = ok(&dir, &["git-setup"]);
            assert!(setup.is_empty() || setup.contains("post-merge"), "{setup}");
            dir
        })
        .collect();
    (tmp, clones)
}

/// Creates issues in `dir`: `parent` (when given, as the parent of a child) and returns the id.
fn create(dir: &Path, title: &str, parent: Option<&str>) -> String {
    let mut args = vec!["create", "--title", title];
    if let Some(p) = parent {
        args.extend(["--parent", p]);
    }
    ok(dir, &args).trim().to_string()
}

/// A turn of writing-plans in one clone: a plan and its six tasks, titled "Task K: step K" in
/// every plan of every clone (so clones that never fetch add the same file names), each task
/// blocked by the one before; every description says which plan and task it is.
fn write_a_plan(dir: &Path, fetch: bool, plan: &str) {
    if fetch {
        git(dir, &["fetch", "-q"]);
    }
    let parent = create_with(dir, plan, None, &format!("{plan}: the plan"));
    let mut before: Option<String> = None;
    for k in 1..=6 {
        if fetch {
            git(dir, &["fetch", "-q"]);
        }
        let task = create_with(dir, &format!("Task {k}: step {k}"), Some(&parent), &format!("{plan}: task {k}"));
        if let Some(b) = &before {
            ok(dir, &["block", &task, "--by", b]);
        }
        before = Some(task);
    }
}

fn create_with(dir: &Path, title: &str, parent: Option<&str>, description: &str) -> String {
    let mut args = vec!["create", "--title", title, "--description", description];
    if let Some(p) = parent {
        args.extend(["--parent", p]);
    }
    ok(dir, &args).trim().to_string()
}

/// Issue 28's target: five clones, three fetching before each create and two never, 70 issues
/// written as plans whose tasks share titles across clones, merged in turn with the hooks
/// installed. At the end: 70 distinct ids with no command typed by hand, nothing lost, every
/// parent and blocker link right.
#[test]
fn five_clones_merge_in_turn_and_end_with_distinct_ids_and_right_parents() {
    let (tmp, clones) = origin_and_clones(5);
    // Clones 0-2 fetch before every create; 3 and 4 never fetch before creating. Clone 4
    // integrates with `pull --rebase` (the post-rewrite hook), the others with merges.
    let fetches = |i: usize| i < 3;
    let mut plans = BTreeSet::new();
    let mut repaired = BTreeSet::new();
    for round in 0..2 {
        for (i, dir) in clones.iter().enumerate() {
            let plan = format!("clone {i} round {round} plan");
            write_a_plan(dir, fetches(i), &plan);
            plans.insert(plan);
            git(dir, &["add", "-A"]);
            git(dir, &["commit", "-q", "-m", &format!("clone {i} round {round}")]);
            let how = if i == 4 { "--rebase" } else { "--no-rebase" };
            let pulled = git_all(dir, &["pull", how, "--no-edit", "origin", "main"]);
            assert!(!pulled.contains("CONFLICT"), "{pulled}");
            if pulled.contains("docket: renumbered") {
                assert!(pulled.contains("docket: committed the repair"), "{pulled}");
                repaired.insert(i);
            }
            assert!(git(dir, &["status", "--porcelain"]).is_empty(), "clone {i}: nothing left to commit by hand");
            git(dir, &["push", "-q", "origin", "main"]);
        }
    }
    // A clone that fetched before creating never collided; the others did and were repaired by
    // their hooks (a merge for clone 3, a rebase for clone 4).
    assert_eq!(repaired, BTreeSet::from([3, 4]));
    // What everyone gets: a fresh clone of origin.
    let last = tmp.path().join("reader");
    git(tmp.path(), &["clone", "-q", tmp.path().join("origin.git").to_str().expect("utf-8"), "reader"]);
    let issues = all_issues(&last);
    let ids: BTreeSet<&str> = issues.iter().map(|i| i["id"].as_str().expect("id")).collect();
    assert_eq!(issues.len(), 70, "nothing lost, nothing doubled");
    assert_eq!(ids.len(), 70, "distinct ids: {ids:?}");
    let by_id: BTreeMap<&str, &Value> = issues.iter().map(|i| (i["id"].as_str().expect("id"), i)).collect();
    let said = |i: &Value| i["description"].as_str().expect("description").trim().to_string();
    let mut seen = BTreeSet::new();
    for issue in &issues {
        let text = said(issue);
        assert!(seen.insert(text.clone()), "{text} twice");
        let (plan, what) = text.split_once(": ").expect("plan: what");
        if what == "the plan" {
            assert_eq!(issue["title"], plan);
            continue;
        }
        let k: usize = what.strip_prefix("task ").expect("a task").parse().expect("k");
        assert_eq!(issue["title"], format!("Task {k}: step {k}"), "{text}");
        let parent = issue["wranglerContext"]["parentTaskId"].as_str().expect("a parent");
        assert_eq!(said(by_id[parent]), format!("{plan}: the plan"), "{text}'s parent");
        let blockers: Vec<&str> =
            issue["blockedBy"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        if k == 1 {
            assert!(blockers.is_empty(), "{text}: {blockers:?}");
        } else {
            assert_eq!(blockers.len(), 1, "{text}: {blockers:?}");
            assert_eq!(said(by_id[blockers[0]]), format!("{plan}: task {}", k - 1), "{text}'s blocker");
        }
    }
    assert_eq!(seen.len(), 70);
    assert_eq!(plans.len(), 10);
    let doctor = docket(&last, &["doctor"]);
    assert_eq!(doctor.status.code(), Some(0), "{}", String::from_utf8_lossy(&doctor.stdout));
}

#[test]
fn after_a_fetch_new_ids_are_above_every_remote_branch() {
    let (_tmp, clones) = origin_and_clones(2);
    let (a, b) = (&clones[0], &clones[1]);
    for t in ["a one", "a two", "a three"] {
        create(a, t, None);
    }
    git(a, &["checkout", "-q", "-b", "feature"]);
    create(a, "a on a feature branch", None);
    git(a, &["add", "-A"]);
    git(a, &["commit", "-q", "-m", "a"]);
    git(a, &["push", "-q", "origin", "feature"]);
    // b has no local branch of a's: only the remote-tracking one after the fetch.
    git(b, &["fetch", "-q"]);
    assert!(git(b, &["branch", "--list"]).lines().all(|l| !l.contains("feature")));
    assert_eq!(create(b, "b one", None), "ISS-000005");
}

/// A hook the user already has keeps running, before docket's; running git-setup again changes
/// nothing.
#[test]
fn existing_hooks_are_kept_and_chained_and_setup_is_idempotent() {
    let (tmp, clones) = origin_and_clones(1);
    let dir = tmp.path().join("own");
    git(tmp.path(), &["clone", "-q", tmp.path().join("origin.git").to_str().expect("utf-8"), "own"]);
    let hooks = dir.join(".git/hooks");
    std::fs::create_dir_all(&hooks).expect("hooks dir");
    let mine = "#!/bin/sh\necho \"mine ran: $1\" >> \"$(git rev-parse --git-dir)/mine.log\"\n";
    std::fs::write(hooks.join("post-merge"), mine).expect("own hook");
    set_executable(&hooks.join("post-merge"));
    let first = ok(&dir, &["git-setup"]);
    assert!(first.contains("post-merge: kept as"), "{first}");
    assert_eq!(std::fs::read_to_string(hooks.join("post-merge.legacy")).expect("kept"), mine);
    let again = ok(&dir, &["git-setup"]);
    for name in ["post-merge", "post-rewrite", "post-commit"] {
        assert!(again.contains(&format!("hooks/{name}: already installed")), "{again}");
    }
    assert!(!hooks.join("post-rewrite.legacy").exists());
    // docket's own hook with a line added by hand is not overwritten (the line would be lost).
    let ours = std::fs::read_to_string(hooks.join("post-rewrite")).expect("docket's hook");
    let edited = ours.replace("exit 0\n", "echo mine too\nexit 0\n");
    std::fs::write(hooks.join("post-rewrite"), &edited).expect("edit");
    let refused = docket(&dir, &["git-setup"]);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success() && said.contains("lines added by hand"), "{said}");
    assert_eq!(std::fs::read_to_string(hooks.join("post-rewrite")).expect("kept"), edited);
    std::fs::write(hooks.join("post-rewrite"), &ours).expect("restore");
    // The other clone pushes ISS-000001 first; this one made its own ISS-000001 meanwhile.
    create(&clones[0], "pushed first", None);
    git(&clones[0], &["add", "-A"]);
    git(&clones[0], &["commit", "-q", "-m", "first"]);
    git(&clones[0], &["push", "-q", "origin", "main"]);
    create(&dir, "mine", None);
    git(&dir, &["add", "-A"]);
    git(&dir, &["commit", "-q", "-m", "mine"]);
    let merged = git_all(&dir, &["pull", "--no-rebase", "--no-edit", "origin", "main"]);
    assert!(merged.contains("docket: renumbered ISS-000001 -> ISS-000002"), "{merged}");
    assert!(merged.contains("docket: committed the repair"), "{merged}");
    assert_eq!(std::fs::read_to_string(dir.join(".git/mine.log")).expect("log"), "mine ran: 0\n");
    let by_title: BTreeMap<String, String> = all_issues(&dir)
        .iter()
        .map(|i| (i["title"].as_str().expect("t").to_string(), i["id"].as_str().expect("id").to_string()))
        .collect();
    assert_eq!(by_title["pushed first"], "ISS-000001", "the published file keeps its id");
    assert_eq!(by_title["mine"], "ISS-000002");
    assert!(git(&dir, &["status", "--porcelain"]).is_empty(), "the repair is committed");
}

/// The hook never commits a file with uncommitted changes of its own: the repair stays in the
/// working tree and the hook says so.
#[test]
fn a_repair_touching_uncommitted_work_is_left_for_the_user_to_commit() {
    let (_tmp, clones) = origin_and_clones(2);
    let (a, b) = (&clones[0], &clones[1]);
    create(a, "a one", None);
    git(a, &["add", "-A"]);
    git(a, &["commit", "-q", "-m", "a"]);
    git(a, &["push", "-q", "origin", "main"]);
    // b's issue is never committed: the pull (a fast-forward) brings a's ISS-000001 beside it.
    create(b, "b one, uncommitted", None);
    let pulled = git_all(b, &["pull", "--no-rebase", "--no-edit", "origin", "main"]);
    assert!(pulled.contains("not committed"), "{pulled}");
    let ids: BTreeSet<String> = all_issues(b).iter().map(|i| i["id"].as_str().expect("id").to_string()).collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    let by_title: BTreeMap<String, String> = all_issues(b)
        .iter()
        .map(|i| (i["title"].as_str().expect("t").to_string(), i["id"].as_str().expect("id").to_string()))
        .collect();
    assert_eq!(by_title["a one"], "ISS-000001", "the pushed file keeps its id");
    assert_eq!(git(b, &["rev-list", "--count", "HEAD"]).trim(), "2", "no commit made on the user's behalf");
}

fn set_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// Two clones number and title an issue alike; one closes it (its file moves to `archived/`).
/// After the merge the two files share a name, one in `issues/` and one in `issues/archived/`:
/// that looks like an interrupted move, but they are two issues (created apart), and the hook
/// gives one a new id instead of removing "the older copy".
#[test]
fn the_same_name_open_in_one_clone_and_closed_in_the_other_is_two_issues() {
    let (_tmp, clones) = origin_and_clones(2);
    let (a, b) = (&clones[0], &clones[1]);
    assert_eq!(create(a, "Task 1: Setup", None), "ISS-000001");
    ok(a, &["close", "ISS-000001"]);
    git(a, &["add", "-A"]);
    git(a, &["commit", "-q", "-m", "a"]);
    git(a, &["push", "-q", "origin", "main"]);
    assert_eq!(create(b, "Task 1: Setup", None), "ISS-000001");
    // b's second task waits for b's first: after the merge, the blocker must still be b's.
    assert_eq!(create(b, "Task 2: Build", None), "ISS-000002");
    ok(b, &["block", "ISS-000002", "--by", "ISS-000001"]);
    git(b, &["add", "-A"]);
    git(b, &["commit", "-q", "-m", "b"]);
    let pulled = git_all(b, &["pull", "--no-rebase", "--no-edit", "origin", "main"]);
    assert!(!pulled.contains("removed"), "{pulled}");
    let issues = all_issues(b);
    let ids: BTreeSet<&str> = issues.iter().map(|i| i["id"].as_str().expect("id")).collect();
    assert_eq!((issues.len(), ids.len()), (3, 3), "{pulled}");
    let id_of = |status: &str, title: &str| {
        let found = issues.iter().find(|i| i["status"] == status && i["title"] == title).expect("the issue");
        found["id"].as_str().expect("id").to_string()
    };
    let build = issues.iter().find(|i| i["title"] == "Task 2: Build").expect("task 2");
    assert_eq!(build["blockedBy"], serde_json::json!([id_of("open", "Task 1: Setup")]), "{pulled}");
    let closed: Vec<&Value> = issues.iter().filter(|i| i["status"] == "closed").collect();
    assert_eq!(closed.len(), 1);
    assert_eq!(closed[0]["id"], "ISS-000001", "the pushed (closed) one keeps its id: {pulled}");
    assert!(git(b, &["status", "--porcelain"]).is_empty(), "the repair is committed");
}

/// ISS-000001 ("Fix login", with `body` unless empty) created in `a` and pulled by `b`; then `a` closes it and
/// pushes, and `b`, not having pulled the close, claims it for bob.
fn close_in_a_claim_in_b(a: &Path, b: &Path, body: &str) {
    let mut args = vec!["create", "--title", "Fix login"];
    if !body.is_empty() {
        args.extend(["--description", body]);
    }
    assert_eq!(ok(a, &args).trim(), "ISS-000001");
    git(a, &["add", "-A"]);
    git(a, &["commit", "-q", "-m", "seed"]);
    git(a, &["push", "-q", "origin", "main"]);
    git(b, &["pull", "-q", "--no-rebase", "origin", "main"]);
    ok(a, &["close", "ISS-000001", "--note", "fixed in a"]);
    git(a, &["add", "-A"]);
    git(a, &["commit", "-q", "-m", "close"]);
    git(a, &["push", "-q", "origin", "main"]);
    ok(b, &["claim", "ISS-000001", "--as", "bob"]);
}

/// A close in one clone (the file moved to `archived/`) meets a claim and a note on the same
/// issue in another: git sees a modify/delete and leaves both files. They are one issue in two
/// states (one `docketKey`): concluding the merge by hand runs the post-commit hook, which
/// merges them into one file, the close winning over the claim and the note kept; never
/// renumbered apart into two issues.
#[test]
fn a_close_meeting_a_claim_elsewhere_stays_one_issue_closed_with_both_texts() {
    let (_tmp, clones) = origin_and_clones(2);
    let (a, b) = (&clones[0], &clones[1]);
    close_in_a_claim_in_b(a, b, "");
    ok(b, &["update", "ISS-000001", "--description", "bob's finding: the cookie expires early"]);
    git(b, &["add", "-A"]);
    git(b, &["commit", "-q", "-m", "claim"]);
    let o = common::git_command(b).args(["pull", "--no-rebase", "--no-edit", "origin", "main"]).output().expect("git");
    let pulled = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    let files = |dir: &Path| {
        let mut found = Vec::new();
        for sub in ["", "archived"] {
            for e in std::fs::read_dir(dir.join(".docket/issues").join(sub)).expect("folder").flatten() {
                if e.path().extension().is_some_and(|x| x == "md") {
                    found.push(e.path());
                }
            }
        }
        found
    };
    if files(b).len() == 2 {
        // git left both (modify/delete): the user concludes the merge, the post-commit hook repairs.
        let doctor = docket(b, &["doctor"]);
        let said = String::from_utf8_lossy(&doctor.stdout).into_owned();
        assert!(said.contains("one issue in two states") && said.contains("a close wins over a claim"), "{said}");
        git(b, &["add", "-A"]);
        git_all(b, &["commit", "-q", "--no-edit"]);
    }
    let left = files(b);
    assert_eq!(left.len(), 1, "one file for one issue: {left:?}\n{pulled}");
    let text = std::fs::read_to_string(&left[0]).expect("read");
    assert!(left[0].parent().is_some_and(|p| p.ends_with("archived")), "{:?}", left[0]);
    assert!(text.contains("status: closed") && text.contains("fixed in a"), "{text}");
    assert!(text.contains("bob's finding: the cookie expires early"), "the claim's note is kept: {text}");
    let issues = all_issues(b);
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0]["id"], "ISS-000001");
    assert!(docket(b, &["doctor"]).status.success(), "nothing left to repair");
    assert!(git(b, &["status", "--porcelain"]).is_empty(), "the repair is committed");
}

/// The simplest lost close: A closes an issue (moved to `archived/`), B claims it later, B
/// pulls. git pairs the move with B's edit and the driver merges the status: the close wins,
/// whichever was later, so the merged file in `archived/` says closed and nothing is offered.
#[test]
fn a_pull_never_reopens_a_close_with_a_later_claim() {
    let (_tmp, clones) = origin_and_clones(2);
    let (a, b) = (&clones[0], &clones[1]);
    let body: String = (1..=60).map(|i| format!("line {i} of a body long enough for git to see the move\n")).collect();
    close_in_a_claim_in_b(a, b, &body);
    git(b, &["add", "-A"]);
    git(b, &["commit", "-q", "-m", "claim"]);
    let pulled = git_all(b, &["pull", "--no-rebase", "--no-edit", "origin", "main"]);
    let issues = all_issues(b);
    assert_eq!(issues.len(), 1, "{pulled}");
    assert_eq!(issues[0]["status"], "closed", "the close wins over the later claim: {pulled}");
    let archived = std::fs::read_dir(b.join(".docket/issues/archived")).expect("archived/").flatten().count();
    assert_eq!(archived, 1, "the merged file is in archived/: {pulled}");
    let ready = ok(b, &["ready"]);
    assert!(!ready.contains("ISS-000001"), "{ready}");
}

/// Hooks go where git runs them from, inside the repository only: a relative `core.hooksPath`
/// is honoured; a hooks folder that is a link out of the repository, or a `core.hooksPath`
/// outside it, gets nothing written through it, and git-setup says what to add by hand.
#[test]
fn hooks_go_where_git_looks_and_never_through_a_link_out_of_the_repository() {
    let (tmp, clones) = origin_and_clones(1);
    let dir = &clones[0];
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&outside).expect("mkdir");
    let hooks = dir.join(".git/hooks");
    std::fs::remove_dir_all(&hooks).expect("rm hooks");
    std::os::unix::fs::symlink(&outside, &hooks).expect("link");
    let refused = docket(dir, &["git-setup"]);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{said}");
    assert!(said.contains("outside the repository") && said.contains("docket hook post-merge"), "{said}");
    assert_eq!(std::fs::read_dir(&outside).expect("ls").count(), 0, "nothing written through the link");

    git(dir, &["config", "core.hooksPath", "../outside"]);
    assert!(!docket(dir, &["git-setup"]).status.success());
    assert_eq!(std::fs::read_dir(&outside).expect("ls").count(), 0, "nor into a hooks path out of the repository");

    std::fs::remove_file(&hooks).expect("rm link");
    git(dir, &["config", "core.hooksPath", "team-hooks"]);
    let set = ok(dir, &["git-setup"]);
    for name in ["post-merge", "post-rewrite", "post-commit"] {
        let hook = std::fs::read_to_string(dir.join("team-hooks").join(name)).expect("installed in core.hooksPath");
        assert!(hook.contains("docket") && set.contains(&format!("team-hooks/{name}: installed")), "{set}");
    }
    assert!(!hooks.exists(), "not in .git/hooks, which git does not run");
}

/// `docket doctor`'s duplicate ids, as `(count, exit code)`.
fn duplicate_count(dir: &Path) -> usize {
    let o = docket(dir, &["doctor", "--json"]);
    let report: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    report["problems"].as_array().expect("problems").iter().filter(|p| p["kind"] == "duplicate_id").count()
}

on_each_fixture! {
    /// A wrangler workspace that already holds duplicate ids, shared through git by three clones
    /// with the hooks. The hooks renumber only what each merge duplicated: were they to renumber
    /// the old duplicates too, two clones would each number them their own way, and the next
    /// merge would stop on rename/rename conflicts. The old ones are left for one `doctor --fix`.
    fn hooks_leave_duplicates_older_than_the_merge_to_doctor(fx) {
        let tmp = tempfile::tempdir().expect("tmp");
        let seed = fx.path();
        git(seed, &["init", "-q", "-b", "main"]);
        ok(seed, &["git-setup"]);
        git(seed, &["add", "-A"]);
        git(seed, &["commit", "-q", "-m", "wrangler workspace"]);
        let old = duplicate_count(seed);
        assert!(old >= 3, "the fixture holds duplicate ids: {old}");
        let origin = tmp.path().join("origin.git");
        git(tmp.path(), &["clone", "-q", "--bare", seed.to_str().expect("utf-8"), origin.to_str().expect("utf-8")]);
        let clones: Vec<PathBuf> = (0..3)
            .map(|i| {
                let name = format!("clone-{i}");
                git(tmp.path(), &["clone", "-q", origin.to_str().expect("utf-8"), &name]);
                let dir = tmp.path().join(name);
                ok(&dir, &["git-setup"]);
                dir
            })
            .collect();
        let commit = |dir: &Path, titles: &[&str]| {
            for t in titles {
                create(dir, t, None);
            }
            git(dir, &["add", "-A"]);
            git(dir, &["commit", "-q", "-m", "new issues"]);
        };
        commit(&clones[0], &["from clone 0"]);
        git(&clones[0], &["push", "-q", "origin", "main"]);
        // Clones 1 and 2 each merge clone 0's issue (same number as theirs) before either pushes;
        // clone 2 made two issues, so a renumbering of the old duplicates would differ by one.
        commit(&clones[1], &["from clone 1"]);
        commit(&clones[2], &["from clone 2", "from clone 2, again"]);
        for dir in &clones[1..] {
            let pulled = git_all(dir, &["pull", "--no-rebase", "--no-edit", "origin", "main"]);
            assert!(pulled.contains("docket: renumbered") && pulled.contains("docket: committed the repair"), "{pulled}");
            assert!(pulled.contains("already held by several files before this merge"), "{pulled}");
        }
        git(&clones[1], &["push", "-q", "origin", "main"]);
        let pulled = git_all(&clones[2], &["pull", "--no-rebase", "--no-edit", "origin", "main"]);
        assert!(!pulled.contains("CONFLICT"), "{pulled}");
        assert!(git(&clones[2], &["status", "--porcelain"]).is_empty(), "{pulled}");
        let issues = all_issues(&clones[2]);
        let new: BTreeMap<&str, &str> = issues
            .iter()
            .filter(|i| i["title"].as_str().is_some_and(|t| t.starts_with("from clone")))
            .map(|i| (i["id"].as_str().expect("id"), i["title"].as_str().expect("title")))
            .collect();
        assert_eq!(new.len(), 4, "four new issues, four ids: {new:?}");
        assert_eq!(duplicate_count(&clones[2]), old, "the old duplicates are left as they were, for doctor --fix");
    }
}

/// `pull --rebase` replays three local commits onto a teammate's issue at the same path: the
/// local "Task 1: Setup" is created, started, then closed (moved to `archived/`). The teammate's
/// task stays open where it was with its parent; the local one ends closed under a new id with
/// its own parent, both texts whole, and only one copy of each.
#[test]
fn a_rebase_replaying_a_close_onto_another_issue_at_the_same_path_keeps_both_apart() {
    let (_tmp, clones) = origin_and_clones(2);
    let (a, b) = (&clones[0], &clones[1]);
    let plan_a = create_with(a, "Plan A", None, "plan A");
    create_with(a, "Task 1: Setup", Some(&plan_a), "plan A task");
    git(a, &["add", "-A"]);
    git(a, &["commit", "-q", "-m", "a"]);
    git(a, &["push", "-q", "origin", "main"]);
    let plan_b = create_with(b, "Plan B", None, "plan B");
    let task = create_with(b, "Task 1: Setup", Some(&plan_b), "plan B task");
    let second = create_with(b, "Task 2: Build", Some(&plan_b), "plan B second task");
    ok(b, &["block", &second, "--by", &task]);
    git(b, &["add", "-A"]);
    git(b, &["commit", "-q", "-m", "b1"]);
    ok(b, &["update", &task, "--status", "in_progress", "--description", "plan B task, started"]);
    git(b, &["commit", "-q", "-am", "b2"]);
    ok(b, &["close", &task]);
    git(b, &["add", "-A"]);
    git(b, &["commit", "-q", "-m", "b3"]);
    let pulled = git_all(b, &["pull", "--rebase", "origin", "main"]);
    assert!(pulled.contains("docket: committed the repair"), "{pulled}");
    assert!(git(b, &["status", "--porcelain"]).is_empty(), "{pulled}");
    let issues = all_issues(b);
    let by_text: BTreeMap<String, &Value> =
        issues.iter().map(|i| (i["description"].as_str().expect("d").trim().to_string(), i)).collect();
    assert_eq!((issues.len(), by_text.len()), (5, 5), "one copy of each: {pulled}");
    let ids: BTreeSet<&str> = issues.iter().map(|i| i["id"].as_str().expect("id")).collect();
    assert_eq!(ids.len(), 5);
    let id_of = |text: &str| by_text[text]["id"].as_str().expect("id").to_string();
    let parent_of = |text: &str| by_text[text]["wranglerContext"]["parentTaskId"].as_str().expect("p").to_string();
    assert_eq!(id_of("plan A task"), "ISS-000002", "the pushed task keeps its id");
    assert_eq!(by_text["plan A task"]["status"], "open");
    assert_eq!(parent_of("plan A task"), id_of("plan A"), "{pulled}");
    assert_eq!(by_text["plan B task, started"]["status"], "closed");
    assert_eq!(parent_of("plan B task, started"), id_of("plan B"), "{pulled}");
    // The blocker was written in the branch before the rebase, where ISS-000002 was b's task.
    let blockers = &by_text["plan B second task"]["blockedBy"];
    assert_eq!(blockers, &serde_json::json!([id_of("plan B task, started")]), "{pulled}");
    assert_eq!(docket(b, &["doctor"]).status.code(), Some(0), "{pulled}");
}

/// A small xorshift generator: the random run below is the same on every machine.
struct Dice(u64);

impl Dice {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Five clones (0-2 fetch before each create, 3-4 never) taking 16 turns in a random order:
/// a plan with 1-4 tasks titled alike in every clone, each blocked by the one before, some
/// committed on their own, some started or closed, a teammate's issue reprioritized, then
/// `pull --rebase` or a merge, at random. Every turn ends clean with nothing typed by hand, and
/// a fresh clone holds every issue once, under distinct ids, with its parent, blocker and status.
#[test]
fn a_random_run_of_five_clones_ends_with_every_issue_once_and_every_link_right() {
    let (tmp, clones) = origin_and_clones(5);
    let mut dice = Dice(0x2545_f491_4f6c_dd1d);
    // description -> (its plan's description, its blocker's description, closed)
    let mut made: BTreeMap<String, (Option<String>, Option<String>, bool)> = BTreeMap::new();
    for turn in 0..16 {
        let i = dice.below(5) as usize;
        let dir = &clones[i];
        let fetch = || {
            if i < 3 {
                git(dir, &["fetch", "-q"]);
            }
        };
        fetch();
        let plan = format!("turn {turn} clone {i} plan");
        let plan_id = create_with(dir, &format!("Plan of turn {turn}"), None, &plan);
        made.insert(plan.clone(), (None, None, false));
        let mut before: Option<(String, String)> = None;
        for k in 1..=1 + dice.below(4) {
            fetch();
            let task = format!("turn {turn} clone {i} task {k}");
            let id = create_with(dir, &format!("Task {k}: step"), Some(&plan_id), &task);
            if let Some((b, _)) = &before {
                ok(dir, &["block", &id, "--by", b]);
            }
            if dice.chance(30) {
                git(dir, &["add", "-A"]);
                git(dir, &["commit", "-q", "-m", &task]);
            }
            let closed = dice.chance(25);
            if closed {
                ok(dir, &["close", &id]);
            } else if dice.chance(20) {
                ok(dir, &["update", &id, "--status", "in_progress"]);
            }
            made.insert(task.clone(), (Some(plan.clone()), before.map(|(_, d)| d), closed));
            before = Some((id, task));
        }
        if dice.chance(40) {
            let listed = ok(dir, &["list", "--json"]);
            let open: Value = serde_json::from_str(&listed).expect("JSON");
            let ids: Vec<&str> =
                open["issues"].as_array().into_iter().flatten().filter_map(|i| i["id"].as_str()).collect();
            let id = ids[dice.below(ids.len() as u64) as usize];
            ok(dir, &["update", id, "--priority", if dice.chance(50) { "low" } else { "high" }]);
        }
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "--allow-empty", "-m", &format!("turn {turn}")]);
        let how = if dice.chance(50) { "--rebase" } else { "--no-rebase" };
        let pulled = git_all(dir, &["pull", how, "--no-edit", "origin", "main"]);
        assert!(!pulled.contains("CONFLICT"), "turn {turn}, clone {i}, {how}: {pulled}");
        assert!(git(dir, &["status", "--porcelain"]).is_empty(), "turn {turn}, clone {i}, {how}: {pulled}");
        git(dir, &["push", "-q", "origin", "main"]);
    }
    let reader = tmp.path().join("reader");
    git(tmp.path(), &["clone", "-q", tmp.path().join("origin.git").to_str().expect("utf-8"), "reader"]);
    let issues = all_issues(&reader);
    let ids: BTreeSet<&str> = issues.iter().map(|i| i["id"].as_str().expect("id")).collect();
    let text = |i: &Value| i["description"].as_str().expect("description").trim().to_string();
    let by_text: BTreeMap<String, &Value> = issues.iter().map(|i| (text(i), i)).collect();
    let by_id: BTreeMap<&str, &Value> = issues.iter().map(|i| (i["id"].as_str().expect("id"), i)).collect();
    assert_eq!((issues.len(), ids.len(), by_text.len()), (made.len(), made.len(), made.len()));
    for (d, (plan, blocker, closed)) in &made {
        let issue = by_text.get(d).unwrap_or_else(|| panic!("{d} lost"));
        if let Some(plan) = plan {
            let parent = issue["wranglerContext"]["parentTaskId"].as_str().expect("a parent");
            assert_eq!(&text(by_id[parent]), plan, "{d}'s parent");
        }
        let blockers: Vec<&str> =
            issue["blockedBy"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let named: Vec<String> = blockers.iter().map(|b| text(by_id[b])).collect();
        assert_eq!(named, blocker.iter().cloned().collect::<Vec<_>>(), "{d}'s blocker");
        assert_eq!(issue["status"] == "closed", *closed, "{d}'s status");
    }
    assert_eq!(docket(&reader, &["doctor"]).status.code(), Some(0));
}

/// The file of `id` in `dir`'s issues folder, and its text.
fn issue_file(dir: &Path, id: &str) -> (PathBuf, String) {
    let folder = dir.join(".docket/issues");
    let entry = std::fs::read_dir(&folder)
        .expect("issues folder")
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with(&format!("{id}-")))
        .unwrap_or_else(|| panic!("no file for {id}"));
    let text = std::fs::read_to_string(entry.path()).expect("read");
    (entry.path(), text)
}

/// Issue 37's item 5: two clones create "the same" issue in the same millisecond (one file name,
/// title, body and creation instant; different assignees, and so different random keys; the
/// files are written directly). `git pull` keeps both, each with its own id. And docket gives
/// every issue it creates such a key.
#[test]
fn two_issues_created_in_the_same_millisecond_on_two_clones_stay_two() {
    let (_tmp, clones) = origin_and_clones(2);
    let (a, b) = (&clones[0], &clones[1]);
    let file = |assignee: &str, key: &str| {
        format!(
            "---\nid: ISS-000001\ntitle: 'Task 1: Setup'\ntype: issue\nstatus: open\npriority: medium\nlabels: []\n\
             assignee: {assignee}\ncreatedAt: '2026-03-01T10:00:00.123Z'\nupdatedAt: '2026-03-01T10:00:00.123Z'\n\
             docketKey: {key}\n---\nSet up.\n"
        )
    };
    for (dir, assignee, key, msg) in [(a, "ann", "1111111111111111", "a"), (b, "bob", "2222222222222222", "b")] {
        let folder = dir.join(".docket/issues");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("ISS-000001-task-1-setup.md"), file(assignee, key)).unwrap();
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", msg]);
    }
    git(a, &["push", "-q", "origin", "main"]);
    let pulled = git_all(b, &["pull", "--no-rebase", "--no-edit", "origin", "main"]);
    let issues = all_issues(b);
    let mut holders: Vec<&str> = issues.iter().filter_map(|i| i["assignee"].as_str()).collect();
    holders.sort();
    assert_eq!(holders, ["ann", "bob"], "both issues are kept: {pulled}");
    let ids: BTreeSet<&str> = issues.iter().map(|i| i["id"].as_str().expect("id")).collect();
    assert_eq!(ids.len(), 2, "each with its own id: {pulled}");
    assert!(pulled.contains("told apart by their docketKey"), "{pulled}");

    let id = create(b, "Another", None);
    let key = issue_file(b, &id).1.lines().find_map(|l| l.strip_prefix("docketKey: ")).map(str::to_string);
    assert!(key.is_some_and(|k| k.len() == 16), "a new issue has a key");
}

/// Issue 37's item 4: a teammate's branch changes an issue's body (with an older `updatedAt`
/// than ours); after the merge, a write guarded by what an agent read before it (its
/// `updatedAt` or its version) is refused, so the teammate's text is not overwritten unseen.
#[tokio::test]
async fn a_write_guarded_by_what_was_read_before_a_merge_is_refused_after_it() {
    let (_tmp, clones) = origin_and_clones(2);
    let (a, b) = (clones[0].clone(), clones[1].clone());
    let id = create_with(&a, "Shared", None, "The first text.");
    git(&a, &["add", "-A"]);
    git(&a, &["commit", "-q", "-m", "create"]);
    git(&a, &["push", "-q", "origin", "main"]);
    git(&b, &["pull", "-q", "--no-rebase", "origin", "main"]);
    ok(&b, &["update", &id, "--description", "The teammate's text."]);
    git(&b, &["commit", "-q", "-am", "teammate"]);
    git(&b, &["push", "-q", "origin", "main"]);
    ok(&a, &["update", &id, "--priority", "high"]);
    git(&a, &["commit", "-q", "-am", "ours, later"]);

    let c = common::start(&a).await;
    let read = common::structured(&common::call(&c, "issues_get", serde_json::json!({"id": id})).await);
    let (updated_at, version) = (read["issue"]["updatedAt"].clone(), read["version"].clone());
    git_all(&a, &["pull", "--no-rebase", "--no-edit", "origin", "main"]);
    assert!(issue_file(&a, &id).1.contains("The teammate's text."), "the merge took the teammate's body");
    for guard in [serde_json::json!({"ifUpdatedAt": updated_at}), serde_json::json!({"ifVersion": version})] {
        let mut args = serde_json::json!({"id": id, "description": "The agent's text."});
        args.as_object_mut().unwrap().extend(guard.as_object().cloned().unwrap());
        let r = common::call(&c, "issues_update", args).await;
        assert!(common::is_error(&r), "{guard}: {}", common::text(&r));
        assert!(common::text(&r).starts_with("CONFLICT"), "{}", common::text(&r));
    }
    assert!(issue_file(&a, &id).1.contains("The teammate's text."), "nothing overwritten");
    c.cancel().await.unwrap();
}

/// The soak (tests/teams/soak.rs) found one issue become two: two clones each closed ISS-000001 (each
/// move to `archived/` too small a file for git to see a rename), so both branches added
/// `archived/ISS-000001-...md` with one `docketKey`; the driver took them for two hand copies of
/// one file and split them, and the hook gave the copy a new id and key. They are one issue in
/// two states, merged against the version both moved (both closes' notes kept).
#[test]
fn one_issue_closed_in_two_clones_stays_one_issue() {
    let (_tmp, clones) = origin_and_clones(2);
    let (a, b) = (&clones[0], &clones[1]);
    assert_eq!(create(a, "Task 1: Setup", None), "ISS-000001");
    git(a, &["add", "-A"]);
    git(a, &["commit", "-q", "-m", "a task"]);
    git(a, &["push", "-q", "origin", "main"]);
    git(b, &["pull", "-q", "--no-rebase", "--no-edit", "origin", "main"]);
    ok(a, &["close", "ISS-000001", "--note", "ann's note: done, and tested on both platforms"]);
    git(a, &["add", "-A"]);
    git(a, &["commit", "-q", "-m", "ann closes it"]);
    git(a, &["push", "-q", "origin", "main"]);
    // Enough of a change that git sees no rename on this side either.
    ok(
        b,
        &[
            "update",
            "ISS-000001",
            "--priority",
            "high",
            "--assignee",
            "bob",
            "--label",
            "soak",
            "--label",
            "two",
            "--project",
            "alpha-project-name",
        ],
    );
    ok(b, &["close", "ISS-000001", "--note", "bob's note: done as well"]);
    git(b, &["add", "-A"]);
    git(b, &["commit", "-q", "-m", "bob closes it"]);
    let pulled = git_all(b, &["pull", "--no-rebase", "--no-edit", "origin", "main"]);
    assert!(!pulled.contains("renumbered") && !pulled.contains("two different issues"), "{pulled}");
    let issues = all_issues(b);
    assert_eq!(issues.len(), 1, "one issue: {issues:?} {pulled}");
    let issue = &issues[0];
    assert_eq!((issue["id"].as_str(), issue["status"].as_str()), (Some("ISS-000001"), Some("closed")), "{pulled}");
    assert_eq!(issue["priority"], "high", "bob's change kept: {issue}");
    let files: Vec<String> = std::fs::read_dir(b.join(".docket/issues/archived"))
        .expect("archived")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let text = std::fs::read_to_string(b.join(".docket/issues/archived").join(&files[0])).expect("read");
    assert!(text.contains("ann's note") && text.contains("bob's note"), "both notes kept: {text}");
    assert!(!text.contains("<<<<<<<"), "no conflict markers: {text}");
    assert!(git(b, &["status", "--porcelain"]).is_empty(), "merged and committed: {pulled}");
}

/// The soak's rename/rename: one clone's hook renumbered a follow-up in its working tree (the
/// file had changes of its own, so the repair was left uncommitted) and the merge went out with
/// both issues at one id. A second clone, where the other issue had been closed since (moved to
/// `archived/`), pulled that merge: judged by paths, the two files were never together in one
/// tree, so its hook renumbered the follow-up too, to its own next number, and the next pull of
/// either clone stopped on a rename/rename. Judged by the issue files' names, whatever folder
/// their state puts them in, the duplicate came from the other side, and is left to the clone
/// whose repair is on its way.
#[test]
fn a_duplicate_pulled_from_the_remote_is_renumbered_by_one_clone_only() {
    let (_tmp, clones) = origin_and_clones(3);
    let (x, y, z) = (&clones[0], &clones[1], &clones[2]);
    let commit = |dir: &Path, message: &str| {
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", message]);
    };
    let pull = |dir: &Path| git_all(dir, &["pull", "--no-rebase", "--no-edit", "origin", "main"]);
    let a = create(y, "first, from y", None);
    commit(y, "a");
    git(y, &["push", "-q", "origin", "main"]);
    pull(z);
    // x made its own issue meanwhile, with the same id, and is still editing it.
    let b = create(x, "second, from x", None);
    assert_eq!(a, b, "two clones, one number");
    commit(x, "b");
    let b_file = x.join(".docket/issues").join(
        std::fs::read_dir(x.join(".docket/issues"))
            .expect("issues")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .find(|n| n.contains("second"))
            .expect("b's file"),
    );
    std::fs::OpenOptions::new()
        .append(true)
        .open(&b_file)
        .and_then(|mut f| {
            use std::io::Write;
            f.write_all(b"\nStill writing.\n")
        })
        .expect("edit");
    let pulled = pull(x);
    assert!(pulled.contains("left in the working tree"), "{pulled}");
    git(x, &["push", "-q", "origin", "main"]);
    // z closed a (to archived/) and made an issue of its own, both committed, then pulls x's merge.
    ok(z, &["close", &a]);
    create(z, "third, from z", None);
    commit(z, "z's work");
    let pulled = pull(z);
    assert!(!pulled.contains("docket: renumbered"), "the duplicate came from x, whose repair is on its way: {pulled}");
    git(z, &["push", "-q", "origin", "main"]);
    // x's repair goes out; then everyone pulls until level.
    commit(x, "x's repair");
    let pulled = pull(x);
    assert!(!pulled.contains("CONFLICT"), "{pulled}");
    git(x, &["push", "-q", "origin", "main"]);
    for dir in [y, z] {
        let pulled = pull(dir);
        assert!(!pulled.contains("CONFLICT"), "{pulled}");
    }
    let issues = all_issues(z);
    let ids: BTreeSet<&str> = issues.iter().map(|i| i["id"].as_str().expect("id")).collect();
    let titles: BTreeSet<&str> = issues.iter().map(|i| i["title"].as_str().expect("title")).collect();
    assert_eq!((ids.len(), titles.len(), issues.len()), (3, 3, 3), "three issues, three ids: {issues:?}");
}
