"""`agents:` and `commands:`: folders of `<name>.md` with front matter, read and checked.

Read like skills (hubspec/skills.py): the file is read once and kept byte for byte (hosts
with the same format get it as it is), its front matter parsed for the checks and for
hosts that convert it. Published agents often hold front matter that is no valid YAML
(`description: Use when ... Examples: <example>...`); Claude Code reads those line by
line, so a front matter YAML refuses is read the same way here. As Claude Code loads them,
an agent's `name:` may differ from its file name (or be absent), and a command needs no
front matter; what `files:` ships from the folder is no agent or command.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import replace
from pathlib import Path
from typing import Any

from .checks import Checker, cannot_read
from .errors import Origin, Problem
from .files import MAX_FILE_BYTES
from .model import Agent, Command, PromptFile, frozen_map
from .skills import read_text, split_front_matter
from .vocabulary import NAME_MAX
from .yamlsrc import YamlProblems, parse_yaml

# Names hosts accept for agents and commands (Claude's `clean_gone`, Gemini's slug rule).
PROMPT_NAME = re.compile(r"^[a-z0-9]+(?:[-_][a-z0-9]+)*$")
_LINE_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*):[ \t]*(.*)$")
KINDS: dict[str, type[PromptFile]] = {"agents": Agent, "commands": Command}


def lenient_front(text: str) -> dict[str, str]:
    """Front matter read as `key: value` lines (what Claude Code falls back to): a line
    that starts no key continues the value before it."""
    found: dict[str, str] = {}
    last = None
    for line in text.split("\n"):
        match = _LINE_KEY.match(line.rstrip("\r"))
        if match:
            last = match.group(1)
            found[last] = match.group(2).strip()
        elif last is not None and line.strip():
            found[last] = f"{found[last]}\n{line.strip()}"
    return found


class PromptChecks(Checker):
    """The hub's `agents:` and `commands:` folders."""

    def _prompts(self, key: str, value: Any) -> tuple[Any, ...]:
        """Every `<name>.md` of the folder `value` names (a path, or `{from, hosts}`)."""
        if value is None:
            return ()
        source = value if isinstance(value, str) else value["from"]
        hosts = None if isinstance(value, str) or "hosts" not in value else tuple(value["hosts"])
        where = (key,) if isinstance(value, str) else (key, "from")
        folder = self._relative_file(where, source, want_dir=True)
        if folder is None:
            return ()
        try:
            names = sorted(os.listdir(folder))
        except OSError as exc:
            self.problem(where, cannot_read(source, exc), "make the folder readable")
            return ()
        found = []
        for name in names:
            if name.startswith(".") or self.shipped(folder / name):
                continue  # a dot file, or one `files:` ships as it is
            loaded = read_prompt(
                folder / name, shown=str(folder / name), kind=key, problems=self.problems
            )
            if loaded is not None:
                found.append(_with_hosts(loaded, hosts))
        return tuple(found)


def _with_hosts(prompt: PromptFile, hosts: tuple[str, ...] | None) -> PromptFile:
    return replace(prompt, hosts=hosts)


def read_prompt(file: Path, *, shown: str, kind: str, problems: list[Problem]) -> PromptFile | None:
    """The agent or command in `file`, or None after appending what is wrong to `problems`."""
    start = len(problems)

    def fail(message: str, fix: str, line: int = 1) -> None:
        problems.append(Problem(Origin(shown, line, 1), "", message, fix))

    singular = kind[:-1]
    info = os.lstat(file)
    if not stat.S_ISREG(info.st_mode) or not file.name.endswith(".md"):
        fail(
            f"{kind}/ holds only <name>.md files (links and folders are not followed)",
            f"move it out of the {kind} folder, or make it a {singular} file <name>.md",
        )
        return None
    if info.st_size > MAX_FILE_BYTES:
        fail(f"is {info.st_size:,} bytes, over {MAX_FILE_BYTES:,}", f"shorten the {singular}")
        return None
    read = read_text(file, fail)
    if read is None:
        return None
    raw, text = read
    split = split_front_matter(text)
    if split is None and kind == "agents":
        fail(
            "has no front matter",
            "start the file with a `---` block holding `description:`, closed by `---`",
        )
        return None
    # Claude Code loads a command without front matter (its body is the prompt)
    front_text, body = split if split is not None else ("", text)
    front = _front(front_text, shown) if split is not None else {}
    stem = file.name[: -len(".md")]
    named = _name(front, stem, fail, _line_of(front_text, "name"))
    description = _description(front, singular, fail, _line_of(front_text, "description"))
    if len(problems) > start or named is None or description is None:
        return None
    return KINDS[kind](
        name=stem,
        description=description,
        content=raw,
        body=body,
        front=frozen_map(front),
        origin=Origin(shown),
        declared=named[0],
    )


def _description(front: dict[str, Any], singular: str, fail: Any, line: int) -> str | None:
    """The front matter's `description`; "" for a command without one (Claude Code takes
    the body's first line), None after a problem (an agent needs one)."""
    description = front.get("description")
    if description is None and singular == "command":
        return ""
    if not isinstance(description, str) or not description.strip():
        fail(
            "front matter has no `description` text",
            f"add `description: ...` saying when the {singular} applies",
            line,
        )
        return None
    return description


def _front(text: str, shown: str) -> dict[str, Any]:
    """The front matter as YAML, else as Claude Code reads it (`key: value` lines)."""
    try:
        # A leading newline keeps YAML line numbers equal to the file's line numbers.
        meta, _ = parse_yaml("\n" + text, shown)
    except YamlProblems:
        return lenient_front(text)
    return meta if isinstance(meta, dict) else lenient_front(text)


def _name(front: dict[str, Any], stem: str, fail: Any, line: int) -> tuple[str | None] | None:
    """(the front matter's `name` as written, None without one), or None after a problem.
    The file's name must suit every host (Gemini's slug rule); `name:` may differ from it
    (Claude Code lists an agent by `name:`, by its file name without one)."""
    if not PROMPT_NAME.match(stem) or len(stem) > NAME_MAX:
        fail(
            f"name {stem!r} is not lowercase words joined by - or _ (at most {NAME_MAX})",
            "rename the file, for example code-reviewer.md",
        )
        return None
    given = front.get("name")
    if given is None:
        return (None,)
    if not isinstance(given, str) or not given.strip() or "\n" in given:
        fail(f"`name: {given}` is not one line of text", f"write `name: {stem}`", line)
        return None
    return (given,)


def _line_of(front: str, key: str) -> int:
    """The file line of `key:` in the front matter (its fence is line 1), else 2."""
    for number, line in enumerate(front.split("\n"), start=2):
        if line.startswith(f"{key}:"):
            return number
    return 2
