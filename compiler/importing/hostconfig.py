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

import os
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memhub.compiler.artifact import EXEC_MODE, FILE_MODE
from memhub.compiler.formats import jsonedit, textblock
from memhub.compiler.install.entries import Entry, EntryKind
from memhub.compiler.install.scope import Scope
from memhub.compiler.install.state import STATE_FILE, State, memhub_home
from memhub.compiler.safewrite import targetfs
from memhub.hubspec.errors import Problem
from memhub.hubspec.refs import reference_problems

# An environment variable name, as hosts write it after `$` or inside `${...}`.
ENV_NAME = r"[A-Za-z_][A-Za-z0-9_]*"


class NotImportable(Exception):
    """A server the hub cannot express; the message says why (never a value)."""


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
        return self._document(path, lambda text: jsonedit.parse(text))

    def toml(self, path: Path) -> Any:
        return self._document(path, tomllib.loads)

    def _document(self, path: Path, parse: Callable[[str], Any]) -> Any:
        if path in self._documents:
            return self._documents[path]
        data = None
        text = self._text(path)
        if text is not None:
            try:
                data = parse(text)
            except (ValueError, tomllib.TOMLDecodeError) as exc:
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


# -- shapes ------------------------------------------------------------------------------


def unlaunched(spec: dict[str, Any]) -> dict[str, Any]:
    """A stdio server memhub started through its launcher (`memhub-launch ... -- CMD ARGS`,
    or a bundle's `python3 -S .../memhub_runtime/launcher.py ...`), read back as the hub
    server it came from; any other spec as it is."""
    from memhub.runtime import launcher

    command, args = spec.get("command", ""), list(spec.get("args") or [])
    if os.path.basename(command) == "memhub-launch":
        rest = args
    elif args[:1] == ["-S"] and len(args) > 1 and args[1].endswith("/memhub_runtime/launcher.py"):
        rest = args[2:]
    else:
        return spec
    try:
        options, env_items, argv = launcher.parse_args(rest)
    except launcher.LaunchError as exc:
        raise NotImportable(f"a memhub launcher entry that does not parse: {exc}") from exc
    env = dict(spec.get("env") or {})
    templates = {}
    for item in env_items:
        key, _, template = item.partition("=")
        templates[key] = launcher.to_hub(template)
    words = [launcher.to_hub(word) for word in argv]
    cwd = launcher.to_hub(options["cwd"]) if options["cwd"] else spec.get("cwd")
    # What a host forwarded only for the launcher to read (Codex env_vars) is no env of its own.
    read = set(re.findall(r"\$\{env:(\w+)\}", " ".join([*templates.values(), *words, cwd or ""])))
    for key in [k for k in env if k in read and k not in templates]:
        if env[key] == "${env:" + key + "}":
            del env[key]
    env.update(templates)
    return stdio_spec(words[0], words[1:], env, cwd, spec.get("description"))


def stdio_spec(
    command: str,
    args: Iterable[str] = (),
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    description: str | None = None,
) -> dict[str, Any]:
    """A hub stdio server, keys in the hub's order, empty ones left out."""
    spec: dict[str, Any] = {"command": command}
    if args:
        spec["args"] = list(args)
    if env:
        spec["env"] = dict(env)
    if cwd:
        spec["cwd"] = cwd
    if description:
        spec["description"] = description
    return spec


def remote_spec(
    url: str,
    transport: str = "http",
    headers: Mapping[str, str] | None = None,
    oauth: Mapping[str, Any] | None = None,
    description: str | None = None,
) -> dict[str, Any]:
    """A hub remote server; `transport` is written only when it is not the default (http)."""
    spec: dict[str, Any] = {"url": url}
    if transport != "http":
        spec["transport"] = transport
    if headers:
        spec["headers"] = dict(headers)
    if oauth:
        spec["oauth"] = dict(oauth)
    if description:
        spec["description"] = description
    return spec


def oauth_spec(
    client_id: Any,
    callback_port: Any = None,
    auth_server_metadata_url: Any = None,
    scopes: Iterable[str] | str | None = None,
) -> dict[str, Any] | None:
    """The hub's `oauth` block; None without a client id (the hub requires one)."""
    if not isinstance(client_id, str) or not client_id:
        return None
    spec: dict[str, Any] = {"client_id": client_id}
    if isinstance(callback_port, int) and not isinstance(callback_port, bool):
        spec["callback_port"] = callback_port
    if isinstance(auth_server_metadata_url, str) and auth_server_metadata_url:
        spec["auth_server_metadata_url"] = auth_server_metadata_url
    if isinstance(scopes, str):
        scopes = scopes.split()
    if scopes:
        spec["scopes"] = [s for s in scopes if isinstance(s, str) and s]
    return spec


def to_env_refs(value: str, pattern: re.Pattern[str]) -> str:
    """`value` with each host reference matched by `pattern` written as ${env:NAME}; the
    first group of the match that took part is the NAME."""
    return pattern.sub(lambda m: "${env:" + next(g for g in m.groups() if g) + "}", value)


def strings(value: Any, what: str) -> list[str]:
    """A list of strings (args), or NotImportable naming `what`."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise NotImportable(f"{what} is not a list of strings")
    return list(value)


def string_map(value: Any, what: str) -> dict[str, str]:
    """A mapping of string to string (env, headers), or NotImportable naming `what`."""
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise NotImportable(f"{what} is not a table of strings")
    return dict(value)


def nonempty(value: Any, what: str) -> str:
    """A non-empty string (a command, a URL), or NotImportable naming `what`."""
    if not isinstance(value, str) or not value:
        raise NotImportable(f"{what} is not a non-empty string")
    return value


def cwd_for_hub(cwd: str | None) -> str | None:
    """The part of a host's cwd the hub can hold: only a relative `./...` folder."""
    if cwd and (cwd == "." or cwd.startswith("./")) and ".." not in cwd.split("/"):
        return cwd
    return None


def check_references(spec: Mapping[str, Any]) -> None:
    """NotImportable when a value keeps a reference the hub cannot express."""
    values: list[tuple[str, str]] = []
    for key in ("command", "cwd", "url"):
        if isinstance(spec.get(key), str):
            values.append((key, spec[key]))
    values += [(f"args[{i}]", a) for i, a in enumerate(spec.get("args", ()))]
    for key in ("env", "headers"):
        values += [(f"{key}.{k}", v) for k, v in spec.get(key, {}).items()]
    for where, value in values:
        problems = reference_problems(value, allow_plugin=False, allow_unknown=False)
        if problems:
            raise NotImportable(
                f"{where}: {problems[0]}; the hub has no equivalent of this host variable"
            )


def extras_of(raw: Mapping[str, Any], mapped: Iterable[str]) -> dict[str, Any]:
    """The keys of a host's server spec that the hub shape does not carry, in host syntax."""
    taken = set(mapped)
    return {k: v for k, v in raw.items() if k not in taken}
