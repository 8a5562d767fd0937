"""Read one skill folder (`<name>/SKILL.md` plus supporting files) and check it."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .errors import Origin, Problem
from .model import Skill, SkillFile
from .vocabulary import SKILL_DESCRIPTION_CAP
from .yamlsrc import YamlProblems, parse_yaml

FRONT_MATTER_FENCE = "---"


def read_text(path: Path, fail: Any, label: str = "") -> tuple[bytes, str] | None:
    """A Markdown source read once (the text checked is the bytes shipped) as UTF-8; None
    after `fail(message, fix)` when it is not UTF-8 or cannot be read. `label` starts the
    message (`SKILL.md `), empty where the file is the thing reported."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
        return raw, raw.decode("utf-8")
    except UnicodeDecodeError:
        fail(f"{label}is not UTF-8 text", "save it as UTF-8")
    except OSError as exc:
        fail(f"{label}cannot be read ({exc.strerror or exc})", "make it readable (chmod u+r)")
    return None


def group_members(entry: Path) -> list[Path] | None:
    """The skill folders of a group folder (`skills/<group>/<name>/SKILL.md`: a folder without
    SKILL.md whose sub folders hold one), every sub folder but dot folders; None when `entry`
    is no group (a skill folder, a link, a file)."""
    if entry.is_symlink() or not entry.is_dir() or unsafe_folder_name(entry.name):
        return None
    if (entry / "SKILL.md").exists():
        return None
    if not any(entry.glob("*/SKILL.md")):
        return None
    subs = (p for p in entry.iterdir() if not p.name.startswith("."))
    return sorted((p for p in subs if p.is_dir() or p.is_symlink()), key=lambda p: p.name)


