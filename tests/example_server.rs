//! The toolkit's second user, toolkit/examples/bookmarks: built with cargo as its README says, served
//! over stdio to rmcp's client, its manifest's samples run, its call observer logging each call;
//! kept up over a raw pipe by the same malformed lines docket survives (tests/hostile/abuse_stdio.rs), each
//! answered by the toolkit's guarded stdio transport; served over Streamable HTTP to two sessions sharing its bookmarks; and a copy of the folder outside the
//! repository, its path dependencies pointing back, builds too, and fails to build, naming the
//! tool, when its manifest gains a tool it has no handler for.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rmcp::ServiceExt;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::json;

const EXAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/toolkit/examples/bookmarks");

/// The target folder of the example's builds (under target/, beside the test binaries); the
/// copy outside has its own: cargo names a workspace's root package by its path inside the
/// workspace, so the two would share one build-script output folder in one target folder.
fn target_dir(outside: bool) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(if outside { "example-outside" } else { "example" })
}

/// `cargo build` of the crate in `dir` (its Cargo.lock follows the toolkit's dependencies).
fn build(dir: &Path, outside: bool) -> Output {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target_dir(outside))
        .output()
        .expect("cargo runs")
}

fn assert_built(dir: &Path, outside: bool) {
    let out = build(dir, outside);
    assert!(out.status.success(), "{} does not build:\n{}", dir.display(), String::from_utf8_lossy(&out.stderr));
}

#[tokio::test]
async fn the_example_serves_its_tools_over_stdio_and_passes_its_samples() {
    assert_built(Path::new(EXAMPLE), false);
    let logs = tempfile::NamedTempFile::new().expect("stderr file");
    let cmd = tokio::process::Command::new(target_dir(false).join("debug/bookmarks"));
    let (transport, _) =
        TokioChildProcess::builder(cmd).stderr(logs.reopen().expect("stderr file")).spawn().expect("spawn bookmarks");
    let client = ().serve(transport).await.expect("initialize");
    let info = client.peer_info().expect("server info");
    assert_eq!(info.server_info.as_ref().map(|s| s.name.as_str()), Some("bookmarks"));
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["bookmarks_add", "bookmarks_find", "bookmarks_remove"]);
    let remove = &tools[2];
    assert_eq!(remove.annotations.as_ref().and_then(|a| a.destructive_hint), Some(true));

    let manifest = std::fs::read_to_string(Path::new(EXAMPLE).join("tools.yaml")).expect("tools.yaml");
    let samples = codegen::samples_json("tools.yaml", &manifest).expect("valid manifest");
    let mut runner = common::samples::Runner::default();
    let samples = samples.as_array().expect("samples");
    for sample in samples {
        runner.run(&client, sample).await;
    }
    // The manifest's own message, naming the next call.
    let gone = common::call(&client, "bookmarks_remove", json!({"id": 7})).await;
    assert_eq!(common::text(&gone), "NOT_FOUND: No bookmark 7. Call bookmarks_find to see the saved ids.");
    // A built-in template's default message (the manifest declares none).
    let bad = common::call(&client, "bookmarks_find", json!({"limit": 0})).await;
    assert!(common::is_error(&bad) && common::text(&bad).contains("`limit` is 0"), "{}", common::text(&bad));
    client.cancel().await.expect("stop");
    // The runtime ran every call past the example's observer (src/log.rs), errors included.
    let logged = std::fs::read_to_string(logs.path()).expect("stderr");
    let lines: Vec<&str> = logged.lines().filter(|l| l.starts_with("bookmarks: bookmarks_")).collect();
    assert_eq!(lines.len(), samples.len() + 2, "one line per call:\n{logged}");
    assert!(lines.iter().any(|l| l.starts_with("bookmarks: bookmarks_remove NOT_FOUND in ")), "{logged}");
    assert!(lines.iter().any(|l| l.starts_with("bookmarks: bookmarks_find INVALID_ARGUMENT in ")), "{logged}");
}

