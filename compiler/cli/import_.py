"""`memhub import`: collect what each host has installed into a new hub.

Always prints a preview first; writes only after a yes (a terminal prompt, or --yes), into a
folder without a hub.yaml, and never touches the host files it read.
"""

from __future__ import annotations

import getpass
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from memhub.compiler.cli.hostchoice import parse_hosts
from memhub.compiler.cli.options import project_option, scope_option
from memhub.compiler.errors import OutputError
from memhub.compiler.hosts import INSTALLERS
from memhub.compiler.install.scope import Scope, scope_kind
from memhub.compiler.safewrite import durable, targetfs
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
    help="Comma-separated hosts to read (default: claude,codex,cursor,gemini).",
)
@scope_option("Read the hosts' user files (your home) or a checkout's project files.")
@project_option()
@click.option("--yes", is_flag=True, help="Write without asking (needed without a terminal).")
@click.option("--dry-run", "dry_run", is_flag=True, help="Print the preview; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the preview as one JSON document.")
def command(
    into: Path,
    hosts: str | None,
    scope: str,
    project: Path | None,
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
    refuse_existing_hub(into)
    chosen = parse_hosts(hosts) if hosts else tuple(INSTALLERS)
    scope_obj = Scope.from_environment(scope_kind(scope), project)
    installed = [INSTALLERS[host].read_installed(scope_obj) for host in chosen]
    env_file, ignore_file = into / ENV_FILE, into / ".gitignore"
    from memhub.compiler.cli.init import _kebab
    from memhub.compiler.importing.planner import plan_import

    plan = plan_import(
        installed,
        name=_kebab(into.absolute().name),
        owner=_owner(),
        scope=scope,
        existing_env=_read(env_file),
        existing_gitignore=_read(ignore_file),
    )
    if as_json:
        click.echo(json.dumps(preview_json(plan, into), indent=2, ensure_ascii=False))
    else:
        click.echo(preview_text(plan, into, scope, chosen), nl=False)
    if plan.empty:
        click.echo("nothing to import; nothing written", err=True)
        return 0
    if dry_run:
        return 0
    if not yes:
        if not interactive():
            raise ConfirmationNeeded(
                "no terminal to confirm on: nothing written. Fix: review the preview "
                "above and run again with --yes"
            )
        if not click.confirm(f"Write this hub into {into}?", default=False, err=True):
            click.echo("nothing written", err=True)
            return 1
    write_import(plan, into)
    click.echo(
        f"imported into {into}: {len(plan.servers)} MCP server(s), "
        f"{sum(c.target.startswith('skills/') for c in plan.copies)} skill(s), "
        f"{sum(c.target.startswith('instructions/') for c in plan.copies)} instruction "
        f"file(s), {len({s.name for s in plan.secrets})} secret(s) as references. "
        f"Next: memhub validate {into}",
        err=as_json,
    )
    return 0


def interactive() -> bool:
    """Whether a person can answer a prompt (stdin is a terminal)."""
    return sys.stdin is not None and sys.stdin.isatty()


def refuse_existing_hub(into: Path) -> None:
    if (into / HUB_FILE).exists():
        raise OutputError(
            f"{into / HUB_FILE}: a hub already exists; nothing written. Fix: import into a "
            "new or empty folder"
        )
    if into.exists() and not into.is_dir():
        raise OutputError(f"{into}: exists and is not a folder. Fix: choose another --into")


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


# -- writing -----------------------------------------------------------------------------------


def write_import(plan: ImportPlan, into: Path) -> None:
    """Write the hub: files staged in a temp folder inside INTO and checked (the hub must load
    and build) before any is moved into place; `.env` replaced atomically, mode 0600."""
    into.mkdir(parents=True, exist_ok=True)
    files = plan.files()
    tops = sorted({rel.split("/", 1)[0] for rel, _, _ in files})
    taken = [top for top in tops if (into / top).exists() and top != ".gitignore"]
    taken += [rel for rel, _, _ in files if rel == ".gitignore" and (into / rel).exists()]
    if taken:
        raise OutputError(
            f"{into}: already holds {', '.join(taken)}; nothing written. Fix: import into a "
            "new or empty folder"
        )
    staging = Path(tempfile.mkdtemp(prefix=".memhub-import-", dir=into))
    try:
        for rel, data, mode in files:
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            os.chmod(target, mode)
        _check_hub(staging)
        refuse_existing_hub(into)  # a hub that appeared meanwhile is never replaced
        for top in tops:
            os.rename(staging / top, into / top)
        if plan.env_text is not None:
            _write_env(into / ENV_FILE, plan.env_text)
        durable.fsync_dir(into)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _check_hub(folder: Path) -> None:
    """The staged hub loads and builds, or nothing is written (a memhub bug if not)."""
    try:
        from memhub.compiler.build import build
        from memhub.hubspec import load

        build(load(folder))
    except MemhubError as exc:
        raise MemhubError(
            f"the imported hub would not load ({exc}); nothing written. Fix: this is a memhub "
            "bug; please report it with the preview (it holds no secret values)"
        ) from None


def _write_env(path: Path, text: str) -> None:
    """`.env` holding `text`, mode 0600, replaced atomically (temp file beside it, rename)."""
    temp = path.with_name(f".{path.name}.memhub-import.tmp")
    temp.unlink(missing_ok=True)
    durable.create_file(temp, text.encode("utf-8"), ENV_MODE)
    os.replace(temp, path)
