#!/usr/bin/env python3
"""Drives `docket serve` over stdio with the official Python MCP client (PyPI `mcp`, pinned in
requirements.txt) and checks everything a real client sees.

usage: python_client.py [DOCKET_BINARY [serve args...]]
       (default: target/debug/docket serve --demo)

Checks: initialize; tools/list followed through nextCursor; every inputSchema and outputSchema is a
valid JSON Schema 2020-12 document; issues_list paged with a small limit until the cursor runs out
(the count matches issues_stats); EVERY served tool called with valid input from SAMPLES below,
each structuredContent validated against the tool's outputSchema (the mcp client validates too and
raises on a mismatch); resources/list, resources/templates/list and resources/read.

A served tool without an entry in SAMPLES is a failure, so a new tool cannot go untested.
Prints one line per check, then `python mcp client: N passed, N failed`; exits 1 on any failure.
"""

import asyncio
import json
import os
import sys
import traceback
from pathlib import Path

from jsonschema import Draft202012Validator
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

LABEL = "python mcp client"
MISSING_ID = "ISS-999999"


def g(obj, snake, camel=None):
    """Field access for mcp 1.x (camelCase) and 2.x (snake_case)."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel or snake)


class Failure(Exception):
    pass


def expect(cond, message):
    if not cond:
        raise Failure(message)


class Run:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    async def check(self, name, coro_fn):
        try:
            detail = await coro_fn()
        except Exception as e:  # noqa: BLE001 - every failure is reported, none stops the run
            self.failed += 1
            reason = str(e) if isinstance(e, Failure) else f"{type(e).__name__}: {e}"
            print(f"FAIL {name}: {reason}")
            if not isinstance(e, Failure) and os.environ.get("CI_CLIENT_TRACE"):
                traceback.print_exc()
            return None
        self.passed += 1
        print(f"ok   {name}" + (f" ({detail})" if isinstance(detail, str) and detail else ""))
        return detail


# Sample arguments for every tool, in the order they run. Values may be callables taking the shared
# state `s` (ids created earlier). `expect_error` marks a deliberate failure (it feeds the error
# memory for errors_resolve); `post` checks the structured result and may store values in `s`.
def listed_ids(sc):
    """A page is records (format full, fields) or one line per issue, each starting with its ID."""
    return [i["id"] for i in sc["issues"]] if "issues" in sc else [r.split(" ")[0] for r in sc["rows"]]


def samples(s):
    return [
        ("issues_create", {
            "title": f"Python client check {os.getpid()}",
            "description": "Created by .ci/clients/python_client.py.\n\n## Steps\n\nCall every tool once.",
            "type": "issue", "priority": "high", "labels": ["ci", "client"], "project": "ci",
            "assignee": "python", "wranglerContext": {"agentId": "python-ci", "estimatedEffort": "1 hour"},
        }, {"post": lambda sc: s.update(id=sc["issue"]["id"])}),
        ("issues_list", {"format": "minimal", "limit": 5}, {}),
        ("issues_list", {"format": "full", "limit": 2, "status": ["open", "in_progress"]}, {}),
        ("issues_list", lambda: {"project": "ci", "response_format": "json"},
         {"post": lambda sc: expect(s["id"] in listed_ids(sc), "created issue not listed")}),
        ("issues_search", {"query": "Python client check"},
         {"post": lambda sc: expect(s["id"] in listed_ids(sc), "created issue not found")}),
        ("issues_search", lambda: {"query": s["word"], "fields": ["title", "description"],
                                   "includeDescription": True, "limit": 3},
         {"post": lambda sc: expect(sc["totalCount"] > 0, f"no match for {s['word']!r}, a word of a listed title")}),
        ("issues_get", lambda: {"id": s["id"]},
         {"post": lambda sc: expect(sc["issue"]["id"] == s["id"], "wrong issue")}),
        ("issues_get", lambda: {"id": s["id"], "fields": ["status", "labels"]}, {}),
        ("issues_get_batch", lambda: {"ids": [s["id"], s["first_id"], MISSING_ID]},
         {"post": lambda sc: expect(sc["notFound"] == [MISSING_ID] and len(sc["issues"]) == 2,
                                    f"notFound {sc['notFound']}, {len(sc['issues'])} found")}),
        ("issues_update", lambda: {"id": s["id"], "priority": "critical", "labels": ["ci", "client", "updated"]},
         {"post": lambda sc: expect("priority" in sc["changed"], f"changed = {sc['changed']}")}),
        ("issues_update_batch", lambda: {"updates": [{"id": s["id"], "status": "in_progress"},
                                                     {"id": MISSING_ID, "status": "open"}]},
         {"post": lambda sc: expect((sc["succeeded"], sc["failed"]) == (1, 1),
                                    f"succeeded {sc['succeeded']}, failed {sc['failed']}")}),
        ("issues_labels", {"operation": "list"}, {}),
        ("issues_labels", lambda: {"operation": "add", "issueId": s["id"], "labels": ["extra"]},
         {"post": lambda sc: expect("extra" in sc["issueLabels"], "label not added")}),
        ("issues_labels", lambda: {"operation": "remove", "issueId": s["id"], "labels": ["extra"]}, {}),
        ("issues_metadata", lambda: {"operation": "set", "issueId": s["id"], "key": "reviewer",
                                     "value": {"name": "ci", "round": 1}}, {}),
        ("issues_metadata", lambda: {"operation": "get", "issueId": s["id"]},
         {"post": lambda sc: expect(sc["wranglerContext"].get("reviewer") == {"name": "ci", "round": 1},
                                    f"wranglerContext = {sc['wranglerContext']}")}),
        ("issues_metadata", lambda: {"operation": "remove", "issueId": s["id"], "key": "reviewer"}, {}),
        ("issues_projects", {"operation": "list"}, {}),
        ("issues_projects", lambda: {"operation": "add", "issueId": s["id"], "project": "ci-2"}, {}),
        ("issues_projects", lambda: {"operation": "remove", "issueId": s["id"]}, {}),
        ("issues_stats", {"groupBy": "priority"}, {}),
        ("issues_stats", {"groupBy": "project", "status": ["open", "in_progress"], "response_format": "json"}, {}),
        ("issues_all_complete", lambda: {"issueIds": [s["id"]]},
         {"post": lambda sc: expect(sc["allComplete"] is False, "an in-progress issue counted as complete")}),
        ("issues_mark_complete", lambda: {"id": s["id"], "note": "Checked by the Python client."},
         {"post": lambda sc: expect(sc["issue"].get("status") == "closed", f"status {sc['issue'].get('status')}")}),
        ("issues_all_complete", lambda: {"issueIds": [s["id"]]},
         {"post": lambda sc: expect(sc["allComplete"] is True, "a closed issue counted as incomplete")}),
        # worktree false: the fixture copy lives in target/, inside docket's own repository, where a
        # worktree and branch would land in docket's repository.
        ("session_start", lambda: {"specFile": s["spec_file"], "workflow": "ci", "skipStepNames": ["lint"],
                                   "worktree": False},
         {"post": lambda sc: s.update(session=sc["session"]["sessionId"])}),
        ("session_phase", lambda: {"sessionId": s["session"], "phase": "plan", "status": "started",
                                   "metadata": {"by": "ci"}}, {}),
        ("session_checkpoint", lambda: {
            "sessionId": s["session"], "tasksCompleted": [s["id"]], "tasksPending": [],
            "lastAction": "called every tool", "resumeInstructions": "run the client again",
            "variables": {"client": "python"}, "stepResults": [{"stepName": "build", "status": "passed"}],
        }, {}),
        ("session_get", {}, {"post": lambda sc: expect(sc["session"]["sessionId"] == s["session"], "wrong session")}),
        ("session_get", lambda: {"sessionId": s["session"]}, {}),
        ("session_status", lambda: {"sessionId": s["session"]}, {}),
        ("session_complete", lambda: {
            "sessionId": s["session"], "status": "completed", "prUrl": "https://example.invalid/pr/1",
            "prNumber": 1, "summary": "All tools answered.",
            "stepExecutionSummary": {"totalSteps": 2, "executed": 1, "skipped": 1, "skippedSteps": ["lint"]},
        }, {"post": lambda sc: expect(sc["session"].get("status") == "completed", "session not completed")}),
        # Without sessionId only workflow-engine runs (wf-*) count, and this workspace has none.
        ("session_status", {}, {"expect_error": "NOT_FOUND"}),
        ("init_workspace", {}, {"post": lambda sc: expect(sc["status"] in ("compliant", "changes_needed"),
                                                          f"status {sc['status']}")}),
        ("init_workspace", {"fix": True}, {"post": lambda sc: expect(sc["status"] in ("compliant", "initialized"),
                                                                     f"status {sc['status']}")}),
        ("workspace_doctor", {}, {"post": lambda sc: expect(sc["total"] == len(sc["problems"]), f"doctor {sc}")}),
        # A deliberate failure: it is recorded in the error memory, and errors_resolve needs a pattern.
        ("issues_delete", lambda: {"id": s["id"]}, {"expect_error": "CONFIRMATION_REQUIRED"}),
        ("errors_resolve", lambda: {"patternId": s["pattern"], "resolution": "Pass confirm: true to delete."},
         {"before": "pattern",
          "post": lambda sc: expect(sc["patternId"] == s["pattern"] and sc["operation"] == "issues_delete",
                                    f"resolved {sc}")}),
        ("issues_delete", lambda: {"id": s["id"], "confirm": True}, {}),
        ("issues_get", lambda: {"id": s["id"]}, {"expect_error": "NOT_FOUND"}),
    ]


async def list_all(fetch, items_of, limit=100):
    """Follows nextCursor; returns (items, pages)."""
    items, cursor, pages = [], None, 0
    while True:
        res = await fetch(cursor)
        pages += 1
        items += items_of(res)
        cursor = g(res, "next_cursor", "nextCursor")
        if not cursor:
            return items, pages
        expect(pages < limit, f"more than {limit} pages")


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main(command, args):
    run = Run()
    state = {}
    env = dict(os.environ)
    async with stdio_client(StdioServerParameters(command=command, args=args, env=env)) as (read, write):
        async with ClientSession(read, write) as session:

            async def initialize():
                init = await session.initialize()
                info = g(init, "server_info", "serverInfo")
                expect(info.name == "docket", f"serverInfo.name = {info.name}")
                expect(init.capabilities.tools is not None, "no tools capability")
                state["caps"] = init.capabilities
                return f"{info.name} {info.version}, protocol {g(init, 'protocol_version', 'protocolVersion')}"

            if await run.check("initialize", initialize) is None:
                return run

            tools = {}

            async def tools_list():
                def page(cursor):
                    params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                    return session.list_tools(params=params)

                items, pages = await list_all(page, lambda r: r.tools)
                names = [t.name for t in items]
                expect(len(names) == len(set(names)), "duplicate tool names")
                tools.update({t.name: t for t in items})
                return f"{len(items)} tools in {pages} page(s)"

            await run.check("tools/list", tools_list)

            validators = {}
            for name, tool in tools.items():
                async def schemas(tool=tool):
                    Draft202012Validator.check_schema(g(tool, "input_schema", "inputSchema"))
                    out = g(tool, "output_schema", "outputSchema")
                    expect(out is not None, "no outputSchema")
                    Draft202012Validator.check_schema(out)
                    validators[tool.name] = Draft202012Validator(out)

                await run.check(f"schemas valid (2020-12): {name}", schemas)

            async def call(name, arguments, expect_error=None):
                result = await session.call_tool(name, arguments)  # the client checks outputSchema too
                is_error = g(result, "is_error", "isError")
                text = text_of(result)
                meta = g(result, "meta", "meta") or {}
                if expect_error:
                    expect(is_error, f"expected {expect_error}, got success: {text[:200]}")
                    code = (meta.get("error") or {}).get("code") or text.split(":", 1)[0]
                    expect(code == expect_error, f"expected {expect_error}, got {code}: {text[:200]}")
                    return None
                expect(not is_error, f"isError: {text[:300]}")
                sc = g(result, "structured_content", "structuredContent")
                expect(isinstance(sc, dict), "no structuredContent")
                expect(text.strip(), "no text block")
                if name in validators:
                    errors = sorted(validators[name].iter_errors(sc), key=lambda e: list(e.path))
                    expect(not errors, "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:3]))
                for key in ("tokens", "duration_ms"):
                    expect(key in meta, f"_meta has no {key}")
                state["meta"] = meta
                return sc

            # issues_list paged with a small limit until the cursor runs out.
            async def paging():
                seen, cursor, pages, total, titles, duplicates = [], None, 0, None, [], set()
                while True:
                    args_ = {"limit": 7, "fields": ["title"]} | ({"cursor": cursor} if cursor else {})
                    sc = await call("issues_list", args_)
                    pages += 1
                    seen += [i["id"] for i in sc["issues"]]
                    titles += [i.get("title", "") for i in sc["issues"]]
                    # Files sharing an id are all listed, with a DUPLICATE_ID warning naming the id.
                    duplicates |= {w["message"].split()[0] for w in state["meta"].get("warnings", [])
                                   if w.get("code") == "DUPLICATE_ID"}
                    total = sc["totalCount"] if total is None else total
                    cursor = sc.get("nextCursor")
                    if not cursor:
                        break
                    expect(pages < 1000, "cursor never ends")
                stats = await call("issues_stats", {"groupBy": "status"})
                repeated = {i for i in seen if seen.count(i) > 1} - duplicates
                expect(not repeated, f"issues came back twice: {sorted(repeated)[:5]}")
                expect(len(seen) == total == stats["total"],
                       f"paged {len(seen)}, totalCount {total}, issues_stats total {stats['total']}")
                state["first_id"] = seen[0]
                words = [w.strip(".,:;()[]'\"") for t in titles[:5] for w in t.split()]
                state["word"] = max(words, key=len) if words else "the"
                return f"{len(seen)} issues in {pages} pages of 7 = issues_stats total"

            await run.check("issues_list paging (limit 7, follow nextCursor)", paging)

            async def resources():
                expect(state["caps"].resources is not None, "no resources capability")
                items, pages = await list_all(
                    lambda c: session.list_resources(params=types.PaginatedRequestParams(cursor=c) if c else None),
                    lambda r: r.resources)
                uris = [str(r.uri) for r in items]
                templates = (await session.list_resource_templates()).resourceTemplates
                expect(templates, "no resource templates")
                issue_uri = next(u for u in uris if u.startswith("docket://issues/"))
                body = (await session.read_resource(issue_uri)).contents[0].text
                expect(body.strip(), f"{issue_uri} is empty")
                board = (await session.read_resource("docket://board")).contents[0].text
                expect(board.strip(), "docket://board is empty")
                config = json.loads((await session.read_resource("docket://config")).contents[0].text)
                state["workspace_dir"] = Path(config["workspace"])
                return f"{len(items)} resources in {pages} page(s), {len(templates)} templates; read {issue_uri}"

            await run.check("resources (list, templates, read)", resources)

            # session_start needs a spec file: one of the workspace's own specifications.
            ws = state.get("workspace_dir")
            specs = sorted((ws / "specifications").glob("*.md")) if ws else []
            if specs:
                state["spec_file"] = os.path.relpath(specs[0], ws.parent)
            else:
                state["spec_file"] = str(Path(__file__).resolve())

            called = set()
            for name, arguments, opts in samples(state):
                label = f"tools/call {name}"

                async def step(name=name, arguments=arguments, opts=opts):
                    if opts.get("before") == "pattern":
                        raw = (await session.read_resource("docket://errors/recent")).contents[0].text
                        patterns = json.loads(raw)["patterns"]
                        match = [p for p in patterns if p["operation"] == "issues_delete"]
                        expect(match, f"the failed issues_delete is not in docket://errors/recent: {raw[:300]}")
                        state["pattern"] = match[0]["id"]
                    args_ = arguments() if callable(arguments) else arguments
                    sc = await call(name, args_, opts.get("expect_error"))
                    if sc is not None and "post" in opts:
                        opts["post"](sc)
                    return json.dumps(args_, separators=(",", ":"))[:90]

                called.add(name)
                if name not in tools:
                    run.failed += 1
                    print(f"FAIL {label}: the sample table names a tool the server does not serve")
                    continue
                await run.check(label, step)

            for name in sorted(set(tools) - called):
                run.failed += 1
                print(f"FAIL tools/call {name}: no sample arguments in .ci/clients/python_client.py; add them")
    return run


if __name__ == "__main__":
    argv = sys.argv[1:] or ["target/debug/docket", "serve", "--demo"]
    try:
        result = asyncio.run(asyncio.wait_for(main(argv[0], argv[1:]), timeout=120))
    except Exception as e:  # noqa: BLE001
        print(f"FAIL client: {type(e).__name__}: {e}")
        print(f"{LABEL}: 0 passed, 1 failed")
        sys.exit(1)
    print(f"{LABEL}: {result.passed} passed, {result.failed} failed")
    sys.exit(1 if result.failed else 0)
