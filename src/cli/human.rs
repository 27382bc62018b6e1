//! Text for people: dates as "3 days ago", markdown wrapped to the terminal at word boundaries,
//! and a pager for what does not fit on one screen.

use std::io::{IsTerminal, Write};
use std::process::{Command, Stdio};

use chrono::{DateTime, Utc};

/// `2026-11-22T10:00:00.000Z` as `2026-11-22 10:00 (3 days ago)`; text that is not a date as is.
pub fn date(iso: &str, now: DateTime<Utc>) -> String {
    let Ok(at) = DateTime::parse_from_rfc3339(iso.trim()) else { return iso.to_string() };
    let at = at.with_timezone(&Utc);
    format!("{} ({})", at.format("%Y-%m-%d %H:%M"), ago(now.signed_duration_since(at).num_seconds()))
}

/// How long ago `iso` was, in a table's few characters: `now`, `5m`, `3h`, `12d`, `4mo`, `2y`.
pub fn age(iso: &str, now: DateTime<Utc>) -> String {
    let Ok(at) = DateTime::parse_from_rfc3339(iso.trim()) else { return String::new() };
    match now.signed_duration_since(at.with_timezone(&Utc)).num_seconds().max(0) {
        s if s < 60 => "now".to_string(),
        s if s < 3_600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3_600),
        s if s < 86_400 * 60 => format!("{}d", s / 86_400),
        s if s < 86_400 * 730 => format!("{}mo", s / (86_400 * 30)),
        s => format!("{}y", s / (86_400 * 365)),
    }
}

fn ago(seconds: i64) -> String {
    let (n, unit) = match seconds.abs() {
        s if s < 60 => return "just now".to_string(),
        s if s < 3_600 => (s / 60, "minute"),
        s if s < 86_400 => (s / 3_600, "hour"),
        s if s < 86_400 * 60 => (s / 86_400, "day"),
        s if s < 86_400 * 730 => (s / (86_400 * 30), "month"),
        s => (s / (86_400 * 365), "year"),
    };
    let plural = if n == 1 { "" } else { "s" };
    if seconds < 0 { format!("in {n} {unit}{plural}") } else { format!("{n} {unit}{plural} ago") }
}

/// Markdown with every line longer than `width` broken at spaces, continuation lines indented
/// like the line's text (under a list item's text, not its marker). Code blocks, tables and
/// lines without a space to break at are kept as written.
pub fn wrap_markdown(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut in_code = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_code = !in_code;
        }
        if in_code || trimmed.starts_with('|') || line.chars().count() <= width {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let hang = " ".repeat(text_indent(line).min(width / 2));
        let mut current = String::new();
        for word in line.split(' ') {
            let fits = current.chars().count() + 1 + word.chars().count() <= width;
            if !current.trim().is_empty() && !fits && !word.is_empty() {
                out.push_str(current.trim_end());
                out.push('\n');
                current = hang.clone();
            } else if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(word);
        }
        out.push_str(current.trim_end());
        out.push('\n');
    }
    out
}

/// Where a line's text starts: after its indentation and any list marker or quote.
fn text_indent(line: &str) -> usize {
    let indent = line.len() - line.trim_start().len();
    let rest = &line[indent..];
    let marker = ["- [ ] ", "- [x] ", "- [X] ", "- ", "* ", "+ ", "> "].iter().find(|m| rest.starts_with(**m));
    let numbered = rest.find(". ").filter(|&i| i > 0 && i <= 3 && rest[..i].chars().all(|c| c.is_ascii_digit()));
    indent + marker.map(|m| m.len()).or(numbered.map(|i| i + 2)).unwrap_or(0)
}

/// Writes `text` to stdout, through `$PAGER` (else `less -FRX`) when stdout is a terminal and
/// the text is taller than it. Falls back to plain output if the pager cannot start.
pub fn page(text: &str) -> std::io::Result<()> {
    let mut stdout = std::io::stdout();
    if stdout.is_terminal() && text.lines().count() + 1 > terminal_height() {
        let pager = std::env::var("PAGER").ok().filter(|p| !p.trim().is_empty());
        let command = pager.unwrap_or_else(|| "less -FRX".to_string());
        if let Ok(mut child) = Command::new("sh").arg("-c").arg(&command).stdin(Stdio::piped()).spawn() {
            if let Some(mut stdin) = child.stdin.take() {
                // A pager quit before the end closes its input; that is the person's choice.
                let _ = stdin.write_all(text.as_bytes());
            }
            child.wait()?;
            return Ok(());
        }
    }
    stdout.write_all(text.as_bytes())?;
    stdout.flush()
}

#[cfg(unix)]
fn terminal_height() -> usize {
    // SAFETY: TIOCGWINSZ only writes a `winsize` into the struct it is given.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    if ok && size.ws_row > 0 { usize::from(size.ws_row) } else { usize::MAX }
}

#[cfg(not(unix))]
fn terminal_height() -> usize {
    usize::MAX
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_break_between_words_and_hang_under_the_text() {
        let body =
            "- a list item whose text is longer than the width\n```\ncode stays as it is, however long it is\n```\n";
        let wrapped = wrap_markdown(body, 20);
        assert_eq!(
            wrapped,
            "- a list item whose\n  text is longer\n  than the width\n```\ncode stays as it is, however long it is\n```\n"
        );
        assert!(wrapped.lines().filter(|l| !l.starts_with("code")).all(|l| l.chars().count() <= 20));
    }

    #[test]
    fn dates_read_as_how_long_ago() {
        let now = DateTime::parse_from_rfc3339("2026-11-25T12:00:00Z").unwrap().with_timezone(&Utc);
        assert_eq!(date("2026-11-22T10:00:00.000Z", now), "2026-11-22 10:00 (3 days ago)");
        assert_eq!(date("2026-11-25T11:00:00Z", now), "2026-11-25 11:00 (1 hour ago)");
        assert_eq!(date("not a date", now), "not a date");
        assert_eq!(age("2026-11-22T10:00:00.000Z", now), "3d");
        assert_eq!(age("2026-11-25T11:59:30Z", now), "now");
        assert_eq!(age("2025-11-01T00:00:00Z", now), "12mo");
    }
}
