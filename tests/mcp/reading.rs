//! Reading a long document by its structure through tools alone (issue 25): the outline, one
//! section, and pages that follow the `next` call of each cut answer to the very end.

use crate::common;

use common::{Client, call, is_error, start, start_with_env, structured, text, workspace};
use docket::store::generate::spec_body;
use serde_json::{Value, json};

async fn ok(client: &Client, tool: &str, args: Value) -> (Value, String) {
    let r = call(client, tool, args.clone()).await;
    assert!(!is_error(&r), "{tool} {args}: {}", text(&r));
    (structured(&r), text(&r))
}

/// A 49,000-character spec (far over the 25,000-character answer limit); its ID and body.
async fn long_spec(client: &Client) -> (String, String) {
    let body = spec_body("Storage engine", 28, 1);
    assert!(body.chars().count() > 40_000);
    let (created, _) =
        ok(client, "issues_create", json!({"title": "Storage engine", "type": "specification", "description": body}))
            .await;
    (created["issue"]["id"].as_str().expect("id").to_string(), body)
}

/// The arguments of `issues_get {...}` in a `next` hint.
fn next_args(next: &str) -> Value {
    let args = next.strip_prefix("issues_get ").unwrap_or_else(|| panic!("not an issues_get call: {next}"));
    serde_json::from_str(args).unwrap_or_else(|e| panic!("{next}: {e}"))
}

#[tokio::test]
async fn following_next_reads_a_long_body_to_its_end_in_both_views() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let (id, body) = long_spec(&client).await;
    let (first, first_text) = ok(&client, "issues_get", json!({"id": id})).await;
    assert_eq!(first["issue"]["truncated"], true);
    let mut read = first["issue"]["description"].as_str().expect("description").to_string();
    let mut next = first["issue"]["next"].as_str().expect("a cut answer names the next call").to_string();
    assert!(first_text.contains(&format!("Next: {next}")), "the text view names the same call: {first_text}");
    let mut calls = 0;
    loop {
        let (page, page_text) = ok(&client, "issues_get", next_args(&next)).await;
        let part = page["issue"]["description"].as_str().expect("description");
        assert!(page_text.contains(part.lines().next().unwrap_or_default()), "{page_text}");
        read.push_str(part);
        calls += 1;
        match page["issue"]["next"].as_str() {
            Some(n) => next = n.to_string(),
            None => break,
        }
        assert!(calls < 5, "no end after {calls} pages");
    }
    assert_eq!(read, body, "the pages put together are the body");
    let past = call(&client, "issues_get", json!({"id": id, "offset": 90_000})).await;
    assert!(is_error(&past) && text(&past).contains("below"), "{}", text(&past));
}

#[tokio::test]
async fn an_outline_and_a_section_cost_a_fraction_of_the_body() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let (id, body) = long_spec(&client).await;
    let (outline, outline_text) = ok(&client, "issues_get", json!({"id": id, "outline": true})).await;
    let tree = outline["issue"]["outline"].as_str().expect("outline");
    for heading in ["Overview", "Design", "Component 28", "Acceptance Criteria"] {
        assert!(tree.lines().any(|l| l.trim_start().starts_with(&format!("{heading} ("))), "{heading}: {tree}");
    }
    assert!(outline["issue"].get("description").is_none());
    assert!(outline_text.len() * 10 < body.len(), "the outline is a tenth of the body at most");
    // Every section is named (a spec's 121 headings): subsections without their own are listed
    // on their parent's line.
    let headings: Vec<&str> =
        body.lines().filter_map(|l| l.strip_prefix('#')).map(|h| h.trim_start_matches('#').trim()).collect();
    assert!(headings.len() > 100, "{}", headings.len());
    for heading in &headings {
        assert!(tree.contains(heading), "{heading} is not named: {tree}");
    }
    assert!(!outline_text.contains("deeper headings left out"), "{outline_text}");
    let (shallow, shallow_text) = ok(&client, "issues_get", json!({"id": id, "outline": true, "depth": 2})).await;
    assert!(!shallow["issue"]["outline"].as_str().expect("outline").contains("Failure modes"));
    assert!(shallow_text.contains("deeper headings left out; depth 4 shows all"), "{shallow_text}");

    let (criteria, _) = ok(&client, "issues_get", json!({"id": id, "section": "acceptance criteria"})).await;
    let section = criteria["issue"]["description"].as_str().expect("section");
    let start = body.find("## Acceptance Criteria").expect("in the body");
    assert_eq!(section, &body[start..], "the whole section, nothing cut");
    assert!(criteria["issue"].get("truncated").is_none());
    assert_eq!(criteria["issue"]["section"], "Storage engine/Acceptance Criteria");

    let (part, _) = ok(&client, "issues_get", json!({"id": id, "section": "Component 3/Failure modes"})).await;
    let part = part["issue"]["description"].as_str().expect("section");
    assert!(part.starts_with("#### Failure modes\n"), "{part}");
    let component_3 = body.find("### Component 3\n").expect("component 3");
    assert_eq!(body[component_3..].find(part).map(|_| ()), Some(()), "inside Component 3");

    let missing = call(&client, "issues_get", json!({"id": id, "section": "Rollback plan"})).await;
    assert!(!is_error(&missing), "an unknown section answers with the outline");
    let data = structured(&missing);
    assert!(data["issue"]["outline"].as_str().is_some_and(|o| o.contains("Acceptance Criteria")), "{data}");
    assert!(text(&missing).contains("No heading of"), "{}", text(&missing));
}

