"""Secret values for an install: the environment first, then the hub's `.env`.

A hub names secrets as `${env:NAME}` and each host gets its own reference syntax, so no
value should ever reach a host file. These values are what apply checks for before it
writes: a change that would add one to a file is refused, naming the variable, never the
value.
"""

from __future__ import annotations

import io
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from memhub.hubspec.errors import MemhubError
from memhub.hubspec.model import Hub
from memhub.hubspec.refs import references

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
    from dotenv import dotenv_values

    text = _env_text(path)
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
    decoded some other way would be checked (and passed to servers) as different bytes."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise EnvFileError(
            f"{path}:{line}: not UTF-8 text (byte 0x{data[exc.start]:02x}). "
            "Fix: save .env as UTF-8 (nothing was written)"
        ) from None


def referenced_names(hub: Hub) -> list[str]:
    """Every NAME the hub references as `${env:NAME}`, in order of first use."""
    text = Path(hub.root, "hub.yaml").read_text("utf-8")
    names = [ref.name for ref in references(text) if ref.kind == "env"]
    return list(dict.fromkeys(names))


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
