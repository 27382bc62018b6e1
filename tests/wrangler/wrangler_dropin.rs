//! Drop-in, whole (issue 47): what wrangler's own suite (bacchus-labs/wrangler at b02bd5f,
//! `mcp/__tests__/`, named on each test) asks of its server, asked of `docket serve` over stdio.

use crate::common;

use common::{Client, call, is_error, start, structured, text, workspace};
use serde_json::{Value, json};

/// The published inputSchema of every tool, by name.
async fn schemas(client: &Client) -> Vec<(String, Value)> {
    let tools = client.list_all_tools().await.expect("tools/list");
    tools.iter().map(|t| (t.name.to_string(), Value::Object((*t.input_schema).clone()))).collect()
}

fn schema<'a>(all: &'a [(String, Value)], tool: &str) -> &'a Value {
    &all.iter().find(|(n, _)| n == tool).unwrap_or_else(|| panic!("{tool} is published")).1
}

/// tools/workspace/init.test.ts "schema validation", tools/session/complete.test.ts "should
/// reject negative/zero PR number", and the parameters of search.ts and all-complete.ts: every
/// parameter and default wrangler publishes is in docket's schema, and the bounds it sets refuse
/// what wrangler's refuses.
#[tokio::test]
async fn every_parameter_and_default_wrangler_publishes_is_published() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let all = schemas(&client).await;
    let init = schema(&all, "init_workspace");
    assert_eq!(init["properties"]["fix"]["default"], json!(false), "empty params default to fix: false: {init}");
    for param in ["projectRoot", "pluginRoot"] {
        assert_eq!(init["properties"][param]["type"], "string", "init_workspace.{param}: {init}");
    }
    let valid = jsonschema::validator_for(init).expect("compiles");
    assert!(valid.is_valid(&json!({"projectRoot": "/some/path"})) && valid.is_valid(&json!({"pluginRoot": "/p"})));
    assert!(!valid.is_valid(&json!({"fix": "yes"})));

    let complete = schema(&all, "session_complete");
    let valid = jsonschema::validator_for(complete).expect("compiles");
    let args = |n: i64| json!({"sessionId": "s", "status": "completed", "prNumber": n});
    assert!(valid.is_valid(&args(1)), "{complete}");
    for n in [0, -1] {
        assert!(!valid.is_valid(&args(n)), "prNumber {n} is refused by the schema: {complete}");
    }

    let search = schema(&all, "issues_search");
    assert_eq!(search["properties"]["sortBy"]["enum"], json!(["created", "updated", "priority", "status"]));
    assert_eq!(search["properties"]["sortOrder"]["enum"], json!(["asc", "desc"]));
    let scope = schema(&all, "issues_all_complete");
    for param in ["issueIds", "parentTaskId", "labels", "project", "types"] {
        assert!(scope["properties"].get(param).is_some(), "issues_all_complete.{param}: {scope}");
    }
    let start = schema(&all, "session_start");
    for param in ["specFile", "workingDirectory", "workflow", "skipChecks", "skipStepNames"] {
        assert!(start["properties"].get(param).is_some(), "session_start.{param}: {start}");
    }
    client.cancel().await.expect("close");
}

/// tools/workspace/init.test.ts "initWorkspaceTool returns an error when projectRoot is a system
/// directory" and "resolvePluginRoot throws when given a system directory": refused, naming the
/// field, saying it is a system directory and what to call instead; nothing is written.
#[tokio::test]
async fn init_workspace_refuses_system_directories_as_wrangler_does() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let before = common::snapshot(ws.path());
    let up = format!("{}/../../../../../../../..", ws.path().display());
    for (param, path) in [
        ("projectRoot", "/etc"),
        ("projectRoot", "/usr/"),
        ("projectRoot", "/"),
        ("projectRoot", up.as_str()),
        ("pluginRoot", "/var"),
    ] {
        for fix in [false, true] {
            let r = call(&client, "init_workspace", json!({ param: path, "fix": fix })).await;
            let answer = text(&r);
            assert!(is_error(&r), "{param} {path}: {answer}");
            assert!(
                answer.starts_with(&format!("INVALID_ARGUMENT: {param} '{path}' is a system directory")),
                "{answer}"
            );
            assert!(answer.contains("Call init_workspace again"), "the next step: {answer}");
        }
    }
    assert_eq!(common::snapshot(ws.path()), before, "nothing written");
    let r = call(&client, "init_workspace", json!({"projectRoot": ws.path().display().to_string()})).await;
    assert!(!is_error(&r), "the served root itself is fine: {}", text(&r));
    client.cancel().await.expect("close");
}

