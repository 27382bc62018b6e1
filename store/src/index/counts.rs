//! Counts kept, not recomputed: how many issues there are per collection, status and priority,
//! per label, per project and per assignee, adjusted on every change the index takes in (our
//! writes, outside edits, removals). `issues_labels`/`issues_projects` list, `issues_stats` and
//! the totals of lists answer from them instead of a pass over every issue.

use hashbrown::HashMap;

use super::facts::{Counts, Facts, GroupBy, Names};
use super::record::{Fields, Record};
use crate::model::{IssueFilter, IssueType, Priority, Status};

/// Issue (type, status) pairs: the buckets that counts and list orders are kept per.
pub const BUCKETS: usize = 12;

/// The bucket of a (type, status) pair.
pub fn bucket(t: IssueType, s: Status) -> usize {
    t as usize * Status::ALL.len() + s as usize
}

/// The buckets a filter's types and statuses accept (every one for an empty list).
pub fn buckets(filter: &IssueFilter) -> impl Iterator<Item = usize> + '_ {
    IssueType::ALL.iter().filter(|t| filter.types.is_empty() || filter.types.contains(t)).flat_map(|&t| {
        Status::ALL.iter().filter(|s| filter.status.is_empty() || filter.status.contains(s)).map(move |&s| bucket(t, s))
    })
}

/// Per label: how often it is written (a label written twice in one issue counts twice, as
/// `issues_labels` always counted) and the issues holding it, per bucket.
#[derive(Default, Clone, Copy)]
struct LabelCount {
    written: u32,
    issues: [u32; BUCKETS],
}

#[derive(Default)]
pub struct Tally {
    /// Issues per bucket and priority.
    facts: [[u32; 4]; BUCKETS],
    labels: HashMap<Box<str>, LabelCount>,
    /// Issues per project (by [`Names`] number; 0 is none) and bucket.
    projects: Vec<[u32; BUCKETS]>,
    /// Issues per assignee (by [`Names`] number; 0 is none) and bucket.
    assignees: Vec<[u32; BUCKETS]>,
    /// Markdown files without frontmatter.
    plain: u32,
}

fn adjust(counter: &mut u32, by: i32) {
    *counter = counter.wrapping_add_signed(by);
}

fn named(table: &mut Vec<[u32; BUCKETS]>, n: u32) -> &mut [u32; BUCKETS] {
    if table.len() <= n as usize {
        table.resize(n as usize + 1, [0; BUCKETS]);
    }
    &mut table[n as usize]
}

impl Tally {
    /// Counts an issue in (its facts interned in the same [`Names`] the queries use).
    pub fn add(&mut self, meta: &Record, facts: &Facts) {
        self.apply(meta, facts, 1);
    }

    /// Counts an issue out: call with what [`Tally::add`] was given.
    pub fn remove(&mut self, meta: &Record, facts: &Facts) {
        self.apply(meta, facts, -1);
    }

    fn apply(&mut self, meta: &Record, facts: &Facts, by: i32) {
        let b = bucket(facts.issue_type(), facts.status());
        if !meta.frontmatter() {
            adjust(&mut self.plain, by);
        }
        adjust(&mut self.facts[b][facts.priority() as usize], by);
        adjust(&mut named(&mut self.projects, facts.project())[b], by);
        adjust(&mut named(&mut self.assignees, facts.assignee())[b], by);
        for (i, label) in meta.labels().enumerate() {
            let first = !meta.labels().take(i).any(|l| l == label);
            let count = match self.labels.get_mut(label) {
                Some(c) => c,
                None => self.labels.entry(label.into()).or_default(),
            };
            adjust(&mut count.written, by);
            if first {
                adjust(&mut count.issues[b], by);
            }
            if count.written == 0 {
                self.labels.remove(label);
            }
        }
    }

    /// How many markdown files without frontmatter the index holds.
    pub fn plain_files(&self) -> u32 {
        self.plain
    }