#[tokio::test]
async fn a_batch_reads_one_section_of_each_and_the_consolidated_profile_names_its_own_call() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let (a, _) = long_spec(&client).await;
    let (b, _) = long_spec_titled(&client, "Sync protocol").await;
    let (batch, _) = ok(&client, "issues_get_batch", json!({"ids": [a, b], "section": "Acceptance Criteria"})).await;
    for issue in batch["issues"].as_array().expect("issues") {
        assert!(issue["description"].as_str().is_some_and(|d| d.contains("AC-8")), "{issue}");
    }
    client.cancel().await.expect("close");

    let consolidated = start_with_env(ws.path(), &[("DOCKET_TOOL_STYLE", "consolidated")]).await;
    let r = call(&consolidated, "issues", json!({"action": "get", "id": a})).await;
    let next = structured(&r)["issue"]["next"].as_str().expect("next").to_string();
    assert!(next.starts_with("issues(action=get) {"), "{next}");
    assert!(text(&r).contains(&format!("Next: {next}")), "{}", text(&r));
}

async fn long_spec_titled(client: &Client, title: &str) -> (String, String) {
    let body = spec_body(title, 5, 2);
    let (created, _) =
        ok(client, "issues_create", json!({"title": title, "type": "specification", "description": body})).await;
    (created["issue"]["id"].as_str().expect("id").to_string(), body)
}

/// Follows `next` from a first answer to the end, in either profile; returns what was read
/// (the first answer's text included) and how many calls followed.
async fn follow(client: &Client, first: &Value, consolidated: bool) -> (String, usize) {
    let mut read = first["description"].as_str().expect("description").to_string();
    let mut next = first["next"].as_str().map(str::to_string);
    let mut calls = 0;
    while let Some(n) = next {
        let (tool, args) = match consolidated {
            true => ("issues", {
                let rest = n.strip_prefix("issues(action=get) ").unwrap_or_else(|| panic!("not a get call: {n}"));
                let mut args: Value = serde_json::from_str(rest).unwrap_or_else(|e| panic!("{n}: {e}"));
                args["action"] = json!("get");
                args
            }),
            false => ("issues_get", next_args(&n)),
        };
        let (page, page_text) = ok(client, tool, args).await;
        let part = page["issue"]["description"].as_str().expect("description");
        assert!(page_text.contains(part.lines().next().unwrap_or_default()), "{page_text}");
        read.push_str(part);
        next = page["issue"]["next"].as_str().map(str::to_string);
        if let Some(n) = &next {
            assert!(page_text.contains(&format!("Next: {n}")), "the text view names the same call: {page_text}");
        }
        calls += 1;
        assert!(calls < 6, "no end after {calls} pages");
    }
    (read, calls)
}

