"""Which commands a shell command line really runs: a small POSIX-shell reader, stdlib only.

`milestones(command)` answers the capture question "did this tool call run `git commit`,
`gh pr create` or `gh pr merge`?". A mention is not a run: quoted text, heredoc bodies fed to
anything but a shell, comments, `echo git commit` and `command -v git` do not count. What
does count is what the shell would execute: every command of a `;` / `&&` / `||` / `|` / `&`
chain and of `( )` / `{ }` groups, command substitutions (`$(...)`, backticks, `<(...)`, also
inside double quotes), the script of `bash -lc "..."` / `sh -c '...'` / `eval ...`, a heredoc
fed to a shell (`bash <<EOF`), after environment assignments and wrappers (`sudo`, `env`,
`command`, `exec`, `nohup`, `time`, `nice`, `timeout`, `stdbuf`, `doas`) are skipped.

It never executes or expands anything: variables stay as written, so `$GIT commit` is not a
git commit. Imports nothing, so the hook's hot path can afford it.
"""

from __future__ import annotations

from .shellwords import META, Script, matching, read_operator, read_word

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hot path)
if TYPE_CHECKING:
    from collections.abc import Set as AbstractSet

MAX_DEPTH = 8  # nested shells / substitutions followed before giving up (fails closed: no run)
_SPACE = " \t"
_SEPARATORS = (";", "&&", "||", "|", "|&", "&", "\n", "(", ")", ";;", ";&", ";;&")
# words that start a compound command or negate one; the next word is the command
_RESERVED = {"!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done", "while", "until"}
# compound commands whose words are not a command (for x in ...; case x in ...)
_NOT_COMMANDS = {"for", "case", "select", "function", "in", "esac", "[[", "]]", "(("}
SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox"}
_REDIRECTS = {"<", ">", ">>", "<<", "<<-", "<<<", "<&", ">&", "<>", ">|", "&>", "&>>"}
_WRITES = {">", ">>", ">&", "<>", ">|", "&>", "&>>"}  # redirects that open their target for writing


def _heredoc_bodies(text: str, i: int, script: Script) -> int:
    """Skip the bodies of the pending heredocs that start at `i` (just after a newline); a body
    fed to a shell is a script of its own. Returns the index after the last body."""
    n = len(text)
    for delimiter, strip, index in script.pending:
        lines: list[str] = []
        while i < n:
            end = text.find("\n", i)
            end = n if end < 0 else end
            line = text[i:end]
            i = end + 1
            if (line.lstrip("\t") if strip else line) == delimiter:
                break
            lines.append(line)
        if index < len(script.commands) and _feeds_shell(script.commands[index]):
            script.nested.append("\n".join(lines))
    script.pending.clear()
    return min(i, n)


def _feeds_shell(argv: list[str]) -> bool:
    """Whether stdin of this command is run as a script (`bash`, `sh -s`, not `bash -c ...`)."""
    words = _unwrap(argv)
    if not words or _base(words[0]) not in SHELLS:
        return False
    for word in words[1:]:
        if word.startswith("-") and not word.startswith("--") and "c" in word[1:]:
            return False
        if not word.startswith("-"):
            return False  # `bash script.sh`: the script comes from the file
    return True


