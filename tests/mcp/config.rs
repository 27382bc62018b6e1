//! config/docket.yaml as users meet it: the settings change what the tools return, the
//! `docket://config` resource shows each value and its source, and a bad file stops the server
//! with a message naming the key.

use crate::common;

use std::process::Command;

use common::{call, start, start_with_env, structured};
use rmcp::model::ReadResourceRequestParams;
use serde_json::{Value, json};

fn workspace_with(issues: usize, config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let ws = docket::store::generate::generate_workspace(dir.path(), issues, 3);
    std::fs::create_dir_all(ws.dir.join("config")).unwrap();
    std::fs::write(ws.dir.join("config/docket.yaml"), config).unwrap();
    dir
}

async fn config_resource(client: &common::Client) -> Value {
    let read = client.read_resource(ReadResourceRequestParams::new("docket://config")).await.expect("read config");
    let text = serde_json::to_value(&read.contents[0]).unwrap()["text"].as_str().unwrap().to_string();
    serde_json::from_str(&text).expect("config is JSON")
}

#[tokio::test]
async fn settings_from_the_file_and_the_environment_apply_and_are_shown() {
    let dir = workspace_with(30, "page_size: 7\ncharacter_limit: 3000\n");
    let client = start_with_env(dir.path(), &[("DOCKET_SEARCH_PAGE_SIZE", "4")]).await;

    let page = structured(&call(&client, "issues_list", json!({"format": "minimal"})).await);
    assert_eq!(page["rows"].as_array().unwrap().len(), 7, "page_size from the file");
    let hits = structured(&call(&client, "issues_search", json!({"query": "the"})).await);
    assert_eq!(hits["rows"].as_array().unwrap().len(), 4, "search_page_size from the environment");

    let config = config_resource(&client).await;
    let settings = &config["settings"];
    assert_eq!(settings["page_size"]["value"], 7);
    assert!(settings["page_size"]["source"].as_str().unwrap().ends_with("config/docket.yaml"));
    assert_eq!(settings["search_page_size"]["source"], "environment variable DOCKET_SEARCH_PAGE_SIZE");
    assert_eq!(settings["full_page_size"]["source"], "default");
    assert_eq!(settings["character_limit"]["value"], 3000);
    assert_eq!(settings["tool_style"]["value"], "granular");
}

#[tokio::test]
async fn the_character_limit_bounds_issues_get() {
    let dir = workspace_with(1, "character_limit: 2000\n");
    let client = start(dir.path()).await;
    let long = "word ".repeat(2_000);
    let created = structured(&call(&client, "issues_create", json!({"title": "Long", "description": long})).await);
    let id = created["issue"]["id"].as_str().unwrap().to_string();
    let got = structured(&call(&client, "issues_get", json!({"id": id})).await);
    assert_eq!(got["issue"]["truncated"], true);
    assert!(got["issue"]["description"].as_str().unwrap().chars().count() <= 2_000);
}

#[test]
fn a_bad_config_file_stops_the_server_naming_the_key_and_the_valid_values() {
    let dir = workspace_with(1, "page_size: 500\n");
    let out = Command::new(env!("CARGO_BIN_EXE_docket"))
        .args(["serve", "--workspace"])
        .arg(dir.path())
        .output()
        .expect("run docket");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("config/docket.yaml: `page_size` must be an integer from 1 to 100, got 500"), "{stderr}");
    assert!(out.stdout.is_empty(), "nothing but the protocol may reach stdout");

    let good = workspace_with(1, "page_size: 5\n");
    let flagged = Command::new(env!("CARGO_BIN_EXE_docket"))
        .args(["serve", "--workspace"])
        .arg(good.path())
        .args(["--set", "tool_stlye=consolidated"])
        .output()
        .expect("run docket");
    assert_eq!(flagged.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&flagged.stderr);
    assert!(stderr.contains("--set: unknown setting `tool_stlye`. Did you mean `tool_style`?"), "{stderr}");
}

#[tokio::test]
async fn tool_style_in_the_file_publishes_the_consolidated_profile() {
    let dir = workspace_with(3, "tool_style: consolidated\n");
    let client = start(dir.path()).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["issues", "session", "errors", "workspace"]);
    let listed = structured(&call(&client, "issues", json!({"action": "list", "format": "minimal"})).await);
    assert_eq!(listed["rows"].as_array().unwrap().len(), 3);
    assert_eq!(config_resource(&client).await["settings"]["tool_style"]["value"], "consolidated");
}

/// `structured_content: false` serves the text view only: no structuredContent in results and no
/// outputSchema in tools/list (a client must not check a result against a schema it cannot meet).
#[tokio::test]
async fn structured_content_false_serves_text_only() {
    let dir = workspace_with(5, "structured_content: false\n");
    let client = start(dir.path()).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    assert!(tools.iter().all(|t| t.output_schema.is_none()), "no outputSchema is published");
    let r = call(&client, "issues_list", json!({"format": "minimal"})).await;
    assert!(r.structured_content.is_none(), "{r:?}");
    assert!(common::text(&r).contains("Showing 5 of 5 issues"), "{}", common::text(&r));
    client.cancel().await.expect("close");

    let client = start_with_env(dir.path(), &[("DOCKET_STRUCTURED_CONTENT", "true")]).await;
    let r = call(&client, "issues_list", json!({"format": "minimal"})).await;
    assert!(r.structured_content.is_some(), "the environment overrides the file");
    client.cancel().await.expect("close");
}

/// `read_only: true`: every call that would write is refused before it runs, with the message
/// naming what to do instead; reads (and workspace_doctor without fix) answer as usual; no file
/// changes.
#[tokio::test]
async fn a_read_only_server_refuses_every_write_and_still_reads() {
    let dir = workspace_with(5, "read_only: true\n");
    let before = common::snapshot(dir.path());
    let client = start(dir.path()).await;
    let writes = [
        ("issues_create", json!({"title": "x", "description": "y"})),
        ("issues_update", json!({"id": "ISS-000001", "priority": "high"})),
        ("issues_delete", json!({"id": "ISS-000001", "confirm": true})),
        ("workspace_doctor", json!({"fix": true})),
        ("init_workspace", json!({"fix": true})),
    ];
    for (tool, args) in writes {
        let r = call(&client, tool, args).await;
        assert!(common::is_error(&r), "{tool} wrote on a read-only server");
        let text = common::text(&r);
        assert!(text.contains("This docket server is read-only") && text.contains(tool), "{tool}: {text}");
    }
    for (tool, args) in [
        ("issues_list", json!({})),
        ("issues_get", json!({"id": "ISS-000001"})),
        ("workspace_doctor", json!({})),
        ("init_workspace", json!({})),
    ] {
        let r = call(&client, tool, args).await;
        assert!(!common::is_error(&r), "{tool}: {}", common::text(&r));
    }
    client.cancel().await.expect("close");
    let after = common::snapshot(dir.path());
    let changed: Vec<&String> =
        after.keys().filter(|k| !k.contains("cache/") && before.get(*k) != after.get(*k)).collect();
    assert!(changed.is_empty(), "files changed: {changed:?}");
}
