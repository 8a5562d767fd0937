"""`memhub history`: the runs memhub's journal keeps, newest first; `undo` takes the marked one."""

from __future__ import annotations

import click
from memhub.compiler.cli.options import EXIT_OK, json_option, reply


@click.command("history")
@json_option
def command(as_json: bool) -> int:
    """List the runs memhub's journal keeps (apply, uninstall, undo, restore), newest first.

    `memhub undo` reverts the run marked `<- undo` (the newest not yet undone), then the one
    before it: a stack. Only the newest 10 applies and uninstalls are kept."""
    from memhub.compiler.install.state import memhub_home
    from memhub.compiler.safewrite.history import history

    runs = history(memhub_home())
    if as_json:
        return reply({"runs": [r.to_json() for r in runs]})
    if not runs:
        click.echo("no runs yet: the journal is empty")
        return EXIT_OK
    for run in runs:
        notes = []
        if run.undoes:
            notes.append(f"undid {run.undoes}")
        if run.undone_by:
            notes.append(f"undone by {run.undone_by}")
        if run.state != "committed":
            notes.append(run.state.replace("_", " "))
        if run.project:
            notes.append(f"in {run.project}")
        mark = "  <- undo" if run.next_undo else ""
        extra = f"  ({'; '.join(notes)})" if notes else ""
        click.echo(
            f"{run.run_id}  {run.command:<9} {run.paths:>5} path{'s' if run.paths != 1 else ' '}"
            f"{extra}{mark}"
        )
    return EXIT_OK
