//! Errors a client can act on, where they used to be silence or the wrong code: JSON-RPC parse
//! errors on stdio and HTTP, invalid params instead of "method not found", the Origin named as
//! the Origin, a bad session ID called a session ID, a full disk called a full disk, and no
//! colour codes in logs that go to a file.

use crate::common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::http::{HttpServer, post};
use common::{RawServer, call, is_error, start, text, workspace};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(30);

/// Sends `line` and a ping; returns the reply to the line (replies may come in any order).
fn reply_to(server: &mut RawServer, line: &str, ping: i64) -> Value {
    assert!(server.send_bytes(line.as_bytes()), "the server closed its stdin");
    assert!(server.send(&json!({"jsonrpc": "2.0", "id": ping, "method": "ping"})));
    let mut seen = server.recv_until(&json!(ping), WAIT).expect("the ping is answered");
    seen.pop();
    if seen.is_empty() {
        seen.extend(server.recv(Duration::from_secs(5)));
    }
    assert_eq!(seen.len(), 1, "one reply to {line}: {seen:?}");
    seen.remove(0)
}

#[test]
fn invalid_json_on_stdio_gets_a_parse_error() {
    let ws = workspace();
    let mut server = RawServer::spawn(ws.path());
    server.initialize();
    for (i, line) in ["this is not json", r#"{"jsonrpc":"2.0","id":7,"method":"ping""#, "\u{feff}{]"].iter().enumerate()
    {
        let reply = reply_to(&mut server, line, 100 + i as i64);
        assert_eq!(reply["error"]["code"], -32700, "{line}: {reply}");
        assert_eq!(reply.get("id"), Some(&Value::Null), "a parse error carries id null: {reply}");
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert!(message.starts_with("Parse error") && message.contains("line 1"), "{message}");
    }
    assert!(server.close().success());
}

#[test]
fn wrong_params_for_a_known_method_are_invalid_params_not_method_not_found() {
    let ws = workspace();
    let mut server = RawServer::spawn(ws.path());
    server.initialize();
    let cases = [
        (r#""x""#, "tools/call", "must be an object"),
        (r#"{"name":42}"#, "tools/call", "name"),
        (r#"{}"#, "tools/call", "missing field `name`"),
        (r#"{"name":"issues_get","arguments":[1]}"#, "tools/call", "arguments"),
        (r#"{"uri":5}"#, "resources/read", "uri"),
    ];
    for (i, (params, method, needle)) in cases.iter().enumerate() {
        let id = 10 + i as i64;
        let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#);
        let reply = reply_to(&mut server, &line, 200 + i as i64);
        assert_eq!(reply["id"], id, "{line}: {reply}");
        assert_eq!(reply["error"]["code"], -32602, "{line}: {reply}");
        let message = reply["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(method) && message.contains(needle), "{line}: {message}");
    }
    let unknown = reply_to(&mut server, r#"{"jsonrpc":"2.0","id":30,"method":"frobnicate"}"#, 300);
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    assert!(unknown["error"]["message"].as_str().unwrap_or_default().contains("'frobnicate'"), "{unknown}");
    let tool_as_method = reply_to(&mut server, r#"{"jsonrpc":"2.0","id":31,"method":"issues_list","params":{}}"#, 301);
    assert_eq!(tool_as_method["error"]["code"], -32601, "{tool_as_method}");
    let message = tool_as_method["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("tools/call") && message.contains("issues_list"), "{message}");
    assert!(server.close().success());
}

#[tokio::test]
async fn bad_json_over_http_is_a_400_with_a_json_rpc_error() {
    let server = HttpServer::start(&[]);
    let broken = post(&server.url).body("{\"jsonrpc\": \"2.0\", \"id\": 1, ").send().await.expect("answered");
    assert_eq!(broken.status(), 400);
    let body: Value = broken.json().await.expect("a JSON-RPC error body");
    assert_eq!(body["error"]["code"], -32700, "{body}");
    assert_eq!(body.get("id"), Some(&Value::Null), "{body}");

    let not_a_message = post(&server.url).body(r#"{"jsonrpc":"2.0","id":5,"params":{}}"#).send().await.unwrap();
    assert_eq!(not_a_message.status(), 400);
    let body: Value = not_a_message.json().await.expect("a JSON-RPC error body");
    assert_eq!(body["error"]["code"], -32600, "{body}");
    assert_eq!(body["id"], 5, "{body}");
}

#[tokio::test]
async fn a_foreign_origin_is_named_as_the_origin_not_the_host() {
    let server = HttpServer::start(&[]);
    for origin in ["http://127.0.0.1:9@evil.example", "not a url", "null"] {
        let refused = post(&server.url)
            .header("origin", origin)
            .json(&common::http::initialize_body())
            .send()
            .await
            .expect("answered");
        assert_eq!(refused.status(), 403, "{origin}");
        let why = refused.text().await.unwrap();
        assert!(why.contains(&format!("origin `{origin}`")), "{origin}: {why}");
        assert!(!why.contains("Host `"), "{origin}: the Host was fine: {why}");
    }
}

#[tokio::test]
async fn a_bad_session_id_is_called_a_session_id() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let calls = [
        ("session_get", json!({"sessionId": "../escape"})),
        ("session_phase", json!({"sessionId": "../escape", "phase": "plan", "status": "started"})),
    ];
    for (tool, args) in calls {
        let result = call(&client, tool, args).await;
        assert!(is_error(&result), "{tool}");
        let message = text(&result);
        assert!(message.contains("Invalid session ID '../escape'"), "{tool}: {message}");
        assert!(!message.contains("issue ID"), "{tool}: {message}");
    }
    client.cancel().await.expect("close");
}

/// A workspace on a 256 KB tmpfs in a private mount namespace (`unshare -rm`); skipped where
/// user namespaces are not available.
#[tokio::test]
#[cfg(target_os = "linux")]
async fn a_full_disk_is_reported_as_a_full_disk() {
    let probe = Command::new("unshare").args(["-rm", "true"]).status();
    if !probe.is_ok_and(|s| s.success()) {
        eprintln!("SKIPPED: unshare -rm is not available here");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let script = r#"mount -t tmpfs -o size=256k tmpfs "$1" && "$2" init "$1" >/dev/null 2>&1 && exec "$2" serve --workspace "$1""#;
    let mut cmd = tokio::process::Command::new("unshare");
    cmd.args(["-rm", "sh", "-c", script, "sh"]).arg(dir.path()).arg(env!("CARGO_BIN_EXE_docket"));
    let transport = rmcp::transport::TokioChildProcess::new(cmd).expect("spawn");
    let client = rmcp::ServiceExt::serve((), transport).await.expect("initialize");
    let mut message = None;
    for i in 0..20 {
        let result =
            call(&client, "issues_create", json!({"title": format!("Filler {i}"), "description": "z".repeat(60_000)}))
                .await;
        if is_error(&result) {
            message = Some(text(&result));
            break;
        }
    }
    let message = message.expect("the 256 KB disk fills up");
    assert!(message.contains("The disk is full"), "{message}");
    assert!(message.contains("Free space"), "{message}");
    client.cancel().await.expect("close");
}

#[test]
fn logs_carry_no_colour_codes_when_stderr_is_not_a_terminal() {
    let ws = workspace();
    let mut child = Command::new(env!("CARGO_BIN_EXE_docket"))
        .args(["serve", "--workspace"])
        .arg(ws.path())
        .env("DOCKET_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn docket");
    let mut stderr = String::new();
    child.stderr.take().expect("stderr").read_to_string(&mut stderr).expect("read stderr");
    child.wait().expect("exit");
    assert!(stderr.contains("INFO"), "logs were written: {stderr}");
    assert!(!stderr.contains('\u{1b}'), "no ANSI escape codes: {stderr:?}");
}
