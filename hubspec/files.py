"""`files:`: folders and files under the hub copied into the plugin folder, read and checked.

Each entry names a source under the hub folder (`from`), where it lands in the plugin
folder (`to`, default the same path) and optionally the hosts it is for. The bytes are
read here, once, so the build that follows is pure. Links inside the hub are followed and
ship their target's bytes (a bundle holds files only); a link whose target leaves the hub,
a FIFO, socket or device, a file over MAX_FILE_BYTES, a destination memhub generates itself
and two sources landing on one destination are refused. An entry with `link: true` names a
link of the hub folder that ships as a link, its target text as written (relative: checked
in the bundle by compiler/links.py).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from .checks import Checker
from .errors import Origin, Problem
from .model import ShippedFile
from .yamlsrc import KeyPath, format_path

MAX_FILE_BYTES = 10 * 1024 * 1024
MAX_TOTAL_BYTES = 200 * 1024 * 1024
# Build leftovers of scripts run in place: never shipped (their bytes vary run to run).
SKIPPED_NAMES = frozenset({".git", "__pycache__", ".DS_Store"})
SKIPPED_SUFFIXES = (".pyc",)
# The folders of the hub's components: a shipped file may land in one beside them (a
# folder of skills/ without SKILL.md, agents/.gitkeep), never on a component's own path
# (component_clashes); the component folder skips what `files:` ships from it.
COMPONENT_FOLDERS = ("skills", "agents", "commands", "rules")
# Plugin-folder paths memhub writes itself (manifests, hooks files, generated folders).
GENERATED_FOLDERS = (
    ".claude-plugin",
    ".codex-plugin",
    ".cursor-plugin",
    "memhub_runtime",
    "memhub_rulebooks",
)
RESERVED_FOLDERS = (*GENERATED_FOLDERS[:3], *COMPONENT_FOLDERS, *GENERATED_FOLDERS[3:])
# the hosts' manifest folders: memhub writes only these files of theirs, and a plugin may ship
# others (Cursor marketplaces keep each plugin's manifest in `.cursor-plugin/plugins/<name>.json`)
MANIFEST_FOLDERS = (".claude-plugin", ".codex-plugin", ".cursor-plugin")
MANIFEST_FILES = frozenset({"plugin.json", "marketplace.json"})
RESERVED_FILES = frozenset(
    {
        ".mcp.json",
        "plugin.json",
        "gemini-extension.json",
        "GEMINI.md",
        "hooks/hooks.json",  # Claude Code loads it by itself: never a plain shipped file
    }
)
# the Agent Plugins mcp.json memhub writes in the plugin folder with
# `plugin.agent_plugins_folder: shared`; otherwise a plain file (a Cursor manifest may name it)
SHARED_MCP = "mcp.json"
# Gemini CLI's commands (`commands/**/*.toml`): the hub models Markdown commands only, so a
# published extension's ship as plain files (compiler/hosts/gemini_shared.py refuses a clash)
GEMINI_COMMANDS, TOML = "commands", ".toml"
# A host's own hooks file (`hooks/<host>-hooks.json`, or its `hook_files:` name) is refused
# where that host is in the hub's `hosts:` (components.HookFileChecks), shipped elsewhere.
ICON_PREFIX = "assets/icon."
# Written only by some hubs' builds (built_paths): GEMINI.md by the gemini adapter, .mcp.json
# with servers by Claude's (or a Codex/Copilot manifest naming it); a plugin of other hosts
# ships its own as a plain file.
GEMINI_MD, MCP_JSON = "GEMINI.md", ".mcp.json"
README = "README.md"  # shipped, it replaces the README memhub generates (compiler/build.py)


def link_problem(target: str) -> str | None:
    """Why `target` cannot be a link's target text in a bundle, else None."""
    if not target:
        return "the target is empty"
    if "\0" in target or "\\" in target or any(ord(c) < 0x20 for c in target):
        return "the target holds a NUL, backslash or control character"
    try:
        target.encode("utf-8")  # undecodable bytes come back from os.readlink as surrogates
    except UnicodeEncodeError:
        return "the target is not UTF-8"
    if target.startswith(("/", "~")) or PurePosixPath(target).is_absolute():
        return "the target is an absolute path (a bundle is copied elsewhere: it would dangle)"
    if len(target) > 1024:
        return "the target is longer than 1024 characters"
    return None


