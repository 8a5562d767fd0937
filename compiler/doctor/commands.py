"""Hook commands: is the first word of each on PATH, and an interpreter's script there."""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Mapping
from pathlib import Path

from memhub.compiler.doctor.records import Status

# Commands a POSIX shell runs itself, so no executable needs to be on PATH.
_SHELL_BUILTINS = frozenset(
    {".", ":", "[", "cd", "echo", "eval", "exec", "exit", "export", "false", "printf"}
    | {"read", "set", "source", "test", "true", "umask", "unset"}
)
_INTERPRETER = re.compile(r"^(?:python[0-9.]*|node|bash|sh|dash|zsh|ruby|perl)$")
_TAKES_VALUE = frozenset({"-W", "-X", "-Q", "--require", "-r", "-o", "-O", "-I"})
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def _expand(word: str, env: Mapping[str, str]) -> tuple[str, list[str]]:
    """`word` with $NAME / ${NAME} and a leading ~ filled from env; the names env lacks."""
    missing: list[str] = []

    def fill(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name in env:
            return env[name]
        missing.append(name)
        return match.group(0)

    value = _VARIABLE.sub(fill, word)
    if value == "~" or value.startswith("~/"):
        value = env.get("HOME", "~") + value[1:]
    return value, missing


def check_command(command: str, env: Mapping[str, str]) -> tuple[Status, str, str]:
    """(status, what was found, fix) for the executable of one hook command."""
    try:
        words = shlex.split(command)
    except ValueError as exc:
        return "fail", f"`{command}` does not parse as a shell command ({exc})", "fix its quoting"
    while words and _ASSIGNMENT.match(words[0]):
        words.pop(0)
    if not words:
        return "fail", "the hook command is empty", "give the hook a command in the hub"
    first, missing = _expand(words[0], env)
    if missing:
        names = ", ".join(f"${n}" for n in missing)
        return "warn", f"`{words[0]}` depends on {names}, set by the host only", ""
    if "/" not in first:
        if first in _SHELL_BUILTINS:
            return "ok", f"`{first}` is a shell builtin", ""
        found = shutil.which(first, path=env.get("PATH", ""))
        if found is None:
            return (
                "fail",
                f"`{first}` is not on PATH",
                f"install {first}, or give its full path in the hub's hook command",
            )
        where = f"`{first}` found at {found}"
    else:
        if not Path(first).is_absolute():
            return "warn", f"`{first}` is relative to the session's folder", ""
        if not os.path.isfile(first):
            return "fail", f"{first} does not exist", "create it, or fix the path in the hub"
        if not os.access(first, os.X_OK):
            return "fail", f"{first} is not executable", f"chmod +x {first}"
        found, where = first, f"{first} exists"
    if _INTERPRETER.match(Path(found).name):
        return _check_script(words[1:], env, where)
    return "ok", where, ""


def _check_script(args: list[str], env: Mapping[str, str], where: str) -> tuple[Status, str, str]:
    """An interpreter's script argument (`python3 -S "<path>"`): the file must exist."""
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in ("-c", "-m", "-e", "--eval", "-"):
            return "ok", where, ""  # inline code or a module: no script file to check
        if arg.startswith("-"):
            skip = arg in _TAKES_VALUE
            continue
        script, missing = _expand(arg, env)
        if missing:
            names = ", ".join(f"${n}" for n in missing)
            return "warn", f"{where}; its script {arg} depends on {names}", ""
        if not Path(script).is_absolute():
            return "warn", f"{where}; its script {script} is relative to the session's folder", ""
        if not os.path.isfile(script):
            return (
                "fail",
                f"{where}, but its script {script} does not exist",
                "install what provides the script, or fix the path in the hub",
            )
        return "ok", f"{where}; script {script} exists", ""
    return "ok", where, ""
