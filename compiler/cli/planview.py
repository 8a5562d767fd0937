"""How an install plan is shown, by plan, apply, uninstall and diff alike: one status word
per changing target, the counts line, then conflicts, warnings and caveats. No click: a plain
`memhub apply` prints these without the command tree."""

from __future__ import annotations

from typing import Any

from memhub.compiler.cli.echo import echo

# the status words of an install plan, in the order the counts line gives them
KINDS = ("create", "update", "delete", "conflict", "unchanged")


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
            echo(f"{kind.rjust(width)}  {path}")
    echo(counts_line(plan, what))
    print_notes(plan)


def print_notes(plan: Any, *, err: bool = False) -> None:
    """Conflicts and warnings (on stderr), then what a host carries with a caveat or cannot
    carry (on stdout, or stderr with `err`: diff keeps stdout for the diff)."""
    from memhub.compiler.install.engine import drift_messages
    from memhub.compiler.report import table  # with the host adapters: not for a replay

    for conflict in plan.conflicts:
        echo(f"conflict  {conflict}", err=True)
    for line in drift_messages(plan):  # entries edited by hand that apply would overwrite
        echo(f"conflict  {line}", err=True)
    for warning in plan.warnings:
        echo(f"warning   {warning}", err=True)
    # Carried with a difference (a server started through memhub's launcher, a header a
    # host cannot send): shown by plan, apply and diff alike, not only by build.
    for status, heading in (
        ("caveat", "installed with this caveat"),
        ("unsupported", "not installed because"),
    ):
        found = [(r.host, r.component, r.id, r.reason) for r in plan.coverage if r.status == status]
        if found:
            echo(table(found, ("host", "component", "id", heading)), nl=False, err=err)
