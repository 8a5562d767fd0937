"""Values in credential positions: `--token X`, `Authorization: Bearer X`, `PGPASSWORD=X`, ..."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Protocol

from .lazy import Lazy

# A value: quoted (either quote, the span is inside the quotes) or one bare word.
_VALUE = r"(?:\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'|(?P<bare>[^\s\"'`;|&<>)]+))"
# Words that make a flag, variable or key name a secret's name. A name must END with one,
# so `--password-stdin`, `--token-file`, `MAX_TOKENS` or `TOKEN_LIMIT` are left alone.
WORD = (
    r"(?:token|passw(?:or)?d|passphrase|secret|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|account[_-]?key|secret[_-]?key|auth[_-]?token|authtoken|credentials?)"
)
# `pass`, `pwd` and `auth` only as the last part of a compound: `db-pass`, `MYSQL_PWD`,
# `basic_auth`; alone they are `--pass` (a mode), `PWD` (the working folder), `--auth`.
COMPOUND_WORD = r"(?:pass|pwd|auth)"
_NAME = rf"_?(?:(?:[A-Za-z0-9]+[_.-])*{WORD}|(?:[A-Za-z0-9]+[_.-])+{COMPOUND_WORD})"

# Gates of the rules that need a secret's name: most text that mentions a token never
# assigns one. One scan of the lower-cased text finds each secret word followed by `=`, `:`
# or a space (a flag's value), and each rule runs only when its separator was seen.
TAIL_EQ, TAIL_COLON, TAIL_ANY, TAIL_FLAG = "\0=", "\0:", "\0:=", "\0 ="
_HINT = Lazy(
    r"(?:token|passw(?:or)?d|passphrase|pass|pwd|secret|key|auth|credentials?)"
    r"[\"']?(?:\s*([:=])|(\s))"
)


def separators_of(low: str) -> set[str]:
    """Which of `=`, `:` and ` ` follow a secret word somewhere in `low`."""
    seen: set[str] = set()
    for match in _HINT.finditer(low):
        seen.add(match.group(1) or " ")
        if len(seen) == 3:
            break
    return seen


# -- rules that are not one regular expression -----------------------------------------------
# This runs on every captured transcript line, so each rule must cost time linear in the
# text. A pattern that starts with a repeated class (`[a-z0-9+.-]*://`) or scans a whole
# shell segment after a command word (`docker login ... -p X`) is retried from every start
# position and costs quadratic time on a long run that never completes a match (1 MB of
# `sk-sk-...` after one `://`, or thousands of `docker login` without `-p`). These two are
# anchored on their fixed part instead and scan each character a bounded number of times.


class _Finder(Protocol):
    def finditer(self, text: str) -> Iterator[re.Match[str]]: ...


_SCHEME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")


def _has_scheme(text: str, colon: int) -> bool:
    """Whether `text[:colon]` ends with a URL scheme: a letter at a word boundary, then
    letters, digits, `+`, `.` or `-` (what `\\b[a-z][a-z0-9+.-]*` before `://` matched)."""
    start = colon
    while start > 0 and text[start - 1] in _SCHEME_CHARACTERS:
        start -= 1
    for at in range(start, colon):
        before = text[at - 1] if at else " "
        if text[at].isalpha() and not (before.isalnum() or before == "_"):
            return True
    return False


class _URLPasswords:
    """`scheme://user:PASSWORD@host`, found from each `://` (the part after it cannot hold
    `/`, so no two scans overlap)."""

    _AFTER = Lazy(r"[^/\s:@\"'<>]*:(?P<bare>[^/\s@\"'<>]+)@")

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        at = text.find("://")
        while at >= 0:
            match = self._AFTER.match(text, at + 3) if _has_scheme(text, at) else None
            if match:
                yield match
            at = text.find("://", match.end() if match else at + 3)


_SEGMENT_END = Lazy(r"[\n|;&]")


class _AfterCommand:
    """An option's value after a command word in the same shell segment (up to a newline,
    `|`, `;` or `&`): `docker login -u bob -p VALUE`. When one command has no value after
    it, no later command in its segment has either, so the scan jumps to the segment's end."""

    def __init__(self, command: str, option: str) -> None:
        self._command = Lazy(command)
        self._option = Lazy(rf"[^\n|;&]*?{option}")

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        at = 0
        while command := self._command.search(text, at):
            match = self._option.match(text, command.end())
            if match:
                yield match
                at = match.end()
                continue
            end = _SEGMENT_END.search(text, command.end())
            if end is None:
                return
            at = end.end()


