"""Parse YAML into plain data while remembering where every key and value sits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from .errors import Origin, Problem

KeyPath = tuple[str | int, ...]


@dataclass(slots=True)
class Positions:
    """Source positions of a parsed document, by key path."""

    file: str
    values: dict[KeyPath, Origin] = field(default_factory=dict)
    keys: dict[KeyPath, Origin] = field(default_factory=dict)

    def of_value(self, path: KeyPath) -> Origin:
        """The position of the value at `path`, else of its nearest ancestor."""
        for cut in range(len(path), -1, -1):
            found = self.values.get(path[:cut])
            if found is not None:
                return found
        return Origin(self.file)

    def of_key(self, path: KeyPath) -> Origin:
        """The position of the mapping key that ends `path` (falls back to its value)."""
        return self.keys.get(path) or self.of_value(path)


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


# libyaml's loader is several times faster; the pure-Python one words errors consistently,
# so a document libyaml rejects is parsed again by it for the message.
_FAST_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(text: str, file: str) -> tuple[Any, Positions]:
    """Parse one YAML document; reject duplicate and non-string keys."""
    try:
        return _parse(text, file, _FAST_LOADER)
    except YamlProblems:
        if _FAST_LOADER is yaml.SafeLoader:
            raise
    return _parse(text, file, yaml.SafeLoader)


def _parse(text: str, file: str, loader_class: type[yaml.SafeLoader]) -> tuple[Any, Positions]:
    try:
        loader = loader_class(text)  # the reader already rejects control characters here
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        raise YamlProblems([_syntax_problem(file, exc)]) from None
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
    problems: list[Problem] = []
    data = _build(node, (), loader, positions, problems)
    if problems:
        raise YamlProblems(problems)
    return data, positions


def _build(
    node: yaml.Node,
    path: KeyPath,
    loader: Any,
    positions: Positions,
    problems: list[Problem],
) -> Any:
    positions.values[path] = _origin(positions.file, node.start_mark)
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key_origin = _origin(positions.file, key_node.start_mark)
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != "tag:yaml.org,2002:str":
                problems.append(
                    Problem(
                        key_origin,
                        format_path(path),
                        f"key {key_node.value!r} is not a string",
                        "quote the key or use a plain word",
                    )
                )
                continue
            key = key_node.value
            if key in result:
                problems.append(
                    Problem(
                        key_origin,
                        format_path((*path, key)),
                        f"duplicate key {key!r} (first defined at line "
                        f"{positions.keys[(*path, key)].line})",
                        "keep one definition of this key",
                    )
                )
                continue
            positions.keys[(*path, key)] = key_origin
            result[key] = _build(value_node, (*path, key), loader, positions, problems)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [
            _build(item, (*path, index), loader, positions, problems)
            for index, item in enumerate(node.value)
        ]
    try:
        return loader.construct_object(node, deep=True)
    except yaml.YAMLError as exc:
        problems.append(
            Problem(
                _origin(positions.file, node.start_mark),
                format_path(path),
                f"unreadable value: {exc}",
                "write a plain string, number or boolean",
            )
        )
        return None
