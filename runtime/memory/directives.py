"""Directive recall's matching: which lessons and procedures a tool call fires. Pure, stdlib.

A call is its concrete handles: the file paths of an edit/write/notebook tool, the command of
a shell tool, and after a failure the failing output's tail. Each directive trigger is read by
its kind:

- paths: a glob (`*`, `?`, `[...]`; `**/` also matches no folder) against every trailing part
  of each path in the call (file paths, and path-like words of the command); a literal path
  by itself, its basename or its extension-less stem, found in the call on alphanumeric
  boundaries (`app/models.py` fires for `/repo/app/models.py` and, by its stem, for
  `models_test.py`, not for `oldmodels.py`);
- commands: the trigger's words begin one of the simple commands the shell would run
  (`shellcmd.commands`: quoted text, heredoc bodies and `echo git push` are not runs);
- identifiers: found in the call's paths, command or output on alphanumeric boundaries;
- errors: found in the failing output on alphanumeric boundaries (case-folded).

The precision gate (what keeps recall quiet on an ordinary call): a matched text shorter than
four characters never fires, nor one on the stop list `GENERIC`, nor the user's account name or
the repository's own name or one of their parts of four characters or more (`blocked`). A glob
fires only if one of its literal words passes the same gate (`*.py` never fires on its own).

At most `MAX_DIRECTIVES` directives per call: longer matched text first, then the more often
seen, then by id; a directive already fired this session is never fired again.
"""

from __future__ import annotations

# typing.TYPE_CHECKING without importing typing (a hook imports this on its hot path)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

__all__ = [
    "DIRECTIVE_KINDS",
    "GENERIC",
    "MAX_DIRECTIVES",
    "Call",
    "Directive",
    "Hit",
    "blocked",
    "call_of",
    "haystack",
    "match",
    "select",
    "trigger_key",
]

MAX_DIRECTIVES = 2
DIRECTIVE_KINDS = ("lesson", "procedure")
MIN_TOKEN = 4
OUTPUT_TAIL = 1500  # the failing output's tail that is matched (the published plugin's)
MAX_HANDLE = 8192  # a pasted blob stays cheap: a path or command is cut here
PATH_KEYS = ("file_path", "notebook_path", "path", "filePath", "target_file")
COMMAND_KEYS = ("command", "cmd")
KINDS = ("paths", "commands", "identifiers", "errors")
# Words that name nothing in particular: a trigger (or the part of one) that is only this
# never fires. The published plugin's list (its directive_recall.py), kept as is.
GENERIC = frozenset((
    "true", "false", "none", "null", "self", "this", "that", "with", "from", "when", "into",
    "your", "code", "file", "path", "main", "test", "tests", "todo", "temp", "data", "origin",
    "staging", "master", "branch", "commit", "users", "home", "desktop", "documents",
    "downloads", "appdata", "roaming", "local", "share", "config", "projects", "workspace",
))  # fmt: skip
_WILD = "*?["


class Directive:
    """A lesson or procedure as recall needs it: id, kind, text, triggers, as-of and seen."""

    __slots__ = ("body", "id", "kind", "scope", "seen", "title", "triggers", "updated")

    def __init__(
        self,
        id: str,
        kind: str,
        title: str,
        body: str = "",
        triggers: Mapping[str, Sequence[str]] | None = None,
        updated: str = "",
        seen: int = 1,
        scope: str = "project",
    ) -> None:
        self.id, self.kind, self.title, self.body = id, kind, title, body
        self.triggers = {k: tuple((triggers or {}).get(k, ())) for k in KINDS}
        self.updated, self.seen, self.scope = updated, seen, scope

    def all_triggers(self) -> list[str]:
        """Every trigger, paths first."""
        return [t for kind in KINDS for t in self.triggers[kind]]

    def __repr__(self) -> str:
        return f"Directive({self.id!r})"


