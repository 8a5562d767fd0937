"""`memhub doctor`: for each host, will it actually load what memhub applied?

Every check reads; nothing here writes, and Codex hook trust is only reported (memhub never
trusts a hook on the person's behalf). The checks, each a `Check` record per finding:

- `parse`: an owned target that no longer parses (the parser's message, with line and column).
- `drift`: an owned entry edited by hand since apply, or gone (`install.current_digest`).
- `location`: an owned entry in a file or folder the host does not read in that scope (a moved
  CODEX_HOME or CLAUDE_CONFIG_DIR), or at a hook event the host does not have.
- `hooks-on`: settings that turn the host's hooks off (`disableAllHooks`, `[features] hooks`,
  `hooksConfig`), and hook files the host will not read (Cursor's `version`).
- `hook-trust`: Codex hooks not trusted in /hooks (Codex skips them: a fail).
- `hook-command`: the first word of each owned hook command on PATH; an interpreter's script.
- `skill`: each owned skill folder a real folder with no links, its SKILL.md within the hub
  limits (`hubspec.skills.read_skill`).
- `mcp-scopes`: one MCP server name defined in both user and project scope (a warning).
- `hub`: with a hub, each entry it wants applied, current, and nothing left over.
- `host-loader`: each host whose CLI is on PATH loads its own config (the adapter's
  `LOADER_ARGS`, e.g. `codex mcp list --json`), offline and with a timeout; a refusal fails
  with the host's own words. A host whose CLI is not on PATH is skipped, never failed.

Which owned entries belong to a scope is decided by place: user scope holds the entries in the
files and folders each host reads for the user (computed by the host's own `install_entries`),
plus entries in no place any host reads at all; project scope holds those in the project's.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

from memhub.compiler.formats import jsonedit, tomledit
from memhub.compiler.hosts import INSTALLERS
from memhub.compiler.install.engine import TargetParseError, current_digest, gather_entries
from memhub.compiler.install.entries import Entry, value_digest
from memhub.compiler.install.scope import Scope
from memhub.compiler.install.state import Owned, Owner, State
from memhub.compiler.safewrite import targetfs
from memhub.hubspec.errors import Problem
from memhub.hubspec.model import (
    Hook,
    Hub,
    Instructions,
    Marketplace,
    Person,
    Plugin,
    Skill,
    SkillFile,
    StdioServer,
)
from memhub.hubspec.skills import read_skill

Status = Literal["ok", "warn", "fail"]
STATUSES: tuple[Status, ...] = ("ok", "warn", "fail")

PARSE, DRIFT, LOCATION, HOOKS_ON = "parse", "drift", "location", "hooks-on"
TRUST, COMMAND, SKILL, MCP_SCOPES, HUB = "hook-trust", "hook-command", "skill", "mcp-scopes", "hub"
LOADER = "host-loader"
LOADER_TIMEOUT_S = 60
# Offline: a host CLI's own requests (updates, telemetry, server probes) go to a closed
# loopback port through the proxy variables every one of them honours.
_OFFLINE_PROXY = "http://127.0.0.1:9"
_OFFLINE = {
    **{name: _OFFLINE_PROXY for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy")},
    "NO_PROXY": "",
    "no_proxy": "",
}

TRUST_FIX = "open codex, run /hooks and trust it (only memhub's handlers, never 'Trust all')"


@dataclass(frozen=True, slots=True)
class Check:
    """One finding: which host, which check, ok/warn/fail, the file it is about, and the fix."""

    host: str
    name: str
    status: Status
    target: str
    detail: str
    fix: str = ""

    def to_json(self) -> dict[str, str]:
        return {
            "host": self.host,
            "name": self.name,
            "status": self.status,
            "target": self.target,
            "detail": self.detail,
            "fix": self.fix,
        }


def summary(checks: Iterable[Check]) -> dict[str, int]:
    counts: dict[str, int] = dict.fromkeys(STATUSES, 0)
    for check in checks:
        counts[check.status] += 1
    return counts


# --- where each host reads ------------------------------------------------------------------

_PROBE = "memhub-doctor-probe"
_PROBE_SERVER = "memhub-doctor-probe-server"


@cache
def _probe_hub() -> Hub:
    """A hub with one of everything, so a host's install_entries names each place it reads."""
    person = Person(_PROBE)
    return Hub(
        version=1,
        root=os.sep,
        plugin=Plugin(_PROBE, "0.0.0", _PROBE),
        marketplace=Marketplace(_PROBE, person),
        hosts=(),
        mcp_servers=(StdioServer(_PROBE_SERVER, "true"),),
        skills=(Skill(_PROBE, _PROBE, (SkillFile("SKILL.md", b""),)),),
        instructions=Instructions(_PROBE, "instructions.md"),
        hooks=(Hook(_PROBE, "session_start", command="true"),),
    )