def _parse(text: str, depth: int, writes: list[str] | None = None) -> list[list[str]]:
    """Every simple command `text` runs (words after quote removal), nested ones included;
    the targets of its output redirects (`> f`, `>> f`, `&> f`) are added to `writes`."""
    if depth > MAX_DEPTH:
        return []
    script = Script()
    current: list[str] = []
    i = 0
    n = len(text)
    redirect: str | None = None

    def finish() -> None:
        if current:
            script.commands.append(list(current))
            current.clear()

    while i < n:
        c = text[i]
        if c in _SPACE:
            i += 1
            continue
        if c == "#":  # at the start of a word: a comment to the end of the line
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c in "<>" and i + 1 < n and text[i + 1] == "(":  # process substitution
            end = matching(text, i + 2, "(", ")")
            script.nested.append(text[i + 2 : end - 1])
            redirect = None
            i = end
            continue
        if c in META:
            op = read_operator(text, i)
            i += len(op)
            if op in _REDIRECTS:
                redirect = op
                continue
            redirect = None
            if op in _SEPARATORS:
                finish()
                if op == "\n" and script.pending:
                    i = _heredoc_bodies(text, i, script)
            continue
        word, quoted, end = read_word(text, i, script)
        if not quoted and word.isdigit() and end < n and text[end] in "<>" and redirect is None:
            i = end  # an fd number: `2>file`
            continue
        i = end
        if redirect is not None:
            if (
                writes is not None
                and redirect in _WRITES
                and not (redirect == ">&" and (word.isdigit() or word == "-"))
            ):
                writes.append(word)
            if redirect in ("<<", "<<-"):
                script.pending.append((word, redirect == "<<-", len(script.commands)))
            redirect = None
            continue
        if not current and not quoted and word in _RESERVED:
            continue
        current.append(word)
    finish()
    if script.pending:  # heredoc on the last line with no body: nothing to skip
        script.pending.clear()
    found: list[list[str]] = []
    for argv in script.commands:
        found.extend(_expand(argv, depth, writes))
    for nested in script.nested:
        found.extend(_parse(nested, depth + 1, writes))
    return found


