//! Plain-text layout: aligned tables and truncation to a width (counted in characters).

/// Terminal width: `COLUMNS` when set to a sane number, else 100.
pub fn terminal_width() -> usize {
    std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok()).filter(|w| *w >= 40).unwrap_or(100)
}

/// `text` cut to at most `width` characters, ending in `…` when cut.
pub fn truncate(text: &str, width: usize) -> String {
    let text = text.trim();
    if text.chars().count() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut cut: String = text.chars().take(width - 1).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// `text` padded with spaces to `width` characters (no cut).
pub fn pad(text: &str, width: usize) -> String {
    let len = text.chars().count();
    format!("{text}{}", " ".repeat(width.saturating_sub(len)))
}

/// Rows under a header, each column as wide as its widest cell, separated by two spaces; the
/// last column is not padded. Cells must already be cut to their column's maximum.
pub fn render(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let last = cells.len().saturating_sub(1);
        let parts: Vec<String> =
            cells.iter().enumerate().map(|(i, c)| if i == last { c.to_string() } else { pad(c, widths[i]) }).collect();
        let mut text = parts.join("  ");
        text.truncate(text.trim_end().len());
        text
    };
    let mut out = vec![line(header.to_vec())];
    out.extend(rows.iter().map(|r| line(r.iter().map(String::as_str).collect())));
    out.join("\n") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncate_marks_the_cut() {
        assert_eq!(truncate("short", 10), "short");
        assert_eq!(truncate("exactly ten", 11), "exactly ten");
        assert_eq!(truncate("a longer title here", 10), "a longer…");
        assert_eq!(truncate("ünïcödé wörds", 5), "ünïc…");
    }

    #[test]
    fn columns_align_on_the_widest_cell() {
        let rows = vec![
            vec!["a".to_string(), "x".to_string(), "end".to_string()],
            vec!["long".to_string(), "yy".to_string(), "".to_string()],
        ];
        assert_eq!(render(&["H1", "H2", "H3"], &rows), "H1    H2  H3\na     x   end\nlong  yy\n");
    }
}
