"""memhub's MCP launcher: resolve a server's secret references at start, then exec the server.

Some hosts cannot express what a hub says: Codex forwards a variable only under its own name
and expands no reference in a command, an argument or an env value; a host started from a
desktop launcher does not inherit the shell's environment at all. There the host file starts
this launcher instead of the server, with the server's command line in launcher syntax:

    memhub-launch [--hub DIR] --server NAME [--env KEY=TEMPLATE]... [--cwd TEMPLATE]
                  -- COMMAND [ARG]...

`%{env:NAME}` in a TEMPLATE, COMMAND or ARG is replaced by NAME's value from the environment,
else from `DIR/.env` (the hub's). No host expands `%{...}`, so the host file holds only names,
never a value. `%%{` stands for a literal `%{`. A reference with no value stops the start with
one message naming the variable (exit 2): an MCP server started without its secret fails later
and less clearly. In a bundle the vendored copy runs as `python3 -S .../launcher.py`, so this
module is stdlib only and imports nothing from memhub.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Callable, Mapping

# %{env:NAME}, %{plugin_root}, or %%{ for a literal %{ (the compiler escapes a hub's
# literal %{ that way)
_TEMPLATE = re.compile(r"%(%)?\{(?:env:([A-Za-z_][A-Za-z0-9_]*)|(plugin_root))\}|%%\{")
_ENV_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$")
EXIT_BAD_INPUT = 2
EXIT_NOT_FOUND = 127
ENV_FILE = ".env"


class LaunchError(Exception):
    """Why the server cannot be started; the message names what to fix."""


def parse_env_file(text: str) -> dict[str, str]:
    """NAME=value lines of a `.env` file: `export`, comments, single and double quotes.

    The same subset python-dotenv reads for memhub's apply (which checks that no value leaks
    into a host file): unquoted values end at ` #`, double quotes know \\n \\t \\" \\\\.
    """
    found: dict[str, str] = {}
    for line in text.splitlines():
        match = _ENV_LINE.match(line)
        if match is None or line.lstrip().startswith("#"):
            continue
        name, raw = match.group(1), match.group(2).strip()
        if raw[:1] in ("'", '"') and raw.find(raw[0], 1) > 0:
            body = raw[1 : raw.find(raw[0], 1)] if raw[0] == "'" else _double_quoted(raw)
            found[name] = body
        else:
            found[name] = re.split(r"\s+#", raw, maxsplit=1)[0].strip()
    return found


def _double_quoted(raw: str) -> str:
    out, index = [], 1
    escapes = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
    while index < len(raw) and raw[index] != '"':
        char = raw[index]
        if char == "\\" and index + 1 < len(raw) and raw[index + 1] in escapes:
            out.append(escapes[raw[index + 1]])
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


# A `.env` holds a few lines; anything larger is not one (a link to a log or a device).
MAX_ENV_BYTES = 1 << 20


def read_env_file(path: str) -> dict[str, str]:
    """The NAME=value lines of the `.env` at `path`; {} when there is none.

    Opened without blocking and read only when it is a regular file: a FIFO or a link to
    `/dev/zero` would otherwise hang the host's server start forever."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise LaunchError(
            f"cannot read {path}: {exc.strerror}. Fix: make it a readable file"
        ) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise LaunchError(f"{path} is not a regular file. Fix: make it a plain NAME=value file")
        if info.st_size > MAX_ENV_BYTES:
            raise LaunchError(
                f"{path} is {info.st_size} bytes, over {MAX_ENV_BYTES}. Fix: keep only the "
                "hub's NAME=value lines in it"
            )
        data = b""
        while chunk := os.read(fd, MAX_ENV_BYTES + 1 - len(data)):
            data += chunk
    except OSError as exc:
        raise LaunchError(
            f"cannot read {path}: {exc.strerror}. Fix: make it a readable file"
        ) from None
    finally:
        os.close(fd)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise LaunchError(f"{path}:{line}: not UTF-8. Fix: save the file as UTF-8") from None
    if "\0" in text:
        line = text[: text.index("\0")].count("\n") + 1
        raise LaunchError(f"{path}:{line}: holds a NUL byte. Fix: remove it")
    return parse_env_file(text)


