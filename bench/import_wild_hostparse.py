"""The pure part of bench/import_wild_hosts.py: where each host finds plugins in a tree, what
its CLI's output says is loaded (as component keys), and how many of an original's components
a rebuild loads by name. No process is run here."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Any

from import_wild_compare import _local_source, _resolve

SKIP_DIRS = {".git", "node_modules"}


def tree_files(root: Path) -> dict[str, bytes]:
    """{posix path: bytes} of the manifests and marketplaces of a tree (other files: b'')."""
    out: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in filenames:
            p = Path(dirpath) / name
            rel = p.relative_to(root).as_posix()
            try:
                out[rel] = p.read_bytes() if name.endswith(".json") else b""
            except OSError:
                out[rel] = b""
    return out


def _json(raw: bytes | None) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


def _with_suffix(files: dict[str, bytes], suffix: str) -> list[str]:
    return sorted(p for p in files if p == suffix or p.endswith("/" + suffix))


def _folder(path: str, suffix: str) -> str:
    return path[: -len(suffix)].rstrip("/") or "."


def marketplace_sources(files: dict[str, bytes], market: str) -> list[tuple[str, str]]:
    """(entry name, folder) of each local source a marketplace file lists."""
    doc = _json(files.get(market))
    if not isinstance(doc, dict) or not isinstance(doc.get("plugins"), list):
        return []
    depth = (
        3
        if market.endswith((".agents/plugins/marketplace.json", ".github/plugin/marketplace.json"))
        else 2
    )
    base = PurePosixPath(market)
    for _ in range(depth):
        base = base.parent
    meta = doc.get("metadata")
    root = meta.get("pluginRoot") if isinstance(meta, dict) else None
    out = []
    for entry in doc["plugins"]:
        src = _local_source(entry)
        folder = _resolve(files, src, base, PurePosixPath(market).parent, root) if src else None
        if folder is not None:
            out.append((str(entry.get("name", folder)), folder))
    return out


def claude_targets(files: dict[str, bytes]) -> list[tuple[str, str]]:
    """(plugin name, what to validate) for Claude Code: every .claude-plugin/plugin.json, and
    every folder a Claude marketplace lists that has none (validated as a folder)."""
    out: dict[str, str] = {}
    for manifest in _with_suffix(files, ".claude-plugin/plugin.json"):
        doc = _json(files[manifest])
        folder = _folder(manifest, ".claude-plugin/plugin.json")
        name = doc.get("name") if isinstance(doc, dict) else None
        out[manifest] = str(name or PurePosixPath(folder).name or "root")
    for market in _with_suffix(files, ".claude-plugin/marketplace.json"):
        for name, folder in marketplace_sources(files, market):
            manifest = f"{folder}/.claude-plugin/plugin.json".removeprefix("./")
            if manifest not in files:
                out.setdefault(folder, name)
    return [(name, target) for target, name in sorted(out.items())]


def market_roots(files: dict[str, bytes], suffix: str) -> list[str]:
    """The folders a host's `marketplace add` takes: the folder holding `suffix`'s top."""
    depth = suffix.count("/")
    roots = []
    for market in _with_suffix(files, suffix):
        parts = PurePosixPath(market).parts[: -(depth + 1)]
        roots.append("/".join(parts) or ".")
    return roots


def unlisted_codex_plugins(files: dict[str, bytes]) -> list[str]:
    """Folders with .codex-plugin/plugin.json that no Codex marketplace of the tree lists."""
    listed = {
        folder
        for market in _with_suffix(files, ".agents/plugins/marketplace.json")
        for _, folder in marketplace_sources(files, market)
    }
    found = [
        _folder(m, ".codex-plugin/plugin.json")
        for m in _with_suffix(files, ".codex-plugin/plugin.json")
    ]
    return [f for f in found if f not in listed]


def gemini_extensions(files: dict[str, bytes]) -> list[str]:
    """Folders holding a gemini-extension.json."""
    return [
        _folder(m, "gemini-extension.json") for m in _with_suffix(files, "gemini-extension.json")
    ]


# ---- what the CLIs print, as component keys ----


def claude_components(plugin: str, report: dict[str, Any]) -> dict[str, list[str]]:
    """`claude plugin validate --json`'s `provides` as keys: skills, agents and commands come
    named `plugin:name`; hooks and servers are prefixed with the plugin's name here."""
    provides = report.get("provides")
    out: dict[str, list[str]] = {}
    if not isinstance(provides, dict):
        return out
    for kind, items in provides.items():
        if not isinstance(items, list) or not items:
            continue
        keys = []
        for item in items:
            if isinstance(item, str):
                keys.append(item if ":" in item else f"{plugin}:{item}")
            elif isinstance(item, dict) and kind == "hooks":
                what = item.get("command") or item.get("url") or item.get("prompt") or ""
                keys.append(
                    f"{plugin}:{item.get('event')}|{item.get('matcher', '')}|{item.get('type')}|{what}"
                )
            elif isinstance(item, dict):
                keys.append(f"{plugin}:{item.get('name', json.dumps(item, sort_keys=True))}")
        out[kind] = keys
    return out