@dataclass(frozen=True, slots=True)
class Places:
    """The files and folders one host reads in one scope."""

    files: frozenset[str]
    folders: frozenset[str]  # folders whose sub-folders it reads (skills)
    hook_files: frozenset[str]
    mcp: tuple[str, str, tuple[str, ...]] | None  # (file, entry kind, container key path)

    def holds(self, target: str) -> bool:
        return target in self.files or str(Path(target).parent) in self.folders


def places(host: str, scope: Scope) -> Places:
    """Where `host` reads in `scope`, taken from the host's own install_entries."""
    entries, _ = INSTALLERS[host].install_entries(_probe_hub(), scope)
    files, folders, hooks = set(), set(), set()
    mcp = None
    for entry in entries:
        if entry.kind == "tree":
            folders.add(str(Path(entry.target).parent))
            continue
        files.add(entry.target)
        if entry.kind == "json-item":
            hooks.add(entry.target)
        if entry.path[-1:] == (_PROBE_SERVER,):
            mcp = (entry.target, entry.kind, entry.path[:-1])
    return Places(frozenset(files), frozenset(folders), frozenset(hooks), mcp)


def _suffix_root(path: Path, place: str) -> Path | None:
    """The project root `path` sits in if it is `place` (a project-relative path), else None."""
    rel = Path(place).parts[1:]
    if not rel or len(path.parts) <= len(rel) or path.parts[-len(rel) :] != rel:
        return None
    return Path(*path.parts[: -len(rel)])


@cache
def _project_places(host: str) -> Places:
    """Where `host` reads in a project at the file system root: project-relative places."""
    return places(host, Scope("project", Path(os.sep), Path(os.sep), {}))


def _in_a_project(target: str, hosts: Iterable[str], home: Path) -> bool:
    """Whether a host reads `target` in some project other than the home folder."""
    path = Path(target)
    for host in hosts:
        probe = _project_places(host)
        roots = [_suffix_root(path, f) for f in probe.files]
        roots += [_suffix_root(path.parent, d) for d in probe.folders]
        if any(root is not None and root != home for root in roots):
            return True
    return False


# --- reading documents ----------------------------------------------------------------------


