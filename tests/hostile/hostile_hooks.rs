//! A hostile repository runs nothing through docket's git hooks (issue 37, item 1): the workspace
//! folder's name never enters a script. Real clones of a bare origin, each set up with
//! `docket git-setup` in a folder named to break out of a shell word, collide on an id; the
//! merge runs the real hooks, which must repair the collision and run nothing else.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common;

use common::{docket, git, git_all};

/// Folder names that break out of a double-quoted shell word, or out of a line.
const HOSTILE: [&[u8]; 8] = [
    b"sub$(touch${IFS}PWNED)",
    b"sub`touch PWNED`",
    b"sub\"quote",
    b"sub'quote",
    b"sub\n$(touch PWNED)",
    b"with space $(touch PWNED)",
    b"bad\xff\xfe$(touch PWNED)",
    b"sub\\\"$(touch PWNED)\\",
];

fn ok(root: &Path, args: &[&str]) -> String {
    let o = docket(root, args);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "docket {args:?} in {} failed: {out}{err}", root.display());
    out.into_owned()
}

/// Every file named PWNED below `dir`.
fn pwned(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("readable").flatten() {
            let path = entry.path();
            if entry.file_name() == "PWNED" {
                found.push(path.clone());
            }
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            }
        }
    }
    found
}

fn ids(root: &Path) -> Vec<String> {
    let v: Value = serde_json::from_str(&ok(root, &["list", "--all", "--json"])).expect("JSON");
    let mut ids: Vec<String> =
        v["issues"].as_array().expect("issues").iter().map(|i| i["id"].as_str().expect("id").to_string()).collect();
    ids.sort();
    ids
}

/// One round: a bare origin, a seed that commits a workspace in folder `name`, two clones that
/// each create ISS-000001 without fetching; the second one's pull runs the hooks.
fn collide_and_merge_in(name: &[u8]) {
    let label = String::from_utf8_lossy(name).into_owned();
    let tmp = tempfile::tempdir().expect("tmp");
    let origin = tmp.path().join("origin.git");
    git(tmp.path(), &["init", "-q", "--bare", "-b", "main", origin.to_str().expect("utf-8")]);
    let clone = |dir: &str| -> PathBuf {
        git(tmp.path(), &["clone", "-q", origin.to_str().expect("utf-8"), dir]);
        tmp.path().join(dir)
    };
    let folder = OsStr::from_bytes(name);
    let seed = clone("seed");
    docket::store::Workspace::init(&seed.join(folder)).expect("init");
    ok(&seed.join(folder), &["git-setup"]);
    git(&seed, &["add", "-A"]);
    git(&seed, &["commit", "-q", "-m", "workspace"]);
    git(&seed, &["push", "-q", "origin", "main"]);

    let (a, b) = (clone("a"), clone("b"));
    for dir in [&a, &b] {
        let setup = ok(&dir.join(folder), &["git-setup"]);
        assert!(setup.contains("post-merge"), "{label}: {setup}");
        let hook = std::fs::read(dir.join(".git/hooks/post-merge")).expect("hook written");
        assert!(!hook.windows(name.len()).any(|w| w == name), "{label}: the folder's name is in the hook");
    }
    ok(&a.join(folder), &["create", "--title", "from a"]);
    git(&a, &["add", "-A"]);
    git(&a, &["commit", "-q", "-m", "a"]);
    git(&a, &["push", "-q", "origin", "main"]);
    ok(&b.join(folder), &["create", "--title", "from b"]);
    git(&b, &["add", "-A"]);
    git(&b, &["commit", "-q", "-m", "b"]);
    let pulled = git_all(&b, &["pull", "--no-rebase", "--no-edit", "origin", "main"]);

    assert_eq!(pwned(tmp.path()), Vec::<PathBuf>::new(), "{label}: a hook ran the folder's name: {pulled}");
    assert!(pulled.contains("docket: renumbered"), "{label}: the merge was not repaired: {pulled}");
    assert_eq!(ids(&b.join(folder)), ["ISS-000001", "ISS-000002"], "{label}: {pulled}");
}

#[test]
fn hooks_in_a_workspace_folder_named_to_run_commands_run_nothing_and_still_repair_merges() {
    for name in HOSTILE {
        collide_and_merge_in(name);
    }
}

/// Hooks an older docket wrote (the workspace path inside the script) are docket's own: setup
/// rewrites them without the path, and the merge they run next is repaired all the same.
#[test]
fn setup_replaces_hooks_that_carried_the_workspace_path() {
    let tmp = tempfile::tempdir().expect("tmp");
    let repo = tmp.path().join("repo");
    std::fs::create_dir(&repo).expect("mkdir");
    git(&repo, &["init", "-q", "-b", "main"]);
    docket::store::Workspace::init(&repo).expect("init");
    ok(&repo, &["git-setup"]);
    let hook = repo.join(".git/hooks/post-merge");
    let current = std::fs::read_to_string(&hook).expect("hook");
    let older = current.replace(
        "hook post-merge \"$@\"",
        "hook post-merge --workspace \"$(git rev-parse --show-toplevel)/.docket\" \"$@\"",
    );
    assert_ne!(older, current);
    std::fs::write(&hook, &older).expect("write");
    let setup = ok(&repo, &["git-setup"]);
    assert!(setup.contains("post-merge: installed"), "{setup}");
    assert_eq!(std::fs::read_to_string(&hook).expect("hook"), current);
    assert!(!repo.join(".git/hooks/post-merge.legacy").exists(), "an older docket hook is not kept as the user's");
}

