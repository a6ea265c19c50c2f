#!/usr/bin/env python3
"""Counts, for a checked-out skill collection, the skills its hosts would load, independently of
Folio: Claude Code plugins listed in `.claude-plugin/marketplace.json` (a relative `source`; the
`skills` paths of the entry and of `<plugin>/.claude-plugin/plugin.json`, default `skills/`; a
path holding SKILL.md is one skill, else each `<path>/<name>/SKILL.md`), a root
`.claude-plugin/plugin.json` without a marketplace, and the project folders `.claude/skills`,
`.agents/skills`, `.github/skills`, `.codex/skills` (`<name>/SKILL.md`). A skill reached twice
through links (`.agents/skills -> ../skills`) counts once. Prints one number.

Usage: count.py TREE
"""
import json
import os
import sys

root = os.path.realpath(sys.argv[1])
seen = set()


def skills_in(path):
    if os.path.isfile(os.path.join(path, "SKILL.md")):
        seen.add(os.path.realpath(path))
        return
    if not os.path.isdir(path):
        return
    for name in sorted(os.listdir(path)):
        if os.path.isfile(os.path.join(path, name, "SKILL.md")):
            seen.add(os.path.realpath(os.path.join(path, name)))


def plugin(directory, entry, strict=True):
    paths = []
    manifest = os.path.join(directory, ".claude-plugin", "plugin.json")
    sources = [entry or {}]
    if strict and os.path.isfile(manifest):
        sources.insert(0, json.load(open(manifest)))
    for source in sources:
        value = source.get("skills")
        if isinstance(value, str):
            paths.append(value)
        elif isinstance(value, list):
            paths.extend(v for v in value if isinstance(v, str))
    for path in paths or ["skills"]:
        skills_in(os.path.normpath(os.path.join(directory, path)))


market = os.path.join(root, ".claude-plugin", "marketplace.json")
if os.path.isfile(market):
    data = json.load(open(market))
    base = (data.get("metadata") or {}).get("pluginRoot", "")
    for entry in data.get("plugins", []):
        source = entry.get("source")
        if not isinstance(source, str):
            continue
        if not source.startswith(("./", "../")) and base:
            source = os.path.join(base, source)
        plugin(os.path.normpath(os.path.join(root, source)), entry, entry.get("strict", True))
elif os.path.isfile(os.path.join(root, ".claude-plugin", "plugin.json")):
    plugin(root, None)
for folder in [".claude/skills", ".agents/skills", ".github/skills", ".codex/skills"]:
    path = os.path.join(root, folder)
    if os.path.isdir(path):
        for name in sorted(os.listdir(path)):
            if os.path.isfile(os.path.join(path, name, "SKILL.md")):
                seen.add(os.path.realpath(os.path.join(path, name)))
print(len(seen))
