"""What is already installed in a host, read back for `memhub import`.

Each install adapter has `read_installed(scope) -> Installed`: the MCP servers of that host's
files in the hub's own shape (references rewritten to `${env:NAME}`), its skill folders and
its instruction files, plus what it skipped and why. Everything here is host-neutral; file
names, key names and reference syntax are passed in by the adapter. Reading never writes:
files are opened for reading only, so their bytes and times stay as they were.

Entries that memhub itself installed (named in `$MEMHUB_HOME/state.json`) are skipped:
importing them would make the hub import its own output.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memhub.compiler.artifact import EXEC_MODE, FILE_MODE
from memhub.compiler.formats import textblock
from memhub.compiler.formats.document import parsed
from memhub.compiler.importing.shapes import NotImportable, check_references, unlaunched
from memhub.compiler.install.entries import Entry, EntryKind
from memhub.compiler.install.scope import Scope
from memhub.compiler.install.state import STATE_FILE, State, memhub_home
from memhub.compiler.safewrite import targetfs
from memhub.hubspec.errors import Problem


@dataclass(frozen=True, slots=True)
class InstalledServer:
    """One MCP server: its name, hub-shaped spec, and where it is written."""

    host: str
    name: str
    spec: Mapping[str, Any]  # command/args/env/cwd or url/transport/headers/oauth (+ description)
    source: str  # the host file
    key: tuple[str, ...]  # key path of the server inside it
    extras: Mapping[str, Any] = field(default_factory=dict)  # host-only keys, host syntax
    notes: tuple[str, ...] = ()  # what could not be carried (key names, never values)

    @property
    def where(self) -> str:
        return f"{self.source} {'.'.join(self.key)}"


@dataclass(frozen=True, slots=True)
class InstalledSkill:
    """One valid skill folder: its name, where it is, and its files (path, bytes, mode)."""

    host: str
    name: str
    path: str
    files: tuple[tuple[str, bytes, int], ...]

    @property
    def source(self) -> str:
        return self.path


@dataclass(frozen=True, slots=True)
class InstalledInstructions:
    """One instruction file the host reads (CLAUDE.md, AGENTS.md, GEMINI.md, ...)."""

    host: str
    path: str
    text: str

    @property
    def source(self) -> str:
        return self.path


@dataclass(frozen=True, slots=True)
class Skipped:
    """Something found but not imported: what, where, and why."""

    what: str
    where: str
    why: str

    def __str__(self) -> str:
        return f"{self.what} ({self.where}): {self.why}"


@dataclass(frozen=True, slots=True)
class Installed:
    """Everything one host has installed in one scope."""

    host: str
    servers: tuple[InstalledServer, ...] = ()
    skills: tuple[InstalledSkill, ...] = ()
    instructions: tuple[InstalledInstructions, ...] = ()
    skipped: tuple[Skipped, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.servers or self.skills or self.instructions)


# A host's converter: (server name, raw host spec) -> (hub spec, host-only extras, notes),
# raising NotImportable for a server the hub cannot express.
Converter = Callable[[str, Mapping[str, Any]], tuple[dict[str, Any], dict[str, Any], list[str]]]

OWNED_WHY = (
    f"memhub installed it (listed in {STATE_FILE}); importing memhub's own output would be circular"
)


class Reader:
    """Collects one host's installed items in one scope; adapters call it with their paths."""

    def __init__(self, host: str, scope: Scope) -> None:
        self.host = host
        self.scope = scope
        self.state = State.load(memhub_home(dict(scope.env)))
        self._servers: list[InstalledServer] = []
        self._skills: list[InstalledSkill] = []
        self._instructions: list[InstalledInstructions] = []
        self._skipped: list[Skipped] = []
        self._documents: dict[Path, Any] = {}

    def skip(self, what: str, where: str | Path, why: str) -> None:
        self._skipped.append(Skipped(what, str(where), why))

    def owned(self, target: Path, kind: EntryKind, path: tuple[str, ...] = ()) -> bool:
        """Whether memhub's state names this entry (any hub's)."""
        key = Entry(self.host, str(target), kind, path, None).key
        return self.state.owner(str(target), key) is not None

    # -- documents ---------------------------------------------------------------------
    def json(self, path: Path) -> Any:
        """A JSON file's data; None when absent or unreadable (the latter noted)."""
        return self._document(path, lambda text: parsed("json", text))

    def toml(self, path: Path) -> Any:
        return self._document(path, lambda text: parsed("toml", text))

    def _document(self, path: Path, parse: Callable[[str], Any]) -> Any:
        if path in self._documents:
            return self._documents[path]
        data = None
        text = self._text(path)
        if text is not None:
            try:
                data = parse(text)
            except ValueError as exc:  # the editors' errors name line and column
                self.skip("the whole file", path, f"it does not parse ({exc}); nothing read")
            else:
                if not isinstance(data, dict):
                    self.skip("the whole file", path, "it is not a key-value document")
                    data = None
        self._documents[path] = data
        return data

    # -- servers -----------------------------------------------------------------------
    def servers(
        self,
        path: Path,
        table: Any,
        key: tuple[str, ...],
        kind: EntryKind,
        convert: Converter,
    ) -> None:
        """Every server of `table` (the mapping at `key` of `path`), in the hub's shape.

        `kind` is how an install records a server of this file (json-key, toml-table), so
        servers memhub installed are recognised by the same key.
        """
        if table is None:
            return
        if not isinstance(table, Mapping):
            self.skip("MCP servers", f"{path} {'.'.join(key)}", "not a table of servers")
            return
        for name, raw in table.items():
            where = f"{path} {'.'.join((*key, name))}"
            what = f"MCP server {name!r}"
            if self.owned(path, kind, (*key, name)):
                self.skip(what, where, OWNED_WHY)
                continue
            if not isinstance(raw, Mapping):
                self.skip(what, where, "its entry is not a table of settings")
                continue
            try:
                spec, extras, notes = convert(name, raw)
                spec = unlaunched(spec)
                check_references(spec)
            except NotImportable as exc:
                self.skip(what, where, str(exc))
                continue
            self._servers.append(
                InstalledServer(
                    self.host, name, spec, str(path), (*key, name), extras, tuple(notes)
                )
            )

    # -- skills ------------------------------------------------------------------------
    def skills(self, folder: Path) -> None:
        """Every valid `<folder>/<name>/SKILL.md` skill (hidden folders and files ignored)."""
        self._inside(folder)
        if not folder.is_dir():
            return
        for entry in sorted(folder.iterdir(), key=lambda p: p.name):
            if entry.name.startswith(".") or (entry.is_file() and not entry.is_symlink()):
                continue
            what = f"skill {entry.name!r}"
            if self.owned(entry, "tree"):
                self.skip(what, entry, OWNED_WHY)
                continue
            problems: list[Problem] = []
            from memhub.hubspec.skills import read_skill  # YAML: only when reading skills

            skill = read_skill(entry, shown=str(entry), problems=problems)
            if skill is None:
                why = problems[0].message if problems else "not a skill folder"
                self.skip(what, entry, f"not a valid skill: {why}")
                continue
            files = tuple(
                (f.path, f.content, EXEC_MODE if f.executable else FILE_MODE) for f in skill.files
            )
            self._skills.append(InstalledSkill(self.host, skill.name, str(entry), files))

    # -- instructions --------------------------------------------------------------------
    def instructions(self, path: Path) -> bool:
        """The instruction file at `path` when it holds text of the person's own (memhub's
        marked blocks taken out); True when one was read."""
        text = self._text(path)
        if text is None:
            return False
        try:
            found = textblock.blocks(text)
        except textblock.TextBlockError as exc:
            self.skip("instructions", path, f"its memhub block markers are broken ({exc})")
            return False
        for block in found:
            if self.owned(path, "text-block", (block,)):
                self.skip(f"memhub block {block!r}", path, OWNED_WHY)
                text = textblock.remove(text, block)
        if not text.strip():
            return False
        self._instructions.append(InstalledInstructions(self.host, str(path), text))
        return True

    def _inside(self, path: Path) -> None:
        """At project scope nothing is read through a link that leaves the project: what it
        points at (`CLAUDE.md -> ~/.ssh/id_ed25519`) would be copied into the new hub."""
        if self.scope.kind == "project" and self.scope.project is not None:
            targetfs.contain(path, self.scope.project)

    def _text(self, path: Path) -> str | None:
        self._inside(path)
        try:
            return _read_text(path)
        except UnicodeDecodeError:
            self.skip("the whole file", path, "it is not UTF-8 text")
            return None

    def result(self) -> Installed:
        return Installed(
            self.host,
            tuple(self._servers),
            tuple(self._skills),
            tuple(self._instructions),
            tuple(self._skipped),
        )


def _read_text(path: Path) -> str | None:
    """A file's UTF-8 text, None when absent; a FIFO, device, folder or link loop there is
    refused (exit 2) without blocking (see targetfs)."""
    return targetfs.read_text(path)
