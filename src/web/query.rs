//! The filter bar as the page's address carries it, shared by the board, the list and the
//! statistics: `?q=login&priority=high,critical&label=bug,ui&assignee=ann,bo&status=open`. Every
//! filter takes several values, comma-separated; an issue matches when it has any of them.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Value, json};

use super::answer::{ApiError, bad, store_error};
use crate::store::{
    IssueFilter, IssueMeta, IssueType, Priority, SearchField, SearchQuery, SortField, SortOrder, Status, Store,
};

#[derive(Debug, Default, Deserialize)]
pub struct BoardQuery {
    #[serde(default)]
    pub q: String,
    #[serde(default)]
    pub priority: String,
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub assignee: String,
    #[serde(default)]
    pub project: String,
    #[serde(default, rename = "type")]
    pub issue_type: String,
    /// Statuses to show (the board's columns, the list's rows); none: open, in progress, closed.
    #[serde(default)]
    pub status: String,
    /// "1" adds cancelled issues (the board's fourth column).
    #[serde(default)]
    pub cancelled: String,
    /// One column's next page (`/api/column`).
    #[serde(default)]
    pub column: String,
    /// The list's sort key and order (`/api/list`).
    #[serde(default)]
    pub sort: String,
    #[serde(default)]
    pub order: String,
    #[serde(default)]
    pub offset: usize,
    pub limit: Option<usize>,
}

