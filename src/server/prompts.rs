//! Prompts: short, reusable starting points that steer an agent to the cheap calls.

use rmcp::ErrorData;
use rmcp::model::{GetPromptResult, Prompt, PromptArgument, PromptMessage, Role};
use serde_json::{Map, Value};

/// The prompts docket offers.
pub fn list() -> Vec<Prompt> {
    vec![
        Prompt::new(
            "next_issue",
            Some("Pick the next issue to work on: open and in-progress work, highest priority first."),
            Some(vec![
                PromptArgument::new("project").with_description("Only issues of this project.").with_required(false),
            ]),
        )
        .with_title("Pick the next issue"),
        Prompt::new(
            "close_out",
            Some("Finish an issue: check its acceptance criteria, then close it with a note."),
            Some(vec![PromptArgument::new("id").with_description("The issue, e.g. ISS-000042.").with_required(true)]),
        )
        .with_title("Close out an issue"),
    ]
}

/// The messages of prompt `name` with `args`.
pub fn get(name: &str, args: &Map<String, Value>) -> Result<GetPromptResult, ErrorData> {
    let arg = |key: &str| args.get(key).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
    let text = match name {
        "next_issue" => {
            let scope = arg("project").map(|p| format!(", project \"{p}\"")).unwrap_or_default();
            let args = arg("project").map(|p| format!(" and project \"{p}\"")).unwrap_or_default();
            format!(
                "Take the next issue to work on{scope}. Call issues_claim with your name as assignee and no id{args}: \
                 it claims the first issue issues_ready lists, one nobody else holds (other agents calling it at once \
                 get other issues); if it says nothing is ready, stop. Read the claimed issue with issues_get, do the \
                 work, then close it with issues_update status \"closed\". If you stop before it is done, hand it \
                 back with issues_claim with its id and release: true. Your claim lasts while your session does."
            )
        }
        "close_out" => {
            let id = arg("id").ok_or_else(|| {
                ErrorData::invalid_params("Prompt close_out needs the argument `id` (e.g. ISS-000042).", None)
            })?;
            format!(
                "Close out {id}. Call issues_get with id \"{id}\" and read its acceptance criteria; verify each one \
                 (run the tests it names). When all hold, call issues_mark_complete with id \"{id}\" and a note that \
                 states what you verified; otherwise list what is missing and leave it in_progress."
            )
        }
        _ => {
            return Err(ErrorData::invalid_params(
                format!("Unknown prompt '{name}'. Call prompts/list to see the prompts: next_issue, close_out."),
                None,
            ));
        }
    };
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
        .with_description(list().into_iter().find(|p| p.name == name).and_then(|p| p.description).unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prompts_fill_in_their_arguments_and_refuse_what_is_missing() {
        let args = json!({"id": "ISS-000007"});
        let got = get("close_out", args.as_object().unwrap()).unwrap();
        let text = serde_json::to_string(&got).unwrap();
        assert!(text.contains("issues_mark_complete with id \\\"ISS-000007\\\""), "{text}");
        let e = get("close_out", &Map::new()).unwrap_err();
        assert!(e.message.contains("needs the argument `id`"), "{}", e.message);
        assert!(get("nope", &Map::new()).unwrap_err().message.contains("prompts/list"));
        assert_eq!(list().len(), 2);
    }
}
