#!/usr/bin/env python3
"""Prints the tools/list result of a running `docket serve` (raw JSON-RPC over its stdio pipe).

usage: tools_list.py DOCKET_BINARY [serve args...]
"""
import json, subprocess, sys

proc = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

def request(msg):
    proc.stdin.write(json.dumps(msg) + "\n")
    proc.stdin.flush()
    if "id" not in msg:
        return None
    while True:
        reply = json.loads(proc.stdout.readline())
        if reply.get("id") == msg["id"]:
            return reply

request({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "ci", "version": "0"}}})
request({"jsonrpc": "2.0", "method": "notifications/initialized"})
tools = request({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
proc.stdin.close()
proc.wait(timeout=10)
json.dump(tools["result"], sys.stdout)
