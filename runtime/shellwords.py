"""The POSIX-shell lexer under `shellcmd`: one word with its quotes removed, an operator,
the ends of quotes and substitutions. Imports nothing, like `shellcmd`.
"""

from __future__ import annotations

META = " \t\n;&|()<>"


class Script:
    """One script's simple commands (argv lists) and the nested scripts it executes."""

    __slots__ = ("commands", "nested", "pending")

    def __init__(self) -> None:
        self.commands: list[list[str]] = []
        self.nested: list[str] = []
        # heredocs waiting for the end of the line: (delimiter, strip tabs, index of the
        # command they feed in `commands`)
        self.pending: list[tuple[str, bool, int]] = []


def matching(text: str, i: int, open_: str, close: str) -> int:
    """Index just past the `close` that matches the `open_` before `i` (quotes respected)."""
    depth = 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "'":
            end = text.find("'", i + 1)
            i = n if end < 0 else end + 1
            continue
        if c == '"':
            i = double_end(text, i + 1)
            continue
        if c == "`":
            end = backtick_end(text, i + 1)
            i = end
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def double_end(text: str, i: int) -> int:
    """Index just past the closing double quote of a string starting at `i`."""
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif c == "$" and text.startswith("$(", i):
            i = matching(text, i + 2, "(", ")")
        elif c == "`":
            i = backtick_end(text, i + 1)
        else:
            i += 1
    return n


def backtick_end(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
        elif c == "`":
            return i + 1
        else:
            i += 1
    return n


def unescape_backticks(body: str) -> str:
    out = []
    i = 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body) and body[i + 1] in "$`\\":
            out.append(body[i + 1])
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def ansi_c(text: str, i: int) -> tuple[str, int]:
    """The value of `$'...'` whose body starts at `i`, and the index past its quote."""
    out = []
    n = len(text)
    escapes = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "e": "\x1b"}
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            out.append(escapes.get(text[i + 1], "\\" + text[i + 1]))
            i += 2
        elif c == "'":
            return "".join(out), i + 1
        else:
            out.append(c)
            i += 1
    return "".join(out), n


def read_word(text: str, i: int, script: Script) -> tuple[str, bool, int]:
    """Read one word from `i`: its value after quote removal, whether it had quoting, and the
    index after it. Command substitutions met on the way are added to `script.nested`."""
    out: list[str] = []
    quoted = False
    n = len(text)
    while i < n:
        c = text[i]
        if c in META:
            break
        if c == "\\":
            if i + 1 < n and text[i + 1] == "\n":
                i += 2  # line continuation
                continue
            if i + 1 < n:
                out.append(text[i + 1])
            quoted = True
            i += 2
            continue
        if c == "'":
            end = text.find("'", i + 1)
            end = n if end < 0 else end
            out.append(text[i + 1 : end])
            quoted = True
            i = end + 1
            continue
        if c == '"':
            i = read_double(text, i + 1, out, script)
            quoted = True
            continue
        if c == "`":
            end = backtick_end(text, i + 1)
            script.nested.append(unescape_backticks(text[i + 1 : end - 1]))
            out.append(text[i:end])
            i = end
            continue
        if c == "$" and i + 1 < n:
            nxt = text[i + 1]
            if nxt == "'":
                value, i = ansi_c(text, i + 2)
                out.append(value)
                quoted = True
                continue
            if nxt == "(":
                if text.startswith("$((", i):
                    end = matching(text, i + 3, "(", ")")
                    end = matching(text, end, "(", ")") if end < n else end
                    out.append(text[i:end])
                    i = end
                    continue
                end = matching(text, i + 2, "(", ")")
                script.nested.append(text[i + 2 : end - 1])
                out.append(text[i:end])
                i = end
                continue
            if nxt == "{":
                end = matching(text, i + 2, "{", "}")
                out.append(text[i:end])
                i = end
                continue
        out.append(c)
        i += 1
    return "".join(out), quoted, i


def read_double(text: str, i: int, out: list[str], script: Script) -> int:
    """Read a double-quoted string's body from `i` into `out`; return the index past it."""
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            nxt = text[i + 1]
            if nxt == "\n":
                pass
            elif nxt in '$`"\\':
                out.append(nxt)
            else:
                out.append("\\" + nxt)
            i += 2
        elif c == '"':
            return i + 1
        elif c == "$" and text.startswith("$(", i) and not text.startswith("$((", i):
            end = matching(text, i + 2, "(", ")")
            script.nested.append(text[i + 2 : end - 1])
            out.append(text[i:end])
            i = end
        elif c == "`":
            end = backtick_end(text, i + 1)
            script.nested.append(unescape_backticks(text[i + 1 : end - 1]))
            out.append(text[i:end])
            i = end
        else:
            out.append(c)
            i += 1
    return n


def read_operator(text: str, i: int) -> str:
    for op in (";;&", "&>>", "<<-", "<<<", ";;", ";&", "&&", "||", "|&", ">>", "<<", "<&", ">&",
               "<>", ">|", "&>"):  # fmt: skip
        if text.startswith(op, i):
            return op
    return text[i]