/// tools/session/complete.test.ts "should reject negative/zero PR number": the server refuses
/// them too, naming the field and the value to send.
#[tokio::test]
async fn session_complete_refuses_a_pr_number_below_1() {
    let ws = workspace();
    let client = start(ws.path()).await;
    std::fs::write(ws.path().join("SPEC.md"), "# Spec").expect("spec file");
    let started = call(&client, "session_start", json!({"specFile": "SPEC.md", "worktree": false})).await;
    let id = structured(&started)["sessionId"].as_str().expect("sessionId").to_string();
    for n in [0, -1] {
        let r = call(&client, "session_complete", json!({"sessionId": id, "status": "completed", "prNumber": n})).await;
        assert_eq!(
            text(&r),
            format!("INVALID_ARGUMENT: Invalid prNumber {n}: must be at least 1. Call again with prNumber at least 1.")
        );
    }
    let r = call(&client, "session_complete", json!({"sessionId": id, "status": "completed", "prNumber": 1})).await;
    assert!(!is_error(&r), "{}", text(&r));
    client.cancel().await.expect("close");
}

/// Calls `tool` and returns (structuredContent, text); fails on an error result.
async fn ok(client: &Client, tool: &str, args: Value) -> (Value, String) {
    let r = call(client, tool, args).await;
    assert!(!is_error(&r), "{tool}: {}", text(&r));
    (structured(&r), text(&r))
}

/// tools/session/get.test.ts "should return found: false when no incomplete sessions exist" and
/// "should return the most recent incomplete session" ("Session: ", "Status: running", "Phase:",
/// "Tasks completed: 2", "Tasks pending: 1"); checkpoint.test.ts ("Checkpoint saved", "Steps
/// reported: 1"); complete.test.ts ("Session completed", "Duration:", "minutes", "Steps: 4/5
/// executed", "1 skipped", "PR: "); status.test.ts ("1/3", "Phases Done", a `10m 5s` duration).
#[tokio::test]
async fn session_texts_say_it_in_wranglers_words() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let (none, line) = ok(&client, "session_get", json!({})).await;
    assert_eq!(none["found"], false, "{none}");
    assert!(none.get("session").is_none(), "{none}");
    assert!(line.starts_with("No incomplete sessions found."), "{line}");

    std::fs::write(ws.path().join("SPEC.md"), "# Spec").expect("spec file");
    let (started, _) = ok(&client, "session_start", json!({"specFile": "SPEC.md", "worktree": false})).await;
    let id = started["sessionId"].as_str().expect("sessionId").to_string();
    let checkpoint = json!({"sessionId": id, "tasksCompleted": ["ISS-000001", "ISS-000002"], "tasksPending": ["ISS-000003"],
        "lastAction": "built", "resumeInstructions": "test", "stepResults": [{"stepName": "build", "status": "passed"}]});
    let (_, line) = ok(&client, "session_checkpoint", checkpoint).await;
    assert!(line.starts_with("Checkpoint saved: chk-"), "{line}");
    for phrase in ["Tasks completed: 2", "Tasks pending: 1", "Steps reported: 1"] {
        assert!(line.contains(phrase), "{phrase}: {line}");
    }
    let (got, line) = ok(&client, "session_get", json!({})).await;
    assert_eq!(got["found"], true, "{got}");
    assert_eq!(got["session"]["sessionId"], id.as_str());
    for phrase in
        [format!("Session: {id}"), "Status: running".into(), "Phase: init".into(), "Tasks completed: 2".into()]
    {
        assert!(line.contains(&phrase), "{phrase}: {line}");
    }
    let (_, line) = ok(&client, "session_status", json!({"sessionId": id})).await;
    assert!(line.contains("Tasks: 2/3 completed") && line.contains("Phases Done: none (from audit log)"), "{line}");
    let duration = line.split("Duration: ").nth(1).and_then(|d| d.split(';').next()).expect("a duration");
    assert!(
        duration.strip_suffix('s').is_some_and(|n| n.split("m ").all(|p| p.parse::<u32>().is_ok())),
        "wrangler's 10m 5s or 30s: {duration:?} in {line}"
    );

    let summary = json!({"totalSteps": 5, "executed": 4, "skipped": 1, "skippedSteps": ["lint"]});
    let (_, line) = ok(
        &client,
        "session_complete",
        json!({"sessionId": id, "status": "completed", "prUrl": "https://github.com/org/repo/pull/456", "prNumber": 456,
            "stepExecutionSummary": summary}),
    )
    .await;
    assert!(line.starts_with(&format!("Session completed: {id}")), "{line}");
    for phrase in [
        "Duration: 0 minutes",
        "Tasks completed: 2",
        "PR: https://github.com/org/repo/pull/456",
        "Steps: 4/5 executed",
        "1 skipped",
    ] {
        assert!(line.contains(phrase), "{phrase}: {line}");
    }
    client.cancel().await.expect("close");
}

