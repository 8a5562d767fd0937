"""Secret values for an install: the environment first, then the hub's `.env`.

A hub names secrets as `${env:NAME}` and each host gets its own reference syntax, so no
value should ever reach a host file. These values are what apply checks for before it
writes: a change that would add one to a file is refused, naming the variable, never the
value.
"""

from __future__ import annotations

import dataclasses
import io
import os
import stat
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from memhub.compiler.formats.document import format_of, parsed
from memhub.hubspec.errors import MemhubError, Origin
from memhub.hubspec.model import Hub
from memhub.hubspec.refs import references
from memhub.runtime import credentials

ENV_FILE = ".env"
# Shorter values ("1", "debug") are settings, not secrets, and occur in files by chance.
MIN_SECRET_LENGTH = 8


class EnvFileError(MemhubError):
    """The hub's .env cannot be read as text."""

    exit_code = 2


class SecretLeakError(MemhubError):
    """A write would put a secret value into a host file."""

    exit_code = 2


def env_file(hub: Hub) -> Path:
    return Path(hub.root) / ENV_FILE


def env_file_values(hub: Hub) -> dict[str, str]:
    """NAME=value pairs of the hub's .env (python-dotenv's parser: quotes, export, comments)."""
    path = env_file(hub)
    if not check_env_file(path):
        return {}
    return parse_env(_env_text(path))


def parse_env(text: str) -> dict[str, str]:
    """NAME=value pairs of .env text: python-dotenv's parser, the one memhub reads .env with."""
    from dotenv import dotenv_values

    values = dotenv_values(stream=io.StringIO(text), interpolate=False)
    return {k: v for k, v in values.items() if v is not None}


def check_env_file(path: Path) -> bool:
    """Whether `path` is a .env to read (False: there is none); anything but a regular
    file is refused, since reading a FIFO would block forever and a folder cannot be read."""
    if path.is_file():
        return True
    if path.exists():
        raise EnvFileError(
            f"{path}: not a regular file. Fix: make .env a plain text file of NAME=value "
            "lines, or remove it (nothing was written)"
        )
    return False


def _env_text(path: Path) -> str:
    """The .env's text; bytes that are not UTF-8 are refused with their line, since a value
    decoded some other way would be checked (and passed to servers) as different bytes.
    Read without blocking: a .env swapped for a FIFO after check_env_file is refused."""
    from memhub.compiler.safewrite import targetfs

    data = targetfs.read_file(path)[0] or b""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise EnvFileError(
            f"{path}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x}). "
            "Fix: save .env as UTF-8 (nothing was written)"
        ) from None


# Hub fields that are not hub.yaml values: skill and instruction files are copied as text
# (a `${env:X}` there is prose, never substituted), `root` is where the hub sits.
_NOT_VALUES = frozenset({"root", "skills", "instructions"})


# The last hub asked about and its answer: one apply asks three times (the values to keep
# out of files, the warnings, the memo), and walking a large hub's strings is not free. A
# Hub is frozen, so the same object has the same answer.
_LAST_NAMES: list[tuple[Hub, list[str]]] = []


def referenced_names(hub: Hub) -> list[str]:
    """Every NAME the hub's values reference as `${env:NAME}`, in hub order.

    Only loaded values count: a `${env:NAME}` in a YAML comment or a mapping key is text a
    person wrote about references, not one (`memhub init`'s starter hub has such a comment).
    """
    if _LAST_NAMES and _LAST_NAMES[0][0] is hub:
        return list(_LAST_NAMES[0][1])
    names = _referenced(hub)
    _LAST_NAMES[:] = [(hub, names)]
    return list(names)


def _referenced(hub: Hub) -> list[str]:
    names = [
        ref.name
        for field in dataclasses.fields(hub)
        if field.name not in _NOT_VALUES
        for text in _hub_strings(getattr(hub, field.name))
        for ref in references(text)
        if ref.kind == "env"
    ]
    return list(dict.fromkeys(names))


def _hub_strings(value: Any) -> list[str]:
    """Every string value inside a model value (mapping values, not keys; no positions)."""
    found: list[str] = []
    _add_strings(value, found)
    return found


