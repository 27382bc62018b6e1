//! A generated wrangler workspace with every quirk of a real one, so that no test needs a copy of
//! somebody's repository: ids held by two or three files (open and archived), legacy 6-digit names
//! (`000001-x.md`), files without frontmatter, README.md files inside issue folders, frontmatter
//! ids that differ from the file name, quoted and unquoted legacy ids, CRLF and BOM files, YAML
//! comments, anchors and unknown keys, nested `wranglerContext`, long specifications, and a
//! `sessions/` folder holding a workflow-engine run.
//!
//! Deterministic: the same files every time. [`Facts`] is what the generator wrote, counted as it
//! wrote it (not read back through docket), for the tests to compare docket's answers against.
//!
//! Over 600 lines on purpose: each quirk's generator sits beside the facts it records, which the
//! tests compare with what docket serves; apart, a quirk and its expected count would drift.

use std::collections::BTreeSet;
use std::path::Path;

/// Counts and names that tests assert, for the generated workspace and for the real fixture alike.
#[derive(Clone, Debug)]
pub struct Facts {
    /// Markdown files in the collection folders (each is listed, frontmatter or not).
    pub items: usize,
    pub issues: usize,
    pub specifications: usize,
    pub open_or_in_progress: usize,
    pub open_high_or_critical: usize,
    /// Open or in progress, high or critical, with the word "workflow" in the title or body.
    pub workflow_urgent_active: usize,
    pub next_issue: String,
    pub next_idea: String,
    /// Workflow-engine runs (`sessions/wf-*`) the workspace already holds: the newest one's id.
    pub latest_workflow_run: Option<String>,
}

/// The word the facts count search hits for; nothing else the generator writes contains it.
pub const SEARCH_WORD: &str = "workflow";

const VERBS: &[&str] = &["Implement", "Add tests for", "Refactor", "Document", "Fix", "Update", "Remove", "Harden"];
const SUBJECTS: &[&str] = &[
    "reporter registry",
    "template engine",
    "session checkpoint",
    "audit log rotation",
    "MCP schema",
    "skill loader",
    "issue cache",
    "plan parser",
    "review gate",
    "verification step",
    "search index",
    "slash command",
];
const LABELS: &[&str] =
    &["mcp", "types", "testing", "documentation", "plan-step", "implementation", "reporter", "refactor", "bug"];
const STATUSES: &[&str] = &["open", "in_progress", "closed", "open", "cancelled", "closed", "open"];
const PRIORITIES: &[&str] = &["low", "medium", "high", "critical", "medium"];

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Issue,
    Spec,
    Idea,
}

impl Kind {
    fn folder(self) -> &'static str {
        match self {
            Kind::Issue => "issues",
            Kind::Spec => "specifications",
            Kind::Idea => "ideas",
        }
    }

    fn word(self) -> &'static str {
        match self {
            Kind::Issue => "issue",
            Kind::Spec => "specification",
            Kind::Idea => "idea",
        }
    }
}

/// One file to write, with what the facts need to know of it.
struct Item {
    kind: Kind,
    archived: bool,
    name: String,
    text: String,
    status: &'static str,
    priority: &'static str,
    searchable: String,
}

/// The frontmatter fields of a generated issue; `id_line` is written as given (quoting is a quirk).
struct Front<'a> {
    id_line: String,
    title: &'a str,
    kind: Kind,
    status: &'static str,
    priority: &'static str,
    labels: &'a [&'a str],
    n: usize,
    extra: &'a str,
}

fn date(n: usize, hours: usize) -> String {
    let minutes = n * 97 + hours * 60;
    let (day, rest) = (minutes / 1440, minutes % 1440);
    let (month, day) = (11 + day / 28, 1 + day % 28);
    let (year, month) = if month > 12 { (2026, month - 12) } else { (2025, month) };
    format!("{year}-{month:02}-{day:02}T{:02}:{:02}:00.000Z", rest / 60, rest % 60)
}

