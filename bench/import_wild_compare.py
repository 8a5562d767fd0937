"""The pure comparisons of bench/bench_import_wild.py: which files of a checkout are plugin
files, which host layouts it holds, and whether a rebuilt file gives an original back."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path, PurePosixPath
from typing import Any

MANIFESTS = {
    ".claude-plugin/plugin.json": "claude",
    ".codex-plugin/plugin.json": "codex",
    ".cursor-plugin/plugin.json": "cursor",
    "gemini-extension.json": "gemini",
    ".github/plugin/plugin.json": "copilot",
}
MARKETPLACES = {
    ".claude-plugin/marketplace.json": "claude",
    ".agents/plugins/marketplace.json": "codex",
    ".cursor-plugin/marketplace.json": "cursor",
    ".github/plugin/marketplace.json": "copilot",
}


def ordered(value: Any) -> Any:
    """A JSON value with every object as a list of (key, value) pairs: equality sees key order."""
    if isinstance(value, dict):
        return [(k, ordered(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [ordered(v) for v in value]
    return value


def json_equal_ordered(a: bytes, b: bytes) -> bool:
    """Both parse as JSON and are equal with the same key order (False when either does not)."""
    try:
        return ordered(json.loads(a)) == ordered(json.loads(b))
    except ValueError:
        return False


def leaf_paths(value: Any, prefix: str = "") -> dict[str, Any]:
    """Every leaf of a JSON value (scalar, empty object or list) by its key path `a.b[0].c`."""
    if isinstance(value, dict) and value:
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(leaf_paths(v, f"{prefix}.{k}" if prefix else str(k)))
        return out
    if isinstance(value, list) and value:
        out = {}
        for i, v in enumerate(value):
            out.update(leaf_paths(v, f"{prefix}[{i}]"))
        return out
    return {prefix or "$": value}


def key_paths_kept(original: bytes, rebuilt: bytes | None) -> tuple[int, int, list[str]]:
    """(kept, total, lost paths) of the original's leaf key paths in the rebuild."""
    try:
        want = leaf_paths(json.loads(original))
    except ValueError:
        return 0, 0, []
    try:
        have = leaf_paths(json.loads(rebuilt)) if rebuilt is not None else {}
    except ValueError:
        have = {}
    lost = [
        p for p, v in want.items() if p not in have or have[p] != v or type(have[p]) is not type(v)
    ]
    return len(want) - len(lost), len(want), lost


def _local_source(entry: Any) -> str | None:
    """The relative folder a marketplace entry names, if it names one in the repository."""
    if not isinstance(entry, dict):
        return None
    src = entry.get("source")
    if isinstance(src, dict):
        src = (
            src.get("path")
            if src.get("source") in ("local", None)
            else (
                src.get("url")
                if isinstance(src.get("url"), str) and src["url"].startswith(".")
                else None
            )
        )
    if not isinstance(src, str) or "://" in src or src.startswith(("git@", "github:")):
        return None
    return src


def _parse(raw: bytes | None) -> Any:
    try:
        return json.loads(raw) if raw is not None else None
    except ValueError:
        return None


def plugin_roots(files: dict[str, bytes]) -> tuple[set[str], set[str]]:
    """(plugin folders, marketplace files) of a checkout given as {posix path: bytes}."""
    roots: set[str] = set()
    markets: set[str] = set()
    for path in files:
        for suffix in MANIFESTS:
            if path == suffix or path.endswith("/" + suffix):
                roots.add(path[: -len(suffix)].rstrip("/") or ".")
        for suffix in MARKETPLACES:
            if path == suffix or path.endswith("/" + suffix):
                markets.add(path)
    if isinstance(_parse(files.get("plugin.json")), dict) and "name" in _parse(
        files["plugin.json"]
    ):
        roots.add(".")  # Copilot CLI's own layout: plugin.json at the plugin folder's root
    for market in markets:
        base = PurePosixPath(market).parent.parent
        if market.endswith(".agents/plugins/marketplace.json") or market.endswith(
            ".github/plugin/marketplace.json"
        ):
            base = base.parent
        try:
            doc = json.loads(files[market])
        except ValueError:
            continue
        plugins = doc.get("plugins") if isinstance(doc, dict) else None
        meta = doc.get("metadata") if isinstance(doc, dict) else None
        root = meta.get("pluginRoot") if isinstance(meta, dict) else None
        for entry in plugins if isinstance(plugins, list) else []:
            src = _local_source(entry)
            if src is None:
                continue
            folder = _resolve(files, src, base, PurePosixPath(market).parent, root)
            if folder is not None:
                roots.add(folder)
    return roots, markets