RULES: tuple[tuple[str, str, _Finder], ...] = (
    # gate (a lower-case substring the text must hold, or a TAIL_*), kind, pattern
    ("://", "URL password", _URLPasswords()),
    (
        "authorization",
        "Authorization header",
        Lazy(
            r"(?i)\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?"
            r"(?:(?:bearer|basic|token|digest|apikey|sso-key)\s+)?(?P<bare>[^\s\"',;]+)"
        ),
    ),
    ("bearer", "bearer token", Lazy(r"(?i)\bbearer\s+(?P<bare>[\w.~+/=-]{8,})")),
    (
        TAIL_COLON,
        "credential header",
        Lazy(
            r"(?i)(?<![\w-])(?:x-)?(?:[a-z]+-)*(?:api-?key|auth-token|access-token|private-token"
            r"|vault-token|session-token|subscription-key|goog-api-key)\s*:\s*"
            r"(?P<bare>[^\s\"',;]+)"
        ),
    ),
    (
        "cookie",
        "cookie",
        Lazy(
            r"(?i)\b(?:set-)?cookie\s*:\s*"
            # A cookie's name holds no `:` (RFC 6265 token), so `cookie:cookie:...` fails
            # at once instead of scanning to the end from each `cookie`.
            r"(?P<bare>[^\s=;:\"']+=[^\s;\"']+(?:;\s*[^\s=;:\"']+=[^\s;\"']*)*)"
        ),
    ),
    (
        TAIL_FLAG,
        "command-line secret",
        Lazy(rf"(?i)(?<![\w-])--?{_NAME}(?:\s+|=)(?!-){_VALUE}"),
    ),
    (
        "-u",
        "user:password",
        Lazy(r"(?<![\w-])(?:-u|--user)(?:\s+|=)([\"']?)(?P<user>[^\s:\"']+):(?P<bare>[^\s\"']+)\1"),
    ),
    (
        "-p",
        "MySQL password",
        _AfterCommand(r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b", r"\s-p(?P<bare>[^\s\"'-]\S*)"),
    ),
    (
        "sshpass",
        "sshpass password",
        Lazy(r"\bsshpass\s+(?:-[a-oq-zA-Z]\s+\S+\s+){0,8}+-p\s*(?P<bare>[^\s-]\S*)"),
    ),
    (
        "docker",
        "docker login password",
        _AfterCommand(r"\bdocker\s+login\b", r"\s-p\s+(?P<bare>[^\s-]\S*)"),
    ),
    (
        "redis-cli",
        "Redis password",
        _AfterCommand(r"\bredis-cli\b", r"\s-a\s+(?P<bare>[^\s-]\S*)"),
    ),
    (
        "ldap",
        "LDAP password",
        _AfterCommand(r"\bldap\w+\b", r"\s-w\s+(?P<bare>[^\s-]\S*)"),
    ),
    ("pass:", "OpenSSL password", Lazy(r"(?<![\w-])-pass(?:in|out)?\s+pass:(?P<bare>\S+)")),
    (
        "password",
        ".netrc password",
        Lazy(r"(?i)\blogin\s+\S+\s+password\s+(?P<bare>[^\s\"']+)"),
    ),
    (
        TAIL_EQ,
        "secret variable",
        Lazy(
            rf"(?<![\w$])(?:[A-Z0-9_]*{WORD.upper()}|(?:[A-Z0-9]+_)+(?:PASS|PWD|AUTH))"
            rf"=(?!\s){_VALUE}"
        ),
    ),
    (
        TAIL_COLON,
        "secret setting",
        Lazy(
            rf"(?im)^[ \t]*(?:export[ \t]+|set[ \t]+)?[\"']?{_NAME}[\"']?[ \t]*:[ \t]*"
            r"(?:\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'|(?P<bare>[^\s\"'#;,]+))"
            r"[ \t]*(?:[#;].*)?$"
        ),
    ),
    (
        # `name = value` lines: ini, TOML, .env, but also code (`self.key = key`), so a bare
        # identifier is taken for code.
        TAIL_EQ,
        "secret setting",
        Lazy(
            rf"(?im)^[ \t]*(?:export[ \t]+|set[ \t]+)?[\"']?{_NAME}[\"']?[ \t]*=[ \t]*"
            r"(?:\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'|(?P<code>[^\s\"'#;,]+))"
            r"[ \t]*(?:[#;].*)?$"
        ),
    ),
    (
        # `"auth"` alone as a quoted key: container registry configs keep user:password there.
        TAIL_ANY,
        "quoted secret",
        Lazy(
            rf"(?i)(?<![\w.-])[\"']?(?:{_NAME}|auth)[\"']?\s*[:=]\s*"
            r"(?:\"(?P<dq>[^\"\n]+)\"|'(?P<sq>[^'\n]+)')"
        ),
    ),
    (
        TAIL_EQ,
        "secret query parameter",
        Lazy(rf"(?i)[?&;]{_NAME}=(?P<bare>[^\s&\"'`;|<>#]+)"),
    ),
    (
        TAIL_EQ,
        "secret parameter",
        Lazy(rf"(?i)(?<![\w$.-]){_NAME}=(?P<code>[^\s&\"'`;|<>),#]+)"),
    ),
    (
        "sig",
        "signed URL",
        Lazy(
            r"(?i)[?&](?:sig|signature|x-amz-signature|x-amz-credential|x-goog-signature)"
            r"=(?P<bare>[^&\s\"'#]+)"
        ),
    ),
)
ANY_GATE = Lazy(
    "|".join(re.escape(gate) for gate, _, _ in RULES if not gate.startswith("\0"))
    + "|"
    + _HINT.pattern
)
