"""The checks every hub.yaml section shares: secrets, references, argument lists, paths."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from memhub.runtime import credentials

from .errors import Problem
from .refs import literal_secret, reference_problems, references, with_defaults
from .vocabulary import ENV_NAME
from .yamlsrc import KeyPath, Positions, format_path


class Checker:
    """Collects problems (file:line:col, key path, fix) while the sections are built."""

    def __init__(self, root: Path, positions: Positions, skill_cache: Any = None) -> None:
        self.root = root
        self.positions = positions
        self.problems: list[Problem] = []
        self.skill_cache = skill_cache
        self.shipped_from: frozenset[str] = frozenset()  # `files:` sources (shipped_sources)

    def shipped(self, entry: Path) -> bool:
        """Whether `files:` ships `entry` of a component folder as it is (its `from` is the
        entry or a folder holding it): then it is no component of the hub."""
        try:
            rel = PurePosixPath(entry.relative_to(self.root).as_posix())
        except ValueError:
            return False
        return any(str(p) in self.shipped_from for p in (rel, *rel.parents))

    def problem(self, path: KeyPath, message: str, fix: str, *, at_key: bool = False) -> None:
        where = self.positions.of_key(path) if at_key else self.positions.of_value(path)
        self.problems.append(Problem(where, format_path(path), message, fix))

    def _check_token(self, path: KeyPath, value: str) -> None:
        found = credentials.find(with_defaults(value))
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
            line += with_defaults(arg) + " "
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
        for why in reference_problems(
            value, allow_plugin=allow_plugin, allow_unknown=False, allow_user_config=True
        ):
            self.problem(
                path, why, "write ${env:NAME} for a secret or ${plugin_root}/... for a bundled file"
            )
        declared: frozenset[str] = getattr(self, "user_config_keys", frozenset())
        for ref in references(value):
            if ref.kind == "user_config" and ref.name not in declared and ENV_NAME.match(ref.name):
                self.problem(
                    path,
                    f"{ref.raw} names no option of plugin.user_config",
                    f"declare it: plugin: user_config: {{{ref.name}: {{type: string, "
                    "title: ..., description: ...}}",
                )

    def _check_secret_map(
        self, path: KeyPath, mapping: dict[str, str], *, allow_plugin: bool
    ) -> None:
        for key, value in mapping.items():
            self._check_refs((*path, key), value, allow_plugin=allow_plugin, tokens=False)
            why = literal_secret(key, with_defaults(value))
            if why:
                self.problem(
                    (*path, key),
                    f"looks like a literal credential: {why}",
                    f"put the value in the hub's .env (or your environment) and write "
                    f"${{env:{_env_name(key)}}} here",
                )

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


def cannot_read(value: str, exc: OSError) -> str:
    return f"{value!r} cannot be read ({exc.strerror or exc})"
