"""The marketplace hub's JSON Schema check (schemas/marketplace-hub.schema.json), its
problems explained with position, key path and fix as the plugin hub's are."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from .errors import Problem
from .vocabulary import bundle_hosts
from .yamlsrc import Positions, format_path

SCHEMA_FILE = "marketplace-hub.schema.json"
_HINTS: dict[str, tuple[str, str]] = {
    "^\\./": ("is not a ./folder", "write the plugin's folder as ./some/folder"),
    "^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$": (
        "is not a GitHub owner/repo",
        "write owner/repo, e.g. acme/tools",
    ),
    "^(https://[^\\s]+|ssh://[^\\s]+|git@[^\\s:]+:[^\\s]+)$": (
        "is not a git URL memhub accepts",
        "write an https://, ssh:// or git@host:path URL",
    ),
    "^[^\\s~^:?*\\[\\\\]+$": ("is not a git ref name", "write a branch or tag name, e.g. v1.2.0"),
    "^[0-9a-f]{40}$": (
        "is not a full commit sha",
        "write the commit's 40 lowercase hex digits (git rev-parse <ref>)",
    ),
}


@cache
def _validator() -> Any:
    import jsonschema
    from memhub import schemas

    text = Path(schemas.__file__).with_name(SCHEMA_FILE).read_text("utf-8")
    return jsonschema.Draft202012Validator(schemas.with_hosts(json.loads(text), bundle_hosts()))


def schema_problems(data: Any, positions: Positions) -> list[Problem]:
    from .schema_check import _explain

    problems: list[Problem] = []
    for error in _validator().iter_errors(data):
        at = tuple(error.absolute_path)
        if error.validator == "oneOf" and (at[-1:] == ("source",) or at[-2:-1] == ("sources",)):
            problems.extend(_source_problems(error, positions))
            continue
        if error.validator == "pattern" and error.validator_value in _HINTS:
            what, fix = _HINTS[error.validator_value]
            problems.append(
                Problem(positions.of_value(at), _key(error), f"{error.instance!r} {what}", fix)
            )
            continue
        problems.extend(_explain(error, positions))
    unique = {(str(p.origin), p.key_path, p.message): p for p in problems}
    return list(unique.values())


def _key(error: Any) -> str:
    return format_path(tuple(error.absolute_path))


def _source_problems(error: Any, positions: Positions) -> list[Problem]:
    """A `source:` that fits no shape: the closest shape's own errors, else what shapes exist."""
    value = error.instance
    shape = next(
        (
            index
            for index, option in enumerate(error.validator_value)
            if (isinstance(value, str) and option.get("type") == "string")
            or (isinstance(value, dict) and set(option.get("required", ())) & set(value))
        ),
        -1,
    )
    if shape >= 0:
        branch = [e for e in error.context if e.schema_path and e.schema_path[0] == shape]
        if branch:
            return _schema_problems_of(branch, positions)
    if tuple(error.absolute_path)[-2:-1] == ("sources",):
        message = "a git source is {github: owner/repo} or {git: URL} (per host, only these)"
    else:
        message = "a source is ./folder, {github: owner/repo} or {git: URL}"
    return [
        Problem(
            positions.of_value(tuple(error.absolute_path)),
            _key(error),
            message,
            "write one of them (with `path:` for a folder of the repository, `ref:`/`sha:` to "
            "pin); a plugin with no source is listed by its folder",
        )
    ]


def _schema_problems_of(errors: list[Any], positions: Positions) -> list[Problem]:
    from .schema_check import _explain

    found: list[Problem] = []
    for error in errors:
        if error.validator == "pattern" and error.validator_value in _HINTS:
            what, fix = _HINTS[error.validator_value]
            where = positions.of_value(tuple(error.absolute_path))
            found.append(Problem(where, _key(error), f"{error.instance!r} {what}", fix))
        else:
            found.extend(_explain(error, positions))
    return found
