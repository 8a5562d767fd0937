"""Gemini CLI's memories: the `## Gemini Added Memories` section, and private project memory.

What the CLI writes (read from its source, memoryTool.ts and storage.ts):
- Up to 0.43, the `save_memory` tool appended each fact as a `- <fact>` bullet under the
  heading `## Gemini Added Memories` of the global `GEMINI.md` (`~/.gemini/`; the folder
  moves with `$GEMINI_CLI_HOME`), its project scope as bullets of the private project
  memory index. Those files keep the section after an upgrade.
- From 0.44 (0.61 is pinned here) there is no `save_memory` tool: the agent edits the files
  itself: the project's `GEMINI.md` (the team's, committed), the private project memory
  `<runtime>/tmp/<id>/memory/MEMORY.md` (an index; brief facts as its bullets, detail in
  sibling `*.md` notes), and the global `GEMINI.md` for cross-project preferences.
  `<runtime>` is `~/.gemini` (`~/.cache/.gemini` under a sandbox-exec sandbox) and `<id>` the
  project's short id in `<runtime>/projects.json` (`{"projects": {"<folder>": "<id>"}}`),
  or, before that registry, the sha256 of the folder.

Imported: each bullet of the `## Gemini Added Memories` section of the global and the
project `GEMINI.md` (origin `GEMINI.md#line-N`; the rest of those files is the team's
instructions, not memory), each bullet of the private `MEMORY.md`, and each sibling note.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

from .native import Found, host_home, project_folders, user_home
from .native_drafts import (
    bullets,
    candidate,
    front_matter,
    is_pointer,
    note_draft,
    one_line,
    sections,
)
from .native_files import markdown_files, read_file
from .plans import Candidate, Draft
from .records import Source

IMPORTED = "gemini-memory"
SECTION = "Gemini Added Memories"
CONTEXT_FILE = "GEMINI.md"
INDEX = "MEMORY.md"
SKILLS = "skills"


def gemini_dirs(env: Mapping[str, str]) -> tuple[Path | None, Path | None]:
    """The global `.gemini` folder and the runtime folder (tmp, projects.json)."""
    home = host_home(env, "GEMINI_CLI_HOME", user_home(env))
    if home is None:
        return None, None
    runtime = home / ".cache" / ".gemini" if env.get("SANDBOX") == "sandbox-exec" else None
    return home / ".gemini", runtime or home / ".gemini"


def private_memory_dirs(runtime: Path, folders: list[Path]) -> list[Path]:
    """The private project memory folders of `folders` (by short id, then legacy hash)."""
    try:
        registry = json.loads((runtime / "projects.json").read_text("utf-8")).get("projects")
    except (OSError, ValueError, AttributeError):
        registry = None
    ids: list[str] = []
    for folder in folders:
        short = registry.get(str(folder)) if isinstance(registry, dict) else None
        if isinstance(short, str) and short and "/" not in short and short not in (".", ".."):
            ids.append(short)
        ids.append(hashlib.sha256(str(folder).encode()).hexdigest())
    dirs = [runtime / "tmp" / i / "memory" for i in dict.fromkeys(ids)]
    return [d for d in dirs if d.is_dir()]


def discover(cwd: Path, env: Mapping[str, str]) -> Found:
    notes: list[str] = []
    found: list[Candidate] = []
    global_dir, runtime = gemini_dirs(env)
    folders = project_folders(cwd)
    contexts = [global_dir / CONTEXT_FILE] if global_dir else []
    contexts += [folder / CONTEXT_FILE for folder in reversed(folders)]
    for path in dict.fromkeys(contexts):
        if path.is_file():
            found += _added_memories(path, notes)
    for folder in private_memory_dirs(runtime, folders) if runtime else []:
        found += _private(folder, notes)
    if not found and not notes:
        notes.append(f"gemini: no saved memories for {cwd}")
    return found, notes


def _source(path: Path) -> Source:
    return Source(kind="import", file=str(path), imported=IMPORTED)


def _facts(path: Path, text: str, first_line: int = 1) -> list[Candidate]:
    """One fact per `- ` bullet of `text` (which starts at file line `first_line`), but the
    index's pointers at sibling notes (imported on their own)."""
    out = []
    for line, item in bullets(text):
        if is_pointer(item):
            continue
        draft = Draft(kind="fact", title=one_line(item), body=item + "\n", source=_source(path))
        out.append(candidate(draft, f"{path}#line-{line + first_line - 1}", item))
    return out


def _added_memories(path: Path, notes: list[str]) -> list[Candidate]:
    file = read_file(path, notes)
    if file is None:
        return []
    out = []
    for section in sections(file.text, 2):
        if section.heading == SECTION:
            out += _facts(path, section.text, section.line)
    return out


def _private(folder: Path, notes: list[str]) -> list[Candidate]:
    out: list[Candidate] = []
    for path in markdown_files([folder], notes):
        if SKILLS in path.relative_to(folder).parts[:1]:
            continue  # skills the agent extracted, not notes
        file = read_file(path, notes)
        if file is None:
            continue
        if path.name == INDEX and path.parent == folder:
            out += _facts(path, file.text)
            continue
        split = front_matter(file, notes)
        if split is None:
            continue
        meta, body = split
        draft = note_draft(file, meta, body, source=_source(path), notes=notes)
        if draft is not None:
            out.append(candidate(draft, str(path), file.data))
    return out
