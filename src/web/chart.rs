//! The statistics page's chart, drawn on the server as inline SVG (no script, no library):
//! issues created and issues closed (or cancelled) so far, day by day, week by week or month by
//! month depending on the span. The gap between the two lines is the work still open.

use std::fmt::Write;
use std::sync::Arc;

use chrono::{Datelike, Duration, NaiveDate};

use crate::store::IssueMeta;

const W: f64 = 720.0;
const H: f64 = 260.0;
const LEFT: f64 = 44.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 30.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Day,
    Week,
    Month,
}

impl Unit {
    fn name(self) -> &'static str {
        match self {
            Unit::Day => "day",
            Unit::Week => "week",
            Unit::Month => "month",
        }
    }

    fn start(self, d: NaiveDate) -> NaiveDate {
        match self {
            Unit::Day => d,
            Unit::Week => d - Duration::days(d.weekday().num_days_from_monday().into()),
            Unit::Month => d.with_day(1).unwrap_or(d),
        }
    }

    fn next(self, d: NaiveDate) -> NaiveDate {
        match self {
            Unit::Day => d + Duration::days(1),
            Unit::Week => d + Duration::days(7),
            Unit::Month => d.checked_add_months(chrono::Months::new(1)).unwrap_or(d + Duration::days(31)),
        }
    }
}

/// A bucket's first day, and how many issues were created and closed up to its end.
type Bucket = (NaiveDate, usize, usize);

/// The dates issues were created and closed on.
pub struct Series {
    created: Vec<NaiveDate>,
    closed: Vec<NaiveDate>,
    /// Issues whose createdAt is missing or not a date (left out of the chart).
    pub undated: usize,
}

/// The date of an ISO 8601 timestamp (`2026-03-02T10:00:00Z` or `2026-03-02`).
fn date(iso: &str) -> Option<NaiveDate> {
    NaiveDate::parse_from_str(iso.get(..10)?, "%Y-%m-%d").ok()
}

impl Series {
    pub fn of(items: &[Arc<IssueMeta>]) -> Series {
        let mut s = Series { created: Vec::new(), closed: Vec::new(), undated: 0 };
        for m in items {
            match date(&m.created_at) {
                Some(d) => s.created.push(d),
                None => s.undated += 1,
            }
            if m.status.is_archived()
                && let Some(d) = m.closed_at.as_deref().and_then(date).or_else(|| date(&m.updated_at))
            {
                s.closed.push(d);
            }
        }
        s.created.sort();
        s.closed.sort();
        s
    }

    pub fn created_total(&self) -> usize {
        self.created.len()
    }

    pub fn closed_total(&self) -> usize {
        self.closed.len()
    }

    /// Bucket starts and the running totals (created, closed) at the end of each.
    fn buckets(&self) -> Option<(Unit, Vec<Bucket>)> {
        let first = *self.created.first().into_iter().chain(self.closed.first()).min()?;
        let last = *self.created.last().into_iter().chain(self.closed.last()).max()?;
        let span = (last - first).num_days();
        let unit = match span {
            ..=62 => Unit::Day,
            63..=420 => Unit::Week,
            _ => Unit::Month,
        };
        let mut out = Vec::new();
        let mut at = unit.start(first);
        while at <= last {
            let end = unit.next(at);
            let upto = |dates: &[NaiveDate]| dates.partition_point(|d| *d < end);
            out.push((at, upto(&self.created), upto(&self.closed)));
            at = end;
        }
        Some((unit, out))
    }