fn frontmatter(f: &Front) -> String {
    // wrangler quotes a title that would not be a plain YAML scalar, as here.
    let title = if f.title.contains(": ") { format!("'{}'", f.title.replace('\'', "''")) } else { f.title.to_string() };
    let mut out = format!(
        "---\n{}\ntitle: {title}\ntype: {}\nstatus: {}\npriority: {}\n",
        f.id_line,
        f.kind.word(),
        f.status,
        f.priority
    );
    if f.n.is_multiple_of(3) {
        out.push_str(&format!("labels: [{}]\n", f.labels.join(", ")));
    } else if f.labels.is_empty() {
        out.push_str("labels: []\n");
    } else {
        out.push_str("labels:\n");
        for l in f.labels {
            out.push_str(&format!("  - {l}\n"));
        }
    }
    let (created, updated) = (date(f.n, 0), date(f.n, 5 + f.n % 40));
    if f.n.is_multiple_of(2) {
        out.push_str(&format!("createdAt: '{created}'\nupdatedAt: '{updated}'\n"));
    } else {
        out.push_str(&format!("createdAt: \"{created}\"\nupdatedAt: \"{updated}\"\n"));
    }
    if matches!(f.status, "closed" | "cancelled") {
        out.push_str(&format!("closedAt: '{updated}'\n"));
    }
    out.push_str(f.extra);
    out.push_str("---\n");
    out
}

fn body(title: &str, n: usize, paragraphs: usize, extra: &str) -> String {
    let mut out = format!("## Overview\n{title}: what it changes and why it matters to the agents that use it.\n\n");
    out.push_str("## Requirements\n");
    for i in 0..paragraphs {
        out.push_str(&format!(
            "{}. Step {i} of item {n}: keep the public interface stable, cover the change with a test \
             that fails before it, and record the decision in the design notes.\n",
            i + 1
        ));
    }
    out.push_str(extra);
    out.push_str("\n## Acceptance Criteria\n- [ ] The change is tested\n- [x] The plan is reviewed\n");
    out
}

/// Writes the workspace under `root/.wrangler` and returns what it wrote.
pub fn generate(root: &Path) -> Facts {
    let mut items = Vec::new();
    let mut titles = BTreeSet::new();
    anchors(&mut items);
    for n in (41..=183).filter(|n| n % 4 != 1 && *n != 119 && *n != 165) {
        items.push(filler(n, Kind::Issue, &mut titles));
    }
    for n in [40, 41, 42, 44, 45, 47, 48, 49, 51, 52] {
        items.push(filler(n, Kind::Spec, &mut titles));
    }
    for n in [8, 9, 10] {
        items.push(filler(n, Kind::Idea, &mut titles));
    }
    legacy(&mut items);
    without_frontmatter(&mut items);
    encodings(&mut items);
    write(root, &items);
    facts(&items)
}

