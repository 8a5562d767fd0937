"""Memory command output that needs no click: one-line text safe for a terminal and the
project's JSON (a plain `memory search` prints with these before click is imported)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memhub.runtime.memory.workspace import Workspace

_CONTROL = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0))}


def one_line(text: str) -> str:
    """`text` for one terminal line: whitespace runs collapsed, control characters (an
    escape sequence in a title someone else wrote) shown as `\\xNN`, never sent raw."""
    return " ".join(text.split()).translate(_CONTROL)


def printable(text: str) -> str:
    """`text` with its lines kept and every other control character shown as `\\xNN`."""
    return text.translate({c: v for c, v in _CONTROL.items() if c not in (9, 10)})


def project_json(workspace: Workspace) -> dict[str, Any] | None:
    """{id, name} of the workspace's project, or None."""
    if workspace.project_id is None:
        return None
    return {"id": workspace.project_id, "name": workspace.project_name}
