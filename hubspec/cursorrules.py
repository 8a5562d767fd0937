"""`rules:`: a folder of Cursor rules, each shipped byte for byte into the Cursor plugin's
rules/ folder (Cursor finds `rules/*.{mdc,md,markdown}` there).

The front matter is what Cursor reads of a rule: `description`, `globs` and `alwaysApply`.
Cursor reads it line by line (`globs: src/**/*.ts` is no valid YAML, and is how rules are
written), so it is checked the same way: each line a known `key: value` (a `- item` line
continuing `globs`), `alwaysApply` true or false, no key twice. A rule without front matter
is one Cursor applies when asked for it by name.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from pathlib import Path

from .checks import Checker, cannot_read
from .errors import Origin, Problem
from .files import MAX_FILE_BYTES
from .model import CursorRule
from .skills import FRONT_MATTER_FENCE, read_text, split_front_matter, unsafe_folder_name

SUFFIXES = (".mdc", ".md", ".markdown")
KEYS = ("description", "globs", "alwaysApply")
_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)[ \t]*:(.*)$")


class RuleChecks(Checker):
    """The hub's `rules:` folder."""

    def _rules(self, value: str | None, generated: str | None) -> tuple[CursorRule, ...]:
        """Every rule of the folder `value` names (`generated`: the rule file the hub's
        instructions become, which no rule may replace)."""
        if value is None:
            return ()
        folder = self._relative_file(("rules",), value, want_dir=True)
        if folder is None:
            return ()
        try:
            names = sorted(os.listdir(folder))
        except OSError as exc:
            self.problem(("rules",), cannot_read(value, exc), "make the folder readable")
            return ()
        rules = []
        for name in (n for n in names if not n.startswith(".")):
            if self.shipped(folder / name):
                continue  # `files:` ships it as it is
            rule = read_rule(folder / name, shown=str(folder / name), problems=self.problems)
            if rule is not None and rule.name == generated:
                self.problem(
                    ("rules",),
                    f"{value}/{name} has the name of the rule memhub writes from `instructions`",
                    "rename the rule, or move its text into the instructions",
                )
            elif rule is not None:
                rules.append(rule)
        return tuple(rules)


def read_rule(file: Path, *, shown: str, problems: list[Problem]) -> CursorRule | None:
    """The rule in `file`, or None after appending what is wrong to `problems`."""
    start = len(problems)

    def fail(message: str, fix: str, line: int = 1) -> None:
        problems.append(Problem(Origin(shown, line, 1), "", message, fix))

    info = os.lstat(file)
    if not stat.S_ISREG(info.st_mode) or not file.name.endswith(SUFFIXES):
        fail(
            "rules/ holds only rule files, <name>.mdc, .md or .markdown (Cursor reads no "
            "other; links and folders are not followed)",
            "move it out of the rules folder",
        )
        return None
    if unsafe_folder_name(file.name):
        fail(f"rule file {file.name!r} holds a control character", "rename the file")
        return None
    if info.st_size > MAX_FILE_BYTES:
        fail(f"is {info.st_size:,} bytes, over {MAX_FILE_BYTES:,}", "shorten the rule")
        return None
    read = read_text(file, fail)
    if read is None:
        return None
    raw, text = read
    if text.split("\n", 1)[0].rstrip("\r") == FRONT_MATTER_FENCE:
        split = split_front_matter(text)
        if split is None:
            fail("the front matter is not closed", "end it with a `---` line")
            return None
        _check_front(split[0], fail)
    if len(problems) > start:
        return None
    return CursorRule(file.name, raw, Origin(shown))


def _check_front(front: str, fail: Callable[..., None]) -> None:
    """Each front matter line as Cursor reads it (the fence is line 1)."""
    seen: set[str] = set()
    last = None
    for number, line in enumerate(front.split("\n"), start=2):
        text = line.rstrip("\r")
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        match = _LINE.match(text)
        if match is None:
            if last == "globs" and text.lstrip().startswith("- "):
                continue  # a YAML list of globs
            fail(f"front matter line {text!r} is no `key: value`", "write `key: value`", number)
            continue
        key, value = match.group(1), match.group(2).strip()
        last = key
        if key not in KEYS:
            fail(
                f"front matter key {key!r}: Cursor reads only {', '.join(KEYS)} in a rule",
                "remove it, or spell it as one of these (alwaysApply in camel case)",
                number,
            )
        elif key in seen:
            fail(f"front matter key {key!r} twice", "keep one of them", number)
        elif key == "alwaysApply" and value not in ("true", "false"):
            fail(f"alwaysApply is {value!r}", "write `alwaysApply: true` or `false`", number)
        seen.add(key)