def _resolve(
    files: dict[str, bytes], src: str, base: PurePosixPath, here: PurePosixPath, root: Any
) -> str | None:
    """The folder a local source names: under `pluginRoot` (bare names, and `./x` when only
    that exists), else from the marketplace's root, else from the file's own folder."""
    cands = [base / root / src] if isinstance(root, str) else []
    cands += [base / src, here / src]
    if isinstance(root, str) and not src.startswith("."):
        cands = cands[:1]
    norm = [os.path.normpath(str(c)).replace(os.sep, "/") for c in cands]
    inside = [n for n in norm if not n.startswith("..")]
    for n in inside:
        if n == "." or any(f.startswith(n + "/") for f in files):
            return n
    return inside[0] if inside else None


def plugin_files(files: dict[str, bytes]) -> list[str]:
    """The checkout's files that belong to a plugin folder or are a marketplace file."""
    roots, markets = plugin_roots(files)
    if "." in roots:
        return sorted(files)
    out = set(markets)
    for path in files:
        if any(path.startswith(r + "/") for r in roots):
            out.add(path)
    return sorted(out)


def layouts(files: dict[str, bytes]) -> list[str]:
    """Which host layouts a checkout holds: `claude-marketplace`, `codex-plugin`, ..."""
    found: set[str] = set()
    for path in files:
        for suffix, host in MARKETPLACES.items():
            if path == suffix or path.endswith("/" + suffix):
                found.add(f"{host}-marketplace")
        for suffix, host in MANIFESTS.items():
            if path == suffix or path.endswith("/" + suffix):
                found.add(f"{host}-plugin" if host != "gemini" else "gemini-extension")
        if path == "plugin.json" and isinstance(_parse(files[path]), dict):
            found.add("copilot-plugin-root")
        if path.endswith(".agent.md"):
            found.add("copilot-agent-md")
    return sorted(found)


def compare_file(orig: Path, rebuilt: Path) -> str | None:
    """None when REBUILT gives ORIG back, else why not (a short cause)."""
    if orig.is_symlink():
        if rebuilt.is_symlink():
            return None if os.readlink(orig) == os.readlink(rebuilt) else "link target differs"
        if not rebuilt.exists():
            return "missing"
    if not rebuilt.exists() and not rebuilt.is_symlink():
        return "missing"
    if not orig.exists():  # dangling link in the original
        return "dangling link"
    a, b = orig.read_bytes(), rebuilt.read_bytes()
    if orig.suffix == ".json":
        try:
            json.loads(a)
        except ValueError:
            pass
        else:
            return None if json_equal_ordered(a, b) else "json differs"
    if a != b:
        return "bytes differ"
    if bool(orig.stat().st_mode & stat.S_IXUSR) != bool(rebuilt.stat().st_mode & stat.S_IXUSR):
        return "mode differs"
    return None


def normalise(reason: str) -> str:
    """A cause without its particulars: quoted names, numbers, paths after the first clause."""
    first = re.split(r"\. Fix:|; |\n", reason.strip(), maxsplit=1)[0]
    first = re.sub(r"(?<!\w)'[^']*'|`[^`]*`|\"[^\"]*\"", "X", first)
    first = re.sub(r"/tmp\S*|\S+\.(json|md|yaml|toml)\S*", "PATH", first)
    return re.sub(r"\d+", "N", first)[:120]
