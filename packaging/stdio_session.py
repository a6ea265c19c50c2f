#!/usr/bin/env python3
"""Runs the given command (an installed `folio serve`) and holds a short MCP session with it over
stdio: server/discover, a read of the embedded manual's first page, a search. Exits 1 with the
reason when an answer is missing or wrong. Standard library only; used by packaging/test.sh."""
import json
import subprocess
import sys

META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "packaging-test", "version": "1"}}


def request(i, method, params):
    return json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": dict(params, _meta=META)}) + "\n"


session = (request(1, "server/discover", {})
           + request(2, "resources/read", {"uri": "resource://docs/getting-started.md"})
           + request(3, "tools/call", {"name": "search_patterns", "arguments": {"query": "bearer token"}}))
done = subprocess.run(sys.argv[1:], input=session.encode(), capture_output=True, timeout=60)
answers = {}
for line in done.stdout.decode().splitlines():
    message = json.loads(line)
    answers[message.get("id")] = message
try:
    assert answers[1]["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "folio", answers.get(1)
    assert answers[2]["result"]["contents"][0]["text"].startswith("---\ntitle: Getting started"), answers.get(2)
    assert "resource://" in answers[3]["result"]["content"][0]["text"], answers.get(3)
except (AssertionError, KeyError) as e:
    print(f"stdio session through {sys.argv[1]} failed: {e!r}\nstderr: {done.stderr.decode()[-2000:]}")
    sys.exit(1)
