"""JSON Schema validation of hub data, turned into positioned, fixable problems."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from memhub import schemas
from memhub.schemas import SCHEMA_FILE, with_hosts

from .errors import Problem
from .vocabulary import bundle_hosts
from .yamlsrc import KeyPath, Positions, format_path

_PATTERN_HINTS: dict[str, tuple[str, str]] = {
    "^[a-z0-9]+(?:-[a-z0-9]+)*$": (
        "is not kebab-case",
        "use lowercase letters, digits and single hyphens, e.g. 'my-plugin'",
    ),
    "^(?=.{1,64}$)[A-Za-z0-9_-]+( [A-Za-z0-9_-]+)*$": (
        "is not a valid MCP server name",
        "use at most 64 letters, digits, '_' or '-'",
    ),
    "^https://[^\\s]+$": ("is not an https:// URL", "write a full https:// URL"),
    "^((https?://|\\$\\{env:)[^\\s]+)?$": (
        "is not an http(s) URL",
        "write a full http:// or https:// URL, or ${env:NAME} to read it from the environment",
    ),
    "^[^@\\s]+@[^@\\s]+$": ("is not an e-mail address", "write name@example.com"),
    "^[a-z][a-z0-9_.]*$": (
        "is not a handler name",
        "use a runtime handler name such as 'capture.turn' (see `memhub hosts`)",
    ),
    "^[A-Za-z0-9_./-]+$": ("is not an interpreter name", "write e.g. python3 or /usr/bin/python3"),
    "^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$": (
        "is not a rulebook or rule name",
        "use at most 100 letters, digits, '-', '_' or '.', starting with a letter or digit "
        "(a book's name is its file's name)",
    ),
    "\\.(png|jpg|jpeg|svg)$": (
        "is not a .png, .jpg or .svg file",
        "use a square PNG or JPEG image, or a plain SVG",
    ),
}


@cache
def hub_schema() -> dict[str, Any]:
    """The hub JSON Schema shipped in `memhub.schemas`, naming the hosts of the adapters."""
    # beside the package's own file: memhub runs from a folder, never a zip (hooks run its
    # runtime by path), and importlib.resources cost every load a few ms to import
    text = Path(schemas.__file__).with_name(SCHEMA_FILE).read_text("utf-8")
    return with_hosts(json.loads(text), bundle_hosts())


@cache
def _fast_validator() -> Any:
    """jsonschema-rs: a compiled validator that imports in a few ms (the CLI's hot path)."""
    import jsonschema_rs

    return jsonschema_rs.Draft202012Validator(hub_schema())


@cache
def _validator() -> Any:
    """jsonschema: slower to import, but its errors carry what the messages are made of."""
    import jsonschema

    return jsonschema.Draft202012Validator(hub_schema())


def is_valid(data: Any) -> bool | None:
    """The fast verdict, or None when the fast validator cannot judge this data."""
    try:
        return bool(_fast_validator().is_valid(data))
    except (ImportError, ValueError, TypeError, OverflowError):
        return None  # e.g. YAML dates or bytes, which JSON has no type for


_ARTICLE = {
    "string": "a string (quote it)",
    "object": "a mapping",
    "array": "a list",
    "integer": "an integer",
    "boolean": "true or false",
    "number": "a number",
}


def _type_name(value: Any) -> str:
    return {
        dict: "a mapping",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        type(None): "nothing (null)",
    }.get(type(value), type(value).__name__)


def _show(value: Any) -> str:
    """JSON-ish rendering of any YAML value (dates and bytes included)."""
    return json.dumps(value, default=str, ensure_ascii=False)


def _suggest(word: str, options: list[str]) -> str:
    import difflib  # only for a hub that failed: a valid one never needs it

    close = difflib.get_close_matches(str(word), options, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def schema_problems(data: Any, positions: Positions) -> list[Problem]:
    """Every schema violation in `data`, with position, key path and a fix."""
    if is_valid(data):
        return []
    problems: list[Problem] = []
    for error in _validator().iter_errors(data):
        problems.extend(_explain(error, positions))
    unique = {(str(p.origin), p.key_path, p.message): p for p in problems}
    return list(unique.values())


def _explain(error: Any, positions: Positions) -> list[Problem]:
    path: KeyPath = tuple(error.absolute_path)
    where = positions.of_value(path)
    key = format_path(path)
    kind = error.validator
    schema = error.schema if isinstance(error.schema, dict) else {}
    instance = error.instance
    if "propertyNames" in error.schema_path and kind != "propertyNames":
        return [_bad_name(error, path, positions)]
    if kind == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        extra = sorted(set(instance) - set(allowed)) if isinstance(instance, dict) else []
        return [
            Problem(
                positions.of_key((*path, name)),
                format_path((*path, name)),
                f"unknown key {name!r}{_suggest(name, allowed)}",
                f"remove it or use one of: {', '.join(allowed)}",
            )
            for name in extra
        ]
    if kind == "required":
        missing = [n for n in error.validator_value if n not in instance]
        return [
            Problem(
                where,
                key,
                f"missing required key {n!r}",
                f"add `{n}:` under {key or 'the top level'}",
            )
            for n in missing
        ]
    if kind == "type":
        expected = error.validator_value
        names = expected if isinstance(expected, list) else [expected]
        wanted = " or ".join(_ARTICLE.get(n, str(n)) for n in names)
        return [
            Problem(
                where, key, f"expected {wanted}, got {_type_name(instance)}", f"write {wanted} here"
            )
        ]
    if kind in ("enum", "const"):
        options = error.validator_value if kind == "enum" else [error.validator_value]
        shown = ", ".join(json.dumps(o) for o in options)
        return [
            Problem(
                where,
                key,
                f"{_show(instance)} is not allowed{_suggest(str(instance), [str(o) for o in options])}",
                f"use {'one of: ' if len(options) > 1 else ''}{shown}",
            )
        ]
    if kind == "pattern":
        what, fix = _pattern_hint(error, default=("has the wrong format", "see the hub reference"))
        return [Problem(where, key, f"{instance!r} {what}", fix)]
    if kind == "oneOf" and _per_host_branch(schema):
        # a value or its per-host mapping (hubspec/perhost.py): explain the form written
        branch = 1 if isinstance(instance, dict) else 0
        found = [e for e in error.context if e.relative_schema_path[0] == branch]
        if found:
            return [p for sub in found for p in _explain(sub, positions)]
    if kind == "oneOf":
        return [Problem(where, key, *_one_of_hint(path, instance))]
    if kind in ("minLength", "maxLength", "minimum", "maximum", "minItems", "uniqueItems", "not"):
        return [Problem(where, key, _bound_message(kind, error), _bound_fix(kind, error))]
    return [Problem(where, key, error.message, "see the hub reference in the README")]


def _per_host_branch(schema: dict[str, Any]) -> bool:
    """Whether a `oneOf` is a plain value or its `{default: ..., <host>: ...}` mapping."""
    branches = schema.get("oneOf") or []
    return len(branches) == 2 and str(branches[1].get("$ref", "")).startswith("#/$defs/perHost")


def _bad_name(error: Any, path: KeyPath, positions: Positions) -> Problem:
    """A mapping key that fails `propertyNames`, reported at the key itself."""
    name = str(error.instance)
    sub = (*path, name)
    if error.validator in ("enum", "anyOf"):
        # anyOf: `default` or a host name (a per-host value, hubspec/perhost.py)
        found = [error] if error.validator == "enum" else error.context
        options = [
            str(o)
            for sub in found
            for o in (sub.validator_value if sub.validator == "enum" else [sub.validator_value])
        ]
        what = f"is not one of {', '.join(options)}{_suggest(name, options)}"
        fix = f"use one of: {', '.join(options)}"
    else:
        what, fix = _PATTERN_HINTS.get(
            str(error.validator_value), ("is not an allowed name", "rename it")
        )
    return Problem(positions.of_key(sub), format_path(sub), f"name {name!r} {what}", fix)


def _pattern_hint(error: Any, default: tuple[str, str]) -> tuple[str, str]:
    return _PATTERN_HINTS.get(str(error.validator_value), default)


def _one_of_hint(path: KeyPath, instance: Any) -> tuple[str, str]:
    if path[:2] == ("mcp", "servers"):
        if isinstance(instance, dict) and "command" in instance and "url" in instance:
            return (
                "a server has both `command` and `url`",
                "keep `command` for a stdio server or `url` for a remote one",
            )
        return (
            "a server needs `command` (stdio) or `url` (remote)",
            "add `command:` or `url:`",
        )
    if path[:1] == ("hooks",):
        if isinstance(instance, dict) and "handler" in instance and "command" in instance:
            return ("a hook has both `handler` and `command`", "keep exactly one of them")
        return ("a hook needs `handler` or `command`", "add `handler:` or `command:`")
    return ("matches none of the allowed shapes", "see the hub reference in the README")


def _bound_message(kind: str, error: Any) -> str:
    value = error.validator_value
    return {
        "minLength": "must not be empty" if value == 1 else f"is shorter than {value} characters",
        "maxLength": f"is longer than {value} characters",
        "minimum": f"{error.instance!r} is below the minimum {value}",
        "maximum": f"{error.instance!r} is above the maximum {value}",
        "minItems": f"needs at least {value} item(s)",
        "uniqueItems": "has duplicate items",
        "not": "is not allowed here",
    }[kind]


def _bound_fix(kind: str, error: Any) -> str:
    value = error.validator_value
    return {
        "minLength": "write a non-empty value",
        "maxLength": f"shorten it to at most {value} characters",
        "minimum": f"use a value of at least {value}",
        "maximum": f"use a value of at most {value}",
        "minItems": "add an item or remove the key",
        "uniqueItems": "remove the duplicates",
        "not": "remove it",
    }[kind]
