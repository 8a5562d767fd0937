"""Redaction applied to everything capture sends off the machine. Stdlib only.

`redact(value)` walks dicts (keys and values), lists and strings and returns a copy in
which these no longer appear:

- every credential `credentials.find` reports (the one detector the hub loader, apply and
  import use too): token shapes, `--token x`, `Authorization: Bearer x`,
  `https://user:pass@host`, `PGPASSWORD=x`, `password: x`, PEM private-key blocks, ...;
- home-directory paths (`/home/<user>`, `/Users/<user>`, `C:\\Users\\<user>`, `/root`,
  and the current `$HOME` wherever it is), which become `~`;
- e-mail addresses.

Normal prose, code and paths outside a home folder are left byte for byte.
"""

from __future__ import annotations

import os
import re
from typing import Any

from .. import credentials

MARK = "<redacted>"

_EMAIL = re.compile(
    r"(?<![\w.+-])(?!git@)[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
    r"\.[A-Za-z]{2,}\b"
)
_HOME_POSIX = re.compile(r"(?<![\w.~-])(?:/home|/Users)/[^/\s\"'`:;,)\]}]+")
_HOME_ROOT = re.compile(r"(?<![\w.~-])/root(?=/|\b)")
_HOME_WINDOWS = re.compile(r"(?i)\b[A-Z]:[\\/]+Users[\\/]+[^\\/\s\"'`:;,)\]}]+")


def _home_patterns() -> list[tuple[re.Pattern[str], str]]:
    """The current user's home, wherever it is, plus its munged Claude project form."""
    out: list[tuple[re.Pattern[str], str]] = []
    home = os.environ.get("HOME") or os.path.expanduser("~")
    home = home.rstrip("/\\")
    if len(home) > 1 and home not in ("/root",):
        out.append((re.compile(re.escape(home) + r"(?=[/\\]|\b|$)"), "~"))
        munged = home.replace("/", "-").replace("\\", "-").replace(".", "-")
        if len(munged) > 2:
            out.append((re.compile(re.escape(munged) + r"(?=-|\b)"), "-~"))
    return out


_HOMES: list[tuple[re.Pattern[str], str]] | None = None
_HOMES_KEY: str | None = None


def _homes() -> list[tuple[re.Pattern[str], str]]:
    global _HOMES, _HOMES_KEY
    key = os.environ.get("HOME", "")
    if _HOMES is None or key != _HOMES_KEY:
        _HOMES, _HOMES_KEY = _home_patterns(), key
    return _HOMES


# Cheap gate: without one of these there is no e-mail address or home path (the munged
# Claude project form of a home is `-home-alice`).
_MAYBE_PERSONAL = re.compile(r"[@/\\\\-]")


def redact_text(text: str) -> str:
    """`text` with every credential, home path and e-mail address replaced."""
    if not text:
        return text
    text = credentials.replace(text, credentials.find(text), MARK)
    if not _MAYBE_PERSONAL.search(text):
        return text
    text = _EMAIL.sub("<email>", text)
    for pattern, replacement in _homes():
        text = pattern.sub(replacement, text)
    text = _HOME_POSIX.sub("~", text)
    text = _HOME_WINDOWS.sub("~", text)
    text = _HOME_ROOT.sub("~", text)
    return text


def redact(value: Any) -> Any:
    """A copy of `value` (JSON-like data) with every string redacted, dict keys included."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {(redact_text(k) if isinstance(k, str) else k): redact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    return value
