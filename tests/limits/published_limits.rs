//! Every limit the server enforces is in the published schema (issue 40), in both tool profiles:
//! for every bound of every tool's argument rules (string lengths, emptiness, numeric ranges,
//! item counts, at any depth), an argument one step past it is refused by the server
//! (INVALID_ARGUMENT) and by the published inputSchema too (JSON Schema 2020-12, the jsonschema
//! crate), so a client that validates before calling is told what the server would say. The only
//! bounds a schema may leave out are those of parameters it does not publish, or publishes only by
//! name (docs/compatibility.md); the test lists them and fails on any other.

use crate::common;

use common::{Client, call, required_only, smallest_valid, start_with_env, text, workspace};
use docket::generated::{TOOLS, consolidated::GROUPS, input_rules};
use docket::runtime::args::{Kind, ParamRule};
use serde_json::{Map, Value, json};

/// Bounds the server checks that a profile's schema cannot say; an entry covers the parameter and
/// everything inside it (`x` covers `x[0]` and `x.y`). They are those of parameters it does not
/// publish (deprecated or `publish: none` in both profiles, `publish: granular` ones in the
/// consolidated profile); the properties of objects published by name only (`publish: shallow`,
/// and every nested object in the consolidated profile), which their description names; and in the
/// consolidated profile a bound only some of the actions sharing a property have (the merged
/// property keeps the loosest: `claim` refuses an empty assignee, `update` takes `""` to clear it;
/// `create` caps labels, assignee and project, which the list filters read uncapped).
const UNPUBLISHED: &[(&str, &str)] = &[
    ("granular", "issues_list offset"),
    ("granular", "issues_search filters.limit"),
    ("granular", "issues_search filters.offset"),
    ("granular", "issues_create wranglerContext"),
    ("granular", "issues_update wranglerContext"),
    ("granular", "session_checkpoint stepResults[0]"),
    ("granular", "session_complete stepExecutionSummary"),
    ("consolidated", "issues_list offset"),
    ("consolidated", "issues_search filters.limit"),
    ("consolidated", "issues_search filters.offset"),
    ("consolidated", "issues_get depth"),
    ("consolidated", "issues_get offset"),
    ("consolidated", "issues_create wranglerContext"),
    ("consolidated", "issues_update wranglerContext"),
    ("consolidated", "issues_update_batch updates[0]"),
    ("consolidated", "session_start workflow"),
    ("consolidated", "session_start skipStepNames"),
    ("consolidated", "session_checkpoint stepResults[0]"),
    ("consolidated", "session_complete stepExecutionSummary"),
];

