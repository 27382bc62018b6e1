//! The commands a footer prints to run next ("Next page: docket list --cursor 25.x --status all",
//! "+9 more: docket list --status open --label bug"): the command as typed again, with every
//! filter (a cursor is only valid for the filters it was issued for), words shell-quoted.

use super::args::{Filters, ListArgs, READY_PAGE, ReadyArgs, SearchArgs};

impl Filters {
    /// The flags that ask for these filters again (for a "Next page:" hint).
    pub(super) fn flags(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut list = |flag: &str, values: &[String]| {
            if !values.is_empty() {
                out.extend([flag.to_string(), values.join(",")]);
            }
        };
        list("--priority", &self.priority);
        list("--label", &self.labels);
        list("--type", &self.issue_type);
        for (flag, value) in [("--assignee", &self.assignee), ("--project", &self.project)] {
            if let Some(v) = value {
                out.extend([flag.to_string(), v.clone()]);
            }
        }
        out
    }
}

/// Where the next page starts, as a person asks for it: `--page N` after a `--page`, else the
/// cursor the tool gave.
enum NextPage<'a> {
    Page(u32),
    Cursor(&'a str),
}

/// `docket WORDS...` for a hint, each word shell-quoted where it needs it. The paging flag comes
/// right after `lead` (the command, its query and --limit), the filters after it, so the
/// command repeats every filter (a cursor is only valid for the filters it was issued for).
fn command_line(lead: &[String], next: NextPage, rest: &[String]) -> String {
    let paging = match next {
        NextPage::Page(n) => ["--page".to_string(), n.to_string()],
        NextPage::Cursor(c) => ["--cursor".to_string(), c.to_string()],
    };
    std::iter::once("docket".to_string())
        .chain(lead.iter().cloned())
        .chain(paging)
        .chain(rest.iter().cloned())
        .map(|w| shell_quote(&w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` as one shell word.
pub fn shell_quote(text: &str) -> String {
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:,+=@".contains(c)) {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}
impl ListArgs {
    /// The command that shows page `n`, with every filter this one had.
    pub fn page_command(&self, n: u32) -> String {
        self.command(NextPage::Page(n))
    }

    /// The command that shows the next page, with every filter this one had.
    pub fn next_page(&self, cursor: &str) -> String {
        self.command(match self.page {
            Some(p) => NextPage::Page(p + 1),
            None => NextPage::Cursor(cursor),
        })
    }

    fn command(&self, next: NextPage) -> String {
        let mut lead = vec!["list".to_string()];
        if let Some(l) = self.limit {
            lead.extend(["--limit".to_string(), l.to_string()]);
        }
        let mut rest = Vec::new();
        if !self.status.is_empty() {
            rest.extend(["--status".to_string(), self.status.join(",")]);
        }
        rest.extend(self.filters.flags());
        if let Some(f) = &self.format {
            rest.extend(["--format".to_string(), f.clone()]);
        }
        command_line(&lead, next, &rest)
    }
}

impl SearchArgs {
    /// The command that shows the next page, with every filter this one had.
    pub fn next_page(&self, cursor: &str) -> String {
        let mut lead = vec!["search".to_string(), self.query.clone()];
        if let Some(l) = self.limit {
            lead.extend(["--limit".to_string(), l.to_string()]);
        }
        let next = match self.page {
            Some(p) => NextPage::Page(p + 1),
            None => NextPage::Cursor(cursor),
        };
        let mut rest = Vec::new();
        if !self.status.is_empty() {
            rest.extend(["--status".to_string(), self.status.join(",")]);
        }
        rest.extend(self.filters.flags());
        command_line(&lead, next, &rest)
    }
}

impl ReadyArgs {
    /// The command that shows page `n` of the ready issues, with every filter this one had.
    pub fn page_command(&self, n: u32) -> String {
        let mut lead = vec!["ready".to_string()];
        if self.limit != READY_PAGE {
            lead.extend(["--limit".to_string(), self.limit.to_string()]);
        }
        command_line(&lead, NextPage::Page(n), &self.filters.flags())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_that_need_it_are_quoted_for_the_shell() {
        assert_eq!(shell_quote("ISS-000042"), "ISS-000042");
        assert_eq!(shell_quote("open,in_progress"), "open,in_progress");
        assert_eq!(shell_quote("login redirect"), "'login redirect'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
        let lead = ["search".to_string(), "login redirect".to_string()];
        let rest = ["--label".to_string(), "needs review".to_string()];
        assert_eq!(
            command_line(&lead, NextPage::Cursor("10.abc"), &rest),
            "docket search 'login redirect' --cursor 10.abc --label 'needs review'"
        );
        assert_eq!(command_line(&lead[..1], NextPage::Page(3), &[]), "docket search --page 3");
    }
}
