"""The typed, frozen hub model that `hubspec.load` produces and the compiler consumes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from .errors import Origin

RemoteTransport = Literal["http", "sse"]
VendorPolicy = Literal["auto", "always", "never"]
SecretsPolicy = Literal["host", "launcher"]
MemoryServer = Literal["read", "write", "off"]


def frozen_map(data: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    """A read-only mapping (recursively) so a loaded hub cannot be mutated."""

    def freeze(value: Any) -> Any:
        if isinstance(value, Mapping):
            return MappingProxyType({k: freeze(v) for k, v in value.items()})
        if isinstance(value, list | tuple):
            return tuple(freeze(v) for v in value)
        return value

    return freeze(dict(data or {}))


def thaw(value: Any) -> Any:
    """Plain, mutable copies of a frozen value (for building output documents)."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [thaw(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class Person:
    name: str
    email: str | None = None
    url: str | None = None

    def as_dict(self) -> dict[str, str]:
        out = {"name": self.name}
        if self.email:
            out["email"] = self.email
        if self.url:
            out["url"] = self.url
        return out


@dataclass(frozen=True, slots=True)
class Icon:
    """The plugin's icon image, read from the hub."""

    source: str
    content: bytes

    @property
    def suffix(self) -> str:
        return self.source.rsplit(".", 1)[-1].lower()


@dataclass(frozen=True, slots=True)
class Plugin:
    name: str
    version: str
    description: str
    author: Person | None = None
    display_name: str | None = None
    homepage: str | None = None
    repository: str | None = None
    license: str | None = None
    keywords: tuple[str, ...] = ()
    category: str | None = None
    tags: tuple[str, ...] = ()  # Cursor's `tags` (its marketplace's labels)
    # host -> the oldest client version the plugin supports (Cursor's `minClientVersions`)
    min_client_versions: Mapping[str, str] = field(default_factory=frozen_map)
    # install-time options, KEY -> Claude Code's option shape as written (hubspec/userconfig.py)
    user_config: Mapping[str, Mapping[str, Any]] = field(default_factory=frozen_map)
    icon: Icon | None = None
    privacy_policy: str | None = None
    origin: Origin = Origin("hub.yaml")
    path: str | None = None  # the plugin folder in a bundle (None: plugins/<name>)
    readme: bool = True  # False: no generated README.md in its plugin folders
    # "shared": the Agent Plugins package in the plugin folder (hosts/agent_plugins.py)
    agent_plugins_folder: str = "apart"
    # Copilot CLI's manifest in the plugin's own folder at this path (hosts/copilot.py `root`);
    # None: apart, in copilot/<name>/
    copilot_manifest: str | None = None
    # "shared": the Gemini CLI extension in the plugin folder (hosts/gemini.py `root`)
    gemini_folder: str = "apart"
    # host -> {field: value}: values that differ on that host (hubspec/perhost.py `view`)
    per_host: Mapping[str, Mapping[str, Any]] = field(default_factory=frozen_map)

    @property
    def title(self) -> str:
        """The human-facing name: `display_name`, else the name."""
        return self.display_name or self.name


@dataclass(frozen=True, slots=True)
class Marketplace:
    name: str
    owner: Person
    description: str | None = None
    display_name: str | None = None
    origin: Origin = Origin("hub.yaml")


@dataclass(frozen=True, slots=True)
class OAuth:
    client_id: str
    callback_port: int | None = None
    auth_server_metadata_url: str | None = None
    scopes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StdioServer:
    """An MCP server the host starts as a subprocess."""

    name: str
    command: str
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=frozen_map)
    cwd: str | None = None
    description: str | None = None
    origin: Origin = Origin("hub.yaml")
    # The option naming the project folder (`--project`), given only by a host that does not
    # start the server in the folder it works in: `<option> ${project_dir}` is appended there.
    # Elsewhere the server's working folder is the project and the option stays out, so a
    # folder that is no project is served as none (`memory:` sets it; hub.yaml has no key).
    project_option: str | None = None
    hosts: tuple[str, ...] | None = None  # None: every host (hubspec/perhost.py)


@dataclass(frozen=True, slots=True)
class RemoteServer:
    """An MCP server reached over HTTP (streamable HTTP or legacy SSE)."""

    name: str
    url: str
    transport: RemoteTransport = "http"
    headers: Mapping[str, str] = field(default_factory=frozen_map)
    oauth: OAuth | None = None
    description: str | None = None
    origin: Origin = Origin("hub.yaml")
    hosts: tuple[str, ...] | None = None  # None: every host (hubspec/perhost.py)


