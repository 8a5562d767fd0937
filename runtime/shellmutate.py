"""Does a shell command change durable state? The shell prefilter of directive recall.

`is_mutating(command)` is true when the command writes files or changes a repository, a
package set, a database, a cluster or a remote service: file redirects (not `/dev/null` or
`2>&1`), `tee`, file verbs (rm, mv, cp, mkdir, touch, chmod, ln, install ...), in-place edits
(`sed -i`, `perl -i`, formatters that rewrite: `ruff format`, `black`, `prettier --write`),
the mutating subcommands of git, gh, docker, kubectl, terraform, helm and alembic, package
managers' install/add/remove/upgrade, migrations (`manage.py migrate`, `rails db:migrate`,
`prisma migrate` ...), downloads to a file, and inline interpreter code (`python -c`,
`python - <<PY`) that opens a file for writing or removes one. `why(command)` names the word
that decided it, for `memhub rules check`.

Decisions (precision first: a command is mutating only when its text says so):
- Build tools count as mutating (make, cmake, ninja, gradle, mvn, cargo build, go build,
  `npm run build`): they write artifacts and their targets often install or migrate;
  `make -n`/`--dry-run`/`-q`/`help` do not. Test runners, linters and `go run` do not.
- A program the rules do not know (a project's own CLI, `python script.py`) is not mutating.
- Runners are looked through: `uv run X`, `poetry run X`, `npx X`, `bundle exec X`,
  `python -m X`, `docker compose exec svc X`, `find -exec X`, `xargs X`, `sh -c '...'`.
- Quoted text and heredoc bodies are data, never command text (`runtime/shellcmd.py`), except
  the code an interpreter reads from a heredoc, which is searched for writes.

A command whose first word is a plain read-only tool (`grep`, `cat`, `ls`, `git status` ...)
and that has no shell operator is answered before any parsing, without loading `shellcmd`
(`shellglance`, which the recall handler asks before importing anything of recall).
"""

from __future__ import annotations

from . import shellverbs as v
from .shellglance import READ_ONLY as _READ_ONLY
from .shellglance import read_only
from .shellverbs import table, words

