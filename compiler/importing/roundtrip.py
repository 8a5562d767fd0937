"""The round trip of `memhub import --from-repo`: build the imported hub, compare with the repo.

JSON files must be JSON-equal with the same key order, every other file byte-identical with
the same executable bit; a link must come back as a link with the same target text, and the
files reached through it are compared where the build's links lead. Each difference is one
`Unreproduced` (path and reason); the counts (files, JSON key paths and links reproduced /
total) are the import's figures.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memhub.compiler.artifact import Artifact, is_link_entry
from memhub.compiler.importing.repo import GENERATED
from memhub.compiler.importing.repo_links import KEPT_NOT
from memhub.compiler.importing.repo_market import RepoImport
from memhub.compiler.importing.repo_parts import Unreproduced
from memhub.compiler.importing.repo_tree import RepoFile, Tree, links_of
from memhub.compiler.links import resolve
from memhub.hubspec import MemhubError

MAX_SHOWN = 3  # differing key paths named per file
MAX_SETTLE = 60  # builds tried while refused components and units are taken out


@dataclass
class RoundTrip:
    files_total: int = 0
    files_same: int = 0
    keys_total: int = 0
    keys_same: int = 0
    links_total: int = 0
    links_same: int = 0
    refused: str | None = None  # why the imported hub does not build: nothing is written
    unreproduced: list[Unreproduced] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "files": {"reproduced": self.files_same, "total": self.files_total},
            "json_key_paths": {"reproduced": self.keys_same, "total": self.keys_total},
        }
        if self.links_total:  # a repository with links in its plugin folders
            data["links"] = {"reproduced": self.links_same, "total": self.links_total}
        data["cannot_reproduce"] = [{"path": u.path, "reason": u.reason} for u in self.unreproduced]
        return data


Refusal = tuple[str, list[tuple[str, str, str]]]  # the error; each problem's file, key, text


def built_files(imported: RepoImport) -> dict[str, Artifact] | Refusal:
    """The imported hub written to a temp folder and built in memory; or why it was refused
    (paths relative to the hub folder)."""
    from memhub.compiler.marketplace import compile_any

    with tempfile.TemporaryDirectory(prefix="memhub-roundtrip-") as temp:
        root = Path(temp)
        for rel, (content, mode) in sorted(imported.files.items()):
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if is_link_entry(mode):  # a kept link (repo_links.py), as the repository has it
                os.symlink(os.fsdecode(content), target)
                continue
            target.write_bytes(content)
            target.chmod(mode)
        try:
            build = compile_any(root / imported.hubs[0], ())
        except MemhubError as exc:
            temp_root = f"{root}{os.sep}"  # a fix may name the file: the hub's path, not ours
            problems = [
                (
                    os.path.relpath(p.origin.file, root),
                    p.key_path,
                    f"{p.message}. Fix: {p.fix}".replace(temp_root, ""),
                )
                for p in getattr(exc, "problems", [])
            ]
            return str(exc).replace(f"{root}{os.sep}", ""), problems
    return {a.path: a for a in build.artifacts}


def settle(imported: RepoImport) -> dict[str, Artifact] | str:
    """Build the imported hub, taking out what the build refuses at the smallest unit that
    holds it (repo_degrade.py: a component, a shipped file or link, an MCP server, a
    marketplace file, at worst one plugin), each listed with the build's words, until it
    builds; the error when it cannot (the marketplace hub itself is refused)."""
    from memhub.compiler.importing.repo_degrade import culprit, degrade, drop_plugin

    for _ in range(MAX_SETTLE):
        built = built_files(imported)
        if not isinstance(built, tuple):
            return built
        message, problems = built
        if degrade(imported, message, problems):
            if not imported.plugins:  # its one plugin refused: that refusal stops the import
                return f"the imported hub does not build: {message}"
            continue
        hub = culprit(imported, lambda probe: not isinstance(built_files(probe), tuple))
        if hub is None:
            return f"the imported hub does not build: {message}"
        drop_plugin(imported, hub, f"the imported hub does not build: {message}")
        if not imported.plugins:  # the repository's one plugin: its refusal stops the import
            return f"the imported hub does not build: {message}"
    return "the imported hub does not build (too many refused components)"


def round_trip(tree: Tree, imported: RepoImport) -> RoundTrip:
    """Compare the build of `imported` with the repository files it stands for."""
    from memhub.compiler.importing.repo_fill import fill
    from memhub.compiler.importing.repo_trim import trim

    result = RoundTrip()
    built = settle(imported)
    if not isinstance(built, str):
        trim(imported, built_files)
        fill(imported, tree, built_files)
        built = settle(imported)
    reasons = {u.path: u.reason for u in imported.unreproduced}
    hints = imported.hints
    links = links_of(tree)
    asked = set(imported.compared) | set(reasons) | set(imported.through)
    wanted = sorted(p for p in asked - set(links) if p in tree and not tree[p].folder)
    if isinstance(built, str):
        result.refused = built
        result.unreproduced.append(Unreproduced(imported.hubs[0], built))
        built = {}
    _compare_links(result, links, imported, built)
    built = through_links(built)
    for path in wanted:
        ours = tree[path]
        result.files_total += 1
        total, same = _key_counts(ours, built.get(path))
        result.keys_total += total
        result.keys_same += same
        why = _difference(ours, built.get(path))
        if why is None:
            result.files_same += 1
        else:
            hint = f"{hints[path]} ({why})" if path in hints else why
            result.unreproduced.append(Unreproduced(path, reasons.get(path) or hint))
    for path in sorted(set(built) - set(wanted) - set(links) - set(imported.through)):
        why = "the build writes it; the repository has no such file"
        made = GENERATED.get(path.rsplit("/", 1)[-1])
        why = reasons.get(path) or (f"{made} ({why})" if made else why)
        result.unreproduced.append(Unreproduced(path, why))
    return result


def _compare_links(
    result: RoundTrip, links: dict[str, str], imported: RepoImport, built: dict[str, Artifact]
) -> None:
    """Each link of a plugin folder against the build's: the same target text, or why not."""
    folders = [hub.folder for hub, _ in imported.plugins]
    for path, target in sorted(links.items()):
        mine = any(f == "" or path.startswith(f + "/") for f in folders)
        if not mine:
            continue  # a link of no plugin: not imported (listed with the repository's rest)
        result.links_total += 1
        theirs = built.get(path)
        if theirs is not None and theirs.link == target:
            result.links_same += 1
        elif path not in imported.links:
            result.unreproduced.append(Unreproduced(path, KEPT_NOT))
        else:
            shown = f"-> {theirs.link}" if theirs is not None and theirs.link else "no link"
            result.unreproduced.append(
                Unreproduced(path, f"a link -> {target}; the build writes {shown}")
            )


