"""`memhub undo`: revert the newest run not yet undone, as one unit (a stack: run it again
to step further back); `--dry-run` shows what it would put back and writes nothing."""

from __future__ import annotations

from typing import Any

import click
from memhub.compiler.cli.options import EXIT_NOTHING, EXIT_OK, error_record, json_option, reply

NOTHING = "nothing to undo: no apply, uninstall or restore is left in the journal"


@click.command("undo")
@click.option("--dry-run", "dry_run", is_flag=True, help="Show what undo would put back.")
@json_option
def command(dry_run: bool, as_json: bool) -> int:
    """Revert the newest apply, uninstall or restore not yet undone, as one unit (refuses,
    exit 3, if a later change touched what it wrote).

    Undo is a stack: run it again to step further back, through the last 10 applies and
    uninstalls (`memhub history` lists them and marks the one undo takes next). memhub
    keeps the journals and pre-images of those only; the first-touch originals of
    `restore --originals` are always kept. With nothing left to undo it says so and exits
    1. --dry-run prints what it would put back and writes nothing."""
    from memhub.compiler.install.engine import undo_install, undo_resolver
    from memhub.compiler.install.state import memhub_home
    from memhub.compiler.safewrite.lock import operation_lock
    from memhub.compiler.safewrite.undo import last_undoable, preview_undo

    home = memhub_home()
    with operation_lock(home):
        preview = None
        if dry_run:
            preview = preview_undo(home, undo_resolver(home))
            run = preview.run if preview is not None else None
        else:
            run = last_undoable(home)  # which run undo takes; cheap, reads journals only
        if run is None:
            return _nothing(as_json, dry_run)
        data = _describe(run, dry_run)
        if dry_run:
            steps = preview.steps if preview is not None else []
            data["steps"] = [
                {"path": str(s.path), "kind": s.kind, "action": s.action} for s in steps
            ]
        else:
            data["restored"] = [str(p) for p in undo_install(home)]
    if as_json:
        return reply(data)
    if dry_run:
        click.echo(f"would undo run {data['run']} ({data['command']}, {data['started']}):")
        for step in data["steps"]:
            click.echo(f"  {step['action']:<16} {step['path']}")
        click.echo("nothing written (--dry-run)")
    else:
        click.echo(f"undid run {data['run']} ({data['command']}, {data['started']})")
        for path in data["restored"]:
            click.echo(f"restored  {path}")
    return EXIT_OK


def _describe(run: Any, dry_run: bool) -> dict[str, Any]:
    """The JSON record of an undo (or its preview): the run it reverts."""
    return {"dry_run": dry_run, "run": run.run_id, "command": run.command, "started": run.started}


def _nothing(as_json: bool, dry_run: bool) -> int:
    """Say there is nothing to undo, with its own exit code (CI can tell it from success)."""
    if as_json:
        data: dict[str, Any] = {"dry_run": dry_run, "run": None, "steps": [], "restored": []}
        return reply(data, exit_code=EXIT_NOTHING, errors=[error_record("NothingToUndo", NOTHING)])
    click.echo(f"memhub: {NOTHING}", err=True)
    return EXIT_NOTHING