class Documents:
    """Parsed JSON and TOML files, read once; a missing or broken file reads as None."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[Any, str | None]] = {}

    def load(self, path: Path | str) -> tuple[Any, str | None]:
        """(data, parse error): (None, None) when absent or not JSON/TOML."""
        key = str(path)
        if key not in self._cache:
            self._cache[key] = self._parse(Path(path))
        return self._cache[key]

    def read(self, path: Path | str) -> Any:
        return self.load(path)[0]

    @staticmethod
    def _parse(path: Path) -> tuple[Any, str | None]:
        if path.suffix not in (".json", ".toml"):
            return None, None
        try:
            text = targetfs.read_text(path)  # a FIFO or folder there is refused, not read
        except UnicodeDecodeError as exc:
            return None, f"cannot be read: {exc}"
        if text is None:
            return None, None
        try:
            return (jsonedit.parse(text) if path.suffix == ".json" else tomledit.parse(text)), None
        except (jsonedit.JsonEditError, tomledit.TomlEditError) as exc:
            return None, str(exc)


def _at(data: Any, path: Sequence[str]) -> Any:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


# --- hook commands --------------------------------------------------------------------------

# Commands a POSIX shell runs itself, so no executable needs to be on PATH.
_SHELL_BUILTINS = frozenset(
    {".", ":", "[", "cd", "echo", "eval", "exec", "exit", "export", "false", "printf"}
    | {"read", "set", "source", "test", "true", "umask", "unset"}
)
_INTERPRETER = re.compile(r"^(?:python[0-9.]*|node|bash|sh|dash|zsh|ruby|perl)$")
_TAKES_VALUE = frozenset({"-W", "-X", "-Q", "--require", "-r", "-o", "-O", "-I"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def _expand(word: str, env: Mapping[str, str]) -> tuple[str, list[str]]:
    """`word` with $NAME / ${NAME} and a leading ~ filled from env; the names env lacks."""
    missing: list[str] = []

    def fill(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name in env:
            return env[name]
        missing.append(name)
        return match.group(0)

    value = _VARIABLE.sub(fill, word)
    if value == "~" or value.startswith("~/"):
        value = env.get("HOME", "~") + value[1:]
    return value, missing


def check_command(command: str, env: Mapping[str, str]) -> tuple[Status, str, str]:
    """(status, what was found, fix) for the executable of one hook command."""
    try:
        words = shlex.split(command)
    except ValueError as exc:
        return "fail", f"`{command}` does not parse as a shell command ({exc})", "fix its quoting"
    while words and _ASSIGNMENT.match(words[0]):
        words.pop(0)
    if not words:
        return "fail", "the hook command is empty", "give the hook a command in the hub"
    first, missing = _expand(words[0], env)
    if missing:
        names = ", ".join(f"${n}" for n in missing)
        return "warn", f"`{words[0]}` depends on {names}, set by the host only", ""
    if "/" not in first:
        if first in _SHELL_BUILTINS:
            return "ok", f"`{first}` is a shell builtin", ""
        found = shutil.which(first, path=env.get("PATH", ""))
        if found is None:
            return (
                "fail",
                f"`{first}` is not on PATH",
                f"install {first}, or give its full path in the hub's hook command",
            )
        where = f"`{first}` found at {found}"
    else:
        if not Path(first).is_absolute():
            return "warn", f"`{first}` is relative to the session's folder", ""
        if not os.path.isfile(first):
            return "fail", f"{first} does not exist", "create it, or fix the path in the hub"
        if not os.access(first, os.X_OK):
            return "fail", f"{first} is not executable", f"chmod +x {first}"
        found, where = first, f"{first} exists"
    if _INTERPRETER.match(Path(found).name):
        return _check_script(words[1:], env, where)
    return "ok", where, ""


def _check_script(args: list[str], env: Mapping[str, str], where: str) -> tuple[Status, str, str]:
    """An interpreter's script argument (`python3 -S "<path>"`): the file must exist."""
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in ("-c", "-m", "-e", "--eval", "-"):
            return "ok", where, ""  # inline code or a module: no script file to check
        if arg.startswith("-"):
            skip = arg in _TAKES_VALUE
            continue
        script, missing = _expand(arg, env)
        if missing:
            names = ", ".join(f"${n}" for n in missing)
            return "warn", f"{where}; its script {arg} depends on {names}", ""
        if not Path(script).is_absolute():
            return "warn", f"{where}; its script {script} is relative to the session's folder", ""
        if not os.path.isfile(script):
            return (
                "fail",
                f"{where}, but its script {script} does not exist",
                "install what provides the script, or fix the path in the hub",
            )
        return "ok", f"{where}; script {script} exists", ""
    return "ok", where, ""


def _handlers(item: Any) -> list[dict[str, Any]]:
    """The handlers of one owned hook: a group's `hooks` (Claude style), or the item itself."""
    if isinstance(item, dict) and isinstance(item.get("hooks"), list):
        return [h for h in item["hooks"] if isinstance(h, dict)]
    return [item] if isinstance(item, dict) else []


# --- the checks -----------------------------------------------------------------------------


@dataclass
class _Run:
    scope: Scope
    state: State
    env: Mapping[str, str]
    docs: Documents = field(default_factory=Documents)
    checks: list[Check] = field(default_factory=list)

    def add(
        self, host: str, name: str, status: Status, target: str, detail: str, fix: str = ""
    ) -> None:
        self.checks.append(Check(host, name, status, target, detail, fix))