    /// How many issues `filter` accepts, when the counts can tell: statuses and types with at
    /// most one of priorities, one label, a project or an assignee. `None`: the caller counts.
    pub fn count(&self, filter: &IssueFilter, names: &Names) -> Option<usize> {
        if filter.parent_task_id.is_some() || !filter.ids.is_empty() || filter.blocked.is_some() {
            return None;
        }
        let narrowed = usize::from(!filter.priority.is_empty())
            + filter.labels.len()
            + usize::from(filter.project.is_some())
            + usize::from(filter.assignee.is_some());
        if narrowed > 1 {
            return None;
        }
        // The number of a name no issue has is 0 issues; an empty name is left to the walk.
        let name = |n: &str, table: &Vec<[u32; BUCKETS]>| -> Option<Option<[u32; BUCKETS]>> {
            if n.is_empty() {
                return None;
            }
            Some(names.find(n).map(|k| table.get(k as usize).copied().unwrap_or_default()))
        };
        let per_bucket: Option<[u32; BUCKETS]> = if let Some(label) = filter.labels.first() {
            self.labels.get(label.as_str()).map(|c| c.issues)
        } else if let Some(p) = &filter.project {
            name(p, &self.projects)?
        } else if let Some(a) = &filter.assignee {
            name(a, &self.assignees)?
        } else {
            let mut per = [0; BUCKETS];
            for (b, by_priority) in self.facts.iter().enumerate() {
                per[b] = Priority::ALL
                    .iter()
                    .filter(|p| filter.priority.is_empty() || filter.priority.contains(p))
                    .map(|&p| by_priority[p as usize])
                    .sum();
            }
            Some(per)
        };
        let per_bucket = per_bucket.unwrap_or_default();
        Some(buckets(filter).map(|b| per_bucket[b] as usize).sum())
    }

    /// [`super::slots::Slots::count_by`] from the counts, for filters of statuses and types only.
    pub fn count_by(&self, filter: &IssueFilter, by: GroupBy, names: &Names) -> Option<Counts> {
        let plain = filter.priority.is_empty()
            && filter.labels.is_empty()
            && filter.assignee.is_none()
            && filter.project.is_none()
            && filter.parent_task_id.is_none()
            && filter.ids.is_empty()
            && filter.blocked.is_none();
        if !plain {
            return None;
        }
        let wanted: Vec<usize> = buckets(filter).collect();
        let in_buckets = |pick: &dyn Fn(usize) -> u32| wanted.iter().map(|&b| pick(b) as usize).sum::<usize>();
        let groups: Vec<(Option<String>, usize)> = match by {
            GroupBy::Status => Status::ALL
                .iter()
                .map(|&s| {
                    let n = in_buckets(&|b| {
                        if b % Status::ALL.len() == s as usize { self.facts[b].iter().sum() } else { 0 }
                    });
                    (Some(s.as_str().to_string()), n)
                })
                .collect(),
            GroupBy::Type => IssueType::ALL
                .iter()
                .map(|&t| {
                    let n = in_buckets(&|b| {
                        if b / Status::ALL.len() == t as usize { self.facts[b].iter().sum() } else { 0 }
                    });
                    (Some(t.as_str().to_string()), n)
                })
                .collect(),
            GroupBy::Priority => Priority::ALL
                .iter()
                .map(|&p| (Some(p.as_str().to_string()), in_buckets(&|b| self.facts[b][p as usize])))
                .collect(),
            GroupBy::Project | GroupBy::Assignee => {
                let table = if by == GroupBy::Project { &self.projects } else { &self.assignees };
                table
                    .iter()
                    .enumerate()
                    .map(|(k, per)| (names.name(k as u32).map(str::to_string), in_buckets(&|b| per[b])))
                    .collect()
            }
        };
        let groups: Vec<_> = groups.into_iter().filter(|g| g.1 > 0).collect();
        Some((groups.iter().map(|g| g.1).sum(), groups))
    }

    /// Every label written on some issue, with how often it is written.
    pub fn labels(&self) -> Vec<(String, usize)> {
        self.labels.iter().map(|(l, c)| (l.to_string(), c.written as usize)).collect()
    }

    /// Every project some issue is in, with its issues.
    pub fn projects(&self, names: &Names) -> Vec<(String, usize)> {
        let total = |per: &[u32; BUCKETS]| per.iter().map(|&n| n as usize).sum::<usize>();
        (1..self.projects.len())
            .filter_map(|k| Some((names.name(k as u32)?.to_string(), total(&self.projects[k]))))
            .filter(|p| p.1 > 0)
            .collect()
    }
}
