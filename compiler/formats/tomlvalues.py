"""tomledit's values and data: its error, loading, checking what TOML can hold, rendering
values as TOML text, comparing as TOML data, and walking table paths."""

from __future__ import annotations

import functools
import math
import re
import tomllib
from collections.abc import Sequence
from datetime import date, datetime, time
from typing import Any

from memhub.compiler.digest import canonical_text
from memhub.compiler.formats.tomlscan import BARE, Path, ScanError, Scanner


class TomlEditError(ValueError):
    """Text that is not TOML, a path through a non-table, or a value TOML cannot hold."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None) -> None:
        where = f"line {line}, column {col}: " if line is not None else ""
        super().__init__(where + message)
        self.line = line
        self.col = col


@functools.lru_cache(maxsize=16)
def load(text: str) -> tuple[dict[str, Any], bool]:
    """(data, whether the text is strict TOML 1.0); shared, never to be changed.

    Remembered per text: an edit's result is parsed to verify it, then again by whoever
    reads the file next in the same run (the secret check, the next plan), and tomllib is
    pure Python (3 ms for a config of 200 servers)."""
    try:
        return tomllib.loads(text), True  # strict, and 15x faster than tomlkit
    except tomllib.TOMLDecodeError:
        pass  # tomlkit names line and column, and reads what it accepts beyond TOML 1.0
    import tomlkit  # only for such text: a strict file never pays for importing it
    from tomlkit.exceptions import ParseError, TOMLKitError

    try:
        return tomlkit.parse(text).unwrap(), False
    except ParseError as exc:
        reason = str(exc).rsplit(f" at line {exc.line} col {exc.col}", 1)[0]
        raise TomlEditError(f"not valid TOML: {reason}", exc.line, exc.col + 1) from exc
    except (TOMLKitError, ValueError) as exc:
        raise TomlEditError(f"not valid TOML: {exc}") from exc


def table_path(path: Sequence[str]) -> Path:
    """Check and normalise a table path."""
    if isinstance(path, str) or not path or not all(isinstance(p, str) for p in path):
        raise TomlEditError(f"a table path is a non-empty sequence of keys, not {path!r}")
    return tuple(path)


def check_table(value: Any) -> None:
    """Refuse values TOML cannot hold."""
    if not isinstance(value, dict):
        raise TomlEditError(f"a table value must be a dict, not {type(value).__name__}")
    check_value(value, "")


def check_value(value: Any, where: str) -> None:
    """Refuse a value TOML cannot hold, naming where it is."""
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise TomlEditError(f"{where or 'table'}: key {k!r} is not a string")
            check_text(k, where)
            check_value(v, f"{where}.{k}" if where else k)
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            check_value(v, f"{where}[{i}]")
    elif isinstance(value, str):
        check_text(value, where)
    elif isinstance(value, bool | float | date):
        offset = value.utcoffset() if isinstance(value, datetime) else None
        if offset is not None and offset.seconds % 60:
            raise TomlEditError(f"{where}: TOML offsets are whole minutes")
    elif isinstance(value, int):
        if not -(2**63) <= value < 2**63:
            raise TomlEditError(f"{where}: {value} does not fit in a 64-bit TOML integer")
    elif isinstance(value, time):
        if value.tzinfo is not None:
            raise TomlEditError(f"{where}: TOML times have no time zone")
    else:
        raise TomlEditError(f"{where}: TOML cannot hold {type(value).__name__} values")


def check_text(s: str, where: str) -> None:
    """Refuse strings that are not encodable as UTF-8 (lone surrogates)."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise TomlEditError(f"{where or 'key'}: string is not valid Unicode") from exc


# What a basic string must escape: the quote, the backslash and control characters.
_ESCAPED = re.compile(r'["\\\x00-\x1f\x7f]')


