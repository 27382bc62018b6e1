#!/usr/bin/env python3
"""Drives `docket serve` over stdio with the official Python MCP client (PyPI `mcp`, pinned in
requirements.txt) and checks everything a real client sees.

usage: python_client.py [DOCKET_BINARY [serve args...]]
       (default: target/debug/docket serve --demo)

Checks: initialize; tools/list followed through nextCursor; every inputSchema and outputSchema is a
valid JSON Schema 2020-12 document; issues_list paged with a small limit until the cursor runs out
(the count matches issues_stats); resources/list, resources/templates/list and resources/read; then
the manifest's sample calls (tools.yaml `samples:`), in order, from the JSON that
`cargo run -p codegen -- samples` prints (path in $DOCKET_SAMPLES, default target/samples.json):
each structuredContent is validated against the tool's outputSchema (the mcp client validates too
and raises on a mismatch) and must hold the sample's `expect` values, and a sample with `error`
must fail with that code. tests/common/samples.rs runs the same list the same way.

A served tool that no sample calls successfully is a failure, so a new tool cannot go untested.
Prints one line per check, then `python mcp client: N passed, N failed`; exits 1 on any failure.
"""

import asyncio
import json
import os
import re
import sys
import traceback

from jsonschema import Draft202012Validator
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

LABEL = "python mcp client"
SAMPLES = os.environ.get("DOCKET_SAMPLES", "target/samples.json")
# Another server of the toolkit (toolkit/examples/bookmarks): its serverInfo.name; the checks of docket's
# own tools and resources (paging, resources) run for docket only.
SERVER = os.environ.get("CLIENT_SERVER", "docket")


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

    def fail(self, name, message):
        self.failed += 1
        print(f"FAIL {name}: {message}")


MISSING = object()


def at(doc, pointer):
    """The value at a JSON pointer (RFC 6901) in `doc`, or MISSING."""
    if pointer == "":
        return doc
    if not pointer.startswith("/"):
        return MISSING
    for token in pointer[1:].split("/"):
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(doc, dict) and token in doc:
            doc = doc[token]
        elif isinstance(doc, list) and token.isdigit() and int(token) < len(doc):
            doc = doc[int(token)]
        else:
            return MISSING
    return doc


def same(a, b):
    """JSON equality, where unlike == true is not 1."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def compact(value):
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class Runner:
    """Keeps the values samples save for the later ones (the rules of tests/common/samples.rs)."""

    def __init__(self):
        self.vars = {}

    def save(self, doc, names, what):
        for name, pointer in (names or {}).items():
            value = at(doc, pointer)
            expect(value is not MISSING, f"{what}: nothing at {pointer} in {compact(doc)[:300]}")
            self.vars[name] = value

    def substitute(self, v):
        """`$name` strings become the saved value; `${name}` inside a string its text."""
        if isinstance(v, str):
            if v.startswith("$") and v[1:] in self.vars:
                return self.vars[v[1:]]
            for name, value in self.vars.items():
                v = v.replace("${" + name + "}", value if isinstance(value, str) else compact(value))
            return v
        if isinstance(v, list):
            return [self.substitute(x) for x in v]
        if isinstance(v, dict):
            return {k: self.substitute(x) for k, x in v.items()}
        return v


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
                expect(info.name == SERVER, f"serverInfo.name = {info.name}")
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
                state["text"] = text
                return sc

            # issues_list paged with a small limit until the cursor runs out.
            async def paging():
                seen, cursor, pages, total, duplicates = [], None, 0, None, set()
                while True:
                    args_ = {"limit": 7, "fields": ["title"]} | ({"cursor": cursor} if cursor else {})
                    sc = await call("issues_list", args_)
                    pages += 1
                    seen += [i["id"] for i in sc["issues"]]
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
                # Files without frontmatter are listed (wrangler lists them) but not counted as issues.
                plain = re.search(r"(\d+) file\(s\) without frontmatter are not issues", state["text"])
                counted = stats["total"] + (int(plain.group(1)) if plain else 0)
                expect(len(seen) == total == counted,
                       f"paged {len(seen)}, totalCount {total}, issues_stats total {stats['total']} + {counted - stats['total']} without frontmatter")
                return f"{len(seen)} issues in {pages} pages of 7 = issues_stats total"

            if SERVER == "docket":
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
                expect(config.get("workspace"), "docket://config names no workspace")
                return f"{len(items)} resources in {pages} page(s), {len(templates)} templates; read {issue_uri}"

            if SERVER == "docket":
                await run.check("resources (list, templates, read)", resources)

            async def load():
                try:
                    with open(SAMPLES, encoding="utf-8") as f:
                        state["samples"] = json.load(f)
                except (OSError, ValueError) as e:
                    raise Failure(f"{e}; write it with `cargo run -p codegen -- samples > {SAMPLES}`") from e
                expect(isinstance(state["samples"], list), "not a JSON array")
                return f"{len(state['samples'])} samples from tools.yaml"

            if await run.check(f"samples ({SAMPLES})", load) is None:
                return run

            # The manifest's samples, in order: read a resource first if asked, substitute the
            # values earlier samples saved, call, check the error code or the `expect` values, save.
            runner = Runner()
            succeeded = set()
            for sample in state["samples"]:
                name = sample["tool"]
                label = f"tools/call {name}"
                if name not in tools:
                    run.fail(label, "tools.yaml has a sample for a tool the server does not serve")
                    continue

                async def step(sample=sample, name=name):
                    if "read" in sample:
                        uri = sample["read"]["uri"]
                        body = json.loads((await session.read_resource(uri)).contents[0].text)
                        runner.save(body, sample["read"].get("save"), uri)
                    args_ = runner.substitute(sample.get("args", {}))
                    sc = await call(name, args_, sample.get("error"))
                    if sc is not None:
                        for pointer, want in sample.get("expect", {}).items():
                            want, got = runner.substitute(want), at(sc, pointer)
                            expect(got is not MISSING and same(got, want),
                                   f"{pointer} is {'missing' if got is MISSING else compact(got)[:200]}, "
                                   f"expected {compact(want)[:200]}")
                        runner.save(sc, sample.get("save"), name)
                        succeeded.add(name)
                    return compact(args_)[:90]

                await run.check(label, step)

            for name in sorted(set(tools) - succeeded):
                run.fail(f"tools/call {name}",
                         "no sample calls it successfully; add `samples:` to its entry in tools.yaml")
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
