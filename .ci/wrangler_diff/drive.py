#!/usr/bin/env python3
"""Differential run, by hand: make the same tool calls against an MCP server over stdio and print
one JSON line per call, to compare wrangler's bundled server with docket (docs/compatibility.md).

usage: drive.py CALLS.json WORKSPACE_ROOT COMMAND...
The server runs in WORKSPACE_ROOT (wrangler serves its current directory), after a workflow-engine
session is written there for the session_status calls. In CALLS.json, "args"
may use %(name)s placeholders filled from earlier calls: "capture": NAME takes the first issue ID
in a call's text, "capture_session": NAME the sessionId of its result.
"""
import json, os, re, subprocess, sys

calls_file, cwd, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]

# A workflow-engine run as wrangler's engine writes it, for the session_status calls.
run = os.path.join(cwd, ".wrangler", "sessions", "wf-2026-02-16-ba6fcb97")
os.makedirs(run, exist_ok=True)
with open(os.path.join(run, "context.json"), "w") as f:
    json.dump({"id": "wf-2026-02-16-ba6fcb97", "specFile": "spec.md", "status": "running", "currentPhase": "init",
               "worktreePath": "/w", "branchName": "wf-branch", "phasesCompleted": [], "tasksCompleted": ["a"],
               "tasksPending": ["b", "c"], "startedAt": "2026-02-16T21:58:00.000Z",
               "updatedAt": "2026-02-16T21:58:00.000Z"}, f)
with open(os.path.join(run, "audit.jsonl"), "w") as f:
    f.write('{"step":"init","status":"completed","timestamp":"2026-02-16T21:58:00.000Z"}\n')
    f.write('{"step":"execute","status":"started","timestamp":"2026-02-16T22:03:48.990Z"}\n')
env = dict(os.environ, WRANGLER_WORKSPACE_ROOT=cwd)
env.pop("DOCKET_WORKSPACE", None)
proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, text=True, env=env)
last_id = [0]


def rpc(method, params, notify=False):
    msg = {"jsonrpc": "2.0", "method": method, "params": params}
    if not notify:
        last_id[0] += 1
        msg["id"] = last_id[0]
    proc.stdin.write(json.dumps(msg) + "\n")
    proc.stdin.flush()
    while not notify:
        line = proc.stdout.readline()
        if not line:
            sys.exit(f"the server closed its output during {method}")
        reply = json.loads(line)
        if reply.get("id") == last_id[0]:
            return reply


rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "wrangler-diff", "version": "0"}})
rpc("notifications/initialized", {}, notify=True)
captured = {}
for c in json.load(open(calls_file)):
    args = json.loads(json.dumps(c["args"]) % captured) if "%(" in json.dumps(c["args"]) else c["args"]
    reply = rpc("tools/call", {"name": c["tool"], "arguments": args})
    res = reply.get("result") or {}
    text = "\n".join(x.get("text", "") for x in res.get("content", []) if x.get("type") == "text")
    # docket: structuredContent; wrangler: its non-standard `metadata` member.
    data = res.get("structuredContent") or res.get("metadata") or {}
    if c.get("capture"):
        found = re.search(r"\b(?:ISS|SPEC|IDEA)-\d{6}\b", text)
        if found:
            captured[c["capture"]] = found.group(0)
    if c.get("capture_session"):
        sid = data.get("sessionId") or (data.get("session") or {}).get("sessionId")
        if sid:
            captured[c["capture_session"]] = sid
    total = next((data[k] for k in ("totalCount", "totalResults", "totalIssues", "total") if k in data), None)
    print(json.dumps({"label": c["label"], "tool": c["tool"], "args": args, "protocolError": reply.get("error"),
                      "isError": res.get("isError", False), "text": text[:600], "tail": text[-300:],
                      "keys": sorted(data), "total": total,
                      "data": {k: data[k] for k in c.get("show", []) if k in data}}))
proc.stdin.close()
proc.wait(timeout=10)
