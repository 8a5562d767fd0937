"""Codex's memories: the `MEMORY.md` handbook its consolidation agent keeps.

Where Codex 0.171 keeps it (its memories pipeline and read-path prompt): `$CODEX_HOME`
(else `~/.codex`) `/memories/` (and `memories_v2/memories/` for the second pipeline), holding
`MEMORY.md` (the durable handbook), `memory_summary.md` (a digest injected into every
session), `raw_memories.md` and `rollout_summaries/` (per-session evidence) and `skills/`.
Only `MEMORY.md` is imported: the rest are Codex's digests and evidence of the same notes.

`MEMORY.md` is one block per task family, each opened by `# Task Group: <name>` and a
`scope:` and an `applies_to: cwd=<folder>; reuse_rule=...` line. The memories are the
user's, across every folder Codex ran in, so a block whose `applies_to` names an absolute
folder outside this project is left out (counted in a note); a block naming none is taken.
One Candidate per block (`MEMORY.md#task-group-<name>`). A handbook without task groups
gives one per top-level heading, or the whole file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from .native import Found, host_home, project_folders, user_home
from .native_drafts import Section, candidate, one_line, sections
from .native_files import read_file
from .plans import Candidate, Draft
from .records import Source

IMPORTED = "codex-memory"
MEMORY_DIRS = ("memories", "memories_v2/memories")
HANDBOOK = "MEMORY.md"
GROUP = "Task Group:"
_APPLIES = re.compile(r"^applies_to:[ \t]*cwd=([^;\n]*)", re.MULTILINE)


def memory_dirs(env: Mapping[str, str]) -> list[Path]:
    home = host_home(env, "CODEX_HOME", user_home(env) / ".codex")
    if home is None:
        return []
    return [home / sub for sub in MEMORY_DIRS if (home / sub).is_dir()]


def discover(cwd: Path, env: Mapping[str, str]) -> Found:
    notes: list[str] = []
    found: list[Candidate] = []
    dirs = memory_dirs(env)
    if not dirs:
        return [], [f"codex: no memories folder (CODEX_HOME/{MEMORY_DIRS[0]})"]
    folders = [str(f) for f in project_folders(cwd)]
    for folder in dirs:
        path = folder / HANDBOOK
        if not path.is_file():
            notes.append(f"{path}: not there; nothing to import from {folder}")
            continue
        file = read_file(path, notes)
        if file is None:
            continue
        source = Source(kind="import", file=str(path), imported=IMPORTED)
        blocks = _blocks(file.text)
        if not blocks:
            title = one_line(f"Codex memories ({folder.name})")
            draft = Draft(kind="fact", title=title, body=file.text, source=source)
            found.append(candidate(draft, str(path), file.data))
            continue
        elsewhere = 0
        for block in blocks:
            if not _applies_here(block.text, folders):
                elsewhere += 1
                continue
            title = one_line(block.heading.removeprefix(GROUP).strip() or block.heading)
            draft = Draft(kind="fact", title=title, body=block.text, source=source)
            found.append(candidate(draft, f"{path}#{block.anchor}", block.text))
        if elsewhere:
            notes.append(f"{path}: {elsewhere} task group(s) apply to other folders; left out")
    return found, notes


def _blocks(text: str) -> list[Section]:
    """The handbook's task-group blocks, else its top-level sections."""
    top = sections(text, 1)
    groups = [s for s in top if s.heading.startswith(GROUP)]
    return groups or top


def _applies_here(block: str, folders: list[str]) -> bool:
    """Whether a block's `applies_to: cwd=` names no absolute folder, or one inside (or
    equal to) one of this project's folders."""
    found = _APPLIES.search(block)
    if found is None:
        return True
    value = found.group(1).strip().strip("`'\"")
    if not value.startswith(("/", "~")):
        return True  # a workflow or a cwd family in words: not tied to a folder
    target = os.path.normpath(os.path.expanduser(value))
    return any(target == f or target.startswith(f.rstrip("/") + "/") for f in folders)
