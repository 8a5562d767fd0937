"""The top-level shape of a shell command line: its simple commands in order, with the
operator on each side and their redirects. `shellcmd.commands()` says what runs; this says how
it is wired (a pipeline, a `||`, a background `&`, stdout sent elsewhere), which decides whether
a command's output is provably its own. Heredoc bodies are skipped, never read as commands.
"""

from __future__ import annotations

from ..shellwords import META, Script, read_operator, read_word

_SPACE = " \t"
_LIST_OPS = (";", "&&", "||", "|", "|&", "&", "\n")
_COMPOUND = ("(", ")", ";;", ";&", ";;&")
# words that make the line a compound command: its shape is not a flat list any more
_RESERVED = {"!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until",
             "for", "case", "esac", "select", "function", "[[", "]]", "(("}  # fmt: skip
_REDIRECTS = {"<", ">", ">>", "<<", "<<-", "<<<", "<&", ">&", "<>", ">|", "&>", "&>>"}


class Step:
    """One simple command of the top-level list: its words, the operators around it, and
    its redirects as (fd, operator, target)."""

    __slots__ = ("after", "argv", "before", "redirects")

    def __init__(self, before: str) -> None:
        self.argv: list[str] = []
        self.before = before  # "" at the start of the line
        self.after = ""  # "" at the end of the line
        self.redirects: list[tuple[str, str, str]] = []

    def stdout_redirected(self) -> bool:
        """Whether this command's stdout goes anywhere but the call's output."""
        for fd, op, target in self.redirects:
            if op in ("&>", "&>>"):
                return True
            if op in (">", ">>", ">|") and fd in ("", "1"):
                return True
            if op == ">&" and fd in ("", "1") and target != "1":
                return True
        return False


class Shape:
    """The steps of a flat command list; `compound` when the line is not one (subshells,
    groups, if/while/for/case, an unterminated quote), whose wiring this reader does not
    follow."""

    __slots__ = ("compound", "steps")

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.compound = False


def _skip_heredocs(text: str, i: int, pending: list[tuple[str, bool]]) -> int:
    """The index after the heredoc bodies that start at `i` (just after a newline)."""
    n = len(text)
    for delimiter, strip in pending:
        while i < n:
            end = text.find("\n", i)
            end = n if end < 0 else end
            line = text[i:end]
            i = end + 1
            if (line.lstrip("\t") if strip else line) == delimiter:
                break
    pending.clear()
    return min(i, n)


def _unterminated(raw: str) -> bool:
    """Whether a word that runs to the end of the line leaves a quote open (a shell would
    refuse the line; an odd nesting also answers True, the cautious side)."""
    quote = ""
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\" and quote != "'":
            i += 2
            continue
        if c in "'\"" and quote in ("", c):
            quote = "" if quote else c
        i += 1
    return bool(quote)


def shape(text: str) -> Shape:
    """The top-level shape of `text` (never raises; odd input gives a compound shape)."""
    result = Shape()
    script = Script()  # collects substitutions, which run inside a step, not beside it
    pending: list[tuple[str, bool]] = []
    step = Step("")
    redirect: tuple[str, str] | None = None
    fd = ""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in _SPACE:
            i += 1
            continue
        if c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c in META:
            op = read_operator(text, i)
            i += len(op)
            if op in _REDIRECTS:
                redirect, fd = (fd, op), ""
                continue
            if op in _COMPOUND:
                result.compound = True
                continue
            if op in _LIST_OPS:
                if step.argv or step.redirects:
                    step.after = op
                    result.steps.append(step)
                    step = Step(op)
                elif op not in ("\n", ";"):
                    step.before = op
                if op == "\n" and pending:
                    i = _skip_heredocs(text, i, pending)
            continue
        word, quoted, end = read_word(text, i, script)
        if quoted and end >= n and _unterminated(text[i:]):
            result.compound = True
        if not quoted and word.isdigit() and end < n and text[end] in "<>" and redirect is None:
            fd, i = word, end
            continue
        i = end
        if redirect is not None:
            if redirect[1] in ("<<", "<<-"):
                pending.append((word, redirect[1] == "<<-"))
            step.redirects.append((redirect[0], redirect[1], word))
            redirect = None
            continue
        if not step.argv and not quoted and word in _RESERVED:
            result.compound = True
        step.argv.append(word)
    if step.argv or step.redirects:
        result.steps.append(step)
    return result
