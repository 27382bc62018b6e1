//! Path attacks (see tests/common/abuse.rs): NUL bytes, control characters and traversal ids in
//! every string parameter of every served tool never reach a path outside the workspace, never
//! change the seeded issue, and leave every file parseable.

use crate::common;

use common::abuse::*;
use common::{snapshot, snapshot_diff, start, workspace};
use serde_json::{Value, json};

#[tokio::test]
async fn nul_control_characters_and_traversal_ids_never_reach_a_path() {
    let ws = workspace();
    let client = start(ws.path()).await;
    seeded(&client, ws.path()).await;
    let seed_path = ws.path().join(".docket/issues/ISS-000001-seed.md");
    let seed = std::fs::read(&seed_path).expect("the seeded issue");
    let tools = served_tools(&client).await;
    let mut a = Abuser::new(&client, ws.path());
    let id_keys = ["id", "issueId", "sessionId"];
    for tool in &tools {
        let tool_name = name(tool);
        let operations: Vec<Value> =
            tool["inputSchema"]["properties"]["operation"]["enum"].as_array().cloned().unwrap_or_default();
        for site in sites(&tool["inputSchema"]).into_iter().filter(|s| s.kind() == "string") {
            let param = site.display();
            let is_id = id_keys.contains(&site.key()) && !site.path.contains(&Seg::First);
            let mut values: Vec<String> =
                ["a\0b", "\0", "ISS-000001\0", "\u{1b}[31mred\u{1b}[0m", "\u{7f}\u{85}\u{2028}\u{feff}"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
            // Paths (session_start may name a spec file anywhere) vs ids, which must never resolve.
            let path_like = ["specFile", "workingDirectory"].contains(&site.key());
            let id_like = is_id || path_like || ["id", "ids", "issueIds"].contains(&site.key());
            if id_like {
                values.extend(TRAVERSAL_IDS.iter().map(|s| s.to_string()));
            }
            for value in values {
                // A tool with an operation is tried with each, so the id is actually used.
                let ops: Vec<Option<&Value>> = if operations.is_empty() || site.key() == "operation" {
                    vec![None]
                } else {
                    operations.iter().map(Some).collect()
                };
                for op in ops {
                    let mut args = arguments_with(tool, &site, Some(json!(value)));
                    if tool["inputSchema"]["properties"]["confirm"]["type"] == "boolean" {
                        // Past the confirmation, so the id itself is what gets checked.
                        args["confirm"] = json!(true);
                    }
                    if let Some(op) = op {
                        // Give the operation what it needs, so the id is what is tested.
                        args["operation"] = op.clone();
                        let props = &tool["inputSchema"]["properties"];
                        if props["labels"].is_object() && site.key() != "labels" {
                            args["labels"] = json!(["l"]);
                        }
                        if props["key"].is_object() && site.key() != "key" {
                            args["key"] = json!("k");
                        }
                    }
                    let label = format!("{param} = {value:?}{}", op.map(|o| format!(" ({o})")).unwrap_or_default());
                    let before = a.before.clone();
                    let outcome = a.call(tool_name, args, &label).await;
                    if id_like && !path_like {
                        // Accepted or not, an id that resolves to nothing changes nothing.
                        let after = snapshot(ws.path());
                        assert!(after == before, "{tool_name} [{label}]: {:?}", snapshot_diff(&before, &after));
                    }
                    match outcome {
                        Outcome::Rejected { code, text } => {
                            // CONFLICT: an earlier accepted call already created an issue titled "x".
                            let allowed: &[&str] = if is_id {
                                &["INVALID_ARGUMENT", "NOT_FOUND"]
                            } else {
                                &["INVALID_ARGUMENT", "NOT_FOUND", "CONFLICT"]
                            };
                            assert!(allowed.contains(&code.as_str()), "{tool_name} [{label}]: {code}: {text}");
                            assert!(text.len() <= MAX_ERROR_TEXT, "{tool_name} [{label}]: long error");
                            assert!(!text.contains("root:"), "{tool_name} [{label}] leaked a file: {text}");
                        }
                        Outcome::Accepted { text } => {
                            assert!(!text.contains("root:"), "{tool_name} [{label}] leaked a file: {text}");
                            assert!(!text.contains(CANARY), "{tool_name} [{label}] reached outside: {text}");
                            // An id that is used must never resolve to anything.
                            let id_used = is_id && (site.required || op.is_none_or(|o| o != "list"));
                            assert!(
                                !(id_used && value.contains(['/', '\\', '\0', '%'])),
                                "{tool_name} [{label}] accepted an unsafe id: {text}"
                            );
                        }
                        Outcome::Protocol(e) => panic!("{tool_name} [{label}]: protocol error {e}"),
                    }
                }
            }
        }
        a.assert_alive(tools.len()).await;
    }
    report("NUL and traversal", &a);
    // Whatever was accepted (NUL in a title, a filter that matches nothing) left parseable files.
    client.cancel().await.expect("close");
    assert_workspace_parses(ws.path());
    assert!(ws.path().join("outside/secret.md").is_file(), "the canary outside the workspace is untouched");
    assert_eq!(std::fs::read(&seed_path).expect("seed"), seed, "no id reached the seeded issue");
}
