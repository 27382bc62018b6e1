//! The kanban layout: columns side by side, a header with each column's count, one card per line.

use super::table::{pad, truncate};

/// One column of the board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The status it shows (e.g. `in_progress`).
    pub name: String,
    /// Issues with that status (all of them, shown or not).
    pub count: usize,
    /// The cards shown: `ID priority title`.
    pub cards: Vec<String>,
    /// Issues of the column not shown as cards, counted in a last "+N more" line.
    pub more: usize,
    /// The command that lists them all, shown in that line when it fits.
    pub hint: Option<String>,
}

const SEPARATOR: &str = " │ ";

/// The board, no line wider than `width` characters; headers bold when `colour` is on.
pub fn render(columns: &[Column], width: usize, colour: bool) -> String {
    if columns.is_empty() {
        return String::new();
    }
    let gaps = SEPARATOR.chars().count() * (columns.len() - 1);
    let col = width.saturating_sub(gaps) / columns.len();
    let join = |cells: Vec<String>| {
        let mut line = cells.join(SEPARATOR);
        line.truncate(line.trim_end().len());
        line
    };
    let headers: Vec<String> = columns
        .iter()
        .map(|c| {
            let head = format!("{} ({})", c.name.to_uppercase(), c.count);
            let head = truncate(&head, col);
            let gap = " ".repeat(col.saturating_sub(head.chars().count()));
            super::style::paint(colour, super::style::header(), &head) + &gap
        })
        .collect();
    let mut lines = vec![join(headers)];
    lines.push(vec!["─".repeat(col); columns.len()].join("─┼─"));
    let cells: Vec<Vec<String>> = columns
        .iter()
        .map(|c| {
            let mut cells = c.cards.clone();
            if c.more > 0 {
                let long = c.hint.as_ref().map(|h| format!("+{} more: {h}", c.more));
                let line = long.filter(|l| l.chars().count() <= col).unwrap_or_else(|| format!("+{} more", c.more));
                cells.push(line);
            }
            cells
        })
        .collect();
    let depth = cells.iter().map(Vec::len).max().unwrap_or(0);
    for row in 0..depth {
        let row_cells =
            cells.iter().map(|c| pad(&c.get(row).map(|card| truncate(card, col)).unwrap_or_default(), col)).collect();
        lines.push(join(row_cells));
    }
    lines.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, count: usize, cards: &[&str]) -> Column {
        let more = count.saturating_sub(cards.len());
        Column { name: name.into(), count, cards: cards.iter().map(|c| c.to_string()).collect(), more, hint: None }
    }

    #[test]
    fn columns_sit_side_by_side_within_the_width() {
        let board = render(
            &[
                column(
                    "open",
                    2,
                    &["ISS-000001 A title far too long to fit in one column of the board", "ISS-000002 B"],
                ),
                column("in_progress", 0, &[]),
                column("closed", 12, &["ISS-000003 C"]),
            ],
            100,
            false,
        );
        let lines: Vec<&str> = board.lines().collect();
        assert!(lines.iter().all(|l| l.chars().count() <= 100), "{board}");
        assert!(lines[0].starts_with("OPEN (2)"), "{board}");
        assert!(lines[0].contains("│ IN_PROGRESS (0)"), "{board}");
        assert!(lines[0].contains("│ CLOSED (12)"), "{board}");
        assert!(lines[2].starts_with("ISS-000001 A title far too lon… │ "), "{board}");
        assert!(lines[2].contains('…'), "{board}");
        assert!(lines[2].ends_with("│ ISS-000003 C"), "{board}");
        assert!(lines[3].ends_with("│ +11 more"), "the rest of a capped column is counted: {board}");
        assert_eq!(lines.len(), 4, "{board}");
    }
}
