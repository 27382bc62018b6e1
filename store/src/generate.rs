//! Realistic generated workspaces for the demo, tests and benchmarks: deterministic for a seed,
//! varied titles, labels, statuses and body lengths (some over 25,000 characters).

use crate::fs::Root;
use std::path::Path;

use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

use crate::files::frontmatter::render_new;
use crate::files::new_path;
use crate::model::{IssueMeta, IssueType, Priority, Status};
use crate::workspace::Workspace;

const VERBS: &[&str] =
    &["Fix", "Add", "Refactor", "Document", "Speed up", "Remove", "Test", "Migrate", "Harden", "Split"];
const THINGS: &[&str] = &[
    "login redirect",
    "search index",
    "CSV export",
    "rate limiter",
    "session cookies",
    "config loader",
    "retry policy",
    "billing webhook",
    "dark mode",
    "audit log",
    "file uploads",
    "password reset",
    "cache warmup",
    "API pagination",
    "error messages",
    "onboarding flow",
    "metrics endpoint",
    "database pool",
    "feature flags",
    "email templates",
];
const QUALIFIERS: &[&str] = &[
    "",
    "on mobile",
    "for large workspaces",
    "under load",
    "in the CLI",
    "after upgrade",
    "for admins",
    "with unicode input",
];
const LABELS: &[&str] =
    &["bug", "feature", "docs", "performance", "security", "tech-debt", "ux", "testing", "infra", "api"];
const PEOPLE: &[&str] = &["ann", "bo", "chen", "dara", "eli"];
const PROJECTS: &[&str] = &["core", "web", "cli", "billing"];
const PARAGRAPH: &str = "The current behaviour surprises users: the request succeeds but the state on disk \
    does not match what the UI reports. Reproduce it with a fresh workspace, then compare the two. \
    A fix should keep the public API stable and add a regression test that fails before the change.";

/// Creates a `.docket/` workspace under `root` holding `n` generated issues.
pub fn generate_workspace(root: &Path, n: usize, seed: u64) -> Workspace {
    let ws = Workspace::init(root).expect("a generated workspace can be created in a writable directory");
    let root = Root::workspace(&ws).expect("a generated workspace's root can be opened");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut next = [0usize; 3];
    for i in 0..n {
        let issue_type = match i % 20 {
            0 => IssueType::Specification,
            1 => IssueType::Idea,
            _ => IssueType::Issue,
        };
        let slot = IssueType::ALL.iter().position(|t| *t == issue_type).unwrap_or(0);
        next[slot] += 1;
        let id = format!("{}{:06}", issue_type.prefix(), next[slot]);
        let status = *[Status::Open, Status::Open, Status::InProgress, Status::Closed, Status::Cancelled]
            .choose(&mut rng)
            .unwrap_or(&Status::Open);
        let priority = *Priority::ALL.choose(&mut rng).unwrap_or(&Priority::Medium);
        let qualifier = *QUALIFIERS.choose(&mut rng).unwrap_or(&"");
        let title = format!(
            "{} {} {}",
            VERBS.choose(&mut rng).unwrap_or(&"Fix"),
            THINGS.choose(&mut rng).unwrap_or(&"it"),
            qualifier
        )
        .trim()
        .to_string();
        let label_count = rng.random_range(0..=3);
        let labels: Vec<String> = LABELS.choose_multiple(&mut rng, label_count).map(|l| l.to_string()).collect();
        let day = 1 + (i * 7919) % 300;
        let created_at =
            format!("2026-{:02}-{:02}T{:02}:{:02}:00.000Z", 1 + day / 31 % 12, 1 + day % 28, i % 24, i % 60);
        let updated_at = format!(
            "2026-{:02}-{:02}T{:02}:{:02}:30.000Z",
            1 + (day + 20) / 31 % 12,
            1 + (day + 3) % 28,
            (i + 5) % 24,
            i % 60
        );
        let paragraphs = if i % 97 == 0 { 90 } else { rng.random_range(1..8) };
        let body = format!(
            "## Context\n\n{title}.\n\n{}\n\n## Acceptance\n\n- [ ] covered by a test\n",
            vec![PARAGRAPH; paragraphs].join("\n\n")
        );
        let mut context = serde_json::Map::new();
        if i % 5 == 0 {
            context.insert("parentTaskId".into(), serde_json::json!("SPEC-000001"));
        }
        // A sparse work graph: one issue in seven waits for an issue five numbers before it.
        let blocked_by = match issue_type == IssueType::Issue && next[slot] > 5 && i % 7 == 3 {
            true => vec![format!("ISS-{:06}", next[slot] - 5)],
            false => Vec::new(),
        };
        let meta = IssueMeta {
            path: new_path(&ws, issue_type, status.is_archived(), &id, &title),
            id,
            title,
            issue_type,
            status,
            priority,
            labels,
            assignee: rng.random_bool(0.5).then(|| PEOPLE.choose(&mut rng).unwrap_or(&"ann").to_string()),
            project: rng.random_bool(0.6).then(|| PROJECTS.choose(&mut rng).unwrap_or(&"core").to_string()),
            closed_at: status.is_archived().then(|| updated_at.clone()),
            created_at,
            updated_at,
            context,
            blocked_by,
            body_len: body.chars().count(),
            frontmatter: true,
        };
        // Not fsynced one by one: a generated workspace is for demos, tests and benchmarks.
        root.create_unsynced(&meta.path, render_new(&meta, &body).as_bytes())
            .expect("a generated issue can be written");
    }
    ws
}

