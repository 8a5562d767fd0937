"""Which directives a tool call fires: their triggers matched against the call. Pure, stdlib.

- paths: a glob (fnmatch; `**/` also matches no folder) against each file path in the
  call's arguments, and against every trailing part of it, so `src/*.py` fires for
  `/repo/src/a.py`;
- commands: the trigger's words are the first words of the command, or of one of its
  `&&`, `||`, `;` or `|` segments (`git push` fires for `cd x && git push -f`);
- identifiers: the identifier appears in the arguments on alphanumeric boundaries (`user`
  does not fire for `username`);
- errors: a substring of the tool's output, case-folded.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .records import Record

__all__ = ["MAX_FIRED", "match", "recall"]

MAX_FIRED = 2
PATH_KEYS = ("file_path", "path", "paths", "notebook_path", "filePath", "target_file", "file")
COMMAND_KEYS = ("command", "cmd")
_SEGMENTS = re.compile(r"&&|\|\||[;|\n]")
MAX_TEXT = 64 * 1024  # an argument or an output is cut here: a pasted log stays cheap


def _strings(value: object) -> Iterable[str]:
    """Every string inside `value` (mappings, lists), each cut to MAX_TEXT."""
    if isinstance(value, str):
        yield value[:MAX_TEXT]
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _values(args: Mapping[str, Any], keys: Sequence[str]) -> list[str]:
    return [text for key in keys if key in args for text in _strings(args[key])]


def _path_matches(path: str, glob: str) -> bool:
    """`glob` matches `path` or one of its trailing parts (`**/` also matching nothing)."""
    parts = path.replace("\\", "/").split("/")
    globs = {glob, glob.replace("**/", "")}
    tails = ["/".join(parts[i:]) for i in range(len(parts)) if parts[i]]
    return any(fnmatch.fnmatchcase(tail, g) for tail in tails for g in globs)


def _command_matches(command: str, trigger: str) -> bool:
    """The trigger's words begin the command or one of its segments."""
    want = trigger.split()
    if not want:
        return False
    for segment in _SEGMENTS.split(command):
        words = segment.split()
        if words[: len(want)] == want:
            return True
    return False


def _identifier_matches(texts: Sequence[str], identifier: str) -> bool:
    pattern = re.compile(r"(?<![A-Za-z0-9])" + re.escape(identifier) + r"(?![A-Za-z0-9])")
    return any(pattern.search(text) for text in texts)


def match(record: Record, args: Mapping[str, Any], output: str | None) -> str | None:
    """The first trigger of `record` the call fires, or None."""
    t = record.triggers
    paths = _values(args, PATH_KEYS)
    for glob in t.paths:
        if any(_path_matches(path, glob) for path in paths):
            return glob
    commands = _values(args, COMMAND_KEYS)
    for trigger in t.commands:
        if any(_command_matches(command, trigger) for command in commands):
            return trigger
    if t.identifiers:
        texts = list(_strings(dict(args)))
        for identifier in t.identifiers:
            if _identifier_matches(texts, identifier):
                return identifier
    if output:
        folded = output[-MAX_TEXT:].casefold()
        for error in t.errors:
            if error.casefold() in folded:
                return error
    return None


def recall(
    directives: Iterable[Record],
    args: Mapping[str, Any],
    output: str | None = None,
    already_fired: Sequence[str] = (),
    limit: int = MAX_FIRED,
) -> list[tuple[Record, str]]:
    """The active directives the call fires (longest matching trigger first), at most
    `limit`, none of `already_fired`; each with the trigger that fired it."""
    fired = set(already_fired)
    hits = []
    for record in directives:
        if record.id in fired or record.status != "active" or record.triggers.empty():
            continue
        trigger = match(record, args, output)
        if trigger is not None:
            hits.append((record, trigger))
    hits.sort(key=lambda hit: (-len(hit[1]), hit[0].id))
    return hits[:limit]
