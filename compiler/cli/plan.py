"""`memhub plan`: what `memhub apply` would change in each host's files; and how install
plans are shown, by plan, apply, uninstall and diff alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from memhub.compiler.cli.installrun import make_install_plan
from memhub.compiler.cli.options import (
    EXIT_INVALID,
    EXIT_OK,
    error_record,
    install_options,
    reply,
    verbose_option,
)
from memhub.compiler.formats import jsondump

# the status words of an install plan, in the order the counts line gives them
KINDS = ("create", "update", "delete", "conflict", "unchanged")


@click.command("plan")
@click.argument("hub", required=False, default=".", type=click.Path(path_type=Path))
@install_options
@click.option(
    "--out",
    "out",
    type=click.Path(path_type=Path),
    help="Save the plan (fingerprints only, no contents) for `memhub apply PLAN`.",
)
@verbose_option
def command(
    hub: Path,
    scope: str,
    project: Path | None,
    hosts: str | None,
    adopt: bool,
    as_json: bool,
    out: Path | None,
    verbose: bool,
) -> int:
    """Show what `memhub apply` would change in each host's files. Writes nothing else.

    One status word per target that changes (-v: the unchanged ones too), a counts line,
    then conflicts, warnings and what a host carries with a caveat. Exit 2 on a conflict.
    """
    from memhub.compiler.install.engine import plan_record

    plan, _ = make_install_plan(hub, scope, project, hosts, adopt)
    if out is not None:
        record = plan_record(plan)
        record["hub_path"] = str(Path(hub).absolute())
        record["adopt"] = adopt
        out.write_text(jsondump.dumps(record, indent=2, ensure_ascii=True) + "\n", "utf-8")
    # apply would refuse either: an entry someone else owns, or one edited by hand
    code = EXIT_INVALID if plan.conflicts or plan.drifted else EXIT_OK
    if as_json:
        return reply_plan(plan, code)
    print_plan(plan, verbose=verbose)
    return code


def counts(plan: Any) -> dict[str, int]:
    """Targets per status word (conflict only when there is one)."""
    found = {kind: 0 for kind in KINDS}
    for change in plan.changes:
        found[change.word] = found.get(change.word, 0) + 1
    if not found["conflict"]:
        del found["conflict"]
    return found


def counts_line(plan: Any, what: str = "plan") -> str:
    """`plan: 2 create, 1 update, 0 delete, 40 unchanged (claude, codex; user scope)`."""
    words = ", ".join(f"{n} {kind}" for kind, n in counts(plan).items())
    return f"{what}: {words} ({', '.join(plan.hosts)}; {plan.scope.kind} scope)"


def plan_data(plan: Any) -> dict[str, Any]:
    """The plan document of `plan --json`: the saved plan's record, counts, conflicts, coverage."""
    from memhub.compiler.install.engine import plan_record

    record = plan_record(plan)
    record["counts"] = counts(plan)
    record["conflicts"] = list(plan.conflicts)
    record["coverage"] = [r.to_json() for r in plan.coverage]
    return record


def reply_plan(plan: Any, code: int) -> int:
    from memhub.compiler.install.engine import drift_messages

    found = [*plan.conflicts, *drift_messages(plan)]  # hand edits apply would overwrite too
    conflicts = [error_record("Conflict", c) for c in found]
    return reply(plan_data(plan), exit_code=code, warnings=plan.warnings, errors=conflicts)


def print_plan(plan: Any, *, verbose: bool = False, what: str = "plan") -> None:
    """Each changing target (all with `verbose`), the counts line, then `print_notes`."""
    from memhub.compiler.install.engine import prune_order

    # Unchanged targets are counted, not listed: a hub of a thousand skills has thousands.
    # `conflict`: an update or delete that would overwrite an entry edited by hand
    rows = [(c.word, c.path) for c in plan.changes if verbose or c.kind != "unchanged"]
    # folders memhub made for what goes, removed once empty
    rows += [("rmdir", f"{folder}/") for folder in prune_order(plan.pending)]
    if rows:
        width = max(len(k) for k, _ in rows)
        for kind, path in rows:
            click.echo(f"{kind.rjust(width)}  {path}")
    click.echo(counts_line(plan, what))
    print_notes(plan)


def print_notes(plan: Any, *, err: bool = False) -> None:
    """Conflicts and warnings (on stderr), then what a host carries with a caveat or cannot
    carry (on stdout, or stderr with `err`: diff keeps stdout for the diff)."""
    from memhub.compiler.install.engine import drift_messages
    from memhub.compiler.report import table  # with the host adapters: not for a replay

    for conflict in plan.conflicts:
        click.echo(f"conflict  {conflict}", err=True)
    for line in drift_messages(plan):  # entries edited by hand that apply would overwrite
        click.echo(f"conflict  {line}", err=True)
    for warning in plan.warnings:
        click.echo(f"warning   {warning}", err=True)
    # Carried with a difference (a server started through memhub's launcher, a header a
    # host cannot send): shown by plan, apply and diff alike, not only by build.
    for status, heading in (
        ("caveat", "installed with this caveat"),
        ("unsupported", "not installed because"),
    ):
        found = [(r.host, r.component, r.id, r.reason) for r in plan.coverage if r.status == status]
        if found:
            click.echo(table(found, ("host", "component", "id", heading)), nl=False, err=err)