/// tools/issues/all-tools.test.ts "Issue not found" and the session tests' "Session not found":
/// wrangler's words after the code, the recovery hint after them.
#[tokio::test]
async fn not_found_says_it_as_wrangler_does_and_keeps_the_hint() {
    let ws = workspace();
    let client = start(ws.path()).await;
    for (tool, args) in [
        ("issues_get", json!({"id": "ISS-000099"})),
        ("issues_update", json!({"id": "ISS-000099", "priority": "high"})),
        ("issues_delete", json!({"id": "ISS-000099", "confirm": true})),
        ("issues_mark_complete", json!({"id": "ISS-000099"})),
        ("issues_labels", json!({"operation": "add", "issueId": "ISS-000099", "labels": ["x"]})),
        ("issues_metadata", json!({"operation": "get", "issueId": "ISS-000099"})),
        ("issues_projects", json!({"operation": "add", "issueId": "ISS-000099", "project": "p"})),
    ] {
        let answer = text(&call(&client, tool, args).await);
        assert!(answer.starts_with("NOT_FOUND: Issue not found: ISS-000099. Use issues_list"), "{tool}: {answer}");
    }
    for tool in ["session_get", "session_status"] {
        let answer = text(&call(&client, tool, json!({"sessionId": "wf-nope"})).await);
        assert!(answer.starts_with("NOT_FOUND: Session not found: wf-nope. Call session_get"), "{tool}: {answer}");
    }
    let answer = text(&call(&client, "session_status", json!({})).await);
    assert!(answer.starts_with("NOT_FOUND: No workflow sessions found"), "{answer}");
    client.cancel().await.expect("close");
}

/// session_start takes what the issue tools return: a spec's ID as well as its path, the path
/// relative to the repository root as issues_get gives it with `fields: [path]` (and in a list);
/// an unknown spec is named with the two forms it takes, with no "workspace root" to misread as
/// the `.wrangler/` folder.
#[tokio::test]
async fn session_start_takes_a_spec_id_and_issues_get_returns_the_path_it_takes() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let (created, _) = ok(
        &client,
        "issues_create",
        json!({"title": "Configurable reporters", "description": "# Reporters", "type": "specification"}),
    )
    .await;
    let id = created["issue"]["id"].as_str().expect("id").to_string();
    let (got, line) = ok(&client, "issues_get", json!({"id": id, "fields": ["title", "path"]})).await;
    let path = got["issue"]["path"].as_str().expect("the path asked for").to_string();
    assert_eq!(path, format!(".docket/specifications/{id}-configurable-reporters.md"));
    assert!(ws.path().join(&path).is_file(), "relative to the repository root: {path}");
    assert!(line.contains(&format!("file {path}")), "{line}");
    let (whole, _) = ok(&client, "issues_get", json!({"id": id})).await;
    assert!(whole["issue"].get("path").is_none(), "only when asked for: {whole}");
    let (listed, _) = ok(&client, "issues_list", json!({"fields": ["path"]})).await;
    assert_eq!(listed["issues"][0]["path"], path.as_str());

    for spec in [id.as_str(), path.as_str()] {
        let (started, _) = ok(&client, "session_start", json!({"specFile": spec, "worktree": false})).await;
        assert_eq!(started["session"]["specFile"], path.as_str(), "{spec}: {started}");
    }
    let answer = text(&call(&client, "session_start", json!({"specFile": "SPEC-000099", "worktree": false})).await);
    assert!(answer.starts_with("NOT_FOUND: Spec file not found: "), "{answer}");
    assert!(
        answer.contains("the spec's ID (SPEC-000051) or its file's path relative to the repository root"),
        "{answer}"
    );
    assert!(!answer.contains("workspace root"), "{answer}");
    client.cancel().await.expect("close");
}

