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
