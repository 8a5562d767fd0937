"""`memhub project connect | disconnect | list`: the registry binding git checkouts to projects.

A project has a stable local id, never derived from a folder name or a remote; worktrees of a
bound repository share it; a moved checkout is bound again only on your word (`--project ID`).
Registry writes happen under memhub's one operation lock.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click
from memhub.compiler.cli.memory_common import InputError, MemoryGroup, json_option, memhub_home
from memhub.compiler.cli.memory_show import one_line
from memhub.compiler.cli.options import EXIT_OK, reply
from memhub.runtime.memory import layout
from memhub.runtime.memory import projects as P

ACTIONS = {
    P.CREATED: "connected as a new project",
    P.CREATED_NAMESAKE: "connected as a new project (another project has the same name; "
    "their ids and records stay apart)",
    P.WORKTREE: "connected: another worktree of this project",
    P.ALREADY: "already connected",
    P.RECONNECTED: "reconnected",
    P.REBOUND: "rebound: the project's old checkout is gone, this one replaces it",
    P.ATTACHED: "attached beside the project's other checkout",
}


def registry_path() -> Path:
    """projects.json of the memhub home."""
    return layout.projects_file(layout.memory_root(memhub_home()))


def project_row(project: P.Project) -> dict[str, Any]:
    """A project as `project list --json` prints it."""
    return {
        "id": project.id,
        "name": project.name,
        "state": project.state,
        "shared": project.shared,
        "bindings": [
            {
                "toplevel": b.toplevel,
                "common_dir": b.common_dir,
                "connected_at": b.connected_at,
                "exists": os.path.isdir(b.common_dir),
            }
            for b in project.bindings
        ],
    }


@click.group("project", cls=MemoryGroup, lazy={})
def command() -> None:
    """Bind git checkouts to memory projects.

    Memory records are filed under the project of the working directory's git checkout.
    A checkout no project is bound to files nothing until `memhub project connect`.
    """


@command.command("connect")
@click.argument("folder", required=False, type=click.Path(path_type=Path, file_okay=False))
@click.option("--name", metavar="NAME", help="The project's display name (default: the folder's).")
@click.option(
    "--project",
    "project_id",
    metavar="ID",
    help="Bind to this existing project (a moved checkout or another clone). Example: "
    "--project p-0123456789ab (`memhub project list` shows the ids)",
)
@click.option(
    "--shared/--no-shared",
    default=None,
    help="Whether this project reads shared records (a new project does; default: unchanged).",
)
@json_option
def connect_command(
    folder: Path | None,
    name: str | None,
    project_id: str | None,
    shared: bool | None,
    as_json: bool,
) -> int:
    """Bind the git checkout of FOLDER (default: the working directory) to a project.

    A new repository gets a new project with a random id; another worktree of a bound
    repository joins its project. A moved checkout or another clone joins an existing
    project only with --project ID.

    \b
    Examples:
      memhub project connect                       # this checkout, a new project
      memhub project connect ~/src/app --name app --no-shared
      memhub project connect --project p-0123456789ab   # rebind a moved checkout
    """
    from memhub.compiler.safewrite.lock import operation_lock
    from memhub.runtime.memory.gitcheckout import checkout_of

    where = (folder or Path.cwd()).resolve()
    checkout = checkout_of(where)
    if checkout is None:
        raise InputError(
            f"{where} is not inside a git checkout (or is the temporary folder): a project "
            "is bound to a checkout. Fix: run it in a git working tree (`git init` makes one)"
        )
    if project_id is not None:
        layout.check_name(project_id, "project id")
    if name is not None:
        _check_display_name(name)
    with operation_lock(memhub_home()):
        path = registry_path()
        before = P.load_registry(path)
        registry, pid, action = P.connect(before, checkout, name, project_id=project_id)
        if name is not None and registry.projects[pid].name != name:
            registry = P.Registry(
                {**registry.projects, pid: registry.projects[pid]._replace(name=name)}
            )
        if shared is not None:
            registry = P.set_shared(registry, pid, shared)
        if registry != before:
            _save(path, registry)
    project = registry.projects[pid]
    if as_json:
        return reply(
            {"action": action, "toplevel": checkout.toplevel, "project": project_row(project)}
        )
    click.echo(f"{checkout.toplevel}: {ACTIONS.get(action, action)}: {project.id} ({project.name})")
    if not project.shared:
        click.echo("shared records are off for this project (--shared turns them on)")
    return EXIT_OK


MAX_NAME = 200


def _check_display_name(name: str) -> None:
    """A project name: one line of printable text, not blank, of bounded length."""
    if not name.strip() or len(name) > MAX_NAME or not name.isprintable():
        raise InputError(
            f"--name {name[:60]!r} is not a usable name. Fix: give one line of text, "
            f"1-{MAX_NAME} printable characters"
        )


def _save(path: Path, registry: P.Registry) -> None:
    """Write the registry, but only one that reads back: a registry memhub cannot load would
    stop every memory command until fixed by hand."""
    P.from_json(P.to_json(registry), str(path))
    P.save_registry(path, registry)


def _target(registry: P.Registry, target: str | None) -> str:
    """The project id `target` names: an id, or a folder in one of its checkouts."""
    from memhub.runtime.memory.gitcheckout import checkout_of

    if target is not None and P.ID_PATTERN.fullmatch(target):
        if target not in registry.projects:
            raise InputError(f"no project {target}. Fix: `memhub project list` shows the ids")
        return target
    where = Path(target or Path.cwd()).resolve()
    checkout = checkout_of(where)
    owner = P.project_for_common_dir(registry, checkout.common_dir) if checkout else None
    if owner is None:
        raise InputError(
            f"{where} is not a checkout of a connected project. "
            "Fix: name the project id (`memhub project list` shows them)"
        )
    return owner.id


@command.command("disconnect")
@click.argument("target", required=False, metavar="[ID|DIR]")
@json_option
def disconnect_command(target: str | None, as_json: bool) -> int:
    """Disconnect a project (an id, or a folder in its checkout; default: the working
    directory's). Its records stay on disk, behind the gate: nothing resolves to it until
    `memhub project connect` reconnects it.

    Example: memhub project disconnect p-0123456789ab
    """
    from memhub.compiler.safewrite.lock import operation_lock

    with operation_lock(memhub_home()):
        path = registry_path()
        registry = P.load_registry(path)
        pid = _target(registry, target)
        updated = P.disconnect(registry, pid)
        if updated != registry:
            _save(path, updated)
    project = updated.projects[pid]
    if as_json:
        return reply({"project": project_row(project)})
    click.echo(
        f"disconnected {project.id} ({project.name}): its records are kept; "
        "`memhub project connect` in its checkout reconnects it"
    )
    return EXIT_OK


@command.command("list")
@json_option
def list_command(as_json: bool) -> int:
    """Every registered project: id, name, state, shared records on or off, checkouts."""
    registry = P.load_registry(registry_path())
    rows = [project_row(p) for p in P.list_projects(registry)]
    if as_json:
        return reply({"projects": rows})
    if not rows:
        click.echo("no projects (`memhub project connect` in a git checkout adds one)")
        return EXIT_OK
    for row in rows:
        shared = "shared" if row["shared"] else "no-shared"
        click.echo(f"{row['id']}  {one_line(row['name'])}  [{row['state']}, {shared}]")
        for b in row["bindings"]:
            gone = "" if b["exists"] else "  (gone)"
            click.echo(f"    {b['toplevel']}{gone}")
    return EXIT_OK
