//! Realistic generated workspaces for the demo, tests and benchmarks: deterministic for a seed,
//! varied titles, labels, statuses and body lengths (some over 25,000 characters).

use std::path::Path;

use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

use super::files::new_path;
use super::frontmatter::render_new;
use super::model::{IssueMeta, IssueType, Priority, Status};
use super::workspace::Workspace;

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
        if let Some(dir) = meta.path.parent() {
            std::fs::create_dir_all(dir).expect("a generated issue's folder can be created");
        }
        std::fs::write(&meta.path, render_new(&meta, &body)).expect("a generated issue can be written");
    }
    ws
}
