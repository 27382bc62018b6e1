//! The calls of issue 17's table, as wrangler's own docs, skills and commands write them (its
//! public repository, bacchus-labs/wrangler at b02bd5f), made over stdio against a wrangler workspace:
//! the generated one, and a copy of the real one when it is at hand (tests/common/wrangler.rs).
//! Each test cites where its
//! call comes from and asserts what that document expects; tests/wrangler/wrangler_docs.rs has the rest of
//! the documented calls, docs/compatibility.md lists where docket differs.

use crate::common;
use crate::on_each_fixture;

use std::path::PathBuf;

use common::wrangler::{engine_session, files_named, git, ids, ok};
use common::{call, is_error, snapshot, start, structured, text};
use serde_json::{Value, json};

on_each_fixture! {
    /// skills/refreshing-metrics/SKILL.md:211 `issues_search({ query: featureName, type: "specification" })`:
    /// wrangler ignores `type`; docket ignores it too and says so in the text and structuredContent.
    async fn search_with_a_top_level_type_is_answered_and_the_ignored_type_is_named(ws) {
        let client = start(ws.path()).await;
        let (sc, shown) = ok(&client, "issues_search", json!({"query": "workflow", "type": "specification"})).await;
        let (plain, _) = ok(&client, "issues_search", json!({"query": "workflow"})).await;
        assert_eq!(sc["totalCount"], plain["totalCount"], "the ignored type filters nothing, as in wrangler");
        assert!(sc["totalCount"].as_i64().is_some_and(|n| n > 0));
        assert!(shown.contains("Warning: Parameter 'type' is not a parameter of issues_search and was ignored"), "{shown}");
        assert!(shown.contains("filters.type"), "the warning says where the filter goes: {shown}");
        assert!(sc["warnings"][0].as_str().is_some_and(|w| w.contains("'type'")), "{sc}");
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:220 `issues_get({ id: "000001" })`: six legacy files share 000001; wrangler
    /// returns the first. docket returns the first in a fixed order, with a DUPLICATE_ID warning that
    /// names the others in the text and in structuredContent.
    async fn get_of_a_legacy_id_held_by_several_files_returns_one_and_warns(ws) {
        let client = start(ws.path()).await;
        let (sc, shown) = ok(&client, "issues_get", json!({"id": "000001"})).await;
        assert_eq!(sc["issue"]["id"], "000001");
        assert!(shown.contains("Warning:") && shown.contains("000001"), "the other files are named: {shown}");
        let listed = sc["warnings"].as_array().map(|w| w.iter().filter_map(|m| m.as_str()).collect::<Vec<_>>().join(" "));
        assert!(listed.is_some_and(|w| w.contains("doctor")), "structuredContent names the fix: {sc}");
        client.cancel().await.expect("close");
    }

    /// commands/init-workspace.md:56 `init_workspace({})`: report-only, "changes_needed" with what is
    /// missing, and nothing written.
    async fn init_workspace_without_fix_reports_what_is_missing_and_writes_nothing(ws) {
        let client = start(ws.path()).await;
        let before = snapshot(ws.path());
        let (sc, shown) = ok(&client, "init_workspace", json!({})).await;
        assert_eq!(sc["status"], "changes_needed");
        let created: Vec<&str> =
            sc["directories"]["created"].as_array().expect("created").iter().filter_map(Value::as_str).collect();
        for dir in [".wrangler/memos", ".wrangler/plans", ".wrangler/orchestration/agents"] {
            assert!(created.contains(&dir), "{dir} is missing from the fixture: {created:?}");
        }
        assert!(sc["directories"]["existing"].as_array().expect("existing").contains(&json!(".wrangler/issues/archived")));
        assert_eq!(sc["gitignore"]["existing"], json!(["cache/", "logs/", "sessions/"]));
        assert_eq!(sc["config"]["wranglerConfigCreated"], false, "config/wrangler.json is there");
        assert!(shown.contains("fix: true"), "the text says how to apply: {shown}");
        assert_eq!(snapshot(ws.path()), before, "report-only mode writes nothing");
        client.cancel().await.expect("close");
    }

    /// commands/init-workspace.md:64 `init_workspace({ fix: true })`: creates the missing layout,
    /// "initialized"; again, "compliant"; no existing file changes.
    async fn init_workspace_with_fix_creates_the_layout_once_and_keeps_every_file(ws) {
        let client = start(ws.path()).await;
        let before = snapshot(ws.path());
        let (sc, shown) = ok(&client, "init_workspace", json!({"fix": true})).await;
        assert_eq!(sc["status"], "initialized");
        for dir in sc["directories"]["created"].as_array().expect("created") {
            assert!(ws.path().join(dir.as_str().expect("path")).is_dir(), "{dir} was created");
        }
        assert!(shown.contains("Created directories: .wrangler/memos"), "{shown}");
        let after = snapshot(ws.path());
        for (path, bytes) in &before {
            assert_eq!(after.get(path), Some(bytes), "{path} changed");
        }
        let (again, _) = ok(&client, "init_workspace", json!({"fix": true})).await;
        assert_eq!(again["status"], "compliant");
        let other = tempfile::tempdir().expect("other");
        let refused = call(&client, "init_workspace", json!({"projectRoot": other.path()})).await;
        assert!(
            is_error(&refused) && text(&refused).contains("is not the workspace this server serves"),
            "{}",
            text(&refused)
        );
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:417 and skills/implementing-specs/SKILL.md:67 `session_start({ specFile })`:
    /// "Returns: Session ID, worktree path, branch name, and audit path"; the skill then works in the
    /// worktree on the session's branch (mcp/src/tools/session/start.ts names them).
    async fn session_start_creates_the_worktree_and_branch_wrangler_creates(fx) {
        let ws = fx.in_git();
        let client = start(ws.path()).await;
        let spec = ".wrangler/specifications/SPEC-000050-configurable-workflow-reporters.md";
        let (sc, shown) = ok(&client, "session_start", json!({"specFile": spec})).await;
        let id = sc["sessionId"].as_str().expect("sessionId");
        assert_eq!(sc["branchName"], format!("wrangler/configurable-workflow-reporters/{id}"));
        assert_eq!(sc["worktreeCreated"], true);
        let worktree = PathBuf::from(sc["worktreePath"].as_str().expect("worktreePath"));
        assert!(worktree.ends_with(".worktrees/configurable-workflow-reporters"), "{}", worktree.display());
        assert_eq!(git(&worktree, &["branch", "--show-current"]), format!("wrangler/configurable-workflow-reporters/{id}"));
        assert_ne!(git(ws.path(), &["branch", "--show-current"]), git(&worktree, &["branch", "--show-current"]));
        assert!(PathBuf::from(sc["auditPath"].as_str().expect("auditPath")).is_file());
        assert!(
            shown.contains("Worktree: ") && shown.contains("Branch: wrangler/configurable-workflow-reporters/"),
            "{shown}"
        );
        client.cancel().await.expect("close");
    }

    /// skills/running-workflows/SKILL.md:92 `session_status({})`: "auto-detects the most recent
    /// `wf-*` session", even when a session_start session is newer.
    async fn session_status_without_an_id_reports_the_latest_workflow_run(ws) {
        let client = start(ws.path()).await;
        let before = call(&client, "session_status", json!({})).await;
        match &ws.facts.latest_workflow_run {
            Some(run) => assert_eq!(structured(&before)["session"]["sessionId"], run.as_str(), "{}", text(&before)),
            None => assert!(
                is_error(&before) && text(&before).contains("No workflow sessions found (workflow-engine runs, ID wf-*)"),
                "{}",
                text(&before)
            ),
        }
        engine_session(ws.path(), "wf-2026-02-16-ba6fcb97", "2026-02-16T21:58:00.000Z");
        engine_session(ws.path(), "wf-2026-02-10-00000000", "2026-02-10T08:00:00.000Z");
        let spec = ".wrangler/specifications/SPEC-000050-configurable-workflow-reporters.md";
        ok(&client, "session_start", json!({"specFile": spec, "worktree": false})).await;
        let (sc, shown) = ok(&client, "session_status", json!({})).await;
        assert_eq!(sc["session"]["sessionId"], "wf-2026-02-16-ba6fcb97");
        assert_eq!(sc["activeStep"], "execute (in progress)", "read from the engine's audit entries");
        assert_eq!(sc["auditEntryCount"], 2);
        assert!(shown.contains("Active Step: execute (in progress)"), "{shown}");
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:252 `issues_update({ id, project: null })` under "Clear project".
    async fn update_with_a_null_project_clears_it(ws) {
        let client = start(ws.path()).await;
        let (before, _) = ok(&client, "issues_get", json!({"id": "ISS-000037"})).await;
        assert_eq!(before["issue"]["project"], "SPEC-000038");
        let (sc, shown) = ok(&client, "issues_update", json!({"id": "ISS-000037", "project": null})).await;
        assert_eq!(sc["changed"], json!(["project"]));
        assert!(!shown.contains("No change"), "{shown}");
        let (after, _) = ok(&client, "issues_get", json!({"id": "ISS-000037"})).await;
        assert!(after["issue"].get("project").is_none(), "{after}");
        let file = &files_named(ws.path(), "ISS-000037-")[0];
        let raw = std::fs::read_to_string(ws.path().join(file)).expect("file");
        assert!(!raw.contains("project:"), "the key is gone from the frontmatter: {raw}");
        let (nothing, shown) = ok(&client, "issues_update", json!({"id": "ISS-000037", "title": null})).await;
        assert_eq!(nothing["changed"], json!([]));
        assert!(
            shown.contains("gave no field to change"),
            "null for a field that cannot be cleared changes nothing, and says why: {shown}"
        );
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:543 `issues_list({})` (archived items included by default, :532): docket
    /// pages 25 at a time; following nextCursor reaches every issue file.
    async fn list_without_arguments_pages_through_every_issue_archived_included(ws) {
        let client = start(ws.path()).await;
        let (first, _) = ok(&client, "issues_list", json!({})).await;
        assert_eq!(ids(&first).len(), 25);
        let total = first["totalCount"].as_u64().expect("totalCount") as usize;
        assert_eq!(total, ws.facts.items, "every markdown file of the fixture");
        let mut seen = ids(&first).len();
        let mut cursor = first["nextCursor"].as_str().map(str::to_string);
        while let Some(c) = cursor {
            let (page, _) = ok(&client, "issues_list", json!({"cursor": c})).await;
            seen += ids(&page).len();
            cursor = page["nextCursor"].as_str().map(str::to_string);
        }
        assert_eq!(seen, total);
        let (closed, _) = ok(&client, "issues_list", json!({"status": ["closed"], "limit": 100})).await;
        assert!(ids(&closed).contains(&"ISS-000039".to_string()), "an archived issue is listed");
        client.cancel().await.expect("close");
    }
}
