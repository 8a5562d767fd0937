"""Parse YAML into plain data while remembering where every key and value sits."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

from .errors import Origin, Problem

KeyPath = tuple[str | int, ...]


@dataclass(slots=True)
class Positions:
    """Source positions of a parsed document, by key path."""

    file: str
    # (line, column) by key path: an Origin is made only when a position is asked for (a
    # hub of 200 servers holds some 2,400 positions, and a valid hub asks for few)
    values: dict[KeyPath, tuple[int, int]] = field(default_factory=dict)
    keys: dict[KeyPath, tuple[int, int]] = field(default_factory=dict)

    def of_value(self, path: KeyPath) -> Origin:
        """The position of the value at `path`, else of its nearest ancestor."""
        for cut in range(len(path), -1, -1):
            found = self.values.get(path[:cut])
            if found is not None:
                return Origin(self.file, *found)
        return Origin(self.file)

    def of_key(self, path: KeyPath) -> Origin:
        """The position of the mapping key that ends `path` (falls back to its value)."""
        found = self.keys.get(path)
        return Origin(self.file, *found) if found is not None else self.of_value(path)


def format_path(path: KeyPath) -> str:
    """`('mcp', 'servers', 'x', 'args', 0)` -> `mcp.servers.x.args[0]`."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _origin(file: str, mark: yaml.Mark) -> Origin:
    return Origin(file, mark.line + 1, mark.column + 1)


def _line_col(text: str, position: int) -> tuple[int, int]:
    before = text[:position]
    return before.count("\n") + 1, position - (before.rfind("\n") + 1) + 1


def _syntax_problem(file: str, exc: yaml.MarkedYAMLError) -> Problem:
    """Point at the error; for an unclosed quote or bracket, at where it opened."""
    context = exc.context or ""
    unclosed = "quoted scalar" in context or "flow" in context
    primary, other = (
        (exc.context_mark, exc.problem_mark) if unclosed else (exc.problem_mark, exc.context_mark)
    )
    primary = primary or other
    origin = _origin(file, primary) if primary else Origin(file)
    what = " ".join(x for x in (exc.context, exc.problem) if x) or "invalid YAML"
    if unclosed and exc.problem_mark and primary and exc.problem_mark.line != primary.line:
        what += f" (opened here, still open at line {exc.problem_mark.line + 1})"
    return Problem(origin, "", f"YAML syntax error: {what}", "correct the YAML syntax here")


class YamlProblems(Exception):
    """Raised when the text is not a YAML document we can use."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(map(str, problems)))
        self.problems = problems


# Bounds no real document comes near, so hostile YAML is refused before it costs anything:
# nesting (each level is a Python stack frame below), and the values aliases may add beyond
# as many as the text itself spells (a billion-laughs bomb expands 9 aliases per level).
MAX_DEPTH = 100
MAX_ALIAS_VALUES = 100_000
# The pure-Python loader re-parses a rejected document only to word the error; past this size
# that re-parse would take longer than the answer is worth, so libyaml's wording is kept.
_REPARSE_LIMIT = 1_000_000


class _BoundedSafeLoader(yaml.SafeLoader):
    """The pure-Python loader, refusing nesting past MAX_DEPTH instead of recursing into it."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise yaml.composer.ComposerError(
                    None,
                    None,
                    f"nested deeper than {MAX_DEPTH} levels",
                    self.peek_event().start_mark,
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


# libyaml's loader is several times faster; the pure-Python one words errors consistently,
# so a document libyaml rejects is parsed again by it for the message.
_FAST_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", None) or _BoundedSafeLoader


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cycle collector while loading: the YAML nodes, positions and model are
    millions of young objects that all stay alive, so each collection re-scans every one of
    them and the load grew superlinear (20k servers 2.2 s, 40k 6.7 s). Nothing allocated here
    is garbage until the load is over; the collector runs again afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def parse_yaml(text: str, file: str) -> tuple[Any, Positions]:
    """Parse one YAML document; reject duplicate and non-string keys."""
    with gc_paused():
        return _parse_either(text, file)


def _parse_either(text: str, file: str) -> tuple[Any, Positions]:
    try:
        return _parse(text, file, _FAST_LOADER)
    except YamlProblems:
        if _FAST_LOADER is _BoundedSafeLoader or len(text) > _REPARSE_LIMIT:
            raise
    return _parse(text, file, _BoundedSafeLoader)


def _parse(text: str, file: str, loader_class: type[yaml.SafeLoader]) -> tuple[Any, Positions]:
    try:
        loader = loader_class(text)  # the reader already rejects control characters here
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        raise YamlProblems([_syntax_problem(file, exc)]) from None
    except RecursionError:  # a safety net: MAX_DEPTH and libyaml's own limit come first
        raise YamlProblems([_too_deep(Origin(file))]) from None
    except yaml.reader.ReaderError as exc:
        line, col = _line_col(text, exc.position)
        raise YamlProblems(
            [
                Problem(
                    Origin(file, line, col),
                    "",
                    f"character {exc.character!r} is not allowed in YAML",
                    "remove the control character (or save the file as plain UTF-8 text)",
                )
            ]
        ) from None
    except yaml.YAMLError as exc:
        raise YamlProblems(
            [Problem(Origin(file), "", f"YAML error: {exc}", "correct the YAML syntax")]
        ) from None
    loader.dispose()
    positions = Positions(file)
    if node is None:
        return None, positions
    walk = _Walk(loader, positions)
    try:
        data = walk.build(node, ())
    except _Refused as exc:
        raise YamlProblems([exc.problem]) from None
    if walk.problems:
        raise YamlProblems(walk.problems)
    return data, positions


