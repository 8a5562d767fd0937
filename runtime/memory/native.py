"""Native memory readers: Markdown files, and the memories the hosts keep, as import Candidates.

`from_paths` reads Markdown files and folders a person names; `discover` finds a host's own
memory for the project of a folder: Claude Code's auto-memory (native_claude), Codex's
memories folder (native_codex), Gemini CLI's memory files (native_gemini). Both return
(candidates, notes): whatever cannot be read is a note naming the file, never an exception.
The originals are only read, never written. `MemoryService.plan_import` takes the
candidates (preview, duplicates, source bindings). Stdlib at import (vendored).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from .native_drafts import from_record, front_matter, note_draft
from .native_files import markdown_files, read_file
from .plans import Candidate
from .records import Source, is_record_text

__all__ = ["HOSTS", "discover", "from_paths", "host_home", "project_folders"]

HOSTS = ("claude", "codex", "gemini")

Found = tuple[list[Candidate], list[str]]


def from_paths(paths: Sequence[Path]) -> Found:
    """One Candidate per Markdown file of `paths` (files, or folders walked for `*.md`).

    A memhub record file imports as itself; any other file's own front matter supplies kind,
    title, tags and triggers, else its first heading (or file name) is the title, the text
    the body and the kind `fact`. origin = the file path, origin_revision = sha256 of its
    bytes."""
    notes: list[str] = []
    found: list[Candidate] = []
    for path in markdown_files(paths, notes):
        file = read_file(path, notes)
        if file is None:
            continue
        if is_record_text(file.data):
            record = from_record(file, notes)
            if record is not None:
                found.append(record)
            continue
        split = front_matter(file, notes)
        if split is None:
            continue
        meta, body = split
        source = Source(kind="import", file=str(path))
        draft = note_draft(file, meta, body, source=source, notes=notes)
        if draft is not None:
            found.append(Candidate(draft, str(path), _sha(file.data)))
    return found, notes


def discover(host: str, *, cwd: Path, env: Mapping[str, str]) -> Found:
    """`host`'s own memory for the project of `cwd` (claude, codex or gemini)."""
    readers = _readers()
    if host not in readers:
        return [], [f"{host}: memhub reads native memory of {', '.join(HOSTS)} only"]
    return readers[host](Path(cwd), env)


def _readers() -> dict[str, Callable[[Path, Mapping[str, str]], Found]]:
    from . import native_claude, native_codex, native_gemini

    return {
        "claude": native_claude.discover,
        "codex": native_codex.discover,
        "gemini": native_gemini.discover,
    }


def host_home(env: Mapping[str, str], name: str, default: Path) -> Path | None:
    """The folder a host's override variable names (CLAUDE_CONFIG_DIR, CODEX_HOME,
    GEMINI_CLI_HOME), else `default`. Empty counts as unset, as the hosts treat it; a
    relative value is None (the host resolved it against a folder no one can know now)."""
    value = env.get(name)
    if not value:
        return default
    path = Path(value).expanduser()
    return path if path.is_absolute() else None


def user_home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or Path.home())


def project_folders(cwd: Path) -> list[Path]:
    """The folders a host may have keyed `cwd`'s project by, most specific last: the main
    checkout of its repository (worktrees share it), the checkout's top level, `cwd`."""
    from .gitcheckout import checkout_of

    folders: list[Path] = []
    checkout = checkout_of(cwd)
    if checkout is not None:
        common = Path(checkout.common_dir)
        if common.name == ".git":
            folders.append(common.parent)
        folders.append(Path(checkout.toplevel))
    # the real path first: a host knows its folder as the OS reports it (process.cwd())
    folders += [Path(os.path.realpath(cwd)), Path(os.path.abspath(cwd))]
    return list(dict.fromkeys(folders))


def _sha(data: bytes) -> str:
    from .native_drafts import sha256

    return sha256(data)