def resolver(environ: Mapping[str, str], hub: str | None, server: str) -> Callable[[str], str]:
    """NAME -> value: the environment first, then the hub's `.env` (read once, when needed)."""
    cache: dict[str, dict[str, str]] = {}
    env_path = os.path.join(hub, ENV_FILE) if hub else None

    def from_file() -> dict[str, str]:
        if "file" not in cache:
            cache["file"] = read_env_file(env_path or "")
        return cache["file"]

    def value(name: str) -> str:
        found = environ.get(name) or (from_file().get(name) if env_path else None)
        if not found:
            where = f"the environment or {env_path}" if env_path else "the environment"
            fix = f"export {name}" + (f", or add {name}=... to {env_path}" if env_path else "")
            raise LaunchError(
                f"MCP server {server!r}: ${{env:{name}}} has no value in {where}. Fix: {fix}, "
                "then restart the host"
            )
        return found

    return value


def plugin_root() -> str:
    """The plugin folder a vendored copy sits in (`<root>/memhub_runtime/launcher.py`).
    Codex expands no `${PLUGIN_ROOT}` in a plugin server's command line, so the launcher
    finds the folder from where it was started."""
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def expand(template: str, value: Callable[[str], str]) -> str:
    """`template` with each `%{env:NAME}` replaced by NAME's value, `%{plugin_root}` by the
    plugin folder and `%%{` by `%{`."""

    def replace(match: re.Match[str]) -> str:
        name, root = match.group(2), match.group(3)
        if name is None and root is None:
            return "%{"
        if match.group(1):
            return "%{" + (f"env:{name}" if name else "plugin_root") + "}"
        return value(name) if name else plugin_root()

    return _TEMPLATE.sub(replace, template)


def to_hub(template: str) -> str:
    """A launcher template in the hub's syntax again (`%{env:NAME}` -> `${env:NAME}`), for
    `memhub import` reading back a server memhub started through the launcher."""

    def replace(match: re.Match[str]) -> str:
        name, root = match.group(2), match.group(3)
        if name is None and root is None:
            return "%{"
        body = f"env:{name}" if name else "plugin_root"
        return ("%{" if match.group(1) else "${") + body + "}"

    return _TEMPLATE.sub(replace, template)


def parse_args(argv: list[str]) -> tuple[dict[str, str | None], list[str], list[str]]:
    """(--hub, --server, --cwd), the --env KEY=TEMPLATE items, and the server's argv."""
    options: dict[str, str | None] = {"hub": None, "server": None, "cwd": None}
    env: list[str] = []
    index = 0
    while index < len(argv) and argv[index] != "--":
        flag = argv[index].removeprefix("--")
        if flag not in (*options, "env") or index + 1 >= len(argv):
            raise LaunchError(f"unexpected launcher argument {argv[index]!r}")
        if flag == "env":
            env.append(argv[index + 1])
        else:
            options[flag] = argv[index + 1]
        index += 2
    command = argv[index + 1 :]
    if not command or not command[0]:
        raise LaunchError("no server command after `--`")
    return options, env, command


def prepare(
    argv: list[str], environ: Mapping[str, str]
) -> tuple[list[str], dict[str, str], str | None]:
    """The server's argv, its environment and its working folder, references resolved."""
    options, env_items, command = parse_args(argv)
    value = resolver(environ, options["hub"], options["server"] or "?")
    child = dict(environ)
    for item in env_items:
        key, sep, template = item.partition("=")
        if not sep or not key:
            raise LaunchError(f"--env {item!r} is not KEY=TEMPLATE")
        child[key] = expand(template, value)
    cwd = expand(options["cwd"], value) if options["cwd"] else None
    return [expand(word, value) for word in command], child, cwd


def main(argv: list[str] | None = None) -> int:
    """Console-script entry (`memhub-launch`); returns only when the server cannot start.

    Messages name the command and folder as the host file writes them (`%{env:NAME}`),
    never as expanded: an expanded word may hold a secret."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        command, env, cwd = prepare(argv, os.environ)
        options, _, templates = parse_args(argv)
    except LaunchError as exc:
        print(f"memhub-launch: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if cwd:
        try:
            os.chdir(cwd)
        except OSError as exc:
            print(
                f"memhub-launch: cannot enter the working folder {options['cwd']!r}: "
                f"{exc.strerror}. Fix: create it or change the server's cwd in the hub",
                file=sys.stderr,
            )
            return EXIT_BAD_INPUT
    try:
        os.execvpe(command[0], command, env)
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "a value holds a NUL byte"
        print(
            f"memhub-launch: cannot start {templates[0]!r}: {reason}. Fix: install it or "
            "put its folder on the host's PATH",
            file=sys.stderr,
        )
        return EXIT_NOT_FOUND
    return EXIT_NOT_FOUND  # unreachable: execvpe replaced this process


if __name__ == "__main__":
    sys.exit(main())
