//! docket's warning codes (`_meta.warnings[].code`, as clients and the CLI read them): the
//! runtime's [`WarningCode`]s of docket's own, beside the runtime's generic ones
//! ([`WarningCode::TRUNCATED`], [`WarningCode::IGNORED_PARAMETER`],
//! [`WarningCode::DEPRECATED_PARAMETER`], [`WarningCode::DEPRECATED_TOOL`]).

use toolkit_runtime::{Warning, WarningCode};

use crate::store::StoreWarningCode;

/// The call repeats a recorded failure; the warning carries its known fix.
pub const KNOWN_FAILURE: WarningCode = WarningCode::new("KNOWN_FAILURE");
/// The error memory could not be read or written; the call ran without it.
pub const ERROR_MEMORY_UNAVAILABLE: WarningCode = WarningCode::new("ERROR_MEMORY_UNAVAILABLE");
/// An issue ID in a batch that could not be used (malformed, repeated).
pub const ID_PROBLEM: WarningCode = WarningCode::new("ID_PROBLEM");
/// Problems of the workspace's files, summed up (DUPLICATE_ID, SKIPPED_FILES).
pub const WORKSPACE_PROBLEMS: WarningCode = WarningCode::new("WORKSPACE_PROBLEMS");
/// A session started outside git, so without worktree or branch.
pub const NO_GIT: WarningCode = WarningCode::new("NO_GIT");
/// init_workspace found no assets under pluginRoot.
pub const NO_ASSETS: WarningCode = WarningCode::new("NO_ASSETS");
/// Files the index could not read (the store's warning).
pub const SKIPPED_FILES: WarningCode = WarningCode::new("SKIPPED_FILES");
/// The index may lag the files (the store's warning).
pub const STALE_INDEX: WarningCode = WarningCode::new("STALE_INDEX");
/// One id held by more than one file (the store's warning).
pub const DUPLICATE_ID: WarningCode = WarningCode::new("DUPLICATE_ID");
/// A frontmatter value docket does not know, kept as it was (the store's warning).
pub const NONSTANDARD_VALUE: WarningCode = WarningCode::new("NONSTANDARD_VALUE");
/// An old tracker's id (`BACK-12`, `bd-a1b2`) named an imported issue: the warning says which.
pub const IMPORTED_ID: WarningCode = WarningCode::new("IMPORTED_ID");
/// issues_get section names no heading; the outline is answered instead.
pub const NO_SUCH_SECTION: WarningCode = WarningCode::new("NO_SUCH_SECTION");
/// No workspace yet: reads find nothing until the first write creates it.
pub const NO_WORKSPACE: WarningCode = WarningCode::new("NO_WORKSPACE");
/// A workspace was made in a pending workspace's folder after the process started: served now.
pub const WORKSPACE_APPEARED: WarningCode = WarningCode::new("WORKSPACE_APPEARED");
/// issues_get section names several headings; the first (or the `#N` asked for) is shown.
pub const DUPLICATE_SECTION: WarningCode = WarningCode::new("DUPLICATE_SECTION");
/// A `next` call's body changed since its page; the answer starts again at the beginning.
pub const BODY_CHANGED: WarningCode = WarningCode::new("BODY_CHANGED");
/// The claims remote did not take a change yet (a release queued), or claims are not shared
/// where they look shared (a clone claiming alone).
pub const CLAIMS_REMOTE: WarningCode = WarningCode::new("CLAIMS_REMOTE");

/// The code of a store warning, as clients see it.
pub fn of_store(code: StoreWarningCode) -> WarningCode {
    match code {
        StoreWarningCode::SkippedFiles => SKIPPED_FILES,
        StoreWarningCode::StaleIndex => STALE_INDEX,
        StoreWarningCode::DuplicateId => DUPLICATE_ID,
        StoreWarningCode::NonstandardValue => NONSTANDARD_VALUE,
        StoreWarningCode::ImportedId => IMPORTED_ID,
    }
}

/// Whether the command line shows a warning to a person: the error memory's notes are for agents
/// (they name `errors_resolve`), except a fix someone recorded.
pub fn for_a_person(w: &Warning) -> bool {
    match w.code {
        KNOWN_FAILURE => !w.message.contains("No fix recorded yet"),
        ERROR_MEMORY_UNAVAILABLE => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warning_codes_serialize_as_clients_saw_them() {
        let w = Warning::new(NO_SUCH_SECTION, "m");
        assert_eq!(serde_json::to_value(&w).expect("serializes")["code"], "NO_SUCH_SECTION");
        assert_eq!(of_store(StoreWarningCode::DuplicateId).as_str(), "DUPLICATE_ID");
    }
}
