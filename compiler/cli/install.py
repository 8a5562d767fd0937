"""CLI commands for installs: plan, apply, undo, restore, uninstall (registered on `memhub`)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from memhub.compiler.hosts import INSTALLERS
from memhub.compiler.report import table
from memhub.hubspec import MemhubError


def parse_hosts(value: str | None, bound: Sequence[str] | None = None) -> tuple[str, ...]:
    """`--hosts a,b`, else the hosts whose CLI is on PATH (among `bound`, when given)."""
    return choose_hosts(value, bound).hosts


@dataclass(frozen=True, slots=True)
class HostChoice:
    """The hosts an install command works on, and one line saying why those."""

    hosts: tuple[str, ...]
    why: str

    def line(self) -> str:
        return f"hosts: {', '.join(self.hosts)} ({self.why})"


def choose_hosts(
    value: str | None, bound: Sequence[str] | None = None, hub_file: str = "hub.yaml"
) -> HostChoice:
    """`--hosts a,b` as given; else the hosts in `bound` (the hub's `hosts:`) whose CLI is on
    PATH. A hub written for Claude alone must not land in Codex because codex is installed."""
    if value:
        hosts = tuple(h.strip() for h in value.split(",") if h.strip())
        unknown = [h for h in hosts if h not in INSTALLERS]
        if unknown:
            raise click.BadParameter(
                f"unknown host {', '.join(unknown)}; use some of: {', '.join(INSTALLERS)}",
                param_hint="--hosts",
            )
        return HostChoice(hosts, "as named by --hosts")
    candidates = [name for name in INSTALLERS if bound is None or name in bound]
    if not candidates:
        raise MemhubError(
            f"{hub_file}: `hosts:` ({', '.join(bound or ())}) names no host memhub installs "
            f"into ({', '.join(INSTALLERS)}). Fix: add one to `hosts:`, or name them with "
            "--hosts claude,codex"
        )
    found = tuple(name for name in candidates if _on_path(name))
    missing = [name for name in candidates if name not in found]
    if not found:
        names = ", ".join(exe for name in candidates for exe in INSTALLERS[name].executables)
        fix = f"Fix: name the hosts with --hosts {','.join(candidates[:2])}"
        if bound is None:
            raise MemhubError(f"no host CLI ({names}) found on PATH. {fix}")
        raise MemhubError(
            f"{hub_file}: `hosts:` lists {', '.join(candidates)}, and none of their CLIs "
            f"({names}) is on PATH. {fix}, or add a host whose CLI is installed to `hosts:`"
        )
    why = "the hub's `hosts:` whose CLI is on PATH" if bound is not None else "CLI on PATH"
    if missing:
        why += f"; not on PATH: {', '.join(missing)}"
    left_out = [name for name in INSTALLERS if name not in candidates and _on_path(name)]
    if left_out:
        why += f"; on PATH but not in `hosts:`: {', '.join(left_out)}"
    return HostChoice(found, why + "; --hosts chooses")


def _on_path(host: str) -> bool:
    return any(shutil.which(exe) for exe in INSTALLERS[host].executables)


def scope_option(help: str, default: str | None = "user") -> Any:
    """`--scope user|project`, as every install-side command spells it."""
    return click.option(
        "--scope",
        type=click.Choice(["user", "project"]),
        default=default,
        show_default=default is not None,
        help=help,
    )


def project_option(
    help: str = "The checkout for --scope project (default: the current folder).",
) -> Any:
    return click.option(
        "--project", "project", type=click.Path(path_type=Path, file_okay=False), help=help
    )


def install_options(command: Any) -> Any:
    options = [
        scope_option("Install into your home (user) or a checkout (project)."),
        project_option(),
        click.option(
            "--hosts",
            "hosts",
            help="Comma-separated hosts (default: the hub's `hosts:` whose CLI is on PATH).",
        ),
        click.option(
            "--adopt",
            is_flag=True,
            help="Take over entries of the same name that memhub does not own.",
        ),
        click.option("--json", "as_json", is_flag=True, help="Print one JSON document."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _planner(
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
    click.echo(choice.line(), err=True)
    chosen = choice.hosts

    def make_plan() -> Any:
        return plan_install(
            hub, scope_obj, chosen, memhub_home(), adopt=adopt, remove_all=remove_all
        )

    return make_plan, hub


def _plugin_planner(
    plugin: str, scope: str, project: Path | None, hosts: str | None
) -> Callable[[], Any]:
    """The uninstall plan of every entry owned by `plugin`; refuses a name that owns none."""
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
    click.echo(choice.line(), err=True)
    chosen = choice.hosts
    known = _installed_plugins(scope_obj.id)
    if plugin not in known.split(", "):
        known = known or "none"
        raise MemhubError(
            f"{memhub_home() / 'state.json'}: memhub installed nothing for plugin {_shown(plugin)} "
            f"in {scope_obj.id} scope (plugins installed there: {known}). Fix: check the "
            "name and --scope/--project"
        )

    def make_plan() -> Any:
        return plan_uninstall_plugin(plugin, scope_obj, chosen, memhub_home())

    return make_plan


def _shown(name: str, limit: int = 80) -> str:
    """A name as a message quotes it: repr, cut to `limit` characters (a name is typed by a
    person or a script; a 10,000-character one must not flood the terminal)."""
    quoted = repr(name)
    return quoted if len(quoted) <= limit else f"{quoted[: limit - 5]}...' ({len(name)} chars)"


def _installed_plugins(scope_id: str | None) -> str:
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


def _plan(
    hub_path: Path,
    scope: str,
    project: Path | None,
    hosts: str | None,
    adopt: bool,
    remove_all: bool = False,
) -> tuple[Any, Any]:
    make_plan, hub = _planner(hub_path, scope, project, hosts, adopt, remove_all)
    return make_plan(), hub


def _print_plan(plan: Any, as_json: bool) -> None:
    from memhub.compiler.install.engine import plan_record, prune_order

    if as_json:
        record = plan_record(plan)
        record["conflicts"] = list(plan.conflicts)
        record["warnings"] = list(plan.warnings)
        record["coverage"] = [r.to_json() for r in plan.coverage]
        click.echo(json.dumps(record, indent=2))
        return
    # Unchanged targets are counted, not listed: a hub of a thousand skills has thousands.
    rows = [(c.kind, c.path) for c in plan.changes if c.kind != "unchanged"]
    # folders memhub made for what goes, removed once empty
    rows += [("rmdir", f"{folder}/") for folder in prune_order(plan.pending)]
    if rows:
        width = max(len(k) for k, _ in rows)
        for kind, path in rows:
            click.echo(f"{kind.rjust(width)}  {path}")
    unchanged = sum(1 for c in plan.changes if c.kind == "unchanged")
    if unchanged:
        click.echo(f"{unchanged} target(s) unchanged")
    for conflict in plan.conflicts:
        click.echo(f"conflict  {conflict}", err=True)
    for warning in plan.warnings:
        click.echo(f"warning   {warning}", err=True)
    # Carried with a difference (a server started through memhub's launcher, a header a
    # host cannot send): shown by plan and apply alike, not only by build.
    for status, heading in (
        ("caveat", "installed with this caveat"),
        ("unsupported", "not installed because"),
    ):
        found = [(r.host, r.component, r.id, r.reason) for r in plan.coverage if r.status == status]
        if found:
            click.echo(table(found, ("host", "component", "id", heading)), nl=False)


def register(cli: click.Group) -> None:
    """Add the install commands to the `memhub` group."""

    @cli.command("plan")
    @click.argument("hub", required=False, default=".", type=click.Path(path_type=Path))
    @install_options
    @click.option(
        "--out",
        "out",
        type=click.Path(path_type=Path),
        help="Save the plan (fingerprints only, no contents) for `memhub apply PLAN`.",
    )
    def plan_command(
        hub: Path,
        scope: str,
        project: Path | None,
        hosts: str | None,
        adopt: bool,
        as_json: bool,
        out: Path | None,
    ) -> int:
        """Show what `memhub apply` would change in each host's files. Writes nothing else."""
        from memhub.compiler.install.engine import plan_record

        plan, _ = _plan(hub, scope, project, hosts, adopt)
        if out is not None:
            record = plan_record(plan)
            record["hub_path"] = str(Path(hub).absolute())
            record["adopt"] = adopt
            out.write_text(json.dumps(record, indent=2) + "\n", "utf-8")
        _print_plan(plan, as_json)
        return 2 if plan.conflicts else 0

    def _refuse_options_beside_a_saved_plan(plan_file: Path) -> None:
        """A saved plan fixes what it was made for: an option given beside it would be
        silently overridden by the plan, so it is refused instead (exit 2)."""
        ctx = click.get_current_context()
        given = [
            f"--{name.replace('_', '-')}"
            for name in ("scope", "project", "hosts", "adopt")
            if ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE
        ]
        if given:
            raise click.UsageError(
                f"{plan_file}: a saved plan fixes its scope, project, hosts and --adopt; "
                f"{', '.join(given)} cannot change them. Fix: drop {', '.join(given)}, or "
                "make a new plan with `memhub plan --out`"
            )

    @cli.command("apply")
    @click.argument("hub", required=False, default=".", type=click.Path(path_type=Path))
    @install_options
    def apply_command(
        hub: Path, scope: str, project: Path | None, hosts: str | None, adopt: bool, as_json: bool
    ) -> int:
        """Merge the hub's entries into each host's user or project files, safely.

        HUB may be a plan saved by `memhub plan --out`: it is applied only if no target and
        no hub input changed since (else exit 3).
        """
        saved, plan_file = None, None
        if hub.suffix == ".json" and hub.is_file():
            from memhub.compiler.install.engine import load_saved_plan

            saved, plan_file = load_saved_plan(hub), hub
            _refuse_options_beside_a_saved_plan(hub)
            hub = Path(saved["hub_path"])
            scope, hosts, adopt = saved["scope"], ",".join(saved["hosts"]), saved["adopt"]
            project = Path(saved["project"]) if saved.get("project") else None

        def full() -> tuple[int, Any, Any]:
            from memhub.compiler.install.engine import apply_install

            make_plan, hub_model = _planner(hub, scope, project, hosts, adopt, saved_plan=plan_file)
            done = apply_install(_home(), make_plan, saved=saved)
            _print_plan(done, as_json)
            if not as_json:
                click.echo(f"\napplied: {len(done.pending)} change(s); `memhub undo` reverts them")
                for host in done.hosts:
                    for step in INSTALLERS[host].after_install_steps(hub_model, done.scope):
                        click.echo(f"next ({host}): {step}")
            return 0, done, hub_model

        if saved is not None or as_json:
            return full()[0]
        from memhub.compiler.safewrite.lock import operation_lock

        with operation_lock(_home()):  # no other apply is half way through what we check
            return remembered("apply", hub, scope, project, hosts, adopt, full)

    @cli.command("uninstall")
    @click.argument("hub", required=False, type=click.Path(path_type=Path))
    @install_options
    @click.option(
        "--plugin",
        "plugin",
        metavar="NAME",
        help="Remove what memhub installed for plugin NAME, without its hub "
        "(hosts default to all).",
    )
    def uninstall_command(
        hub: Path | None,
        scope: str,
        project: Path | None,
        hosts: str | None,
        adopt: bool,
        as_json: bool,
        plugin: str | None,
    ) -> int:
        """Remove only the entries this hub (or --plugin NAME) owns; everything else stays."""
        from memhub.compiler.install.engine import apply_install

        if plugin is not None:
            if hub is not None:
                raise click.UsageError("give a HUB or --plugin NAME, not both")
            if not plugin.strip():
                raise click.UsageError(
                    "--plugin needs a plugin's name. Fix: name one of the installed plugins "
                    f"({_installed_plugins(None) or 'none'})"
                )
            make_plan = _plugin_planner(plugin, scope, project, hosts)
        else:
            hub = hub or Path(".")
            if not (hub.is_file() or (hub / "hub.yaml").is_file()):
                raise MemhubError(
                    f"{hub}: no hub here. Fix: pass the hub folder, or run `memhub uninstall "
                    f"--plugin NAME` to remove what a plugin installed without its hub "
                    f"(installed: {_installed_plugins(None) or 'none'})"
                )
            make_plan, _ = _planner(hub, scope, project, hosts, adopt, remove_all=True)
        done = apply_install(_home(), make_plan)
        _print_plan(done, as_json)
        return 0

    @cli.command("undo")
    def undo_command() -> int:
        """Revert the last apply or uninstall as one unit (refuses if a later change touched it).

        Run again to step further back, through the last 10 applies and uninstalls: memhub
        keeps the journals and pre-images of those only (older ones are pruned after each
        run; the first-touch originals of `restore --originals` are always kept)."""
        from memhub.compiler.install.engine import undo_install
        from memhub.compiler.safewrite.lock import operation_lock

        home = _home()
        with operation_lock(home):
            for path in undo_install(home):
                click.echo(f"restored  {path}")
        return 0


def remembered(
    command: str,
    hub: Path,
    scope: str,
    project: Path | None,
    hosts: str | None,
    adopt: bool,
    full: Callable[[], tuple[int, Any, Any]],
) -> int:
    """Run `full` (printing as it goes), or replay what it printed when every input of a
    previous no-op run is unchanged (see noopmemo). `full` returns (exit code, install plan,
    hub); only a plan with nothing to do and no conflict is remembered."""
    from memhub.compiler.install.noopmemo import NoopMemo, Remembered, memo_key
    from memhub.compiler.install.scope import installation_scripts

    hub_file = hub / "hub.yaml" if hub.is_dir() else hub
    chosen = parse_hosts(hosts)
    args = {
        "command": command,
        "scope": scope,
        "project": os.path.abspath(project or ".") if scope == "project" else "",
        "hosts": ",".join(chosen),
        "adopt": adopt,
        "tty": sys.stdout.isatty(),
        # hooks and launchers name this installation's scripts: installing memhub (after
        # the bare-name warning), moving or reinstalling it changes what apply writes
        "scripts": os.fspath(installation_scripts() or ""),
    }
    host_env = [name for host in chosen for name in INSTALLERS[host].placing_env]
    memo = NoopMemo(_home(), memo_key(hub_file, args, os.environ, host_env))
    env_file = hub_file.parent / ".env"
    from memhub.compiler.install.secrets import check_env_file

    check_env_file(env_file)  # the memo hashes the .env: a FIFO there would block the read
    hit = memo.recall(os.environ, env_file)
    if hit is not None:
        sys.stdout.write(hit.stdout)
        sys.stderr.write(hit.stderr)
        return hit.code
    with _captured() as (out, err):
        code, plan, hub_model = full()
    if plan is not None and not plan.pending and not plan.conflicts:
        from memhub.compiler.install.secrets import referenced_names

        memo.remember(
            _inputs(hub_model, plan),
            referenced_names(hub_model),
            os.environ,
            env_file,
            Remembered(out.getvalue(), err.getvalue(), code),
        )
    else:
        memo.forget()
    return code


def _inputs(hub: Any, plan: Any) -> list[str]:
    """Every file and folder a plan read: the hub's sources, the targets, the state."""
    from memhub.compiler.install.state import STATE_FILE

    root = Path(hub.root)
    paths = [root / "hub.yaml", root / ".env", _home() / STATE_FILE]
    skills = {str(Path(s.origin.file).parent.parent) for s in hub.skills}
    paths += [Path(p) for p in skills] or [root / "skills"]
    if hub.instructions:
        paths.append(root / hub.instructions.source)
    if hub.plugin.icon:
        paths.append(root / hub.plugin.icon.source)
    return [os.fspath(p) for p in paths] + [c.path for c in plan.changes]


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


def _home() -> Path:
    from memhub.compiler.install.state import memhub_home

    return memhub_home()


def _tree_listing(files: Any) -> bytes:
    """A folder shown as one line per file (path, sha256, mode) so it diffs as text."""
    import hashlib

    lines = [
        f"{rel}  sha256:{hashlib.sha256(data).hexdigest()[:16]}  {mode:o}\n"
        for rel, data, mode in sorted(files)
    ]
    return "".join(lines).encode()


def install_diff_plan(
    hub: Path, scope: str, project: Path | None, hosts: str | None
) -> tuple[Any, Any, Any]:
    """The install plan as a bundle-style Plan, so `memhub diff` renders both alike (with the
    install plan and the hub it came from)."""
    from memhub.compiler.artifact import Artifact
    from memhub.compiler.plan import Change, Plan

    install, hub_model = _plan(hub, scope, project, hosts, adopt=False)
    for conflict in install.conflicts:
        click.echo(f"conflict  {conflict}", err=True)
    changes = []
    for c in install.changes:
        rel = c.path.lstrip("/")
        if c.kind == "unchanged":
            # counted, never shown: no content to render (thousands of skill folders)
            suffix = "/ (folder)" if c.format == "tree" else ""
            changes.append(Change("/" + rel + suffix, c.kind, None, c.actual))
            continue
        if c.format == "tree":
            before = _tree_listing(c.before_files) if Path(c.path).exists() else None
            after = _tree_listing(c.files) if c.kind != "delete" else None
            name = rel + "/ (folder)"
        else:
            before, after, name = c.before, c.after, rel
        target = Artifact(name, after) if after is not None else None
        changes.append(Change("/" + name, c.kind, target, c.actual, before))
    return Plan("/", tuple(changes)), install, hub_model
