"""Secret values for an install: the environment first, then the hub's `.env`.

A hub names secrets as `${env:NAME}` and each host gets its own reference syntax, so no
value should ever reach a host file. These values are what apply checks for before it
writes: a change that would add one to a file is refused, naming the variable, never the
value.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from memhub.hubspec.errors import MemhubError, Origin
from memhub.hubspec.model import Hub
from memhub.hubspec.refs import references

ENV_FILE = ".env"
# Shorter values ("1", "debug") are settings, not secrets, and occur in files by chance.
MIN_SECRET_LENGTH = 8


class SecretLeakError(MemhubError):
    """A write would put a secret value into a host file."""

    exit_code = 2


def env_file(hub: Hub) -> Path:
    return Path(hub.root) / ENV_FILE


def env_file_values(hub: Hub) -> dict[str, str]:
    """NAME=value pairs of the hub's .env (python-dotenv's parser: quotes, export, comments)."""
    path = env_file(hub)
    if not path.is_file():
        return {}
    from dotenv import dotenv_values

    return {k: v for k, v in dotenv_values(path, interpolate=False).items() if v is not None}


# Hub fields that are not hub.yaml values: skill and instruction files are copied as text
# (a `${env:X}` there is prose, never substituted), `root` is where the hub sits.
_NOT_VALUES = frozenset({"root", "skills", "instructions"})


def referenced_names(hub: Hub) -> list[str]:
    """Every NAME the hub's values reference as `${env:NAME}`, in hub order.

    Only loaded values count: a `${env:NAME}` in a YAML comment or a mapping key is text a
    person wrote about references, not one (`memhub init`'s starter hub has such a comment).
    """
    names = [
        ref.name
        for field in dataclasses.fields(hub)
        if field.name not in _NOT_VALUES
        for text in _strings(getattr(hub, field.name))
        for ref in references(text)
        if ref.kind == "env"
    ]
    return list(dict.fromkeys(names))


def _strings(value: Any) -> Iterator[str]:
    """Every string value inside a model value (mapping values, not keys; no positions)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _strings(item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, Origin):
        for field in dataclasses.fields(value):
            yield from _strings(getattr(value, field.name))


def secret_values(hub: Hub, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """NAME -> value for each referenced name that has one (environment wins over .env)."""
    environ = os.environ if environ is None else environ
    from_file = env_file_values(hub)
    found = {}
    for name in referenced_names(hub):
        value = environ.get(name) or from_file.get(name)
        if value and len(value) >= MIN_SECRET_LENGTH:
            found[name] = value
    return found


def unresolved(hub: Hub, environ: Mapping[str, str] | None = None) -> list[str]:
    """Referenced names with no value in the environment or .env (the host will see none)."""
    environ = os.environ if environ is None else environ
    from_file = env_file_values(hub)
    return [n for n in referenced_names(hub) if not (environ.get(n) or from_file.get(n))]


def env_file_warnings(hub: Hub, environ: Mapping[str, str] | None = None) -> list[str]:
    """What a person should fix about secrets before the hosts start the servers."""
    warnings = [
        f"${{env:{name}}} has no value in the environment or {env_file(hub)}; hosts will "
        f"pass it empty. Fix: export {name}, or add {name}=... to {env_file(hub)}"
        for name in unresolved(hub, environ)
    ]
    path = env_file(hub)
    if path.is_file() and stat.S_IMODE(path.stat().st_mode) & 0o077:
        warnings.append(
            f"{path}: readable by other users (mode {stat.S_IMODE(path.stat().st_mode):o}). "
            f"Fix: chmod 600 {path}"
        )
    return warnings


def refuse_leaks(
    writes: Iterable[tuple[str, bytes | None, bytes | None]], secrets: Mapping[str, str]
) -> None:
    """Refuse when any (file, before, after) would hold a secret more often after than before.

    Counting keeps a person's own copy (a token they pasted into their config themselves)
    from blocking memhub; only what memhub would add is refused.
    """
    for target, before, after in writes:
        if after is None:
            continue
        for name, value in secrets.items():
            needle = value.encode("utf-8")
            if after.count(needle) > (before or b"").count(needle):
                raise SecretLeakError(
                    f"{target}: the write would contain the value of ${{env:{name}}}. "
                    "Fix: reference it as ${env:" + name + "} instead of writing the value "
                    "(nothing was written)"
                )