/// The issues tests name: the same ids (and for most, the same titles) as in wrangler's own
/// workspace, so a test reads the same on both.
fn anchors(items: &mut Vec<Item>) {
    let mut push = |kind: Kind, archived, name: &str, front: Front, text_body: String| {
        let searchable = format!("{} {}", front.title, text_body).to_lowercase();
        let (status, priority) = (front.status, front.priority);
        let text = frontmatter(&front) + &text_body;
        items.push(Item { kind, archived, name: name.into(), text, status, priority, searchable });
    };
    let title = "Implement MCP session types and storage provider";
    push(
        Kind::Issue,
        false,
        "ISS-000037-implement-mcp-session-types-and-storage-provider.md",
        Front {
            id_line: "id: ISS-000037".into(),
            title,
            kind: Kind::Issue,
            status: "open",
            priority: "high",
            labels: &["mcp", "types", "session", "SPEC-000038"],
            n: 37,
            extra: "project: SPEC-000038\n",
        },
        body(title, 37, 3, ""),
    );
    for (n, title) in
        [(39, "Create pre-commit hook template with parameterization"), (40, "Install hooks from the template")]
    {
        push(
            Kind::Issue,
            true,
            &format!("ISS-0000{n}-{}.md", slug(title)),
            Front {
                id_line: format!("id: ISS-0000{n}"),
                title,
                kind: Kind::Issue,
                status: "closed",
                priority: "medium",
                labels: &["git-hooks", "template"],
                n,
                extra: "assignee: claude-code\n",
            },
            body(title, n, 2, ""),
        );
    }
    // Unknown keys, a comment, an anchor and its alias, and a nested context with a key of its own.
    let title = "Add previewSummary mode to issues_get to reduce context";
    let extra = "# estimated by the planner, not a person\nestimatedTokens: 1200\nrelatedSpecs: &specs\n  - SPEC-000046\n\
                 seeAlso: *specs\nwranglerContext:\n  agentId: \"spec-writer\"\n  parentTaskId: \"SPEC-000046\"\n  \
                 estimatedEffort: \"1-2 days\"\n  review:\n    by: claude-code\n    rounds: 2\n";
    push(
        Kind::Issue,
        false,
        "ISS-000119-add-previewsummary-mode-to-issues-get-to-reduce-co.md",
        Front {
            id_line: "id: ISS-000119".into(),
            title,
            kind: Kind::Issue,
            status: "open",
            priority: "medium",
            labels: &["mcp"],
            n: 119,
            extra,
        },
        body(title, 119, 2, "\n---\n\nA thematic break above, then more text.\n"),
    );
    // One id, three files: one open, two archived (a merge of three branches did this).
    for (suffix, archived, status) in [
        ("add-reporter-tests", false, "open"),
        ("add-reporter-docs", true, "closed"),
        ("reporter-cleanup", true, "cancelled"),
    ] {
        let title = format!("Reporter {}", suffix.replace('-', " "));
        push(
            Kind::Issue,
            archived,
            &format!("ISS-000165-{suffix}.md"),
            Front {
                id_line: "id: ISS-000165".into(),
                title: &title,
                kind: Kind::Issue,
                status,
                priority: "high",
                labels: &["reporter"],
                n: 165,
                extra: "",
            },
            body(&title, 165, 1, &format!("\nThe {SEARCH_WORD} engine reports through this.\n")),
        );
    }
    let title = "Highest issue so far";
    push(
        Kind::Issue,
        true,
        "ISS-000184-highest-issue-so-far.md",
        Front {
            id_line: "id: ISS-000184".into(),
            title,
            kind: Kind::Issue,
            status: "closed",
            priority: "low",
            labels: &[],
            n: 184,
            extra: "",
        },
        body(title, 184, 1, ""),
    );
    // Specifications: a long one (over 25,000 characters), and two files holding SPEC-000050.
    let title = "Wrangler MCP Server Modernization: Context-Efficient Tools";
    let long: String = (0..40)
        .map(|i| {
            format!(
                "\n### Component {i}\n{}\n",
                "Each tool answers with what the agent asked for and names the next call. ".repeat(9)
            )
        })
        .collect();
    push(
        Kind::Spec,
        false,
        "SPEC-000046-wrangler-mcp-server-modernization-context-efficien.md",
        Front {
            id_line: "id: SPEC-000046".into(),
            title,
            kind: Kind::Spec,
            status: "open",
            priority: "critical",
            labels: &["mcp", "specification"],
            n: 46,
            extra: "wranglerContext:\n  agentId: spec-writer-agent\n  estimatedEffort: 4 weeks (1 developer full-time)\n",
        },
        body(title, 46, 6, &format!("\n## Design\n{long}")),
    );
    for (name, title, priority) in [
        ("configurable-workflow-reporters", "Configurable workflow reporters", "high"),
        ("documentation-overhaul-claudemd-refactor-docs-clea", "Documentation overhaul: CLAUDE.md refactor", "medium"),
    ] {
        push(
            Kind::Spec,
            false,
            &format!("SPEC-000050-{name}.md"),
            Front {
                id_line: "id: SPEC-000050".into(),
                title,
                kind: Kind::Spec,
                status: "in_progress",
                priority,
                labels: &["specification"],
                n: 50,
                extra: "",
            },
            body(title, 50, 4, ""),
        );
    }
}