def shipped_as_link(data: dict[str, Any], dest: str) -> bool:
    """Whether the hub's `files:` ship plugin-folder path `dest` as a link."""
    specs = [s for s in data.get("files") or [] if isinstance(s, dict) and s.get("link") is True]
    named = (str(s.get("to", s.get("from", ""))) for s in specs)
    return any(PurePosixPath(n).as_posix() == dest for n in named)


def built_paths(
    hosts: Iterable[str], *, instructions: bool, servers: bool, mcp_named: bool, icon: bool
) -> frozenset[str]:
    """Which of GEMINI.md, .mcp.json and the icon (ICON_PREFIX) a hub's build writes: gemini
    among `hosts` with instructions; servers (or `mcp.file`) with claude, or a manifest naming
    .mcp.json (`mcp_named`); `plugin.icon`."""
    hosts = set(hosts)
    mcp = servers and ("claude" in hosts or mcp_named)
    named = ((GEMINI_MD, "gemini" in hosts and instructions), (MCP_JSON, mcp), (ICON_PREFIX, icon))
    return frozenset(path for path, written in named if written)


def reserved(dest: str, built: frozenset[str] | None = None) -> str | None:
    """What memhub writes at plugin-relative `dest` itself, else None (a path in a component
    folder is checked against the components: component_clashes). `built`: built_paths of the
    hub (None: as if its build wrote them all)."""
    top, _, rest = dest.partition("/")
    if top in MANIFEST_FOLDERS and rest and rest not in MANIFEST_FILES:
        return None
    if top == GEMINI_COMMANDS and dest.endswith(TOML):
        return None  # Gemini CLI's own command format, shipped as it is (no hub model)
    if top in GENERATED_FOLDERS:
        return f"memhub writes the plugin's {top}/ folder itself"
    if dest in RESERVED_FILES and (built is None or dest not in (GEMINI_MD, MCP_JSON)):
        return f"memhub generates {dest} itself"
    if dest in (GEMINI_MD, MCP_JSON) and built is not None and dest in built:
        cause = (
            "Gemini CLI's context file, from the instructions"
            if dest == GEMINI_MD
            else "the servers"
        )
        return f"memhub generates {dest} itself ({cause})"
    if dest.startswith(ICON_PREFIX) and (built is None or ICON_PREFIX in built):
        return "memhub writes the plugin icon there (plugin.icon)"
    return None


def _bad_relative(value: str) -> str | None:
    """Why `value` is no plain relative path inside a folder, else None."""
    pure = PurePosixPath(value)
    if pure.is_absolute() or Path(value).is_absolute() or value.startswith("~"):
        return f"{value!r} is an absolute path"
    if "\\" in value or "\0" in value:
        return f"{value!r} holds a backslash or NUL; write a POSIX path"
    if ".." in pure.parts:
        return f"{value!r} climbs out with '..'"
    return None


