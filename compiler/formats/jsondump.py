"""json.dumps with indent, byte for byte, without the pure-Python generator encoder.

CPython's json.dumps uses its C encoder only when indent is None; with an indent it runs
json/encoder.py's generators, several calls per value. Here one recursive function appends
to a list, leaves go through the C helpers, and every container holding only leaves is
written by one call of the C encoder whose item separator carries the newline and
indentation of its level (a JSON string never holds a raw newline, so nothing else moves).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from json.encoder import (  # type: ignore[attr-defined]  # the C helpers are not in the stubs
    c_make_encoder,
    encode_basestring,
    encode_basestring_ascii,
)
from typing import Any

Separators = tuple[str, str]
Chunks = list[str]

LEAVES = frozenset({str, int, float, bool, type(None)})
CONTAINERS = frozenset({dict, list, tuple})
INFINITY = float("inf")
CIRCULAR = "Circular reference detected"


def dumps(
    value: Any,
    *,
    indent: int | str | None,
    separators: Separators = (",", ": "),
    ensure_ascii: bool,
    allow_nan: bool = True,
    sort_keys: bool = False,
) -> str:
    """json.dumps(value, indent=…, separators=…, …): the same text, faster when indented."""
    if indent is None or c_make_encoder is None:
        return json.dumps(
            value,
            indent=indent,
            separators=separators,
            ensure_ascii=ensure_ascii,
            allow_nan=allow_nan,
            sort_keys=sort_keys,
        )
    unit = indent if isinstance(indent, str) else " " * indent
    return _writer(unit, separators, ensure_ascii, allow_nan, sort_keys)(value)


def _not_serialisable(value: Any) -> Any:
    """The C encoder's default hook: what JSONEncoder.default raises."""
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


Level = tuple[str, str, Callable[[Any, int], tuple[str, ...]]]


@lru_cache(maxsize=64)
def _writer(
    unit: str, separators: Separators, ensure_ascii: bool, allow_nan: bool, sort_keys: bool
) -> Callable[[Any], str]:
    """The encode function for one set of options (built once, like json's encoder)."""
    item_sep, key_sep = separators
    text = encode_basestring_ascii if ensure_ascii else encode_basestring
    levels: list[Level] = []

    def level(depth: int) -> Level:
        """The newline and item separator of items at depth, and the C encoder of a
        leaves-only container whose items are there."""
        while len(levels) <= depth:
            newline = "\n" + unit * len(levels)
            encoder = c_make_encoder(
                None,  # no markers: a leaves-only container cannot hold itself
                _not_serialisable,
                text,
                None,
                key_sep,
                item_sep + newline,
                sort_keys,
                False,
                allow_nan,
            )
            levels.append((newline, item_sep + newline, encoder))
        return levels[depth]

    def floatstr(number: float) -> str:
        if number != number:
            word = "NaN"
        elif number == INFINITY:
            word = "Infinity"
        elif number == -INFINITY:
            word = "-Infinity"
        else:
            return float.__repr__(number)
        if not allow_nan:
            raise ValueError(f"Out of range float values are not JSON compliant: {number!r}")
        return word

    def leaf(value: Any) -> str | None:
        """The text of a scalar, in json's order of checks; None for anything else."""
        if isinstance(value, str):
            return text(value)
        if value is None:
            return "null"
        if value is True:
            return "true"
        if value is False:
            return "false"
        if isinstance(value, int):
            return int.__repr__(value)
        if isinstance(value, float):
            return floatstr(value)
        return None

    def key_text(key: Any) -> str:
        """A member name as JSON text, with json's coercion of non-str keys."""
        if isinstance(key, str):
            return text(key)
        if isinstance(key, float):
            return text(floatstr(key))
        if key is True or key is False or key is None:
            return text(leaf(key))  # type: ignore[arg-type]  # never None for these
        if isinstance(key, int):
            return text(int.__repr__(key))
        raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")

    def emit(head: str, value: Any, depth: int, out: Chunks, markers: set[int]) -> None:
        """Append head and value's text; depth is the indentation level of value's line."""
        scalar = leaf(value)
        if scalar is not None:
            out.append(head + scalar)
        elif isinstance(value, (list, tuple, dict)):
            container(head, value, depth, out, markers)
        else:
            _not_serialisable(value)

    def container(head: str, value: Any, depth: int, out: Chunks, markers: set[int]) -> None:
        """Append head and a list, tuple or dict (or a subclass of one) as indented text."""
        is_dict = isinstance(value, dict)
        if not value:
            out.append(head + ("{}" if is_dict else "[]"))
            return
        if len(levels) < depth + 3:
            level(depth + 2)
        newline = levels[depth][0]
        inner, separator, encoder = levels[depth + 1]
        if (
            type(value) in CONTAINERS
            and set(map(type, value.values() if is_dict else value)) <= LEAVES
        ):
            body: str = encoder(value, 0)[0]
            out.append(f"{head}{body[0]}{inner}{body[1:-1]}{newline}{body[-1]}")
            return
        marker = id(value)
        if marker in markers:
            raise ValueError(CIRCULAR)
        markers.add(marker)
        inner2, _, encoder2 = levels[depth + 2]
        head += ("{" if is_dict else "[") + inner
        items = (sorted(value.items()) if sort_keys else value.items()) if is_dict else value
        for item in items:
            if is_dict:
                key, item = item
                head += (text(key) if type(key) is str else key_text(key)) + key_sep
            # the common children inline: a call per child costs as much as its text
            kind = type(item)
            if kind is str:
                out.append(head + text(item))
            elif (kind is dict or kind is list) and item:
                if set(map(type, item.values() if kind is dict else item)) <= LEAVES:
                    body = encoder2(item, 0)[0]
                    out.append(f"{head}{body[0]}{inner2}{body[1:-1]}{inner}{body[-1]}")
                else:
                    container(head, item, depth + 1, out, markers)
            elif kind is int:
                out.append(head + int.__repr__(item))
            else:
                emit(head, item, depth + 1, out, markers)
            head = separator
        markers.discard(marker)
        out.append(newline + ("}" if is_dict else "]"))

    def encode(value: Any) -> str:
        if isinstance(value, (list, tuple, dict)):
            out: Chunks = []
            container("", value, 0, out, set())
            return "".join(out)
        scalar = leaf(value)
        if scalar is None:
            _not_serialisable(value)
        return scalar  # type: ignore[return-value]  # _not_serialisable raised

    return encode
