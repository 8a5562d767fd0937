"""tomledit's scanner: TOML text (already parsed, so known valid) split into statements,
each covering whole lines: blank, comment, key/value (with its value's span), table or
array-of-tables header."""

from __future__ import annotations

import re
from dataclasses import dataclass

Path = tuple[str, ...]  # a table's key path


@dataclass(frozen=True, slots=True)
class Stmt:
    """One statement of the text: blank, comment, kv, table or aot, covering whole lines."""

    kind: str
    start: int
    end: int
    key: Path = ()
    vstart: int = 0
    vend: int = 0

    @property
    def span(self) -> tuple[int, int]:
        """Offsets of the statement's lines, newline included."""
        return self.start, self.end


class ScanError(Exception):
    """The scanner found text it does not understand at an offset."""

    def __init__(self, pos: int, message: str) -> None:
        super().__init__(message)
        self.pos = pos


BARE = re.compile(r"[A-Za-z0-9_-]+")
WS = re.compile(r"[ \t]*")
WS_NL = re.compile(r"(?:[ \t\r\n]+|#[^\n]*)*")
EOL = re.compile(r"[ \t]*(?:#[^\n]*)?(?:\r?\n|\Z)")
BASIC = re.compile(r'"(?:[^"\\\n]|\\.)*"')
LITERAL = re.compile(r"'[^'\n]*'")
BLANK_LINE = re.compile(r"[ \t]*\r?\n")
BLANK_OR_COMMENT = re.compile(r"[ \t]*(#[^\n]*)?(?:\r?\n|\Z)")
SCALAR = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:[Zz]|[+-]\d{2}:\d{2})?"
    r"|[^\s#,\]\}]+"
)
ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", "e": "\x1b", '"': '"'}
ESCAPES["\\"] = "\\"


def match_end(pattern: re.Pattern[str], text: str, i: int) -> int:
    """Where the run of `pattern` at `i` ends (WS and WS_NL also match the empty string)."""
    found = pattern.match(text, i)
    return found.end() if found else i


class Scanner:
    """Split TOML text into statements; assumes text that already parsed."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.n = len(text)

    def ch(self, i: int) -> str:
        """The character at `i`, or "" past the end."""
        return self.text[i] if i < self.n else ""

    def ws(self, i: int) -> int:
        """Skip spaces and tabs."""
        return match_end(WS, self.text, i)

    def ws_nl(self, i: int) -> int:
        """Skip whitespace, newlines and comments (inside arrays and inline tables)."""
        return match_end(WS_NL, self.text, i)

    def eol(self, i: int) -> int:
        """Skip trailing whitespace and comment; the offset after the line's newline."""
        m = EOL.match(self.text, i)
        if not m:
            raise ScanError(self.ws(i), "expected the end of the line")
        return m.end()

    def basic_end(self, i: int) -> int:
        """The offset after the basic string starting at `i`."""
        m = BASIC.match(self.text, i)
        if not m:
            raise ScanError(i, "unterminated string")
        return m.end()

    def literal_end(self, i: int) -> int:
        """The offset after the literal string starting at `i`."""
        m = LITERAL.match(self.text, i)
        if not m:
            raise ScanError(i, "unterminated string")
        return m.end()

    def multiline_end(self, i: int, quote: str) -> int:
        """The offset after the multi-line string starting at `i`."""
        delim = quote * 3
        j = i + 3
        while j < self.n:
            if quote == '"' and self.text[j] == "\\":
                j += 2
            elif self.text.startswith(delim, j):
                k = j
                while self.ch(k) == quote:
                    k += 1
                return k
            else:
                j += 1
        raise ScanError(i, "unterminated multi-line string")

    def key(self, i: int) -> tuple[Path, int]:
        """Parse a (dotted) key at `i`; its parts and the offset after it."""
        parts: list[str] = []
        while True:
            i = self.ws(i)
            c = self.ch(i)
            if c == '"':
                j = self.basic_end(i)
                parts.append(unescape(self.text[i + 1 : j - 1]))
            elif c == "'":
                j = self.literal_end(i)
                parts.append(self.text[i + 1 : j - 1])
            else:
                m = BARE.match(self.text, i)
                if not m:
                    raise ScanError(i, "expected a key")
                j = m.end()
                parts.append(m.group())
            i = self.ws(j)
            if self.ch(i) != ".":
                return tuple(parts), i
            i += 1

    def value(self, i: int) -> int:
        """The offset after the value starting at `i`."""
        t, c = self.text, self.ch(i)
        if t.startswith('"""', i):
            return self.multiline_end(i, '"')
        if t.startswith("'''", i):
            return self.multiline_end(i, "'")
        if c == '"':
            return self.basic_end(i)
        if c == "'":
            return self.literal_end(i)
        if c in ("[", "{"):
            close = "]" if c == "[" else "}"
            i += 1
            while True:
                i = self.ws_nl(i)
                if self.ch(i) == close:
                    return i + 1
                if c == "{":
                    _, i = self.key(i)
                    if self.ch(i) != "=":
                        raise ScanError(i, "expected '='")
                    i = self.ws(i + 1)
                i = self.ws_nl(self.value(i))
                if self.ch(i) == ",":
                    i += 1
                elif self.ch(i) != close:
                    raise ScanError(i, f"expected ',' or '{close}'")
        m = SCALAR.match(t, i)
        if not m:
            raise ScanError(i, "expected a value")
        return m.end()

    def statements(self) -> list[Stmt]:
        """All statements of the text, in order."""
        out: list[Stmt] = []
        i = 1 if self.text.startswith("\ufeff") else 0
        while i < self.n:
            m = BLANK_OR_COMMENT.match(self.text, i)
            if m:
                out.append(Stmt("comment" if m.group(1) else "blank", i, m.end()))
                i = m.end()
                continue
            j = self.ws(i)
            c = self.ch(j)
            if c == "[":
                aot = self.text.startswith("[[", j)
                key, k = self.key(j + 1 + aot)
                close = "]]" if aot else "]"
                if not self.text.startswith(close, k):
                    raise ScanError(k, f"expected '{close}'")
                out.append(Stmt("aot" if aot else "table", i, self.eol(k + len(close)), key))
            else:
                key, k = self.key(j)
                if self.ch(k) != "=":
                    raise ScanError(k, "expected '='")
                vstart = self.ws(k + 1)
                vend = self.value(vstart)
                out.append(Stmt("kv", i, self.eol(vend), key, vstart, vend))
            i = out[-1].end
        return out


def unescape(raw: str) -> str:
    """Decode the escapes of a basic string's body."""
    out: list[str] = []
    i = 0
    while i < len(raw):
        c = raw[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = raw[i + 1]
        if e in ESCAPES:
            out.append(ESCAPES[e])
            i += 2
        elif e in "uUx":
            width = {"u": 4, "U": 8, "x": 2}[e]
            out.append(chr(int(raw[i + 2 : i + 2 + width], 16)))
            i += 2 + width
        else:
            raise ValueError(f"unknown escape \\{e}")
    return "".join(out)