def split_front_matter(text: str) -> tuple[str, str] | None:
    """(front matter, body) of a Markdown file that starts with a `---` block, else None."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r") != FRONT_MATTER_FENCE:
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip("\r") == FRONT_MATTER_FENCE:
            return "\n".join(lines[1:index]), "\n".join(lines[index + 1 :])
    return None


def read_skill(folder: Path, *, shown: str, problems: list[Problem]) -> Skill | None:
    """The skill in `folder`, or None after appending what is wrong to `problems`."""
    skill_md = f"{shown}/SKILL.md"
    start = len(problems)

    def fail(message: str, fix: str, line: int = 1, col: int = 1) -> None:
        problems.append(Problem(Origin(skill_md, line, col), "", message, fix))

    if folder.is_symlink() or not folder.is_dir():
        problems.append(
            Problem(
                Origin(shown),
                "skills",
                f"{folder.name!r} is not a skill folder",
                "put each skill in its own folder <name>/SKILL.md (links are not followed)",
            )
        )
        return None
    if unsafe_folder_name(folder.name):
        problems.append(
            Problem(
                Origin(shown),
                "skills",
                f"skill folder {folder.name!r} is not a safe name (a separator, a control "
                "character or `..`)",
                "rename the folder, e.g. to lowercase letters, digits and hyphens",
            )
        )
        return None
    source = folder / "SKILL.md"
    if not source.is_file():
        deeper = (p for p in folder.rglob("SKILL.md") if p.parent != folder and p.is_file())
        nested = sorted(p.parent.relative_to(folder).as_posix() for p in deeper)
        if nested:  # skills/<group>/<group>/<name>/SKILL.md
            fail(
                f"a skill folder two group folders deep ({nested[0]}): the hosts that load "
                "skill groups were seen loading skills/<group>/<name>/SKILL.md, one level deep",
                f"move {shown}/{nested[0]} up to a group folder of the skills folder, or add "
                f"{skill_md}",
            )
            return None
        fail("missing SKILL.md", f"create {skill_md} with front matter `description`")
        return None
    read = read_text(source, fail, "SKILL.md ")
    if read is None:
        return None
    raw, text = read
    split = split_front_matter(text)
    if split is None:
        fail(
            "SKILL.md has no front matter",
            "start the file with a `---` block holding `name:` and `description:`, closed by `---`",
        )
        return None
    try:
        # A leading newline keeps YAML line numbers equal to SKILL.md line numbers.
        meta, positions = parse_yaml("\n" + split[0], skill_md)
    except YamlProblems as exc:
        problems.extend(exc.problems)
        return None
    if not isinstance(meta, dict):
        fail(
            "the front matter is not a mapping", "write `name: ...` and `description: ...` lines", 2
        )
        return None
    declared = _check_name(meta, folder.name, positions.of_value(("name",)), problems, skill_md)
    description = _check_description(meta, positions.of_value(("description",)), problems, skill_md)
    files = _skill_files(folder, shown, problems, {"SKILL.md": raw})
    if len(problems) > start or declared is None or description is None:
        return None
    return Skill(
        name=folder.name,
        description=description,
        files=files,
        origin=Origin(skill_md),
        declared=declared[0],
    )


def _check_name(
    meta: dict[str, Any], folder_name: str, where: Origin, problems: list[Problem], shown: str
) -> tuple[str | None] | None:
    """(the front matter's `name`, None when it has none), or None after a problem. Any one-line
    text stands: the hosts that want kebab-case equal to the folder report it per host."""
    if "name" not in meta or meta["name"] is None:
        return (None,)  # the folder name stands in
    name = meta["name"]
    if not isinstance(name, str) or not name.strip():
        problems.append(
            Problem(
                where,
                "name",
                f"skill name {name!r} is not text",
                f"write `name: {folder_name}` or leave `name` out (the folder name stands in)",
            )
        )
        return None
    if name != name.strip() or any(_unprintable(c) for c in name):
        problems.append(
            Problem(
                where,
                "name",
                f"skill name {name!r} has a line break, a control character or spaces at an end",
                "write the name on one line, without leading or trailing spaces",
            )
        )
        return None
    return (name,)


def _unprintable(char: str) -> bool:
    return ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0


def unsafe_folder_name(name: str) -> bool:
    """A skill folder name no host path may carry: separators, `.`/`..`, control characters."""
    return name in ("", ".", "..") or any(c in "/\\" or _unprintable(c) for c in name)


def duplicate_skills(skills: Iterable[Skill]) -> list[Problem]:
    """Skills whose folder or listed name (`title`) equals another's, letters' case aside:
    Gemini CLI finds a skill by its name in any case and keeps one of two equal names,
    and a case-insensitive file system holds one of two such folders."""
    problems = []
    seen: dict[str, Skill] = {}
    for skill in skills:
        for kind, key in (("folder", skill.name), ("name", skill.title)):
            first = seen.setdefault(key.casefold(), skill)
            if first is not skill:
                problems.append(
                    Problem(
                        skill.origin,
                        "name",
                        f"skill {kind} {key!r} is the name of skill {first.name!r} too "
                        "(hosts compare skill names and folders in any case)",
                        "give each skill its own name and folder",
                    )
                )
                break
    return problems


def _check_description(
    meta: dict[str, Any], where: Origin, problems: list[Problem], shown: str
) -> str | None:
    description = meta.get("description")
    if description is None:
        problems.append(
            Problem(
                Origin(shown, 2),
                "description",
                "front matter has no `description`",
                "add `description: Use when ...` saying when the skill applies",
            )
        )
        return None
    if not isinstance(description, str) or not description.strip():
        problems.append(
            Problem(
                where,
                "description",
                "description must be non-empty text",
                "write one line saying when the skill applies",
            )
        )
        return None
    if len(description) > SKILL_DESCRIPTION_CAP:
        problems.append(
            Problem(
                where,
                "description",
                f"description is {len(description)} characters, over memhub's sanity cap "
                f"of {SKILL_DESCRIPTION_CAP}",
                f"shorten it to at most {SKILL_DESCRIPTION_CAP} characters (hosts list every "
                "skill's description to the model in each session)",
            )
        )
        return None
    return description


def _skill_files(
    folder: Path, shown: str, problems: list[Problem], read: dict[str, bytes]
) -> tuple[SkillFile, ...]:
    """Every file of the skill, with its bytes (`read`: those already read, by path)."""
    files = []
    top = os.fspath(folder)
    found: list[tuple[str, str]] = []

    def unreadable(exc: OSError) -> None:  # os.walk would skip a folder it cannot list
        rel = os.path.relpath(exc.filename or top, top).replace(os.sep, "/")
        problems.append(_unreadable(f"{shown}/{rel}", exc))

    prefix = os.path.join(top, "")  # every path os.walk gives starts with it
    for root, dirs, names in os.walk(top, onerror=unreadable):
        for name in dirs + names:
            full = os.path.join(root, name)
            found.append((full[len(prefix) :].replace(os.sep, "/"), full))
    for rel, full in sorted(found):
        info = os.lstat(full)
        if stat.S_ISLNK(info.st_mode):
            problems.append(
                Problem(
                    Origin(f"{shown}/{rel}"),
                    "",
                    "skills may not contain links",
                    "replace the link with a copy of the file",
                )
            )
            continue
        if stat.S_ISDIR(info.st_mode):
            continue
        if not stat.S_ISREG(info.st_mode):
            problems.append(
                Problem(
                    Origin(f"{shown}/{rel}"),
                    "",
                    "not a regular file",
                    "remove it from the skill folder",
                )
            )
            continue
        content = read.get(rel)
        try:
            if content is None:
                with open(full, "rb") as handle:
                    content = handle.read()
        except OSError as exc:
            problems.append(_unreadable(f"{shown}/{rel}", exc))
            continue
        files.append(SkillFile(rel, content, bool(info.st_mode & stat.S_IXUSR)))
    return tuple(files)


def _unreadable(where: str, exc: OSError) -> Problem:
    return Problem(
        Origin(where),
        "",
        f"cannot be read ({exc.strerror or exc})",
        "make it readable (chmod u+r) or remove it from the skill folder",
    )
