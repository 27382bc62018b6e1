//! The toolkit's server with every extension point a second server needs, over its guarded
//! stdio transport (an in-memory pipe): an inner handler answering resources, an argument hook
//! before dispatch, a look at each result, `_meta` extras from the observer, and the transport's
//! answer to a line that is not JSON.

use std::future::Future;

use rmcp::model::{ListResourcesResult, PaginatedRequestParams, Resource, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolkit_runtime::call::CallObserver;
use toolkit_runtime::server::{Inner, Server, ToolSet, stdio::LineTransport};
use toolkit_runtime::{CallContext, Reply, ToolResult, ToolSpec, Warning, WarningCode};

const ECHO: ToolSpec = ToolSpec {
    name: "echo_say",
    title: "Say",
    description: "Says the text back.",
    group: "echo",
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
    deprecated_by: None,
    input_schema: r#"{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}"#,
    output_schema: "",
    error_context: &[],
    writes_when: None,
};

struct Echo;

impl ToolSet for Echo {
    const NAME: &'static str = "echo";
    const TITLE: &'static str = "Echo";
    const INSTRUCTIONS: &'static str = "Call echo_say.";

    fn tools() -> &'static [ToolSpec] {
        &[ECHO]
    }

    fn call(
        &self,
        name: &str,
        args: Map<String, Value>,
        _ctx: CallContext,
    ) -> impl Future<Output = Option<ToolResult<Value>>> + Send {
        let said = (name == "echo_say").then(|| Ok(Reply::new(json!({"said": args.get("text").cloned()}))));
        std::future::ready(said)
    }
}

/// Serves one resource, takes `message` for `text`, and adds a warning to every answer.
struct Notes;

impl ServerHandler for Notes {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_resources().build())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![Resource::new("notes://one", "one")]))
    }
}

impl Inner for Notes {
    fn adapt(&self, _spec: &'static ToolSpec, args: &mut Map<String, Value>) -> Vec<Warning> {
        match args.remove("message") {
            Some(text) => {
                args.insert("text".into(), text);
                vec![Warning::new(WarningCode::new("ADAPTED"), "message is text here")]
            }
            None => Vec::new(),
        }
    }

    async fn answered(&self, tool: &str, result: &mut ToolResult<Value>, _context: &RequestContext<RoleServer>) {
        if let Ok(reply) = result {
            reply.warnings.push(Warning::new(WarningCode::new("SEEN"), format!("{tool} answered")));
        }
    }
}

/// Adds `served_by` to every answer's `_meta`.
struct Stamp;

impl CallObserver for Stamp {
    type Pending = ();

    async fn before(&self, _: &'static ToolSpec, _: &Map<String, Value>) -> ((), Vec<Warning>) {
        ((), Vec::new())
    }

    async fn after(&self, _: &'static ToolSpec, _: (), _: &ToolResult<Value>) -> Vec<Warning> {
        Vec::new()
    }

    fn meta(&self) -> Map<String, Value> {
        Map::from_iter([("served_by".to_string(), json!("stamp"))])
    }
}

#[tokio::test]
async fn the_inner_handler_the_hooks_and_the_transport_each_answer_their_part() {
    let (client, server_side) = tokio::io::duplex(1 << 20);
    let (read, write) = tokio::io::split(server_side);
    let server = Server::new(Echo, "1.2.3").with_observer(Stamp).with_inner(Notes);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(LineTransport::new(read, write)).await {
            let _ = running.waiting().await;
        }
    });
    let (read, write) = tokio::io::split(client);
    let mut pipe = Pipe { lines: BufReader::new(read).lines(), write };
    let init = pipe
        .ask(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}))
        .await;
    let result = &init["result"];
    assert_eq!(result["serverInfo"]["name"], "echo", "{init}");
    assert_eq!(result["instructions"], "Call echo_say.", "{init}");
    assert!(result["capabilities"]["tools"].is_object() && result["capabilities"]["resources"].is_object(), "{init}");
    pipe.send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}").await;

    let listed = pipe.ask(json!({"jsonrpc": "2.0", "id": 2, "method": "resources/list"})).await;
    assert_eq!(listed["result"]["resources"][0]["uri"], "notes://one", "the inner handler answers: {listed}");

    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "echo_say", "arguments": {"message": "hi"}}});
    let said = pipe.ask(call).await;
    let result = &said["result"];
    assert_eq!(result["structuredContent"]["said"], "hi", "adapted before dispatch: {said}");
    let codes: Vec<&str> = result["_meta"]["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .map(|w| w["code"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(codes, ["ADAPTED", "SEEN"], "{said}");
    assert_eq!(result["_meta"]["served_by"], "stamp", "the observer's _meta: {said}");
    assert_eq!(result["_meta"]["tool_version"], "1.2.3");

    let refused = pipe.ask(json!("not a message")).await;
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    pipe.send(b"this is not json").await;
    let parse = pipe.read().await;
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    assert!(parse["id"].is_null(), "{parse}");
}

/// The client's end of the pipe.
struct Pipe<R, W> {
    lines: tokio::io::Lines<BufReader<R>>,
    write: W,
}

impl<R: tokio::io::AsyncRead + Unpin, W: tokio::io::AsyncWrite + Unpin> Pipe<R, W> {
    async fn send(&mut self, line: &[u8]) {
        self.write.write_all(&[line, b"\n"].concat()).await.expect("write");
    }

    async fn read(&mut self) -> Value {
        let answer = self.lines.next_line().await.expect("read").expect("a line");
        serde_json::from_str(&answer).expect("JSON-RPC")
    }

    /// Sends `message` and reads the next line.
    async fn ask(&mut self, message: Value) -> Value {
        self.send(message.to_string().as_bytes()).await;
        self.read().await
    }
}