class FileChecks(Checker):
    """The hub's `files:` list."""

    built: frozenset[str] | None = None  # built_paths of the hub being loaded

    def _shipped_files(
        self, raw: list[dict[str, Any]], *, shared: bool = False
    ) -> tuple[ShippedFile, ...]:
        """The shipped files (`shared`: the plugin folder also holds the Agent Plugins
        package, whose mcp.json memhub writes)."""
        shipped: list[ShippedFile] = []
        claimed: dict[str, tuple[int, str]] = {}
        total = 0
        for index, spec in enumerate(raw):
            path: KeyPath = ("files", index)
            hosts = tuple(spec["hosts"]) if "hosts" in spec else None
            for source, dest, content, executable, link in self._entry(path, spec):
                if dest == README and hosts is not None:
                    self.problem(
                        (*path, "hosts"),
                        f"{source} lands on {README}, which replaces the README memhub "
                        "generates in every plugin folder: it cannot be limited to hosts",
                        "remove `hosts:` from this entry",
                    )
                    continue
                if shared and dest == SHARED_MCP:
                    self.problem(
                        (*path, "to"),
                        f"{source} lands on {dest}, where memhub writes the Agent Plugins "
                        "mcp.json (plugin.agent_plugins_folder: shared)",
                        "give the entry another `to`, or drop agent_plugins_folder: shared",
                    )
                    continue
                if dest in claimed:
                    other, other_source = claimed[dest]
                    self.problem(
                        (*path, "to"),
                        f"{source} lands on {dest}, as {other_source} of files[{other}] does",
                        "give one of them another `to`",
                    )
                    continue
                claimed[dest] = (index, source)
                total += len(content)
                shipped.append(
                    ShippedFile(
                        path=dest,
                        content=content,
                        executable=executable,
                        link=link,
                        source=source,
                        hosts=hosts,
                        origin=self.positions.of_value(path),
                    )
                )
        if total > MAX_TOTAL_BYTES:
            self.problem(
                ("files",),
                f"the shipped files hold {total:,} bytes, more than the {MAX_TOTAL_BYTES:,} "
                "a plugin may ship",
                "ship less (build outputs and data belong in a release, not the plugin)",
            )
        return tuple(shipped)

    def _entry(self, path: KeyPath, spec: dict[str, Any]) -> list[Found]:
        """(source, destination, bytes, executable, link) of every file one entry ships."""
        raw = {"from": spec["from"], "to": spec.get("to", spec["from"])}
        for key, value in raw.items():  # checked as written: "/" is no "." once stripped
            why = _bad_relative(value)
            if why:
                self.problem((*path, key), why, "write a path relative to the hub folder")
                return []
        # normalised, so `./skills` or `hooks//hooks.json` meet the reserved paths too
        source, dest = (PurePosixPath(raw[key]).as_posix() for key in ("from", "to"))
        if spec.get("link") is True:
            return self._link(path, source, dest)
        top = self.root.resolve()
        start = self.root / source
        try:
            real = start.resolve(strict=True)
        except FileNotFoundError:
            self.problem(
                (*path, "from"), f"{source!r} does not exist", "create it, or remove the entry"
            )
            return []
        except (OSError, RuntimeError) as exc:  # a link loop
            self.problem(
                (*path, "from"), f"{source!r} cannot be resolved ({exc})", "fix or remove the link"
            )
            return []
        if not real.is_relative_to(top):
            self.problem(
                (*path, "from"),
                f"{source!r} resolves outside the hub folder (through a link)",
                "copy what it points at into the hub folder",
            )
            return []
        walker = _Walk(self, path, top)
        if real.is_dir():
            walker.folder(real, source, "" if dest == "." else dest, set())
        else:
            if dest == ".":
                self.problem(
                    (*path, "to"), "a file needs a file name to land on", "write `to: name`"
                )
                return []
            walker.file(real, source, dest)
        return walker.found

    def _link(self, path: KeyPath, source: str, dest: str) -> list[Found]:
        """The link `source` of the hub folder, shipped at `dest` as a link to its target."""
        full = self.root / source
        try:
            parent = full.parent.resolve(strict=True)
            info = os.lstat(full)
        except (OSError, RuntimeError) as exc:
            why = (
                "does not exist"
                if isinstance(exc, FileNotFoundError)
                else f"cannot be read ({exc})"
            )
            self.problem(
                (*path, "from"), f"{source!r} {why}", "create the link, or remove the entry"
            )
            return []
        if not parent.is_relative_to(self.root.resolve()):
            self.problem(
                (*path, "from"),
                f"{source!r} lies in a folder that resolves outside the hub folder (through a link)",
                "put the link itself in the hub folder",
            )
            return []
        if not stat.S_ISLNK(info.st_mode):
            self.problem(
                (*path, "link"),
                f"{source!r} is not a link (`link: true` ships a link as a link)",
                "make it a link (ln -s TARGET), or remove `link: true` to ship its files",
            )
            return []
        target = os.readlink(full)
        refused = link_problem(target)
        if refused is None and (
            dest == "." or dest in RESERVED_FILES or dest.startswith(ICON_PREFIX)
        ):
            refused = f"it would land on {dest}, which memhub writes itself"
        if refused:
            self.problem(
                (*path, "from"),
                f"{source!r} -> {target!r} cannot ship as a link: {refused}",
                "link to a relative path inside the bundle (e.g. ../other-plugin/skills), "
                "or remove `link: true`",
            )
            return []
        return [(source, dest, b"", False, target)]


