"""The host contract as Protocols (bundle, install, import, doctor) and the records adapters return.

An adapter is one module. `hosts/__init__.py` lists each module once, typed as the role it
fills, so mypy checks every adapter against these Protocols; nothing probes an adapter with
getattr. A bundle-only host (agent-plugins) is a `BundleHost`; a host `memhub apply` writes to
is an `InstallHost`: a `BundleHost`, an `ImportHost` and a `DoctorHost` as well.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from memhub.compiler.artifact import Artifact
from memhub.hubspec.model import Hub

if TYPE_CHECKING:  # these modules import adapters' helpers, which import this module
    from memhub.compiler.hosts.hooks import EventSupport
    from memhub.compiler.importing.hostconfig import Installed
    from memhub.compiler.install.entries import Entry, EntryKind
    from memhub.compiler.install.scope import Scope

CoverageStatus = Literal["mapped", "caveat", "unsupported"]
# `read(path)`: a host file's parsed data, None when it is absent or does not parse.
ReadDocument = Callable[[Path | str], Any]


@dataclass(frozen=True, slots=True)
class CoverageRow:
    """How one hub component lands on one host (`component` is hook, mcp or instructions)."""

    host: str
    component: str
    id: str
    status: CoverageStatus
    target: str
    reason: str = ""
    required: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "host": self.host,
            "component": self.component,
            "id": self.id,
            "status": self.status,
            "target": self.target,
            "reason": self.reason,
            "required": self.required,
        }


@dataclass(frozen=True, slots=True)
class HostBuild:
    """What one adapter produced for one hub."""

    artifacts: tuple[Artifact, ...]
    coverage: tuple[CoverageRow, ...]


@dataclass(frozen=True, slots=True)
class Locations:
    """Where one host reads in one scope: install writes there, doctor and import look there."""

    mcp_file: Path
    mcp_kind: EntryKind  # how an MCP server entry is edited in mcp_file
    mcp_key: str  # the key holding the servers (`mcpServers`, `mcp_servers`)
    hooks_file: Path
    skills: Path  # the folder of skill folders
    instructions: Path | None  # None: the host reads no instruction file in this scope

    @property
    def files(self) -> frozenset[str]:
        """Every file (not folder) the host reads memhub's entries from."""
        found = {self.mcp_file, self.hooks_file, self.instructions}
        return frozenset(str(f) for f in found if f is not None)


def _no_reasons(scope: Scope, read: ReadDocument) -> list[str]:
    return []


def _no_reason(scope: Scope, group: dict[str, Any], read: ReadDocument) -> str | None:
    return None


def _no_problems(document: Any) -> list[str]:
    return []


# (key, status) per handler of one hook group: trusted, untrusted, modified or disabled.
TrustOf = Callable[["Scope", str, str, int, dict[str, Any], ReadDocument], list[tuple[str, str]]]


@dataclass(frozen=True, slots=True)
class HookSwitches:
    """How doctor asks a host whether it runs the hooks memhub installed; defaults: nothing
    turns them off, no trust, any hooks file is read."""

    # Settings that turn every hook off, as "<file>: <what>".
    all_off: Callable[[Scope, ReadDocument], list[str]] = _no_reasons
    # Why the host skips this one hook group, or None.
    one_off: Callable[[Scope, dict[str, Any], ReadDocument], str | None] = _no_reason
    # Per handler trust (Codex /hooks); None when the host runs hooks without trust.
    trust: TrustOf | None = None
    # What keeps the host from reading a hooks file that holds memhub's hooks.
    file_problems: Callable[[Any], list[str]] = _no_problems


@dataclass(frozen=True, slots=True)
class SkillNames:
    """How a host takes a SKILL.md without `name:` and a name that is not kebab-case equal to
    its folder: None when it loads it as the hub has it, else (status, reason) of the row.
    An adapter that loads both as written (Claude Code, Codex) defines no `SKILL_NAMES`."""

    without_name: tuple[CoverageStatus, str] | None = None
    other_name: tuple[CoverageStatus, str] | None = None


