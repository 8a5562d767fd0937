"""CLI commands for installs: plan, apply, undo, restore, uninstall (registered on `memhub`)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
from memhub.hubspec import MemhubError

from .hosts import INSTALLERS
from .report import table


def parse_hosts(value: str | None) -> tuple[str, ...]:
    """`--hosts a,b`, else the hosts whose CLI is on PATH."""
    if value:
        hosts = tuple(h.strip() for h in value.split(",") if h.strip())
        unknown = [h for h in hosts if h not in INSTALLERS]
        if unknown:
            raise click.BadParameter(
                f"unknown host {', '.join(unknown)}; use some of: {', '.join(INSTALLERS)}",
                param_hint="--hosts",
            )
        return hosts
    found = tuple(
        name
        for name, host in INSTALLERS.items()
        if any(shutil.which(exe) for exe in host.executables)
    )
    if not found:
        names = ", ".join(exe for host in INSTALLERS.values() for exe in host.executables)
        raise MemhubError(
            f"no host CLI ({names}) found on PATH. Fix: name the hosts with --hosts claude,codex"
        )
    return found


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
        click.option("--hosts", "hosts", help="Comma-separated hosts (default: those on PATH)."),
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
) -> tuple[Any, Any]:
    """(a function making the install plan, the loaded hub): load and pick hosts once."""
    from memhub.hubspec import load

    from .install import plan_install
    from .scope import Scope
    from .state import memhub_home

    hub = load(hub_path, cache=memhub_home() / "cache")
    scope_obj = Scope.from_environment(scope, project)  # type: ignore[arg-type]
    chosen = parse_hosts(hosts)

    def make_plan() -> Any:
        return plan_install(
            hub, scope_obj, chosen, memhub_home(), adopt=adopt, remove_all=remove_all
        )

    return make_plan, hub


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
    from .install import plan_record

    if as_json:
        record = plan_record(plan)
        record["conflicts"] = list(plan.conflicts)
        record["warnings"] = list(plan.warnings)
        record["coverage"] = [r.to_json() for r in plan.coverage]
        click.echo(json.dumps(record, indent=2))
        return
    # Unchanged targets are counted, not listed: a hub of a thousand skills has thousands.
    rows = [(c.kind, c.path) for c in plan.changes if c.kind != "unchanged"]
    if rows:
        width = max(len(k) for k, _ in rows)
        for kind, path in rows:
            click.echo(f"{kind.rjust(width)}  {path}")
    unchanged = len(plan.changes) - len(rows)
    if unchanged:
        click.echo(f"{unchanged} target(s) unchanged")
    for conflict in plan.conflicts:
        click.echo(f"conflict  {conflict}", err=True)
    for warning in plan.warnings:
        click.echo(f"warning   {warning}", err=True)
    unsupported = [r for r in plan.coverage if r.status == "unsupported"]
    if unsupported:
        click.echo(
            table(
                [(r.host, r.component, r.id, r.reason) for r in unsupported],
                ("host", "component", "id", "not installed because"),
            ),
            nl=False,
        )


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
        from .install import plan_record

        plan, _ = _plan(hub, scope, project, hosts, adopt)
        if out is not None:
            record = plan_record(plan)
            record["hub_path"] = str(Path(hub).absolute())
            record["adopt"] = adopt
            out.write_text(json.dumps(record, indent=2) + "\n", "utf-8")
        _print_plan(plan, as_json)
        return 2 if plan.conflicts else 0

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
        saved = None
        if hub.suffix == ".json" and hub.is_file():
            from .install import load_saved_plan

            saved = load_saved_plan(hub)
            hub = Path(saved["hub_path"])
            scope, hosts, adopt = saved["scope"], ",".join(saved["hosts"]), saved["adopt"]
            project = Path(saved["project"]) if saved.get("project") else None

        def full() -> tuple[int, Any, Any]:
            from .install import apply_install

            make_plan, hub_model = _planner(hub, scope, project, hosts, adopt)
            done = apply_install(_home(), make_plan, saved=saved)
            _print_plan(done, as_json)
            if not as_json:
                click.echo(f"\napplied: {len(done.pending)} change(s); `memhub undo` reverts them")
                for host in done.hosts:
                    for step in INSTALLERS[host].after_install_steps(hub_model):
                        click.echo(f"next ({host}): {step}")
            return 0, done, hub_model

        if saved is not None or as_json:
            return full()[0]
        from .safewrite import operation_lock

        with operation_lock(_home()):  # no other apply is half way through what we check
            return remembered("apply", hub, scope, project, hosts, adopt, full)

    @cli.command("uninstall")
    @click.argument("hub", required=False, default=".", type=click.Path(path_type=Path))
    @install_options
    def uninstall_command(
        hub: Path, scope: str, project: Path | None, hosts: str | None, adopt: bool, as_json: bool
    ) -> int:
        """Remove only the entries this hub owns; everything else stays as it is."""
        from .install import apply_install

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
        from .install import undo_install
        from .safewrite import operation_lock

        home = _home()
        with operation_lock(home):
            for path in undo_install(home):
                click.echo(f"restored  {path}")
        return 0

    @cli.command("restore")
    @click.option(
        "--originals",
        is_flag=True,
        required=True,
        help="Return every file memhub touched to its first-touch original.",
    )
    def restore_command(originals: bool) -> int:
        """Put back the originals memhub kept before its first write (current state archived)."""
        from .safewrite import operation_lock, restore_originals

        home = _home()
        with operation_lock(home):
            for path in restore_originals(home):
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
    from .noopmemo import NoopMemo, Remembered, memo_key

    hub_file = hub / "hub.yaml" if hub.is_dir() else hub
    chosen = parse_hosts(hosts)
    args = {
        "command": command,
        "scope": scope,
        "project": os.path.abspath(project or ".") if scope == "project" else "",
        "hosts": ",".join(chosen),
        "adopt": adopt,
        "tty": sys.stdout.isatty(),
    }
    host_env = [name for host in chosen for name in INSTALLERS[host].placing_env]
    memo = NoopMemo(_home(), memo_key(hub_file, args, os.environ, host_env))
    env_file = hub_file.parent / ".env"
    from .secrets import check_env_file

    check_env_file(env_file)  # the memo hashes the .env: a FIFO there would block the read
    hit = memo.recall(os.environ, env_file)
    if hit is not None:
        sys.stdout.write(hit.stdout)
        sys.stderr.write(hit.stderr)
        return hit.code
    with _captured() as (out, err):
        code, plan, hub_model = full()
    if plan is not None and not plan.pending and not plan.conflicts:
        from .secrets import referenced_names

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
    from .state import STATE_FILE

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
    from .state import memhub_home

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
    from .artifact import Artifact
    from .plan import Change, Plan

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