def owned_in_scope(
    state: State,
    kind: str,
    read_places: Mapping[str, Places],
    home: Path,
    *,
    hub: Owner | None = None,
    hosts: Iterable[str] | None = None,
) -> dict[str, dict[str, Owned]]:
    """The owned entries of this scope (of one hub and some hosts, when given), by target."""
    chosen = set(INSTALLERS if hosts is None else hosts)
    found: dict[str, dict[str, Owned]] = {}
    for target, entries in sorted(state.targets.items()):
        for key, owned in sorted(entries.items()):
            owners = [h for h in owned.host.split(",") if h in INSTALLERS]
            if (hub is not None and not hub.owns(owned.hub)) or not chosen & set(owners):
                continue
            held = any(read_places[h].holds(target) for h in owners if h in read_places)
            if held or (kind == "user" and not _in_a_project(target, owners, home)):
                found.setdefault(target, {})[key] = owned
    return found


def run_doctor(
    state: State,
    hosts: Sequence[str],
    scope: Scope,
    other: Scope,
    *,
    hub: Hub | None = None,
    env: Mapping[str, str] | None = None,
) -> list[Check]:
    """Every check for `hosts` in `scope` (`other` is the other scope, for duplicate servers)."""
    run = _Run(scope, state, dict(os.environ) if env is None else env)
    mine = {h: places(h, scope) for h in hosts}
    owner = Owner.of_hub(hub) if hub is not None else None
    owned = owned_in_scope(state, scope.kind, mine, scope.home, hub=owner, hosts=hosts)
    hooked: set[str] = set()
    for target, entries in owned.items():
        _check_target(run, target, entries, mine, hooked)
    for host in hosts:
        if host in hooked:
            _check_hooks_on(run, host)
        _check_scopes(run, host, mine[host], places(host, other), other)
    if hub is not None and owner is not None:
        _check_hub(run, hub, owner, hosts, owned)
    for host in hosts:
        _check_loader(run, host)
    return run.checks


def _host_executable(host: str, env: Mapping[str, str]) -> str | None:
    names = getattr(INSTALLERS[host], "executables", ())
    return next((found for n in names if (found := shutil.which(n, path=env.get("PATH")))), None)


