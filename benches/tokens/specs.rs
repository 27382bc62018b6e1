//! The spec-review workflows of benches/tokens.rs (issue 25): five generated specifications of
//! 10-12k tokens each, read by wrangler whole and by docket through their structure.

use std::path::{Path, PathBuf};

use docket::store::generate::{generate_workspace, spec_body};
use docket::store::{IssueType, NewIssue, Priority, Status, Store, StoreOptions, Workspace};
use serde_json::{Value, json};

use super::common::tokens;
use super::{Subject, copy_of, cost};

const TITLES: &[&str] =
    &["Storage engine rewrite", "Sync protocol v2", "Billing ledger", "Search service", "Plugin sandbox"];
/// Components per generated spec: about 42,000 characters, 10-12k tokens.
const COMPONENTS: usize = 28;
const SECTION: &str = "Acceptance Criteria";

/// (label, (text, structured)) of each step.
type Steps = Vec<(String, (usize, usize))>;

/// 200 generated issues and the five specifications; their IDs.
fn spec_workspace(root: &Path) -> Vec<String> {
    generate_workspace(root, 200, 7);
    let store = Store::open(Workspace::at(root).expect("workspace"), StoreOptions::default());
    let mut ids = Vec::new();
    for (i, title) in TITLES.iter().enumerate() {
        let issue = store
            .create(NewIssue {
                title: title.to_string(),
                description: spec_body(title, COMPONENTS, i as u64),
                issue_type: IssueType::Specification,
                status: Status::Open,
                priority: Priority::High,
                labels: vec!["spec".into()],
                assignee: None,
                project: Some("core".into()),
                context: Default::default(),
                blocked_by: Vec::new(),
            })
            .expect("create a spec");
        ids.push(issue.meta.id.clone());
    }
    store.wait_for_snapshot();
    ids
}

fn add(steps: &mut Steps, label: &str, c: (usize, usize)) {
    steps.push((label.to_string(), c));
}

/// Whether every answer of a docket batch holds its whole section: nothing cut, all eight
/// criteria present.
fn sections_complete(result: &Value) -> bool {
    let issues = result["structuredContent"]["issues"].as_array().cloned().unwrap_or_default();
    !issues.is_empty()
        && issues
            .iter()
            .all(|i| i["truncated"].is_null() && i["description"].as_str().is_some_and(|d| d.contains("AC-8")))
}

/// List the specifications, then read five (`ids`) to find their acceptance criteria.
fn review(subject: Subject, bin: &Path, ws: &Path, bundle: Option<&Path>, ids: &[String]) -> (Steps, bool) {
    let mut server = subject.start(bin, ws, bundle);
    let mut steps = Vec::new();
    let list = subject.call(&mut server, "issues_list", json!({"types": ["specification"], "format": "minimal"}));
    add(&mut steps, "issues_list specifications, minimal", cost(subject, &list));
    if subject == Subject::Wrangler {
        let mut sum = (0, 0);
        for id in ids {
            let (t, s) = cost(subject, &subject.call(&mut server, "issues_get", json!({"id": id})));
            sum = (sum.0 + t, sum.1 + s);
        }
        add(&mut steps, "read the five (wrangler: 5 whole issues_get)", sum);
        add(&mut steps, "their acceptance criteria (wrangler: in the above)", (0, 0));
        return (steps, true);
    }
    let outlines = subject.call(&mut server, "issues_get_batch", json!({"ids": ids, "outline": true}));
    add(&mut steps, "read the five (docket: issues_get_batch outline)", cost(subject, &outlines));
    let sections = subject.call(&mut server, "issues_get_batch", json!({"ids": ids, "section": SECTION}));
    add(&mut steps, "their acceptance criteria (docket: issues_get_batch section)", cost(subject, &sections));
    (steps, sections_complete(&sections))
}

/// The title names the spec: list, then read that one.
fn title_match(subject: Subject, bin: &Path, ws: &Path, bundle: Option<&Path>, id: &str) -> Steps {
    let mut server = subject.start(bin, ws, bundle);
    let mut steps = Vec::new();
    let list = subject.call(&mut server, "issues_list", json!({"types": ["specification"], "format": "minimal"}));
    add(&mut steps, "issues_list specifications, minimal", cost(subject, &list));
    if subject == Subject::Wrangler {
        let get = subject.call(&mut server, "issues_get", json!({"id": id}));
        add(&mut steps, "read it (wrangler: whole issues_get)", cost(subject, &get));
        add(&mut steps, "its acceptance criteria (wrangler: in the above)", (0, 0));
        return steps;
    }
    let outline = subject.call(&mut server, "issues_get", json!({"id": id, "outline": true}));
    add(&mut steps, "read it (docket: issues_get outline)", cost(subject, &outline));
    let section = subject.call(&mut server, "issues_get", json!({"id": id, "section": SECTION}));
    add(&mut steps, "its acceptance criteria (docket: issues_get section)", cost(subject, &section));
    steps
}

