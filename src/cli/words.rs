//! Tool errors and warnings in a person's words: the messages the tools write for an agent name
//! tool calls and parameters (`Use issues_list ...`, `Invalid status[1] 'done'`); at the command
//! line the same advice names the commands and flags that do it.

/// Tool calls and the command that does the same, longest first so no replacement cuts another.
const CALLS: [(&str, &str); 15] = [
    ("call workspace_doctor with fix: true (or run `docket doctor --fix`)", "run `docket doctor --fix`"),
    ("call workspace_doctor for the list and fixes", "run `docket doctor` for the list"),
    ("workspace_doctor without fix", "`docket doctor`"),
    ("issues_list with types [specification]", "`docket list --type specification`"),
    ("issues_list or issues_search", "`docket list` or `docket search TEXT`"),
    ("issues_mark_complete", "`docket close`"),
    ("issues_update", "`docket update`"),
    ("issues_search", "`docket search`"),
    ("issues_create", "`docket create`"),
    ("issues_ready", "`docket ready`"),
    ("issues_claim", "`docket claim`"),
    ("issues_stats", "`docket stats`"),
    ("issues_list", "`docket list`"),
    ("issues_get", "`docket show`"),
    ("workspace_doctor", "`docket doctor`"),
];

/// Advice written for an agent's next call, and the same advice for a person at the command
/// line (applied before the tool names become commands).
const PHRASES: [(&str, &str); 9] = [
    ("issues_claim with takeoverReason: \"why\"", "`docket claim ID --as YOU --force WHY`"),
    (
        "(issues_create, session_start, or init_workspace with fix: true)",
        "(`docket create`; `docket init` makes a .docket/ workspace instead)",
    ),
    (
        "again without cursor to start from the first page",
        "again without --cursor (or --page) to start from the first page",
    ),
    (
        "call again with blockedBy listing only existing IDs of other issues",
        "name only existing issues other than itself as blockers",
    ),
    ("blockedBy would close a cycle", "These blockers would close a cycle"),
    ("(issues_get {id} shows its blockers)", "(`docket tree {id}` shows its blockers)"),
    ("Call issues_get {id} to see the change", "Run `docket show {id}` to see the change"),
    ("repeat the update with ifUpdatedAt {id} if it still applies", "run the command again if it still applies"),
    ("repeat the update with ifVersion {id} if it still applies", "run the command again if it still applies"),
];

/// `message` with tool calls named as commands and parameters as flags.
pub fn in_cli_terms(message: &str) -> String {
    let mut out = message.to_string();
    for (from, to) in PHRASES {
        out = crate::util::replace_phrase(&out, from, to);
    }
    for (call, command) in CALLS {
        out = replace_word(&out, call, command);
    }
    // "Call `docket ready` for ..." is advice to a person: they run commands.
    out = out.replace("Call `docket", "Run `docket").replace("call `docket", "run `docket");
    flags(&out)
}

/// Replaces `from` where it stands as a whole word (not inside `issues_list_x` or a path).
fn replace_word(text: &str, from: &str, to: &str) -> String {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '`';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(from) {
        let whole = !rest[..i].chars().next_back().is_some_and(word)
            && !rest[i + from.len()..].chars().next().is_some_and(word);
        out.push_str(&rest[..i]);
        out.push_str(if whole { to } else { from });
        rest = &rest[i + from.len()..];
    }
    out.push_str(rest);
    out
}

/// `Invalid status[1] 'done'` -> `Invalid --status 'done'`; `Invalid priority 'x'` ->
/// `Invalid --priority 'x'`: the argument checks name the flag that carried the value.
fn flags(text: &str) -> String {
    let Some(rest) = text.strip_prefix("Invalid ") else { return text.to_string() };
    let end = rest.find([' ', ':']).unwrap_or(rest.len());
    let param = &rest[..end];
    let name = param.split('[').next().unwrap_or(param);
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') || name == "issue" {
        return text.to_string();
    }
    format!("Invalid --{}{}", kebab(name), &rest[end..])
}

/// `assignee` -> `assignee`, `blockedBy` -> `blocked-by`.
fn kebab(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::in_cli_terms;

    #[test]
    fn tool_calls_become_commands_and_parameters_flags() {
        assert_eq!(
            in_cli_terms("Issue ISS-000009 not found. Use issues_list or issues_search to find available issues."),
            "Issue ISS-000009 not found. Use `docket list` or `docket search TEXT` to find available issues."
        );
        assert_eq!(
            in_cli_terms("Invalid status[1] 'done'. Valid values: open, closed."),
            "Invalid --status 'done'. Valid values: open, closed."
        );
        assert_eq!(
            in_cli_terms("Invalid priority 'urgent'. Valid values: low."),
            "Invalid --priority 'urgent'. Valid values: low."
        );
        assert_eq!(in_cli_terms("Invalid issue ID 'x': bad."), "Invalid issue ID 'x': bad.");
        assert_eq!(
            in_cli_terms(
                "writes are refused: call workspace_doctor with fix: true (or run `docket doctor --fix`), then retry"
            ),
            "writes are refused: run `docket doctor --fix`, then retry"
        );
        assert_eq!(in_cli_terms("see issues_list_x and issues_get."), "see issues_list_x and `docket show`.");
    }

    #[test]
    fn advice_for_the_next_call_becomes_advice_for_the_next_command() {
        let said = in_cli_terms(
            "The cursor is not valid here (it is not a cursor docket issued). Call issues_list again without cursor to start from the first page.",
        );
        assert_eq!(
            said,
            "The cursor is not valid here (it is not a cursor docket issued). Run `docket list` again without --cursor (or --page) to start from the first page."
        );
        assert_eq!(
            in_cli_terms(
                "Cannot claim ISS-000002: it is blocked. Nothing was written. Call issues_ready for work you can claim now."
            ),
            "Cannot claim ISS-000002: it is blocked. Nothing was written. Run `docket ready` for work you can claim now."
        );
        assert_eq!(
            in_cli_terms(
                "blockedBy would close a cycle: A -> B -> A, so none of them could ever start. Nothing was written; drop the blocker that closes it (issues_get ISS-000001 shows its blockers)."
            ),
            "These blockers would close a cycle: A -> B -> A, so none of them could ever start. Nothing was written; drop the blocker that closes it (`docket tree ISS-000001` shows its blockers)."
        );
        let stale = in_cli_terms(
            "X changed since you read it: its updatedAt is T2, not T1. Nothing was written. Call issues_get ISS-000003 to see the change, then repeat the update with ifUpdatedAt 2026-01-01T00:00:00.000Z if it still applies.",
        );
        assert!(
            stale.ends_with(
                "Run `docket show ISS-000003` to see the change, then run the command again if it still applies."
            ),
            "{stale}"
        );
        let unknown = in_cli_terms(
            "ISS-2 cannot be blocked by ISS-9: no such issue. Nothing was written; call again with blockedBy listing only existing IDs of other issues.",
        );
        assert!(!unknown.contains("blockedBy") && unknown.ends_with("as blockers."), "{unknown}");
    }
}
