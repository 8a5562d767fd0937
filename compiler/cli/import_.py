"""`memhub import`: collect what each host has installed into a new hub.

Always prints a preview first; writes only after a yes (a terminal prompt, or --yes), into a
folder without a hub.yaml, and never touches the host files it read.
"""

from __future__ import annotations

import getpass
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from memhub.compiler.cli.hostchoice import parse_hosts
from memhub.compiler.cli.options import project_option, reply, scope_option
from memhub.compiler.hosts import INSTALLERS
from memhub.compiler.install.scope import Scope, scope_kind
from memhub.compiler.safewrite import targetfs
from memhub.hubspec import MemhubError

if TYPE_CHECKING:
    from memhub.compiler.importing.planner import ImportPlan

HUB_FILE = "hub.yaml"  # hubspec.load's; imported lazily with the loader

ENV_FILE = ".env"
ENV_MODE = 0o600


class ConfirmationNeeded(MemhubError):
    """No terminal to ask on and no --yes: the preview was shown, nothing written."""

    exit_code = 1


@click.command("import")
@click.option(
    "--into",
    "into",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Folder of the new hub (created; refused if it already holds a hub.yaml).",
)
@click.option(
    "--hosts",
    "hosts",
    help="Comma-separated hosts to read (default: claude,codex,cursor,gemini,copilot).",
)
@scope_option("Read the hosts' user files (your home) or a checkout's project files.")
@project_option()
@click.option(
    "--from-repo",
    "from_repo",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Import a plugin repository (its marketplaces, manifests, servers, skills, agents, "
    "commands and files) instead of the hosts' installed config; prints a round-trip report "
    "and exits 1 when its build cannot reproduce every file.",
)
@click.option("--yes", is_flag=True, help="Write without asking (needed without a terminal).")
@click.option("--dry-run", "dry_run", is_flag=True, help="Print the preview; write nothing.")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON document: the preview, and whether it was written (asks nothing: "
    "needs --yes or --dry-run).",
)
def command(
    into: Path,
    hosts: str | None,
    scope: str,
    project: Path | None,
    from_repo: Path | None,
    yes: bool,
    dry_run: bool,
    as_json: bool,
) -> int:
    """Collect the MCP servers, skills and instruction files installed in each host into a
    new hub at INTO.

    Prints a preview first: the hub.yaml it would write (every item under a comment naming
    the file and key it came from), the skill folders and instruction files it would copy,
    and each secret it would move into INTO/.env (name and source; values never shown).
    Literal secrets become ${env:NAME} references; .env is created with mode 0600 and only
    gains missing names. Entries memhub itself installed are skipped. The host files are
    only read, never changed. --dry-run stops after the preview; otherwise it asks on a
    terminal, and without one needs --yes (else exit 1, nothing written).
    """
    if from_repo is not None:
        from memhub.compiler.cli.import_repo import run

        if hosts or project:
            # a repository is read whole: no host's installed config is involved
            raise click.UsageError("--from-repo reads a repository: drop --hosts and --project")
        return run(from_repo, into, yes, dry_run, as_json)
    chosen = parse_hosts(hosts) if hosts else tuple(INSTALLERS)
    plan = _plan(into, chosen, scope, project)
    if as_json:
        return _reply_import(plan, into, yes, dry_run)
    click.echo(preview_text(plan, into, scope, chosen), nl=False)
    if plan.empty:
        click.echo("nothing to import; nothing written", err=True)
        return 0
    if dry_run:
        return 0
    if not yes and not _confirmed(into):
        click.echo("nothing written", err=True)
        return 1
    from memhub.compiler.importing.writer import write_hub

    write_hub(plan, into)
    click.echo(_done_line(plan, into))
    return 0


def _plan(into: Path, chosen: tuple[str, ...], scope: str, project: Path | None) -> ImportPlan:
    """Read what each chosen host has installed and plan the new hub at `into`."""
    from memhub.compiler.importing.writer import refuse_existing_hub

    refuse_existing_hub(into)
    scope_obj = Scope.from_environment(scope_kind(scope), project)
    installed = [INSTALLERS[host].read_installed(scope_obj) for host in chosen]
    env_file, ignore_file = into / ENV_FILE, into / ".gitignore"
    from memhub.compiler.cli.init import _kebab
    from memhub.compiler.importing.planner import plan_import

    return plan_import(
        installed,
        name=_kebab(into.absolute().name),
        owner=_owner(),
        scope=scope,
        existing_env=_read(env_file),
        existing_gitignore=_read(ignore_file),
    )


def _confirmed(into: Path) -> bool:
    """Asked on a terminal; without one, refused (ConfirmationNeeded, exit 1)."""
    if not interactive():
        raise ConfirmationNeeded(
            "no terminal to confirm on: nothing written. Fix: review the preview "
            "above and run again with --yes"
        )
    return click.confirm(f"Write this hub into {into}?", default=False, err=True)


def _reply_import(plan: ImportPlan, into: Path, yes: bool, dry_run: bool) -> int:
    """`import --json`: the preview, then written only with --yes (it asks nothing)."""
    data = {**preview_json(plan, into), "written": False}
    if plan.empty or dry_run:
        notes = ["nothing to import; nothing written"] if plan.empty else []
        return reply(data, warnings=notes)
    if not yes:
        refusal = ConfirmationNeeded("--json asks nothing: nothing written. Fix: add --yes")
        return reply(data, exit_code=refusal.exit_code, errors=[refusal.to_json()])
    from memhub.compiler.importing.writer import write_hub

    write_hub(plan, into)
    return reply({**data, "written": True, "next": [f"memhub validate {into}"]})


def _done_line(plan: ImportPlan, into: Path) -> str:
    return (
        f"imported into {into}: {len(plan.servers)} MCP server(s), "
        f"{sum(c.target.startswith('skills/') for c in plan.copies)} skill(s), "
        f"{sum(c.target.startswith('instructions/') for c in plan.copies)} instruction "
        f"file(s), {len({s.name for s in plan.secrets})} secret(s) as references. "
        f"Next: memhub validate {into}"
    )


def interactive() -> bool:
    """Whether a person can answer a prompt (stdin is a terminal)."""
    return sys.stdin is not None and sys.stdin.isatty()


def _owner() -> str:
    try:
        return getpass.getuser() or "me"
    except (KeyError, OSError):
        return "me"


def _read(path: Path) -> str | None:
    """A file of DIR (.env, .gitignore); a FIFO there is refused, never read (blocking)."""
    return targetfs.read_text(path)


# -- preview -----------------------------------------------------------------------------------


def preview_text(plan: ImportPlan, into: Path, scope: str, hosts: tuple[str, ...]) -> str:
    """What the import would write, for a person; never a secret value."""
    lines = [f"memhub import: {scope} scope of {', '.join(hosts)} -> {into}", ""]
    lines.append(f"{into / HUB_FILE}:")
    lines += [f"  | {line}" if line else "  |" for line in plan.hub_yaml.splitlines()]
    lines.append("")
    if plan.copies:
        lines.append("copy (byte for byte):")
        for item in plan.copies:
            lines.append(f"  {item.target}  <-  {item.source}")
        lines.append("")
    if plan.secrets:
        lines.append(f"secrets moved to {into / '.env'} (mode 0600; values hidden):")
        for secret in plan.secrets:
            state = {"new": "", "in .env": "  (already in .env)", "conflict": "  (CONFLICT)"}
            lines.append(f"  {secret.name}=********  <-  {secret.where}{state[secret.status]}")
        lines.append("")
    if plan.skipped:
        lines.append("skipped:")
        lines += [f"  {item}" for item in plan.skipped]
        lines.append("")
    if plan.notes:
        lines.append("notes:")
        lines += [f"  {note}" for note in plan.notes]
        lines.append("")
    return "\n".join(lines) + "\n"


def preview_json(plan: ImportPlan, into: Path) -> dict[str, Any]:
    return {
        "into": str(into),
        "hub_yaml": plan.hub_yaml,
        "servers": [{"name": name, "sources": list(where)} for name, where in plan.servers],
        "copies": [{"target": c.target, "source": c.source} for c in plan.copies],
        "secrets": [{"name": s.name, "source": s.where, "status": s.status} for s in plan.secrets],
        "skipped": [{"what": s.what, "where": s.where, "why": s.why} for s in plan.skipped],
        "notes": list(plan.notes),
    }