#[tokio::test]
async fn the_example_serves_its_consolidated_profile_from_the_runtime() {
    assert_built(Path::new(EXAMPLE), false);
    let mut cmd = tokio::process::Command::new(target_dir(false).join("debug/bookmarks"));
    cmd.arg("--consolidated").stderr(std::process::Stdio::null());
    let client = ().serve(TokioChildProcess::new(cmd).expect("spawn bookmarks")).await.expect("initialize");
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["bookmarks"]);
    let instructions = client.peer_info().and_then(|i| i.instructions.clone()).unwrap_or_default();
    assert!(instructions.contains("bookmarks(action=add)"), "{instructions}");
    let added =
        common::call(&client, "bookmarks", json!({"action": "add", "url": "https://example.org/b", "title": "B"}))
            .await;
    assert!(!common::is_error(&added), "{}", common::text(&added));
    let found = common::call(&client, "bookmarks", json!({"action": "find"})).await;
    assert!(common::text(&found).contains("https://example.org/b"), "{}", common::text(&found));
    // The handler's message, its tool names in the profile's form.
    let gone = common::call(&client, "bookmarks", json!({"action": "remove", "id": 7})).await;
    assert_eq!(common::text(&gone), "NOT_FOUND: No bookmark 7. Call bookmarks(action=find) to see the saved ids.");
    // What the runtime's resolve refuses, in the manifest's built-in messages.
    for (args, says) in [
        (json!({"url": "https://example.org/c"}), "action"),
        (json!({"action": "tag"}), "tag"),
        (json!({"action": "find", "id": 3}), "id"),
    ] {
        let r = common::call(&client, "bookmarks", args.clone()).await;
        assert!(common::is_error(&r) && common::text(&r).contains(says), "{args}: {}", common::text(&r));
    }
    client.cancel().await.expect("stop");
}

/// The example's tools for the stdio cases: the hostile strings go to bookmarks_find's tag.
const EXAMPLE_TARGETS: crate::abuse_stdio::Targets = crate::abuse_stdio::Targets {
    id_tool: "bookmarks_find",
    id_key: "tag",
    deep_tool: "bookmarks_find",
    deep_arguments: r#"{"word":"w","tag":@DEEP@}"#,
    big_tool: "bookmarks_find",
    big_key: "word",
};

/// The stdio abuse cases of tests/hostile/abuse_stdio.rs, sent to the example: it stays up through
/// each, and the lines rmcp cannot read get the answers the toolkit's stdio transport gives
/// (docket's).
#[test]
fn the_example_survives_the_malformed_lines_docket_survives() {
    use crate::abuse_stdio::{check_replies, feed, malformed_lines, reply_to};
    assert_built(Path::new(EXAMPLE), false);
    let mut server = common::RawServer::spawn_command(Command::new(target_dir(false).join("debug/bookmarks")));
    let init = server.initialize();
    assert_eq!(init["result"]["serverInfo"]["name"], "bookmarks", "{init}");
    let lines = malformed_lines(&EXAMPLE_TARGETS);
    let messages = feed(&mut server, &lines);
    check_replies(&messages);
    let code_of = |label: &str| {
        let reply = reply_to(&lines, &messages, label);
        reply.unwrap_or_else(|| panic!("{label}: no reply")).pointer("/error/code").and_then(|c| c.as_i64())
    };
    for (label, code) in [
        ("jsonrpc 1.0", -32600),
        ("no jsonrpc field", -32600),
        ("tools/call params a string", -32602),
        ("unknown method", -32601),
        ("tools/call unknown tool", -32602),
    ] {
        assert_eq!(code_of(label), Some(code), "{label}");
    }
    // Lines without a usable id are answered with id null.
    let null_id = |code: i64, says: &str| {
        messages.iter().any(|m| {
            m["id"].is_null()
                && m["error"]["code"] == code
                && m["error"]["message"].as_str().is_some_and(|text| text.contains(says))
        })
    };
    assert!(null_id(-32700, "Parse error"), "a line that is not JSON: {messages:?}");
    assert!(null_id(-32600, "longer than"), "the 17 MB line is skipped and said so");
    assert!(null_id(-32600, "batches"), "a batch is refused");
    assert!(server.close().success(), "clean exit on stdin EOF after the abuse");
}

