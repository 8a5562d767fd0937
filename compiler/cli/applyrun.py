"""What `memhub apply` does once its arguments are read, by click (apply.py) or, for a plain
`memhub apply`, by replay.parse_apply (main.py runs it without importing click, which costs
a first apply a tenth of its time). No click here."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from memhub.compiler.cli import installrun
from memhub.compiler.cli.echo import echo
from memhub.compiler.cli.exitcodes import EXIT_OK
from memhub.compiler.cli.planview import counts, print_plan
from memhub.compiler.cli.replay import apply_command

if TYPE_CHECKING:
    from memhub.compiler.cli.replay import ApplyArgs


def run_plain(args: ApplyArgs) -> int:
    """A plain `memhub apply` (no --json, no saved plan), as replay.parse_apply read it."""
    return run(
        args.hub,
        args.scope,
        args.project,
        args.hosts,
        args.adopt,
        verbose=args.verbose,
        force=args.force,
    )


def run(
    hub: Path,
    scope: str,
    project: Path | None,
    hosts: str | None,
    adopt: bool,
    *,
    as_json: bool = False,
    verbose: bool = False,
    force: bool = False,
    saved: dict[str, Any] | None = None,
    plan_file: Path | None = None,
) -> int:
    """Apply the hub (or the saved plan `saved`, read from `plan_file`) and print the
    outcome; a plain run is remembered by the no-op memo (see installrun.remembered)."""

    def full() -> tuple[int, Any, Any]:
        from memhub.compiler.install.engine import apply_install

        make_plan, hub_model = installrun.planner(
            hub, scope, project, hosts, adopt, saved_plan=plan_file
        )
        done = apply_install(installrun.home(), make_plan, saved=saved, force=force)
        prime_memory_server(hub_model)
        return report(done, hub_model), done, hub_model

    def report(done: Any, hub_model: Any) -> int:
        from memhub.compiler.hosts import INSTALLERS  # not needed by a replayed no-op

        steps = [
            (host, step)
            for host in done.hosts
            for step in INSTALLERS[host].after_install_steps(hub_model, done.scope)
        ]
        if as_json:
            from memhub.compiler.cli.options import reply

            return reply(applied_data(done, steps), warnings=done.warnings)
        print_plan(done, verbose=verbose, what="apply")
        echo(f"\napplied: {len(done.pending)} change(s); `memhub undo` reverts them")
        for host, step in steps:
            echo(f"next ({host}): {step}")
        return EXIT_OK

    if saved is not None or as_json:
        return full()[0]
    from memhub.compiler.safewrite.lock import operation_lock

    with operation_lock(installrun.home()):  # no other apply is half way through what we check
        # the next apply after this one is a no-op: it is remembered now, printing what
        # `report` prints for the plan once applied
        command = apply_command(verbose)
        return installrun.remembered(command, hub, scope, project, hosts, adopt, full, report)


def prime_memory_server(hub_model: Any) -> None:
    """Fill the memory server's handshake cache now (once per home and memhub/SDK version),
    so that even the first session after apply lists its tools in time (Codex waits about a
    second; see runtime/server/frontdoor.py). Best effort: a failure only leaves it cold."""
    memory = getattr(hub_model, "memory", None)
    if memory is None or memory.server == "off":
        return
    from memhub.runtime.backends.base import memhub_home
    from memhub.runtime.server import frontdoor, primer

    writable = memory.server == "write"
    home = memhub_home()  # the server's own: what the host's environment gives it
    if not frontdoor.Cache(
        frontdoor.cache_file(home, writable), frontdoor.cache_key(writable)
    ).complete:
        try:
            primer.prime(home, writable)
        except Exception:  # an SDK or disk problem here never fails the apply
            return


def applied_data(done: Any, steps: list[tuple[str, str]]) -> dict[str, Any]:
    """What `apply --json` reports: what changed where, and what is left to do by hand."""
    return {
        "scope": done.scope.kind,
        "project": str(done.scope.project) if done.scope.project else None,
        "hosts": list(done.hosts),
        "applied": [{"path": c.path, "kind": c.kind} for c in done.pending],
        "counts": counts(done),
        "caveats": [r.to_json() for r in done.coverage if r.status != "mapped"],
        "next": [{"host": host, "step": step} for host, step in steps],
        "undo": "memhub undo" if done.pending else None,
    }