McpServer = StdioServer | RemoteServer


@dataclass(frozen=True, slots=True)
class SkillFile:
    """One file of a skill folder, relative to that folder."""

    path: str
    content: bytes
    executable: bool = False


@dataclass(frozen=True, slots=True)
class Skill:
    """One skill folder: `name` is the folder's name (what the hub and its paths call the
    skill); `declared` the front matter's `name` as written, None when it has none."""

    name: str
    description: str
    files: tuple[SkillFile, ...]
    origin: Origin = Origin("SKILL.md")
    hosts: tuple[str, ...] | None = None  # None: every host (`skill_hosts:`)
    declared: str | None = None
    group: str | None = None  # the group folder it sits in (skills/<group>/<name>/), if any

    @property
    def folder(self) -> str:
        """Its folder under skills/: `<group>/<name>`, or `<name>`."""
        return f"{self.group}/{self.name}" if self.group else self.name

    @property
    def title(self) -> str:
        """The name a host that reads the front matter lists: `declared`, else the folder."""
        return self.name if self.declared is None else self.declared


@dataclass(frozen=True, slots=True)
class Instructions:
    """The one Markdown source projected as each host's instruction file."""

    text: str
    source: str
    origin: Origin = Origin("hub.yaml")


@dataclass(frozen=True, slots=True)
class Hook:
    """A logical hook: an event, optional tool classes, and a handler or a command."""

    id: str
    event: str
    tools: tuple[str, ...] = ()
    handler: str | None = None
    command: str | None = None
    timeout: int | None = None
    is_async: bool = False
    required: bool = False
    status_message: str | None = None
    origin: Origin = Origin("hub.yaml")
    key_origins: Mapping[str, Origin] = field(default_factory=frozen_map)
    hosts: tuple[str, ...] | None = None  # None: every host (hubspec/perhost.py)
    # host -> {field: value}: values that differ on that host, e.g. a native `event`
    per_host: Mapping[str, Mapping[str, Any]] = field(default_factory=frozen_map)
    matcher: str | None = None  # passed through as is (native events only)
    options: Mapping[str, Any] = field(default_factory=frozen_map)  # `options:`, hub names
    # the order of its keys in the host's hooks file, host spellings (`matcher`/`hooks` for
    # its group); keys not named follow in memhub's order. Set by import --from-repo.
    key_order: tuple[str, ...] = ()
    new_group: bool = False  # starts a group of its own in a Claude-style file (never joins)

    def origin_of(self, key: str) -> Origin:
        """Where `key` of this hook is written (the hook's own position if it is not)."""
        return self.key_origins.get(key, self.origin)


@dataclass(frozen=True, slots=True)
class Runtime:
    """How generated hooks launch the memhub runtime."""

    python: str = "python3"
    vendor: VendorPolicy = "auto"
    # host: each host resolves references itself where it can; launcher: every stdio server
    # starts through memhub's launcher (hosts started from a desktop have no shell env)
    secrets: SecretsPolicy = "host"


@dataclass(frozen=True, slots=True)
class RemoteRecall:
    """`memory.recall.remote`: the MemHub-compatible MCP server recall hooks ask instead of
    the local memory. No secret: `key_env` names the variable holding the key (else the
    capture credential, `MEMHUB_API_KEY` or `memhub login`'s)."""

    url: str
    key_env: str = ""
    timeout_ms: int | None = None


@dataclass(frozen=True, slots=True)
class Memory:
    """The hub's `memory:` section: memhub's own memory server and its guidance.

    The loader expands it into the hub's servers (`memhub-memory`) and instructions, so the
    host adapters carry it like any other server and instruction text."""

    server: MemoryServer = "read"
    instructions: bool = True
    scopes: tuple[str, ...] = ("shared", "project")
    origin: Origin = Origin("hub.yaml")
    recall: RemoteRecall | None = None  # None: recall answers from the local memory


@dataclass(frozen=True, slots=True)
class RulebookRule:
    """One rule of a hub's rulebook (runtime/rules/book.py reads its compiled form)."""

    id: str
    event: str  # edit, bash, session_start
    text: str
    triggers: Mapping[str, tuple[str, ...]] = field(default_factory=frozen_map)
    scope: tuple[str, ...] | None = None  # None: every project
    state: str = "active"
    origin: Origin = Origin("hub.yaml")


