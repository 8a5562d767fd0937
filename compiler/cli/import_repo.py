"""`memhub import --from-repo DIR`: a plugin repository into a hub, with its round-trip report.

The preview shows the hubs it would write, the round trip (the imported hub built in memory
and compared with DIR: files and JSON key paths reproduced, and each path it cannot give back
with the reason) and the files of no plugin. Writing needs --yes (or a yes on a terminal), as
for `memhub import`; the exit code is 1 whenever the cannot-reproduce list is not empty.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from memhub.compiler.cli.options import reply
from memhub.compiler.importing.repo_market import RepoImport
from memhub.compiler.importing.roundtrip import RoundTrip

EXIT_UNREPRODUCED = 1


def run(repo: Path, into: Path, yes: bool, dry_run: bool, as_json: bool) -> int:
    from memhub.compiler.cli.import_ import ConfirmationNeeded, interactive
    from memhub.compiler.importing.repo_market import import_repo
    from memhub.compiler.importing.repo_tree import RepoError, read_tree
    from memhub.compiler.importing.repo_writer import write_repo_hub
    from memhub.compiler.importing.roundtrip import round_trip
    from memhub.compiler.importing.writer import refuse_existing_hub

    refuse_existing_hub(into)
    tree = read_tree(repo)
    imported = import_repo(tree)
    trip = round_trip(tree, imported)
    if trip.refused is not None:  # never a hub its own build refuses (README)
        raise RepoError(
            f"{trip.refused}\nnothing written. Fix: correct the repository file that hub "
            "file stands for, or import a copy without it"
        )
    code = EXIT_UNREPRODUCED if trip.unreproduced else 0
    if as_json:
        data = {**preview_json(repo, into, imported, trip), "written": False}
        if dry_run:
            return reply(data, exit_code=code)
        if not yes:
            refusal = ConfirmationNeeded("--json asks nothing: nothing written. Fix: add --yes")
            return reply(data, exit_code=refusal.exit_code, errors=[refusal.to_json()])
        write_repo_hub(imported.files, into)
        return reply({**data, "written": True, "next": [f"memhub validate {into}"]}, exit_code=code)
    click.echo(preview_text(repo, into, imported, trip), nl=False)
    if dry_run:
        return code
    if not yes:
        if not interactive():
            raise ConfirmationNeeded(
                "no terminal to confirm on: nothing written. Fix: review the preview "
                "above and run again with --yes"
            )
        if not click.confirm(f"Write this hub into {into}?", default=False, err=True):
            click.echo("nothing written", err=True)
            return 1
    write_repo_hub(imported.files, into)
    click.echo(
        f"imported {repo} into {into}: {len(imported.plugins)} plugin hub(s); "
        f"{trip.files_same}/{trip.files_total} files reproduced. Next: memhub validate {into}"
    )
    return code


def preview_json(repo: Path, into: Path, imported: RepoImport, trip: RoundTrip) -> dict[str, Any]:
    return {
        "from_repo": str(repo),
        "into": str(into),
        "hubs": imported.hubs,
        "files": sorted(imported.files),
        "round_trip": trip.to_json(),
        "not_imported": imported.outside,
        "notes": imported.notes,
    }


def preview_text(repo: Path, into: Path, imported: RepoImport, trip: RoundTrip) -> str:
    """What the import would write and how much of DIR its build gives back, for a person."""
    files = imported.files
    lines = [f"memhub import --from-repo {repo} -> {into}", ""]
    for hub in imported.hubs:
        lines.append(f"{into / hub}:")
        lines += [f"  | {line}" for line in files[hub][0].decode("utf-8").splitlines()]
        lines.append("")
    copies = [rel for rel in files if rel not in imported.hubs]
    if copies:
        lines.append(f"copy (byte for byte): {len(copies)} file(s)")
        lines += [f"  {rel}" for rel in copies]
        lines.append("")
    lines.append(
        f"round trip (memhub build of the imported hub against {repo}): "
        f"{trip.files_same}/{trip.files_total} files, "
        f"{trip.keys_same}/{trip.keys_total} JSON key paths"
        + (f", {trip.links_same}/{trip.links_total} links" if trip.links_total else "")
        + " reproduced"
    )
    if trip.unreproduced:
        lines.append("cannot reproduce:")
        lines += [f"  {item.path}: {item.reason}" for item in trip.unreproduced]
    lines.append("")
    if imported.outside:
        lines.append(f"not imported (in no plugin folder or marketplace): {len(imported.outside)}")
        lines += [f"  {rel}" for rel in imported.outside]
        lines.append("")
    if imported.notes:
        lines.append("notes:")
        lines += [f"  {note}" for note in imported.notes]
        lines.append("")
    return "\n".join(lines) + "\n"