class Call:
    """A tool call's handles, lower-cased, backslashes as `/`: paths, command, failing output.

    `command` is a command line, or an argv list (Codex's shell tool: `["bash", "-lc", ...]`)
    that the shell reader takes as it is."""

    __slots__ = ("argv", "command", "output", "paths", "raw_command", "text")

    def __init__(
        self, paths: Sequence[str] = (), command: str | Sequence[str] = "", output: str = ""
    ) -> None:
        self.argv = None if isinstance(command, str) else tuple(str(w) for w in command)
        line = command if isinstance(command, str) else " ".join(self.argv or ())
        self.raw_command = line[:MAX_HANDLE]
        self.paths = tuple(_norm(p[:MAX_HANDLE]) for p in paths if p)
        self.command = _norm(self.raw_command)
        self.output = _norm(output[-OUTPUT_TAIL:]) if output else ""
        self.text = "\n".join((*self.paths, self.command, self.output))


class Hit:
    """A directive the call fired: the trigger, the text it matched on, the match's length."""

    __slots__ = ("directive", "length", "token", "trigger")

    def __init__(self, directive: Directive, trigger: str, token: str) -> None:
        self.directive, self.trigger, self.token = directive, trigger, token
        self.length = len(token)

    def __repr__(self) -> str:
        return f"Hit({self.directive.id!r}, {self.trigger!r})"


def _norm(text: str) -> str:
    return text.lower().replace("\\", "/")


def call_of(tool_input: Mapping[str, Any], output: str | None = None) -> Call:
    """The handles of a tool call's input (+ the failing output on the reactive path)."""
    paths = [v for k in PATH_KEYS if isinstance(v := tool_input.get(k), str)]
    command = tool_input.get("command", tool_input.get("cmd"))
    if not isinstance(command, str | list | tuple):
        command = ""
    return Call(paths, command, output or "")


def haystack(call: Call) -> str:
    """Everything matchable in a call, as one lower-cased text (what `trigger_key`s index)."""
    return call.text


def _parts(name: str) -> set[str]:
    """A name and its alphanumeric parts of MIN_TOKEN characters or more, lower-cased."""
    name = name.lower().strip()
    if not name:
        return set()
    return {name} | {part for part in _words(name) if len(part) >= MIN_TOKEN}


def _words(text: str) -> list[str]:
    """The alphanumeric runs of `text` (ASCII letters and digits, as the boundaries are)."""
    out, start = [], -1
    for i, ch in enumerate(text):
        if ch.isascii() and ch.isalnum():
            if start < 0:
                start = i
        elif start >= 0:
            out.append(text[start:i])
            start = -1
    if start >= 0:
        out.append(text[start:])
    return out


def blocked(account: str = "", repo: str = "", extra: Iterable[str] = ()) -> frozenset[str]:
    """The texts that never fire: GENERIC, the account name, the repo name and their parts."""
    return GENERIC | _parts(account) | _parts(repo) | {w.lower() for w in extra}


def _passes(token: str, stop: frozenset[str]) -> bool:
    return len(token) >= MIN_TOKEN and token not in stop


def _alnum(ch: str) -> bool:
    return ch.isascii() and ch.isalnum()


def _bounded(token: str, text: str) -> bool:
    """`token` occurs in `text` with no ASCII letter or digit right before or after it."""
    i = text.find(token)
    while i >= 0:
        end = i + len(token)
        if (i == 0 or not _alnum(text[i - 1])) and (end == len(text) or not _alnum(text[end])):
            return True
        i = text.find(token, i + 1)
    return False


def _path_tokens(trigger: str) -> list[str]:
    """A literal path trigger, its basename and its stem (longest first)."""
    base = trigger.rstrip("/").rpartition("/")[2]
    stem = base.rpartition(".")[0] if "." in base.lstrip(".") else ""
    return [t for t in dict.fromkeys((trigger, base, stem)) if t]


def _literal_runs(glob: str) -> list[str]:
    """The parts of a glob outside wildcards and `[...]` classes."""
    if "[" not in glob:  # the common case, without a loop per character
        return [run for run in glob.replace("?", "*").split("*") if run]
    runs, run, i = [], "", 0
    while i < len(glob):
        ch = glob[i]
        if ch == "[" and (close := glob.find("]", i + 2)) > 0:
            runs.append(run)
            run, i = "", close + 1
            continue
        if ch in "*?":
            runs.append(run)
            run = ""
        else:
            run += ch
        i += 1
    runs.append(run)
    return [r for r in runs if r]


