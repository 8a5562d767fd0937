"""`load(path) -> Hub`: read hub.yaml and the files it names, check everything, or raise.

Every problem is collected (not just the first), each naming file:line:col, the key
path and a fix; a hub that loads is safe to compile.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Any

from memhub.runtime import credentials

from .errors import HubError, Origin, Problem
from .model import (
    Hook,
    Hub,
    Icon,
    Instructions,
    Marketplace,
    OAuth,
    Person,
    Plugin,
    RemoteServer,
    Runtime,
    Skill,
    StdioServer,
    frozen_map,
)
from .refs import literal_secret, reference_problems
from .schema_check import schema_problems
from .skills import read_skill
from .vocabulary import BLOCK_MARKER, TOOL_EVENTS, bundle_hosts
from .yamlsrc import KeyPath, Positions, YamlProblems, format_path, gc_paused, parse_yaml

HUB_FILE = "hub.yaml"


def find_hub_file(path: str | os.PathLike[str]) -> Path:
    """The hub.yaml for a folder or file argument; raises HubError when there is none."""
    candidate = Path(path)
    if candidate.is_dir():
        candidate = candidate / HUB_FILE
    if not candidate.is_file():
        raise HubError(
            [
                Problem(
                    Origin(str(candidate)),
                    "",
                    "no hub file here",
                    "pass a hub folder or its hub.yaml, or create one with `memhub init`",
                )
            ]
        )
    return candidate


def load(path: str | os.PathLike[str], *, cache: Path | None = None) -> Hub:
    """Load and check the hub at `path` (a folder or its hub.yaml).

    `cache`: a folder where checked skills are kept between runs (see skillcache).
    """
    with gc_paused():
        return _load(path, cache)


def _load(path: str | os.PathLike[str], cache: Path | None) -> Hub:
    hub_file = find_hub_file(path)
    root = hub_file.parent
    shown = str(hub_file)
    text = _hub_text(hub_file, shown)
    try:
        data, positions = parse_yaml(text, shown)
    except YamlProblems as exc:
        raise HubError(exc.problems) from None
    if not isinstance(data, dict):
        raise HubError(
            [
                Problem(
                    positions.of_value(()),
                    "",
                    "the hub must be a mapping of keys (version, plugin, marketplace, ...)",
                    "start from `memhub init` or the README's hub reference",
                )
            ]
        )
    problems = schema_problems(data, positions)
    if problems:
        raise HubError(problems)
    skill_cache = None
    if cache is not None:
        from .skillcache import SkillCache

        skill_cache = SkillCache(cache)
    checker = _Checker(root, positions, skill_cache)
    hub = checker.build(data)
    if checker.problems:
        raise HubError(checker.problems)
    assert hub is not None
    if skill_cache is not None:
        skill_cache.save()
    return hub


# Far above any real hub (400,000 MCP servers are about 120 MB), and refused from its size
# alone, before a byte is read.
MAX_HUB_BYTES = 256 * 1024 * 1024


def _hub_text(hub_file: Path, shown: str) -> str:
    def refuse(message: str, fix: str) -> HubError:
        return HubError([Problem(Origin(shown), "", message, fix)])

    try:
        size = hub_file.stat().st_size
        if size > MAX_HUB_BYTES:
            raise refuse(
                f"{size:,} bytes, more than the {MAX_HUB_BYTES:,} a hub file may have",
                "split the hub, or check that this is the hub.yaml you meant",
            )
        return hub_file.read_text("utf-8")
    except UnicodeDecodeError as exc:
        raise refuse(f"not UTF-8 text ({exc.reason})", "save hub.yaml as UTF-8") from None
    except OSError as exc:
        raise refuse(f"cannot be read ({exc.strerror or exc})", "make it readable") from None


class _Checker:
    """Semantic checks beyond the schema, and construction of the model."""

    def __init__(self, root: Path, positions: Positions, skill_cache: Any = None) -> None:
        self.root = root
        self.positions = positions
        self.problems: list[Problem] = []
        self.skill_cache = skill_cache

    def problem(self, path: KeyPath, message: str, fix: str, *, at_key: bool = False) -> None:
        where = self.positions.of_key(path) if at_key else self.positions.of_value(path)
        self.problems.append(Problem(where, format_path(path), message, fix))

    def build(self, data: dict[str, Any]) -> Hub | None:
        plugin = self._plugin(data["plugin"])
        marketplace = self._marketplace(data["marketplace"])
        servers = self._servers(data.get("mcp", {}).get("servers", {}))
        skills = self._skills(data.get("skills"))
        instructions = self._instructions(data.get("instructions"))
        hooks = self._hooks(data.get("hooks", []))
        runtime = Runtime(**data.get("runtime", {}))
        self._check_overrides(("overrides",), data.get("overrides", {}))
        if self.problems:
            return None
        return Hub(
            version=data["version"],
            root=str(self.root),
            plugin=plugin,
            marketplace=marketplace,
            hosts=tuple(data["hosts"]) if "hosts" in data else bundle_hosts(),
            mcp_servers=servers,
            skills=skills,
            instructions=instructions,
            hooks=hooks,
            runtime=runtime,
            overrides=frozen_map(data.get("overrides", {})),
            id=data.get("id"),
        )

    def _plugin(self, raw: dict[str, Any]) -> Plugin:
        return Plugin(
            name=raw["name"],
            version=raw["version"],
            description=raw["description"],
            author=_person(raw.get("author")),
            display_name=raw.get("display_name"),
            homepage=raw.get("homepage"),
            repository=raw.get("repository"),
            license=raw.get("license"),
            keywords=tuple(raw.get("keywords", ())),
            category=raw.get("category"),
            icon=self._icon(raw.get("icon")),
            privacy_policy=raw.get("privacy_policy"),
            origin=self.positions.of_value(("plugin",)),
        )

    def _icon(self, value: str | None) -> Icon | None:
        if value is None:
            return None
        target = self._relative_file(("plugin", "icon"), value, want_dir=False)
        if target is None:
            return None
        try:
            content = target.read_bytes()
        except OSError as exc:
            self.problem(("plugin", "icon"), _cannot_read(value, exc), "make it readable")
            return None
        if not content.startswith((b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")):
            self.problem(
                ("plugin", "icon"),
                f"{value!r} is not a PNG or JPEG image",
                "use a square PNG or JPEG of 512 to 2048 pixels",
            )
            return None
        return Icon(source=value, content=content)

    def _marketplace(self, raw: dict[str, Any]) -> Marketplace:
        owner = _person(raw["owner"])
        assert owner is not None
        return Marketplace(
            name=raw["name"],
            owner=owner,
            description=raw.get("description"),
            display_name=raw.get("display_name"),
            origin=self.positions.of_value(("marketplace",)),
        )

    def _check_token(self, path: KeyPath, value: str) -> None:
        found = credentials.find(value)
        if found:
            self._literal_credential(path, credentials.describe(found[0]))

    def _literal_credential(self, path: KeyPath, what: str) -> None:
        name = _suggested_name(path)
        self.problem(
            path,
            f"holds {what}; a hub is committed, its secrets are not",
            f"put the value in the hub's .env (or your environment) as {name}=... and write "
            f"${{env:{name}}} in its place",
        )

    def _check_args(self, path: KeyPath, args: list[str]) -> None:
        """Args are checked as the one command line they make, so `--token X` split over
        two args is found; the problem names the arg that holds the value."""
        line, starts = "", []
        for arg in args:
            starts.append(len(line))
            line += arg + " "
        reported: set[int] = set()
        for found in credentials.find(line):
            index = max(i for i, start in enumerate(starts) if start <= found.start)
            if index not in reported:
                reported.add(index)
                self._literal_credential((*path, index), credentials.describe(found))

    def _check_overrides(self, path: KeyPath, value: Any, parent: str = "") -> None:
        """Host-only keys are written into host files as they are: no literal credentials
        there either (a token, or a literal under a key that names a secret)."""
        if isinstance(value, dict):
            for key, item in value.items():
                if isinstance(item, str):
                    why = credentials.literal_for_key(str(key), item)
                    if why and not credentials.names_a_variable(parent, item):
                        self._literal_credential((*path, key), why.removeprefix("it contains "))
                else:
                    self._check_overrides((*path, key), item, str(key))
        elif isinstance(value, list):
            if all(isinstance(item, str) for item in value):
                self._check_args(path, value)  # `args: ["--token", "X"]` is one line
                return
            for index, item in enumerate(value):
                self._check_overrides((*path, index), item, parent)

    def _check_refs(
        self, path: KeyPath, value: str, *, allow_plugin: bool = True, tokens: bool = True
    ) -> None:
        if tokens:
            self._check_token(path, value)
        for why in reference_problems(value, allow_plugin=allow_plugin, allow_unknown=False):
            self.problem(
                path, why, "write ${env:NAME} for a secret or ${plugin_root}/... for a bundled file"
            )

    def _check_secret_map(
        self, path: KeyPath, mapping: dict[str, str], *, allow_plugin: bool
    ) -> None:
        for key, value in mapping.items():
            self._check_refs((*path, key), value, allow_plugin=allow_plugin, tokens=False)
            why = literal_secret(key, value)
            if why:
                self.problem(
                    (*path, key),
                    f"looks like a literal credential: {why}",
                    f"put the value in the hub's .env (or your environment) and write "
                    f"${{env:{_env_name(key)}}} here",
                )

    def _servers(self, raw: dict[str, Any]) -> tuple[StdioServer | RemoteServer, ...]:
        servers: list[StdioServer | RemoteServer] = []
        for name, spec in raw.items():
            path: KeyPath = ("mcp", "servers", name)
            origin = self.positions.of_key(path)
            if "command" in spec:
                for key in ("transport", "headers", "oauth"):
                    if key in spec:
                        self.problem(
                            (*path, key),
                            f"{key!r} applies to remote servers only",
                            "remove it, or give the server a `url` instead of `command`",
                            at_key=True,
                        )
                self._check_refs((*path, "command"), spec["command"])
                for index, arg in enumerate(spec.get("args", [])):
                    self._check_refs((*path, "args", index), arg, tokens=False)
                self._check_args((*path, "args"), spec.get("args", []))
                self._check_secret_map((*path, "env"), spec.get("env", {}), allow_plugin=True)
                cwd = spec.get("cwd")
                if cwd is not None:
                    self._check_refs((*path, "cwd"), cwd)
                    self._check_cwd((*path, "cwd"), cwd)
                servers.append(
                    StdioServer(
                        name=name,
                        command=spec["command"],
                        args=tuple(spec.get("args", ())),
                        env=frozen_map(spec.get("env", {})),
                        cwd=cwd,
                        description=spec.get("description"),
                        origin=origin,
                    )
                )
            else:
                for key in ("args", "env", "cwd"):
                    if key in spec:
                        self.problem(
                            (*path, key),
                            f"{key!r} applies to stdio servers only",
                            "remove it, or give the server a `command` instead of `url`",
                            at_key=True,
                        )
                userinfo = "@" in spec["url"].split("//", 1)[-1].split("/", 1)[0]
                self._check_refs(
                    (*path, "url"), spec["url"], allow_plugin=False, tokens=not userinfo
                )
                if userinfo:
                    self.problem(
                        (*path, "url"),
                        "the URL carries user credentials",
                        "remove user:password@ and send credentials in a header as ${env:NAME}",
                    )
                self._check_secret_map(
                    (*path, "headers"), spec.get("headers", {}), allow_plugin=False
                )
                oauth = spec.get("oauth")
                servers.append(
                    RemoteServer(
                        name=name,
                        url=spec["url"],
                        transport=spec.get("transport", "http"),
                        headers=frozen_map(spec.get("headers", {})),
                        oauth=OAuth(
                            client_id=oauth["client_id"],
                            callback_port=oauth.get("callback_port"),
                            auth_server_metadata_url=oauth.get("auth_server_metadata_url"),
                            scopes=tuple(oauth.get("scopes", ())),
                        )
                        if oauth
                        else None,
                        description=spec.get("description"),
                        origin=origin,
                    )
                )
        return tuple(servers)

    def _check_cwd(self, path: KeyPath, cwd: str) -> None:
        rest = cwd
        for prefix in ("${plugin_root}", "${plugin_data}"):
            if cwd == prefix or cwd.startswith(prefix + "/"):
                rest = cwd[len(prefix) :].lstrip("/") or "."
                break
        else:
            if not cwd.startswith("./") and cwd != ".":
                self.problem(
                    path,
                    f"{cwd!r} is not inside the plugin",
                    "write ./relative, ${plugin_root}/... or ${plugin_data}/...",
                )
                return
        if ".." in PurePosixPath(rest).parts:
            self.problem(
                path,
                f"{cwd!r} climbs out of the plugin with '..'",
                "use a path inside the plugin folder",
            )

    def _relative_file(self, path: KeyPath, value: str, *, want_dir: bool) -> Path | None:
        pure = PurePosixPath(value)
        if pure.is_absolute() or Path(value).is_absolute() or value.startswith("~"):
            self.problem(
                path, f"{value!r} is an absolute path", "write a path relative to the hub folder"
            )
            return None
        if ".." in pure.parts:
            self.problem(
                path,
                f"{value!r} climbs out of the hub folder with '..'",
                "keep the file inside the hub folder",
            )
            return None
        target = self.root / value
        try:
            inside = target.resolve().is_relative_to(self.root.resolve())
        except (OSError, RuntimeError, ValueError) as exc:  # link loops, NUL bytes
            self.problem(
                path,
                f"{value!r} cannot be resolved ({exc})",
                "point at a real file inside the hub folder",
            )
            return None
        if not inside:
            self.problem(
                path,
                f"{value!r} resolves outside the hub folder (through a link)",
                "copy the file into the hub folder",
            )
            return None
        if want_dir and not target.is_dir():
            self.problem(
                path,
                f"folder {value!r} does not exist",
                f"create {value}/ with one <name>/SKILL.md per skill, or remove the key",
            )
            return None
        if not want_dir and not target.is_file():
            self.problem(
                path, f"file {value!r} does not exist", "create the file, or remove the key"
            )
            return None
        return target

    def _skills(self, value: str | None) -> tuple[Skill, ...]:
        if value is None:
            if not (self.root / "skills").is_dir():
                return ()
            value = "skills"
        folder = self._relative_file(("skills",), value, want_dir=True)
        if folder is None:
            return ()
        try:
            entries = sorted(folder.iterdir(), key=lambda p: p.name)
        except OSError as exc:
            self.problem(("skills",), _cannot_read(value, exc), "make the folder readable")
            return ()
        skills = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if entry.is_file() and not entry.is_symlink():
                continue  # a README or notes beside the skill folders
            shown = str(folder / entry.name)
            cached = self.skill_cache.get(entry, shown) if self.skill_cache else None
            if cached is not None:
                skills.append(cached)
                continue
            loaded = read_skill(entry, shown=shown, problems=self.problems)
            if loaded is not None:
                skills.append(loaded)
                if self.skill_cache is not None:
                    self.skill_cache.put(entry, shown, loaded)
        return tuple(skills)

    def _instructions(self, value: str | None) -> Instructions | None:
        if value is None:
            return None
        target = self._relative_file(("instructions",), value, want_dir=False)
        if target is None:
            return None
        try:
            text = target.read_text("utf-8")
        except UnicodeDecodeError:
            self.problem(("instructions",), f"{value!r} is not UTF-8 text", "save it as UTF-8")
            return None
        except OSError as exc:
            self.problem(("instructions",), _cannot_read(value, exc), "make it readable")
            return None
        if not self._no_block_markers(target, text):
            return None
        return Instructions(
            text=text, source=value, origin=self.positions.of_value(("instructions",))
        )

    def _no_block_markers(self, file: Path, text: str) -> bool:
        """Instructions holding memhub's own block marker lines are refused: written into a
        marked block, such a line ends (or nests) the block early, so every later apply and
        uninstall would refuse the instruction file as broken."""
        found = BLOCK_MARKER.search(text)
        if found is None:
            return True
        line = text.count("\n", 0, found.start()) + 1
        self.problems.append(
            Problem(
                Origin(str(file), line, 1),
                "instructions",
                f"the line {found.group(0).strip()!r} is a memhub block marker; memhub wraps "
                "the instructions in these markers itself",
                "remove the line, or change it (for example indent it or drop the `<!--`)",
            )
        )
        return False

    def _hooks(self, raw: list[dict[str, Any]]) -> tuple[Hook, ...]:
        from memhub.runtime.handlers import HANDLERS

        seen: dict[str, int] = {}
        hooks = []
        for index, spec in enumerate(raw):
            path: KeyPath = ("hooks", index)
            hook_id = spec["id"]
            if hook_id in seen:
                self.problem(
                    (*path, "id"),
                    f"duplicate hook id {hook_id!r} (also hooks[{seen[hook_id]}])",
                    "give every hook its own id",
                )
            seen.setdefault(hook_id, index)
            if "tools" in spec and spec["event"] not in TOOL_EVENTS:
                self.problem(
                    (*path, "tools"),
                    f"`tools` only applies to tool events, not {spec['event']!r}",
                    f"remove `tools`, or use one of: {', '.join(sorted(TOOL_EVENTS))}",
                    at_key=True,
                )
            handler = spec.get("handler")
            if handler is not None and handler not in HANDLERS:
                known = ", ".join(sorted(HANDLERS)) or "none yet"
                self.problem(
                    (*path, "handler"),
                    f"unknown runtime handler {handler!r}",
                    f"use a known handler ({known}) or a `command:`",
                )
            command = spec.get("command")
            if command is not None:
                self._check_token((*path, "command"), command)
                for why in reference_problems(command, allow_plugin=True, allow_unknown=True):
                    self.problem((*path, "command"), why, "write ${env:NAME} or ${plugin_root}")
            hooks.append(
                Hook(
                    id=hook_id,
                    event=spec["event"],
                    tools=tuple(spec.get("tools", ())),
                    handler=handler,
                    command=command,
                    timeout=spec.get("timeout"),
                    is_async=spec.get("async", False),
                    required=spec.get("required", False),
                    status_message=spec.get("status_message"),
                    origin=self.positions.of_value(path),
                    key_origins=frozen_map(
                        {key: self.positions.of_key((*path, key)) for key in spec}
                    ),
                )
            )
        return tuple(hooks)


def _person(raw: dict[str, Any] | None) -> Person | None:
    if raw is None:
        return None
    return Person(name=raw["name"], email=raw.get("email"), url=raw.get("url"))


def _suggested_name(path: KeyPath) -> str:
    """A variable name for the secret at `path`: its key, else its server's name."""
    last = path[-1]
    if isinstance(last, str) and last not in ("command", "url", "cwd", "args"):
        return _env_name(last)
    if path[:2] == ("mcp", "servers") and len(path) > 2:
        return _env_name(f"{path[2]}_secret")
    return "SECRET"


def _env_name(key: str) -> str:
    cleaned = "".join(ch if ch.isalnum() else "_" for ch in key).upper().strip("_")
    return cleaned or "SECRET"


def _cannot_read(value: str, exc: OSError) -> str:
    return f"{value!r} cannot be read ({exc.strerror or exc})"
