//! Protocol abuse on the raw stdio pipe: lines no client should send (not JSON, invalid UTF-8,
//! wrong JSON-RPC shapes, unknown methods, hostile ids, 100k-deep nesting, a 17 MB line), each
//! followed by a ping that must be answered; every reply is short and well formed, the server exits
//! cleanly on EOF and the workspace is unchanged.

use crate::common;

use common::abuse::{MAX_ERROR_TEXT, MEGABYTE, abbreviate};
use common::{RawServer, snapshot, snapshot_diff, workspace};
use serde_json::{Value, json};
use std::time::Duration;

/// The tools a server's stdio cases call: the case list is the same for every stdio MCP server
/// (docket's, the toolkit example's), only the tool names and arguments differ.
pub(crate) struct Targets {
    /// A tool taking an object with one string parameter (`id_key`): the hostile strings go there.
    pub id_tool: &'static str,
    pub id_key: &'static str,
    /// A tool and its arguments as JSON text with `@DEEP@` where a 10k-deep object goes.
    pub deep_tool: &'static str,
    pub deep_arguments: &'static str,
    /// A tool and a string parameter that receives the 17 MB value.
    pub big_tool: &'static str,
    pub big_key: &'static str,
}

/// docket's targets.
pub(crate) const DOCKET: Targets = Targets {
    id_tool: "issues_get",
    id_key: "id",
    deep_tool: "session_phase",
    deep_arguments: r#"{"sessionId":"s","phase":"p","status":"started","metadata":@DEEP@}"#,
    big_tool: "issues_search",
    big_key: "query",
};

