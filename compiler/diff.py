"""Render a Plan as a content diff: unified for text, key paths for JSON and TOML."""

from __future__ import annotations

import difflib
import json
from typing import Any

from memhub.compiler.artifact import is_link_entry
from memhub.compiler.formats.document import format_of, parsed
from memhub.compiler.plan import Change, Plan

_RED, _GREEN, _CYAN, _BOLD, _RESET = "\033[31m", "\033[32m", "\033[36m", "\033[1m", "\033[0m"


def _parse(path: str, content: bytes | None) -> tuple[bool, Any]:
    """(parsed?, value) for JSON and TOML files; anything else is not structured."""
    if content is None:
        return True, None
    fmt = format_of(path)
    if fmt is None:
        return False, None
    try:
        return True, parsed(fmt, content.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError is one too
        return False, None


def _key(parts: list[Any]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (("." if out else "") + str(part))
    return out or "(root)"


def key_changes(
    path: str, before: bytes | None, after: bytes | None
) -> list[dict[str, Any]] | None:
    """Key-path changes between two JSON/TOML documents, or None if either is not one."""
    ok_before, old = _parse(path, before)
    ok_after, new = _parse(path, after)
    if not (ok_before and ok_after) or (old is None and new is None):
        return None
    if old is None:
        return [{"op": "add", "key": "(root)", "new": new}]
    if new is None:
        return [{"op": "remove", "key": "(root)", "old": old}]
    from deepdiff import DeepDiff  # 0.1 s to import; only a diff with changes needs it

    tree = DeepDiff(old, new, view="tree", verbose_level=2)
    changes: list[dict[str, Any]] = []
    for report, levels in tree.items():
        for level in levels:
            key = _key(level.path(output_format="list"))
            if report in ("dictionary_item_added", "iterable_item_added"):
                changes.append({"op": "add", "key": key, "new": level.t2})
            elif report in ("dictionary_item_removed", "iterable_item_removed"):
                changes.append({"op": "remove", "key": key, "old": level.t1})
            else:
                changes.append({"op": "change", "key": key, "old": level.t1, "new": level.t2})
    return sorted(changes, key=lambda c: (c["key"], c["op"]))


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


def render_change(change: Change, *, color: bool = False) -> str:
    """The diff text of one change (empty when unchanged)."""
    if change.kind == "unchanged":
        return ""
    paint = (lambda code, text: f"{code}{text}{_RESET}") if color else (lambda code, text: text)
    after = change.target.content if change.target else None
    shown = change.path if change.path.startswith("/") else f"/{change.path}"
    old_name = "/dev/null" if change.kind == "create" else f"a{shown}"
    new_name = "/dev/null" if change.kind == "delete" else f"b{shown}"
    head = [paint(_BOLD, f"--- {old_name}"), paint(_BOLD, f"+++ {new_name}")]
    for drift in change.drift:  # the install overwrites what someone edited by hand
        head.append(
            paint(
                _RED,
                f"! conflict: {drift.key} was edited since memhub wrote it (last written "
                f"{drift.last_written}, now {drift.actual or 'absent'}); apply needs --force",
            )
        )
    if change.is_link:
        return "\n".join([*head, *_link_lines(change, paint)]) + "\n"
    if change.mode_only:
        mode = change.target.mode if change.target else 0
        return "\n".join([*head, paint(_CYAN, f"mode {change.before_mode:o} -> {mode:o}")]) + "\n"
    keys = key_changes(change.path, change.before, after)
    if keys is not None:
        lines = []
        for item in keys:
            if item["op"] == "add":
                lines.append(paint(_GREEN, f"+ {item['key']}: {_show(item['new'])}"))
            elif item["op"] == "remove":
                lines.append(paint(_RED, f"- {item['key']}: {_show(item['old'])}"))
            else:
                lines.append(
                    paint(_CYAN, f"~ {item['key']}: {_show(item['old'])} -> {_show(item['new'])}")
                )
        return "\n".join([*head, *lines]) + "\n"
    try:
        old_text = (change.before or b"").decode("utf-8").splitlines(keepends=True)
        new_text = (after or b"").decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return "\n".join([*head, "binary files differ"]) + "\n"
    body = []
    for line in list(difflib.unified_diff(old_text, new_text, old_name, new_name, n=3))[2:]:
        line = line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
        code = (
            _GREEN
            if line.startswith("+")
            else _RED
            if line.startswith("-")
            else _CYAN
            if line.startswith("@@")
            else ""
        )
        body.append(paint(code, line.rstrip("\n")) + "\n" if code else line)
    return "\n".join(head) + "\n" + "".join(body)


def _link_lines(change: Change, paint: Any) -> list[str]:
    """A link as `-> target` (what it was, what it becomes), never its target's bytes."""
    lines = []
    if change.before is not None:
        was = change.before.decode("utf-8", "replace")
        shown = f"-> {was}" if is_link_entry(change.before_mode or 0) else "(a file)"
        lines.append(paint(_RED, f"- {shown}"))
    if change.target is not None:
        shown = f"-> {change.target.link}" if change.target.link is not None else "(a file)"
        lines.append(paint(_GREEN, f"+ {shown}"))
    return lines


def render(plan: Plan, *, color: bool = False) -> str:
    """The whole plan as one diff document, files in path order."""
    return "".join(render_change(change, color=color) for change in plan.pending)


def plan_json(plan: Plan) -> dict[str, Any]:
    """A machine-readable plan: fingerprints and key-path changes, never whole contents."""
    files = []
    for change in plan.changes:
        item = change.to_json()
        if change.kind != "unchanged":
            after = change.target.content if change.target else None
            keys = None if change.is_link else key_changes(change.path, change.before, after)
            if keys is not None:
                item["keys"] = keys
        files.append(item)
    return {"root": plan.root, "summary": plan.counts(), "changes": files}
