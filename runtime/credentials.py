"""The one detector of literal credentials. Stdlib only.

`find(text)` returns the spans of `text` that are credential values: well-known token
shapes (the formats secret scanners publish rules for) and values in credential positions
(`--token X`, `Authorization: Bearer X`, `scheme://user:X@host`, `PGPASSWORD=X`,
`password: X`, `?api_key=X`, ...). Four places ask it, so they agree on what a secret is:
the hub loader (refuse a literal in hub.yaml), apply (refuse writing one into a host file),
`memhub import` (move one to .env) and the runtime redactor (remove one before capture
sends text off the machine).

A value that is a reference (`${env:X}`, `$X`, `%X%`, `{{ x }}`) or a placeholder
(`<token>`, `YOUR_API_KEY`, `xxxx`, `null`) is not a credential: an honest hub full of
references must validate. Spans cover the secret only, so what remains still reads
(`--token <redacted>`, `https://bob:<redacted>@host`).

This runs on the hook hot path (redaction of captured transcripts): every rule is gated
by a cheap substring test, and token shapes are only tried on long word-like runs.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from typing import NamedTuple, Protocol


class Finding(NamedTuple):
    """One credential value: `text[start:end]`, and what kind of credential it is."""

    start: int
    end: int
    kind: str


# -- token shapes ----------------------------------------------------------------------------
# Each alternative is one named format; `lastgroup` names the one that matched. Formats
# learned from public secret-scanner rule sets; the expressions are our own.
_SHAPE_RULES: tuple[tuple[str, str], ...] = (
    ("anthropic", r"sk-ant-[a-z]{2,8}\d\d-[\w-]{20,}"),
    ("openai", r"sk-(?:proj-|svcacct-|admin-)?[\w-]{16,}"),
    ("github", r"gh[pousr]_[A-Za-z0-9]{20,}"),
    ("github_pat", r"github_pat_\w{20,}"),
    ("gitlab", r"gl(?:pat|dt|rt|ptt|cbt|soat|ffct|imt|agent|oas|ft)-[\w-]{16,}"),
    ("gitlab_runner", r"GR1348941[\w-]{20,}"),
    ("slack", r"xox[abposre]-[A-Za-z0-9-]{10,}|xoxe\.xox[bp]-[\w-]{10,}"),
    ("slack", r"xapp-\d-[\w-]{20,}"),
    ("aws", r"A(?:KIA|SIA|BIA|CCA|3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])"),
    ("google", r"AIza[\w-]{30,}"),
    ("google", r"GOCSPX-[\w-]{24,}"),
    ("google", r"ya29\.[\w-]{30,}"),
    ("stripe", r"sk_(?:live|test)_[A-Za-z0-9]{20,}"),
    ("stripe", r"rk_(?:live|test)_[A-Za-z0-9]{20,}"),
    ("stripe", r"whsec_[A-Za-z0-9+/=]{24,}"),
    ("npm", r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    ("pypi", r"pypi-AgE[A-Za-z0-9]{10,}[\w-]{30,}"),
    ("jwt", r"eyJ[\w-]{10,}\.[\w-]{10,}\.[\w-]{10,}"),
    ("sendgrid", r"SG\.[\w-]{16,}\.[\w-]{16,}"),
    ("twilio", r"SK[0-9a-fA-F]{32}(?![0-9a-fA-F])"),
    ("heroku", r"HRKU-[\w-]{30,}"),
    ("digitalocean", r"do[opr]_v1_[a-f0-9]{64}"),
    ("shopify", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    ("huggingface", r"hf_[A-Za-z0-9]{30,}"),
    ("huggingface", r"api_org_[A-Za-z0-9]{30,}"),
    ("databricks", r"dapi[a-f0-9]{32}(?:-\d)?"),
    ("atlassian", r"ATATT3[\w=-]{50,}|ATBB[A-Za-z0-9]{28,}"),
    ("doppler", r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}"),
    ("dynatrace", r"dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}"),
    ("linear", r"lin_(?:api|oauth)_[A-Za-z0-9]{40}"),
    ("notion", r"secret_[A-Za-z0-9]{43,}"),
    ("notion", r"ntn_[A-Za-z0-9]{43,}"),
    ("postman", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    ("pulumi", r"pul-[a-f0-9]{40}"),
    ("grafana", r"glc_[A-Za-z0-9+/]{32,}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"),
    ("sentry", r"sntry[su]_[\w+/=-]{40,}"),
    ("vault", r"hv[sb]\.[\w-]{24,}"),
    ("newrelic", r"NRAK-[A-Z0-9]{27}"),
    ("age", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    ("square", r"sq0(?:atp|csp)-[\w-]{22,}"),
    ("square", r"EAAA[\w-]{60,}"),
    ("shippo", r"shippo_(?:live|test)_[a-f0-9]{40}"),
    ("flutterwave", r"FLWSECK(?:_TEST)?-[a-f0-9]{32}-X"),
    ("planetscale", r"pscale_(?:tkn|pw|oauth)_[\w.=-]{32,}"),
    ("supabase", r"sbp_[a-f0-9]{40}"),
    ("airtable", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
    ("groq", r"gsk_[A-Za-z0-9]{40,}"),
    ("xai", r"xai-[A-Za-z0-9]{60,}"),
    ("replicate", r"r8_[A-Za-z0-9]{30,}"),
    ("perplexity", r"pplx-[A-Za-z0-9]{40,}"),
    ("mapbox", r"sk\.eyJ[\w.-]{20,}"),
    ("buildkite", r"bkua_[a-f0-9]{40}"),
    ("docker", r"dckr_pat_[\w-]{20,}"),
    ("sourcegraph", r"sgp_\w{30,}"),
    ("prefect", r"pnu_[A-Za-z0-9]{36}"),
    ("readme", r"rdme_[a-z0-9]{70}"),
    ("rubygems", r"rubygems_[a-f0-9]{48}"),
    ("clojars", r"CLOJARS_[a-z0-9]{60}"),
    ("duffel", r"duffel_(?:test|live)_[\w=-]{43}"),
    ("easypost", r"EZAK[a-z0-9]{54}"),
    ("typeform", r"tfp_[\w-]{40,}"),
    ("mailgun", r"key-[0-9a-f]{32}(?![0-9a-f])"),
    ("circleci", r"CCIPAT_\w{40,}"),
    ("flyio", r"fo1_[\w-]{40,}"),
    ("new_relic_insert", r"NRII-[\w-]{32}"),
)
# Token shapes are tried only on runs of token characters at least this long (the shortest
# shape above, `xoxb-` and ten characters, is 15), so prose costs one cheap scan; and in a
# run only where a shape can start: after a boundary, at a character that starts one of
# them, with only the shapes that start with it (one big alternation tried at every
# position of a long base64 blob cost five times more).
_RUN = re.compile(r"(?<![\w.+/=~-])[\w.+/=~-]{15,}")


def _by_first_character() -> dict[str, re.Pattern[str]]:
    grouped: dict[str, list[tuple[str, str]]] = {}
    for name, rx in _SHAPE_RULES:
        grouped.setdefault(rx[0], []).append((name, rx))
    return {
        first: re.compile("|".join(f"(?P<{name}_{i}>{rx})" for i, (name, rx) in enumerate(rules)))
        for first, rules in grouped.items()
    }


_SHAPES_BY_FIRST = _by_first_character()
assert all(first.isalnum() for first in _SHAPES_BY_FIRST), "a shape must start with a letter"
_SHAPE_START = re.compile(r"(?<![A-Za-z0-9])[" + re.escape("".join(_SHAPES_BY_FIRST)) + "]")
# Shapes that start with a class, not a letter: each behind a substring it must hold.
_GATED_SHAPES: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    (".atlasv1.", "terraform", re.compile(r"(?<![A-Za-z0-9])[a-z0-9]{14}\.atlasv1\.[\w-]{60,}")),
    (":AA", "telegram", re.compile(r"(?<![A-Za-z0-9])\d{8,10}:(AA[\w-]{33})")),
    ("-us", "mailchimp", re.compile(r"(?<![A-Za-z0-9])[0-9a-f]{32}-us\d{1,2}(?!\d)")),
    ("Q~", "azure_ad", re.compile(r"(?<![\w~.])[\w~.]{3}\dQ~[\w~.-]{31,34}")),
)
# Shapes whose prefix is kept (it tells the reader what was there) or that hold `:`.
_MEMHUB_KEY = re.compile(r"(?<![A-Za-z0-9])(?:mhk|xtk)_([\w-]{8,})")
_WEBHOOK = re.compile(
    r"(?i)(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
    r"|discord(?:app)?\.com/api/webhooks/\d+/|\.webhook\.office\.com/webhookb2/)"
    r"([\w@/+-]{16,})"
)
_PEM = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----"
    r"(.*?(?:-----END \1PRIVATE KEY\2-----|\Z))",
    re.S,
)

# -- values in credential positions ----------------------------------------------------------
# A value: quoted (either quote, the span is inside the quotes) or one bare word.
_VALUE = r"(?:\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'|(?P<bare>[^\s\"'`;|&<>)]+))"
# Words that make a flag, variable or key name a secret's name. A name must END with one,
# so `--password-stdin`, `--token-file`, `MAX_TOKENS` or `TOKEN_LIMIT` are left alone.
_WORD = (
    r"(?:token|passw(?:or)?d|passphrase|secret|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|account[_-]?key|secret[_-]?key|auth[_-]?token|authtoken|credentials?)"
)
# `pass`, `pwd` and `auth` only as the last part of a compound: `db-pass`, `MYSQL_PWD`,
# `basic_auth`; alone they are `--pass` (a mode), `PWD` (the working folder), `--auth`.
_COMPOUND_WORD = r"(?:pass|pwd|auth)"
_NAME = rf"_?(?:(?:[A-Za-z0-9]+[_.-])*{_WORD}|(?:[A-Za-z0-9]+[_.-])+{_COMPOUND_WORD})"

# Gates of the rules that need a secret's name: most text that mentions a token never
# assigns one. One scan of the lower-cased text finds each secret word followed by `=`, `:`
# or a space (a flag's value), and each rule runs only when its separator was seen.
TAIL_EQ, TAIL_COLON, TAIL_ANY, TAIL_FLAG = "\0=", "\0:", "\0:=", "\0 ="
_HINT = re.compile(
    r"(?:token|passw(?:or)?d|passphrase|pass|pwd|secret|key|auth|credentials?)"
    r"[\"']?(?:\s*([:=])|(\s))"
)


def _separators(low: str) -> set[str]:
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


_SCHEME_CHARACTERS = frozenset(string.ascii_letters + string.digits + "+.-")


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

    _AFTER = re.compile(r"[^/\s:@\"'<>]*:(?P<bare>[^/\s@\"'<>]+)@")

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        at = text.find("://")
        while at >= 0:
            match = self._AFTER.match(text, at + 3) if _has_scheme(text, at) else None
            if match:
                yield match
            at = text.find("://", match.end() if match else at + 3)


_SEGMENT_END = re.compile(r"[\n|;&]")


class _AfterCommand:
    """An option's value after a command word in the same shell segment (up to a newline,
    `|`, `;` or `&`): `docker login -u bob -p VALUE`. When one command has no value after
    it, no later command in its segment has either, so the scan jumps to the segment's end."""

    def __init__(self, command: str, option: str) -> None:
        self._command = re.compile(command)
        self._option = re.compile(rf"[^\n|;&]*?{option}")

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


