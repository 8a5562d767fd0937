"""What `files:` ships into the component folders (`skills/`, `agents/`, `commands/`,
`rules/`): a folder of skills/ without SKILL.md, `agents/.gitkeep`, a component kept as
published. Such an entry is no component (the folder's reader skips it: Checker.shipped)
and may not land where the build writes a component."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from .checks import Checker
from .errors import Problem
from .files import COMPONENT_FOLDERS
from .model import Agent, Command, CursorRule, ShippedFile, Skill


def shipped_sources(data: dict[str, Any]) -> frozenset[str]:
    """The `from` paths of the hub's `files:` entries, normalised (`./skills/x` is
    `skills/x`): a component folder's entry among them is shipped, not read as a component."""
    specs = [s for s in data.get("files") or [] if isinstance(s, dict)]
    return frozenset(
        PurePosixPath(str(s["from"])).as_posix() for s in specs if isinstance(s.get("from"), str)
    )


def component_clashes(
    shipped: tuple[ShippedFile, ...], paths: dict[str, str]
) -> list[tuple[ShippedFile, str]]:
    """Each shipped file landing where a component of the hub is written (`paths`: plugin
    path -> the component there; a skill's folder as `skills/<folder>/`), with that one."""
    clashes = []
    folders = {p: c for p, c in paths.items() if p.endswith("/")}
    for item in shipped:
        if item.path.split("/", 1)[0] not in COMPONENT_FOLDERS:
            continue
        what = paths.get(item.path)
        what = what or next((c for p, c in folders.items() if item.path.startswith(p)), None)
        if what is not None:
            clashes.append((item, what))
    return clashes


def component_paths(
    skills: tuple[Skill, ...],
    agents: tuple[Agent, ...],
    commands: tuple[Command, ...],
    rules: tuple[CursorRule, ...],
) -> dict[str, str]:
    """Where the build writes each component in a plugin folder (a skill: its folder)."""
    paths = {f"skills/{s.folder}/": f"skill {s.name!r}" for s in skills}
    paths.update({f"agents/{a.name}.md": f"agent {a.name!r}" for a in agents})
    for command in commands:
        for suffix in (".md", ".toml"):  # Gemini's is TOML
            paths[f"commands/{command.name}{suffix}"] = f"command {command.name!r}"
    paths.update({f"rules/{r.name}": f"rule {r.name!r}" for r in rules})
    return paths


class ShippedComponentChecks(Checker):
    """A shipped file on a component's path."""

    def _component_clashes(
        self, shipped: tuple[ShippedFile, ...], components: dict[str, str]
    ) -> None:
        """A shipped file landing on a component's path (`components`: component_clashes)."""
        for item, what in component_clashes(shipped, components):
            self.problems.append(
                Problem(
                    item.origin,
                    "files",
                    f"{item.source} would land on {item.path}, where memhub writes {what}",
                    "give the entry another `to`, or ship the component itself from `files:` "
                    "(what `files:` ships from a component folder is no component)",
                )
            )
