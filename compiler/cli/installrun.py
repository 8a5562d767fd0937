"""The install engine as the CLI drives it: plans made from CLI arguments, the no-op memo
that replays an unchanged run, and the install plan as a bundle-style Plan for `diff`."""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from memhub.compiler.cli.echo import echo
from memhub.hubspec import MemhubError

# The host adapters (and hostchoice, which needs them) are imported where a plan is made:
# a replayed no-op (`remembered`) answers without them.


def planner(
    hub_path: Path,
    scope: str,
    project: Path | None,
    hosts: str | None,
    adopt: bool,
    remove_all: bool = False,
    saved_plan: Path | None = None,
) -> tuple[Any, Any]:
    """(a function making the install plan, the loaded hub): load and pick hosts once.
    `saved_plan`: the plan file `hosts` was read from, which the host line names."""
    from memhub.compiler.cli.hostchoice import HostChoice, choose_hosts
    from memhub.compiler.install.engine import plan_install
    from memhub.compiler.install.scope import Scope, scope_kind
    from memhub.compiler.install.state import memhub_home
    from memhub.hubspec import load

    hub = load(hub_path, cache=memhub_home() / "cache")
    scope_obj = Scope.from_environment(scope_kind(scope), project)
    # uninstall removes what was applied, so the hub's list (which may have shrunk) is no bound
    bound = None if remove_all else hub.hosts
    choice = choose_hosts(hosts, bound, str(Path(hub.root, "hub.yaml")))
    if saved_plan is not None:  # chosen when the plan was made, whatever the reason then
        choice = HostChoice(choice.hosts, f"from the saved plan {saved_plan}")
    echo(choice.line(), err=True)
    chosen = choice.hosts

    def make_plan() -> Any:
        return plan_install(
            hub, scope_obj, chosen, memhub_home(), adopt=adopt, remove_all=remove_all
        )

    return make_plan, hub


def plugin_planner(
    plugin: str, scope: str, project: Path | None, hosts: str | None
) -> Callable[[], Any]:
    """The uninstall plan of every entry owned by `plugin`; refuses a name that owns none."""
    from memhub.compiler.cli.hostchoice import HostChoice, choose_hosts
    from memhub.compiler.hosts import INSTALLERS
    from memhub.compiler.install.engine import plan_uninstall_plugin
    from memhub.compiler.install.scope import Scope, scope_kind
    from memhub.compiler.install.state import memhub_home

    scope_obj = Scope.from_environment(scope_kind(scope), project)
    # what a plugin installed may sit in a host whose CLI is gone since: all hosts
    choice = (
        choose_hosts(hosts)
        if hosts
        else HostChoice(tuple(INSTALLERS), "every host, for --plugin; --hosts chooses")
    )
    echo(choice.line(), err=True)
    chosen = choice.hosts
    known = installed_plugins(scope_obj.id)
    if plugin not in known.split(", "):
        known = known or "none"
        raise MemhubError(
            f"{memhub_home() / 'state.json'}: memhub installed nothing for plugin {shown(plugin)} "
            f"in {scope_obj.id} scope (plugins installed there: {known}). Fix: check the "
            "name and --scope/--project"
        )

    def make_plan() -> Any:
        return plan_uninstall_plugin(plugin, scope_obj, chosen, memhub_home())

    return make_plan


def shown(name: str, limit: int = 80) -> str:
    """A name as a message quotes it: repr, cut to `limit` characters (a name is typed by a
    person or a script; a 10,000-character one must not flood the terminal)."""
    quoted = repr(name)
    return quoted if len(quoted) <= limit else f"{quoted[: limit - 5]}...' ({len(name)} chars)"


def installed_plugins(scope_id: str | None) -> str:
    """The plugins the state names as owners (in one scope, or any), comma-separated."""
    from memhub.compiler.install.state import State, memhub_home, owner_plugin

    state = State.load(memhub_home())
    names = {
        owner_plugin(o.hub)
        for entries in state.targets.values()
        for o in entries.values()
        if scope_id is None or o.scope == scope_id
    }
    return ", ".join(sorted(n for n in names if n))


def make_install_plan(
    hub_path: Path,
    scope: str,
    project: Path | None,
    hosts: str | None,
    adopt: bool,
    remove_all: bool = False,
) -> tuple[Any, Any]:
    make_plan, hub = planner(hub_path, scope, project, hosts, adopt, remove_all)
    return make_plan(), hub