/// A section longer than an answer, a batch of whole specs, the consolidated profile and a spec
/// written with CRLF line ends: each is read to its very end by following `next` alone.
#[tokio::test]
async fn following_next_reads_a_cut_section_a_batch_and_a_crlf_spec_to_their_end() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let (a, body) = long_spec(&client).await;
    let (b, _) = long_spec_titled(&client, "Sync protocol").await;
    let design_at = body.find("## Design\n").expect("design");
    let design_end = design_at + body[design_at..].find("\n## API").expect("api") + 1;
    assert!(design_end - design_at > 25_000, "the Design section is longer than one answer");
    let (design, _) = ok(&client, "issues_get", json!({"id": a, "section": "Design"})).await;
    assert_eq!(design["issue"]["truncated"], true, "{}", design["issue"]["next"]);
    let (read, calls) = follow(&client, &design["issue"], false).await;
    assert!(calls >= 1);
    assert_eq!(read, body[design_at..design_end], "the section, put together from its pages");

    let (batch, _) = ok(&client, "issues_get_batch", json!({"ids": [a, b]})).await;
    let first = &batch["issues"][0];
    assert_eq!(first["truncated"], true, "{first}");
    let (read, _) = follow(&client, first, false).await;
    assert_eq!(read, body, "the batch's first spec, put together from its pages");

    // The same spec with CRLF line ends reads as the LF body, and its offsets agree.
    let file = std::fs::read_dir(ws.path().join(".docket/specifications"))
        .expect("specifications dir")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&a)))
        .expect("the spec's file");
    let written = std::fs::read_to_string(&file).expect("read").replace('\n', "\r\n");
    std::fs::write(&file, &written).expect("write CRLF");
    client.cancel().await.expect("close");

    let consolidated = start_with_env(ws.path(), &[("DOCKET_TOOL_STYLE", "consolidated")]).await;
    let (whole, _) = ok(&consolidated, "issues", json!({"action": "get", "id": a})).await;
    let (read, calls) = follow(&consolidated, &whole["issue"], true).await;
    assert!(calls >= 1);
    assert_eq!(read, body, "the CRLF spec read through the consolidated profile, as LF");
    let (criteria, _) =
        ok(&consolidated, "issues", json!({"action": "get", "id": a, "section": "Acceptance Criteria"})).await;
    assert_eq!(
        criteria["issue"]["description"].as_str(),
        Some(&body[body.find("## Acceptance Criteria").expect("ac")..])
    );
    assert_eq!(std::fs::read_to_string(&file).expect("read"), written, "reading changed nothing on disk");
    consolidated.cancel().await.expect("close");
}

/// Writes issue ISS-000001 with `body` straight to its file (bodies past what a call may send).
fn write_issue(root: &std::path::Path, body: &str) {
    let text = format!(
        "---\nid: ISS-000001\ntitle: Long\ntype: issue\nstatus: open\npriority: medium\nlabels: []\n\
         createdAt: '2026-01-01T00:00:00.000Z'\nupdatedAt: '2026-01-01T00:00:00.000Z'\n---\n{body}"
    );
    std::fs::write(root.join(".docket/issues/ISS-000001-long.md"), text).unwrap();
}

/// The texts of the visible warnings of an answer.
fn warnings(answer: &Value) -> Vec<String> {
    let list = answer["warnings"].as_array().cloned().unwrap_or_default();
    list.iter().map(|w| w["message"].as_str().map_or_else(|| w.to_string(), str::to_string)).collect()
}

/// An outline is built in one pass and held to the answer limit like every answer: 160,000
/// headings (a 4 MB body) answer with the first headings that fit and how many more there are;
/// 1,000,000 headings answer too. (The timeout only guards against a hang; nothing is timed.)
#[tokio::test]
async fn outlines_of_160000_and_1000000_headings_answer_within_the_limit() {
    let titled = |i: usize| format!("## Heading {i}\nsome text under it\n");
    let bare = |_: usize| "## h\n".to_string();
    for (n, heading, first) in
        [(160_000, &titled as &dyn Fn(usize) -> String, "Heading 0 ("), (1_000_000, &bare, "h (")]
    {
        let ws = workspace();
        let body: String = (0..n).map(heading).collect();
        assert!(body.len() < 8 << 20, "within the largest file docket reads");
        write_issue(ws.path(), &body);
        let client = start(ws.path()).await;
        let call = call(&client, "issues_get", json!({"id": "ISS-000001", "outline": true}));
        let r = tokio::time::timeout(std::time::Duration::from_secs(600), call).await.expect("an answer");
        assert!(!is_error(&r), "{}", text(&r));
        let outline = structured(&r)["issue"]["outline"].as_str().expect("outline").to_string();
        assert!(outline.chars().count() <= 25_000, "{n}: an outline of {} characters", outline.chars().count());
        assert!(text(&r).chars().count() <= 25_000, "{n}: a text answer of {} characters", text(&r).chars().count());
        assert!(outline.starts_with(first), "{n}: the first headings: {}", &outline[..100]);
        let shown = outline.lines().count();
        let more = format!("the first {shown} of {n} headings shown, {} more", n - shown);
        assert!(text(&r).contains(&more), "{n}: says how many more ({more}): {}", &text(&r)[..300]);
        // The structure resource (offsets of every heading) is held to its chunk size too.
        let params = rmcp::model::ReadResourceRequestParams::new("docket://issues/ISS-000001/structure");
        let read = serde_json::to_value(client.read_resource(params).await.expect("structure")).unwrap();
        let json = read["contents"][0]["text"].as_str().expect("text").to_string();
        assert!(json.len() <= 100_200, "{n}: a structure of {} characters", json.len());
        let structure: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(structure["sectionsTotal"], n, "{n}: says how many there are");
        client.cancel().await.unwrap();
    }
}

