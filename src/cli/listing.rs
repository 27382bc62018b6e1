//! The issue list as a table, shared by `list`, `search` and `ready`: which columns a width has
//! room for, and what each issue shows in them.

use super::table::{self, truncate};
use super::{human, style};
use crate::generated::IssueRecord;

/// The list table, fitted to `width`: TITLE keeps at least `TITLE_MIN` characters (`TITLE_WANT`
/// before TYPE or LABELS is shown); to make room, long IDs are cut, then TYPE, LABELS, AGE
/// (since the last update), ASSIGNEE, PRIORITY and STATUS are left out in that order; LABELS takes what TITLE leaves. A column no issue has a
/// value for is left out.
pub(super) fn list_table(issues: &[IssueRecord], width: usize, colour: bool) -> String {
    const TITLE_MIN: usize = 24;
    const TITLE_WANT: usize = 40;
    const LABELS_MIN: usize = 8;
    /// Room kept for LABELS when cutting titles.
    const LABELS_ROOM: usize = 14;
    let (id, status, priority, assignee, age, kind, title, labels) = (0, 1, 2, 3, 4, 5, 6, 7);
    let header = ["ID", "STATUS", "PRIORITY", "ASSIGNEE", "AGE", "TYPE", "TITLE", "LABELS"];
    let now = chrono::Utc::now();
    let mut rows: Vec<Vec<String>> = issues
        .iter()
        .map(|r| {
            vec![
                r.id.clone(),
                r.status.map(|s| s.to_string()).unwrap_or_default(),
                r.priority.map(|p| p.to_string()).unwrap_or_default(),
                truncate(r.assignee.as_deref().unwrap_or_default(), 12),
                r.updated_at.as_deref().map(|d| human::age(d, now)).unwrap_or_default(),
                r.r#type.map(|t| t.to_string()).unwrap_or_default(),
                r.title.clone().unwrap_or_default(),
                r.labels.as_ref().map(|l| l.join(",")).unwrap_or_default(),
            ]
        })
        .collect();
    // IDs of files without frontmatter are their names, sometimes 40 characters long.
    let id_max = if width >= 120 { 40 } else { (width / 4).max(12) };
    for row in &mut rows {
        row[id] = truncate(&row[id], id_max);
    }
    let widest = |rows: &[Vec<String>], i: usize| {
        rows.iter().map(|r| r[i].chars().count()).chain([header[i].len()]).max().unwrap_or(0)
    };
    let has_values = |i: usize| rows.iter().any(|r| !r[i].is_empty());
    // ASSIGNEE shows even when nobody is assigned: "-" everywhere says so.
    let mut keep: Vec<usize> =
        (0..header.len()).filter(|&i| i == id || i == title || i == assignee || has_values(i)).collect();
    // The width of the columns other than TITLE and LABELS, with the gaps between all columns.
    let fixed = |rows: &[Vec<String>], keep: &[usize]| -> usize {
        keep.iter().filter(|&&i| i != title && i != labels).map(|&i| widest(rows, i)).sum::<usize>()
            + 2 * (keep.len() - 1)
    };
    // Titles matter more than TYPE and LABELS: those go before a title is cut below TITLE_WANT;
    // the other columns only to keep TITLE_MIN.
    let title_want = widest(&rows, title).clamp(TITLE_MIN, TITLE_WANT);
    for drop in [kind, labels, age, assignee, priority, status] {
        let room = if [kind, labels].contains(&drop) { title_want } else { TITLE_MIN };
        let need = fixed(&rows, &keep) + room + if keep.contains(&labels) { LABELS_MIN } else { 0 };
        if need <= width {
            break;
        }
        keep.retain(|&i| i != drop);
    }
    let fixed = fixed(&rows, &keep);
    let labels_room = if keep.contains(&labels) { widest(&rows, labels).min(LABELS_ROOM) } else { 0 };
    let title_max = width.saturating_sub(fixed + labels_room).clamp(TITLE_MIN, 80);
    for row in &mut rows {
        row[title] = truncate(&row[title], title_max);
    }
    if keep.contains(&labels) {
        let labels_max = width.saturating_sub(fixed + widest(&rows, title));
        for row in &mut rows {
            row[labels] = truncate(&row[labels], labels_max);
        }
    }
    let dash = |c: String| if c.is_empty() { "-".to_string() } else { c };
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|r| {
            r.into_iter()
                .enumerate()
                .filter(|(i, _)| keep.contains(i))
                .map(|(i, c)| if i == title || i == labels { c } else { dash(c) })
                .collect()
        })
        .collect();
    let shown: Vec<&str> = keep.iter().map(|&i| header[i]).collect();
    let paint = |col: usize, cell: &str| match shown[col] {
        "STATUS" => style::status(cell),
        "PRIORITY" => style::priority(cell),
        "ID" => style::dim(),
        _ => anstyle::Style::new(),
    };
    table::render_styled(&shown, &rows, &paint, colour)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn record(id: &str, title: &str, labels: &[&str]) -> IssueRecord {
        serde_json::from_value(json!({
            "id": id, "title": title, "status": "in_progress", "priority": "critical", "type": "specification",
            "labels": labels,
        }))
        .expect("a record")
    }

    #[test]
    fn list_rows_fit_the_width_cutting_titles_then_labels() {
        let long = "A very long title that goes on and on well past any reasonable terminal column width";
        let issues = [
            record("SPEC-000001", long, &["performance", "security", "tech-debt", "testing"]),
            record("SPEC-000002", "Short", &[]),
        ];
        let table = list_table(&issues, 100, false);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 3, "{table}");
        assert!(lines.iter().all(|l| l.chars().count() <= 100), "{table}");
        assert!(lines[1].contains("A very long title that goes on"), "{table}");
        assert!(lines[1].contains("…  performance,"), "{table}");
        assert!(lines[1].ends_with('…'), "labels cut too: {table}");
        assert!(lines[2].ends_with("Short"), "{table}");
    }

    #[test]
    fn at_80_columns_titles_win_over_type_and_labels_and_assignee_and_age_stay() {
        let mut r =
            record("ISS-000843", "Retry the billing webhook when the provider times out", &["docs", "tech-debt"]);
        r.assignee = Some("ann".into());
        r.updated_at = Some((chrono::Utc::now() - chrono::Duration::days(3)).to_rfc3339());
        let table = list_table(&[r], 80, false);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(
            lines[0].split_whitespace().collect::<Vec<_>>(),
            ["ID", "STATUS", "PRIORITY", "ASSIGNEE", "AGE", "TITLE"]
        );
        assert!(lines[1].contains("ann") && lines[1].contains("3d"), "{table}");
        assert!(lines[1].contains("Retry the billing webhook wh"), "the title gets the room: {table}");
        assert!(lines.iter().all(|l| l.chars().count() <= 80), "{table}");
    }

    #[test]
    fn narrow_tables_drop_columns_and_never_overflow() {
        let long = "A title long enough to be cut at any terminal width people use every day, and then some";
        let mut issues = vec![record("2025-11-22-workflow-observability-idea", long, &["a-label", "another-label"])];
        issues.push(record("ISS-000001", "Short", &[]));
        for width in [40, 60, 80, 100, 160, 200] {
            let table = list_table(&issues, width, false);
            assert!(table.lines().all(|l| l.chars().count() <= width), "width {width}:\n{table}");
            assert!(table.lines().nth(2).is_some_and(|l| l.starts_with("ISS-000001")), "{table}");
        }
        let narrow = list_table(&issues, 60, false);
        assert!(narrow.starts_with("ID") && narrow.contains("TITLE") && !narrow.contains("TYPE"), "{narrow}");
        let wide = list_table(&issues, 160, false);
        assert!(wide.contains("TYPE") && wide.contains("LABELS"), "{wide}");
        assert!(wide.contains("2025-11-22-workflow-observability-idea"), "full IDs when wide: {wide}");
    }
}