def _glob_tails(call: Call) -> list[str]:
    """Every trailing part of every path in the call (file paths, path-like command words)."""
    paths = list(call.paths)
    if call.command:
        paths += [w.strip("'\"") for w in call.command.split() if "/" in w or "." in w]
    tails = []
    for path in paths:
        parts = path.split("/")
        tails += ["/".join(parts[i:]) for i in range(len(parts)) if parts[i]]
    return tails


def _glob_hit(glob: str, call: Call, stop: frozenset[str]) -> str | None:
    runs = _literal_runs(glob)
    gate = [w for run in runs for w in _words(run) if _passes(w, stop)]
    if not gate or not all(w in call.text for w in gate):
        return None  # cheap refusals first: fnmatch imports re
    import fnmatch

    globs = dict.fromkeys((glob, glob.replace("**/", "")))
    for tail in _glob_tails(call):
        if any(fnmatch.fnmatchcase(tail, g) for g in globs):
            return "".join(runs)
    return None


def _command_hit(trigger: str, call: Call) -> bool:
    want = trigger.split()
    if not want or not call.raw_command or want[0] not in call.command:
        return False
    from .. import shellcmd  # on use: read-only calls with no candidate never parse

    return any([w.lower() for w in argv[: len(want)]] == want for argv in _argvs(call, shellcmd))


def _argvs(call: Call, shellcmd: Any) -> list[list[str]]:
    return list(shellcmd.commands(call.argv if call.argv is not None else call.raw_command))


def trigger_hit(kind: str, trigger: str, call: Call, stop: frozenset[str]) -> str | None:
    """The text of `trigger` (of `kind`) that `call` matched, past the precision gate; or None."""
    t = _norm(trigger).strip()
    if kind == "paths":
        if any(ch in t for ch in _WILD):
            return _glob_hit(t, call, stop)
        hay = "\n".join((*call.paths, call.command))
        found = [tok for tok in _path_tokens(t) if _passes(tok, stop) and _bounded(tok, hay)]
        return found[0] if found else None
    if kind == "commands":
        t = " ".join(t.split())
        return t if _passes(t, stop) and _command_hit(t, call) else None
    hay = call.output if kind == "errors" else call.text
    return t if _passes(t, stop) and _bounded(t, hay) else None


def match(directive: Directive, call: Call, stop: frozenset[str]) -> Hit | None:
    """The directive's longest trigger match for the call (ties: first declared), or None."""
    best: Hit | None = None
    for kind in KINDS:
        for trigger in directive.triggers[kind]:
            token = trigger_hit(kind, trigger, call, stop)
            if token is not None and (best is None or len(token) > best.length):
                best = Hit(directive, trigger, token)
    return best


def select(
    directives: Iterable[Directive],
    call: Call,
    stop: frozenset[str],
    already_fired: Iterable[str] = (),
    limit: int = MAX_DIRECTIVES,
) -> list[Hit]:
    """The directives the call fires, at most `limit`, none of `already_fired`: longer match
    first, then higher seen count, then id."""
    fired = set(already_fired)
    hits = [
        hit for d in directives if d.id not in fired and (hit := match(d, call, stop)) is not None
    ]
    hits.sort(key=lambda h: (-h.length, -h.directive.seen, h.directive.id))
    return hits[: max(limit, 0)]


def trigger_key(kind: str, trigger: str) -> str:
    """A text every call `trigger` can fire for contains (lower-cased); '' when none is known.

    What the prefilter indexes: a directive none of whose keys is in `haystack(call)` cannot
    fire, so its record is never read."""
    t = _norm(trigger).strip()
    if kind == "paths":
        if any(ch in t for ch in _WILD):
            keep = set(_literal_runs(t.replace("**/", "")))
            runs = [run for run in _literal_runs(t) if run in keep]
            return max(runs, key=len, default="")
        return _path_tokens(t)[-1]
    if kind == "commands":  # its longest word: the shell may space or quote words its way
        return max(t.split(), key=len, default="")
    return t