fn slug(title: &str) -> String {
    let kept: String = title.to_lowercase().chars().filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-').collect();
    let joined = kept.split([' ', '-']).filter(|w| !w.is_empty()).collect::<Vec<_>>().join("-");
    joined.chars().take(50).collect()
}

fn filler(n: usize, kind: Kind, titles: &mut BTreeSet<String>) -> Item {
    let mut title = format!("{} {}", VERBS[n % VERBS.len()], SUBJECTS[(n / 3) % SUBJECTS.len()]);
    if n.is_multiple_of(9) {
        title.push_str(&format!(" in the {SEARCH_WORD} engine"));
    }
    if !titles.insert(format!("{}{title}", kind.word())) {
        title = format!("Phase {} task {}: {}", n / 20 + 1, n % 20, title.to_lowercase());
        titles.insert(format!("{}{title}", kind.word()));
    }
    let status = STATUSES[(n * 5 + kind as usize) % STATUSES.len()];
    let priority = PRIORITIES[(n * 3 + kind as usize) % PRIORITIES.len()];
    let archived = matches!(status, "closed" | "cancelled");
    let labels: Vec<&str> = (0..n % 4).map(|i| LABELS[(n + i * 4) % LABELS.len()]).collect();
    let prefix = match kind {
        Kind::Issue => "ISS",
        Kind::Spec => "SPEC",
        Kind::Idea => "IDEA",
    };
    let id_line = match n % 5 {
        0 => format!("id: \"{prefix}-{n:06}\""),
        _ => format!("id: {prefix}-{n:06}"),
    };
    let mut extra = String::new();
    if n.is_multiple_of(6) {
        extra.push_str("assignee: claude-code\n");
    }
    if n % 4 == 2 {
        extra.push_str("project: implement-skill-unification\n");
    }
    if n % 10 == 3 {
        extra.push_str(&format!(
            "wranglerContext:\n  agentId: \"coder-{}\"\n  parentTaskId: \"SPEC-0000{}\"\n  estimatedEffort: \"{} days\"\n",
            n % 3,
            40 + n % 12,
            1 + n % 5
        ));
    }
    let mut more = String::new();
    if n.is_multiple_of(11) {
        more.push_str(&format!("\nThe {SEARCH_WORD} runner calls this between steps.\n"));
    }
    if n.is_multiple_of(13) {
        more.push_str("\nToken authentication must keep working for existing clients.\n");
    }
    let paragraphs = if kind == Kind::Spec { 20 + n % 15 } else { 1 + n % 6 };
    let text_body = body(&title, n, paragraphs, &more);
    let front = Front { id_line, title: &title, kind, status, priority, labels: &labels, n, extra: &extra };
    let name = format!("{prefix}-{n:06}-{}.md", slug(&title));
    let searchable = format!("{title} {text_body}").to_lowercase();
    Item { kind, archived, name, text: frontmatter(&front) + &text_body, status, priority, searchable }
}

