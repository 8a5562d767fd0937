"""Owned blocks in a person's Markdown instruction files (CLAUDE.md, AGENTS.md, GEMINI.md).

memhub owns only the lines between its two marker comments; every byte outside them is the
person's and stays as it is. Markers are HTML comments, so rendered Markdown hides them:

    <!-- memhub:begin NAME -->
    ...the hub's instructions...
    <!-- memhub:end NAME -->
"""

from __future__ import annotations

from dataclasses import dataclass

from memhub.hubspec.vocabulary import BLOCK_MARKER

BEGIN = "<!-- memhub:begin {name} -->"
END = "<!-- memhub:end {name} -->"
_MARKER = BLOCK_MARKER


class TextBlockError(ValueError):
    """The markers are broken (a begin without its end, or nested); nothing is edited."""


@dataclass(frozen=True, slots=True)
class Span:
    """Where one block sits: [start, end) covers both marker lines and their newlines."""

    start: int
    end: int
    body: str


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def blocks(text: str) -> dict[str, Span]:
    """Every memhub block in `text` by name; broken markers raise TextBlockError."""
    found: dict[str, Span] = {}
    open_name: str | None = None
    open_at = body_at = 0
    for match in _MARKER.finditer(text):
        which, name = match.group(1), match.group(2)
        if which == "begin":
            if open_name is not None:
                raise TextBlockError(
                    f"line {_line_of(text, match.start())}: memhub block {name!r} begins inside "
                    f"block {open_name!r} (line {_line_of(text, open_at)}), which never ended"
                )
            if name in found:
                raise TextBlockError(
                    f"line {_line_of(text, match.start())}: a second memhub block {name!r}"
                )
            open_name, open_at = name, match.start()
            body_at = _after_line(text, match.end())
        else:
            if open_name != name:
                raise TextBlockError(
                    f"line {_line_of(text, match.start())}: memhub:end {name!r} without its begin"
                )
            end = _after_line(text, match.end())
            found[name] = Span(open_at, end, text[body_at : match.start()])
            open_name = None
    if open_name is not None:
        raise TextBlockError(
            f"line {_line_of(text, open_at)}: memhub block {open_name!r} has no end marker"
        )
    return found


def _after_line(text: str, offset: int) -> int:
    """The offset just past the newline ending the line that `offset` is on."""
    newline = text.find("\n", offset)
    return len(text) if newline < 0 else newline + 1


def render(name: str, body: str) -> str:
    """The block as written: markers around `body`, which always ends with one newline."""
    body = body if body.endswith("\n") else body + "\n"
    return f"{BEGIN.format(name=name)}\n{body}{END.format(name=name)}\n"


def get(text: str, name: str) -> str | None:
    span = blocks(text).get(name)
    return None if span is None else span.body


def put(text: str, name: str, body: str) -> str:
    """`text` with block `name` holding `body`: replaced in place, or appended at the end
    after a blank line (the person's last line gets its newline if it lacked one)."""
    block = render(name, body)
    span = blocks(text).get(name)
    if span is not None:
        return text[: span.start] + block + text[span.end :]
    if not text:
        return block
    if not text.endswith("\n"):
        text += "\n"
    return text + "\n" + block  # always one blank line, so `remove` knows what it added


def adopt(text: str, name: str, body: str) -> tuple[str, str] | None:
    """`text` with the person's own copy of `body` wrapped, where it stands, as block
    `name`, and the exact text wrapped; None unless `body` is there verbatim, whole lines,
    outside every block. (An imported CLAUDE.md becomes the hub's instructions; applying
    them back must not write the same text a second time.)"""
    return rewrap(text, name, body, body)


def rewrap(text: str, name: str, body: str, original: str) -> tuple[str, str] | None:
    """`text` with the person's `original` (whole lines, outside every block) replaced,
    where it stands, by block `name` holding `body`, and the exact text replaced; None when
    `original` is not there. Undoing an uninstall of an adopted block uses it: the block
    goes back around the person's text instead of beside it."""
    core = original.rstrip("\n")
    if not core.strip():
        return None
    spans = list(blocks(text).values())
    start = text.find(core)
    while start >= 0:
        end = start + len(core)
        whole_lines = (start == 0 or text[start - 1] == "\n") and (
            end == len(text) or text[end] == "\n"
        )
        outside = all(end <= s.start or start >= s.end for s in spans)
        if whole_lines and outside:
            end = _after_line(text, end) if end < len(text) else end
            return text[:start] + render(name, body) + text[end:], text[start:end]
        start = text.find(core, start + 1)
    return None


def unwrap(text: str, name: str, original: str) -> str:
    """`text` with block `name` replaced by the person's text it was adopted from."""
    span = blocks(text).get(name)
    if span is None:
        return text
    return text[: span.start] + original + text[span.end :]


def remove(text: str, name: str) -> str:
    """`text` without block `name`; the blank line `put` added before it goes too."""
    span = blocks(text).get(name)
    if span is None:
        return text
    start = span.start
    if text[:start].endswith("\n\n"):
        start -= 1
    return text[:start] + text[span.end :]
