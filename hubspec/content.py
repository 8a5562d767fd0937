"""The files a hub names: its skills folder and its instructions file."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from .checks import Checker, cannot_read
from .errors import Origin, Problem
from .model import (
    Instructions,
    Skill,
)
from .skills import duplicate_skills, group_members, read_skill
from .vocabulary import BLOCK_MARKER


class ContentChecks(Checker):
    """`skills` and `instructions`."""

    def _skills(self, value: str | None, *, linked: bool = False) -> tuple[Skill, ...]:
        """The skills folder's skills; none by default when `files:` ships skills/ as a link
        (what it reaches is the link target's, not the hub's)."""
        if value is None:
            if linked or not (self.root / "skills").is_dir():
                return ()
            value = "skills"
        folder = self._relative_file(("skills",), value, want_dir=True)
        if folder is None:
            return ()
        try:
            entries = sorted(folder.iterdir(), key=lambda p: p.name)
        except OSError as exc:
            self.problem(("skills",), cannot_read(value, exc), "make the folder readable")
            return ()
        skills: list[Skill] = []
        for entry in entries:
            if entry.name.startswith(".") or self.shipped(entry):
                continue  # `files:` ships it as it is
            if entry.is_file() and not entry.is_symlink():
                continue  # a README or notes beside the skill folders
            members = group_members(entry)
            if members is None:
                loaded = self._skill(entry, str(folder / entry.name))
                skills += [loaded] if loaded else []
                continue
            for member in members:  # skills/<group>/<name>/
                if self.shipped(member):
                    continue
                loaded = self._skill(member, str(folder / entry.name / member.name))
                skills += [replace(loaded, group=entry.name)] if loaded else []
        self.problems.extend(duplicate_skills(skills))
        return tuple(skills)

    def _skill(self, entry: Path, shown: str) -> Skill | None:
        """One skill folder, read once per loader (skill_cache)."""
        cached = self.skill_cache.get(entry, shown) if self.skill_cache else None
        if cached is not None:
            return cached
        loaded = read_skill(entry, shown=shown, problems=self.problems)
        if loaded is not None and self.skill_cache is not None:
            self.skill_cache.put(entry, shown, loaded)
        return loaded

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
            self.problem(("instructions",), cannot_read(value, exc), "make it readable")
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