_NULL_SINKS = frozenset(("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "-"))

_MAX_DEPTH = 6


def _base(word: str) -> str:
    return word.rsplit("/", 1)[-1]


def _operand(argv: list[str], i: int, with_value: frozenset[str] = frozenset()) -> int:
    """Index of the first non-option word at or after `i` (the reader's own rule: only a
    command the reader parsed gets here, so it is loaded)."""
    from .shellcmd import _skip_options

    return _skip_options(argv, i, with_value)


def _options(tool: str) -> frozenset[str]:
    return table("options " + tool)


def _subcommand(name: str, argv: list[str]) -> str | None:
    """`tool sub` (or `tool sub sub2`) when `argv` runs a state-changing subcommand."""
    i = _operand(argv, 1, _options(name))
    if i >= len(argv):
        return None
    sub = argv[i]
    checks = table("check modes")
    if any(word.split("=", 1)[0] in checks for word in argv):
        return None  # `mix format --check-formatted`, `helm upgrade --dry-run`
    if sub in table(name):
        return f"{name} {sub}"
    second = table(f"{name} {sub}")
    if second:
        j = _operand(argv, i + 1, _options(sub))
        if j < len(argv) and argv[j] in second:
            return f"{name} {sub} {argv[j]}"
    return None


def _git(argv: list[str]) -> str | None:
    """git: the table, then the subcommands whose effect depends on their words."""
    found = _subcommand("git", argv)
    if found:
        dry = "--dry-run" in argv or ("-n" in argv and found in v.GIT_DRY_N)
        return None if dry else found
    i = _operand(argv, 1, _options("git"))
    sub, rest = (argv[i], argv[i + 1 :]) if i < len(argv) else ("", [])
    flags = {w for w in rest if w.startswith("-")}
    operands = [w for w in rest if not w.startswith("-")]
    if sub == "branch" and (flags & v.BRANCH_CHANGE or (operands and not flags & v.BRANCH_LIST)):
        return "git branch"
    if sub == "tag" and (flags & v.TAG_CHANGE or (operands and not flags & v.TAG_LIST)):
        return "git tag"
    if sub == "config" and (
        flags & v.CONFIG_CHANGE
        or (len(operands) >= 2 and not flags & v.CONFIG_READ and operands[0] not in v.CONFIG_READ)
    ):
        return "git config"
    if any(w.startswith("--output") for w in flags):
        return f"git {sub} --output"  # `git diff --output=f` writes a file
    if sub == "stash" and not operands:
        return "git stash"  # bare `git stash` is `git stash push`
    if sub == "symbolic-ref" and (len(operands) >= 2 or "-d" in flags):
        return "git symbolic-ref"
    return None


def _gh(argv: list[str]) -> str | None:
    found = _subcommand("gh", argv)
    if found:
        return found
    i = _operand(argv, 1, _options("gh"))
    if argv[i : i + 1] == ["api"]:
        return _http_write(
            argv[i + 1 :], "gh api", ("-f", "-F", "--field", "--raw-field", "--input")
        )
    return None


def _http_write(args: list[str], name: str, fields: tuple[str, ...]) -> str | None:
    """A request that writes on the server: an explicit write method, or a body."""
    for k, word in enumerate(args):
        method = ""
        if word in ("-X", "--method", "--request") and k + 1 < len(args):
            method = args[k + 1]
        elif word.startswith(("--method=", "--request=")):
            method = word.split("=", 1)[1]
        elif word.startswith("-X"):
            method = word[2:]
        if method.upper() in ("POST", "PUT", "PATCH", "DELETE"):
            return f"{name} {method.upper()}"
        if word in fields or word.split("=", 1)[0] in fields:
            return f"{name} {word.split('=', 1)[0]}"
    return None


def _download(name: str, argv: list[str]) -> str | None:
    """curl/wget that save a file, or send a write request."""
    if name == "wget":
        for k, word in enumerate(argv):
            if word in ("--spider", "-O-", "-qO-", "--output-document=-"):
                return None
            if word in ("-O", "-qO", "--output-document") and argv[k + 1 : k + 2] == ["-"]:
                return None
        return "wget"
    for k, word in enumerate(argv):
        short = word[:1] == "-" != word[1:2]
        if word in ("-o", "--output") or (short and word.endswith("o")):
            if argv[k + 1 : k + 2] and argv[k + 1] in _NULL_SINKS:
                continue  # `curl -o /dev/null -w '%{http_code}'` only checks
            return "curl -o"
        if word in v.CURL_OUT or (short and "O" in word):
            return "curl -o"
    return _http_write(argv[1:], "curl", v.CURL_BODY)


def _has_write_mode(call: str) -> bool:
    """Whether an `open(` call's text holds a write mode literal ('w', "ab", 'r+' ...)."""
    for quote in "'\"":
        for literal in call.split(quote)[1::2]:
            if (
                0 < len(literal) <= 4
                and set(literal) <= set("rwaxbt+")
                and set(literal) & set("wax+")
            ):
                return True
    return False


def _code_writes(code: str) -> str | None:
    """The first sign that inline interpreter code writes or removes a file."""
    k = code.find("open(")
    while k >= 0:
        end = code.find(")", k)
        call = code[k : end if end > 0 else len(code)]
        # the mode is `open(path, MODE)`'s second argument, `Path(...).open(MODE)`'s first;
        # `tarfile.open(fileobj=buf, mode='w')` writes to memory, not to a file
        mode = call if code[k - 1 : k] == "." else call.partition(",")[2]
        if "fileobj=" not in call and _has_write_mode(mode):
            return "open(..., 'w')"
        k = code.find("open(", k + 5)
    for sign in v.CODE_WRITES:
        if sign in code:
            return sign.rstrip("(")
    return None


def _in_place(word: str) -> bool:
    """perl/ruby `-i`, `-pi`, `-i.bak`, `-lpi`: a cluster of switches that ends in `-i`."""
    cluster = word[1:] if word[:1] == "-" != word[1:2] else ""
    k = cluster.find("i")
    return k >= 0 and all(c in "pnlaws0" for c in cluster[:k])


def _interpreter(name: str, argv: list[str], text: str, depth: int) -> str | None:
    """`python -c CODE` / `-m MODULE` / `- <<PY` / `perl -i`: the code or the module decides."""
    if len(argv) > 1 and _base(argv[1]) == "manage.py":
        return _manage(argv[2:])
    k = 1
    while k < len(argv):
        word = argv[k]
        if word in ("-c", "-e", "-E", "--eval", "-p", "--print", "-r") and k + 1 < len(argv):
            sign = _code_writes(argv[k + 1])
            return f"{name} {word} {sign}" if sign else None
        if word == "-m" and k + 1 < len(argv):
            module = argv[k + 1]
            return (
                f"{name} -m venv" if module == "venv" else _reason(argv[k + 1 :], text, depth + 1)
            )
        if name in ("perl", "ruby") and _in_place(word):
            return f"{name} {word}"
        if word == "-" or not word.startswith("-"):
            break
        k += 1
    if (k >= len(argv) or argv[k] == "-") and "<<" in text:
        sign = _code_writes(text)  # the code comes from a heredoc on stdin
        return f"{name} <<heredoc {sign}" if sign else None
    return None


def _sql(name: str, argv: list[str], text: str) -> str | None:
    """SQL clients: a statement that writes, or a script fed from a file (a dump, a schema)."""
    if {"-f", "--file", "source"} & set(argv[1:]) or ("<" in text.replace("<<", "")):
        return f"{name} < script"
    lowered = " ".join(argv[1:]).lower() + ("\n" + text.lower() if "<<" in text else "")
    for keyword in v.SQL_WRITES:
        if keyword in lowered:
            return f"{name} {keyword.strip()}"
    return None


def _find(argv: list[str], text: str, depth: int) -> str | None:
    for k, word in enumerate(argv):
        if word in ("-delete", "-fprint", "-fprintf", "-fls"):
            return f"find {word}"
        if word in ("-exec", "-execdir", "-ok", "-okdir"):
            end = k + 1
            while end < len(argv) and argv[end] not in (";", "+"):
                end += 1
            inner = _reason(argv[k + 1 : end], text, depth + 1)
            if inner:
                return f"find {word} {inner}"
    return None


def _runner(name: str, argv: list[str], text: str, depth: int) -> str | None:
    """`uv run X`, `npx X`, `npm run build`: the command or script the runner starts."""
    skip = v.RUNNERS.get(name)
    i = _operand(argv, 1, _options(name))
    if skip is not None and (not skip or (i < len(argv) and argv[i] in skip)):
        j = _operand(argv, i + (1 if skip else 0), words("-p --package --with --from"))
        if j < len(argv):
            return _reason(argv[j:], text, depth + 1)
    if name not in table("script runners"):
        return None
    if name == "yarn" and i >= len(argv):
        return "yarn"  # bare `yarn` installs
    script = ""
    if argv[i : i + 1] in (["run"], ["run-script"]) and i + 1 < len(argv):
        script = argv[i + 1]
    elif name != "npm" and i < len(argv) and argv[i] not in ("run", "test", "exec"):
        script = argv[i]  # `yarn build`, `pnpm build`
    if any(script == w or script.startswith((w + ":", w + "-")) for w in v.BUILD_SCRIPTS):
        return f"{name} run {script}"
    return None


def _formatter(name: str, argv: list[str]) -> str | None:
    """Formatters and fixers that rewrite files (not in their check or diff modes)."""
    rest = set(argv[1:])
    if name == "ruff":
        if argv[1:2] == ["format"] and not {"--check", "--diff"} & rest:
            return "ruff format"
        if argv[1:2] == ["check"] and "--fix" in rest and "--diff" not in rest:
            return "ruff check --fix"
        return None
    if name in v.LINTERS_FIX:
        hit = {"--fix", "-a", "-A", "--write", "--apply", "--autocorrect"} & rest
        return f"{name} {min(hit)}" if hit else None
    checks = v.FORMATTERS[name]
    if checks is None:
        hit = {"-w", "-i", "--write", "--in-place"} & rest
        return f"{name} {min(hit)}" if hit else None
    return None if set(checks) & rest else name


def _tool(name: str, argv: list[str], text: str, depth: int) -> str | None:
    """Commands recognised by their first word and a subcommand."""
    if name == "git":
        return _git(argv)
    if name == "gh":
        return _gh(argv)
    if name in ("curl", "wget"):
        return _download(name, argv)
    if name == "find":
        return _find(argv, text, depth)
    if name in ("docker", "podman"):
        i = _operand(argv, 1, _options("docker"))
        if argv[i : i + 1] == ["exec"] or argv[i : i + 2] in (
            ["compose", "exec"],
            ["compose", "run"],
        ):
            return _container_exec(argv, i, text, depth)
    if name == "ssh":  # the remote command, which the remote shell reads as one line
        j = _operand(argv, 1, v.SSH_OPTIONS) + 1
        return why(" ".join(argv[j:])) if j < len(argv) else None
    if name == "docker-compose":
        return _subcommand("docker", ["docker", "compose", *argv[1:]])
    if name in ("ruff", *v.LINTERS_FIX) or name in v.FORMATTERS:
        return _formatter(name, argv)
    if name in table("sql"):
        return _sql(name, argv, text)
    if name in table("interpreters") or name.startswith(("python3.", "python2.")):
        return _interpreter(name, argv, text, depth)
    return _subcommand(name, argv) or _runner(name, argv, text, depth) or _migration(name, argv)


def _reason(argv: list[str], text: str, depth: int = 0) -> str | None:
    """Why `argv` (one simple command) changes durable state, or None."""
    from .shellcmd import _unwrap

    argv = _unwrap(argv)
    if not argv or depth > _MAX_DEPTH:
        return None
    name = _base(argv[0]).removesuffix(".exe")
    if name.startswith("pip") and name[3:].replace(".", "").isdigit():
        name = "pip"  # pip3, pip3.12
    if name in _READ_ONLY:
        return None
    if name in table("files"):
        return name
    if name == "tee":
        targets = [w for w in argv[1:] if not w.startswith("-") and w not in _NULL_SINKS]
        return "tee" if targets else None
    if name in table("build"):
        return None if table("build dry") & set(argv[1:]) else name
    if name == "sed":
        for word in argv[1:]:
            if word.startswith("--in-place") or (word[:1] == "-" != word[1:2] and "i" in word):
                return f"sed {word}"
        return None
    if name == "tar":
        mode = next((w for w in argv[1:] if not w.startswith("--")), "")
        return "tar" if any(c in mode.lstrip("-") for c in "xcru") else None
    if name == "unzip":
        return None if {"-l", "-t", "-Z", "-v"} & set(argv[1:]) else "unzip"
    if name == "manage.py":
        return _manage(argv[1:])
    return _tool(name, argv, text, depth)


def _container_exec(argv: list[str], i: int, text: str, depth: int) -> str | None:
    """`docker exec [opts] CONTAINER CMD...`: CMD decides."""
    j = i + (2 if argv[i] == "compose" else 1)
    j = _operand(argv, j, words("-e --env -u --user -w --workdir --env-file")) + 1
    return _reason(argv[j:], text, depth + 1) if j < len(argv) else None


def _manage(args: list[str]) -> str | None:
    """Django's `manage.py` commands that change the database or the tree."""
    return f"manage.py {args[0]}" if args and args[0] in v.MANAGE_WRITES else None


def _migration(name: str, argv: list[str]) -> str | None:
    """Migration tools under names the tables do not hold (`diesel migration run`, ...)."""
    pair = v.MIGRATORS.get(name)
    if pair and pair[0] in argv[1:] and (not pair[1] or pair[1] in argv[1:]):
        return f"{name} {pair[0]}"
    return None


def why(command: str | list[str]) -> str | None:
    """The word (or words) that make `command` mutating, or None for a read-only command."""
    if isinstance(command, str) and read_only(command):
        return None
    from .shellcmd import commands_and_writes  # only a command that needs reading loads the reader

    argvs, writes = commands_and_writes(command)
    for target in writes:
        if target not in _NULL_SINKS and not target.startswith("/dev/fd/"):
            return f"> {target}"
    text = command if isinstance(command, str) else " ".join(map(str, command))
    for argv in argvs:
        found = _reason(argv, text)
        if found:
            return found
    return None


def is_mutating(command: str | list[str]) -> bool:
    """Whether `command` changes durable state (files, repositories, packages, services)."""
    return why(command) is not None
