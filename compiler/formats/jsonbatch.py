"""jsonedit.set_keys: many member edits of one document as one set of splices, each
container scanned once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memhub.compiler.formats.jsonscan import Container, find, nest, open_container, root_of
from memhub.compiler.formats.jsonstyle import (
    Style,
    comma_gap,
    detect,
    dump,
    entry_text,
    line_indent,
    local_style,
    starts_line,
)


def disjoint(paths: list[tuple[str, ...]]) -> bool:
    """No path twice, and none inside another."""
    seen = set(paths)
    return len(seen) == len(paths) and not any(
        keys[:n] in seen for keys in paths for n in range(1, len(keys))
    )


def nested_set(data: dict[str, Any], keys: Sequence[str], value: Any) -> None:
    """data with keys set to value, creating (or replacing non-object) parents."""
    for key in keys[:-1]:
        if not isinstance(data.get(key), dict):
            data[key] = {}
        data = data[key]
    data[keys[-1]] = value


class Batch:
    """The splices of many set_key edits on one document, each container scanned once."""

    def __init__(self, body: str) -> None:
        self.body = body
        self.root = root_of(body)
        self.style = detect(body, self.root)
        self.scanned: dict[int, Container] = {self.root.start: self.root}
        self.splices: list[tuple[int, int, str]] = []
        self.new: dict[int, tuple[Container, dict[str, Any]]] = {}  # members to add, by object

    def walk(self, keys: Sequence[str]) -> tuple[Container, int, int | None]:
        """walk, with each object on the way scanned once for the whole batch."""
        parent = self.root
        for depth, key in enumerate(keys[:-1]):
            index = find(parent, key)
            if index is None:
                return parent, depth, None
            member = parent.members[index]
            found = self.scanned.get(member.value_start)
            if found is None:
                found = open_container(self.body, member, "{", keys[: depth + 1])
                self.scanned[member.value_start] = found
            parent = found
        return parent, len(keys) - 1, find(parent, keys[-1])

    def plan(self, keyed: list[tuple[tuple[str, ...], Any]]) -> list[tuple[int, int, str]]:
        """Every splice: replaced values, then each object's new members in one piece."""
        for keys, value in keyed:
            parent, depth, index = self.walk(keys)
            if index is not None:
                member = parent.members[index]
                style = local_style(self.body, parent, self.style)
                multiline = starts_line(self.body, member.start)
                new = dump(value, style, line_indent(self.body, member.start), multiline)
                self.splices.append((member.value_start, member.value_end, new))
                continue
            _, adding = self.new.setdefault(parent.start, (parent, {}))
            head, rest = keys[depth], keys[depth + 1 :]
            if head in adding and rest:  # a parent an earlier edit of this batch adds
                nested_set(adding[head], rest, value)
            else:
                adding[head] = nest(rest, value)
        for container, adding in self.new.values():
            self.splices.append(self._members(container, adding))
        return self.splices

    def _members(self, container: Container, adding: dict[str, Any]) -> tuple[int, int, str]:
        """The splice adding members to one object, as set_key adds them one after another."""
        text, style = self.body, local_style(self.body, container, self.style)
        items = list(adding.items())
        if container.members:
            if len(container.members) > 1:
                gap = comma_gap(text, container.members[-2], container.members[-1])
            else:
                lead = text[container.start + 1 : container.members[0].start]
                gap = lead if "\n" in lead else style.item_sep
            at = container.members[-1].value_end
            return at, at, self._pieces(items, gap, style)
        if style.indent is None or not starts_line(text, container.owner):
            first = entry_text(items[0][0], items[0][1], style, "", False)
            inner = first + self._pieces(items[1:], style.item_sep, style)
        else:
            outer = line_indent(text, container.start)
            deeper = outer + style.indent
            first = entry_text(items[0][0], items[0][1], style, deeper, True)
            rest = self._pieces(items[1:], style.newline + deeper, style)
            inner = style.newline + deeper + first + rest + style.newline + outer
        return container.start + 1, container.end - 1, inner

    @staticmethod
    def _pieces(items: list[tuple[str, Any]], gap: str, style: Style) -> str:
        multiline = style.indent is not None and "\n" in gap
        indent = gap[gap.rfind("\n") + 1 :]
        return "".join("," + gap + entry_text(k, v, style, indent, multiline) for k, v in items)


def splice(text: str, splices: list[tuple[int, int, str]]) -> str | None:
    """text with each (start, end, new) span replaced; None when two spans overlap."""
    out: list[str] = []
    pos = 0
    for start, end, new in sorted(splices, key=lambda s: (s[0], s[1])):
        if start < pos:
            return None
        out += [text[pos:start], new]
        pos = end
    out.append(text[pos:])
    return "".join(out)
