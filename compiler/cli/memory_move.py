"""`memhub memory import | export`: adopting Markdown (yours, or a host's native memory) as
records, and copying selected records into a repository folder. Both are plans first.

The readers of Markdown files and of each host's native memory are runtime/memory/native.py's;
the originals are never changed. A re-import of a source that changed since is a conflict for
you to decide (exit 3), never an overwrite.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click
from memhub.compiler.cli.memory_common import (
    InputError,
    apply_options,
    json_option,
    open_service,
    project_option,
    yes_option,
)
from memhub.compiler.cli.memory_show import confirm_and_apply
from memhub.runtime.memory.native import HOSTS as NATIVE_HOSTS


def _native() -> Any:
    """runtime/memory/native.py (the readers), imported when an import runs."""
    from memhub.runtime.memory import native

    return native


@click.command("import")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path), metavar="[PATH]...")
@click.option(
    "--native",
    type=click.Choice(NATIVE_HOSTS),
    help="Import the current project's native memory of this host instead: Claude Code's "
    "auto-memory (MEMORY.md and its topic files), Codex's memories folder, or the "
    "'Gemini Added Memories' section of GEMINI.md.",
)
@click.option(
    "--force", is_flag=True, help="Import records even where an active one says the same."
)
@apply_options([yes_option, project_option, json_option])
def import_command(
    paths: tuple[Path, ...],
    native: str | None,
    force: bool,
    yes: bool,
    project: Path | None,
    as_json: bool,
) -> int:
    """Adopt Markdown files or folders as records (a plan first; the files stay as they are).

    A file's own front matter supplies kind, title, tags and triggers where it has them.
    Files already imported and unchanged are skipped; changed since their import, they are
    a conflict (exit 3) for you to decide. Files that are not Markdown are named and skipped.

    \b
    Examples:
      memhub memory import docs/decisions/ notes.md
      memhub memory import --native claude --yes
    """
    if bool(paths) == bool(native):
        raise InputError(
            "name Markdown files or folders, or --native HOST (not both, not neither). "
            "Fix: e.g. `memhub memory import notes.md` or `memhub memory import --native claude`"
        )
    service = open_service(project)
    readers = _native()
    if native is not None:
        cwd = project.resolve() if project is not None else Path.cwd()
        candidates, notes = readers.discover(native, cwd=cwd, env=dict(os.environ))
    else:
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise InputError(f"{', '.join(missing)}: no such file or folder. Fix: check the path")
        candidates, notes = readers.from_paths(list(paths))
    for note in notes:
        click.echo(f"memhub: {note}", err=True)
    plan = service.plan_import(candidates, force=force)
    extra = {"candidates": len(candidates), "skipped": list(notes)}
    return confirm_and_apply(service, plan, yes=yes, as_json=as_json, extra=extra)


@click.command("export")
@click.argument("record_ids", nargs=-1, required=True, metavar="ID...")
@click.option(
    "--to",
    "dest",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    metavar="DIR",
    help="The folder (in a repository) the record files are copied into. Example: --to docs/memory",
)
@apply_options([yes_option, project_option, json_option])
def export_command(
    record_ids: tuple[str, ...], dest: Path, yes: bool, project: Path | None, as_json: bool
) -> int:
    """Copy selected records' files into a folder of a repository (records stay local
    otherwise: this is the one way one leaves memhub's home). A plan first.

    Example: memhub memory export r-20260101120000-0a1b2c3d --to docs/memory --yes
    """
    service = open_service(project)
    plan = service.plan_export(list(record_ids), dest.resolve())
    return confirm_and_apply(service, plan, yes=yes, as_json=as_json)