const SENTENCES: &[&str] = &[
    "The component keeps its state in memory and writes it back on every change.",
    "Each request carries an idempotency key, so a retried call never applies twice.",
    "Errors name what was wrong, the current state and the call that fixes it.",
    "A background task compacts the log once a quarter of its entries are dead.",
    "The public API stays stable; new fields are optional and old clients ignore them.",
    "Latency is measured at the 95th percentile under a load of a thousand clients.",
    "Configuration is read once at start-up and validated before any port is opened.",
    "The cache is keyed by path and modification time, and rebuilt when either changes.",
    "Every write goes to a temporary file first and is renamed into place atomically.",
    "Metrics are exported in the Prometheus text format on a separate port.",
    "A feature flag guards the rollout, so it can be switched off without a deploy.",
    "The schema migration runs in batches of five hundred rows to keep locks short.",
];

/// A long specification body (about `components` x 1,700 characters) shaped like a real one:
/// a title, overview, goals, a design section with one subsection per component (each with
/// its own parts), API, testing and rollout sections, and acceptance criteria at the very end.
pub fn spec_body(title: &str, components: usize, seed: u64) -> String {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut para = |n: usize| -> String {
        (0..n).map(|_| *SENTENCES.choose(&mut rng).unwrap_or(&SENTENCES[0])).collect::<Vec<_>>().join(" ")
    };
    let mut out = format!("# {title}\n\n## Overview\n\n{}\n\n## Goals\n\n", para(6));
    for g in 1..=5 {
        out.push_str(&format!("- Goal {g}: {}\n", para(1)));
    }
    out.push_str(&format!("\n## Design\n\n{}\n", para(4)));
    for c in 1..=components {
        out.push_str(&format!("\n### Component {c}\n\n{}\n", para(5)));
        for part in ["Data model", "Failure modes", "Performance"] {
            out.push_str(&format!("\n#### {part}\n\n{}\n", para(5)));
        }
    }
    out.push_str(&format!("\n## API\n\n{}\n\n```json\n{{\"id\": \"ISS-000001\"}}\n```\n", para(5)));
    out.push_str(&format!("\n## Testing\n\n{}\n\n## Rollout\n\n{}\n", para(6), para(4)));
    out.push_str("\n## Acceptance Criteria\n\n");
    for a in 1..=8 {
        out.push_str(&format!("- [ ] AC-{a}: {}\n", para(1)));
    }
    out
}