_RULES: tuple[tuple[str, str, _Finder], ...] = (
    # gate (a lower-case substring the text must hold, or a TAIL_*), kind, pattern
    ("://", "URL password", _URLPasswords()),
    (
        "authorization",
        "Authorization header",
        re.compile(
            r"(?i)\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?"
            r"(?:(?:bearer|basic|token|digest|apikey|sso-key)\s+)?(?P<bare>[^\s\"',;]+)"
        ),
    ),
    ("bearer", "bearer token", re.compile(r"(?i)\bbearer\s+(?P<bare>[\w.~+/=-]{8,})")),
    (
        TAIL_COLON,
        "credential header",
        re.compile(
            r"(?i)(?<![\w-])(?:x-)?(?:[a-z]+-)*(?:api-?key|auth-token|access-token|private-token"
            r"|vault-token|session-token|subscription-key|goog-api-key)\s*:\s*"
            r"(?P<bare>[^\s\"',;]+)"
        ),
    ),
    (
        "cookie",
        "cookie",
        re.compile(
            r"(?i)\b(?:set-)?cookie\s*:\s*"
            # A cookie's name holds no `:` (RFC 6265 token), so `cookie:cookie:...` fails
            # at once instead of scanning to the end from each `cookie`.
            r"(?P<bare>[^\s=;:\"']+=[^\s;\"']+(?:;\s*[^\s=;:\"']+=[^\s;\"']*)*)"
        ),
    ),
    (
        TAIL_FLAG,
        "command-line secret",
        re.compile(rf"(?i)(?<![\w-])--?{_NAME}(?:\s+|=)(?!-){_VALUE}"),
    ),
    (
        "-u",
        "user:password",
        re.compile(
            r"(?<![\w-])(?:-u|--user)(?:\s+|=)([\"']?)(?P<user>[^\s:\"']+):(?P<bare>[^\s\"']+)\1"
        ),
    ),
    (
        "-p",
        "MySQL password",
        _AfterCommand(r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b", r"\s-p(?P<bare>[^\s\"'-]\S*)"),
    ),
    (
        "sshpass",
        "sshpass password",
        re.compile(r"\bsshpass\s+(?:-[a-oq-zA-Z]\s+\S+\s+){0,8}+-p\s*(?P<bare>[^\s-]\S*)"),
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
    ("pass:", "OpenSSL password", re.compile(r"(?<![\w-])-pass(?:in|out)?\s+pass:(?P<bare>\S+)")),
    (
        "password",
        ".netrc password",
        re.compile(r"(?i)\blogin\s+\S+\s+password\s+(?P<bare>[^\s\"']+)"),
    ),
    (
        TAIL_EQ,
        "secret variable",
        re.compile(
            rf"(?<![\w$])(?:[A-Z0-9_]*{_WORD.upper()}|(?:[A-Z0-9]+_)+(?:PASS|PWD|AUTH))"
            rf"=(?!\s){_VALUE}"
        ),
    ),
    (
        TAIL_COLON,
        "secret setting",
        re.compile(
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
        re.compile(
            rf"(?im)^[ \t]*(?:export[ \t]+|set[ \t]+)?[\"']?{_NAME}[\"']?[ \t]*=[ \t]*"
            r"(?:\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'|(?P<code>[^\s\"'#;,]+))"
            r"[ \t]*(?:[#;].*)?$"
        ),
    ),
    (
        # `"auth"` alone as a quoted key: container registry configs keep user:password there.
        TAIL_ANY,
        "quoted secret",
        re.compile(
            rf"(?i)(?<![\w.-])[\"']?(?:{_NAME}|auth)[\"']?\s*[:=]\s*"
            r"(?:\"(?P<dq>[^\"\n]+)\"|'(?P<sq>[^'\n]+)')"
        ),
    ),
    (
        TAIL_EQ,
        "secret query parameter",
        re.compile(rf"(?i)[?&;]{_NAME}=(?P<bare>[^\s&\"'`;|<>#]+)"),
    ),
    (
        TAIL_EQ,
        "secret parameter",
        re.compile(rf"(?i)(?<![\w$.-]){_NAME}=(?P<code>[^\s&\"'`;|<>),#]+)"),
    ),
    (
        "sig",
        "signed URL",
        re.compile(
            r"(?i)[?&](?:sig|signature|x-amz-signature|x-amz-credential|x-goog-signature)"
            r"=(?P<bare>[^&\s\"'#]+)"
        ),
    ),
)
_ANY_GATE = re.compile(
    "|".join(re.escape(gate) for gate, _, _ in _RULES if not gate.startswith("\0"))
    + "|"
    + _HINT.pattern
)

# -- what is not a credential ----------------------------------------------------------------
_REFERENCE = re.compile(
    # `%{env:X}` is memhub's launcher template: a name the launcher resolves at start.
    # Only patterns that cannot be retried from many starts; the paired ones are below.
    r"\$\(|\$[A-Za-z_]|%[A-Za-z_][A-Za-z0-9_]*%"
)
_WHOLE_REFERENCE = re.compile(r"\{[^{}]*\}|<[^<>]*>")


def _pair_follows(value: str, opening: str, closing: str) -> bool:
    """Whether `closing` follows the first `opening` in `value`: what `${[^}]*}` (or
    `{{.*}}` on one line) finds, in one pass instead of one scan per `${` of
    `${${${...` (a value made of thousands of openings took quadratic time)."""
    at = value.find(opening)
    return at >= 0 and value.find(closing, at + len(opening)) >= 0


def _is_reference(value: str) -> bool:
    """`${env:X}`, `%{env:X}`, `$X`, `$(cmd)`, `%X%`, `{{ x }}`, or a whole `{x}` / `<x>`."""
    return bool(
        _pair_follows(value, "${", "}")
        or _pair_follows(value, "%{", "}")
        or ("{{" in value and any(_pair_follows(line, "{{", "}}") for line in value.split("\n")))
        or _REFERENCE.search(value)
        or _WHOLE_REFERENCE.fullmatch(value)
    )


_PLACEHOLDER = re.compile(
    r"(?i)^(?:(?:your|my|insert|enter|replace|put|add)[\w.-]*|x{3,}|[*.#_-]+|none|null|nil"
    r"|true|false|yes|no|on|off|0|1|changeme|change[-_]me|placeholder|redacted|required"
    r"|optional|disabled|enabled|env|stdin|prompt|oauth2?|basic|bearer|token|secret"
    r"|example|sample|dummy|undefined)$"
)
_PATHLIKE = re.compile(r"^(?:~?/|\.\.?/|[A-Za-z]:[\\/])")
# Code, not a value: `token=token`, `password=args.password`, `key=self.key`.
_IDENTIFIER_CHAIN = re.compile(r"^[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z_]*)*$")
_PROSE_WORD = re.compile(r"^[a-z]+$")


def is_literal(value: str) -> bool:
    """Whether `value`, found in a credential position, is a literal (not a reference,
    a placeholder or a path)."""
    value = value.strip()
    return bool(
        value
        and not _is_reference(value)
        and not _PLACEHOLDER.match(value)
        and not _PATHLIKE.match(value)
        and "<redacted>" not in value
    )


def _value_span(match: re.Match[str]) -> tuple[int, int, str] | None:
    """The secret value's span in a contextual match, and its text; None when it is not
    a literal."""
    for group in ("dq", "sq", "bare", "code"):
        try:
            start = match.start(group)
        except IndexError:
            continue
        if start < 0:
            continue
        value = match.group(group)
        if group == "code" and _IDENTIFIER_CHAIN.match(value):
            return None
        return (start, match.end(group), value) if is_literal(value) else None
    return None


def _shapes(text: str, out: list[Finding]) -> None:
    for run in _RUN.finditer(text):
        end, at = run.end(), run.start()
        while True:
            start = _SHAPE_START.search(text, at, end)
            if start is None:
                break
            match = _SHAPES_BY_FIRST[text[start.start()]].match(text, start.start(), end)
            if match is None:
                at = start.end()
                continue
            kind = (match.lastgroup or "").rsplit("_", 1)[0]
            out.append(Finding(match.start(), match.end(), f"{kind} token"))
            at = match.end()
    for gate, kind, pattern in _GATED_SHAPES:
        if gate in text:
            for match in pattern.finditer(text):
                group = 1 if pattern.groups else 0
                out.append(Finding(match.start(group), match.end(group), f"{kind} token"))
    if "mhk_" in text or "xtk_" in text:
        out += [Finding(m.start(1), m.end(1), "MemHub key") for m in _MEMHUB_KEY.finditer(text)]


def _contextual(text: str, low: str, out: list[Finding]) -> None:
    if not _ANY_GATE.search(low):
        return  # most strings of a transcript: no rule could match, one scan says so
    separators: set[str] | None = None
    for gate, kind, pattern in _RULES:
        if gate.startswith("\0"):
            if separators is None:
                separators = _separators(low)
            if separators.isdisjoint(gate[1:]) or (gate == TAIL_FLAG and "-" not in low):
                continue
        elif gate not in low:
            continue
        for match in pattern.finditer(text):
            span = _value_span(match)
            if span is None:
                continue
            start, end, value = span
            if kind == "bearer token" and _PROSE_WORD.match(value):
                continue  # "bearer authentication" is prose
            if kind == "user:password" and match.group("user").isdigit() and value.isdigit():
                continue  # `docker run -u 1000:1000` is a uid:gid
            out.append(Finding(start, end, kind))


def find(text: str) -> list[Finding]:
    """Every credential value in `text`: sorted, overlaps merged (the first kind kept)."""
    if len(text) < 7:
        return []  # the shortest credential any rule finds, `token=x`, is 7 characters
    found: list[Finding] = []
    if "PRIVATE KEY" in text:
        found += [Finding(m.start(3), m.end(3), "private key") for m in _PEM.finditer(text)]
    low = text.lower()
    if "hook" in low:
        found += [Finding(m.start(1), m.end(1), "webhook") for m in _WEBHOOK.finditer(text)]
    _shapes(text, found)
    _contextual(text, low, found)
    return _merge(found)


def _merge(found: list[Finding]) -> list[Finding]:
    if len(found) < 2:
        return found
    found.sort(key=lambda f: (f.start, -f.end))
    merged = [found[0]]
    for item in found[1:]:
        last = merged[-1]
        if item.start < last.end:
            if item.end > last.end:
                merged[-1] = Finding(last.start, item.end, last.kind)
            continue
        merged.append(item)
    return merged


def describe(finding: Finding) -> str:
    """What a finding is, for a message (never its value): `a credential token (github)`."""
    if finding.kind.endswith(" token") and finding.kind != "bearer token":
        return f"a credential token ({finding.kind[: -len(' token')]})"
    return f"a literal credential ({finding.kind})"


def replace(text: str, found: list[Finding], mark: str) -> str:
    """`text` with each finding's span replaced by `mark`."""
    if not found:
        return text
    parts, at = [], 0
    for item in found:
        parts += [text[at : item.start], mark]
        at = item.end
    parts.append(text[at:])
    return "".join(parts)


# -- keys that name a secret -----------------------------------------------------------------
_SECRET_KEY = re.compile(
    rf"(?i)^_?(?:[A-Za-z0-9]+[_.-])*(?:{_WORD}|(?<=[_.-]){_COMPOUND_WORD}|(?:set-)?cookie)$"
)
_AUTH_KEY = re.compile(r"(?i)^(?:proxy-)?authorization$")
_AUTH_SCHEME = re.compile(r"(?i)^\s*(?:bearer|basic|token|digest)\s+(\S+)")


def names_secret(key: str) -> bool:
    """Whether an env variable, header or setting named `key` holds a secret
    (`GITHUB_TOKEN`, `X-Api-Key`, `client_secret`; not `MAX_TOKENS`, `TOKEN_FILE`)."""
    return bool(_SECRET_KEY.match(key) or _AUTH_KEY.match(key))


def literal_for_key(key: str, value: str) -> str | None:
    """Why `value`, the value of env variable / header / setting `key`, is a literal
    credential; None when it is not."""
    found = find(value)
    if found:
        return f"it contains {describe(found[0])}"
    if _AUTH_KEY.match(key):
        scheme = _AUTH_SCHEME.match(value)
        secret = scheme.group(1) if scheme else value
        return "it holds a literal credential after the auth scheme" if is_literal(secret) else None
    if names_secret(key) and is_literal(value):
        return f"{key!r} names a secret but its value is a literal"
    return None


def names_a_variable(parent: str, value: str) -> bool:
    """`env_http_headers: {X-Api-Key: API_KEY}`: in a mapping whose key is about the
    environment (but is not `env` itself, which holds values), an upper-case name is the
    variable that holds the secret, not the secret."""
    lowered = parent.lower()
    return (
        "env" in lowered
        and lowered != "env"
        and value.isupper()
        and value.replace("_", "").isalnum()
    )
