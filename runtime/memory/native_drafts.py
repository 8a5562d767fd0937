"""Markdown text -> import Candidates: a memhub record as itself, a note with its own front
matter, a plain note (title from its first heading), one bullet or one section of a file.

Every Candidate names its origin (the file, and `#line-N` or `#<section>` where one file
holds several) and the sha256 of the text it came from, so a re-import sees a changed source.
Stdlib at import (PyYAML inside `front_matter`, through frontmatter.load).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from . import frontmatter as fm
from .native_files import SourceFile
from .plans import Candidate, Draft
from .records import DIRECTIVES, KINDS, TRIGGER_KEYS, RecordError, Source, Triggers, parse_record

MAX_TITLE = 200  # an imported title is cut here (records allow more; a title is one line)
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"---[ \t]*\r?\n")  # the opening fence frontmatter.split requires
_BULLET = re.compile(r"^[ \t]{0,3}[-*+][ \t]+(.*\S)[ \t]*$")
# An index line pointing at a sibling note: `[Title](note.md)`, then a hook
_POINTER = re.compile(r"^\[[^\]]*\]\((?![a-z]+:)[^)]+\.md\)")


def sha256(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()


def one_line(text: str, limit: int = MAX_TITLE) -> str:
    """`text` as a title: whitespace collapsed to one line, cut at `limit` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "\u2026"


def first_heading(body: str) -> str | None:
    """The text of the body's first Markdown heading, if any."""
    for line in body.splitlines():
        found = _HEADING.match(line)
        if found:
            return found.group(2).strip() or None
    return None


def bullets(text: str) -> Iterator[tuple[int, str]]:
    """(file line, text) of every top-level `- ` bullet (continuation lines joined)."""
    current: tuple[int, list[str]] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        found = _BULLET.match(line)
        if found:
            if current:
                yield current[0], " ".join(current[1])
            current = (number, [found.group(1)])
        elif current and line.startswith(("  ", "\t")) and line.strip():
            current[1].append(line.strip())
        else:
            if current:
                yield current[0], " ".join(current[1])
            current = None
    if current:
        yield current[0], " ".join(current[1])


def is_pointer(item: str) -> bool:
    """Whether a bullet of an index (MEMORY.md) points at a note imported on its own."""
    return _POINTER.match(item) is not None


@dataclass(frozen=True)
class Section:
    """A heading and the text under it, up to the next heading of the same or a higher level."""

    heading: str
    line: int  # the heading's file line
    text: str  # the heading line and everything under it

    @property
    def anchor(self) -> str:
        """A stable fragment for the origin: the heading, lower-case, dashes for the rest."""
        slug = re.sub(r"[^a-z0-9]+", "-", self.heading.lower()).strip("-")
        return slug or f"line-{self.line}"


def sections(text: str, level: int) -> list[Section]:
    """The sections of `text` opened by headings of exactly `level` (#, ##, ...)."""
    lines = text.splitlines(keepends=True)
    opened: list[tuple[str, int]] = []
    for index, line in enumerate(lines):
        found = _HEADING.match(line.rstrip("\r\n"))
        if found and len(found.group(1)) <= level:
            opened.append((found.group(2).strip() if len(found.group(1)) == level else "", index))
    out = []
    for number, (heading, start) in enumerate(opened):
        end = opened[number + 1][1] if number + 1 < len(opened) else len(lines)
        if heading:
            out.append(Section(heading, start + 1, "".join(lines[start:end])))
    return out


def candidate(draft: Draft, origin: str, text: str | bytes) -> Candidate:
    return Candidate(draft=draft, origin=origin, origin_revision=sha256(text))


def from_record(file: SourceFile, notes: list[str]) -> Candidate | None:
    """A memhub record file as itself: its kind, title, body, tags, triggers, name and source
    (an agent's directive stays an agent's, so it still lands proposed). Not its scope: an
    import lands in the project, since making a record shared is always asked for."""
    try:
        record = parse_record(file.data, str(file.path))
    except RecordError as exc:
        notes.append(f"{exc}; skipped")
        return None
    draft = Draft(
        kind=record.kind,
        title=record.title,
        body=record.body,
        tags=record.tags,
        triggers=record.triggers,
        source=record.source,
        name=record.name,
    )
    return candidate(draft, str(file.path), file.data)


def front_matter(file: SourceFile, notes: list[str]) -> tuple[dict[str, Any], str] | None:
    """The file's own front matter as plain data (empty without one) and its body; None,
    with a note, when the front matter cannot be read (never guessed around)."""
    if not _FENCE.match(file.text):
        return {}, file.text
    try:
        part = fm.split(file.text, str(file.path))
        keys = fm.load(part, str(file.path))
    except RecordError as exc:
        notes.append(f"{exc}; skipped")
        return None
    return {key: _plain(value) for key, value in keys.items()}, part.body


def _plain(value: Any) -> Any:
    data = value.data if isinstance(value, fm.Value) else value
    if isinstance(data, dict):
        return {k: _plain(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_plain(v) for v in data]
    return data


def strings(value: Any) -> tuple[str, ...]:
    """A list of non-blank one-line strings from a list or a comma-separated string."""
    items = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else []
    out = [one_line(str(item), 4096) for item in items if isinstance(item, str | int | float)]
    return tuple(dict.fromkeys(item for item in out if item))


def note_draft(
    file: SourceFile,
    meta: Mapping[str, Any],
    body: str,
    *,
    source: Source,
    kind: str = "fact",
    tags: tuple[str, ...] = (),
    notes: list[str],
) -> Draft | None:
    """A Markdown note as a Draft: kind, title, tags and triggers from its front matter (a
    memhub-style or a plain `title:/tags:/description:` one), else the first heading (or the
    file name) as title and the text as body."""
    where = str(file.path)
    kind = meta.get("kind", kind)
    if kind not in KINDS:
        notes.append(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}; skipped")
        return None
    title = next(
        (one_line(t) for t in (meta.get("title"), first_heading(body), meta.get("description"))
         if isinstance(t, str) and t.strip()),
        one_line(file.path.stem.replace("_", " ").replace("-", " ")) or file.path.name,
    )  # fmt: skip
    if not body.strip():
        body = str(meta.get("description") or "")
    if not body.strip() and not title:
        notes.append(f"{where}: empty; skipped")
        return None
    triggers = _triggers(meta.get("triggers"), kind, where, notes)
    name = meta.get("name") if kind == "artifact" else None
    if kind == "artifact" and not (isinstance(name, str) and name.strip()):
        name = file.path.stem
    all_tags = tuple(dict.fromkeys((*tags, *strings(meta.get("tags")))))
    return Draft(
        kind=kind,
        title=title,
        body=body,
        tags=all_tags,
        triggers=triggers,
        source=source,
        name=name,
    )


def _triggers(raw: Any, kind: str, where: str, notes: list[str]) -> Triggers:
    if raw is None:
        return Triggers()
    if kind not in DIRECTIVES:
        notes.append(f"{where}: a {kind} has no triggers; its triggers were left out")
        return Triggers()
    if not isinstance(raw, dict):
        notes.append(f"{where}: triggers is not a mapping of {', '.join(TRIGGER_KEYS)}; left out")
        return Triggers()
    unknown = sorted(set(raw) - set(TRIGGER_KEYS))
    if unknown:
        notes.append(f"{where}: unknown trigger keys {', '.join(unknown)}; left out")
    return Triggers(**{key: strings(raw.get(key)) for key in TRIGGER_KEYS})