    /// The chart as an `<svg>` element; its `data-created` and `data-closed` give the totals.
    pub fn svg(&self) -> String {
        let (created, closed) = (self.created_total(), self.closed_total());
        let mut svg = format!(
            "<svg class=\"chart\" viewBox=\"0 0 {W} {H}\" role=\"img\" data-created=\"{created}\" data-closed=\"{closed}\" \
             aria-label=\"Issues created and closed over time: {created} created, {closed} closed\">"
        );
        let Some((unit, buckets)) = self.buckets() else {
            let _ = write!(
                svg,
                "<text class=\"axis\" x=\"{}\" y=\"{}\">No dated issues</text></svg>",
                W / 2.0 - 50.0,
                H / 2.0
            );
            return svg;
        };
        let top = buckets.iter().map(|b| b.1.max(b.2)).max().unwrap_or(0).max(1);
        let step = nice_step(top);
        let y_max = top.div_ceil(step) * step;
        let (plot_w, plot_h) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
        let n = buckets.len();
        let x = |i: usize| LEFT + if n == 1 { plot_w / 2.0 } else { plot_w * i as f64 / (n - 1) as f64 };
        let y = |v: usize| TOP + plot_h - plot_h * v as f64 / y_max as f64;
        let _ = write!(svg, "<g class=\"grid\" data-unit=\"{}\" data-buckets=\"{n}\">", unit.name());
        let mut v = 0;
        while v <= y_max {
            let _ = write!(
                svg,
                "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\"/><text class=\"axis\" x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{v}</text>",
                W - RIGHT,
                LEFT - 6.0,
                y(v) + 4.0,
                y = y(v)
            );
            v += step;
        }
        svg.push_str("</g>");
        let ticks = 6.min(n);
        // A chart over more than one calendar year says the year on its day and week labels.
        let years = buckets.first().map(|b| b.0.year()) != buckets.last().map(|b| b.0.year());
        for t in 0..ticks {
            let i = if ticks == 1 { 0 } else { t * (n - 1) / (ticks - 1) };
            let label = match unit {
                Unit::Month => buckets[i].0.format("%b %Y").to_string(),
                _ if years => buckets[i].0.format("%b %-d %Y").to_string(),
                _ => buckets[i].0.format("%b %-d").to_string(),
            };
            let anchor = if t == 0 && ticks > 1 {
                "start"
            } else if t + 1 == ticks && ticks > 1 {
                "end"
            } else {
                "middle"
            };
            let _ = write!(
                svg,
                "<text class=\"axis\" x=\"{:.1}\" y=\"{}\" text-anchor=\"{anchor}\">{label}</text>",
                x(i),
                H - 8.0
            );
        }
        for (class, pick) in [("created", 1usize), ("closed", 2)] {
            let points: Vec<String> = buckets
                .iter()
                .enumerate()
                .map(|(i, b)| format!("{:.1},{:.1}", x(i), y(if pick == 1 { b.1 } else { b.2 })))
                .collect();
            let _ = write!(svg, "<polyline class=\"line line-{class}\" points=\"{}\"/>", points.join(" "));
        }
        // Hover targets: one per bucket, with the numbers as a tooltip.
        let width = if n == 1 { plot_w } else { plot_w / (n - 1) as f64 };
        for (i, (start, c, d)) in buckets.iter().enumerate() {
            let _ = write!(
                svg,
                "<rect class=\"hover\" x=\"{:.1}\" y=\"{TOP}\" width=\"{width:.1}\" height=\"{plot_h}\"><title>{} {}: {c} created, {d} closed so far</title></rect>",
                x(i) - width / 2.0,
                unit.name(),
                start.format("%Y-%m-%d")
            );
        }
        svg.push_str("</svg>");
        svg
    }
}

/// A step of 1, 2 or 5 times a power of ten giving at most five grid lines up to `top`.
fn nice_step(top: usize) -> usize {
    let mut step = 1;
    loop {
        for m in [1, 2, 5] {
            if top.div_ceil(step * m) <= 5 {
                return step * m;
            }
        }
        step *= 10;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{IssueType, Priority, Status};

    fn issue(created: &str, status: Status, closed: Option<&str>) -> Arc<IssueMeta> {
        Arc::new(IssueMeta {
            path: Default::default(),
            id: "ISS-1".into(),
            title: String::new(),
            issue_type: IssueType::Issue,
            status,
            priority: Priority::Medium,
            labels: vec![],
            assignee: None,
            project: None,
            created_at: created.into(),
            updated_at: created.into(),
            closed_at: closed.map(str::to_string),
            context: Default::default(),
            blocked_by: vec![],
            body_len: 0,
            frontmatter: true,
        })
    }

    #[test]
    fn totals_run_to_the_counts_and_the_unit_fits_the_span() {
        let items = vec![
            issue("2026-01-05T10:00:00Z", Status::Closed, Some("2026-01-20T00:00:00Z")),
            issue("2026-01-06T10:00:00Z", Status::Open, None),
            issue("2026-05-01", Status::Cancelled, Some("2026-05-02")),
            issue("someday", Status::Open, None),
        ];
        let s = Series::of(&items);
        assert_eq!((s.created_total(), s.closed_total(), s.undated), (3, 2, 1));
        let (unit, buckets) = s.buckets().expect("buckets");
        assert_eq!(unit, Unit::Week);
        let last = buckets.last().expect("a bucket");
        assert_eq!((last.1, last.2), (3, 2));
        assert!(buckets.windows(2).all(|w| w[0].1 <= w[1].1 && w[0].2 <= w[1].2), "running totals");
        let svg = s.svg();
        assert!(svg.contains("data-created=\"3\"") && svg.contains("data-closed=\"2\""), "{svg}");
        assert_eq!(svg.matches("<polyline").count(), 2, "{svg}");
    }

    #[test]
    fn a_chart_across_years_says_the_years() {
        let items = vec![
            issue("2025-11-05T10:00:00Z", Status::Closed, Some("2026-01-20T00:00:00Z")),
            issue("2026-02-06T10:00:00Z", Status::Open, None),
        ];
        let svg = Series::of(&items).svg();
        assert!(svg.contains(">Nov 3 2025</text>") && svg.contains(" 2026</text>"), "{svg}");
        let within = Series::of(&[issue("2026-01-05", Status::Open, None), issue("2026-03-01", Status::Open, None)]);
        assert!(!within.svg().contains(" 2026</text>"), "{}", within.svg());
    }

    #[test]
    fn steps_are_round() {
        assert_eq!(nice_step(3), 1);
        assert_eq!(nice_step(9), 2);
        assert_eq!(nice_step(24), 5);
        assert_eq!(nice_step(240), 50);
        assert!(Series::of(&[]).svg().contains("No dated issues"));
    }
}