def basic_string(s: str) -> str:
    """A TOML basic string."""
    if not _ESCAPED.search(s):
        return f'"{s}"'  # most strings (commands, names, paths) need no escape at all
    out = ['"']
    for c in s:
        if c == '"':
            out.append('\\"')
        elif c == "\\":
            out.append("\\\\")
        elif c in "\b\t\n\f\r":
            out.append({"\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}[c])
        elif ord(c) < 0x20 or ord(c) == 0x7F:
            out.append(f"\\u{ord(c):04X}")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def key_part(k: str) -> str:
    """A TOML key part: bare when possible."""
    return k if BARE.fullmatch(k) else basic_string(k)


def dotted(path: Sequence[str]) -> str:
    """A dotted TOML key."""
    return ".".join(key_part(p) for p in path)


def render(value: Any) -> str:
    """An inline TOML value."""
    if isinstance(value, str):
        return basic_string(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, dict):
        if not value:
            return "{}"
        return "{ " + ", ".join(f"{key_part(k)} = {render(v)}" for k, v in value.items()) + " }"
    return "[" + ", ".join(render(v) for v in value) + "]"


def kv_line(key: Sequence[str], value: Any) -> str:
    """A `key = value` line."""
    return f"{dotted(key)} = {render(value)}"


def is_aot_value(value: Any, *, allow_empty: bool = False) -> bool:
    """A list of dicts (an array of tables)."""
    if not isinstance(value, list | tuple) or (not value and not allow_empty):
        return False
    return all(isinstance(v, dict) for v in value)


def is_section(value: Any) -> bool:
    """Written as a sub-table or an array of tables rather than inline."""
    if is_aot_value(value):
        return True
    return isinstance(value, dict) and any(
        isinstance(v, dict) or is_aot_value(v) for v in value.values()
    )


def table_lines(path: Path, value: dict[str, Any], *, aot: bool = False) -> list[str]:
    """Lines of a standard table (or array item) with its sub-tables."""
    lines = [f"[[{dotted(path)}]]" if aot else f"[{dotted(path)}]"]
    subs: list[str] = []
    for k, v in value.items():
        if is_section(v):
            subs += sub_lines((*path, k), v)
        else:
            lines.append(kv_line((k,), v))
    return lines + subs


def sub_lines(path: Path, value: Any) -> list[str]:
    """Lines of a sub-table or array of tables, each preceded by a blank line."""
    if isinstance(value, dict):
        if all(is_section(v) for v in value.values()):
            out: list[str] = []
            for k, v in value.items():
                out += sub_lines((*path, k), v)
            return out
        return ["", *table_lines(path, value)]
    out = []
    for item in value:
        out += ["", *table_lines(path, item, aot=True)]
    return out


def toml_kind(value: Any) -> str:
    """The TOML type of a plain value."""
    for kind in (bool, int, float, str, datetime, date, time, dict, list):
        if isinstance(value, kind):
            return kind.__name__
    return type(value).__name__


def same(a: Any, b: Any) -> bool:
    """Equal as TOML data: same types (1 is not 1.0 or true), nan equals nan."""
    if isinstance(a, dict):
        canonical = canonical_text(a)  # None for dates and NaN: the walk below decides
        if canonical is not None and canonical == canonical_text(b):
            return True  # one C-encoded comparison answers for a whole matching document
    return _same(a, b)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if toml_kind(a) != toml_kind(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, datetime):
        return a == b and (a.tzinfo is None) == (b.tzinfo is None)
    return a == b


# --------------------------------------------------------------------------------------------
# data helpers


def under(key: Path, path: Path, *, strict: bool = True) -> bool:
    """`key` is below `path` (or equal to it when not strict)."""
    n = len(path)
    return key[:n] == path and (len(key) > n or not strict)


def lookup(data: dict[str, Any], path: Path, text: str) -> tuple[bool, Any]:
    """(found, value) at `path`; TomlEditError when the path crosses a non-table."""
    cur: Any = data
    for i, k in enumerate(path):
        if not isinstance(cur, dict):
            raise not_a(text, path[:i], "a table")
        if k not in cur:
            return False, None
        cur = cur[k]
    return True, cur


def slot(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """The dict holding `path`'s last key, created on the way."""
    cur = data
    for k in path[:-1]:
        cur = cur.setdefault(k, {})
    return cur


def copy_path(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """A copy of `data` that shares everything but the tables holding `path`."""
    top = dict(data)
    cur = top
    for k in path[:-1]:
        nxt = cur.get(k)
        if not isinstance(nxt, dict):
            break
        copied = dict(nxt)
        cur[k] = copied
        cur = copied
    return top


def prune_empty(data: Any, path: Path) -> Any:
    """`data` without empty tables or arrays at `path` and its ancestors (for comparisons)."""
    data = copy_path(data, (*path, ""))
    for depth in range(len(path), 0, -1):
        found, value = lookup(data, path[:depth], "")
        if found and value in ({}, []):
            del slot(data, path[:depth])[path[depth - 1]]
    return data


def not_a(text: str, path: Path, what: str) -> TomlEditError:
    """The error for a path that names (or crosses) something other than `what`."""
    line = col = None
    if text:
        try:
            doc_stmts = Scanner(text).statements()
        except (ScanError, ValueError, IndexError):
            doc_stmts = []
        owner: Path = ()
        for s in doc_stmts:
            if s.kind in ("table", "aot"):
                owner = s.key
            full = s.key if s.kind in ("table", "aot") else owner + s.key
            if s.kind != "blank" and s.kind != "comment" and full == path:
                line, col = line_col(text, s.start)
                break
    return TomlEditError(f"{dotted(path)} is not {what}", line, col)


def line_col(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of an offset."""
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1
