"""Claude Code's auto-memory for a project: `MEMORY.md` and its topic files.

Where Claude Code 2.1 keeps it (read from the CLI's own code):
- `$CLAUDE_COWORK_MEMORY_PATH_OVERRIDE` when set; else `autoMemoryDirectory` from the
  project's `.claude/settings.local.json` or the user's `settings.json` (`~/` expanded; a
  checked-in `.claude/settings.json` is ignored, as Claude Code ignores it);
- else `<base>/projects/<slug>/memory/`, where `<base>` is `$CLAUDE_CODE_REMOTE_MEMORY_DIR`
  or the config folder (`$CLAUDE_CONFIG_DIR`, else `~/.claude`) and `<slug>` is the project
  folder (the main checkout of its git repository, so worktrees share one memory) with every
  character outside `[a-zA-Z0-9]` replaced by `-`; past 200 characters Claude Code cuts it
  and appends a hash, which is matched here by the 200-character prefix.

A topic file has front matter `name`, `description`, `metadata.type` (older ones: `type`)
of user | feedback | project | reference; it imports as one record titled by its
description. `MEMORY.md` is the index: its `- [Title](file.md)` pointers are the topic
files themselves, and every other bullet is one fact (`MEMORY.md#line-N`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from .native import Found, host_home, project_folders, user_home
from .native_drafts import bullets, candidate, front_matter, is_pointer, note_draft, one_line
from .native_files import markdown_files, read_file
from .plans import Candidate, Draft
from .records import Source

IMPORTED = "claude-memory"
INDEX = "MEMORY.md"
SLUG_MAX = 200
KIND_OF_TYPE = {"user": "preference", "feedback": "preference", "project": "fact"}


def slug(folder: str) -> str:
    """Claude Code's folder name for a project path (cut at 200 characters; see above)."""
    return re.sub(r"[^a-zA-Z0-9]", "-", folder)


def memory_dir(cwd: Path, env: Mapping[str, str]) -> Path | None:
    """The auto-memory folder Claude Code uses for `cwd`'s project, there yet or not (None
    when the config folder cannot be known, or a long path's hashed folder is not there)."""
    override = env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")
    if override:
        return Path(override)
    config = host_home(env, "CLAUDE_CONFIG_DIR", user_home(env) / ".claude")
    folders = project_folders(cwd)
    configured = _configured(folders, config, env)
    if configured is not None:
        return configured
    return _keyed(folders[0], config, env)


def memory_dirs(cwd: Path, env: Mapping[str, str]) -> list[Path]:
    """The auto-memory folder of `cwd`'s project where it exists (Claude Code's own, else
    one keyed by another spelling of the project folder)."""
    first = memory_dir(cwd, env)
    if first is not None and first.is_dir():
        return [first]
    if env.get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"):
        return []
    config = host_home(env, "CLAUDE_CONFIG_DIR", user_home(env) / ".claude")
    folders = project_folders(cwd)
    if _configured(folders, config, env) is not None:
        return []
    for folder in folders[1:]:
        other = _keyed(folder, config, env)
        if other is not None and other.is_dir():
            return [other]
    return []


def _keyed(folder: Path, config: Path | None, env: Mapping[str, str]) -> Path | None:
    """`<base>/projects/<slug>/memory` for a project folder."""
    remote = env.get("CLAUDE_CODE_REMOTE_MEMORY_DIR")
    base = Path(remote) if remote else config
    if base is None:
        return None
    name = slug(str(folder))
    if len(name) <= SLUG_MAX:
        return base / "projects" / name / "memory"
    hashed = sorted((base / "projects").glob(f"{name[:SLUG_MAX]}-*/memory"))
    return hashed[0] if hashed else None


def _configured(folders: list[Path], config: Path | None, env: Mapping[str, str]) -> Path | None:
    """`autoMemoryDirectory` of the local, then the user settings (None when neither sets it)."""
    files = [folder / ".claude" / "settings.local.json" for folder in folders[-2:]]
    if config is not None:
        files.append(config / "settings.json")
    for file in files:
        try:
            value = json.loads(file.read_text("utf-8")).get("autoMemoryDirectory")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(value, str) and value.strip():
            if value.startswith("~/"):
                return user_home(env) / value[2:]
            return Path(value) if Path(value).is_absolute() else None
    return None


def discover(cwd: Path, env: Mapping[str, str]) -> Found:
    notes: list[str] = []
    found: list[Candidate] = []
    dirs = memory_dirs(cwd, env)
    if not dirs:
        return [], [f"claude: no auto-memory folder for {cwd}"]
    for path in markdown_files(dirs, notes):
        file = read_file(path, notes)
        if file is None:
            continue
        source = Source(kind="import", file=str(path), imported=IMPORTED)
        if path.name == INDEX:
            found += _index(path, file.text, source)
            continue
        split = front_matter(file, notes)
        if split is None:
            continue
        meta, body = split
        kind_type = _type(meta)
        shown = dict(meta)
        if "title" not in shown and isinstance(meta.get("description"), str):
            shown["title"] = meta["description"]
        shown.pop("name", None)  # a slug, not an artifact's name
        tags = (kind_type,) if kind_type else ()
        kind = KIND_OF_TYPE.get(kind_type or "", "fact")
        draft = note_draft(file, shown, body, source=source, kind=kind, tags=tags, notes=notes)
        if draft is not None:
            found.append(candidate(draft, str(path), file.data))
    return found, notes


def _type(meta: Mapping[str, object]) -> str | None:
    nested = meta.get("metadata")
    value = nested.get("type") if isinstance(nested, dict) else meta.get("type")
    return value if isinstance(value, str) and value.strip() else None


def _index(path: Path, text: str, source: Source) -> list[Candidate]:
    """The facts MEMORY.md holds itself: its bullets that are not pointers to topic files."""
    out = []
    for line, item in bullets(text):
        if is_pointer(item):
            continue  # the topic file it points at is imported on its own
        draft = Draft(kind="fact", title=one_line(item), body=item + "\n", source=source)
        out.append(candidate(draft, f"{path}#line-{line}", item))
    return out