/// One call's cost for every subject: (label, per subject (text, structured)).
fn per_call(
    subjects: &[Subject],
    bin: &Path,
    ws: &Path,
    bundle: Option<&Path>,
    id: &str,
) -> Vec<(String, Vec<(usize, usize)>)> {
    let calls: Vec<(&str, &str, Value)> = vec![
        ("issues_get, one whole generated issue", "issues_get", json!({"id": "ISS-000003"})),
        ("issues_get, one whole spec (cut at 25,000 characters by docket)", "issues_get", json!({"id": id})),
        ("issues_get outline of one spec", "issues_get", json!({"id": id, "outline": true})),
        ("issues_get section of one spec", "issues_get", json!({"id": id, "section": SECTION})),
        ("issues_list minimal, 20 rows", "issues_list", json!({"format": "minimal", "limit": 20})),
        ("issues_list summary, 20 rows", "issues_list", json!({"format": "summary", "limit": 20})),
    ];
    let mut rows: Vec<(String, Vec<(usize, usize)>)> = calls.iter().map(|c| (c.0.to_string(), Vec::new())).collect();
    for subject in subjects {
        let mut server = subject.start(bin, ws, bundle);
        for (i, (_, tool, args)) in calls.iter().enumerate() {
            // wrangler has no outline or section: its answer is the whole issue again.
            let args = match (subject, args.get("id")) {
                (Subject::Wrangler, Some(id)) => json!({"id": id}),
                _ => args.clone(),
            };
            rows[i].1.push(cost(*subject, &subject.call(&mut server, tool, args)));
        }
    }
    rows
}

fn pct(part: usize, whole: usize) -> String {
    format!("{}%", (100 * part).div_ceil(whole.max(1)))
}

fn table(title: &str, subjects: &[Subject], columns: &[Steps]) {
    println!("\n{title}\n");
    let mut header = String::from("| step |");
    let mut rule = String::from("|---|");
    for s in subjects {
        header += &format!(" {}: text | structured |", s.label());
        rule += "---:|---:|";
    }
    println!("{header}\n{rule}");
    for (i, (label, _)) in columns[0].iter().enumerate() {
        let cells: String = columns.iter().map(|c| format!(" {} | {} |", c[i].1.0, c[i].1.1)).collect();
        println!("| {label} |{cells}");
    }
    let totals: Vec<(usize, usize)> =
        columns.iter().map(|c| c.iter().fold((0, 0), |(t, s), (_, (a, b))| (t + a, s + b))).collect();
    let cells: String = totals.iter().map(|(t, s)| format!(" **{t}** | **{s}** |")).collect();
    println!("| **total** |{cells}");
    if subjects.last() == Some(&Subject::Wrangler) {
        let w = totals.last().map_or(1, |t| t.0);
        for (s, (t, st)) in subjects.iter().zip(&totals).filter(|(s, _)| **s != Subject::Wrangler) {
            println!("\n{}: text {} and structured {} of wrangler's {w} tokens", s.label(), pct(*t, w), pct(*st, w));
        }
    }
}

/// The five largest specifications of a real wrangler workspace: wrangler reads them whole;
/// docket reads their outlines (one issues_get_batch) and one section of the first.
fn real_specs(subjects: &[Subject], bin: &Path, bundle: Option<&Path>, tmp: &Path) {
    let Some(fixture) = std::env::var_os("DOCKET_REAL_FIXTURE").map(PathBuf::from) else {
        eprintln!("DOCKET_REAL_FIXTURE names no wrangler workspace: the real-spec table is left out");
        return;
    };
    let specs_dir = fixture.join(".wrangler/specifications");
    let Ok(entries) = std::fs::read_dir(&specs_dir) else {
        eprintln!("no wrangler workspace at {}: the real-spec table is left out", fixture.display());
        return;
    };
    let mut files: Vec<(u64, PathBuf)> = entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .filter_map(|e| Some((e.metadata().ok()?.len(), e.path())))
        .collect();
    files.sort_by(|a, b| b.cmp(a));
    // The `id:` of each file's frontmatter; an ID two files hold (a merge's duplicate) once.
    let mut ids: Vec<String> = Vec::new();
    for (_, path) in files {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let id = text.lines().skip(1).take_while(|l| *l != "---").find_map(|l| l.strip_prefix("id:"));
        if let Some(id) = id.map(|i| i.trim().trim_matches(['"', '\'']).to_string())
            && !ids.contains(&id)
            && ids.len() < 5
        {
            ids.push(id);
        }
    }
    let mut columns = Vec::new();
    for subject in subjects {
        let ws = tmp.join(format!("real-{}", subject.label().replace(' ', "-")));
        let _ = std::fs::remove_dir_all(&ws);
        std::fs::create_dir_all(&ws).expect("mkdir");
        let status = std::process::Command::new("cp").arg("-R").arg(fixture.join(".wrangler")).arg(&ws).status();
        assert!(status.is_ok_and(|s| s.success()), "cannot copy the wrangler workspace");
        let _ = std::process::Command::new("chmod").arg("-R").arg("u+w").arg(&ws).status();
        let mut server = subject.start(bin, &ws, bundle);
        let mut steps = Vec::new();
        if *subject == Subject::Wrangler {
            let mut sum = (0, 0);
            for id in &ids {
                let (t, s) = cost(*subject, &subject.call(&mut server, "issues_get", json!({"id": id})));
                sum = (sum.0 + t, sum.1 + s);
            }
            add(&mut steps, "the five read whole (wrangler: 5 issues_get)", sum);
            add(&mut steps, "one section (wrangler: in the above)", (0, 0));
        } else {
            let outlines = subject.call(&mut server, "issues_get_batch", json!({"ids": ids, "outline": true}));
            add(&mut steps, "the five outlines (docket: issues_get_batch outline)", cost(*subject, &outlines));
            // The section a reviewer looks for: acceptance (or success) criteria, from the
            // first outline that has them; else the first spec's largest top section.
            let outlines: Vec<String> = outlines["structuredContent"]["issues"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|i| i["outline"].as_str().unwrap_or_default().to_string())
                .collect();
            let (at, section) = criteria_section(&outlines)
                .unwrap_or_else(|| (0, largest_top_section(outlines.first().map_or("", String::as_str))));
            let part = subject.call(&mut server, "issues_get", json!({"id": ids[at], "section": section}));
            add(&mut steps, &format!("one section (docket: \"{section}\")"), cost(*subject, &part));
        }
        columns.push(steps);
    }
    table(
        &format!("The five largest specifications of {} ({})", fixture.display(), ids.join(", ")),
        subjects,
        &columns,
    );
}

