"""Markdown front matter: split it from the body, load it bounded, write its scalars safely.

Line numbers are file line numbers (the opening `---` is line 1). The loader refuses aliases
and nesting past a few levels before building anything, so an alias bomb or a deeply nested
value costs time in proportion to its text, never its expansion. PyYAML is imported inside
the function that needs it: the runtime is vendored and imports with the standard library.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Any

MAX_FRONT_MATTER = 256 * 1024  # no record's metadata comes near this
MAX_DEPTH = 4  # a record's front matter nests two levels (source, triggers lists)
_FENCE = re.compile(r"---[ \t]*\r?\n")
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"


class RecordError(ValueError):
    """A file that is not a valid record: where (file, line), what, and how to fix it."""

    def __init__(self, file: str, line: int | None, message: str, fix: str) -> None:
        self.file, self.line, self.message, self.fix = file, line, message, fix
        where = f"{file}:{line}" if line is not None else file
        super().__init__(f"{where}: {message} ({fix})")


@dataclass(frozen=True)
class Value:
    """A front matter value with the file line it starts on (mappings hold Values)."""

    data: Any
    line: int


@dataclass(frozen=True)
class Split:
    """A document split at its fences: front matter text, its first file line, the body."""

    front: str
    first_line: int
    end_line: int  # the closing fence's line
    body: str


def decode(data: bytes, file: str) -> str:
    """The UTF-8 text of a file (a leading BOM dropped); RecordError naming the bad line."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise RecordError(
            file, line, "the file is not UTF-8 text", "save the file as UTF-8"
        ) from None


def split(text: str, file: str) -> Split:
    """Front matter and body; RecordError when the fences are missing."""
    first = _FENCE.match(text)
    if first is None:
        raise RecordError(file, 1, "no front matter", "start the file with a '---' line")
    start = first.end()
    for found in re.finditer(r"^---[ \t]*(?:\r?\n|\Z)", text[start:], re.MULTILINE):
        front = text[start : start + found.start()]
        end_line = front.count("\n") + 2
        return Split(front, 2, end_line, text[start + found.end() :])
    raise RecordError(
        file,
        1,
        "the front matter opened here is never closed",
        "end the front matter with a '---' line",
    )


def claims_record(text: str) -> bool:
    """Whether the front matter names memhub (`memhub:`) or both `id:` and `kind:`."""
    text = text.removeprefix("\ufeff")
    if _FENCE.match(text) is None:  # the same opening fence `split` requires
        return False
    keys: set[str] = set()
    for line in text[:MAX_FRONT_MATTER].split("\n")[1:]:
        if line.rstrip() == "---":
            break
        found = re.match(r"(memhub|id|kind)[ \t]*:", line)
        if found:
            keys.add(found.group(1))
    return "memhub" in keys or {"id", "kind"} <= keys


def load(part: Split, file: str) -> dict[str, Value]:
    """The front matter as a mapping of key -> Value; RecordError on any YAML problem."""
    import yaml  # inside: the runtime imports only the standard library at load

    if len(part.front) > MAX_FRONT_MATTER:
        raise RecordError(file, 1, "the front matter is too large", "keep record metadata short")
    loader = None
    try:
        loader = _loader_class(yaml)(part.front)  # the reader checks every character here
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = _Lines(part.front).of(mark) + part.first_line if mark is not None else 1
        problem = exc.problem or "invalid YAML"
        raise RecordError(file, line, f"YAML error: {problem}", "correct the YAML") from None
    except yaml.reader.ReaderError as exc:
        line = part.front[: exc.position].count("\n") + part.first_line
        raise RecordError(
            file,
            line,
            f"character U+{exc.character:04X} is not allowed in front matter",
            "remove the control character",
        ) from None
    except yaml.YAMLError as exc:
        raise RecordError(file, 1, f"YAML error: {exc}", "correct the YAML") from None
    finally:
        if loader is not None:
            loader.dispose()
    if node is None:
        raise RecordError(file, 1, "the front matter is empty", "add the record's keys")
    if not isinstance(node, yaml.MappingNode):
        raise RecordError(
            file,
            _Lines(part.front).of(node.start_mark) + part.first_line,
            "the front matter is not a mapping",
            "write 'key: value' lines",
        )
    lines = _Lines(part.front)
    walk = _Walk(loader, part.first_line, file, yaml, lines)
    value = walk.convert(node, 0, lines.of(node.start_mark))
    assert isinstance(value.data, dict)
    return value.data


class _Lines:
    """0-based file lines of YAML marks, counting only newlines: YAML also breaks lines at
    NEL, U+2028 and U+2029, which would put an error below the end of the file."""

    def __init__(self, front: str) -> None:
        odd = "\x85" in front or "\u2028" in front or "\u2029" in front
        # Only text with such characters needs its own count (offsets of every newline).
        self.newlines = [m.start() for m in re.finditer("\n", front)] if odd else None

    def of(self, mark: Any) -> int:
        if self.newlines is None:
            return int(mark.line)
        return bisect.bisect_left(self.newlines, mark.index)


