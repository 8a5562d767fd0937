"""The files a Codex `apply_patch` envelope names (`*** Begin Patch` ... `*** End Patch`).

Read by directive recall and by the workflow and rule hooks (hookdata.named_paths); which
Codex calls are a patch at all is events.py's decision. Imports nothing.
"""

from __future__ import annotations

__all__ = ["HEADS", "patch_paths"]

HEADS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")


def patch_paths(patch: str) -> list[str]:
    """The files an `apply_patch` envelope adds, updates, deletes or moves to."""
    found = []
    for line in patch.split("\n"):
        for head in HEADS:
            if line.startswith(head) and line[len(head) :].strip():
                found.append(line[len(head) :].strip())
    return found