/// The values of a comma-separated filter, trimmed, without empties.
pub fn values(raw: &str) -> Vec<String> {
    raw.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

/// Values of a comma-separated filter, each parsed like the tools parse them.
fn parse_list<T: Copy>(
    name: &str,
    raw: &str,
    parse: fn(&str) -> Option<T>,
    all: &[T],
    show: fn(&T) -> &'static str,
) -> Result<Vec<T>, ApiError> {
    values(raw)
        .iter()
        .map(|s| {
            parse(s).ok_or_else(|| {
                let valid: Vec<&str> = all.iter().map(show).collect();
                bad(format!("unknown {name} `{s}`; use one of: {}", valid.join(", ")))
            })
        })
        .collect()
}

impl BoardQuery {
    /// The statuses asked for: the `status` filter, else open, in progress and closed (and
    /// cancelled with `cancelled=1`), in workflow order.
    pub fn statuses(&self) -> Result<Vec<Status>, ApiError> {
        let mut chosen = parse_list("status", &self.status, Status::parse_loose, Status::ALL, Status::as_str)?;
        if chosen.is_empty() {
            chosen = vec![Status::Open, Status::InProgress, Status::Closed];
            if self.cancelled == "1" || self.cancelled == "true" {
                chosen.push(Status::Cancelled);
            }
        }
        chosen.sort();
        chosen.dedup();
        Ok(chosen)
    }

    fn filter(&self) -> Result<IssueFilter, ApiError> {
        let one = |raw: &str| match values(raw).as_slice() {
            [only] => Some(only.clone()),
            _ => None,
        };
        Ok(IssueFilter {
            priority: parse_list("priority", &self.priority, Priority::parse_loose, Priority::ALL, Priority::as_str)?,
            labels: values(&self.label),
            assignee: one(&self.assignee),
            project: one(&self.project),
            types: parse_list("type", &self.issue_type, IssueType::parse_loose, IssueType::ALL, IssueType::as_str)?,
            ..IssueFilter::default()
        })
    }

    /// Every issue matching the filters (any status) and the search text, in board order.
    pub fn matching(&self, store: &Store) -> Result<Vec<Arc<IssueMeta>>, ApiError> {
        let filter = self.filter()?;
        let mut items = if self.q.trim().is_empty() {
            store.list(&filter, SortField::Updated, SortOrder::Desc).map_err(store_error)?.value
        } else {
            let query = SearchQuery {
                text: self.q.trim().to_string(),
                fields: vec![SearchField::Title, SearchField::Labels, SearchField::Description],
                filter,
            };
            let mut hits = store.search(&query).map_err(store_error)?.value;
            hits.sort_by_key(|h| std::cmp::Reverse(h.score));
            hits.into_iter().map(|h| h.meta).collect()
        };
        // Several assignees or projects: the store's filter takes one, the rest is done here.
        let any_of = |wanted: &[String], have: &Option<String>| {
            wanted.len() < 2 || have.as_deref().is_some_and(|h| wanted.iter().any(|w| w.eq_ignore_ascii_case(h)))
        };
        let (assignees, projects) = (values(&self.assignee), values(&self.project));
        items.retain(|m| any_of(&assignees, &m.assignee) && any_of(&projects, &m.project));
        board_order(&mut items);
        Ok(items)
    }

    /// [`BoardQuery::matching`], of the statuses asked for.
    pub fn matching_shown(&self, store: &Store) -> Result<Vec<Arc<IssueMeta>>, ApiError> {
        let statuses = self.statuses()?;
        let mut items = self.matching(store)?;
        items.retain(|m| statuses.contains(&m.status));
        Ok(items)
    }
}

/// Takes the markdown files without frontmatter (a README, notes) out of `items`: they are not
/// issues, so they are neither listed nor counted among them. Returns them as `[{id, path}]`
/// (the path from the repository root), to be shown apart, named by their file: the board's
/// columns, the list and the statistics all leave them out so.
pub fn apart(store: &Store, items: &mut Vec<Arc<IssueMeta>>) -> Vec<Value> {
    let mut files = Vec::new();
    // The kept count says when there are none (the usual case): nothing to look through.
    if store.plain_files().unwrap_or(1) == 0 {
        return files;
    }
    let root = &store.workspace().root;
    items.retain(|m| {
        if !m.frontmatter {
            let path = m.path.strip_prefix(root).unwrap_or(&m.path).display().to_string();
            files.push(json!({"id": m.id, "path": path}));
        }
        m.frontmatter
    });
    files
}

/// Open work: highest priority first, then most recently updated; closed work: most recent
/// first. Files without frontmatter last. A search keeps its ranking within a priority (the
/// sort is stable over the store's order or the ranking).
fn board_order(items: &mut [Arc<IssueMeta>]) {
    items.sort_by_key(|m| {
        let rank = if m.status.is_archived() { Priority::Low } else { m.priority };
        (!m.frontmatter, std::cmp::Reverse(rank))
    });
}

/// The list view's columns that sort.
pub const SORT_KEYS: &[&str] = &["id", "title", "status", "priority", "type", "assignee", "created", "updated"];

/// Sorts the list view's rows by `key` (one of [`SORT_KEYS`]); ties keep their board order.
/// Missing assignees sort last either way.
pub fn sort_rows(items: &mut [Arc<IssueMeta>], key: &str, descending: bool) -> Result<(), ApiError> {
    use std::cmp::Ordering;
    let cmp: fn(&IssueMeta, &IssueMeta) -> Ordering = match key {
        "id" => |a, b| id_key(&a.id).cmp(&id_key(&b.id)),
        "title" => |a, b| a.title.to_lowercase().cmp(&b.title.to_lowercase()),
        "status" => |a, b| a.status.cmp(&b.status),
        "priority" => |a, b| a.priority.cmp(&b.priority),
        "type" => |a, b| a.issue_type.cmp(&b.issue_type),
        "assignee" => {
            |a, b| a.assignee.as_deref().map(str::to_lowercase).cmp(&b.assignee.as_deref().map(str::to_lowercase))
        }
        "created" => |a, b| a.created_at.cmp(&b.created_at),
        "updated" => |a, b| a.updated_at.cmp(&b.updated_at),
        other => return Err(bad(format!("cannot sort by `{other}`; use one of: {}", SORT_KEYS.join(", ")))),
    };
    let unassigned_last = key == "assignee";
    items.sort_by(|a, b| {
        if unassigned_last {
            match (a.assignee.is_none(), b.assignee.is_none()) {
                (true, false) => return Ordering::Greater,
                (false, true) => return Ordering::Less,
                _ => {}
            }
        }
        let o = cmp(a, b);
        if descending { o.reverse() } else { o }
    });
    Ok(())
}

/// `ISS-000012` before `ISS-000100` and before `SPEC-000001`, numbers compared as numbers.
fn id_key(id: &str) -> (String, u64, String) {
    let split = id.find(|c: char| c.is_ascii_digit()).unwrap_or(id.len());
    let digits: String = id[split..].chars().take_while(char::is_ascii_digit).collect();
    (id[..split].to_uppercase(), digits.parse().unwrap_or(u64::MAX), id.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_comma_separated() {
        assert_eq!(values(" high, critical ,,"), vec!["high", "critical"]);
        assert!(values("").is_empty());
    }

    #[test]
    fn statuses_default_and_chosen() {
        let q = BoardQuery::default();
        assert_eq!(q.statuses().ok(), Some(vec![Status::Open, Status::InProgress, Status::Closed]));
        let q = BoardQuery { status: "closed,open".into(), ..BoardQuery::default() };
        assert_eq!(q.statuses().ok(), Some(vec![Status::Open, Status::Closed]));
        let q = BoardQuery { status: "done".into(), ..BoardQuery::default() };
        assert!(q.statuses().is_err());
    }

    #[test]
    fn ids_sort_by_number() {
        let mut ids = vec!["ISS-000100", "SPEC-000001", "ISS-000012"];
        ids.sort_by_key(|i| id_key(i));
        assert_eq!(ids, ["ISS-000012", "ISS-000100", "SPEC-000001"]);
    }
}
