//! `docket serve --http`: the real binary on 127.0.0.1, driven by rmcp's Streamable HTTP client
//! and by raw HTTP requests for what a client library would never send.

use crate::common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::http::{HttpServer, initialize_body, post};
use rmcp::model::{CallToolRequestParams, GetPromptRequestParams};
use rmcp::{RoleClient, service::RunningService};
use serde_json::{Value, json};

async fn call(client: &RunningService<RoleClient, ()>, tool: &str, args: Value) -> rmcp::model::CallToolResult {
    let args = args.as_object().cloned().expect("object");
    client.call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args)).await.expect("tools/call")
}

#[tokio::test]
async fn a_client_initializes_lists_and_calls_over_http() {
    let server = HttpServer::start(&[]);
    assert!(server.url.starts_with("http://127.0.0.1:") && server.url.ends_with("/mcp"), "{}", server.url);
    let client = server.client(None).await;
    let info = client.peer_info().expect("server info");
    assert_eq!(info.server_info.as_ref().expect("serverInfo").name, "docket");
    assert_eq!(client.list_all_tools().await.expect("tools/list").len(), common::manifest_tool_count());

    let created = call(&client, "issues_create", json!({"title": "Over HTTP", "description": "body"})).await;
    assert_ne!(created.is_error, Some(true), "{created:?}");
    let id = created.structured_content.as_ref().expect("structured")["issue"]["id"].as_str().expect("id").to_string();
    let got = call(&client, "issues_get", json!({"id": id})).await;
    assert_eq!(got.structured_content.expect("structured")["issue"]["title"], "Over HTTP");

    let prompts = client.list_all_prompts().await.expect("prompts/list");
    assert!(prompts.iter().any(|p| p.name == "close_out"));
    let args = json!({"id": id}).as_object().cloned().unwrap();
    let prompt = client.get_prompt(GetPromptRequestParams::new("close_out").with_arguments(args)).await.expect("get");
    assert!(serde_json::to_string(&prompt).unwrap().contains(&id));
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn sessions_are_separate_and_end_on_delete() {
    let server = HttpServer::start(&[]);
    let (a, b) = (server.client(None).await, server.client(None).await);
    call(&a, "issues_create", json!({"title": "From A", "description": ""})).await;
    // Both sessions share the workspace: B sees A's write at once.
    let listed = call(&b, "issues_list", json!({"format": "minimal"})).await;
    assert_eq!(common::page_records(&listed.structured_content.expect("structured"))[0]["title"], "From A");

    let init = post(&server.url).json(&initialize_body()).send().await.expect("initialize");
    assert_eq!(init.status(), 200);
    let session = init.headers().get("mcp-session-id").expect("a session id").to_str().unwrap().to_string();
    let http = reqwest::Client::new();
    let deleted = http.delete(&server.url).header("mcp-session-id", &session).send().await.expect("delete");
    assert!(deleted.status().is_success(), "DELETE ended the session: {}", deleted.status());
    let after = post(&server.url)
        .header("mcp-session-id", &session)
        .json(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .send()
        .await
        .expect("post after delete");
    assert_eq!(after.status(), 404, "a deleted session is gone");
}

#[tokio::test]
async fn a_foreign_origin_or_host_is_refused_with_a_reason() {
    let server = HttpServer::start(&[]);
    let refused =
        post(&server.url).header("origin", "http://evil.example").json(&initialize_body()).send().await.unwrap();
    assert_eq!(refused.status(), 403);
    let why = refused.text().await.unwrap();
    assert!(why.contains("origin `http://evil.example`") && why.contains("--allow-origin"), "{why}");

    let port = server.url.trim_start_matches("http://127.0.0.1:").trim_end_matches("/mcp").to_string();
    let accepted = post(&server.url)
        .header("origin", format!("http://localhost:{port}"))
        .json(&initialize_body())
        .send()
        .await
        .unwrap();
    assert_eq!(accepted.status(), 200, "a loopback origin is fine");

    let rebound = post(&server.url).header("host", "attacker.example").json(&initialize_body()).send().await.unwrap();
    assert_eq!(rebound.status(), 403);
    assert!(rebound.text().await.unwrap().contains("Host `attacker.example`"));
}

#[tokio::test]
async fn an_allowed_origin_flag_lets_that_origin_in() {
    let server = HttpServer::start(&["--allow-origin", "https://app.example.com:443"]);
    let ok = post(&server.url).header("origin", "https://app.example.com").json(&initialize_body()).send().await;
    assert_eq!(ok.unwrap().status(), 200);
    let other = post(&server.url).header("origin", "https://other.example.com").json(&initialize_body()).send().await;
    assert_eq!(other.unwrap().status(), 403);
}

#[tokio::test]
async fn with_a_token_only_the_right_bearer_gets_in() {
    let server = HttpServer::start(&["--token", "s3cret-token"]);
    let missing = post(&server.url).json(&initialize_body()).send().await.unwrap();
    assert_eq!(missing.status(), 401);
    assert_eq!(missing.headers().get("www-authenticate").unwrap(), "Bearer realm=\"docket\"");
    assert!(missing.text().await.unwrap().contains("No bearer token was sent"));

    let wrong = post(&server.url).bearer_auth("s3cret-tokeN").json(&initialize_body()).send().await.unwrap();
    assert_eq!(wrong.status(), 401);
    assert!(wrong.text().await.unwrap().contains("The bearer token is wrong"));

    let client = server.client(Some("s3cret-token")).await;
    assert_eq!(client.list_all_tools().await.expect("tools/list with the token").len(), common::manifest_tool_count());
}

#[test]
fn sigterm_stops_the_http_server_cleanly() {
    let mut server = HttpServer::start(&[]);
    let pid = server.child.id().to_string();
    let status = Command::new("kill").args(["-TERM", &pid]).status().expect("kill");
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(exit) = server.child.try_wait().expect("wait") {
            assert!(exit.success(), "clean exit on SIGTERM, got {exit}");
            break;
        }
        assert!(Instant::now() < deadline, "the server did not stop within 10 s of SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_token_in_the_environment_does_not_stop_stdio_serving() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_docket"))
        .args(["serve", "--demo"])
        .env("DOCKET_TOKEN", "exported-for-http")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run docket");
    let mut stdin = child.stdin.take().expect("stdin");
    writeln!(stdin, "{}", initialize_body()).expect("write initialize");
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"serverInfo\""), "it answered initialize");
}