/// Whether the entry `listed` covers `param`: the same parameter, or one inside it.
fn covers(listed: &str, param: &str) -> bool {
    param.strip_prefix(listed).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

/// One step of a path into the arguments.
#[derive(Debug, Clone)]
enum Step {
    Key(&'static str),
    Item,
}

/// An argument one step past a bound of the rules: where it goes, and the value.
#[derive(Debug)]
struct Breach {
    path: Vec<Step>,
    value: Value,
    bound: String,
}

impl Breach {
    fn param(&self) -> String {
        let mut out = String::new();
        for step in &self.path {
            match step {
                Step::Key(k) if out.is_empty() => out.push_str(k),
                Step::Key(k) => out.push_str(&format!(".{k}")),
                Step::Item => out.push_str("[0]"),
            }
        }
        out
    }
}

/// Every bound of `kind` at `path`, broken by one (one character, one unit, one item).
fn breaches(kind: &Kind, path: &[Step], out: &mut Vec<Breach>) {
    let mut push = |value: Value, bound: String| out.push(Breach { path: path.to_vec(), value, bound });
    match kind {
        Kind::String { min_len, max_len } => {
            if let Some(min) = min_len.filter(|m| *m > 0) {
                push(json!("x".repeat(min as usize - 1)), format!("minLength {min}"));
            }
            if let Some(max) = max_len {
                push(json!("x".repeat(*max as usize + 1)), format!("maxLength {max}"));
            }
        }
        Kind::Integer { min, max } => {
            if let Some(min) = min {
                push(json!(min - 1), format!("minimum {min}"));
            }
            if let Some(max) = max {
                push(json!(max + 1), format!("maximum {max}"));
            }
        }
        Kind::Number { min, max } => {
            if let Some(min) = min {
                push(json!(min - 1.0), format!("minimum {min}"));
            }
            if let Some(max) = max {
                push(json!(max + 1.0), format!("maximum {max}"));
            }
        }
        Kind::Array { items, min_items, max_items } => {
            if let Some(min) = min_items.filter(|m| *m > 0) {
                push(json!(vec![smallest_valid(items); min as usize - 1]), format!("minItems {min}"));
            }
            if let Some(max) = max_items {
                push(json!(vec![smallest_valid(items); *max as usize + 1]), format!("maxItems {max}"));
            }
            let mut inner = path.to_vec();
            inner.push(Step::Item);
            breaches(items, &inner, out);
        }
        Kind::Object { fields, .. } => rule_breaches(fields, path, out),
        Kind::Enum(_) | Kind::Boolean | Kind::Any | Kind::Map => {}
    }
}

fn rule_breaches(rules: &'static [ParamRule], path: &[Step], out: &mut Vec<Breach>) {
    for rule in rules {
        let mut p = path.to_vec();
        p.push(Step::Key(rule.name));
        breaches(&rule.kind, &p, out);
    }
}

/// The tool's smallest valid arguments with the breach put in place (parents created valid).
fn arguments(rules: &'static [ParamRule], breach: &Breach) -> Value {
    fn place(node: &mut Value, kind: &Kind, path: &[Step], value: &Value) {
        let Some((step, rest)) = path.split_first() else {
            *node = value.clone();
            return;
        };
        match (step, kind) {
            (Step::Key(k), Kind::Object { fields, .. }) => {
                let rule = fields.iter().find(|r| r.name == *k).expect("a declared property");
                let slot =
                    node.as_object_mut().expect("an object").entry(k.to_string()).or_insert(smallest_valid(&rule.kind));
                place(slot, &rule.kind, rest, value);
            }
            (Step::Item, Kind::Array { items, .. }) => {
                let list = node.as_array_mut().expect("an array");
                if list.is_empty() {
                    list.push(smallest_valid(items));
                }
                place(&mut list[0], items, rest, value);
            }
            _ => panic!("path {path:?} does not fit {kind:?}"),
        }
    }
    let root = Kind::Object { fields: rules, additional: false };
    let mut args = required_only(rules);
    place(&mut args, &root, &breach.path, &breach.value);
    args
}

async fn published(style: &str) -> (tempfile::TempDir, Client, Vec<Value>) {
    let ws = workspace();
    let client = start_with_env(ws.path(), &[("DOCKET_TOOL_STYLE", style)]).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    (ws, client, tools.iter().map(|t| serde_json::to_value(t).expect("tool")).collect())
}

/// The consolidated tool and action of a granular tool.
fn group_of(tool: &str) -> (&'static str, &'static str) {
    GROUPS
        .iter()
        .find_map(|g| g.actions.iter().find(|a| a.tool == tool).map(|a| (g.tool, a.name)))
        .unwrap_or_else(|| panic!("{tool} is an action of a consolidated tool"))
}

/// Whether another action of `tool`'s consolidated tool takes the same parameter without this
/// bound: the merged property keeps the loosest, so the consolidated schema cannot say it (a
/// new tool's bounds are covered without a line in [`UNPUBLISHED`]).
fn looser_elsewhere(tool: &str, breach: &Breach) -> bool {
    let group = GROUPS.iter().find(|g| g.actions.iter().any(|a| a.tool == tool)).expect("an action");
    let Some(Step::Key(top)) = breach.path.first() else { return false };
    group.actions.iter().filter(|a| a.tool != tool).any(|a| {
        let rules = input_rules(a.tool).expect("rules");
        let mut theirs = Vec::new();
        rule_breaches(rules, &[], &mut theirs);
        rules.iter().any(|r| r.name == *top)
            && !theirs.iter().any(|b| b.param() == breach.param() && b.bound == breach.bound)
    })
}

/// A granular call in the form the consolidated tool publishes: `action` added, a lone value
/// given as a one-item list where the merged property is a list.
fn as_consolidated(schema: &Value, action: &str, args: Value) -> Value {
    let mut map: Map<String, Value> = args.as_object().cloned().expect("object");
    for (key, v) in map.iter_mut() {
        if schema["properties"][key]["type"] == "array" && !v.is_array() {
            *v = json!([v.take()]);
        }
    }
    map.insert("action".into(), json!(action));
    Value::Object(map)
}

#[tokio::test]
async fn every_bound_the_server_enforces_is_published_in_both_profiles() {
    let mut unpublished = Vec::new();
    let mut checked = 0;
    for style in ["granular", "consolidated"] {
        let (_ws, client, tools) = published(style).await;
        for tool in TOOLS {
            let rules = input_rules(tool.name).expect("rules");
            let mut found = Vec::new();
            rule_breaches(rules, &[], &mut found);
            let (name, schema_tool) = match style {
                "granular" => (tool.name, tool.name),
                _ => (group_of(tool.name).0, group_of(tool.name).0),
            };
            let schema = &tools.iter().find(|t| t["name"] == schema_tool).expect("published")["inputSchema"];
            let validator = jsonschema::validator_for(schema).expect("the schema compiles");
            for breach in &found {
                let mut args = arguments(rules, breach);
                if style == "consolidated" {
                    args = as_consolidated(schema, group_of(tool.name).1, args);
                }
                let label = format!("{style} {} {} ({})", tool.name, breach.param(), breach.bound);
                let answer = text(&call(&client, name, args.clone()).await);
                assert!(answer.starts_with("INVALID_ARGUMENT"), "{label}: the server took it: {answer}");
                checked += 1;
                if validator.is_valid(&args) {
                    let merged = style == "consolidated" && looser_elsewhere(tool.name, breach);
                    unpublished.push((
                        style,
                        format!("{} {}", tool.name, breach.param()),
                        breach.bound.clone(),
                        merged,
                    ));
                }
            }
        }
        client.cancel().await.expect("close");
    }
    println!("{checked} arguments past a bound, each refused by the server");
    let stray: Vec<String> = unpublished
        .iter()
        .filter(|(style, param, _, merged)| !merged && !UNPUBLISHED.iter().any(|(s, p)| s == style && covers(p, param)))
        .map(|(style, param, bound, _)| format!("{style} {param}: {bound}"))
        .collect();
    assert!(stray.is_empty(), "bounds the server enforces that the published schema does not:\n{}", stray.join("\n"));
    for (style, param) in UNPUBLISHED {
        let listed: Vec<bool> = unpublished
            .iter()
            .filter(|(s, p, _, _)| s == style && covers(param, p))
            .map(|(.., merged)| *merged)
            .collect();
        assert!(
            !listed.is_empty(),
            "{style} {param} is listed as unpublished but its bounds are published (or gone): drop it from the list"
        );
        assert!(
            listed.contains(&false),
            "{style} {param} is listed as unpublished but another action's looser bound already explains it: drop it from the list"
        );
    }
}

/// The walk finds the bounds it should: a breach of each kind, placed under its parents.
#[test]
fn the_walk_breaks_every_kind_of_bound() {
    let rules = input_rules("issues_create").expect("rules");
    let mut found = Vec::new();
    rule_breaches(rules, &[], &mut found);
    let title: Vec<&str> = found.iter().filter(|b| b.param() == "title").map(|b| b.bound.as_str()).collect();
    assert_eq!(title, ["minLength 1", "maxLength 200"]);
    let rules = input_rules("issues_update_batch").expect("rules");
    let mut found = Vec::new();
    rule_breaches(rules, &[], &mut found);
    let counts: Vec<&str> = found.iter().filter(|b| b.param() == "updates").map(|b| b.bound.as_str()).collect();
    assert_eq!(counts, ["minItems 1", "maxItems 50"]);
    let empty = found.iter().find(|b| b.bound == "minItems 1").expect("a minItems breach");
    assert_eq!(arguments(rules, empty), json!({"updates": []}));
}
