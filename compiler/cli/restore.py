"""`memhub restore`: put back first-touch originals, or an archive a restore made.

A restore replaces whatever is in a file now, including what the person or a host added
after memhub's first write, so it previews first, like `memhub import`: the paths and what
each loses or regains, then it asks on a terminal (or needs --yes), and re-checks that
nothing changed since the preview before it writes. The state it replaces is archived, and
`memhub restore --archive ID` brings that back.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any

import click
from memhub.compiler.cli.import_ import ConfirmationNeeded, interactive
from memhub.compiler.diff import key_changes
from memhub.compiler.digest import ABSENT
from memhub.compiler.safewrite.durable import Tree
from memhub.compiler.safewrite.restore import ORIGINALS, RestorePlan, RestoreResult

_SIGN = {"add": "+", "remove": "-", "change": "~"}


@click.command("restore")
@click.option(
    "--originals",
    is_flag=True,
    help="Return every file memhub touched to its first-touch original.",
)
@click.option(
    "--archive",
    "archive",
    metavar="ID",
    help="Bring back the state an earlier restore replaced (its id is printed then).",
)
@click.option("--yes", is_flag=True, help="Restore without asking (needed without a terminal).")
@click.option("--dry-run", "dry_run", is_flag=True, help="Print the preview; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document (asks nothing).")
def command(originals: bool, archive: str | None, yes: bool, dry_run: bool, as_json: bool) -> int:
    """Put back the originals memhub kept before its first write, or an archive.

    Prints a preview first: each path, and what it loses or regains (for JSON and TOML
    files the keys, values hidden). --dry-run stops there; otherwise it asks on a
    terminal, and without one needs --yes (else exit 1, nothing written). The current
    state is archived before anything is written; the archive's id is printed, and
    `memhub restore --archive ID` brings it back. --json asks nothing: it needs --yes or
    --dry-run.
    """
    if originals == (archive is not None):
        raise click.UsageError("give exactly one of --originals or --archive ID")
    from memhub.compiler.install.state import memhub_home
    from memhub.compiler.safewrite.restore import plan_restore, restore

    home = memhub_home()
    shown = plan_restore(home, archive)
    if not as_json:
        click.echo(preview_text(shown), nl=False)
    if not shown.changes and not shown.folders:
        if as_json:
            click.echo(json.dumps(preview_json(shown, None), indent=2))
        return 0
    if dry_run or (as_json and not yes):
        if as_json:
            click.echo(json.dumps(preview_json(shown, None), indent=2))
        if dry_run:
            return 0
        # one JSON document on stdout, so the refusal goes to stderr, not as a second one
        click.echo("memhub: --json asks nothing: nothing written. Fix: add --yes", err=True)
        return ConfirmationNeeded.exit_code
    if not yes:
        if not interactive():
            raise ConfirmationNeeded(
                "no terminal to confirm on: nothing written. Fix: review the preview "
                "above and run again with --yes"
            )
        if not click.confirm(f"Restore these {_count(shown)}?", default=False, err=True):
            click.echo("nothing written", err=True)
            return 1
    done = restore(home, shown)
    if as_json:
        click.echo(json.dumps(preview_json(shown, done), indent=2))
        return 0
    for path in done.changed:
        click.echo(f"restored  {path}")
    if done.archive is not None:
        folder = home / "recovery" / "archives" / done.archive
        click.echo(
            f"archived the state it replaced as {done.archive} ({folder}); "
            f"`memhub restore --archive {done.archive}` brings it back"
        )
    return 0


def _count(plan: RestorePlan) -> str:
    return f"{len(plan.changes) + len(plan.folders)} path(s)"


def _action(plan: RestorePlan, path: str) -> str:
    if plan.records[path]["sha"] == ABSENT or plan.records[path]["kind"] == ABSENT:
        return "delete"
    return "create" if plan.current[path] == ABSENT else "update"


def _current(path: str) -> bytes | Tree | None:
    from memhub.compiler.safewrite.fsops import read_file, read_folder

    target = Path(path)
    if target.is_dir() and not target.is_symlink():
        return read_folder(target)
    return read_file(target)[0]


def details(path: str, now: bytes | Tree | None, then: bytes | Tree | None) -> list[str]:
    """What restoring `then` over `now` changes: keys (values hidden, they may be secrets)
    for JSON and TOML, a line diff for other text, the files of a folder."""
    if isinstance(now, dict) or isinstance(then, dict):
        old, new = now if isinstance(now, dict) else {}, then if isinstance(then, dict) else {}
        return [
            f"{'-' if rel not in new else '+' if rel not in old else '~'} {rel}"
            for rel in sorted({*old, *new})
            if old.get(rel) != new.get(rel)
        ]
    keys = _keys(path, now, then)
    if keys is not None:
        return [f"{_SIGN[op]} {key}" for op, key in keys]
    try:
        old_lines = (now or b"").decode("utf-8").splitlines()
        new_lines = (then or b"").decode("utf-8").splitlines()
    except UnicodeDecodeError:
        return ["binary content differs"]
    diff = difflib.unified_diff(old_lines, new_lines, "now", "restored", n=1, lineterm="")
    return list(diff)[2:]


def _keys(path: str, now: bytes | None, then: bytes | None) -> list[tuple[str, str]] | None:
    """(op, key path) of each change between two JSON/TOML documents, else None. A whole
    table that appears or goes is shown by its entries, so the names of the servers a
    restore drops are on screen (`mcpServers.mine`, not just `mcpServers`)."""
    changes = key_changes(path, now, then)
    if changes is None:
        return None
    out = []
    for change in changes:
        value = change.get("old" if change["op"] == "remove" else "new")
        if change["op"] != "change" and isinstance(value, dict) and value:
            prefix = "" if change["key"] == "(root)" else change["key"] + "."
            out += [(change["op"], f"{prefix}{name}") for name in value]
        else:
            out.append((change["op"], change["key"]))
    return out


def preview_text(plan: RestorePlan) -> str:
    what = (
        "first-touch originals (each path as it was before memhub first wrote it)"
        if plan.source == ORIGINALS
        else f"archive {plan.source}"
    )
    if not plan.records and not plan.folders:
        kept = "kept no originals yet" if plan.source == ORIGINALS else "an empty archive"
        return f"memhub restore: {kept}; nothing to restore\n"
    if not plan.changes and not plan.folders:
        return f"memhub restore: every path already matches the {what}; nothing to restore\n"
    lines = [f"memhub restore: {_count(plan)} go back to the {what}", ""]
    for path in plan.changes:
        lines.append(f"{_action(plan, path)}  {path}")
        now, then = _current(path), plan.stored(path)
        lines += [f"    {line}" for line in details(path, now, then)]
    lines += [f"remove folder if empty  {folder}" for folder in plan.folders]
    lines += [
        "",
        "What these paths hold now is archived first; the archive's id is printed after.",
        "",
    ]
    return "\n".join(lines)


def preview_json(plan: RestorePlan, done: RestoreResult | None) -> dict[str, Any]:
    changes = []
    for path in plan.changes:
        item: dict[str, Any] = {"path": path, "action": _action(plan, path)}
        now, then = _current(path), plan.stored(path)
        keys = None
        if not isinstance(now, dict) and not isinstance(then, dict):
            keys = _keys(path, now, then)
        if keys is not None:
            item["keys"] = [{"op": op, "key": key} for op, key in keys]
        changes.append(item)
    return {
        "source": "originals" if plan.source == ORIGINALS else "archive",
        "from_archive": None if plan.source == ORIGINALS else plan.source,
        "changes": changes,
        "folders": list(plan.folders),
        "restored": done is not None,
        "changed": [str(p) for p in done.changed] if done else [],
        "archive": done.archive if done else None,
    }