/// Following `next` after someone changed the body: the offset counted characters of a body
/// that is gone, so the answer says so and starts again at the beginning (no text repeated or
/// skipped in silence). A body that did not change reads on as usual.
#[tokio::test]
async fn a_next_call_after_the_body_changed_starts_again_and_says_so() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let (id, body) = long_spec(&client).await;
    let (first, _) = ok(&client, "issues_get", json!({"id": id})).await;
    let next = next_args(first["issue"]["next"].as_str().expect("next"));
    assert!(next["version"].is_string(), "the next call carries the body's version: {next}");
    let (same, _) = ok(&client, "issues_get", next.clone()).await;
    assert_eq!(same["issue"]["offset"], next["offset"], "unchanged: reads on");
    assert!(warnings(&same).is_empty(), "{same}");

    let prepended = format!("A new first paragraph, written by another agent.\n\n{body}");
    ok(&client, "issues_update", json!({"id": id, "description": prepended})).await;
    let r = call(&client, "issues_get", next).await;
    let (page, said) = (structured(&r), text(&r));
    assert!(page["issue"].get("offset").is_none(), "starts again at 0: {}", page["issue"]);
    let shown = page["issue"]["description"].as_str().expect("description");
    assert!(shown.starts_with("A new first paragraph"), "{}", &shown[..80]);
    assert!(said.contains("changed since the page that gave this offset"), "{said}");
    assert!(warnings(&page).iter().any(|w| w.contains("starts again at the beginning")), "{page}");
    client.cancel().await.unwrap();
}

/// A heading name used more than once: the answer says how many match and the `section` that
/// reaches each (`Tests#2`, or a path), and each of those reaches its own section.
#[tokio::test]
async fn a_duplicated_section_name_says_how_many_match_and_how_to_reach_each() {
    let ws = workspace();
    let body = "# Spec\nintro\n## Tests\nfirst\n## Design\n### Tests\nsecond\n## Tests\nthird\n";
    write_issue(ws.path(), body);
    let client = start(ws.path()).await;
    let r = call(&client, "issues_get", json!({"id": "ISS-000001", "section": "Tests"})).await;
    let (first, said) = (structured(&r), text(&r));
    assert_eq!(first["issue"]["description"], "## Tests\nfirst\n");
    assert!(said.contains("3 headings of ISS-000001 match section \"Tests\"; this is number 1"), "{said}");
    for (reach, want) in [
        ("Spec/Tests#1", "## Tests\nfirst\n"),
        ("Spec/Design/Tests", "### Tests\nsecond\n"),
        ("Spec/Tests#3", "## Tests\nthird\n"),
    ] {
        assert!(said.contains(&format!("\"{reach}\"")), "names {reach}: {said}");
        let (part, _) = ok(&client, "issues_get", json!({"id": "ISS-000001", "section": reach})).await;
        assert_eq!(part["issue"]["description"], want, "{reach}");
        assert_eq!(part["issue"]["section"], reach, "the section answered is named so it is found again");
    }
    let (second, _) = ok(&client, "issues_get", json!({"id": "ISS-000001", "section": "Tests#2"})).await;
    assert_eq!(second["issue"]["description"], "### Tests\nsecond\n");
    let (unique, unique_text) = ok(&client, "issues_get", json!({"id": "ISS-000001", "section": "Design"})).await;
    assert_eq!(unique["issue"]["section"], "Spec/Design");
    assert!(!unique_text.contains("headings of"), "a unique name warns of nothing: {unique_text}");
    client.cancel().await.unwrap();
}