/// Lines no client should send, each with `@ID@` standing for its own request id. Each is
/// followed by a ping that must be answered (see `feed`).
pub(crate) fn malformed_lines(t: &Targets) -> Vec<(&'static str, Vec<u8>)> {
    let tools_call = |tool: &str| {
        format!(r#"{{"jsonrpc":"2.0","id":@ID@,"method":"tools/call","params":{{"name":"{tool}","arguments":"#)
    };
    let call = |args: &[u8]| [tools_call(t.id_tool).as_bytes(), args, b"}}"].concat();
    // `{"id":<value>}` with the server's id parameter.
    let key = |value: &[u8]| [format!(r#"{{"{}":"#, t.id_key).as_bytes(), value, b"}"].concat();
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n)).into_bytes();
    let deep_args = |n: usize| {
        let nested = format!("{}1{}", r#"{"a":"#.repeat(n), "}".repeat(n));
        format!("{}{}}}}}", tools_call(t.deep_tool), t.deep_arguments.replace("@DEEP@", &nested)).into_bytes()
    };
    let mut oversize = format!(r#"{}{{"{}":""#, tools_call(t.big_tool), t.big_key).into_bytes();
    oversize.extend(std::iter::repeat_n(b'q', 17 * MEGABYTE));
    oversize.extend(br#""}}}"#);
    let mut megabyte_id = br#"{"jsonrpc":"2.0","id":"#.to_vec();
    megabyte_id.push(b'"');
    megabyte_id.extend(std::iter::repeat_n(b'i', MEGABYTE));
    megabyte_id.extend(br#"","method":"ping"}"#);
    let line = |s: &str| s.as_bytes().to_vec();
    vec![
        ("not json", line("this is not json")),
        ("truncated json", line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"tools/list"  this is not json"#)),
        ("empty line", line("")),
        ("whitespace", line("   \t  ")),
        ("carriage return", line("\r")),
        ("invalid utf-8 bytes", b"\xff\xfe\xfd garbage \xc3\x28".to_vec()),
        ("invalid utf-8 in a string", call(&key(b"\"\xff\xfe\""))),
        ("raw NUL byte in a string", call(&key(b"\"a\x00b\""))),
        ("lone surrogate", call(&key(br#""\ud800""#))),
        ("reversed surrogates", call(&key(br#""\udc00\ud800""#))),
        ("escaped NUL id", call(&key(br#""ISS-000001\u0000""#))),
        ("traversal id", call(&key(br#""../../etc/passwd""#))),
        ("arguments is an array", call(b"[1,2,3]")),
        ("arguments is a string", call(br#""id""#)),
        ("null", line("null")),
        ("number", line("42")),
        ("string", line(r#""ping""#)),
        ("empty object", line("{}")),
        ("empty array", line("[]")),
        ("batch array", line(r#"[{"jsonrpc":"2.0","id":@ID@,"method":"ping"}]"#)),
        ("no jsonrpc field", line(r#"{"id":@ID@,"method":"ping"}"#)),
        ("jsonrpc 1.0", line(r#"{"jsonrpc":"1.0","id":@ID@,"method":"ping"}"#)),
        ("object id", line(r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#)),
        ("float id", line(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#)),
        ("null id", line(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#)),
        ("1 MB string id", megabyte_id),
        ("unknown method", line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"tools/frobnicate","params":{}}"#)),
        ("unknown method, no params", line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"frobnicate"}"#)),
        ("method is a number", line(r#"{"jsonrpc":"2.0","id":@ID@,"method":42}"#)),
        ("unknown notification", line(r#"{"jsonrpc":"2.0","method":"notifications/frobnicated"}"#)),
        ("non-MCP notification", line(r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{}}"#)),
        (
            "cancel of an unknown request",
            line(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9999}}"#),
        ),
        ("response nobody asked for", line(r#"{"jsonrpc":"2.0","id":9998,"result":{}}"#)),
        ("tools/call params a string", line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"tools/call","params":"x"}"#)),
        ("tools/call without params", line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"tools/call"}"#)),
        ("tools/call without name", line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"tools/call","params":{}}"#)),
        ("tools/call name a number", line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"tools/call","params":{"name":42}}"#)),
        (
            "tools/call unknown tool",
            line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#),
        ),
        (
            "resources/read traversal",
            line(
                r#"{"jsonrpc":"2.0","id":@ID@,"method":"resources/read","params":{"uri":"docket://issues/../../etc/passwd"}}"#,
            ),
        ),
        (
            "resources/read file uri",
            line(r#"{"jsonrpc":"2.0","id":@ID@,"method":"resources/read","params":{"uri":"file:///etc/passwd"}}"#),
        ),
        (
            "second initialize",
            line(
                r#"{"jsonrpc":"2.0","id":@ID@,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"again","version":"0"}}}"#,
            ),
        ),
        (
            "BOM before a request",
            [b"\xef\xbb\xbf".as_slice(), br#"{"jsonrpc":"2.0","id":@ID@,"method":"ping"}"#].concat(),
        ),
        ("100k-deep array", deep(100_000)),
        ("10k-deep arguments", deep_args(10_000)),
        ("17 MB line", oversize),
    ]
}

/// `line` with its first `@ID@` replaced by `id`.
pub(crate) fn with_id(line: &[u8], id: i64) -> Vec<u8> {
    const MARK: &[u8] = b"@ID@";
    match line.windows(MARK.len()).position(|w| w == MARK) {
        Some(at) => [&line[..at], id.to_string().as_bytes(), &line[at + MARK.len()..]].concat(),
        None => line.to_vec(),
    }
}

/// Sends each line (its `@ID@` replaced by `FIRST_ID` + its index), then a ping that must be
/// answered within 30 s; returns every message the server sent on the way, pongs left out.
pub(crate) fn feed(server: &mut RawServer, lines: &[(&'static str, Vec<u8>)]) -> Vec<Value> {
    let mut messages: Vec<Value> = Vec::new();
    for (i, (label, line)) in lines.iter().enumerate() {
        let id = FIRST_ID + i as i64;
        assert!(server.send_bytes(&with_id(line, id)), "{label}: the server closed its stdin");
        let ping_id = json!(10_000 + i);
        assert!(server.send(&json!({"jsonrpc": "2.0", "id": ping_id, "method": "ping"})), "{label}: pipe closed");
        let mut seen = server
            .recv_until(&ping_id, Duration::from_secs(30))
            .unwrap_or_else(|| panic!("{label}: the server stopped answering (ping {ping_id} unanswered)"));
        let pong = seen.pop().expect("pong");
        assert_eq!(pong["result"], json!({}), "{label}: ping answered: {pong}");
        messages.extend(seen);
    }
    messages
}

/// The request id of the first line `feed` sends.
pub(crate) const FIRST_ID: i64 = 500;

/// Every reply is JSON-RPC 2.0 and short (a response repeats its request's id, however long), and
/// every error has a code and a message.
pub(crate) fn check_replies(messages: &[Value]) {
    for msg in messages {
        assert_eq!(msg["jsonrpc"], "2.0", "{msg}");
        // A response repeats its request's id, however long; everything else stays short.
        let mut without_id = msg.clone();
        without_id.as_object_mut().map(|o| o.remove("id"));
        assert!(
            without_id.to_string().len() <= MAX_ERROR_TEXT,
            "a {} byte reply: {}",
            msg.to_string().len(),
            abbreviate(msg)
        );
        if let Some(err) = msg.get("error") {
            assert!(err["code"].is_i64(), "an error has a code: {msg}");
            assert!(err["message"].as_str().is_some_and(|m| !m.is_empty()), "an error has a message: {msg}");
        }
    }
}

/// The answer to the line labelled `label`, if it carried an id and got one.
pub(crate) fn reply_to<'m>(lines: &[(&'static str, Vec<u8>)], messages: &'m [Value], label: &str) -> Option<&'m Value> {
    let i = lines.iter().position(|(l, _)| *l == label).expect("known label");
    messages.iter().find(|m| m["id"] == json!(FIRST_ID + i as i64))
}

#[test]
fn malformed_lines_invalid_utf8_and_unknown_methods_keep_the_server_up() {
    let ws = workspace();
    let seed = "---\nid: ISS-000001\ntitle: Seed\n---\nbody\n";
    std::fs::write(ws.path().join(".docket/issues/ISS-000001-seed.md"), seed).expect("seed");
    let before = snapshot(ws.path());
    let mut server = RawServer::spawn(ws.path());
    let init = server.initialize();
    assert_eq!(init["result"]["serverInfo"]["name"], "docket");
    let tools = server.request(1, "tools/list", json!({}));
    let tool_count = tools["result"]["tools"].as_array().map(Vec::len).expect("tools");
    let lines = malformed_lines(&DOCKET);
    let messages = feed(&mut server, &lines);
    let tools = server.request(2, "tools/list", json!({}));
    assert_eq!(tools["result"]["tools"].as_array().map(Vec::len), Some(tool_count), "tools/list after the abuse");
    check_replies(&messages);
    let reply_to = |label: &str| reply_to(&lines, &messages, label);
    let tool_error_text = |label: &str| -> String {
        let msg = reply_to(label).unwrap_or_else(|| panic!("{label}: no reply"));
        assert_eq!(msg["result"]["isError"], true, "{label}: {msg}");
        msg["result"]["content"][0]["text"].as_str().unwrap_or_default().to_string()
    };
    assert!(tool_error_text("escaped NUL id").contains("Invalid issue ID"));
    assert!(tool_error_text("traversal id").contains("Invalid issue ID"));
    for label in ["unknown method", "unknown method, no params", "tools/call unknown tool"] {
        let msg = reply_to(label).unwrap_or_else(|| panic!("{label}: no reply"));
        let code = msg["error"]["code"].as_i64().unwrap_or(0);
        assert!([-32601, -32600, -32602].contains(&code), "{label}: method not found / invalid request: {msg}");
    }
    let unknown_tool = reply_to("tools/call unknown tool").expect("reply");
    assert!(unknown_tool["error"]["message"].as_str().unwrap_or("").contains("Unknown tool 'nope'"), "{unknown_tool}");
    for label in ["resources/read traversal", "resources/read file uri"] {
        let msg = reply_to(label).unwrap_or_else(|| panic!("{label}: no reply"));
        assert!(msg.get("error").is_some(), "{label}: must be an error: {msg}");
        assert!(!msg.to_string().contains("root:"), "{label}: leaked /etc/passwd");
    }
    let carried_id = |line: &[u8]| line.windows(4).any(|w| w == b"@ID@");
    let unanswered: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|(i, (_, line))| carried_id(line) && !messages.iter().any(|m| m["id"] == json!(FIRST_ID + *i as i64)))
        .map(|(_, (l, _))| *l)
        .collect();
    let null_id_errors = messages.iter().filter(|m| m["id"].is_null() && m.get("error").is_some()).count();
    eprintln!(
        "raw protocol: {} malformed lines, {} replies ({null_id_errors} Invalid Request errors with id null); \
         requests without a reply of their own (unparsable or not a request, dropped by rmcp): {unanswered:?}",
        lines.len(),
        messages.len()
    );
    let status = server.close();
    assert!(status.success(), "clean exit on stdin EOF after the abuse: {status}");
    let after = snapshot(ws.path());
    assert!(after == before, "malformed lines changed the workspace: {:?}", snapshot_diff(&before, &after));
}
