//! The wrangler workspaces the store's and the server's compatibility tests run on: the generated
//! one ([`super::quirky`]), fresh for each test, and a copy of a real wrangler workspace when
//! `DOCKET_REAL_FIXTURE=PATH` names one at build time. Shared by store/tests and tests/ (which
//! includes this file and quirky.rs from here).

use std::path::{Path, PathBuf};

use super::quirky::{self, Facts};

/// A test body run on each fixture: `NAME::generated` always, `NAME::real_fixture` on the real
/// workspace when `DOCKET_REAL_FIXTURE` names one at build time (the crate's build.rs sets the
/// `docket_real_fixture` cfg), listed as ignored otherwise. `async fn` bodies run under tokio
/// (the crate must depend on it); plain `fn` bodies as they are. The fixture is
/// `crate::common::fixture::Fixture`: each crate that includes this file does so as that module.
#[macro_export]
macro_rules! on_each_fixture {
    ($(#[$meta:meta])* async fn $name:ident($fx:ident) $body:block $($rest:tt)*) => {
        $(#[$meta])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            use $crate::common::fixture::Fixture;

            async fn body($fx: Fixture) $body

            #[tokio::test]
            async fn generated() {
                body(Fixture::generated()).await
            }

            #[tokio::test]
            #[cfg_attr(not(docket_real_fixture), ignore = "no real wrangler workspace: set DOCKET_REAL_FIXTURE=PATH")]
            async fn real_fixture() {
                body(Fixture::real()).await
            }
        }
        $crate::on_each_fixture! { $($rest)* }
    };
    ($(#[$meta:meta])* fn $name:ident($fx:ident) $body:block $($rest:tt)*) => {
        $(#[$meta])*
        mod $name {
            #[allow(unused_imports)]
            use super::*;
            use $crate::common::fixture::Fixture;

            fn body($fx: Fixture) $body

            #[test]
            fn generated() {
                body(Fixture::generated())
            }

            #[test]
            #[cfg_attr(not(docket_real_fixture), ignore = "no real wrangler workspace: set DOCKET_REAL_FIXTURE=PATH")]
            fn real_fixture() {
                body(Fixture::real())
            }
        }
        $crate::on_each_fixture! { $($rest)* }
    };
    () => {};
}

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