@dataclass(frozen=True, slots=True)
class DescriptionMax:
    """The longest skill `description` a host takes whole (`chars`), and what it does with a
    longer one: `status` of the coverage row and `beyond`, in words. An adapter whose real
    CLI loads any length tried defines no `SKILL_DESCRIPTION_MAX`."""

    chars: int
    status: CoverageStatus
    beyond: str


@dataclass(frozen=True, slots=True)
class ServerStarts:
    """How the host's CLI reports which of its MCP servers start (`memhub doctor`): `read`
    maps its (stdout, stderr) to each server it tried, None when it connected, else the
    host's own words. With `args` empty the loader's run reports it; else `args` is run, is
    sent the `send` lines, and its stdin stays open until `answered(line)` (a JSON-RPC app)."""

    read: Callable[[str, str], dict[str, str | None]]
    args: tuple[str, ...] = ()
    send: tuple[str, ...] = ()
    answered: Callable[[str], bool] | None = None
    label: str = ""  # how the check names what it asked, when `args` does not say it


@dataclass(frozen=True, slots=True)
class Loader:
    """The host CLI's own command that loads its config, and how to read its refusal."""

    args: tuple[str, ...]
    refusal: Callable[[int, str, str], str | None]  # (returncode, stdout, stderr) -> words
    env: Mapping[str, str] = field(default_factory=dict)  # keeps the CLI quiet and offline
    starts: ServerStarts | None = None  # None: the host has no command that reports it


class BundleHost(Protocol):
    """Every host: what `memhub build` and `memhub hosts` ask of an adapter."""

    name: str
    title: str
    summary: str
    bundle_root: str  # folder of the bundle holding this host's plugin copy
    runs_hooks: bool  # whether the vendored runtime can be called from this host
    shows_icon: bool  # whether the manifest can reference the plugin's icon
    EVENTS: dict[str, EventSupport]  # logical event -> how this host carries it
    TOOLS: dict[str, tuple[str, ...] | None]  # tool class -> this host's tool names
    NATIVE_EVENTS: tuple[str, ...]  # this host's own hook events (`event: {host: Name}`)
    HOOK_OPTIONS: dict[str, str]  # hub hook option -> this host's key for it
    HOOK_ENV: frozenset[str]  # variables this host sets for plugin hook commands

    def install_steps(self, hub: Hub) -> list[str]:
        """Commands a person runs to install the built bundle in this host."""
        ...

    def build(self, hub: Hub) -> HostBuild:
        """The host's bundle files for `hub`, and the coverage of each component."""
        ...


class ImportHost(Protocol):
    """What `memhub import` asks of a host: what it has installed, read back."""

    name: str

    def locations(self, scope: Scope) -> Locations:
        """Where the host reads in `scope` (the one answer install, doctor and import use)."""
        ...

    def read_installed(self, scope: Scope) -> Installed:
        """What the host has installed in `scope`, in the hub's shape."""
        ...


class DoctorHost(Protocol):
    """What `memhub doctor` asks of a host: where it reads, what turns its hooks off, and
    the command that makes its CLI load its config."""

    name: str
    title: str
    EVENTS: dict[str, EventSupport]
    executables: tuple[str, ...]  # the host's CLI names (is it installed here?)
    hook_switches: HookSwitches
    loader: Loader | None  # None: the host has no CLI command that loads its config

    def locations(self, scope: Scope) -> Locations:
        """Where the host reads in `scope` (the one answer install, doctor and import use)."""
        ...


class InstallHost(BundleHost, ImportHost, DoctorHost, Protocol):
    """A host `memhub apply` writes to; `memhub import` and `memhub doctor` read it back."""

    placing_env: tuple[str, ...]  # variables that move where the host reads

    def install_entries(self, hub: Hub, scope: Scope) -> tuple[list[Entry], list[CoverageRow]]:
        """The entries `hub` puts into the host's files in `scope`, and their coverage."""
        ...

    def after_install_steps(self, hub: Hub, scope: Scope | None = None) -> list[str]:
        """What only the host's own UI can do after an apply."""
        ...
