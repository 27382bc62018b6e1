//! What filters and counts need of each issue, interned into a few bytes per issue and kept in a
//! dense column beside the index's slots: counting 100,000 issues by status or project reads
//! this column, not 100,000 scattered records and their strings.

use std::hash::BuildHasher;

use hashbrown::HashTable;

use super::record::Fields;
use crate::model::{IssueFilter, IssueType, Priority, Status};

/// How many issues in all, and in each group (`None`: no assignee or project).
pub type Counts = (usize, Vec<(Option<String>, usize)>);

/// A field to count issues by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    /// By status, each group named as frontmatter writes it (`in_progress`).
    Status,
    /// By priority (`low` ... `critical`).
    Priority,
    /// By type (`issue`, `specification`, `idea`).
    Type,
    /// By project, as written; `None` groups the issues without one.
    Project,
    /// By assignee, as written; `None` groups the unassigned issues.
    Assignee,
}

/// An issue's status, priority, type, assignee and project (0: none; else a [`Names`] number).
#[derive(Debug, Clone, Copy)]
pub struct Facts {
    status: Status,
    priority: Priority,
    issue_type: IssueType,
    assignee: u32,
    project: u32,
}

/// Every assignee and project name once, numbered from 1.
#[derive(Default)]
pub struct Names {
    names: Vec<Box<str>>,
    lookup: HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl Names {
    /// The number of `name` (0 for none or empty), adding it if new.
    fn intern(&mut self, name: Option<&str>) -> u32 {
        let Some(name) = name.filter(|n| !n.is_empty()) else { return 0 };
        if let Some(n) = self.find(name) {
            return n;
        }
        self.names.push(name.into());
        let n = self.names.len() as u32;
        let (names, hasher) = (&self.names, &self.hasher);
        self.lookup.insert_unique(hasher.hash_one(name), n, |&k| hasher.hash_one(&*names[k as usize - 1]));
        n
    }

    /// The number of `name`, if some issue has it.
    pub fn find(&self, name: &str) -> Option<u32> {
        let names = &self.names;
        self.lookup.find(self.hasher.hash_one(name), |&k| &*names[k as usize - 1] == name).copied()
    }

    pub fn name(&self, n: u32) -> Option<&str> {
        n.checked_sub(1).and_then(|i| self.names.get(i as usize)).map(|s| &**s)
    }
}

impl Facts {
    pub fn issue_type(&self) -> IssueType {
        self.issue_type
    }

    pub fn status(&self) -> Status {
        self.status
    }

    pub fn priority(&self) -> Priority {
        self.priority
    }

    /// Its project's [`Names`] number (0: none).
    pub fn project(&self) -> u32 {
        self.project
    }

    /// Its assignee's [`Names`] number (0: none).
    pub fn assignee(&self) -> u32 {
        self.assignee
    }

    pub fn of<F: Fields + ?Sized>(meta: &F, names: &mut Names) -> Facts {
        Facts {
            status: meta.status(),
            priority: meta.priority(),
            issue_type: meta.issue_type(),
            assignee: names.intern(meta.assignee()),
            project: names.intern(meta.project()),
        }
    }
}

/// A filter over [`Facts`], when the filter needs nothing else (no labels, parent or IDs).
pub struct FactFilter<'f> {
    filter: &'f IssueFilter,
    assignee: Option<Option<u32>>,
    project: Option<Option<u32>>,
}

impl<'f> FactFilter<'f> {
    pub fn new(filter: &'f IssueFilter, names: &Names) -> Option<FactFilter<'f>> {
        if !filter.labels.is_empty() || filter.parent_task_id.is_some() || !filter.ids.is_empty() {
            return None;
        }
        // An empty name matches nobody, like a name no issue has.
        let name = |n: &Option<String>| n.as_ref().map(|n| names.find(n).filter(|_| !n.is_empty()));
        Some(FactFilter { filter, assignee: name(&filter.assignee), project: name(&filter.project) })
    }

    pub fn matches(&self, f: &Facts) -> bool {
        let ok = |want: Option<Option<u32>>, have: u32| want.is_none_or(|w| w == Some(have));
        (self.filter.status.is_empty() || self.filter.status.contains(&f.status))
            && (self.filter.priority.is_empty() || self.filter.priority.contains(&f.priority))
            && (self.filter.types.is_empty() || self.filter.types.contains(&f.issue_type))
            && ok(self.assignee, f.assignee)
            && ok(self.project, f.project)
    }
}

/// Counts per group of the issues whose facts are given; `None` is the group of issues without
/// an assignee or project.
pub fn count<'a>(facts: impl Iterator<Item = &'a Facts>, by: GroupBy, names: &Names) -> Vec<(Option<String>, usize)> {
    let mut counts = vec![0usize; (names.names.len() + 1).max(Status::ALL.len()).max(Priority::ALL.len())];
    for f in facts {
        let key = match by {
            GroupBy::Status => f.status as u32,
            GroupBy::Priority => f.priority as u32,
            GroupBy::Type => f.issue_type as u32,
            GroupBy::Project => f.project,
            GroupBy::Assignee => f.assignee,
        };
        if let Some(c) = counts.get_mut(key as usize) {
            *c += 1;
        }
    }
    let label = |k: u32| -> Option<String> {
        match by {
            GroupBy::Status => Status::ALL.get(k as usize).map(|s| s.as_str().to_string()),
            GroupBy::Priority => Priority::ALL.get(k as usize).map(|s| s.as_str().to_string()),
            GroupBy::Type => IssueType::ALL.get(k as usize).map(|s| s.as_str().to_string()),
            GroupBy::Project | GroupBy::Assignee => names.name(k).map(str::to_string),
        }
    };
    counts.into_iter().enumerate().filter(|(_, c)| *c > 0).map(|(k, c)| (label(k as u32), c)).collect()
}