/// A plugin folder as wrangler's init.test.ts builds it: `.wrangler/config/workspace-schema.json`
/// (issues with archived/, cache/ untracked, config/), one agent.
fn plugin(dir: &std::path::Path, version: &str, extra: Value) -> std::path::PathBuf {
    let root = dir.join("plugin");
    std::fs::create_dir_all(root.join(".wrangler/config")).expect("plugin config");
    std::fs::create_dir_all(root.join("workflows/agents")).expect("plugin agents");
    std::fs::write(root.join("workflows/agents/analyzer.md"), "# Analyzer Agent").expect("agent");
    let mut directories = json!({
        "issues": {"path": ".wrangler/issues", "description": "Issues", "gitTracked": true,
            "subdirectories": {"archived": {"path": ".wrangler/issues/archived", "description": "Archived issues"}}},
        "cache": {"path": ".wrangler/cache", "description": "Cache", "gitTracked": false},
        "config": {"path": ".wrangler/config", "description": "Config", "gitTracked": true}
    });
    for (k, v) in extra.as_object().into_iter().flatten() {
        directories[k] = v.clone();
    }
    let schema = json!({"version": version, "description": "Test schema",
        "workspace": {"root": ".wrangler", "description": "Test workspace"}, "directories": directories,
        "gitignorePatterns": ["cache/", "logs/", "sessions/", "tmp/"]});
    std::fs::write(root.join(".wrangler/config/workspace-schema.json"), schema.to_string()).expect("schema");
    root
}

fn wrangler_project() -> tempfile::TempDir {
    let ws = tempfile::tempdir().expect("tmp");
    std::fs::create_dir_all(ws.path().join("project/.wrangler")).expect("project");
    ws
}

/// tools/workspace/init.test.ts "schema-driven directory creation (FR-001)", ".gitkeep management
/// (FR-003)", "report-only mode": the directories, .gitkeeps and gitignore patterns come from the
/// plugin's workspace-schema.json; report mode names them and writes nothing; a path leading out
/// of the workspace folder is left alone and named.
#[tokio::test]
async fn init_workspace_follows_the_plugins_workspace_schema_inside_the_workspace_only() {
    let tmp = wrangler_project();
    let project = tmp.path().join("project");
    let plugin = plugin(tmp.path(), "1.2.0", json!({"evil": {"path": "../outside", "gitTracked": true}}));
    let client = start(&project).await;
    let before = common::snapshot(tmp.path());
    let args = json!({"projectRoot": project.display().to_string(), "pluginRoot": plugin.display().to_string()});
    let r = call(&client, "init_workspace", args.clone()).await;
    let (report, line) = (structured(&r), text(&r));
    assert_eq!(report["status"], "changes_needed", "{report}");
    assert_eq!(
        report["directories"]["created"],
        json!([".wrangler/issues", ".wrangler/issues/archived", ".wrangler/cache", ".wrangler/config"]),
        "the plugin's directories, not the built-in ten: {report}"
    );
    assert_eq!(report["gitignore"]["patternsAdded"], json!(["cache/", "logs/", "sessions/", "tmp/"]));
    assert_eq!(report["assets"]["agents"]["copied"], json!(["analyzer.md"]));
    assert!(line.contains("../outside"), "the refused path is named: {line}");
    assert_eq!(common::snapshot(tmp.path()), before, "report mode writes nothing");

    let mut fix = args.clone();
    fix["fix"] = json!(true);
    let r = call(&client, "init_workspace", fix).await;
    assert_eq!(structured(&r)["status"], "initialized", "{}", text(&r));
    for dir in ["issues", "issues/archived", "cache", "config"] {
        assert!(project.join(".wrangler").join(dir).is_dir(), "{dir}");
    }
    assert!(!project.join(".wrangler/specifications").exists(), "not in the plugin's schema");
    assert!(project.join(".wrangler/issues/.gitkeep").is_file() && project.join(".wrangler/config/.gitkeep").is_file());
    assert!(!project.join(".wrangler/cache/.gitkeep").exists(), "cache is not git-tracked");
    assert!(!tmp.path().join("outside").exists() && !project.join("outside").exists(), "nothing outside");
    let copied = std::fs::read(project.join(".wrangler/config/workspace-schema.json")).expect("schema copied");
    assert_eq!(copied, std::fs::read(plugin.join(".wrangler/config/workspace-schema.json")).expect("plugin schema"));
    let config: Value =
        serde_json::from_slice(&std::fs::read(project.join(".wrangler/config/wrangler.json")).expect("wrangler.json"))
            .expect("json");
    assert_eq!(config["version"], "1.2.0", "the schema's version: {config}");
    assert!(config["workspace"]["directories"].get("evil").is_none(), "{config}");
    let again = structured(&call(&client, "init_workspace", args).await);
    assert_eq!(again["status"], "compliant", "{again}");
    client.cancel().await.expect("close");
}

