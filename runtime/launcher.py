"""memhub's MCP launcher: resolve a server's secret references at start, then exec the server.

Some hosts cannot express what a hub says: Codex forwards a variable only under its own name
and expands no reference in a command, an argument or an env value; a host started from a
desktop launcher does not inherit the shell's environment at all. There the host file starts
this launcher instead of the server, with the server's command line in launcher syntax:

    memhub-launch [--hub DIR] --server NAME [--env KEY=TEMPLATE]... [--cwd TEMPLATE]
                  -- COMMAND [ARG]...

`%{env:NAME}` in a TEMPLATE, COMMAND or ARG is replaced by NAME's value from the environment,
else from `DIR/.env` (the hub's). No host expands `%{...}`, so the host file holds only names,
never a value. `%{env:NAME:-default}` takes `default` when NAME has no value (the hub's
`${env:NAME:-default}`; a default holds no `{` or `}`). `%%{` stands for a literal `%{`. A
reference with no value stops the start with
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

# %{env:NAME}, %{env:NAME:-default}, %{plugin_root}, or %%{ for a literal %{ (the compiler
# escapes a hub's literal %{ that way)
_TEMPLATE = re.compile(r"%(%)?\{(?:env:([A-Za-z_][A-Za-z0-9_]*)(:-[^{}]*)?|(plugin_root))\}|%%\{")
EXIT_BAD_INPUT = 2
EXIT_NOT_FOUND = 127
ENV_FILE = ".env"


class LaunchError(Exception):
    """Why the server cannot be started; the message names what to fix."""


def parse_env_file(text: str) -> dict[str, str]:
    """The NAME=value bindings of a `.env` text, read by python-dotenv's grammar.

    apply reads the hub's `.env` with python-dotenv (and checks that no value leaks into a
    host file); this launcher runs under `python3 -S` without it, so it carries a port of
    `dotenv.parser` (1.x): `export`, comments, quotes over several lines, the escapes each
    quote knows, a statement it cannot parse skipped to the end of its line. Held to
    python-dotenv over a corpus by tests/runtime/test_launcher.py. The two constructs the
    supported python-dotenv versions (>= 1.0) read differently are refused (LaunchError
    `<line>: ...`), never guessed.
    """
    reader = _Reader(text.removeprefix("\ufeff"))
    found: dict[str, str] = {}
    while reader.position < len(reader.text):
        key, value = reader.binding()
        if key is not None and value is not None:
            found[key] = value
    return found


_DECODED = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


class _Unparsed(Exception):
    """A statement python-dotenv cannot parse (it skips the rest of the line)."""


class _Reader:
    # dotenv.parser's regular expressions, verbatim
    SPACE_LINES = re.compile(r"\s*", re.MULTILINE)
    SPACE = re.compile(r"[^\S\r\n]*")
    EXPORT = re.compile(r"(?:export[^\S\r\n]+)?")
    SINGLE_KEY = re.compile(r"'([^']+)'")
    KEY = re.compile(r"([^=\#\s]+)")
    EQUALS = re.compile(r"(=[^\S\r\n]*)")
    SINGLE = re.compile(r"'((?:\\.|[^'\\])*)'", re.DOTALL)
    DOUBLE = re.compile(r'"((?:\\.|[^"\\])*)"', re.DOTALL)
    UNQUOTED = re.compile(r"([^\r\n]*)")
    COMMENT = re.compile(r"(?:[^\S\r\n]*#[^\r\n]*)?")
    END = re.compile(r"[^\S\r\n]*(?:\r\n|\n|\r|$)")
    REST = re.compile(r"[^\r\n]*(?:\r|\n|\r\n)?")
    DOUBLE_ESCAPES = re.compile(r"\\[\\'\"abfnrtv]")
    SINGLE_ESCAPES = re.compile(r"\\[\\']")

    def __init__(self, text: str) -> None:
        self.text, self.position = text, 0

    def read(self, pattern: re.Pattern[str]) -> str:
        match = pattern.match(self.text, self.position)
        if match is None:
            raise _Unparsed
        self.position = match.end()
        return match.group(1) if pattern.groups else match.group(0)

    def peek(self) -> str:
        return self.text[self.position : self.position + 1]

    def binding(self) -> tuple[str | None, str | None]:
        """(key, value) of the next statement; (None, None) for a blank, comment or error."""
        try:
            self.read(self.SPACE_LINES)
            if self.position >= len(self.text):
                return None, None
            self.read(self.EXPORT)
            key = (
                None
                if self.peek() == "#"
                else self.read(self.SINGLE_KEY if self.peek() == "'" else self.KEY)
            )
            self.read(self.SPACE)
            value = None
            if self.peek() == "=":
                sign = self.read(self.EQUALS)
                if len(sign) > 1 and self.peek() == "#":
                    # python-dotenv 1.2 reads `KEY= # comment` as empty, 1.0 as "# comment"
                    self.refuse("an empty value followed by a comment", "write KEY= alone")
                value = self.value()
            self.read(self.COMMENT)
            self.read(self.END)
            return key, value
        except _Unparsed:
            self.read(self.REST)
            return None, None

    def value(self) -> str:
        first = self.peek()
        if first in ("'", '"'):
            raw = self.read(self.SINGLE if first == "'" else self.DOUBLE)
            if raw.endswith("\\"):
                # python-dotenv before 1.2 takes the closing quote as escaped here
                self.refuse("a quoted value ending in a backslash", "drop the backslash")
            if first == "'":
                return self.SINGLE_ESCAPES.sub(lambda m: m.group(0)[1], raw)
            return self.DOUBLE_ESCAPES.sub(self._unescape, raw)
        if first in ("", "\n", "\r"):
            return ""
        return re.sub(r"\s+#.*", "", self.read(self.UNQUOTED)).rstrip()

    def refuse(self, what: str, fix: str) -> None:
        """Where python-dotenv versions read the text differently: stop, naming the line."""
        line = len(re.findall(r"\r\n|\n|\r", self.text[: self.position])) + 1
        raise LaunchError(
            f"{line}: {what} (python-dotenv versions read it differently). Fix: {fix}"
        )

    def _unescape(self, match: re.Match[str]) -> str:
        char = match.group(0)[1]
        return _DECODED.get(char, char)


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
    try:
        return parse_env_file(text)
    except LaunchError as exc:
        raise LaunchError(f"{path}:{exc}") from None


Resolve = Callable[..., str]  # (NAME) or (NAME, default) -> value


def resolver(environ: Mapping[str, str], hub: str | None, server: str) -> Resolve:
    """NAME -> value: the environment first, then the hub's `.env` (read once, when needed)."""
    cache: dict[str, dict[str, str]] = {}
    env_path = os.path.join(hub, ENV_FILE) if hub else None

    def from_file() -> dict[str, str]:
        if "file" not in cache:
            cache["file"] = read_env_file(env_path or "")
        return cache["file"]

    def value(name: str, default: str | None = None) -> str:
        found = environ.get(name) or (from_file().get(name) if env_path else None)
        if not found and default is not None:
            return default  # unset or empty, as `${NAME:-default}` reads in a shell
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


def expand(template: str, value: Resolve) -> str:
    """`template` with each `%{env:NAME}` replaced by NAME's value, `%{plugin_root}` by the
    plugin folder and `%%{` by `%{`."""

    def replace(match: re.Match[str]) -> str:
        name, default, root = match.group(2), match.group(3), match.group(4)
        if name is None and root is None:
            return "%{"
        if match.group(1):
            return "%{" + (f"env:{name}{default or ''}" if name else "plugin_root") + "}"
        if name and default is not None:
            return value(name, default[2:])
        return value(name) if name else plugin_root()

    return _TEMPLATE.sub(replace, template)


def to_hub(template: str) -> str:
    """A launcher template in the hub's syntax again (`%{env:NAME}` -> `${env:NAME}`), for
    `memhub import` reading back a server memhub started through the launcher."""

    def replace(match: re.Match[str]) -> str:
        name, default, root = match.group(2), match.group(3), match.group(4)
        if name is None and root is None:
            return "%{"
        body = f"env:{name}{default or ''}" if name else "plugin_root"
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