/// The example with `--http 127.0.0.1:0`, killed on drop; `url` is its MCP endpoint.
struct HttpExample {
    child: std::process::Child,
    url: String,
}

impl HttpExample {
    fn start() -> HttpExample {
        let mut child = Command::new(target_dir(false).join("debug/bookmarks"))
            .args(["--http", "127.0.0.1:0"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn bookmarks --http");
        let mut stderr = std::io::BufReader::new(child.stderr.take().expect("stderr"));
        let mut line = String::new();
        std::io::BufRead::read_line(&mut stderr, &mut line).expect("the first line on stderr");
        let url =
            line.trim().strip_prefix("bookmarks: serving MCP at ").unwrap_or_else(|| panic!("{line}")).to_string();
        // Keep reading stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
        HttpExample { child, url }
    }
}

impl Drop for HttpExample {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn the_example_serves_streamable_http_and_its_sessions_share_the_bookmarks() {
    assert_built(Path::new(EXAMPLE), false);
    let server = HttpExample::start();
    let session =
        || async { ().serve(StreamableHttpClientTransport::from_uri(server.url.as_str())).await.expect("initialize") };
    let (writer, reader) = (session().await, session().await);
    assert_eq!(writer.list_all_tools().await.expect("tools/list").len(), 3);
    let added = common::call(&writer, "bookmarks_add", json!({"url": "https://example.org/a", "title": "A"})).await;
    assert!(!common::is_error(&added), "{}", common::text(&added));
    let found = common::call(&reader, "bookmarks_find", json!({})).await;
    assert!(
        common::text(&found).contains("https://example.org/a"),
        "the other session sees it: {}",
        common::text(&found)
    );
    let again = common::call(&reader, "bookmarks_add", json!({"url": "https://example.org/a", "title": "A"})).await;
    assert!(common::is_error(&again), "{}", common::text(&again));
    // A Host that is not loopback is refused (rmcp's guard against DNS rebinding).
    let refused = common::http::post(&server.url)
        .header("host", "attacker.example")
        .json(&common::http::initialize_body())
        .send()
        .await
        .expect("POST");
    assert!(refused.status().is_client_error(), "{}", refused.status());
    writer.cancel().await.expect("stop");
    reader.cancel().await.expect("stop");
}

/// Copies the example folder (without build output) to `to`, its path dependencies pointing back.
fn copy_outside(to: &Path) {
    for file in ["Cargo.toml", "Cargo.lock", "build.rs", "tools.yaml", "src/main.rs", "src/handlers.rs", "src/log.rs"] {
        let text = std::fs::read_to_string(Path::new(EXAMPLE).join(file)).expect("example file");
        let root = env!("CARGO_MANIFEST_DIR");
        // `../../runtime` is the toolkit's runtime, `../../../codegen` the generator.
        let text =
            text.replace("\"../../../", &format!("\"{root}/")).replace("\"../../", &format!("\"{root}/toolkit/"));
        std::fs::create_dir_all(to.join(file).parent().expect("parent")).expect("mkdir");
        std::fs::write(to.join(file), text).expect("write copy");
    }
}

#[test]
fn a_copy_outside_the_repository_builds_and_a_tool_without_a_handler_fails_naming_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let copy = dir.path().join("bookmarks");
    copy_outside(&copy);
    assert!(std::fs::read_to_string(copy.join("Cargo.toml")).expect("copied").contains(env!("CARGO_MANIFEST_DIR")));
    assert_built(&copy, true);

    let manifest = std::fs::read_to_string(copy.join("tools.yaml")).expect("tools.yaml");
    let added = format!(
        "{manifest}  - name: bookmarks_tag\n    group: bookmarks\n    description: Adds a tag.\n    \
         annotations: {{ read_only: false, destructive: false, idempotent: true, open_world: false }}\n    \
         samples: [{{ args: {{}} }}]\n"
    );
    std::fs::write(copy.join("tools.yaml"), added).expect("write manifest");
    let out = build(&copy, true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a tool without a handler must not build");
    assert!(stderr.contains("bookmarks_tag"), "the error names the tool:\n{stderr}");
}