/// tools/workspace/init.test.ts "FR-011: schema version comparison and copy": the plugin's schema
/// replaces the workspace's only when its version is newer by semver (1.10.0 > 1.9.0), report
/// mode says so and what the update changes, and an equal or older plugin leaves it alone.
#[tokio::test]
async fn init_workspace_updates_the_schema_only_for_a_newer_plugin_version_and_says_what_changes() {
    let tmp = wrangler_project();
    let project = tmp.path().join("project");
    let schema_file = project.join(".wrangler/config/workspace-schema.json");
    let client = start(&project).await;
    for (plugin_version, project_version, newer) in
        [("1.10.0", "1.9.0", true), ("1.2.0", "1.2.0", false), ("1.2.0", "1.3.0", false), ("v1.2.0", "garbage", true)]
    {
        let plugin =
            plugin(tmp.path(), plugin_version, json!({"plans": {"path": ".wrangler/plans", "gitTracked": true}}));
        std::fs::create_dir_all(schema_file.parent().expect("config")).expect("config dir");
        let mine = json!({"version": project_version, "directories": {"issues": {"path": ".wrangler/issues"}},
            "gitignorePatterns": ["cache/"]});
        std::fs::write(&schema_file, mine.to_string()).expect("project schema");
        let args = json!({"pluginRoot": plugin.display().to_string()});
        let r = call(&client, "init_workspace", args.clone()).await;
        let (report, line) = (structured(&r), text(&r));
        let label = format!("plugin {plugin_version}, workspace {project_version}");
        assert_eq!(report["config"]["schemaUpdated"], json!(newer), "{label}: {report}");
        assert_eq!(std::fs::read_to_string(&schema_file).expect("read"), mine.to_string(), "{label}: report only");
        if newer {
            assert!(
                line.contains("To update (the plugin's is newer): config/workspace-schema.json: version "),
                "{line}"
            );
            assert!(
                line.contains(
                    "directories added: .wrangler/issues/archived, .wrangler/cache, .wrangler/config, .wrangler/plans"
                ),
                "{line}"
            );
            assert!(line.contains("gitignore patterns added: logs/, sessions/, tmp/"), "{line}");
        }
        let mut fix = args;
        fix["fix"] = json!(true);
        let r = call(&client, "init_workspace", fix).await;
        assert!(!is_error(&r), "{}", text(&r));
        let now: Value = serde_json::from_str(&std::fs::read_to_string(&schema_file).expect("read")).expect("json");
        let expected = if newer { plugin_version } else { project_version };
        assert_eq!(now["version"], expected, "{label}");
    }
    client.cancel().await.expect("close");
}

/// A folder of the plugin's layout (one the built-in layout does not have) committed as a link
/// out of the workspace is never followed: fix refuses, naming it, and writes nothing where it
/// points.
#[tokio::test]
async fn init_workspace_never_follows_a_link_out_of_the_workspace() {
    let tmp = wrangler_project();
    let project = tmp.path().join("project");
    let outside = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&outside).expect("outside");
    std::os::unix::fs::symlink(&outside, project.join(".wrangler/reports")).expect("link");
    let plugin =
        plugin(tmp.path(), "1.2.0", json!({"reports": {"path": ".wrangler/reports/deep", "gitTracked": true}}));
    let client = start(&project).await;
    let r = call(&client, "init_workspace", json!({"pluginRoot": plugin.display().to_string(), "fix": true})).await;
    assert!(is_error(&r), "{}", text(&r));
    assert!(text(&r).contains("reports"), "{}", text(&r));
    assert_eq!(std::fs::read_dir(&outside).expect("read").count(), 0, "nothing written through the link");
    client.cancel().await.expect("close");
}

/// server.test.ts "should reference .wrangler/ in descriptions": issues_create names the folder
/// its files go to.
#[tokio::test]
async fn issues_create_names_the_folder_its_files_go_to() {
    let ws = workspace();
    let client = start(ws.path()).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let create = tools.iter().find(|t| t.name == "issues_create").expect("issues_create");
    assert!(create.description.as_deref().unwrap_or_default().contains(".wrangler/"), "{:?}", create.description);
    client.cancel().await.expect("close");
}