Found = tuple[str, str, bytes, bool, str | None]  # source, dest, bytes, executable, link


class _Walk:
    """One entry's files, links followed inside the hub (each folder once: no loops)."""

    def __init__(self, checker: FileChecks, path: KeyPath, top: Path) -> None:
        self.checker, self.path, self.top = checker, path, top
        self.found: list[Found] = []

    def refuse(self, where: str, message: str, fix: str) -> None:
        shown = str(self.checker.root / where)
        self.checker.problems.append(
            Problem(Origin(shown), format_path((*self.path, "from")), message, fix)
        )

    def folder(self, real: Path, source: str, dest: str, seen: set[Path]) -> None:
        if real in seen:
            self.refuse(source, "a link loops back into a folder already shipped", "remove it")
            return
        seen = seen | {real}
        try:
            names = sorted(os.listdir(real))
        except OSError as exc:
            self.refuse(source, f"cannot be listed ({exc.strerror or exc})", "make it readable")
            return
        for name in names:
            if name in SKIPPED_NAMES or name.endswith(SKIPPED_SUFFIXES):
                continue
            child_source = f"{source}/{name}" if source != "." else name
            child_dest = f"{dest}/{name}" if dest else name
            if not _portable(name):
                self.refuse(
                    child_source,
                    "has a name hosts cannot carry (a backslash, a control character or "
                    "bytes that are not UTF-8)",
                    "rename it",
                )
                continue
            target = self._inside(real / name, child_source)
            if target is None:
                continue
            if target.is_dir():
                self.folder(target, child_source, child_dest, seen)
            else:
                self.file(target, child_source, child_dest)

    def _inside(self, entry: Path, source: str) -> Path | None:
        """`entry` with links followed, when that stays inside the hub."""
        if not entry.is_symlink():
            return entry
        try:
            target = entry.resolve(strict=True)
        except (OSError, RuntimeError) as exc:
            self.refuse(source, f"is a broken or looping link ({exc})", "fix or remove the link")
            return None
        if not target.is_relative_to(self.top):
            self.refuse(
                source,
                "is a link whose target leaves the hub folder",
                "copy what it points at into the hub folder, or remove the link",
            )
            return None
        return target

    def file(self, real: Path, source: str, dest: str) -> None:
        why = reserved(dest, self.checker.built)
        if why:
            self.refuse(source, f"would land on {dest}: {why}", "give the entry another `to`")
            return
        if real == self.top / ".env":
            self.refuse(
                source, "is the hub's .env, which holds its secrets", "leave .env out of `files`"
            )
            return
        read = _read_regular(real)
        if isinstance(read, str):
            self.refuse(source, read, "ship regular files only (remove it from the folder)")
            return
        content, mode = read
        if content is None:
            self.refuse(
                source,
                f"is {mode:,} bytes, over the {MAX_FILE_BYTES:,} a shipped file may have",
                "ship it another way (a release download), or shrink it",
            )
            return
        self.found.append((source, dest, content, bool(mode & stat.S_IXUSR), None))


def _portable(name: str) -> bool:
    """Whether a file name can be written into every host's plugin folder as it is."""
    if "\\" in name or any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name):
        return False
    try:
        name.encode("utf-8")  # undecodable bytes come back from os.listdir as surrogates
    except UnicodeEncodeError:
        return False
    return True


def _read_regular(real: Path) -> tuple[bytes | None, int] | str:
    """(bytes, mode) of a regular file, (None, size) when it is too big, else why not.

    Checked before it is opened and again on the open descriptor (opened without
    blocking): a FIFO, socket or device is never read."""
    try:
        if not stat.S_ISREG(os.stat(real).st_mode):
            return "is not a regular file (a FIFO, socket or device)"
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "is not a regular file (a FIFO, socket or device)"
        if info.st_size > MAX_FILE_BYTES:
            return None, info.st_size
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(), info.st_mode
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    finally:
        os.close(fd)
