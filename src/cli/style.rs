//! Colour for people at a terminal: only when stdout is a terminal, `NO_COLOR` is unset and
//! `TERM` is not `dumb`; pipes and files get plain text.

use std::io::IsTerminal;

use anstyle::{AnsiColor, Style};

/// Whether to colour what goes to stdout.
pub fn enabled() -> bool {
    std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

/// `text` in `style` (as it is when colour is off).
pub fn paint(on: bool, style: Style, text: &str) -> String {
    if !on || style == Style::new() {
        return text.to_string();
    }
    format!("{}{text}{}", style.render(), style.render_reset())
}

pub fn header() -> Style {
    Style::new().bold()
}

pub fn dim() -> Style {
    Style::new().dimmed()
}

/// The colour of a status value as the tools write it.
pub fn status(value: &str) -> Style {
    let color = |c: AnsiColor| Style::new().fg_color(Some(c.into()));
    match value {
        "open" => color(AnsiColor::Green),
        "in_progress" => color(AnsiColor::Yellow),
        "closed" => color(AnsiColor::Magenta),
        "cancelled" => dim(),
        _ => Style::new(),
    }
}

/// The colour of a priority value.
pub fn priority(value: &str) -> Style {
    match value {
        "critical" => Style::new().fg_color(Some(AnsiColor::Red.into())).bold(),
        "high" => Style::new().fg_color(Some(AnsiColor::Red.into())),
        "low" => dim(),
        _ => Style::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paint_wraps_only_when_on() {
        assert_eq!(paint(false, status("open"), "open"), "open");
        let on = paint(true, status("open"), "open");
        assert!(on.starts_with('\u{1b}') && on.contains("open") && on.ends_with('m'), "{on:?}");
        assert_eq!(paint(true, status("unknown"), "x"), "x");
    }
}
