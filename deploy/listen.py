#!/usr/bin/env python3
"""Holds a `subscriptions/listen` stream open on one Folio replica and waits for it to say the
catalog changed (`notifications/resources/list_changed`). Prints `acknowledged` once the stream
is open (on stdout, flushed), then `changed` when the notification arrives; exits 1 if the stream
ends or `--timeout` seconds pass first. Standard library only.

Usage: listen.py http://127.0.0.1:8091/mcp [--timeout 120]
"""
import argparse
import http.client
import json
import sys
import urllib.parse

ap = argparse.ArgumentParser()
ap.add_argument("url")
ap.add_argument("--timeout", type=float, default=120)
args = ap.parse_args()
url = urllib.parse.urlparse(args.url)
meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "folio-listen", "version": "1"}}
body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
                   "params": {"_meta": meta, "notifications": {"resourcesListChanged": True}}})
conn = http.client.HTTPConnection(url.hostname, url.port, timeout=args.timeout)
conn.request("POST", url.path, body, {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                                      "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"})
response = conn.getresponse()
if response.status != 200:
    print(f"listen refused: HTTP {response.status}", flush=True)
    sys.exit(1)
try:
    for raw in response:
        line = raw.decode().strip()
        if not line.startswith("data:"):
            continue
        message = json.loads(line[5:])
        method = message.get("method", "")
        if method == "notifications/subscriptions/acknowledged":
            print("acknowledged", flush=True)
        elif method == "notifications/resources/list_changed":
            print("changed", flush=True)
            sys.exit(0)
except (TimeoutError, OSError) as e:
    print(f"no change announced: {e}", flush=True)
    sys.exit(1)
print("the stream ended without announcing a change", flush=True)
sys.exit(1)