#[test]
fn a_bad_listen_address_is_a_usage_error_with_an_example() {
    let out = Command::new(env!("CARGO_BIN_EXE_docket"))
        .args(["serve", "--demo", "--http", "example.com:80"])
        .output()
        .expect("run docket");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("expected PORT or HOST:PORT, e.g. --http 8080"), "{stderr}");
}

/// Records the URIs of `notifications/resources/updated`.
#[derive(Clone, Default)]
struct Heard(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl rmcp::ClientHandler for Heard {
    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _: rmcp::service::NotificationContext<RoleClient>,
    ) {
        self.0.lock().unwrap().push(params.uri);
    }
}

/// One call path (issue 29): a write through MCP in one HTTP session is announced to every
/// session subscribed to the board, not only to the session that made it.
#[tokio::test]
#[allow(deprecated)] // resources/subscribe: the protocol versions docket serves still have it
async fn a_write_in_one_http_session_is_announced_to_every_subscribed_session() {
    use rmcp::ServiceExt;
    let server = HttpServer::start(&[]);
    let (a, b) = (Heard::default(), Heard::default());
    let mut clients = Vec::new();
    for heard in [&a, &b] {
        let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(server.url.as_str());
        let client = heard.clone().serve(transport).await.expect("initialize over HTTP");
        client.subscribe(rmcp::model::SubscribeRequestParams::new("docket://board")).await.expect("subscribe");
        clients.push(client);
    }
    let args = json!({"title": "Heard by both", "description": "x"}).as_object().cloned().unwrap();
    let created = clients[0].call_tool(CallToolRequestParams::new("issues_create").with_arguments(args)).await;
    assert_ne!(created.expect("tools/call").is_error, Some(true));
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let heard = |h: &Heard| h.0.lock().unwrap().contains(&"docket://board".to_string());
        if heard(&a) && heard(&b) {
            break;
        }
        assert!(Instant::now() < deadline, "board notifications: writer {:?}, other {:?}", a.0, b.0);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for client in clients {
        client.cancel().await.expect("close");
    }
}