/// wrangler's oldest files: 6-digit names without a prefix, several per number, quoted and
/// unquoted ids, and one whose file name does not start with its id.
fn legacy(items: &mut Vec<Item>) {
    let cases: &[(Kind, &str, &str, &str)] = &[
        (
            Kind::Issue,
            "000001-setup-dependencies-and-build-config.md",
            "id: '000001'",
            "Setup dependencies and build config",
        ),
        (Kind::Issue, "000001-fix-update-yourself-mcp-bundle.md", "id: \"000001\"", "Fix update-yourself MCP bundle"),
        (Kind::Issue, "000001-versioning-system-infrastructure.md", "id: '000001'", "Versioning system infrastructure"),
        (
            Kind::Issue,
            "000001-verification-add-test-evidence-requirements.md",
            "id: \"000001\"",
            "Verification: add test evidence",
        ),
        (Kind::Spec, "000001-centralized-wrangler-directory.md", "id: '000001'", "Centralized wrangler directory"),
        (
            Kind::Spec,
            "000001-testing-verification-enhancement.md",
            "id: \"000001\"",
            "Testing verification enhancement",
        ),
        (
            Kind::Issue,
            "000030-implement-blocker-detection.md",
            "id: '000030'",
            "Task 4: Add blocker detection and escalation",
        ),
        (Kind::Issue, "000036-verification-testing.md", "id: 000036", "Verification testing"),
        (
            Kind::Issue,
            "task-2-create-modern-design-system-template-000037.md",
            "id: '000037'",
            "Task 2: Create modern design system template",
        ),
        (Kind::Spec, "000005-template-override-system.md", "id: \"000005\"", "Template override system"),
        (
            Kind::Idea,
            "000007-reorganize-workflows-separate-directory.md",
            "id: 000007",
            "Reorganize runs into a separate directory",
        ),
    ];
    for (i, (kind, name, id_line, title)) in cases.iter().enumerate() {
        let n = 1000 + i;
        let (status, archived) =
            if name.starts_with("000001") || name.starts_with("000030") { ("closed", true) } else { ("open", false) };
        let front = Front {
            id_line: (*id_line).into(),
            title,
            kind: *kind,
            status,
            priority: "medium",
            labels: &["plan-step"],
            n,
            extra: "assignee: claude-code\n",
        };
        let text_body = body(title, n, 2, "");
        let searchable = format!("{title} {text_body}").to_lowercase();
        items.push(Item {
            kind: *kind,
            archived,
            name: (*name).into(),
            text: frontmatter(&front) + &text_body,
            status,
            priority: "medium",
            searchable,
        });
    }
}

/// Notes a person dropped into the folders: read as open, medium-priority items named after the file.
fn without_frontmatter(items: &mut Vec<Item>) {
    let notes: &[(Kind, &str, &str)] = &[
        (Kind::Issue, "README.md", "# Issues\n\nOne markdown file per issue; closed ones move to archived/.\n"),
        (Kind::Spec, "README.md", "# Specifications\n\nDesign documents, one per feature.\n"),
        (Kind::Idea, "figma.md", "# Figma\n\nExport frames straight into a plan.\n"),
        (
            Kind::Idea,
            "self-healing-mcp-plugin.md",
            "# Self-healing MCP plugin\n\nRestart the server when a tool hangs.\n",
        ),
        (Kind::Idea, "2025-11-22-observability-idea.md", "Observability: trace each step of a run.\n"),
    ];
    for (kind, name, text) in notes {
        let searchable = text.to_lowercase();
        items.push(Item {
            kind: *kind,
            archived: false,
            name: (*name).into(),
            text: (*text).into(),
            status: "open",
            priority: "medium",
            searchable,
        });
    }
}

/// A file written on Windows (CRLF) and one saved with a byte-order mark.
fn encodings(items: &mut Vec<Item>) {
    for (n, bom, crlf) in [(11usize, false, true), (12, true, false)] {
        let title = if crlf { "Line endings from a Windows editor" } else { "Saved with a byte-order mark" };
        let front = Front {
            id_line: format!("id: IDEA-{n:06}"),
            title,
            kind: Kind::Idea,
            status: "open",
            priority: "low",
            labels: &["bug"],
            n,
            extra: "",
        };
        let mut text = frontmatter(&front) + &body(title, n, 1, "");
        if crlf {
            text = text.replace('\n', "\r\n");
        }
        if bom {
            text.insert(0, '\u{feff}');
        }
        let searchable = text.to_lowercase();
        items.push(Item {
            kind: Kind::Idea,
            archived: false,
            name: format!("IDEA-{n:06}-{}.md", slug(title)),
            text,
            status: "open",
            priority: "low",
            searchable,
        });
    }
}

