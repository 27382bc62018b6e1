//! The generator's pinned output builds against this runtime: codegen/tests/golden/ok_full.tools.rs,
//! the Rust that codegen emits for its fullest fixture manifest (kept up to date by codegen's
//! golden tests), is compiled here with two stub handlers, and its dispatch runs. A golden that
//! does not build fails this test crate. It lives with the runtime, not with codegen, because
//! codegen is also docket's build-dependency: a dev-dependency of codegen on the whole runtime
//! turns the runtime's `rmcp` feature on for the build-dependency too, and rmcp, tokio and
//! their kin were compiled a second time, for the build script (docs/benchmarks.md).

mod handlers {
    use super::generated::*;
    use toolkit_runtime::{CallContext, Reply, ToolResult};

    pub struct Handlers;

    /// The server implements the generated trait for its own type.
    impl ToolHandlers for Handlers {
        async fn list_items(&self, input: ListItemsInput, _: CallContext) -> ToolResult<ListItemsOutput> {
            let names = input.tags.unwrap_or_default();
            Ok(Reply::new(ListItemsOutput { names }).with_text(format!("{:?}", input.color)))
        }

        async fn add_item(&self, input: AddItemInput, _: CallContext) -> ToolResult<AddItemOutput> {
            Ok(Reply::new(AddItemOutput { id: input.name }))
        }
    }
}

#[allow(dead_code, clippy::all)]
mod generated {
    include!("../../../codegen/tests/golden/ok_full.tools.rs");
}

use serde_json::json;
use toolkit_runtime::CallContext;

fn ctx(tool: &str) -> CallContext {
    CallContext { tool: tool.into(), request_id: "1".into() }
}

#[tokio::test]
async fn the_pinned_generated_code_dispatches_to_its_handlers() {
    let args = json!({"tags": ["a", "b"]}).as_object().cloned().expect("object");
    let out = generated::dispatch(&handlers::Handlers, "list_items", args, ctx("list_items")).await;
    let out = out.expect("list_items is declared").expect("valid arguments");
    assert_eq!(out.data, json!({"names": ["a", "b"]}));
    assert_eq!(out.text.as_deref(), Some("Red"), "the default color reached the handler");

    let missing = json!({}).as_object().cloned().expect("object");
    let refused = generated::dispatch(&handlers::Handlers, "add_item", missing, ctx("add_item")).await;
    assert!(refused.expect("add_item is declared").is_err(), "a missing required name is refused");
    assert!(generated::dispatch(&handlers::Handlers, "nope", Default::default(), ctx("nope")).await.is_none());
    assert_eq!(generated::TOOLS.len(), 2);
}
