"""JSONC (JSON with comments and trailing commas) as jsonedit reads it: a blanked view.

OpenCode, Gemini CLI and VS Code-style hosts read their JSON config as JSONC. memhub edits
such a file without losing a comment by never parsing the comments at all: `blank(text)`
is the same text with every `//` and `/* */` comment and every trailing comma turned into
spaces (line breaks kept), so it has the same length, the same line and column of every
token, and is plain JSON. jsonedit scans and parses the view, then splices into the real
text: offsets are shared, so every byte outside the spliced spans (comments included)
stays as it was.

A text with nothing to blank comes back as the same object, so plain JSON pays one regex
search. An unclosed `/*` is left as it is: the JSON parser then names its line and column.
"""

from __future__ import annotations

import functools
import re

# Where a text may need blanking: a comment opener or a comma before a closing bracket.
_CANDIDATE = re.compile(r"/[/*]|,[ \t\r\n]*[}\]]")
# A block comment ends at its first `*/` however the regex backtracks (`.*?` would not).
_STRING = r'"[^"\\\r\n]*(?:\\.[^"\\\r\n]*)*"'
_STRINGS = re.compile(_STRING)
_COMMENT = r"//[^\r\n]*|/\*(?:[^*]|\*(?!/))*\*/"
# Tokens in document order: a string (kept: a `//` in a URL is not a comment), a comment, a
# trailing comma (a comma that only whitespace and comments part from `}` or `]`).
_TOKEN = re.compile(
    rf"{_STRING}|(?P<comment>{_COMMENT})"
    rf"|(?P<comma>,)(?=(?:[ \t\r\n]|{_COMMENT})*[}}\]])",
)
_NOT_NEWLINE = re.compile(r"[^\r\n]")


def _blank(match: re.Match[str]) -> str:
    if match.group("comment") is not None:
        return _NOT_NEWLINE.sub(" ", match.group())
    return " " if match.group("comma") is not None else match.group()


@functools.lru_cache(maxsize=8)  # install, doctor and import read one text many times
def blank(text: str) -> str:
    """text with comments and trailing commas as spaces: plain JSON at the same offsets."""
    if _CANDIDATE.search(text) is None or _CANDIDATE.search(_STRINGS.sub('""', text)) is None:
        return text  # the second look, outside strings, spares plain JSON the lexer below
    return _TOKEN.sub(_blank, text)


def has_comments(text: str) -> bool:
    """Whether text holds a comment or a trailing comma (is JSONC, not JSON)."""
    return blank(text) != text
