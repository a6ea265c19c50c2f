#!/usr/bin/env python3
"""A client load against Folio's Streamable HTTP endpoint, checking every answer.

Each worker keeps one HTTP/1.1 connection (reopened when the server closes it) and loops over a
mix of requests: reads of docs and skill files (the answer's text must be byte-equal to the
file of the content tree the catalog was built from), listings followed through their cursors,
searches, and skill fetches. A failed request (no answer, a status other than 200, a JSON-RPC
error) and a wrong answer (bytes that differ) are counted apart; a listing continued on another
catalog must fail with the documented stale-cursor error (-32602 naming `cursor`), which is
counted as a restart, not a failure. Prints one JSON summary line; exits 1 on any failure or
wrong answer.

Usage: loadcheck.py --url http://127.0.0.1:8080/mcp --content DIR --manifest catalog/manifest.json
       [--content-b DIR --manifest-b FILE] [--workers 16] [--seconds 20 | --requests N]
The -b pair names a second catalog a rolling update moves to: an answer must match one of the
two trees, never a mix. Standard library only.
"""
import argparse
import http.client
import json
import random
import sys
import threading
import time
import urllib.parse

VERSION = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "folio-loadcheck", "version": "1"},
}


def load_tree(manifest_path, content):
    manifest = json.load(open(manifest_path))
    entries = {}
    for e in manifest["entries"]:
        entries[e["uri"]] = (content, e["path"], e["kind"])
    return manifest["catalog_hash"], entries


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {"requests": 0, "failed": 0, "wrong": 0, "restarted_listings": 0, "reads": 0,
                       "lists": 0, "searches": 0, "skills": 0, "retried_connections": 0}
        self.examples = []

    def add(self, key, example=None):
        with self.lock:
            self.counts[key] += 1
            if example and len(self.examples) < 10:
                self.examples.append(example)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--content", required=True)
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--content-b")
    ap.add_argument("--manifest-b")
    ap.add_argument("--workers", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--requests", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sweep", action="store_true", help="read every entry once (checking its bytes), then stop")
    args = ap.parse_args()

    trees = [load_tree(args.manifest, args.content)]
    if args.content_b:
        trees.append(load_tree(args.manifest_b, args.content_b))
    uris = sorted(set().union(*[t[1].keys() for t in trees]))
    skills = [u for u in uris if u.startswith("skill://") and u.endswith("/SKILL.md")]
    cache = {}

    def expected(uri):
        """The bytes each tree holds at `uri` (None where a tree does not have it)."""
        out = []
        for _, entries in trees:
            hit = entries.get(uri)
            if hit is None:
                out.append(None)
                continue
            key = (hit[0], hit[1])
            if key not in cache:
                with open(f"{hit[0]}/{hit[1]}", "rb") as f:
                    cache[key] = f.read()
            out.append(cache[key])
        return out

    def not_found(error, uri):
        """MCP's resource-not-found: -32602 with `data.uri` (2026-07-28), -32002 before it."""
        return error.get("code") in (-32602, -32002) and (error.get("data") or {}).get("uri") == uri

    def matches(uri, content):
        """An answer is a tree's bytes at `uri`; a bounded read (`dev.folio/truncated`, a file
        over `max_read_bytes`) is the start of them."""
        got = content["text"].encode() if "text" in content else __import__("base64").b64decode(content["blob"])
        truncated = content.get("_meta", {}).get("dev.folio/truncated")
        if truncated:
            # The shown lines, then the server's note saying where the rest is.
            got = got[: got.rfind(b"<!-- folio: truncated")]
        return any(e is not None and (e.startswith(got) if truncated else e == got) for e in expected(uri))

    url = urllib.parse.urlparse(args.url)
    stats = Stats()
    deadline = time.monotonic() + args.seconds
    budget = [args.requests]
    budget_lock = threading.Lock()

    def take():
        if args.requests:
            with budget_lock:
                if budget[0] <= 0:
                    return False
                budget[0] -= 1
                return True
        return time.monotonic() < deadline

    def worker(n):
        rng = random.Random(args.seed * 1000 + n)
        conn = None
        next_id = 0

        def call(method, params, name=None):
            nonlocal conn, next_id
            next_id += 1
            body = json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method,
                               "params": dict(params, _meta=META)}).encode()
            headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                       "MCP-Protocol-Version": VERSION, "Mcp-Method": method}
            if name is not None:
                headers["Mcp-Name"] = name
            for attempt in range(2):
                try:
                    if conn is None:
                        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
                    conn.request("POST", url.path, body, headers)
                    response = conn.getresponse()
                    data = response.read()
                    if response.getheader("connection", "").lower() == "close":
                        conn.close()
                        conn = None
                    return response.status, data
                except (ConnectionError, http.client.HTTPException, OSError):
                    # The load balancer closed an idle keep-alive connection: a new connection is
                    # not a retried request (the request was never answered).
                    if conn is not None:
                        conn.close()
                    conn = None
                    if attempt == 0:
                        stats.add("retried_connections")
                        continue
                    return None, b""

        if args.sweep:
            for uri in uris[n::args.workers]:
                stats.add("requests")
                stats.add("reads")
                status, data = call("resources/read", {"uri": uri}, uri)
                answer = json.loads(data) if status == 200 else {}
                if status != 200 or "error" in answer:
                    stats.add("failed", f"read {uri}: HTTP {status}")
                    continue
                if not matches(uri, answer["result"]["contents"][0]):
                    stats.add("wrong", f"read {uri}: the bytes match no tree")
        while not args.sweep and take():
            stats.add("requests")
            kind = rng.random()
            if kind < 0.6:
                uri = rng.choice(uris)
                status, data = call("resources/read", {"uri": uri}, uri)
                stats.add("reads")
                if status != 200:
                    stats.add("failed", f"read {uri}: HTTP {status}")
                    continue
                answer = json.loads(data)
                if "error" in answer:
                    if not_found(answer["error"], uri) and None in expected(uri):
                        continue  # not in the catalog this replica serves (a rolling update)
                    stats.add("failed", f"read {uri}: {answer['error']}")
                    continue
                if not matches(uri, answer["result"]["contents"][0]):
                    stats.add("wrong", f"read {uri}: the bytes match no tree")
            elif kind < 0.75:
                stats.add("lists")
                cursor = None
                for _ in range(3):
                    params = {"cursor": cursor} if cursor else {}
                    status, data = call("resources/list", params)
                    if status != 200:
                        stats.add("failed", f"list: HTTP {status}")
                        break
                    answer = json.loads(data)
                    if "error" in answer:
                        err = answer["error"]
                        if cursor and err.get("code") == -32602 and "cursor" in json.dumps(err):
                            stats.add("restarted_listings")
                        else:
                            stats.add("failed", f"list: {err}")
                        break
                    for item in answer["result"]["resources"]:
                        if item["uri"] not in uris and not item["uri"].startswith("resource://catalog/"):
                            stats.add("wrong", f"list: {item['uri']} is in no tree")
                    cursor = answer["result"].get("nextCursor")
                    if not cursor:
                        break
            elif kind < 0.9:
                stats.add("searches")
                query = rng.choice(["server", "deploy", "archive", "agent file", "team", "config", "install"])
                status, data = call("tools/call", {"name": "search_patterns", "arguments": {"query": query}},
                                    "search_patterns")
                if status != 200 or "error" in json.loads(data) or json.loads(data)["result"].get("isError"):
                    stats.add("failed", f"search {query}: HTTP {status} {data[:200]!r}")
            else:
                stats.add("skills")
                if not skills:
                    continue
                uri = rng.choice(skills)
                status, data = call("resources/read", {"uri": uri}, uri)
                answer = json.loads(data) if status == 200 else {}
                if status != 200 or "error" in answer:
                    if "error" in answer and not_found(answer["error"], uri) and None in expected(uri):
                        continue
                    stats.add("failed", f"skill {uri}: HTTP {status} {answer.get('error')}")
                elif not matches(uri, answer["result"]["contents"][0]):
                    stats.add("wrong", f"skill {uri}: the bytes match no tree")
        if conn is not None:
            conn.close()

    started = time.monotonic()
    threads = [threading.Thread(target=worker, args=(n,)) for n in range(args.workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    summary = dict(stats.counts, seconds=round(elapsed, 2),
                   requests_per_second=round(stats.counts["requests"] / elapsed, 1), examples=stats.examples)
    print(json.dumps(summary))
    return 1 if stats.counts["failed"] or stats.counts["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