/// A sibling repository whose last commit gave two files one id: what a hook that wandered in
/// would renumber and commit. Its HEAD.
fn victim_with_a_duplicate(victim: &Path) -> String {
    std::fs::create_dir(victim).expect("mkdir");
    git(victim, &["init", "-q", "-b", "main"]);
    docket::store::Workspace::init(victim).expect("init");
    ok(victim, &["create", "--title", "victim's own"]);
    let folder = victim.join(".docket/issues");
    let first = std::fs::read_dir(&folder).expect("issues").flatten().next().expect("one file").path();
    let text = std::fs::read_to_string(&first).expect("read");
    std::fs::write(folder.join("ISS-000001-copy.md"), text.replace("victim's own", "a copy")).expect("write");
    git(victim, &["add", "-A"]);
    git(victim, &["commit", "-q", "-m", "a duplicate id"]);
    git(victim, &["rev-parse", "HEAD"])
}

/// A clone of a bare origin whose workspace is `tracker/.docket`, set up with the hooks; the
/// seed clone that pushes to it.
fn tracker_clone(tmp: &Path) -> (PathBuf, PathBuf) {
    let origin = tmp.join("origin.git");
    git(tmp, &["init", "-q", "--bare", "-b", "main", origin.to_str().expect("utf-8")]);
    git(tmp, &["clone", "-q", origin.to_str().expect("utf-8"), "seed"]);
    let seed = tmp.join("seed");
    std::fs::create_dir(seed.join("tracker")).expect("mkdir");
    docket::store::Workspace::init(&seed.join("tracker")).expect("init");
    ok(&seed.join("tracker"), &["create", "--title", "upstream's"]);
    ok(&seed.join("tracker"), &["git-setup"]);
    git(&seed, &["add", "-A"]);
    git(&seed, &["commit", "-q", "-m", "tracker"]);
    git(&seed, &["push", "-q", "origin", "main"]);
    git(tmp, &["clone", "-q", origin.to_str().expect("utf-8"), "clone"]);
    let clone = tmp.join("clone");
    ok(&clone.join("tracker"), &["git-setup"]);
    assert_eq!(git(&clone, &["config", "docket.workspace"]).trim(), "tracker/.docket");
    (seed, clone)
}

/// Issue 44, item 1: a pull never makes docket's hook rename or commit in another repository,
/// whether the tracked workspace folder became a link to it, or the recorded folder is absolute
/// or climbs out. The hook does nothing there and says why.
#[test]
fn a_hook_never_repairs_a_workspace_outside_the_repository_it_runs_in() {
    for how in ["tracked link", "absolute", "climbs"] {
        let tmp = tempfile::tempdir().expect("tmp");
        let victim = tmp.path().join("victim");
        let head = victim_with_a_duplicate(&victim);
        let before = common::snapshot(&victim);
        let (seed, clone) = tracker_clone(tmp.path());
        match how {
            "tracked link" => {
                git(&seed, &["rm", "-q", "-r", "tracker"]);
                std::fs::remove_dir_all(seed.join("tracker")).ok();
                std::os::unix::fs::symlink("../victim", seed.join("tracker")).expect("symlink");
            }
            _ => {
                let value = if how == "absolute" { victim.join(".docket") } else { PathBuf::from("../victim/.docket") };
                git(&clone, &["config", "docket.workspace", value.to_str().expect("utf-8")]);
                std::fs::write(seed.join("README"), "new").expect("write");
            }
        }
        git(&seed, &["add", "-A"]);
        git(&seed, &["commit", "-q", "-m", "next"]);
        git(&seed, &["push", "-q", "origin", "main"]);
        let pulled = git_all(&clone, &["pull", "--ff-only", "origin", "main"]);
        assert_eq!(
            git(&victim, &["rev-parse", "HEAD"]),
            head,
            "{how}: the hook committed in another repository: {pulled}"
        );
        assert!(common::snapshot_diff(&before, &common::snapshot(&victim)).is_empty(), "{how}: {pulled}");
        assert!(!pulled.contains("renumbered"), "{how}: {pulled}");
        assert!(pulled.contains("repaired nothing"), "{how}: the hook does not say why it did nothing: {pulled}");
    }
}

/// The guard is not blind: the same pull into a workspace inside the repository still repairs.
#[test]
fn a_hook_still_repairs_its_own_nested_workspace() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (seed, clone) = tracker_clone(tmp.path());
    ok(&clone.join("tracker"), &["create", "--title", "from the clone"]);
    git(&clone, &["add", "-A"]);
    git(&clone, &["commit", "-q", "-m", "clone"]);
    ok(&seed.join("tracker"), &["create", "--title", "from the seed"]);
    git(&seed, &["add", "-A"]);
    git(&seed, &["commit", "-q", "-m", "seed"]);
    git(&seed, &["push", "-q", "origin", "main"]);
    let pulled = git_all(&clone, &["pull", "--no-rebase", "--no-edit", "origin", "main"]);
    assert!(pulled.contains("docket: renumbered"), "{pulled}");
    assert_eq!(ids(&clone.join("tracker")), ["ISS-000001", "ISS-000002", "ISS-000003"], "{pulled}");
}
