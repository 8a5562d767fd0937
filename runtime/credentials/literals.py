"""What is not a credential (references, placeholders) and which keys name one."""

from __future__ import annotations

from .lazy import Lazy

_REFERENCE = Lazy(
    # `%{env:X}` is memhub's launcher template: a name the launcher resolves at start.
    # Only patterns that cannot be retried from many starts; the paired ones are below.
    r"\$\(|\$[A-Za-z_]|%[A-Za-z_][A-Za-z0-9_]*%"
)
_WHOLE_REFERENCE = Lazy(r"\{[^{}]*\}|<[^<>]*>")


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


_PLACEHOLDER = Lazy(
    r"(?i)^(?:(?:your|my|insert|enter|replace|put|add)[\w.-]*|x{3,}|[*.#_-]+|none|null|nil"
    r"|true|false|yes|no|on|off|0|1|changeme|change[-_]me|placeholder|redacted|required"
    r"|optional|disabled|enabled|env|stdin|prompt|oauth2?|basic|bearer|token|secret"
    r"|example|sample|dummy|undefined)$"
)
_PATHLIKE = Lazy(r"^(?:~?/|\.\.?/|[A-Za-z]:[\\/])")
# Code, not a value: `token=token`, `password=args.password`, `key=self.key`.
IDENTIFIER_CHAIN = Lazy(r"^[A-Za-z_][A-Za-z_]*(?:\.[A-Za-z_][A-Za-z_]*)*$")
PROSE_WORD = Lazy(r"^[a-z]+$")


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
