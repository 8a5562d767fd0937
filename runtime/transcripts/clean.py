"""Text that can be stored: lone surrogates and bytes that are not UTF-8 become U+FFFD.

A host may write what no UTF-8 store takes: Node writes `\\ud83c` when it cuts a string
inside an emoji (valid JSON, but a lone surrogate once decoded, which SQLite, a UTF-8 file
and an HTTP body all refuse), and a crash mid-write leaves bytes that are not UTF-8 at all.
Every transcript reader decodes its JSON through `load_json`, so each decoded value is clean
once, at the root, and the record is marked `repaired` rather than dropped; `clean_value`
cleans a value decoded elsewhere (a hook payload, a record handed to a backend).

Stdlib only, relative imports only (bundles vendor this folder).
"""

from __future__ import annotations

import json
import re
from typing import Any

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")
# A JSON escape of a surrogate code point (\uD800-\uDFFF): the only way one reaches a value
# decoded from valid UTF-8. A pair decodes to one code point; a line without such an escape
# needs no walk over its value.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_BOM = "\ufeff"


def clean_text(text: str) -> str:
    """`text` with every lone surrogate replaced by U+FFFD."""
    return _SURROGATE.sub(REPLACEMENT, text)


def has_surrogates(text: str) -> bool:
    return _SURROGATE.search(text) is not None


def clean_value(value: Any) -> tuple[Any, bool]:
    """(`value` with every string, dict key included, cleaned; whether anything changed).

    Lists and dicts are cleaned in place (callers pass values they own, e.g. fresh from
    `json.loads`). Iterative, so a value nested as deep as the JSON decoder allows never
    exhausts the stack here.
    """
    if isinstance(value, str):
        fixed = clean_text(value)
        return fixed, fixed != value
    changed = False
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            for index, item in enumerate(node):
                if isinstance(item, str):
                    if _SURROGATE.search(item):
                        node[index] = clean_text(item)
                        changed = True
                elif isinstance(item, list | dict):
                    stack.append(item)
        elif isinstance(node, dict):
            if any(isinstance(key, str) and _SURROGATE.search(key) for key in node):
                items = list(node.items())
                node.clear()
                node.update((clean_text(k) if isinstance(k, str) else k, v) for k, v in items)
                changed = True
            for key, item in node.items():
                if isinstance(item, str):
                    if _SURROGATE.search(item):
                        node[key] = clean_text(item)
                        changed = True
                elif isinstance(item, list | dict):
                    stack.append(item)
    return value, changed


def decode_text(data: bytes) -> tuple[str, bool]:
    """(`data` as UTF-8 text, a leading BOM dropped; whether bytes had to be replaced)."""
    try:
        text, repaired = data.decode("utf-8"), False
    except UnicodeDecodeError:
        text, repaired = data.decode("utf-8", "replace"), True
    return (text[1:] if text.startswith(_BOM) else text), repaired


def depth(value: Any) -> int:
    """How deeply lists and objects nest in `value` (a scalar: 0), counted without recursion."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict):
            node = node.values()
        elif not isinstance(node, list):
            continue
        deepest = max(deepest, level)
        stack.extend((item, level + 1) for item in node if isinstance(item, list | dict))
    return deepest


def load_json(data: bytes | str, max_depth: int | None = None) -> tuple[Any, bool]:
    """(the JSON value of `data`, cleaned; whether it was repaired). Raises ValueError (or
    RecursionError, for nesting deeper than the decoder takes) when it is not JSON, and
    ValueError when it nests deeper than `max_depth`.

    Bytes are decoded as UTF-8 by this function, never by `json.loads`, which would guess
    UTF-16 for a line starting with a NUL byte and pass encoded surrogates through.
    """
    if isinstance(data, bytes):
        text, repaired = decode_text(data)
    else:
        text, repaired = data, has_surrogates(data)
    value = json.loads(text)
    # fewer brackets than the limit cannot nest deeper: only a bracket-heavy text is walked
    if (
        max_depth is not None
        and text.count("[") + text.count("{") > max_depth
        and depth(value) > max_depth
    ):
        raise ValueError(f"nested deeper than {max_depth}")
    if repaired or _SURROGATE_ESCAPE.search(text):  # else no string of it can hold one
        value, changed = clean_value(value)
        repaired = repaired or changed
    return value, repaired
