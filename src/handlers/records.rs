//! Builds `IssueRecord`s: which fields an issue carries in a reply (list formats, `fields`).

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::generated::{IssueField, IssueRecord, ListFormat};
use crate::handlers::bodies;
use crate::handlers::convert::{issue_type_out, priority_out, status_out};
use crate::handlers::reading;
use crate::store::IssueMeta;

/// Which fields of an issue to include.
#[derive(Debug, Clone)]
pub struct Projection {
    fields: BTreeSet<Part>,
    /// Longest description returned, in characters; longer ones are cut at a clean boundary.
    limit: Option<usize>,
    /// Summary rows carry the date of the last update only: the time and the creation date cost
    /// ~25 tokens a row, lists are already sorted by them, and issues_get has the full timestamps.
    row_dates: bool,
    /// With `row_dates`, keep `updatedAt` whole: it is what `ifUpdatedAt` compares against.
    exact_update: bool,
    /// Show `type` when it is the default (`issue`); the whole issues_get answer leaves it out,
    /// as its text view and list rows do.
    show_default_type: bool,
    /// The repository root, which `path` (when asked for) is relative to.
    root: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Part {
    Title,
    Type,
    Status,
    Priority,
    Labels,
    Assignee,
    Project,
    Dates,
    Context,
    Description,
    Blockers,
    Path,
}

const SUMMARY: &[Part] = &[Part::Title, Part::Status, Part::Priority, Part::Labels, Part::Dates];
const FULL: &[Part] = &[
    Part::Title,
    Part::Type,
    Part::Status,
    Part::Priority,
    Part::Labels,
    Part::Assignee,
    Part::Project,
    Part::Dates,
    Part::Context,
    Part::Description,
    Part::Blockers,
];

impl Projection {
    pub fn format(format: ListFormat) -> Self {
        let parts: &[Part] = match format {
            ListFormat::Minimal => &[Part::Title, Part::Status],
            ListFormat::Summary => SUMMARY,
            ListFormat::Full => FULL,
        };
        Projection {
            fields: parts.iter().copied().collect(),
            limit: None,
            row_dates: format == ListFormat::Summary,
            exact_update: false,
            show_default_type: true,
            root: None,
        }
    }

    /// The whole issue as issues_get answers it by default: every field, but of the dates only
    /// the last update (exact, for `ifUpdatedAt`), and no `type` for the default kind (the text
    /// view names no kind for it either); `fields` with `dates` and `type` gives them.
    pub fn whole() -> Self {
        Projection {
            fields: FULL.iter().copied().collect(),
            limit: None,
            row_dates: true,
            exact_update: true,
            show_default_type: false,
            root: None,
        }
    }

    /// These fields and the blockers.
    pub fn with_blockers(mut self) -> Self {
        self.fields.insert(Part::Blockers);
        self
    }

    /// The whole issue, or only `fields` (the ID is always included).
    pub fn fields(fields: Option<&[IssueField]>) -> Self {
        let Some(fields) = fields else {
            return Projection {
                fields: FULL.iter().copied().collect(),
                limit: None,
                row_dates: false,
                exact_update: false,
                show_default_type: true,
                root: None,
            };
        };
        let fields = fields
            .iter()
            .map(|f| match f {
                IssueField::Title => Part::Title,
                IssueField::Description => Part::Description,
                IssueField::Type => Part::Type,
                IssueField::Status => Part::Status,
                IssueField::Priority => Part::Priority,
                IssueField::Labels => Part::Labels,
                IssueField::Assignee => Part::Assignee,
                IssueField::Project => Part::Project,
                IssueField::Dates => Part::Dates,
                IssueField::WranglerContext => Part::Context,
                IssueField::Path => Part::Path,
            })
            .collect();
        Projection { fields, limit: None, row_dates: false, exact_update: false, show_default_type: true, root: None }
    }

    /// The repository root the `path` field is given relative to (only a `fields` list with
    /// `path` shows it).
    pub fn paths_from(mut self, root: &std::path::Path) -> Self {
        self.root = Some(root.to_path_buf());
        self
    }

    /// Cuts descriptions longer than `chars` characters.
    pub fn limit(mut self, chars: usize) -> Self {
        self.limit = Some(chars);
        self
    }

    pub fn needs_body(&self) -> bool {
        self.fields.contains(&Part::Description)
    }

    /// The record for `meta`; `body` is used only when the projection includes the description.
    pub fn record(&self, meta: &IssueMeta, body: Option<&str>) -> IssueRecord {
        let has = |p: Part| self.fields.contains(&p);
        let non_empty = |s: &Option<String>| s.clone().filter(|s| !s.is_empty());
        let body = if has(Part::Description) { body.map(bodies::shown) } else { None };
        let body = body.as_deref();
        let cut = body.zip(self.limit).and_then(|(b, limit)| bodies::cut(b, limit));
        let truncated = cut.is_some().then_some(true);
        // The length matters only when the description was cut; a whole one shows its own length.
        let description_length = cut.as_ref().map(|c| c.total as i64);
        let next = cut
            .as_ref()
            .zip(body)
            .map(|(c, b)| reading::call(&meta.id, None, Some(c.kept), Some(&reading::body_version(b))));
        let description = cut.map(|c| c.text).or_else(|| body.map(str::to_string));
        let dates = has(Part::Dates);
        let updated_at = match dates && self.row_dates && !self.exact_update {
            true => Some(meta.updated_at.get(..10).unwrap_or(&meta.updated_at).to_string()),
            false => dates.then(|| whole_seconds(&meta.updated_at)),
        };
        IssueRecord {
            id: meta.id.clone(),
            title: has(Part::Title).then(|| meta.title.clone()),
            r#type: (has(Part::Type) && (self.show_default_type || meta.issue_type != crate::store::IssueType::Issue))
                .then(|| issue_type_out(meta.issue_type)),
            status: has(Part::Status).then(|| status_out(meta.status)),
            priority: has(Part::Priority).then(|| priority_out(meta.priority)),
            // Empty and absent say the same; `[]` on every row costs tokens for nothing.
            labels: (has(Part::Labels) && !meta.labels.is_empty()).then(|| meta.labels.clone()),
            assignee: if has(Part::Assignee) { non_empty(&meta.assignee) } else { None },
            project: if has(Part::Project) { non_empty(&meta.project) } else { None },
            created_at: (dates && !self.row_dates).then(|| whole_seconds(&meta.created_at)),
            updated_at,
            closed_at: if dates && !self.row_dates {
                non_empty(&meta.closed_at).map(|c| whole_seconds(&c))
            } else {
                None
            },
            description_length,
            description,
            truncated,
            next,
            excerpt: None,
            offset: None,
            section: None,
            outline: None,
            wrangler_context: (has(Part::Context) && !meta.context.is_empty()).then(|| meta.context.clone()),
            blocked_by: (has(Part::Blockers) && !meta.blocked_by.is_empty()).then(|| meta.blocked_by.clone()),
            open_blockers: None,
            blocks: None,
            path: has(Part::Path).then(|| {
                let root = self.root.as_deref().unwrap_or(std::path::Path::new(""));
                let shown = meta.path.strip_prefix(root).unwrap_or(&meta.path);
                shown.to_string_lossy().replace('\\', "/")
            }),
        }
    }
}

/// `2026-07-13T09:04:30.000Z` as `2026-07-13T09:04:30Z`: the same instant (what `ifUpdatedAt`
/// compares) in two tokens fewer; times with real milliseconds are kept as written.
fn whole_seconds(time: &str) -> String {
    time.strip_suffix(".000Z").map_or_else(|| time.to_string(), |t| format!("{t}Z"))
}