@dataclass(frozen=True, slots=True)
class Rulebook:
    """A rulebook the hub declares: compiled into every bundle and install as the JSON
    file the runtime's store reads (`mapping`)."""

    name: str
    members: tuple[str, ...] | None  # None: everyone
    rules: tuple[RulebookRule, ...]
    origin: Origin = Origin("hub.yaml")

    @property
    def events(self) -> frozenset[str]:
        """The events its active rules fire on."""
        return frozenset(r.event for r in self.rules if r.state == "active")

    def mapping(self) -> dict[str, Any]:
        """The book as its compiled file holds it (the runtime's one writer of the format)."""
        from memhub.runtime.rules.book import document

        return document(self)


@dataclass(frozen=True, slots=True)
class ShippedFile:
    """One file the hub ships in the plugin folder (`files:`), read once by the loader."""

    path: str  # where it lands, relative to the plugin folder
    content: bytes
    executable: bool = False
    link: str | None = None  # `link: true`: shipped as a link holding this target text
    source: str = ""  # where it was read, relative to the hub folder
    hosts: tuple[str, ...] | None = None  # None: every host whose bundle is a plugin folder
    origin: Origin = Origin("hub.yaml")


@dataclass(frozen=True, slots=True)
class CursorRule:
    """One Cursor rule (`rules:`): its file name in rules/, and its bytes as read."""

    name: str  # <name>.mdc, .md or .markdown
    content: bytes
    origin: Origin = Origin("hub.yaml")


@dataclass(frozen=True, slots=True)
class PromptFile:
    """An agent or a command: one `<name>.md`, kept as read. `name` is the file's name (where
    every host writes it); `declared` the front matter's `name:` as written (None without
    one): Claude Code lists an agent by it, a command by its file name. A command may have
    no front matter, or no `description` ("": Claude Code takes the body's first line)."""

    name: str
    description: str
    content: bytes  # the file byte for byte (what hosts with the same format get)
    body: str  # the Markdown after the front matter (what other formats convert)
    front: Mapping[str, Any] = field(default_factory=frozen_map)
    hosts: tuple[str, ...] | None = None  # None: every host that has them
    origin: Origin = Origin("agent.md")
    declared: str | None = None

    @property
    def title(self) -> str:
        """The name a host that reads the front matter lists it by: `declared`, else `name`."""
        return self.name if self.declared is None else self.declared


class Agent(PromptFile):
    """A subagent (`agents:` folder)."""

    __slots__ = ()


class Command(PromptFile):
    """A slash command (`commands:` folder)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Hub:
    version: int
    root: str
    plugin: Plugin
    marketplace: Marketplace
    hosts: tuple[str, ...]
    mcp_servers: tuple[McpServer, ...] = ()
    skills: tuple[Skill, ...] = ()
    instructions: Instructions | None = None
    hooks: tuple[Hook, ...] = ()
    mcp_flat: bool = False  # `mcp.flat`: .mcp.json without its `mcpServers` object
    mcp_file: bool = False  # `mcp.file`: .mcp.json written even without servers
    runtime: Runtime = Runtime()
    overrides: Mapping[str, Any] = field(default_factory=frozen_map)
    id: str | None = None  # the hub's identity (`id:`), kept across moves and clones
    memory: Memory | None = None  # already expanded into mcp_servers and instructions
    rulebooks: tuple[Rulebook, ...] = ()
    files: tuple[ShippedFile, ...] = ()
    agents: tuple[Agent, ...] = ()
    commands: tuple[Command, ...] = ()
    # host -> its hooks file in the plugin folder, where it is not the adapter's own name
    hook_files: Mapping[str, str] = field(default_factory=frozen_map)
    # hosts whose hooks file ships as the hub folder holds it (`hooks_kept`, in `files`)
    hooks_kept: tuple[str, ...] = ()
    rules: tuple[CursorRule, ...] = ()  # `rules:`, Cursor's rules/ folder

    def override(self, host: str, section: str) -> Mapping[str, Any]:
        """The `overrides.<host>.<section>` mapping (empty when not given)."""
        return self.overrides.get(host, {}).get(section, {})

    @property
    def needs_runtime(self) -> bool:
        """True when the bundle must ship the vendored runtime."""
        if self.runtime.vendor == "always":
            return True
        if self.runtime.vendor == "never":
            return False
        return any(hook.handler for hook in self.hooks)
