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

/// `message` with tool calls named as commands and parameters as flags.
pub fn in_cli_terms(message: &str) -> String {
    let mut out = message.to_string();
    for (call, command) in CALLS {
        out = replace_word(&out, call, command);
    }
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
}
