//! The wrangler workspaces the store's and the server's compatibility tests run on: the generated
//! one ([`super::quirky`]), fresh for each test, and a copy of a real wrangler workspace when
//! `DOCKET_REAL_FIXTURE=PATH` names one at build time. Shared by store/tests and tests/ (which
//! includes this file and quirky.rs from here).

use std::path::{Path, PathBuf};

use super::quirky::{self, Facts};

/// A writable wrangler workspace in a temporary directory, and what it holds.
pub struct Fixture {
    dir: tempfile::TempDir,
    pub facts: Facts,
    pub real: bool,
}

impl Fixture {
    /// The generated workspace: every quirk of a real one, made fresh for each test.
    pub fn generated() -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let facts = quirky::generate(dir.path());
        Fixture { dir, facts, real: false }
    }

    /// A copy of the real wrangler workspace that `DOCKET_REAL_FIXTURE` names.
    pub fn real() -> Fixture {
        let source = PathBuf::from(std::env::var_os("DOCKET_REAL_FIXTURE").unwrap_or_default());
        assert!(
            source.join(".wrangler").is_dir(),
            "DOCKET_REAL_FIXTURE={} holds no .wrangler/: point it at a real wrangler workspace, or unset it",
            source.display()
        );
        let dir = tempfile::tempdir().expect("temp dir");
        copy_dir(&source.join(".wrangler"), &dir.path().join(".wrangler"));
        Fixture { dir, facts: real_facts(), real: true }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// What the real wrangler workspace holds (bacchus-labs/wrangler at b02bd5f), counted once; the
/// compatibility notes in the tests cite wrangler's own server giving the same numbers.
fn real_facts() -> Facts {
    Facts {
        items: 252,
        issues: 218,
        specifications: 21,
        open_or_in_progress: 117,
        open_high_or_critical: 43,
        workflow_urgent_active: 33,
        next_issue: "ISS-000185".into(),
        next_idea: "IDEA-000011".into(),
        latest_workflow_run: None,
    }
}

/// Copies a directory tree; the copy is writable even where the source is not.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read fixture").flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
            let mut perms = std::fs::metadata(&target).expect("metadata").permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            std::fs::set_permissions(&target, perms).expect("chmod");
        }
    }
}
