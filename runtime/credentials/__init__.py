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

The rules live beside this module: `shapes` (token formats), `positions` (credential
positions), `literals` (what is a reference or a placeholder, not a credential).

This runs on the hook hot path (redaction of captured transcripts): every rule is gated
by a cheap substring test, and token shapes are only tried on long word-like runs.
"""

# No `from __future__ import annotations` here: it makes `NamedTuple` turn each field's
# annotation string into a `ForwardRef`, compiling it, which cost more than the rest of
# this package's import together.
import re
from typing import NamedTuple

from .lazy import Lazy
from .literals import IDENTIFIER_CHAIN, PROSE_WORD, is_literal
from .positions import ANY_GATE, COMPOUND_WORD, RULES, TAIL_FLAG, WORD, separators_of
from .shapes import GATED_SHAPES, MEMHUB_KEY, PEM, RUN, SHAPE_START, SHAPES_BY_FIRST, WEBHOOK


class Finding(NamedTuple):
    """One credential value: `text[start:end]`, and what kind of credential it is."""

    start: int
    end: int
    kind: str


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
        if group == "code" and IDENTIFIER_CHAIN.match(value):
            return None
        return (start, match.end(group), value) if is_literal(value) else None
    return None


def _shapes(text: str, out: list[Finding]) -> None:
    for run in RUN.finditer(text):
        end, at = run.end(), run.start()
        while True:
            start = SHAPE_START.search(text, at, end)
            if start is None:
                break
            match = SHAPES_BY_FIRST[text[start.start()]].match(text, start.start(), end)
            if match is None:
                at = start.end()
                continue
            kind = (match.lastgroup or "").rsplit("_", 1)[0]
            out.append(Finding(match.start(), match.end(), f"{kind} token"))
            at = match.end()
    for gate, kind, pattern in GATED_SHAPES:
        if gate in text:
            for match in pattern.finditer(text):
                group = 1 if pattern.groups else 0
                out.append(Finding(match.start(group), match.end(group), f"{kind} token"))
    if "mhk_" in text or "xtk_" in text:
        out += [Finding(m.start(1), m.end(1), "MemHub key") for m in MEMHUB_KEY.finditer(text)]


def _contextual(text: str, low: str, out: list[Finding]) -> None:
    if not ANY_GATE.search(low):
        return  # most strings of a transcript: no rule could match, one scan says so
    separators: set[str] | None = None
    for gate, kind, pattern in RULES:
        if gate.startswith("\0"):
            if separators is None:
                separators = separators_of(low)
            if separators.isdisjoint(gate[1:]) or (gate == TAIL_FLAG and "-" not in low):
                continue
        elif gate not in low:
            continue
        for match in pattern.finditer(text):
            span = _value_span(match)
            if span is None:
                continue
            start, end, value = span
            if kind == "bearer token" and PROSE_WORD.match(value):
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
        found += [Finding(m.start(3), m.end(3), "private key") for m in PEM.finditer(text)]
    low = text.lower()
    if "hook" in low:
        found += [Finding(m.start(1), m.end(1), "webhook") for m in WEBHOOK.finditer(text)]
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


# -- keys that name a credential ------------------------------------------------------------
_SECRET_KEY = Lazy(
    rf"(?i)^_?(?:[A-Za-z0-9]+[_.-])*(?:{WORD}|(?<=[_.-]){COMPOUND_WORD}|(?:set-)?cookie)$"
)
_AUTH_KEY = Lazy(r"(?i)^(?:proxy-)?authorization$")
# any scheme word (`Bearer`, `ApiKey`, `SSWS`): the credential is what follows it
_AUTH_SCHEME = Lazy(r"^\s*[A-Za-z][A-Za-z0-9_-]*\s+(\S+)")


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
