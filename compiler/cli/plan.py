"""`memhub plan`: what `memhub apply` would change in each host's files; and how install
plans are shown (planview.py), by plan, apply, uninstall and diff alike."""

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
from memhub.compiler.cli.planview import counts, print_plan
from memhub.compiler.formats import jsondump


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
