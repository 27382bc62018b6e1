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
    // Each column asks for its widest line (its header, a card, its "+N more"); the width is
    // shared by what each holds: a column that needs less than an even share keeps only that,
    // the rest is shared by the others.
    let wants: Vec<usize> = columns
        .iter()
        .map(|c| {
            let head = format!("{} ({})", c.name.to_uppercase(), c.count).chars().count();
            let cards = c.cards.iter().map(|card| card.chars().count()).max().unwrap_or(0);
            let more = match (&c.hint, c.more) {
                (_, 0) => 0,
                (Some(h), n) => format!("+{n} more: {h}").chars().count(),
                (None, n) => format!("+{n} more").chars().count(),
            };
            head.max(cards).max(more)
        })
        .collect();
    let cols = share(&wants, width.saturating_sub(gaps));
    let join = |cells: Vec<String>| {
        let mut line = cells.join(SEPARATOR);
        line.truncate(line.trim_end().len());
        line
    };
    let headers: Vec<String> = columns
        .iter()
        .zip(&cols)
        .map(|(c, &col)| {
            let head = format!("{} ({})", c.name.to_uppercase(), c.count);
            let head = truncate(&head, col);
            let gap = " ".repeat(col.saturating_sub(head.chars().count()));
            super::style::paint(colour, super::style::header(), &head) + &gap
        })
        .collect();
    let mut lines = vec![join(headers)];
    lines.push(cols.iter().map(|&col| "─".repeat(col)).collect::<Vec<_>>().join("─┼─"));
    let cells: Vec<Vec<String>> = columns
        .iter()
        .zip(&cols)
        .map(|(c, &col)| {
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
        let row_cells = cells
            .iter()
            .zip(&cols)
            .map(|(c, &col)| pad(&c.get(row).map(|card| truncate(card, col)).unwrap_or_default(), col))
            .collect();
        lines.push(join(row_cells));
    }
    lines.join("\n") + "\n"
}

/// Widths for columns that want `wants`, within `room`: every column that wants no more than an
/// even share of what is left gets what it wants; the others share the rest evenly.
fn share(wants: &[usize], mut room: usize) -> Vec<usize> {
    let mut out = vec![0; wants.len()];
    let mut left: Vec<usize> = (0..wants.len()).collect();
    while !left.is_empty() {
        let even = room / left.len();
        let (small, big): (Vec<usize>, Vec<usize>) = left.iter().partition(|&&i| wants[i] <= even);
        if small.is_empty() {
            let extra = room % left.len();
            for (k, &i) in left.iter().enumerate() {
                out[i] = even + usize::from(k < extra);
            }
            break;
        }
        for &i in &small {
            out[i] = wants[i];
            room -= wants[i];
        }
        left = big;
    }
    out
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
        // The empty column keeps only its header's width; the long title gets the rest.
        assert!(
            lines[2].starts_with("ISS-000001 A title far too long to fit in one column of the board │ "),
            "{board}"
        );
        assert!(lines[0].contains("IN_PROGRESS (0) │"), "{board}");
        assert!(lines[2].ends_with("│ ISS-000003 C"), "{board}");
        assert!(lines[3].ends_with("│ +11 more"), "the rest of a capped column is counted: {board}");
        assert_eq!(lines.len(), 4, "{board}");
    }

    #[test]
    fn the_width_is_shared_by_what_each_column_needs() {
        assert_eq!(share(&[60, 15, 60], 94), vec![40, 15, 39]);
        assert_eq!(share(&[10, 15, 12], 94), vec![10, 15, 12]);
        assert_eq!(share(&[90, 90, 90], 94), vec![32, 31, 31]);
        assert_eq!(share(&[], 94), Vec::<usize>::new());
    }
}
