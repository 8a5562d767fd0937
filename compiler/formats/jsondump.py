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
from itertools import repeat
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
# Deeper than this, json.dumps itself writes the text: it bounds the per-level cache, and a
# circular value (which this module does not track) ends up there and gets json's ValueError.
MAX_DEPTH = 100


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
    options = (indent, separators, ensure_ascii, allow_nan, sort_keys)
    if indent is not None and c_make_encoder is not None:
        try:
            return _writer(*options).encode(value)
        except RecursionError:
            pass  # too deep or circular: json.dumps gives the text or the error
    return json.dumps(
        value,
        indent=indent,
        separators=separators,
        ensure_ascii=ensure_ascii,
        allow_nan=allow_nan,
        sort_keys=sort_keys,
    )


def _not_serialisable(value: Any) -> Any:
    """The C encoder's default hook: what JSONEncoder.default raises."""
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


# per depth: "\n" and its indentation, the item separator there, and the C encoder of a
# leaves-only container whose items are at that depth
Level = tuple[str, str, Callable[[Any, int], tuple[str, ...]]]


@lru_cache(maxsize=32)
def _writer(
    indent: int | str, separators: Separators, ensure_ascii: bool, allow_nan: bool, sort_keys: bool
) -> _Writer:
    return _Writer(indent, separators, ensure_ascii, allow_nan, sort_keys)


class _Writer:
    """Indented JSON for one set of options (built once per set, like json's encoder)."""

    __slots__ = ("allow_nan", "item_sep", "key_sep", "levels", "sort_keys", "text", "unit")

    def __init__(
        self,
        indent: int | str,
        separators: Separators,
        ensure_ascii: bool,
        allow_nan: bool,
        sort_keys: bool,
    ) -> None:
        self.unit = indent if isinstance(indent, str) else " " * indent
        self.item_sep, self.key_sep = separators
        self.text: Callable[[str], str] = (
            encode_basestring_ascii if ensure_ascii else encode_basestring
        )
        self.allow_nan = allow_nan
        self.sort_keys = sort_keys
        self.levels: list[Level] = []

    def level(self, depth: int) -> list[Level]:
        """The levels, made down to depth."""
        levels = self.levels
        if len(levels) > depth:
            return levels
        if depth > MAX_DEPTH:
            raise RecursionError("deeper than jsondump writes")
        grown = list(levels)  # a new list: a thread still reading the old one is not hurt
        while len(grown) <= depth:
            newline = "\n" + self.unit * len(grown)
            encoder = c_make_encoder(
                None,  # no markers: a leaves-only container cannot hold itself
                _not_serialisable,
                self.text,
                None,
                self.key_sep,
                self.item_sep + newline,
                self.sort_keys,
                False,
                self.allow_nan,
            )
            grown.append((newline, self.item_sep + newline, encoder))
        self.levels = grown
        return grown

    def floatstr(self, number: float) -> str:
        if number != number:
            word = "NaN"
        elif number == INFINITY:
            word = "Infinity"
        elif number == -INFINITY:
            word = "-Infinity"
        else:
            return float.__repr__(number)
        if not self.allow_nan:
            raise ValueError(f"Out of range float values are not JSON compliant: {number!r}")
        return word

    def leaf(self, value: Any) -> str | None:
        """The text of a scalar, in json's order of checks; None for anything else."""
        if isinstance(value, str):
            return self.text(value)
        if value is None:
            return "null"
        if value is True:
            return "true"
        if value is False:
            return "false"
        if isinstance(value, int):
            return int.__repr__(value)
        if isinstance(value, float):
            return self.floatstr(value)
        return None

    def key_text(self, key: Any) -> str:
        """A member name as JSON text, with json's coercion of non-str keys."""
        if isinstance(key, str):
            return self.text(key)
        if isinstance(key, float):
            return self.text(self.floatstr(key))
        if isinstance(key, int) or key is None:  # bool is an int: leaf tells them apart
            return self.text(self.leaf(key))  # type: ignore[arg-type]  # never None here
        raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")

    def encode(self, value: Any) -> str:
        out: Chunks = []
        self.emit("", value, 0, out)
        return "".join(out)

    def emit(self, head: str, value: Any, depth: int, out: Chunks) -> None:
        """Append head and value's text; depth is the indentation level of value's line."""
        scalar = self.leaf(value)
        if scalar is not None:
            out.append(head + scalar)
            return
        if not isinstance(value, (list, tuple, dict)):
            _not_serialisable(value)
        is_dict = isinstance(value, dict)
        if not value:
            out.append(head + ("{}" if is_dict else "[]"))
            return
        levels = self.level(depth + 1)
        if type(value) in CONTAINERS and LEAVES.issuperset(
            map(type, value.values() if is_dict else value)
        ):
            body: str = levels[depth + 1][2](value, 0)[0]
            out.append(
                f"{head}{body[0]}{levels[depth + 1][0]}{body[1:-1]}{levels[depth][0]}{body[-1]}"
            )
        else:
            self.nested(head, value, is_dict, depth, out)

    def nested(self, head: str, value: Any, is_dict: bool, depth: int, out: Chunks) -> None:
        """Append head and a non-empty container that holds more than leaves."""
        levels = self.level(depth + 2)
        newline = levels[depth][0]
        inner, separator, _ = levels[depth + 1]
        inner2, _, encoder2 = levels[depth + 2]
        text, key_sep, nested = self.text, self.key_sep, self.nested
        head += ("{" if is_dict else "[") + inner
        if not is_dict:
            items: Any = zip(repeat(None), value)
        elif self.sort_keys:
            items = sorted(value.items())
        else:
            items = value.items()
        for key, item in items:
            if is_dict:
                head = f"{head}{text(key) if type(key) is str else self.key_text(key)}{key_sep}"
            # the common children inline: a call per child costs as much as its text
            kind = type(item)
            if kind is str:
                out.append(head + text(item))
            elif (kind is dict or kind is list) and item:
                if LEAVES.issuperset(map(type, item.values() if kind is dict else item)):
                    body = encoder2(item, 0)[0]
                    out.append(f"{head}{body[0]}{inner2}{body[1:-1]}{inner}{body[-1]}")
                else:
                    nested(head, item, kind is dict, depth + 1, out)
            elif kind is int:
                out.append(head + int.__repr__(item))
            else:
                self.emit(head, item, depth + 1, out)
            head = separator
        out.append(newline + ("}" if is_dict else "]"))
