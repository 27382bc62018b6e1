//! What docket's tool layer builds on: the generic runtime (`toolkit-runtime`: replies, errors,
//! argument rules, the tool table, the consolidated profile) and docket's own parts: its warning
//! codes, `docket://` URIs, token counts and large bodies.

pub mod bodies;
pub mod tokens;
pub mod uri;

pub use toolkit_runtime::{
    CallContext, ErrorCode, Link, Reply, ResultCounts, Severity, ToolError, ToolResult, ToolSpec, Warning, aliases,
    args, call, consolidated, envelope, server,
};

/// What a [`Warning`] is about: `_meta.warnings[].code`, as clients and the CLI read it. docket's
/// codes, the runtime's among them; a [`Warning`] holds the runtime's form ([`Self::of`] reads it back).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum WarningCode {
    /// A body or page cut to the response limit; the warning says how to read the rest.
    Truncated,
    /// A parameter the tool does not declare, removed before the call ran.
    IgnoredParameter,
    DeprecatedParameter,
    DeprecatedTool,
    /// The call repeats a recorded failure; the warning carries its known fix.
    KnownFailure,
    ErrorMemoryUnavailable,
    /// An issue ID in a batch that could not be used (malformed, repeated).
    IdProblem,
    /// Problems of the workspace's files, summed up (DUPLICATE_ID, SKIPPED_FILES).
    WorkspaceProblems,
    /// A session started outside git, so without worktree or branch.
    NoGit,
    /// init_workspace found no assets under pluginRoot.
    NoAssets,
    SkippedFiles,
    StaleIndex,
    DuplicateId,
    NonstandardValue,
    /// An old tracker's id (`BACK-12`, `bd-a1b2`) named an imported issue: the warning says which.
    ImportedId,
    /// issues_get section names no heading; the outline is answered instead.
    NoSuchSection,
    /// No workspace yet: reads find nothing until the first write creates it.
    NoWorkspace,
    /// A workspace was made in a pending workspace's folder after the process started: served now.
    WorkspaceAppeared,
    /// issues_get section names several headings; the first (or the `#N` asked for) is shown.
    DuplicateSection,
    /// A `next` call's body changed since its page; the answer starts again at the beginning.
    BodyChanged,
    /// The claims remote did not take a change yet (a release queued), or claims are not shared
    /// where they look shared (a clone claiming alone).
    ClaimsRemote,
}

impl WarningCode {
    /// The code as clients see it.
    pub fn as_str(self) -> &'static str {
        use WarningCode::*;
        match self {
            Truncated => "TRUNCATED",
            IgnoredParameter => "IGNORED_PARAMETER",
            DeprecatedParameter => "DEPRECATED_PARAMETER",
            DeprecatedTool => "DEPRECATED_TOOL",
            KnownFailure => "KNOWN_FAILURE",
            ErrorMemoryUnavailable => "ERROR_MEMORY_UNAVAILABLE",
            IdProblem => "ID_PROBLEM",
            WorkspaceProblems => "WORKSPACE_PROBLEMS",
            NoGit => "NO_GIT",
            NoAssets => "NO_ASSETS",
            SkippedFiles => "SKIPPED_FILES",
            StaleIndex => "STALE_INDEX",
            DuplicateId => "DUPLICATE_ID",
            NonstandardValue => "NONSTANDARD_VALUE",
            ImportedId => "IMPORTED_ID",
            NoSuchSection => "NO_SUCH_SECTION",
            NoWorkspace => "NO_WORKSPACE",
            WorkspaceAppeared => "WORKSPACE_APPEARED",
            DuplicateSection => "DUPLICATE_SECTION",
            BodyChanged => "BODY_CHANGED",
            ClaimsRemote => "CLAIMS_REMOTE",
        }
    }

    /// docket's code of a warning's `code`; `None` for a code docket does not know.
    pub fn of(code: toolkit_runtime::WarningCode) -> Option<WarningCode> {
        serde_json::from_value(serde_json::Value::from(code.as_str())).ok()
    }
}

impl From<WarningCode> for toolkit_runtime::WarningCode {
    fn from(code: WarningCode) -> Self {
        toolkit_runtime::WarningCode::new(code.as_str())
    }
}

impl PartialEq<WarningCode> for toolkit_runtime::WarningCode {
    fn eq(&self, other: &WarningCode) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<toolkit_runtime::WarningCode> for WarningCode {
    fn eq(&self, other: &toolkit_runtime::WarningCode) -> bool {
        self.as_str() == other.as_str()
    }
}

impl From<crate::store::StoreWarningCode> for WarningCode {
    fn from(code: crate::store::StoreWarningCode) -> Self {
        use crate::store::StoreWarningCode as S;
        match code {
            S::SkippedFiles => WarningCode::SkippedFiles,
            S::StaleIndex => WarningCode::StaleIndex,
            S::DuplicateId => WarningCode::DuplicateId,
            S::NonstandardValue => WarningCode::NonstandardValue,
            S::ImportedId => WarningCode::ImportedId,
        }
    }
}

/// Whether the command line shows a warning to a person: the error memory's notes are for agents
/// (they name `errors_resolve`), except a fix someone recorded.
pub fn for_a_person(w: &Warning) -> bool {
    match WarningCode::of(w.code) {
        Some(WarningCode::KnownFailure) => !w.message.contains("No fix recorded yet"),
        Some(WarningCode::ErrorMemoryUnavailable) => false,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warning_codes_read_back_and_serialize_as_clients_saw_them() {
        use WarningCode::*;
        for code in [
            Truncated,
            IgnoredParameter,
            KnownFailure,
            ErrorMemoryUnavailable,
            NoSuchSection,
            NoWorkspace,
            WorkspaceAppeared,
            DuplicateSection,
            BodyChanged,
            ImportedId,
            ClaimsRemote,
        ] {
            assert_eq!(WarningCode::of(code.into()), Some(code), "{}", code.as_str());
        }
        assert_eq!(WarningCode::of(toolkit_runtime::WarningCode::new("ELSEWHERE")), None);
        let w = Warning::new(WarningCode::NoSuchSection, "m");
        assert_eq!(serde_json::to_value(&w).expect("serializes")["code"], "NO_SUCH_SECTION");
        assert_eq!(toolkit_runtime::WarningCode::TRUNCATED, WarningCode::Truncated);
    }
}