def through_links(built: dict[str, Artifact]) -> dict[str, Artifact]:
    """The build as a reader of the written folder sees it: each file the build's links lead
    to listed under the link's path too (as repo_tree.read_tree lists a repository)."""
    links = {p: a.link for p, a in built.items() if a.link is not None}
    if not links:
        return built
    seen = dict(built)
    for path in links:
        try:
            reached = resolve(path, links)
        except ValueError:
            continue
        for other, artifact in built.items():
            if other.startswith(reached + "/") and artifact.link is None:
                seen.setdefault(path + other[len(reached) :], artifact)
    return seen


def _difference(ours: RepoFile, theirs: Artifact | None) -> str | None:
    """Why the built file is not the repository's, or None when it is."""
    if theirs is None:
        return "the build does not write it"
    if theirs.is_executable != ours.executable:
        return "the executable bit differs"
    if theirs.content == ours.content:
        return None
    mine, built = _json(ours.content), _json(theirs.content)
    if mine is _NOT_JSON or built is _NOT_JSON:
        line = _first_line_differing(ours.content, theirs.content)
        return f"bytes differ (from line {line})"
    changed = [p for p, v in _leaves(mine) if _at(built, p) != v]
    extra = [p for p, _ in _leaves(built) if _at(mine, p, _MISSING) is _MISSING]
    if not changed and not extra:
        if mine == built and list(_keys(mine)) != list(_keys(built)):
            return f"JSON-equal, but the key order differs (memhub writes a fixed order): {_order(mine, built)}"
        if _strict(mine) == _strict(built):
            return None
        return f"JSON differs at {_first_difference(mine, built)}"
    shown = [f"{'/'.join(map(str, p)) or '.'} differs" for p in changed[:MAX_SHOWN]]
    shown += [f"{'/'.join(map(str, p))} is not in the repository" for p in extra[:MAX_SHOWN]]
    more = len(changed) + len(extra) - len(shown)
    return "; ".join(shown) + (f"; {more} more" if more > 0 else "")