fn write(root: &Path, items: &[Item]) {
    let ws = root.join(".wrangler");
    for kind in [Kind::Issue, Kind::Spec, Kind::Idea] {
        std::fs::create_dir_all(ws.join(kind.folder()).join("archived")).expect("mkdir");
        std::fs::write(ws.join(kind.folder()).join(".gitkeep"), "").expect("gitkeep");
    }
    for item in items {
        let mut dir = ws.join(item.kind.folder());
        if item.archived {
            dir.push("archived");
        }
        let path = dir.join(&item.name);
        assert!(!path.exists(), "the generator wrote {} twice", path.display());
        std::fs::write(path, &item.text).expect("write item");
    }
    std::fs::create_dir_all(ws.join("config")).expect("mkdir config");
    std::fs::write(
        ws.join(".gitignore"),
        "# Wrangler gitignore - generated from workspace-schema.json\n\n# Runtime data (don't commit)\ncache/\nlogs/\nsessions/\n",
    )
    .expect("gitignore");
    let dirs =
        ["issues", "specifications", "ideas", "memos", "plans", "docs", "cache", "config", "logs", "orchestration"];
    let listed: Vec<String> = dirs.iter().map(|d| format!("      \"{d}\": \".wrangler/{d}\"")).collect();
    let config = format!(
        "{{\n  \"version\": \"1.3.0\",\n  \"workspace\": {{\n    \"root\": \".wrangler\",\n    \"directories\": {{\n{}\n    }}\n  }}\n}}",
        listed.join(",\n")
    );
    std::fs::write(ws.join("config/wrangler.json"), config).expect("wrangler.json");
    std::fs::write(ws.join("config/workspace-schema.json"), "{\"version\": \"1.3.0\", \"directories\": {}}\n")
        .expect("schema");
    workflow_run(&ws.join("sessions/wf-2026-01-20-5e1f0a2b"));
}

/// A finished workflow-engine run, as wrangler's engine writes it.
fn workflow_run(dir: &Path) {
    std::fs::create_dir_all(dir).expect("mkdir session");
    let at = "2026-01-20T09:30:00.000Z";
    let context = serde_json::json!({"id": "wf-2026-01-20-5e1f0a2b", "specFile": "SPEC-000046.md", "status": "completed",
        "currentPhase": "complete", "worktreePath": "/w", "branchName": "wf-branch", "phasesCompleted": ["init", "execute"],
        "tasksCompleted": ["ISS-000040"], "tasksPending": [], "startedAt": at, "updatedAt": at});
    std::fs::write(dir.join("context.json"), context.to_string()).expect("context");
    let audit = [
        serde_json::json!({"step": "init", "status": "completed", "timestamp": at}),
        serde_json::json!({"step": "execute", "status": "completed", "timestamp": at}),
    ];
    std::fs::write(dir.join("audit.jsonl"), audit.iter().map(|e| format!("{e}\n")).collect::<String>()).expect("audit");
}

fn facts(items: &[Item]) -> Facts {
    let active = |i: &&Item| matches!(i.status, "open" | "in_progress");
    let urgent = |i: &&Item| matches!(i.priority, "high" | "critical");
    let word = |i: &&Item| i.searchable.split(|c: char| !c.is_alphanumeric()).any(|w| w == SEARCH_WORD);
    let next = |kind: Kind, prefix: &str| {
        let highest = items
            .iter()
            .filter(|i| i.kind == kind)
            .filter_map(|i| {
                let rest = i.name.strip_prefix(prefix).unwrap_or(&i.name);
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                (digits.len() == 6).then(|| digits.parse::<u64>().expect("six digits"))
            })
            .max()
            .unwrap_or(0);
        format!("{prefix}{:06}", highest + 1)
    };
    Facts {
        items: items.len(),
        issues: items.iter().filter(|i| i.kind == Kind::Issue).count(),
        specifications: items.iter().filter(|i| i.kind == Kind::Spec).count(),
        open_or_in_progress: items.iter().filter(active).count(),
        open_high_or_critical: items.iter().filter(|i| i.status == "open").filter(urgent).count(),
        workflow_urgent_active: items.iter().filter(active).filter(urgent).filter(word).count(),
        next_issue: next(Kind::Issue, "ISS-"),
        next_idea: next(Kind::Idea, "IDEA-"),
        latest_workflow_run: Some("wf-2026-01-20-5e1f0a2b".into()),
    }
}
