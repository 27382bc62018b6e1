//! Which issues a filter keeps, and the order a list sorts them in.

use std::sync::Arc;

use super::graph::Graph;
use super::record::Fields;
use crate::model::{IssueFilter, IssueMeta, SortField, SortOrder};

/// [`matches()`], and the `blocked` filter, which needs the work graph.
pub fn keep<F: Fields + ?Sized>(f: &IssueFilter, graph: Option<&Graph>, m: &F) -> bool {
    matches(f, m) && f.blocked.zip(graph).is_none_or(|(want, g)| g.is_blocked(m.id()) == want)
}

/// Whether an issue is one `f` asks for.
pub fn matches<F: Fields + ?Sized>(f: &IssueFilter, m: &F) -> bool {
    (f.status.is_empty() || f.status.contains(&m.status()))
        && (f.priority.is_empty() || f.priority.contains(&m.priority()))
        && (f.types.is_empty() || f.types.contains(&m.issue_type()))
        && (f.labels.is_empty() || m.labels().any(|l| f.labels.iter().any(|w| w == l)))
        && f.assignee.as_deref().is_none_or(|a| m.assignee() == Some(a))
        && f.project.as_deref().is_none_or(|p| m.project() == Some(p))
        && f.parent_task_id.as_deref().is_none_or(|p| m.parent() == Some(p))
        && (f.ids.is_empty() || f.ids.iter().any(|id| id.eq_ignore_ascii_case(m.id())))
}

/// Whether a filter accepts every issue.
pub fn is_everything(f: &IssueFilter) -> bool {
    f.status.is_empty()
        && f.priority.is_empty()
        && f.labels.is_empty()
        && f.assignee.is_none()
        && f.project.is_none()
        && f.types.is_empty()
        && f.parent_task_id.is_none()
        && f.ids.is_empty()
        && f.blocked.is_none()
}

/// Sorts a list by `sort` in `order`, then by ID.
pub fn sort_metas(items: &mut [Arc<IssueMeta>], sort: SortField, order: SortOrder) {
    items.sort_by(|a, b| {
        let ord = match sort {
            SortField::Created => a.created_at.cmp(&b.created_at),
            SortField::Updated => a.updated_at.cmp(&b.updated_at),
            SortField::Priority => a.priority.cmp(&b.priority),
            SortField::Status => a.status.cmp(&b.status),
            SortField::Id => a.id.cmp(&b.id),
        }
        .then_with(|| a.id.cmp(&b.id));
        let ord = if order == SortOrder::Desc { ord.reverse() } else { ord };
        // Markdown files without frontmatter (READMEs, notes) after the real issues, either way.
        b.frontmatter.cmp(&a.frontmatter).then(ord)
    });
}