def _strict(value: Any) -> Any:
    """`value` with its booleans tagged: JSON's `true` is not `1` (Python's True == 1)."""
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strict(v) for v in value]
    return ("bool", value) if isinstance(value, bool) else value


def _first_difference(mine: Any, built: Any, at: Path_ = ()) -> str:
    """The first key path where `built` is not `mine` (type or value), and what differs."""
    where = "/".join(map(str, at)) or "."
    if isinstance(mine, dict) and isinstance(built, dict):
        for key in [*mine, *(k for k in built if k not in mine)]:
            if key not in built or key not in mine:
                side = "the repository" if key in mine else "the build"
                return f"{'/'.join(map(str, (*at, key)))} (only {side} has it)"
            if _strict(mine[key]) != _strict(built[key]):
                return _first_difference(mine[key], built[key], (*at, key))
    if isinstance(mine, list) and isinstance(built, list):
        for index, (a, b) in enumerate(zip(mine, built, strict=False)):
            if _strict(a) != _strict(b):
                return _first_difference(a, b, (*at, index))
        return f"{where} (the repository has {len(mine)} items, the build {len(built)})"
    return (
        f"{where} (the repository has {json.dumps(mine)[:60]}, the build {json.dumps(built)[:60]})"
    )


_NOT_JSON = object()
_MISSING = object()
Path_ = tuple[Any, ...]


def _json(content: bytes) -> Any:
    try:
        return json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return _NOT_JSON  # compared as bytes (a document nested past Python's stack too)


def _leaves(value: Any, at: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    """Every leaf key path of a JSON document with its value (an empty container is a leaf)."""
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _leaves(item, (*at, key))
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from _leaves(item, (*at, index))
    else:
        yield at, value


def _keys(value: Any, at: Path_ = ()) -> Iterator[Path_]:
    """Every key path in document order (what key order compares)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*at, key)
            yield from _keys(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _keys(item, (*at, index))


def _at(value: Any, path: Path_, default: Any = None) -> Any:
    for step in path:
        in_list = isinstance(value, list) and isinstance(step, int) and step < len(value)
        if in_list or (isinstance(value, dict) and step in value):
            value = value[step]
        else:
            return default
    return value


def _order(mine: Any, built: Any, at: Path_ = ()) -> str:
    """The first object whose keys the build orders otherwise, both orders named."""
    if isinstance(mine, dict) and isinstance(built, dict):
        if list(mine) != list(built):
            where = "/".join(map(str, at)) or "top level"
            return f"{where}: repository {', '.join(mine)}; memhub {', '.join(built)}"
        children = ((k, mine[k], built[k]) for k in mine)
    elif isinstance(mine, list) and isinstance(built, list):
        children = ((i, a, b) for i, (a, b) in enumerate(zip(mine, built, strict=False)))
    else:
        return ""
    for key, a, b in children:
        found = _order(a, b, (*at, key))
        if found:
            return found
    return ""


def _key_counts(ours: RepoFile, theirs: Artifact | None) -> tuple[int, int]:
    """(leaf key paths in the repository's JSON file, how many the build has equal)."""
    mine = _json(ours.content)
    if mine is _NOT_JSON or not isinstance(mine, dict | list):
        return 0, 0
    built = _json(theirs.content) if theirs is not None else _NOT_JSON
    leaves = list(_leaves(mine))
    if built is _NOT_JSON:
        return len(leaves), 0
    return len(leaves), sum(_at(built, p, _MISSING) == v for p, v in leaves)


def _first_line_differing(a: bytes, b: bytes) -> int:
    for number, (x, y) in enumerate(zip(a.splitlines(), b.splitlines(), strict=False), 1):
        if x != y:
            return number
    return min(len(a.splitlines()), len(b.splitlines())) + 1
