//! Plain-text layout: aligned tables and truncation to a width (counted in characters).

/// Terminal width: `COLUMNS` when set to a sane number, else the width of the terminal on
/// stdout, else 100 (a pipe or a file).
pub fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|w| *w >= MIN_WIDTH)
        .or_else(tty_width)
        .unwrap_or(100)
}

/// Narrowest width tables are fitted to.
pub const MIN_WIDTH: usize = 40;

#[cfg(unix)]
fn tty_width() -> Option<usize> {
    // SAFETY: TIOCGWINSZ only writes a `winsize` into the struct it is given.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) } == 0;
    (ok && size.ws_col > 0).then(|| usize::from(size.ws_col).max(MIN_WIDTH))
}

#[cfg(not(unix))]
fn tty_width() -> Option<usize> {
    None
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

/// `text` as lines of at most `width` characters, broken at spaces (a longer word stays whole),
/// each ending in a newline.
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// `text` padded with spaces to `width` characters (no cut).
pub fn pad(text: &str, width: usize) -> String {
    let len = text.chars().count();
    format!("{text}{}", " ".repeat(width.saturating_sub(len)))
}

/// Rows under a header, each column as wide as its widest cell, separated by two spaces; the
/// last column is not padded. Cells must already be cut to their column's maximum.
pub fn render(header: &[&str], rows: &[Vec<String>]) -> String {
    render_styled(header, rows, &|_, _| anstyle::Style::new(), false)
}

/// [`render`], each cell painted in `style(column, cell)` when `colour` is on (the header bold).
pub fn render_styled(
    header: &[&str],
    rows: &[Vec<String>],
    style: &dyn Fn(usize, &str) -> anstyle::Style,
    colour: bool,
) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>, paint: &dyn Fn(usize, &str) -> anstyle::Style| {
        let last = cells.iter().rposition(|c| !c.is_empty()).unwrap_or(0);
        let parts: Vec<String> = cells
            .iter()
            .take(last + 1)
            .enumerate()
            .map(|(i, c)| {
                let gap =
                    if i == last { String::new() } else { " ".repeat(widths[i].saturating_sub(c.chars().count())) };
                super::style::paint(colour, paint(i, c), c) + &gap
            })
            .collect();
        parts.join("  ")
    };
    let mut out = vec![line(header.to_vec(), &|_, _| super::style::header())];
    out.extend(rows.iter().map(|r| line(r.iter().map(String::as_str).collect(), style)));
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
    fn wrap_breaks_at_spaces_within_the_width() {
        assert_eq!(
            wrap("12 of 252 issues. 240 more, pass --cursor 12.abc (or --all).", 30),
            "12 of 252 issues. 240 more,\npass --cursor 12.abc (or\n--all).\n"
        );
        assert_eq!(wrap("short", 30), "short\n");
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
