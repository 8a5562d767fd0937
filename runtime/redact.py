"""Redaction applied to everything capture sends off the machine. Stdlib only.

`redact(value)` walks dicts (keys and values), lists and strings and returns a copy in
which these no longer appear:

- MemHub access keys (`mhk_...`, `xtk_...`) and other well-known token shapes;
- credentials on command lines, quoted or not: `--token x`, `--password=x`,
  `Authorization: Bearer x`, `curl -u user:pass`, `https://user:pass@host`,
  `export GITHUB_TOKEN=...`, PEM private-key blocks;
- home-directory paths (`/home/<user>`, `/Users/<user>`, `C:\\Users\\<user>`, `/root`,
  and the current `$HOME` wherever it is), which become `~`;
- e-mail addresses.

Normal prose, code and paths outside a home folder are left byte for byte.
"""

from __future__ import annotations

import os
import re
from typing import Any

MARK = "<redacted>"

# Token shapes of well-known credentials. The same list as hubspec/refs.py
# `_CREDENTIAL_SHAPES`, copied on purpose: the runtime is vendored into bundles and
# imports nothing outside this folder, so it cannot import memhub.hubspec. Keep the two
# in step when a shape is added. (`mhk_`/`xtk_` are handled first, keeping the prefix.)
_TOKEN_SHAPES = re.compile(
    r"(?:sk-[A-Za-z0-9_-]{16,}|sk-ant-[A-Za-z0-9_-]{10,}|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}"
    r"|AIza[0-9A-Za-z_-]{30,}|glpat-[A-Za-z0-9_-]{16,}"
    r"|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})"
)
_MEMHUB_KEY = re.compile(r"\b((?:mhk|xtk)_)[A-Za-z0-9_\-]{8,}")

_PEM = re.compile(
    r"-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----.*?(?:-----END \1PRIVATE KEY-----|\Z)", re.S
)

# A value on a command line or in an assignment: quoted (either quote) or one bare word.
_VALUE = r"(?:\"[^\"\n]*\"|'[^'\n]*'|[^\s\"'`;|&<>)]+)"
# Words that make a flag, variable or key name a secret's name. The name must END with
# one, so `--password-stdin`, `--token-file` or `MAX_TOKENS` are left alone.
_SECRET_WORD = (
    r"(?:token|passw(?:or)?d|pass|pwd|passphrase|secret|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|auth|credentials?)"
)
# A name made of separated words, the last one a secret word: `--api-token`, `DB_PASS`,
# `client_secret`; not `--bypass` or `MAX_TOKENS`.
_SECRET_NAME = rf"(?:[A-Za-z0-9]+[_-])*{_SECRET_WORD}"

# `Authorization: Bearer x`, `authorization=Basic x`, `-H 'X-Api-Key: x'`.
_AUTH_HEADER = re.compile(
    r"(?i)\b((?:proxy-)?authorization\s*[:=]\s*(?:bearer|basic|token|digest)?\s*)"
    r"([^\s\"',;]+)"
)
_BEARER = re.compile(r"(?i)\b(bearer\s+)([A-Za-z0-9._~+/=-]{8,})")
_KEY_HEADER = re.compile(
    r"(?i)\b((?:x-)?(?:api[_-]?key|auth[_-]?token|access[_-]?token)\s*:\s*)([^\s\"',;]+)"
)
# `--token x`, `--password=x`, `--api-key "x y"`, `-p=x` is not touched (too ambiguous).
_FLAG = re.compile(rf"(?i)(?<![\w-])(--?{_SECRET_NAME})(\s+|=)(?!-)({_VALUE})")
# `curl -u user:pass`, `--user 'user:pass'`.
_USER_FLAG = re.compile(r"(?<![\w-])(-u|--user)(\s+|=)([\"']?)([^\s:\"']+):([^\s\"']+)\3")
# `scheme://user:pass@host`.
_URL_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)([^/\s:@\"']+):([^/\s@\"']+)@")
# `export GITHUB_TOKEN=x`, `DB_PASSWORD='x' cmd`, `set API_KEY=x`.
# Environment names are upper case; `token=token` in code is left alone.
_ASSIGNMENT = re.compile(rf"(?<![\w$])((?:[A-Z0-9]+_)*{_SECRET_WORD.upper()})=(?!\s)({_VALUE})")
# `"password": "x"` / `api_key: 'x'` (a quoted value only, so prose is not touched).
_KEY_VALUE = re.compile(
    rf"(?i)(?<![\w-])([\"']?{_SECRET_NAME}[\"']?\s*:\s*)(\"[^\"\n]+\"|'[^'\n]+')"
)
_EMAIL = re.compile(
    r"(?<![\w.+-])(?!git@)[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
    r"\.[A-Za-z]{2,}\b"
)
_HOME_POSIX = re.compile(r"(?<![\w.~-])(?:/home|/Users)/[^/\s\"'`:;,)\]}]+")
_HOME_ROOT = re.compile(r"(?<![\w.~-])/root(?=/|\b)")
_HOME_WINDOWS = re.compile(r"(?i)\b[A-Z]:[\\/]+Users[\\/]+[^\\/\s\"'`:;,)\]}]+")


def _quote_aware(value: str) -> str:
    """A redacted value keeps its quotes, so the command line still reads as one."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[0] + MARK + value[0]
    return MARK


def _user_flag(m: re.Match[str]) -> str:
    if m.group(4).isdigit() and m.group(5).isdigit():
        return m.group(0)  # `docker run -u 1000:1000` is a uid:gid, not a password
    return f"{m.group(1)}{m.group(2)}{m.group(3)}{m.group(4)}:{MARK}{m.group(3)}"


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


# Cheap gate: a string holding none of these characters cannot match any pattern above.
_MAYBE = re.compile(r"[@/\\=:_-]|AKIA|AIza|eyJ|(?i:bearer)")


def redact_text(text: str) -> str:
    """`text` with every credential, home path and e-mail address replaced."""
    if not text or not _MAYBE.search(text):
        return text
    text = _PEM.sub(lambda m: f"-----BEGIN {m.group(1)}PRIVATE KEY-----{MARK}", text)
    text = _MEMHUB_KEY.sub(lambda m: m.group(1) + MARK, text)
    text = _TOKEN_SHAPES.sub(MARK, text)
    text = _URL_USERINFO.sub(lambda m: f"{m.group(1)}{m.group(2)}:{MARK}@", text)
    text = _AUTH_HEADER.sub(
        lambda m: m.group(1) + (m.group(2) if m.group(2) == MARK else MARK), text
    )
    text = _BEARER.sub(lambda m: m.group(1) + MARK, text)
    text = _KEY_HEADER.sub(lambda m: m.group(1) + MARK, text)
    text = _USER_FLAG.sub(_user_flag, text)
    text = _FLAG.sub(lambda m: m.group(1) + m.group(2) + _quote_aware(m.group(3)), text)
    text = _ASSIGNMENT.sub(lambda m: f"{m.group(1)}={_quote_aware(m.group(2))}", text)
    text = _KEY_VALUE.sub(lambda m: m.group(1) + _quote_aware(m.group(2)), text)
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