def _check_loader(run: _Run, host: str) -> None:
    """Ask the host's own CLI to load its config: the only oracle for what it accepts."""
    adapter = INSTALLERS[host]
    args = getattr(adapter, "LOADER_ARGS", None)
    exe = _host_executable(host, run.env) if args else None
    if args is None or exe is None:
        return  # no loader, or not installed here: nothing to ask, and not a failure
    shown = " ".join([os.path.basename(exe), *args])
    env = {**run.env, **_OFFLINE, **getattr(adapter, "LOADER_ENV", {})}
    with tempfile.TemporaryDirectory(prefix="memhub-doctor-") as empty:
        # User scope: an empty folder, so no project config (and no trusted folder) joins in.
        cwd = str(run.scope.base) if run.scope.kind == "project" else empty
        try:
            proc = subprocess.run(
                [exe, *args],
                env=env,
                cwd=cwd,
                capture_output=True,
                text=True,
                timeout=LOADER_TIMEOUT_S,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            run.add(host, LOADER, "warn", exe, f"`{shown}` gave no answer in {LOADER_TIMEOUT_S} s")
            return
        except OSError as exc:
            run.add(host, LOADER, "warn", exe, f"`{shown}` did not start: {exc.strerror}")
            return
    refusal = adapter.loader_refusal(proc.returncode, proc.stdout, proc.stderr)
    if refusal is None:
        run.add(host, LOADER, "ok", exe, f"`{shown}` loads the config")
        return
    run.add(
        host,
        LOADER,
        "fail",
        exe,
        f"`{shown}` refuses the config: {refusal}",
        "fix the entry it names; if memhub wrote it, `memhub undo` reverts the last apply",
    )


def _label(owned: Owned, hosts: Mapping[str, Places]) -> str:
    return ",".join(h for h in owned.host.split(",") if h in hosts) or owned.host


def _check_target(
    run: _Run,
    target: str,
    entries: dict[str, Owned],
    mine: Mapping[str, Places],
    hooked: set[str],
) -> None:
    first = next(iter(entries.values()))
    document = not any(key.startswith("tree:") for key in entries)
    if document:
        _, error = run.docs.load(target)
        if error is not None:
            run.add(
                _label(first, mine),
                PARSE,
                "fail",
                target,
                f"does not parse: {error}; the host cannot read it either",
                "repair the file (memhub writes nothing to it until it parses)",
            )
            return
    owners = sorted({h for o in entries.values() for h in o.host.split(",") if h in mine})
    read_here = any(mine[h].holds(target) for h in owners)
    if not read_here:
        _not_read_here(run, _label(first, mine), target, owners, mine, len(entries))
    for key, owned in entries.items():
        host = _label(owned, mine)
        if key.startswith("tree:"):
            if _check_skill(run, host, target):
                _check_drift(run, host, target, key, owned)
            continue
        found = _check_drift(run, host, target, key, owned)
        if found == "broken":
            return  # one parse failure per file
        kind, _, rest = key.partition(":")
        path = tuple(_what(key).split("/"))
        if found == "present" and read_here and kind == "json-item" and path[0] == "hooks":
            for name in (h for h in owned.host.split(",") if h in mine):
                hooked.add(name)
                _check_hook(run, name, target, path, rest.partition("#")[2])


def _what(key: str) -> str:
    """An entry key without its kind and content digest: `mcpServers/x`, `hooks/Stop`."""
    return key.partition(":")[2].partition("#")[0]


def _not_read_here(
    run: _Run, host: str, target: str, owners: list[str], mine: Mapping[str, Places], count: int
) -> None:
    """A target no owning host reads in this scope: name where each reads such a file now."""
    name = Path(target).name
    now = sorted({f for h in owners for f in mine[h].files if Path(f).name == name})
    now += sorted(
        {
            f"{d}/"
            for h in owners
            for d in mine[h].folders
            if Path(target).parent.name == Path(d).name
        }
    )
    titles = " and ".join(INSTALLERS[h].title for h in owners)
    instead = f" (it reads {' and '.join(now)})" if now else ""
    run.add(
        host,
        LOCATION,
        "fail",
        target,
        f"{count} entr{'y' if count == 1 else 'ies'} memhub applied here, where {titles} "
        f"does not read in {run.scope.kind} scope{instead}; was CODEX_HOME or "
        "CLAUDE_CONFIG_DIR moved since apply?",
        "run `memhub apply` again: it writes them where the host reads now and removes this copy",
    )


def _check_drift(run: _Run, host: str, target: str, key: str, owned: Owned) -> str:
    """present, gone or broken (the file does not parse); a fail names what is wrong."""
    try:
        now = current_digest(target, key)
    except TargetParseError as exc:
        message = str(exc).removeprefix(f"{target}: ").split(". Fix:")[0]
        run.add(
            host,
            PARSE,
            "fail",
            target,
            f"does not parse: {message}",
            "repair the file (memhub writes nothing to it until it parses)",
        )
        return "broken"
    what = _what(key) or Path(target).name
    if now is None:
        run.add(
            host,
            DRIFT,
            "fail",
            target,
            f"{what}: memhub applied it and it is gone",
            "`memhub apply` writes it again; to give it up, remove it from the hub and apply",
        )
        return "gone"
    if now != owned.digest:
        run.add(
            host,
            DRIFT,
            "fail",
            target,
            f"{what}: edited by hand since memhub applied it",
            "`memhub apply` puts memhub's version back (the edit is lost); to keep the edit, "
            + (
                "make it in the hub's copy of the skill and apply"
                if key.startswith("tree:")
                else f"carry it into the hub (`overrides.{owned.host.split(',')[0]}`) and apply"
            ),
        )
        return "present"
    run.add(host, DRIFT, "ok", target, f"{what}: as applied")
    return "present"


def _check_skill(run: _Run, host: str, target: str) -> bool:
    """A real folder whose SKILL.md the hosts accept; False when there is no folder to diff."""
    folder = Path(target)
    if folder.is_symlink():
        run.add(
            host,
            SKILL,
            "fail",
            target,
            f"is a link to {os.readlink(folder)}, not a copy; hosts may not follow it",
            "`memhub apply` replaces it with a copy (memhub copies skills, never links)",
        )
        return False
    if not folder.is_dir():
        run.add(
            host,
            SKILL,
            "fail",
            target,
            "the skill folder memhub applied is gone",
            "`memhub apply` copies it again",
        )
        return False
    problems: list[Problem] = []
    read_skill(folder, shown=target, problems=problems)
    for problem in problems:
        where = problem.origin.file.removeprefix(target).lstrip("/") or "the folder"
        run.add(host, SKILL, "fail", target, f"{where}: {problem.message}", problem.fix)
    if not problems:
        run.add(host, SKILL, "ok", target, "a real folder; name and description within limits")
    return True


def _check_hook(run: _Run, host: str, target: str, path: tuple[str, ...], digest: str) -> None:
    """One owned hook group, found by content: its event, switches, trust and commands."""
    module = INSTALLERS[host]
    items = _at(run.docs.read(target), path)
    items = items if isinstance(items, list) else []
    index = next((i for i, item in enumerate(items) if value_digest(item) == digest), None)
    if index is None:
        return
    item = items[index]
    event = path[-1]
    events = {s.host_event for s in module.EVENTS.values() if s.host_event}
    if len(path) != 2 or event not in events:
        run.add(
            host,
            LOCATION,
            "fail",
            target,
            f"{'/'.join(path)}: {module.title} reads hooks at hooks/<event>, events "
            f"{', '.join(sorted(events))}",
            "`memhub apply` writes the hook where the host reads it",
        )
    read = run.docs.read
    off = getattr(module, "hook_switched_off", None)
    reason = off(run.scope, item, read) if off else None
    if reason:
        run.add(
            host,
            HOOKS_ON,
            "fail",
            target,
            f"{event} hook switched off: {reason}",
            "remove it from that list",
        )
    trust = getattr(module, "hook_trust", None)
    if trust is not None and isinstance(item, dict):
        for key, status in trust(run.scope, target, event, index, item, read):
            _trust_check(run, host, target, event, key, status)
    for handler in _handlers(item):
        command = handler.get("command")
        if not isinstance(command, str):
            continue
        status, detail, fix = check_command(command, run.env)
        run.add(host, COMMAND, status, target, f"{event}: {detail}", fix)


def _trust_check(run: _Run, host: str, target: str, event: str, key: str, status: str) -> None:
    if status == "trusted":
        run.add(host, TRUST, "ok", target, f"{event} hook trusted ({key})")
        return
    detail = {
        "untrusted": "is not trusted: Codex skips it until it is",
        "modified": "changed since it was trusted: Codex skips it until it is trusted again",
        "disabled": "is turned off in /hooks (enabled = false)",
    }.get(status, f"has trust status {status}")
    fix = "open codex, run /hooks and turn it on" if status == "disabled" else TRUST_FIX
    run.add(host, TRUST, "fail", target, f"{event} hook {detail} ({key})", fix)


def _check_hooks_on(run: _Run, host: str) -> None:
    """The settings that turn all of a host's hooks off, and hook files it would not read."""
    module = INSTALLERS[host]
    reasons: list[str] = getattr(module, "hooks_switched_off", lambda scope, read: [])(
        run.scope, run.docs.read
    )
    for reason in reasons:
        file, _, what = reason.partition(": ")
        run.add(
            host,
            HOOKS_ON,
            "fail",
            file,
            f"{what}: {module.title} runs none of its hooks",
            "remove that setting to let hooks run",
        )
    problems_of = getattr(module, "hooks_file_problems", None)
    found = False
    for file in sorted(places(host, run.scope).hook_files) if problems_of else []:
        data = run.docs.read(file)
        for problem in problems_of(data) if problems_of and data is not None else []:
            found = True
            run.add(host, HOOKS_ON, "fail", file, problem, "`memhub apply` sets it again")
    if not reasons and not found:
        run.add(host, HOOKS_ON, "ok", "", "no setting turns hooks off")


def _server_names(run: _Run, mcp: tuple[str, str, tuple[str, ...]]) -> set[str]:
    container = _at(run.docs.read(mcp[0]), mcp[2])
    return set(container) if isinstance(container, dict) else set()


def _check_scopes(run: _Run, host: str, here: Places, there: Places, other: Scope) -> None:
    """Warn about a server name defined in both the user's and the project's MCP file."""
    if here.mcp is None or there.mcp is None or here.mcp[0] == there.mcp[0]:
        return
    both = sorted(_server_names(run, here.mcp) & _server_names(run, there.mcp))
    files = {run.scope.kind: here.mcp[0], other.kind: there.mcp[0]}
    if not both:
        run.add(host, MCP_SCOPES, "ok", here.mcp[0], "no MCP server in both user and project scope")
    for name in both:
        run.add(
            host,
            MCP_SCOPES,
            "warn",
            files["user"],
            f"MCP server {name} is defined in user scope ({files['user']}) and in project "
            f"scope ({files['project']}); {INSTALLERS[host].title} uses one of them",
            "keep one: remove it from the other file (`memhub uninstall --scope ...` for the "
            "one memhub applied)",
        )


def _check_hub(
    run: _Run,
    hub: Hub,
    hub_owner: Owner,
    hosts: Sequence[str],
    owned: Mapping[str, Mapping[str, Owned]],
) -> None:
    """Each entry the hub wants is applied and current; nothing applied is left over."""
    wanted: dict[tuple[str, str], Entry] = {}
    labels: dict[tuple[str, str], list[str]] = {}
    for entry in gather_entries(hub, run.scope, hosts)[0]:
        if entry.kind != "json-default":
            wanted.setdefault((entry.target, entry.key), entry)
            labels.setdefault((entry.target, entry.key), []).append(entry.host)
    for (target, key), entry in wanted.items():
        host = ",".join(labels[(target, key)])
        owner = run.state.owner(target, key)
        what = _what(key) or Path(target).name
        if owner is None or not hub_owner.owns(owner.hub):
            by = f" (owned by memhub plugin {owner.hub})" if owner else ""
            run.add(
                host,
                HUB,
                "fail",
                target,
                f"{what}: the hub wants it, and memhub has not applied it here{by}",
                "run `memhub apply` (with --adopt to take over an entry someone else owns)",
            )
        elif owner.digest != entry.digest:
            run.add(
                host,
                HUB,
                "warn",
                target,
                f"{what}: the hub changed since it was applied",
                "run `memhub apply` to bring it up to date",
            )
        else:
            run.add(host, HUB, "ok", target, f"{what}: applied and current")
    for target, entries in owned.items():
        for key, entry_owner in entries.items():
            if (target, key) not in wanted:
                what = _what(key) or Path(target).name
                run.add(
                    entry_owner.host,
                    HUB,
                    "warn",
                    target,
                    f"{what}: applied earlier, and the hub no longer has it here",
                    "run `memhub apply`: it removes what the hub no longer has",
                )


# --- output ---------------------------------------------------------------------------------


def render(checks: Sequence[Check], hosts: Sequence[str], *, home: str = "") -> str:
    """A report grouped by host: warnings and failures in full, ok checks counted."""

    def short(path: str) -> str:
        return "~" + path[len(home) :] if home and path.startswith(home + os.sep) else path

    groups: dict[str, list[Check]] = {}
    for check in checks:
        groups.setdefault(check.host, []).append(check)
    order = [h for h in hosts if h in groups] + sorted(h for h in groups if h not in hosts)
    lines: list[str] = []
    for host in order:
        found = groups[host]
        counts = summary(found)
        head = ", ".join(f"{n} {status}" for status, n in counts.items() if n)
        lines.append(f"{host}: {head}")
        oks: dict[str, int] = {}
        for check in found:
            if check.status == "ok":
                oks[check.name] = oks.get(check.name, 0) + 1
        if oks:
            lines.append("  ok    " + ", ".join(f"{name} {n}" for name, n in oks.items()))
        for check in sorted(found, key=lambda c: (c.status != "fail", c.name)):
            if check.status == "ok":
                continue
            where = f" {short(check.target)}:" if check.target else ""
            lines.append(f"  {check.status:<5} {check.name}{where} {check.detail}")
            if check.fix:
                lines.append(f"        fix: {check.fix}")
    counts = summary(checks)
    lines.append(", ".join(f"{n} {status}" for status, n in counts.items()))
    return "\n".join(lines) + "\n"