_EXTENSION = re.compile(r"^([\u2713\u2717]) (\S+) \((.*)\)$")
_FIELD = re.compile(r"^ (\S[^:]*):\s*(.*)$")
_NOT_COMPONENTS = {"ID", "name", "Path", "Source", "Enabled (User)", "Enabled (Workspace)"}


def parse_gemini_list(text: str) -> dict[str, dict[str, Any]]:
    """`gemini extensions list` -> {extension: {field: value or [items]}} (a field without a
    value opens a list of indented items)."""
    out: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    items: list[str] | None = None
    for line in text.splitlines():
        if m := _EXTENSION.match(line):
            current = out[m.group(2)] = {"enabled": m.group(1) == "\u2713", "version": m.group(3)}
            items = None
        elif current is None:
            continue
        elif m := _FIELD.match(line):
            key, value = m.groups()
            if value:
                current[key], items = value, None
            else:
                items = current[key] = []
        elif line.startswith("  ") and items is not None:
            items.append(line.strip())
    return out


def gemini_components(listed: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """Enabled extensions and each list they show (MCP servers, skills, context files...), as
    `extension:item` (a skill by its name, a file by its path inside the extension)."""
    out: dict[str, list[str]] = {"extensions": []}
    for ext, fields in sorted(listed.items()):
        if not fields.get("enabled"):
            continue
        out["extensions"].append(ext)
        where = str(fields.get("Path", ""))
        for key, value in fields.items():
            if key in _NOT_COMPONENTS or not isinstance(value, list):
                continue
            for item in value:
                name = item.split(": ", 1)[0] if key == "Agent skills" else item
                if where and name.startswith(where + "/"):
                    name = name[len(where) + 1 :]
                out.setdefault(key.lower(), []).append(f"{ext}:{name}")
    return out


def copilot_market_name(text: str) -> str | None:
    """The name in `copilot plugin marketplace add`'s `Marketplace "NAME" added ...`."""
    m = re.search(r'Marketplace "([^"]+)" added', text)
    return m.group(1) if m else None


# ---- before and after ----


def compare(before: dict[str, list[str]], after: dict[str, list[str]]) -> dict[str, Any]:
    """Per kind: components the original loads, how many of them (by name, counted as a
    multiset) the rebuild loads, and the first few it does not."""
    out: dict[str, Any] = {}
    for kind in sorted(before):
        want, have = Counter(before[kind]), Counter(after.get(kind, []))
        lost = sorted((want - have).elements())
        out[kind] = {
            "original": sum(want.values()),
            "rebuild": sum((want & have).values()),
            "lost": lost[:8] + ([f"... {len(lost) - 8} more"] if len(lost) > 8 else []),
        }
    return out


def hosts_table(rows: list[dict[str, Any]]) -> str:
    """Markdown: per repository and host, components the original loads and how many of them
    the rebuild loads, per kind; a failed or missing CLI says so."""
    lines = [
        "| repository | host | loaded from the rebuild / from the original | not loaded (first); CLI failures |",
        "|---|---|---|---|",
    ]
    totals: dict[str, list[int]] = {}
    for r in rows:
        for host, m in (r.get("hosts") or {}).items():
            kinds = m.get("kinds", {})
            cells = ", ".join(f"{k} {v['rebuild']}/{v['original']}" for k, v in kinds.items())
            for k, v in kinds.items():
                t = totals.setdefault(f"{host} {k}", [0, 0])
                t[0], t[1] = t[0] + v["rebuild"], t[1] + v["original"]
            notes = [
                f"{side}: {m[side]['status']} {'; '.join(m[side].get('errors', [])[:2])}".strip()
                for side in ("original", "rebuild")
                if m[side]["status"] != "ok" or m[side].get("errors")
            ]
            lost = [x for v in kinds.values() for x in v["lost"]][:3]
            lines.append(
                f"| {r['repo']} | {host} | {cells or 'nothing'} | "
                f"{'; '.join(lost + notes).replace('|', '/')[:400]} |"
            )
    total = ", ".join(f"{k} {b}/{a}" for k, (b, a) in sorted(totals.items()))
    lines.append(f"| **all** | | {total} | |")
    return "\n".join(lines)