def _loader_class(yaml: Any) -> Any:
    """libyaml's loader where it is installed (16x faster; `_Walk` refuses its aliases and
    depth), else a SafeLoader that refuses aliases and nesting past MAX_DEPTH as it composes."""
    fast = getattr(yaml, "CSafeLoader", None)
    if fast is not None:
        return fast

    class Bounded(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                raise yaml.composer.ComposerError(
                    None, None, "aliases are not allowed in a record", self.peek_event().start_mark
                )
            self.depth += 1
            try:
                if self.depth > MAX_DEPTH:
                    raise yaml.composer.ComposerError(
                        None,
                        None,
                        f"values nested deeper than {MAX_DEPTH} levels",
                        self.peek_event().start_mark,
                    )
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    return Bounded


_YAML = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_YAML + name for name in ("str", "int", "float", "bool", "null", "timestamp")}
_COLLECTION_TAGS = {_YAML + "seq", _YAML + "map"}


class _Walk:
    """Node graph -> Values, refusing a node met twice (an alias) and nesting past MAX_DEPTH,
    so the cost follows the text, never an alias expansion."""

    def __init__(self, loader: Any, offset: int, file: str, yaml: Any, lines: _Lines) -> None:
        self.loader, self.offset, self.file, self.yaml = loader, offset, file, yaml
        self.lines = lines
        self.seen: set[int] = set()

    def refuse(self, line: int, message: str, fix: str) -> RecordError:
        """The error to raise at a front matter line (0-based)."""
        return RecordError(self.file, line + self.offset, message, fix)

    def convert(self, node: Any, depth: int, where: int) -> Value:
        """One node; `where` is the line to blame for it (its key's, or its parent's)."""
        if id(node) in self.seen:
            raise self.refuse(where, "aliases are not allowed in a record", "write it out")
        self.seen.add(id(node))
        if depth >= MAX_DEPTH:
            raise self.refuse(where, f"values nested deeper than {MAX_DEPTH} levels", "flatten")
        line = self.lines.of(node.start_mark)
        yaml = self.yaml
        scalar = isinstance(node, yaml.ScalarNode)
        if node.tag not in (_SCALAR_TAGS if scalar else _COLLECTION_TAGS):
            raise self.refuse(line, f"the YAML tag {node.tag!r} is not allowed", "remove it")
        if scalar:
            if node.tag == _TIMESTAMP_TAG:
                return Value(node.value, line + self.offset)
            try:
                return Value(self.loader.construct_object(node, deep=True), line + self.offset)
            except (yaml.YAMLError, ValueError, OverflowError):
                raise self.refuse(line, "a value cannot be read", "correct it") from None
        if isinstance(node, yaml.SequenceNode):
            items = [self.convert(item, depth + 1, line) for item in node.value]
            return Value(items, line + self.offset)
        return Value(self.mapping(node, depth), line + self.offset)

    def mapping(self, node: Any, depth: int) -> dict[str, Value]:
        """A mapping's Values, each carrying its key's line (where a reader looks for it)."""
        mapping: dict[str, Value] = {}
        for key_node, value_node in node.value:
            key_line = self.lines.of(key_node.start_mark)
            key = key_node.value if isinstance(key_node, self.yaml.ScalarNode) else None
            if not isinstance(key, str) or key_node.tag != _YAML + "str":
                raise self.refuse(key_line, "a key is not a plain name", "write 'name: value'")
            if key in mapping:
                raise self.refuse(key_line, f"key {key!r} appears twice", "keep one of them")
            data = self.convert(value_node, depth + 1, key_line).data
            mapping[key] = Value(data, key_line + self.offset)
        return mapping


class Shape(Exception):
    """A value of the wrong YAML shape (not a string, list or mapping) at a known line."""

    def __init__(self, line: int, message: str, fix: str) -> None:
        super().__init__(message)
        self.line, self.message, self.fix = line, message, fix


def string(key: str, value: Value) -> str:
    """A string value, or Shape."""
    if not isinstance(value.data, str):
        raise Shape(value.line, f"{key} must be a string", f"quote the value of {key}")
    return value.data


def strings(key: str, value: Value) -> tuple[str, ...]:
    """A list of strings, or Shape naming the first item that is not one."""
    if not isinstance(value.data, list):
        raise Shape(value.line, f"{key} must be a list", f'write {key}: ["a", "b"]')
    return tuple(string(key, item) for item in value.data)


def mapping(key: str, value: Value, allowed: tuple[str, ...]) -> dict[str, Value]:
    """A mapping with only the `allowed` keys, or Shape."""
    if not isinstance(value.data, dict):
        raise Shape(value.line, f"{key} must be a mapping", f"write {key}'s keys indented")
    for name, item in value.data.items():
        if name not in allowed:
            raise Shape(item.line, f"unknown key {key}.{name}", f"use {', '.join(allowed)}")
    return dict(value.data)


# Characters a double-quoted YAML scalar must escape: its quote and backslash, C0/C1 controls
# and DEL, the characters YAML reads as line breaks (NEL, LS, PS), the BOM and non-characters
# PyYAML's reader refuses. Everything else (any other Unicode) is written as itself.
_ESCAPE = re.compile('["\\\\\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]')
_NAMED = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def quote(text: str) -> str:
    """`text` as a one-line double-quoted YAML scalar that reads back as exactly `text`."""
    return (
        '"' + _ESCAPE.sub(lambda m: _NAMED.get(m.group(), f"\\u{ord(m.group()):04x}"), text) + '"'
    )