def _add_strings(value: Any, found: list[str]) -> None:
    # appended in one recursion, not yielded: a generator per level cost a 200-server hub
    # about a millisecond each apply
    if isinstance(value, str):
        found.append(value)
    elif isinstance(value, Mapping):
        for item in value.values():
            _add_strings(item, found)
    elif isinstance(value, tuple | list):
        for item in value:
            _add_strings(item, found)
    elif dataclasses.is_dataclass(value) and not isinstance(value, Origin):
        for name in value.__dataclass_fields__:
            _add_strings(getattr(value, name), found)


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
    """Refuse when any (file, before, after) would hold a secret more often after than before,
    or a literal credential (`memhub.runtime.credentials`) that was not there before.

    Counting keeps a person's own copy (a token they pasted into their config themselves)
    from blocking memhub; only what memhub would add is refused. JSON and TOML files are
    compared as the strings they decode to, so a value written escaped (a `"` or `\\` in
    it) is still found.
    """
    for target, before, after in writes:
        if after is None:
            continue
        if secrets:  # the strings added and removed matter only for a value to look for
            _refuse_values(target, before, after, secrets)
        if _structured(target):
            literal = _added_literal(_settings(target, before), _settings(target, after))
            if literal:
                raise SecretLeakError(
                    f"{target}: the write would contain {literal}. Fix: put the value in the "
                    "hub's .env and reference it as ${env:NAME} (nothing was written)"
                )


def _refuse_values(
    target: str, before: bytes | None, after: bytes, secrets: Mapping[str, str]
) -> None:
    """Refuse a write that holds a secret's value more often than the file did."""
    added, removed = _changed_strings(target, before, after)
    raw_before, raw_after = _raw(before), _raw(after)
    for name, value in secrets.items():
        more = _occurrences(added, value) > _occurrences(removed, value)
        if more or raw_after.count(value) > raw_before.count(value):
            raise SecretLeakError(
                f"{target}: the write would contain the value of ${{env:{name}}}. "
                "Fix: reference it as ${env:" + name + "} instead of writing the value "
                "(nothing was written)"
            )


def _raw(data: bytes | None) -> str:
    return (data or b"").decode("utf-8", "replace")


def _structured(target: str) -> bool:
    return format_of(target) is not None


def _parsed(target: str, data: bytes | None) -> object:
    """The JSON or TOML document, or None when there is none or it does not parse."""
    text = _raw(data)
    if not text or not _structured(target):
        return None
    try:
        return parsed(format_of(target) or "toml", text)
    except ValueError:
        return None


def _decoded_strings(target: str, data: bytes | None) -> Counter[str]:
    """Every string `data` holds: decoded keys and values for JSON and TOML, else its text."""
    parsed = _parsed(target, data)
    if parsed is None:
        text = _raw(data)
        return Counter([text] if text else [])
    found: Counter[str] = Counter()
    _walk(parsed, found)
    return found


def _walk(value: object, out: Counter[str]) -> None:
    if isinstance(value, str):
        out[value] += 1
    elif isinstance(value, dict):
        for key, item in value.items():
            out[str(key)] += 1
            _walk(item, out)
    elif isinstance(value, list):
        for item in value:
            _walk(item, out)


# One setting as the detector reads it: ("key", name, value) for a string under a key (an env
# variable, a header: the key can name a secret), ("line", args) for a list of strings (args
# make one command line: `--token X` is two of them).
_Setting = tuple[str, ...]


def _settings(target: str, data: bytes | None) -> Counter[_Setting]:
    found: Counter[_Setting] = Counter()
    _collect(_parsed(target, data), "", "", found)
    return found


def _collect(value: object, key: str, parent: str, out: Counter[_Setting]) -> None:
    if isinstance(value, str):
        if not credentials.names_a_variable(parent, value):
            out[("key", key, value)] += 1
    elif isinstance(value, dict):
        for name, item in value.items():
            _collect(item, str(name), key, out)
    elif isinstance(value, list):
        if value and all(isinstance(item, str) for item in value):
            out[("line", " ".join(value))] += 1
            return
        for item in value:
            _collect(item, key, parent, out)


def _secrets_in(setting: _Setting) -> list[tuple[str, str]]:
    """(what, secret text) for each literal credential in one setting."""
    if setting[0] == "line":
        text = setting[1]
        return [(credentials.describe(f), text[f.start : f.end]) for f in credentials.find(text)]
    _, key, text = setting
    why = credentials.literal_for_key(key, text)
    return [(why.removeprefix("it contains "), text)] if why else []


def _changed_strings(
    target: str, before: bytes | None, after: bytes | None
) -> tuple[Counter[str], Counter[str]]:
    """The strings the write adds and removes (unchanged ones cancel out, which keeps the
    check cheap on a large `~/.claude.json`)."""
    old, new = _decoded_strings(target, before), _decoded_strings(target, after)
    return new - old, old - new


def _occurrences(strings: Counter[str], value: str) -> int:
    return sum(text.count(value) * times for text, times in strings.items())


def _added_literal(before: Counter[_Setting], after: Counter[_Setting]) -> str | None:
    """What literal credential the write adds that the file did not hold before. Only
    settings that change are read, which keeps this cheap on a large `~/.claude.json`."""
    had = Counter(secret for setting in before - after for _, secret in _secrets_in(setting))
    for setting in after - before:
        for what, secret in _secrets_in(setting):
            if had[secret] > 0:
                had[secret] -= 1
                continue
            return what
    return None