def _too_deep(origin: Origin) -> Problem:
    return Problem(
        origin,
        "",
        f"values nested deeper than {MAX_DEPTH} levels",
        "flatten the structure; no hub key needs this depth",
    )


class _Refused(Exception):
    """The document is hostile (a cycle, an alias bomb, absurd depth): stop at once."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


class _Walk:
    """Node graph -> plain data, bounded: a value holding itself (a recursive alias), nesting
    past MAX_DEPTH, or aliases adding more than MAX_ALIAS_VALUES values beyond those the text
    spells stops the walk, so its cost follows the text (at most twice it, plus the bound),
    never the expansion.

    An alias is the same node object met again: the values built beneath a collection seen
    before are the ones aliases add (an alias of a scalar adds one value and cannot grow)."""

    def __init__(self, loader: Any, positions: Positions) -> None:
        self.loader = loader
        self.positions = positions
        self.problems: list[Problem] = []
        self.open: set[int] = set()  # ids of the collections being built (the current chain)
        self.seen: set[int] = set()  # ids of every collection built so far
        self.replaying = 0  # how many re-met collections the walk is inside
        self.added = 0  # values built inside them
        self.spelled = 0  # values built outside them: what the text itself spells

    def build(self, node: yaml.Node, path: KeyPath) -> Any:
        mark = node.start_mark
        self.positions.values[path] = (mark.line + 1, mark.column + 1)
        if not self.replaying:
            self.spelled += 1
        else:
            self.added += 1
            if self.added > MAX_ALIAS_VALUES + self.spelled:
                raise _Refused(
                    Problem(
                        self.positions.of_value(path),
                        format_path(path),
                        f"aliases expand to more than {MAX_ALIAS_VALUES:,} values beyond "
                        f"the {self.spelled:,} the file spells (an alias bomb?)",
                        "write the values out, or reuse an anchor a few times only",
                    )
                )
        if isinstance(node, yaml.ScalarNode):
            return _scalar(node, path, self.loader, self.positions, self.problems)
        if len(path) >= MAX_DEPTH:
            raise _Refused(_too_deep(self.positions.of_value(path)))
        key = id(node)
        if key in self.open:
            raise _Refused(
                Problem(
                    self.positions.of_value(path),
                    format_path(path),
                    "recursive alias: this value contains itself",
                    "point the alias at an anchor outside the value it sits in",
                )
            )
        replay = key in self.seen
        self.seen.add(key)
        self.open.add(key)
        self.replaying += replay
        try:
            if isinstance(node, yaml.MappingNode):
                return self._mapping(node, path)
            return [self.build(item, (*path, index)) for index, item in enumerate(node.value)]
        finally:
            self.open.discard(key)
            self.replaying -= replay

    def _mapping(self, node: yaml.MappingNode, path: KeyPath) -> dict[str, Any]:
        loader, positions, problems = self.loader, self.positions, self.problems
        self._check_merges(node, {id(node)})
        try:
            loader.flatten_mapping(node)
        except yaml.MarkedYAMLError as exc:
            raise _Refused(_syntax_problem(positions.file, exc)) from None
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != "tag:yaml.org,2002:str":
                problems.append(
                    Problem(
                        _origin(positions.file, key_node.start_mark),
                        format_path(path),
                        f"key {key_node.value!r} is not a string",
                        "quote the key or use a plain word",
                    )
                )
                continue
            key = key_node.value
            mark = key_node.start_mark
            if key in result:
                problems.append(
                    Problem(
                        _origin(positions.file, mark),
                        format_path((*path, key)),
                        f"duplicate key {key!r} (first defined at line "
                        f"{positions.keys[(*path, key)][0]})",
                        "keep one definition of this key",
                    )
                )
                continue
            positions.keys[(*path, key)] = (mark.line + 1, mark.column + 1)
            result[key] = self.build(value_node, (*path, key))
        return result

    def _check_merges(self, node: yaml.MappingNode, chain: set[int]) -> None:
        """Refuse a merge (`<<: *a`) that reaches back into itself: PyYAML's flatten_mapping
        would recurse without end."""
        for key_node, value_node in node.value:
            if key_node.tag != "tag:yaml.org,2002:merge":
                continue
            merged = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            for sub in merged:
                if not isinstance(sub, yaml.MappingNode):
                    continue  # flatten_mapping words this one
                if id(sub) in chain or len(chain) > MAX_DEPTH:
                    raise _Refused(
                        Problem(
                            _origin(self.positions.file, key_node.start_mark),
                            "",
                            "recursive merge: `<<` merges a mapping that contains this one",
                            "merge an anchor defined outside this mapping",
                        )
                    )
                chain.add(id(sub))
                self._check_merges(sub, chain)
                chain.discard(id(sub))


def _scalar(
    node: yaml.Node, path: KeyPath, loader: Any, positions: Positions, problems: list[Problem]
) -> Any:
    try:
        return loader.construct_object(node, deep=True)
    except (yaml.YAMLError, ValueError, OverflowError) as exc:
        # ValueError: an integer past Python's 4,300-digit limit, a date like 2024-13-45.
        what = f"unreadable value: {exc}"
        if "digits" in str(exc) and str(node.value).lstrip("+-").isdigit():
            what = f"an integer of {len(str(node.value).lstrip('+-'))} digits is too long to read"
        problems.append(
            Problem(
                _origin(positions.file, node.start_mark),
                format_path(path),
                what,
                "write a plain string, number or boolean",
            )
        )
        return None