/// (which outline, heading) of the first acceptance or success criteria heading.
fn criteria_section(outlines: &[String]) -> Option<(usize, String)> {
    outlines.iter().enumerate().find_map(|(i, o)| {
        o.lines()
            .filter_map(|l| l.trim().rsplit_once(" (").map(|(t, _)| t.to_string()))
            .find(|t| ["acceptance", "success criteria"].iter().any(|k| t.to_lowercase().contains(k)))
            .map(|t| (i, t))
    })
}

/// The biggest heading one level below the top of an outline (`  Title (size)` lines).
fn largest_top_section(outline: &str) -> String {
    let parsed = |l: &str| -> Option<(usize, usize, String)> {
        let indent = l.len() - l.trim_start().len();
        let (title, size) = l.trim().rsplit_once(" (")?;
        Some((indent, size.trim_end_matches(')').parse().ok()?, title.to_string()))
    };
    let lines: Vec<_> = outline.lines().filter_map(parsed).collect();
    let top = lines.iter().map(|l| l.0).min().unwrap_or(0);
    let level = lines.iter().map(|l| l.0).filter(|&i| i > top).min().unwrap_or(top);
    lines.into_iter().filter(|l| l.0 == level).max_by_key(|l| l.1).map(|l| l.2).unwrap_or_default()
}

pub fn run(bin: &Path, bundle: Option<&Path>, subjects: &[Subject], tmp: &Path) {
    let source = tmp.join("specs");
    let ids = spec_workspace(&source);
    let body = spec_body(TITLES[0], COMPONENTS, 0);
    println!("\nEach generated spec: about {} characters, {} tokens (o200k)", body.chars().count(), tokens(&body));
    let mut review_cols = Vec::new();
    let mut title_cols = Vec::new();
    let mut complete = true;
    for subject in subjects {
        let ws = tmp.join(format!("specs-{}", subject.label().replace(' ', "-")));
        copy_of(&source, &ws);
        let (steps, whole) = review(*subject, bin, &ws, bundle, &ids);
        complete &= whole;
        review_cols.push(steps);
        title_cols.push(title_match(*subject, bin, &ws, bundle, &ids[2]));
    }
    table(
        "Spec review: five specifications of 10-12k tokens, find each one's acceptance criteria",
        subjects,
        &review_cols,
    );
    println!("\nEvery acceptance criteria section whole (nothing cut): {complete}");
    table("Title match: the title gives the spec away; list, then read that one", subjects, &title_cols);
    let ws = tmp.join("specs-per-call");
    copy_of(&source, &ws);
    let rows = per_call(subjects, bin, &ws, bundle, &ids[2]);
    println!("\nPer call (200 generated issues and the five specs)\n");
    let header: String = subjects.iter().map(|s| format!(" {}: text | structured |", s.label())).collect();
    println!("| call |{header}\n|---|{}", "---:|---:|".repeat(subjects.len()));
    for (label, cells) in rows {
        let cells: String = cells.iter().map(|(t, s)| format!(" {t} | {s} |")).collect();
        println!("| {label} |{cells}");
    }
    real_specs(subjects, bin, bundle, tmp);
}
