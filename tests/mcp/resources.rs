//! Large bodies and resources over a real stdio pipe: truncation with a notice, reading the rest
//! back through chunk resources, structure offsets, board, config, listing, templates,
//! completion and the errors for bad URIs, unknown ids and bad ranges.

use crate::common;

use common::{Client, call, is_error, start, structured, text, workspace};
use rmcp::model::ReadResourceRequestParams;
use serde_json::{Value, json};

async fn read(client: &Client, uri: &str) -> Result<String, String> {
    match client.read_resource(ReadResourceRequestParams::new(uri)).await {
        Ok(r) => {
            let v = serde_json::to_value(&r).expect("result");
            Ok(v["contents"][0]["text"].as_str().expect("text contents").to_string())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// 60,000 characters with multi-byte text and headings.
fn long_body() -> String {
    let mut body = String::new();
    let mut section = 0;
    while body.chars().count() < 60_000 {
        section += 1;
        body.push_str(&format!("## Section {section} — détails 🚀\n\n"));
        for _ in 0..20 {
            body.push_str("Ünïcödé text with emoji 🧪 and plain words to fill the paragraph. ");
        }
        body.push_str("\n\n");
    }
    body.chars().take(60_000).collect()
}

#[tokio::test]
async fn a_large_body_is_truncated_and_read_back_whole_through_chunks() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let body = long_body();
    let created = call(&client, "issues_create", json!({"title": "Huge spec", "description": body})).await;
    let id = structured(&created)["issue"]["id"].as_str().expect("id").to_string();

    let got = call(&client, "issues_get", json!({"id": id})).await;
    let issue = structured(&got)["issue"].clone();
    assert_eq!(issue["truncated"], true);
    assert_eq!(issue["descriptionLength"], 60_000);
    let head = issue["description"].as_str().expect("description").to_string();
    let kept = head.chars().count();
    assert!((20_000..=25_000).contains(&kept), "kept {kept}");
    let notice = text(&got);
    assert!(notice.contains(&format!("Cut at {kept} of 60000 characters")), "{notice}");
    assert!(notice.contains(&format!("docket://issues/{id}/chunk/{kept}-")), "{notice}");
    // Both views name the tool call that reads on (issue 25); the text also names the chunk.
    let next = issue["next"].as_str().expect("the structured view names the call to make next");
    // With the version of the body the offset counts in (issue 37).
    let version = docket::store::version_of(body.as_bytes());
    assert_eq!(next, format!("issues_get {{\"id\":\"{id}\",\"offset\":{kept},\"version\":\"{version}\"}}"));
    assert!(notice.contains(next), "{notice}");
    let warned = structured(&got)["warnings"].to_string();
    assert!(warned.contains(&format!("docket://issues/{id}")), "TRUNCATED is in the structured view: {warned}");
    let meta = serde_json::to_value(&got.meta).expect("meta");
    assert_eq!(meta["warnings"][0]["code"], "TRUNCATED", "{meta}");
    let link = got.content.iter().find_map(|c| c.as_resource_link()).expect("a resource link block");
    assert_eq!(link.uri, format!("docket://issues/{id}"));

    let mut rebuilt = head;
    let mut at = kept;
    while at < 60_000 {
        rebuilt.push_str(
            &read(&client, &format!("docket://issues/{id}/chunk/{at}-{}", at + 25_000)).await.expect("chunk"),
        );
        at += 25_000;
    }
    assert_eq!(rebuilt, body, "no character lost or duplicated");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn structure_offsets_point_at_the_headings() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let body = long_body();
    let created = call(&client, "issues_create", json!({"title": "Outlined", "description": body})).await;
    let id = structured(&created)["issue"]["id"].as_str().expect("id").to_string();
    let outline: Value =
        serde_json::from_str(&read(&client, &format!("docket://issues/{id}/structure")).await.expect("structure"))
            .expect("json");
    let sections = outline["sections"].as_array().expect("sections");
    assert!(sections.len() > 10);
    for s in sections.iter().take(5) {
        let (start, level) = (s["start"].as_u64().expect("start"), s["level"].as_u64().expect("level"));
        let at =
            read(&client, &format!("docket://issues/{id}/chunk/{start}-{}", start + level + 1)).await.expect("chunk");
        assert_eq!(at, format!("{} ", "#".repeat(level as usize)));
        let heading =
            read(&client, &format!("docket://issues/{id}/chunk/{start}-{}", start + 40)).await.expect("chunk");
        assert!(heading.contains(s["title"].as_str().expect("title")), "{heading}");
    }
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn every_resource_and_template_can_be_read_listed_and_completed() {
    let dir = tempfile::tempdir().expect("tmp");
    docket::store::generate::generate_workspace(dir.path(), 60, 3);
    let client = start(dir.path()).await;
    let all = client.list_all_resources().await.expect("resources/list");
    assert_eq!(all.len(), 63, "board, config, recent errors and 60 issues, across pages");
    let templates = client.list_all_resource_templates().await.expect("templates");
    let uris: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    assert_eq!(
        uris,
        ["docket://issues/{id}", "docket://issues/{id}/chunk/{start}-{end}", "docket://issues/{id}/structure"]
    );
    let file = read(&client, "docket://issues/ISS-000001").await.expect("issue");
    assert!(file.starts_with("---\nid: ISS-000001\n"), "{file}");
    let board = read(&client, "docket://board").await.expect("board");
    assert!(board.starts_with("# Board (60 issues)"), "{board}");
    let config: Value = serde_json::from_str(&read(&client, "docket://config").await.expect("config")).expect("json");
    assert_eq!(config["settings"]["character_limit"]["value"], 25_000);
    assert_eq!(config["settings"]["character_limit"]["source"], "default");
    let ids = client.complete_resource_simple("docket://issues/{id}", "id", "iss-00000").await.expect("completion");
    assert_eq!(ids.len(), 9, "ISS-000001..9: {ids:?}");
    client.cancel().await.expect("close");
}

/// Started with a relative `--workspace`, the config still names the workspace absolutely: a path
/// a client builds from it (the manifest's session_start sample does) must not depend on where
/// the server was started.
#[tokio::test]
async fn the_config_names_the_workspace_absolutely() {
    use rmcp::ServiceExt;
    let parent = tempfile::tempdir().expect("tmp");
    docket::store::Workspace::init(&parent.path().join("ws")).expect("init");
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_docket"));
    cmd.current_dir(parent.path()).args(["serve", "--workspace", "ws"]).env_remove("DOCKET_WORKSPACE");
    let client: Client =
        ().serve(rmcp::transport::TokioChildProcess::new(cmd).expect("spawn")).await.expect("initialize");
    let config: Value = serde_json::from_str(&read(&client, "docket://config").await.expect("config")).expect("json");
    let named = std::path::PathBuf::from(config["workspace"].as_str().expect("workspace"));
    assert!(named.is_absolute(), "{named:?}");
    assert!(named.starts_with(parent.path()) && named.is_dir(), "{named:?}");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn bad_uris_unknown_ids_and_bad_ranges_are_clear_errors() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let id = structured(&call(&client, "issues_create", json!({"title": "Short", "description": "0123456789"})).await)
        ["issue"]["id"]
        .as_str()
        .expect("id")
        .to_string();
    let unknown = read(&client, "docket://nope").await.expect_err("unknown uri");
    assert!(unknown.contains("Unknown resource URI 'docket://nope'. Valid forms:"), "{unknown}");
    let missing = read(&client, "docket://issues/ISS-000999").await.expect_err("unknown id");
    assert!(missing.contains("Issue ISS-000999 not found"), "{missing}");
    for (range, why) in
        [("5-2", "start must be below end"), ("10-20", "start is past the end"), ("a-3", "start is not a number")]
    {
        let err = read(&client, &format!("docket://issues/{id}/chunk/{range}")).await.expect_err("bad range");
        assert!(err.contains(why) && err.contains("has 10 characters"), "{range}: {err}");
    }
    assert_eq!(read(&client, &format!("docket://issues/{id}/chunk/4-99")).await.expect("clamped"), "456789");
    let traversal = read(&client, "docket://issues/../../etc/passwd").await.expect_err("traversal");
    assert!(!traversal.is_empty());
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn list_results_counts_are_right_on_first_middle_and_last_pages() {
    let dir = tempfile::tempdir().expect("tmp");
    docket::store::generate::generate_workspace(dir.path(), 25, 5);
    let client = start(dir.path()).await;
    let mut cursor: Option<String> = None;
    let mut seen = Vec::new();
    for expected in [(10, true), (10, true), (5, false)] {
        let mut args = json!({"limit": 10, "format": "minimal"});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let r = call(&client, "issues_list", args).await;
        assert!(!is_error(&r));
        let meta = serde_json::to_value(&r.meta).expect("meta");
        assert_eq!(
            (meta["results_total"].as_u64(), meta["results_returned"].as_u64(), meta["results_truncated"].as_bool()),
            (Some(25), Some(expected.0), Some(expected.1))
        );
        assert_eq!(meta["tool_context"]["page_size"], 10);
        cursor = structured(&r)["nextCursor"].as_str().map(String::from);
        seen.push(expected.0);
    }
    assert_eq!(seen.iter().sum::<u64>(), 25);
    client.cancel().await.expect("close");
}