def remembered(
    command: str,
    hub: Path,
    scope: str,
    project: Path | None,
    hosts: str | None,
    adopt: bool,
    full: Callable[[], tuple[int, Any, Any]],
    replay: Callable[[Any, Any], object] | None = None,
) -> int:
    """Run `full` (printing as it goes), or replay what it printed when every input of a
    previous no-op run is unchanged (see noopmemo). `full` returns (exit code, install plan,
    hub); a plan with nothing to do and no conflict is remembered, and so is one `full`
    wrote entirely when `replay` prints what the run after it (a no-op) prints."""
    from memhub.compiler.cli.replay import recall
    from memhub.compiler.install.noopmemo import Remembered
    from memhub.compiler.install.secrets import check_env_file

    hub_file = hub / "hub.yaml" if hub.is_dir() else hub
    check_env_file(hub_file.parent / ".env")  # a .env that is not a regular file: refused
    memo, env_file, hit = recall(command, hub, scope, project, hosts, adopt)
    if hit is not None:
        sys.stdout.write(hit.stdout)
        sys.stderr.write(hit.stderr)
        return hit.code
    with _captured() as (out, err):
        code, plan, hub_model = full()
    outcome = None
    if plan is not None and not plan.conflicts and not plan.pending:
        outcome = Remembered(out.getvalue(), err.getvalue(), code)
    elif plan is not None and not plan.conflicts and not plan.drifted and replay is not None:
        quiet = io.StringIO()
        with contextlib.redirect_stdout(quiet):
            replay(plan.settled(), hub_model)
        outcome = Remembered(quiet.getvalue(), err.getvalue(), code)
    if outcome is not None:
        from memhub.compiler.install.secrets import referenced_names

        names = referenced_names(hub_model)
        checks = _host_checks(hosts)
        inputs, written = _inputs(hub_model, plan), _written(plan)
        memo.remember(inputs, names, os.environ, env_file, outcome, checks, written)
    else:
        memo.forget()
    return code


def _host_checks(hosts: str | None) -> dict[str, dict[str, str | None]]:
    """The variables that place the chosen hosts' files and, without --hosts, where each
    host CLI is on PATH: what a replayed run must find as they were."""
    from memhub.compiler.cli.hostchoice import parse_hosts
    from memhub.compiler.hosts import INSTALLERS
    from memhub.compiler.install.noopmemo import host_checks

    chosen = parse_hosts(hosts)
    env = [name for host in chosen for name in INSTALLERS[host].placing_env]
    exes = [] if hosts else [exe for inst in INSTALLERS.values() for exe in inst.executables]
    return host_checks(env, exes, os.environ)


def _inputs(hub: Any, plan: Any) -> list[str]:
    """Every file and folder a plan read: the hub's sources, the targets, the state."""
    from memhub.compiler.install.state import STATE_FILE

    root = Path(hub.root)
    paths = [root / "hub.yaml", root / ".env", home() / STATE_FILE]
    skills = {str(Path(s.origin.file).parent.parent) for s in hub.skills}
    paths += [Path(p) for p in skills] or [root / "skills"]
    if hub.instructions:
        paths.append(root / hub.instructions.source)
    if hub.plugin.icon:
        paths.append(root / hub.plugin.icon.source)
    return [os.fspath(p) for p in paths] + [c.path for c in plan.changes]


def _written(plan: Any) -> dict[str, bytes | list[tuple[str, bytes]]]:
    """What the plan's creates and updates leave at each target: a file's bytes, a
    folder's files (the no-op memo digests them without reading them back)."""
    found: dict[str, bytes | list[tuple[str, bytes]]] = {}
    for change in plan.changes:
        if change.kind not in ("create", "update"):
            continue
        if change.format == "tree":
            found[change.path] = [(rel, data) for rel, data, _ in change.files]
        elif change.after is not None:
            found[change.path] = change.after
    return found


@contextlib.contextmanager
def _captured() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """What is printed inside, kept as well as printed."""
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(_Tee(sys.stdout, out)),
        contextlib.redirect_stderr(_Tee(sys.stderr, err)),
    ):
        yield out, err


class _Tee(io.TextIOBase):
    def __init__(self, stream: Any, copy: io.StringIO) -> None:
        self.stream, self.copy = stream, copy

    def write(self, text: str) -> int:
        self.copy.write(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()


def home() -> Path:
    from memhub.compiler.install.state import memhub_home

    return memhub_home()


def install_diff_plan(
    hub: Path, scope: str, project: Path | None, hosts: str | None
) -> tuple[Any, Any, Any]:
    """The install plan as a bundle-style Plan, so `memhub diff` renders both alike (with the
    install plan and the hub it came from)."""
    from memhub.compiler.install.view import as_plan

    install, hub_model = make_install_plan(hub, scope, project, hosts, adopt=False)
    return as_plan(install), install, hub_model