def _base(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return (
        bool(eq)
        and bool(name)
        and (name[0].isalpha() or name[0] == "_")
        and all(ch.isalnum() or ch == "_" for ch in name)
    )


def _skip_options(argv: list[str], i: int, with_value: AbstractSet[str]) -> int:
    """Index of the first operand after the options at `i` (options in `with_value` take
    the next word; `--` ends options)."""
    while i < len(argv):
        word = argv[i]
        if word == "--":
            return i + 1
        if not word.startswith("-") or word == "-":
            return i
        if word in with_value:
            i += 2
            continue
        i += 1
    return i


def _unwrap(argv: list[str]) -> list[str]:
    """The command `argv` really starts, after assignments and wrapper commands; [] when it
    only looks a command up (`command -v git`) or is not a command at all."""
    i = 0
    while i < len(argv):
        word = argv[i]
        if _is_assignment(word):
            i += 1
            continue
        name = _base(word)
        if name in _NOT_COMMANDS:
            return []
        if name in ("sudo", "doas"):
            i = _skip_options(
                argv, i + 1, {"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R"}
            )
            continue
        if name == "command":
            j = i + 1
            while j < len(argv) and argv[j].startswith("-"):
                if "v" in argv[j] or "V" in argv[j]:
                    return []
                j += 1
            i = j
            continue
        if name in ("exec", "nohup", "builtin", "noglob", "nocorrect"):
            i = _skip_options(argv, i + 1, {"-a"})
            continue
        if name == "env":
            j = i + 1
            while j < len(argv):
                opt = argv[j]
                if opt in ("-u", "--unset", "-C", "--chdir"):
                    j += 2
                elif opt in ("-S", "--split-string") and j + 1 < len(argv):
                    return _unwrap(_split(argv[j + 1]) + argv[j + 2 :])
                elif opt.startswith("-") or _is_assignment(opt):
                    j += 1
                else:
                    break
            i = j
            continue
        if name == "time":
            i = _skip_options(argv, i + 1, {"-o", "-f"})
            continue
        if name == "nice":
            i = _skip_options(argv, i + 1, {"-n", "--adjustment"})
            continue
        if name == "timeout":
            i = _skip_options(argv, i + 1, {"-s", "--signal", "-k", "--kill-after"}) + 1
            continue
        if name == "stdbuf":
            i = _skip_options(argv, i + 1, {"-i", "-o", "-e"})
            continue
        return argv[i:]
    return []


def _split(text: str) -> list[str]:
    """Words of a plain string (as `env -S` splits it)."""
    script = Script()
    words = []
    i = 0
    while i < len(text):
        if text[i] in META:
            i += 1
            continue
        word, _, i = read_word(text, i, script)
        words.append(word)
    return words


def _expand(argv: list[str], depth: int, writes: list[str] | None = None) -> list[list[str]]:
    """`argv` as the commands it runs: itself, or the script of `sh -c` / `eval`."""
    words = _unwrap(argv)
    if not words:
        return []
    name = _base(words[0])
    if name in SHELLS:
        i = 1
        if name == "busybox" and len(words) > 1 and words[1] in SHELLS:
            i = 2
        has_c = False
        while i < len(words) and words[i].startswith(("-", "+")) and words[i] not in ("-", "--"):
            option = words[i]
            if option in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
                i += 2
                continue
            if not option.startswith("--") and "c" in option[1:]:
                has_c = True
            i += 1
        if words[i : i + 1] == ["--"]:
            i += 1
        if has_c:
            return _parse(words[i], depth + 1, writes) if i < len(words) else []
        return [words]
    if name == "eval":
        return _parse(" ".join(words[1:]), depth + 1, writes)
    if name == "xargs":
        rest = _skip_options(words, 1, {"-I", "-L", "-n", "-P", "-d", "-E", "-s", "-a"})
        return _expand(words[rest:], depth + 1, writes) if rest < len(words) else []
    return [words]


def commands(command: str | list[str] | tuple[str, ...]) -> list[list[str]]:
    """Every simple command that `command` runs, as argv lists after wrappers are skipped.

    `command` is a shell command line, or an argv list (Codex's `shell` tool passes
    `["bash", "-lc", "..."]`), which is read as one simple command.
    """
    if isinstance(command, (list, tuple)):
        return _expand([str(w) for w in command], 0)
    if not isinstance(command, str):
        return []
    return _parse(command, 0)


def commands_and_writes(
    command: str | list[str] | tuple[str, ...],
) -> tuple[list[list[str]], list[str]]:
    """`commands(command)`, and the words its output redirects write to (`2>&1` is no write)."""
    writes: list[str] = []
    if isinstance(command, (list, tuple)):
        return _expand([str(w) for w in command], 0, writes), writes
    if not isinstance(command, str):
        return [], writes
    return _parse(command, 0, writes), writes


_GIT_WITH_VALUE = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env",
                   "--super-prefix", "--exec-path", "--list-cmds", "--attr-source"}  # fmt: skip
_GH_WITH_VALUE = {"-R", "--repo", "--hostname"}
_NOT_A_RUN = {"-h", "--help", "--dry-run"}


def milestone(argv: list[str]) -> str | None:
    """'git commit', 'gh pr create' or 'gh pr merge' when `argv` runs one, else None."""
    if not argv:
        return None
    name = _base(argv[0])
    if name == "git":
        i = _skip_options(argv, 1, _GIT_WITH_VALUE)
        if argv[i : i + 1] == ["commit"] and not _NOT_A_RUN.intersection(argv[i + 1 :]):
            return "git commit"
        return None
    if name == "gh":
        i = _skip_options(argv, 1, _GH_WITH_VALUE)
        if argv[i : i + 1] != ["pr"]:
            return None
        j = _skip_options(argv, i + 1, _GH_WITH_VALUE)
        action = argv[j] if j < len(argv) else ""
        action = "create" if action == "new" else action
        if action in ("create", "merge") and not _NOT_A_RUN.intersection(argv[j + 1 :]):
            return f"gh pr {action}"
    return None


def milestones(command: str | list[str] | tuple[str, ...]) -> list[str]:
    """Each milestone `command` runs (one entry per run; nested scripts after their line)."""
    return [m for argv in commands(command) if (m := milestone(argv))]
