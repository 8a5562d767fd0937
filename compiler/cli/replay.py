"""The no-op memo as the CLI reads it, and `memhub apply`'s replay before click is loaded.

A repeated `memhub apply` whose inputs are all unchanged prints what it printed before
(see install/noopmemo.py). Deciding that needs no command tree, no YAML, no schema and no
host adapter, so `main` reads the arguments of a plain `apply` the way click would
(`parse_apply`) and asks `replayed`, which answers only when the memo does; when it does
not, the plain apply runs without click too (cli/applyrun.py). Anything `parse_apply` does
not read with certainty (--json, --help, a saved plan, an unknown option, a path click
would refuse) is left to click, which decides as it always did. Stdlib only, apart from
the lock and the memo.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memhub.compiler.install.noopmemo import NoopMemo, Remembered

SCOPES = ("user", "project")
# apply's options that take a value, and its flags (see apply.py and options.install_options)
_VALUED = ("--scope", "--project", "--hosts")
_FLAGS = {"--adopt": "adopt", "-v": "verbose", "--verbose": "verbose", "--force": "force"}


@dataclass(frozen=True, slots=True)
class ApplyArgs:
    """A plain `memhub apply` as click would read it."""

    hub: Path
    scope: str
    project: Path | None
    hosts: str | None
    adopt: bool
    verbose: bool
    force: bool = False


def apply_command(verbose: bool) -> str:
    """The memo's name for an apply run: -v lists the unchanged paths too, so it prints
    something else and is remembered apart."""
    return "apply -v" if verbose else "apply"


def memo_args(
    command: str, scope: str, project: Path | None, hosts: str | None, adopt: bool
) -> dict[str, object]:
    """The arguments a memo is keyed by (with the hub file and the environment)."""
    from memhub.compiler.install.scope import installation_scripts

    return {
        "command": command,
        "scope": scope,
        "project": os.path.abspath(project or ".") if scope == "project" else "",
        # as given: which hosts that means (PATH) and where they live (their placing
        # variables) are `installrun._host_checks`, recorded with the memo, verified on recall
        "hosts": hosts or "",
        "adopt": adopt,
        "tty": sys.stdout.isatty(),
        # hooks and launchers name this installation's scripts: installing memhub (after
        # the bare-name warning), moving or reinstalling it changes what apply writes
        "scripts": os.fspath(installation_scripts() or ""),
    }


def recall(
    command: str, hub: Path, scope: str, project: Path | None, hosts: str | None, adopt: bool
) -> tuple[NoopMemo, Path, Remembered | None]:
    """(the memo of this run, the hub's .env, what it remembers if every input is as it
    was). Call it holding the operation lock; a .env that is not a regular file is left to
    the full run (`install.secrets.check_env_file` refuses it)."""
    from memhub.compiler.install.noopmemo import NoopMemo, memo_key
    from memhub.compiler.install.state import memhub_home

    hub_file = hub / "hub.yaml" if hub.is_dir() else hub
    key = memo_key(hub_file, memo_args(command, scope, project, hosts, adopt), os.environ)
    memo = NoopMemo(memhub_home(), key)
    env_file = hub_file.parent / ".env"  # recalled only when a regular file, or absent
    return memo, env_file, memo.recall(os.environ, env_file)


def replayed(args: ApplyArgs) -> int | None:
    """The exit code of a remembered no-op `apply` after printing what it printed; None
    when the memo does not answer (then the full run decides, the memo read again)."""
    from memhub.compiler.install.state import memhub_home
    from memhub.compiler.safewrite.lock import operation_lock

    with operation_lock(memhub_home()):  # as apply holds it: no other run is half way through
        command = apply_command(args.verbose)
        _, _, hit = recall(command, args.hub, args.scope, args.project, args.hosts, args.adopt)
    if hit is None:
        return None
    sys.stdout.write(hit.stdout)
    sys.stderr.write(hit.stderr)
    return hit.code


def parse_apply(argv: Sequence[str]) -> ApplyArgs | None:
    """`argv` as click reads `[--debug] apply [HUB] [--scope S] [--project P] [--hosts H]
    [--adopt] [-v] [--force]`; None for anything else, or anything click might refuse."""
    words = list(argv)
    while words and words[0] == "--debug":
        words.pop(0)
    if not words or words.pop(0) != "apply":
        return None
    given: dict[str, str] = {}
    flags: set[str] = set()
    hub: str | None = None
    while words:
        word = words.pop(0)
        name, eq, value = word.partition("=")
        if name in _VALUED and word.startswith("--"):
            if not eq:
                if not words:
                    return None
                value = words.pop(0)
            if not value or value.startswith("-"):
                return None  # click may read it otherwise, or refuse it
            given[name] = value  # the last one wins, as in click
        elif word in _FLAGS:
            flags.add(_FLAGS[word])
        elif word.startswith("-") or hub is not None or not word:
            return None  # --json, --help, `--`, an unknown option, a second argument
        else:
            hub = word
    return _checked(given, flags, hub or ".")


def _checked(given: dict[str, str], flags: set[str], hub: str) -> ApplyArgs | None:
    """The arguments, unless click would refuse them or a saved plan is being applied."""
    scope = given.get("--scope", "user")
    project = given.get("--project")
    if scope not in SCOPES or not _click_accepts(hub, file_okay=True):
        return None
    if project is not None and not _click_accepts(project, file_okay=False):
        return None
    if hub.endswith(".json") and os.path.isfile(hub):
        return None  # a saved plan: apply.py checks it
    return ApplyArgs(
        hub=Path(hub),
        scope=scope,
        project=Path(project) if project is not None else None,
        hosts=given.get("--hosts"),
        adopt="adopt" in flags,
        verbose="verbose" in flags,
        force="force" in flags,
    )


def _click_accepts(path: str, file_okay: bool) -> bool:
    """Whether click.Path(file_okay=...) takes `path` (readable when it exists)."""
    try:
        info = os.stat(path)
    except OSError:
        return True
    if not file_okay and stat.S_ISREG(info.st_mode):
        return False
    return os.access(path, os.R_OK)
