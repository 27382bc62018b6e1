//! More calls written in wrangler's docs/mcp-usage.md, commands/ and skills/ (bacchus-labs/wrangler
//! at b02bd5f), made over stdio against a wrangler workspace: the generated one, and a copy of the
//! real one when it is at hand (tests/common/wrangler.rs). Each test cites the line its call comes
//! from and asserts what that document expects.

use crate::common;
use crate::on_each_fixture;

use std::path::Path;

use common::wrangler::{engine_session, files_named, ids, ok};
use common::{call, is_error, start, text};
use serde_json::{Value, json};

on_each_fixture! {
    /// commands/issues.md:79 `issues_list({ type: "specification" })`.
    async fn list_by_single_type(ws) {
        let client = start(ws.path()).await;
        let (sc, _) = ok(&client, "issues_list", json!({"type": "specification", "limit": 100, "format": "full"})).await;
        assert_eq!(sc["totalCount"], ws.facts.specifications, "wrangler's server lists 21 specifications of the real one");
        assert!(crate::common::page_records(&sc).iter().all(|i| i["type"] == "specification"));
        client.cancel().await.expect("close");
    }

    /// commands/issues.md:85 `issues_list({ status: ["open", "in_progress"] })`.
    async fn list_by_several_statuses(ws) {
        let client = start(ws.path()).await;
        let (sc, _) = ok(&client, "issues_list", json!({"status": ["open", "in_progress"], "limit": 100})).await;
        assert!(crate::common::page_records(&sc).iter().all(|i| i["status"] == "open" || i["status"] == "in_progress"));
        assert_eq!(sc["totalCount"], ws.facts.open_or_in_progress);
        client.cancel().await.expect("close");
    }

    /// skills/reporting-status/SKILL.md:288 `issues_list({ priority: ["critical", "high"], status: ["open"] })`.
    async fn list_high_priority_open_items(ws) {
        let client = start(ws.path()).await;
        let (sc, _) =
            ok(&client, "issues_list", json!({"priority": ["critical", "high"], "status": ["open"], "limit": 100})).await;
        assert_eq!(sc["totalCount"], ws.facts.open_high_or_critical, "wrangler's server answers 43 on the real one");
        for i in &crate::common::page_records(&sc) {
            assert!(i["status"] == "open" && (i["priority"] == "critical" || i["priority"] == "high"), "{i}");
        }
        client.cancel().await.expect("close");
    }

    /// skills/refreshing-metrics/SKILL.md:32 `issues_list({ status: "open" })`: one status where an
    /// array is declared. wrangler rejects it; docket reads it as `["open"]`, as the skill expects.
    async fn list_with_one_status_given_as_a_string(ws) {
        let client = start(ws.path()).await;
        let (lone, _) = ok(&client, "issues_list", json!({"status": "open", "format": "minimal"})).await;
        let (array, _) = ok(&client, "issues_list", json!({"status": ["open"], "format": "minimal"})).await;
        assert_eq!(lone, array);
        let bad = call(&client, "issues_list", json!({"status": "done"})).await;
        assert!(is_error(&bad) && text(&bad).contains("Invalid status[0] 'done'"), "{}", text(&bad));
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:721-727 "Second page" `issues_list({ limit: 20, offset: 20 })`.
    async fn list_with_limit_and_offset_returns_the_second_page(ws) {
        let client = start(ws.path()).await;
        let (both, _) = ok(&client, "issues_list", json!({"limit": 40, "format": "minimal"})).await;
        let (second, _) = ok(&client, "issues_list", json!({"limit": 20, "offset": 20, "format": "minimal"})).await;
        assert_eq!(ids(&second), ids(&both)[20..40].to_vec());
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:150-160 `issues_list({ priority: ["high", "critical"], labels: ["feature"] })`
    /// and `issues_list({ labels: ["bug", "critical"] })` (:680): labels match if ANY matches.
    async fn list_by_labels_matches_any_label(ws) {
        let client = start(ws.path()).await;
        let (hooks, _) = ok(&client, "issues_list", json!({"labels": ["git-hooks"], "limit": 100})).await;
        let (template, _) = ok(&client, "issues_list", json!({"labels": ["template"], "limit": 100})).await;
        let (either, _) = ok(&client, "issues_list", json!({"labels": ["git-hooks", "template"], "limit": 100})).await;
        let mut union: Vec<String> = ids(&hooks).into_iter().chain(ids(&template)).collect();
        union.sort();
        union.dedup();
        let mut got = ids(&either);
        got.sort();
        assert!(!got.is_empty());
        assert_eq!(got, union);
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:190 `issues_search({ query: "authentication", fields: ["title", "description"] })`.
    async fn search_in_title_and_description(ws) {
        let client = start(ws.path()).await;
        let (sc, _) = ok(
            &client,
            "issues_search",
            json!({"query": "authentication", "fields": ["title", "description"], "includeDescription": true, "limit": 100}),
        )
        .await;
        let hits = &crate::common::page_records(&sc);
        assert!(hits.len() >= 4, "wrangler finds 4 among the 100 newest issues; docket searches all: {}", hits.len());
        for hit in hits {
            let title = hit["title"].as_str().unwrap_or_default().to_lowercase();
            let excerpt = hit["excerpt"].as_str().unwrap_or_default().to_lowercase();
            assert!(title.contains("authentication") || excerpt.contains("authentication"), "{hit}");
        }
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:698 `issues_search({ query, filters: { status, priority }, sortBy: "priority", sortOrder: "desc" })`.
    async fn search_with_filters_sorted_by_priority(ws) {
        let client = start(ws.path()).await;
        let (sc, _) = ok(
            &client,
            "issues_search",
            json!({"query": "workflow", "filters": {"status": ["open", "in_progress"], "priority": ["high", "critical"]},
                   "sortBy": "priority", "sortOrder": "desc", "limit": 100}),
        )
        .await;
        assert_eq!(sc["totalCount"], ws.facts.workflow_urgent_active, "wrangler's server finds 33 on the real one");
        let rank = |p: &Value| ["low", "medium", "high", "critical"].iter().position(|x| p == x).expect("priority");
        let hits = &crate::common::page_records(&sc);
        assert!(
            hits.windows(2).all(|w| rank(&w[0]["priority"]) >= rank(&w[1]["priority"])),
            "sorted by priority, highest first"
        );
        assert!(hits.iter().all(|h| h["status"] == "open" || h["status"] == "in_progress"));
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:549 "Get archived issue directly" `issues_get({ id: "ISS-000002" })`.
    async fn get_an_archived_issue_directly(ws) {
        let client = start(ws.path()).await;
        let (sc, shown) = ok(&client, "issues_get", json!({"id": "ISS-000039"})).await;
        assert_eq!(sc["issue"]["status"], "closed");
        assert!(shown.contains("Create pre-commit hook template with parameterization"), "{shown}");
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:116 `issues_create({ title, description, type, status, priority, labels,
    /// assignee, project, wranglerContext })`: the next ID after the highest in use.
    async fn create_with_every_field(ws) {
        let client = start(ws.path()).await;
        let (sc, _) = ok(
            &client,
            "issues_create",
            json!({"title": "Add user authentication", "description": "Implement JWT-based authentication with refresh tokens",
                   "type": "issue", "status": "open", "priority": "high", "labels": ["feature", "auth"], "assignee": "alice",
                   "project": "v1.0", "wranglerContext": {"agentId": "coder-1", "parentTaskId": "epic-auth", "estimatedEffort": "2 days"}}),
        )
        .await;
        assert_eq!(sc["issue"]["id"], ws.facts.next_issue.as_str(), "wrangler's server assigns the same (ISS-000185 on the real one)");
        let file = files_named(ws.path(), &format!("{}-", ws.facts.next_issue));
        assert_eq!(file.len(), 1, "{file:?}");
        assert!(file[0].starts_with(".wrangler/issues"), "{}", file[0].display());
        let raw = std::fs::read_to_string(ws.path().join(&file[0])).expect("file");
        for expected in ["assignee: alice", "project: v1.0", "agentId: coder-1", "parentTaskId: epic-auth"] {
            assert!(raw.contains(expected), "{expected} in {raw}");
        }
        client.cancel().await.expect("close");
    }

    /// skills/capturing-ideas/SKILL.md:55 `issues_create({ title, description, type: "idea", status, priority, labels: [] })`.
    async fn create_an_idea(ws) {
        let client = start(ws.path()).await;
        let (sc, _) = ok(
            &client,
            "issues_create",
            json!({"title": "Offline mode for the board", "description": "Cache the board.", "type": "idea", "status": "open",
                   "priority": "medium", "labels": []}),
        )
        .await;
        assert_eq!(sc["issue"]["id"], ws.facts.next_idea.as_str());
        assert!(files_named(ws.path(), &format!("{}-", ws.facts.next_idea))[0].starts_with(".wrangler/ideas"));
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:233 `issues_update({ id, status: "in_progress", assignee: "bob" })`.
    async fn update_status_and_assignee(ws) {
        let client = start(ws.path()).await;
        let (sc, _) =
            ok(&client, "issues_update", json!({"id": "ISS-000037", "status": "in_progress", "assignee": "bob"})).await;
        assert_eq!(sc["changed"], json!(["status", "assignee"]));
        let (got, _) = ok(&client, "issues_get", json!({"id": "ISS-000037", "fields": ["status", "assignee"]})).await;
        assert_eq!(
            (got["issue"]["status"].as_str(), got["issue"]["assignee"].as_str()),
            (Some("in_progress"), Some("bob"))
        );
        client.cancel().await.expect("close");
    }

    /// skills/writing-plans/SKILL.md:325 `issues_update({ id, priority, description, labels })`.
    async fn update_priority_description_and_labels(ws) {
        let client = start(ws.path()).await;
        let labels = json!(["plan-step", "implementation", "complex"]);
        let (sc, _) = ok(
            &client,
            "issues_update",
            json!({"id": "ISS-000037", "priority": "high", "description": "Updated description.", "labels": labels}),
        )
        .await;
        assert_eq!(sc["issue"]["labels"], labels);
        assert!(sc["changed"].as_array().expect("changed").contains(&json!("description")));
        let (got, _) = ok(&client, "issues_get", json!({"id": "ISS-000037", "fields": ["description"]})).await;
        assert_eq!(got["issue"]["description"].as_str().map(str::trim), Some("Updated description."));
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:246 and :906 `issues_update({ id, type: "specification" })`: "This
    /// physically moves the file from .wrangler/issues/ to .wrangler/specifications/".
    async fn update_type_moves_the_file(ws) {
        let client = start(ws.path()).await;
        ok(&client, "issues_update", json!({"id": "ISS-000037", "type": "specification"})).await;
        let files = files_named(ws.path(), "ISS-000037-");
        assert_eq!(files.len(), 1, "{files:?}");
        assert!(files[0].starts_with(".wrangler/specifications"), "{}", files[0].display());
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:578 `issues_update({ id, status: "closed" })` "File moves to archived/", and
    /// :558 reopening "automatically moves the file from archived/ back to root".
    async fn closing_archives_and_reopening_restores(ws) {
        let client = start(ws.path()).await;
        ok(&client, "issues_update", json!({"id": "ISS-000037", "status": "closed"})).await;
        assert!(files_named(ws.path(), "ISS-000037-")[0].starts_with(".wrangler/issues/archived"));
        ok(&client, "issues_update", json!({"id": "ISS-000037", "status": "open"})).await;
        let back = &files_named(ws.path(), "ISS-000037-")[0];
        assert_eq!(back.parent(), Some(Path::new(".wrangler/issues")), "{}", back.display());
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:354 `issues_mark_complete({ id, note })`: closed, archived, note appended.
    async fn mark_complete_closes_archives_and_appends_the_note(ws) {
        let client = start(ws.path()).await;
        let note = "Implemented and tested. All requirements met.";
        let (sc, _) = ok(&client, "issues_mark_complete", json!({"id": "ISS-000037", "note": note})).await;
        assert_eq!(sc["issue"]["status"], "closed");
        let file = &files_named(ws.path(), "ISS-000037-")[0];
        assert!(file.starts_with(".wrangler/issues/archived"));
        let raw = std::fs::read_to_string(ws.path().join(file)).expect("file");
        assert!(raw.contains("**Completion Notes (") && raw.trim_end().ends_with(note), "{raw}");
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:279-291 `issues_labels` list, add, remove.
    async fn labels_list_add_and_remove(ws) {
        let client = start(ws.path()).await;
        let (added, _) = ok(
            &client,
            "issues_labels",
            json!({"operation": "add", "issueId": "ISS-000037", "labels": ["urgent", "security"]}),
        )
        .await;
        assert_eq!(added["issueLabels"], json!(["mcp", "types", "session", "SPEC-000038", "urgent", "security"]));
        let (removed, _) =
            ok(&client, "issues_labels", json!({"operation": "remove", "issueId": "ISS-000037", "labels": ["urgent"]}))
                .await;
        assert!(!removed["issueLabels"].as_array().expect("labels").contains(&json!("urgent")));
        let (listed, _) = ok(&client, "issues_labels", json!({"operation": "list"})).await;
        let security = listed["labels"].as_array().expect("labels").iter().find(|l| l["key"] == "security");
        assert!(security.is_some_and(|l| l["count"].as_i64() >= Some(1)), "{listed}");
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:304-318 `issues_metadata` get, set, remove.
    async fn metadata_set_get_and_remove(ws) {
        let client = start(ws.path()).await;
        ok(
            &client,
            "issues_metadata",
            json!({"operation": "set", "issueId": "ISS-000037", "key": "agentId", "value": "coder-2"}),
        )
        .await;
        ok(
            &client,
            "issues_metadata",
            json!({"operation": "set", "issueId": "ISS-000037", "key": "estimatedEffort", "value": "1d"}),
        )
        .await;
        let (got, _) = ok(&client, "issues_metadata", json!({"operation": "get", "issueId": "ISS-000037"})).await;
        assert_eq!(got["wranglerContext"]["agentId"], "coder-2");
        let (removed, _) = ok(
            &client,
            "issues_metadata",
            json!({"operation": "remove", "issueId": "ISS-000037", "key": "estimatedEffort"}),
        )
        .await;
        assert!(removed["wranglerContext"].get("estimatedEffort").is_none());
        assert_eq!(removed["wranglerContext"]["agentId"], "coder-2");
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:331-343 `issues_projects` list, add, remove, and :890 listing by project.
    async fn projects_add_list_and_remove(ws) {
        let client = start(ws.path()).await;
        ok(&client, "issues_projects", json!({"operation": "add", "issueId": "ISS-000037", "project": "v2.0"})).await;
        let (listed, _) = ok(&client, "issues_projects", json!({"operation": "list"})).await;
        assert!(listed["projects"].as_array().expect("projects").iter().any(|p| p["key"] == "v2.0"));
        let (members, _) = ok(&client, "issues_list", json!({"project": "v2.0", "types": ["issue"]})).await;
        assert_eq!(ids(&members), ["ISS-000037"]);
        ok(&client, "issues_projects", json!({"operation": "remove", "issueId": "ISS-000037"})).await;
        let (after, _) = ok(&client, "issues_get", json!({"id": "ISS-000037"})).await;
        assert!(after["issue"].get("project").is_none());
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:371 `issues_all_complete({})` "Check all issues": issues only, as wrangler
    /// counts them (specifications and ideas are not work items).
    async fn all_complete_checks_issues_not_specifications_or_ideas(ws) {
        let client = start(ws.path()).await;
        let (sc, _) = ok(&client, "issues_all_complete", json!({})).await;
        assert_eq!(sc["total"], ws.facts.issues, "wrangler's server checks the same (218 on the real one)");
        assert_eq!(sc["allComplete"], false);
        let (specs, _) = ok(&client, "issues_all_complete", json!({"types": ["specification"]})).await;
        assert_eq!(specs["total"], ws.facts.specifications);
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:374 `issues_all_complete({ issueIds: [...] })`, and a scope matching
    /// nothing, which wrangler does not call complete.
    async fn all_complete_for_given_ids(ws) {
        let client = start(ws.path()).await;
        let (done, _) = ok(&client, "issues_all_complete", json!({"issueIds": ["ISS-000039", "ISS-000040"]})).await;
        assert_eq!((done["total"].as_i64(), done["allComplete"].as_bool()), (Some(2), Some(true)));
        let (mixed, _) = ok(&client, "issues_all_complete", json!({"issueIds": ["ISS-000039", "ISS-000037"]})).await;
        assert_eq!(mixed["allComplete"], false);
        assert_eq!(mixed["incomplete"][0]["id"], "ISS-000037");
        let (none, shown) = ok(&client, "issues_all_complete", json!({"parentTaskId": "epic-nothing"})).await;
        assert_eq!((none["total"].as_i64(), none["allComplete"].as_bool()), (Some(0), Some(false)), "{shown}");
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:867-871 "Cannot Delete Issue": without `confirm: true` it fails; with it the
    /// file is deleted.
    async fn delete_needs_confirmation(ws) {
        let client = start(ws.path()).await;
        let refused = call(&client, "issues_delete", json!({"id": "ISS-000037"})).await;
        assert!(is_error(&refused) && text(&refused).contains("confirm: true"), "{}", text(&refused));
        assert_eq!(files_named(ws.path(), "ISS-000037-").len(), 1, "the file is kept");
        ok(&client, "issues_delete", json!({"id": "ISS-000037", "confirm": true})).await;
        assert!(files_named(ws.path(), "ISS-000037-").is_empty());
        client.cancel().await.expect("close");
    }

    /// docs/mcp-usage.md:433-500: `session_phase`, `session_checkpoint`, `session_get({})` (the most
    /// recent incomplete session), `session_complete` with the PR.
    async fn a_session_from_phase_to_completion(ws) {
        let client = start(ws.path()).await;
        let spec = ".wrangler/specifications/SPEC-000050-configurable-workflow-reporters.md";
        let (started, _) = ok(&client, "session_start", json!({"specFile": spec})).await;
        let sid = started["sessionId"].as_str().expect("sessionId").to_string();
        ok(
            &client,
            "session_phase",
            json!({"sessionId": sid, "phase": "execute", "status": "started", "metadata": {"tasks_count": 5}}),
        )
        .await;
        ok(
            &client,
            "session_checkpoint",
            json!({"sessionId": sid, "tasksCompleted": ["ISS-000001", "ISS-000002"], "tasksPending": ["ISS-000003"],
                   "lastAction": "Completed task ISS-000002", "resumeInstructions": "Continue with ISS-000003"}),
        )
        .await;
        let (got, _) = ok(&client, "session_get", json!({})).await;
        assert_eq!(got["session"]["sessionId"], sid.as_str());
        assert_eq!(got["checkpoint"]["resumeInstructions"], "Continue with ISS-000003");
        let (done, _) = ok(
            &client,
            "session_complete",
            json!({"sessionId": sid, "status": "completed", "prUrl": "https://github.com/org/repo/pull/123", "prNumber": 123}),
        )
        .await;
        assert_eq!(
            (done["session"]["status"].as_str(), done["session"]["prNumber"].as_i64()),
            (Some("completed"), Some(123))
        );
        let audit = std::fs::read_to_string(started["auditPath"].as_str().expect("auditPath")).expect("audit");
        let phases: Vec<String> = audit
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|e| e["phase"].as_str().map(String::from))
            .collect();
        assert_eq!(phases, ["init", "execute", "checkpoint", "complete"]);
        client.cancel().await.expect("close");
    }

    /// skills/running-workflows/SKILL.md:86 `session_status({ sessionId: "wf-2026-02-16-ba6fcb97" })`.
    async fn session_status_of_a_named_workflow_run(ws) {
        engine_session(ws.path(), "wf-2026-02-16-ba6fcb97", "2026-02-16T21:58:00.000Z");
        let client = start(ws.path()).await;
        let (sc, _) = ok(&client, "session_status", json!({"sessionId": "wf-2026-02-16-ba6fcb97"})).await;
        assert_eq!(sc["session"]["tasksCompleted"], json!(["a"]));
        assert_eq!(sc["session"]["tasksPending"], json!(["b", "c"]));
        assert_eq!(sc["lastActivity"]["phase"], "execute");
        assert_eq!(sc["lastActivity"]["status"], "started");
        client.cancel().await.expect("close");
    }
}
