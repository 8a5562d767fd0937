"""Checks of owned entries: the file parses, the entry is as applied, where the host reads."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from memhub.compiler.doctor.hooks import check_hook
from memhub.compiler.doctor.places import Places
from memhub.compiler.doctor.records import DRIFT, LOCATION, PARSE, SKILL, Run
from memhub.compiler.doctor.rulebooks import check_rulebooks, is_rulebook_folder
from memhub.compiler.hosts import INSTALLERS
from memhub.compiler.install.engine import TargetParseError, current_digest
from memhub.compiler.install.entries import EntryKey
from memhub.compiler.install.state import Owned
from memhub.hubspec.errors import Problem
from memhub.hubspec.skills import read_skill


def label(owned: Owned, hosts: Mapping[str, Places]) -> str:
    return ",".join(h for h in owned.host.split(",") if h in hosts) or owned.host


def check_target(
    run: Run,
    target: str,
    entries: dict[str, Owned],
    mine: Mapping[str, Places],
    hooked: set[str],
) -> None:
    first = next(iter(entries.values()))
    document = not any(EntryKey.parse(key).kind == "tree" for key in entries)
    if document:
        _, error = run.docs.load(target)
        if error is not None:
            run.add(
                label(first, mine),
                PARSE,
                "fail",
                target,
                f"does not parse: {error}; the host cannot read it either",
                "repair the file (memhub writes nothing to it until it parses)",
            )
            return
    if is_rulebook_folder(target):  # memhub's own place, read by its runtime in every host
        if check_rulebooks(run, label(first, mine), target):
            for key, owned in entries.items():
                check_drift(run, label(owned, mine), target, key, owned)
        return
    owners = sorted({h for o in entries.values() for h in o.host.split(",") if h in mine})
    read_here = any(mine[h].holds(target) for h in owners)
    if not read_here:
        not_read_here(run, label(first, mine), target, owners, mine, len(entries))
    for key, owned in entries.items():
        host = label(owned, mine)
        entry = EntryKey.parse(key)
        if entry.kind == "tree":
            plugin = any(str(Path(target).parent) in mine[h].hook_files for h in owners)
            if plugin or check_skill(run, host, target):  # a hooks plugin folder (OpenCode's)
                check_drift(run, host, target, key, owned)
            continue
        found = check_drift(run, host, target, key, owned)
        if found == "broken":
            return  # one parse failure per file
        path = entry.path
        if found == "present" and read_here and entry.kind == "json-item" and path[0] == "hooks":
            for name in (h for h in owned.host.split(",") if h in mine):
                hooked.add(name)
                check_hook(run, name, target, path, entry.item or "")


def what_of(key: str) -> str:
    """An entry key without its kind and content digest: `mcpServers/x`, `hooks/Stop`."""
    return EntryKey.parse(key).name


def not_read_here(
    run: Run, host: str, target: str, owners: list[str], mine: Mapping[str, Places], count: int
) -> None:
    """A target no owning host reads in this scope: name where each reads such a file now."""
    name = Path(target).name
    now = sorted({f for h in owners for f in mine[h].files if Path(f).name == name})
    now += sorted(
        {
            f"{d}/"
            for h in owners
            for d in mine[h].folders
            if Path(target).parent.name == Path(d).name
        }
    )
    titles = " and ".join(INSTALLERS[h].title for h in owners)
    instead = f" (it reads {' and '.join(now)})" if now else ""
    run.add(
        host,
        LOCATION,
        "fail",
        target,
        f"{count} entr{'y' if count == 1 else 'ies'} memhub applied here, where {titles} "
        f"does not read in {run.scope.kind} scope{instead}; was CODEX_HOME or "
        "CLAUDE_CONFIG_DIR moved since apply?",
        "run `memhub apply` again: it writes them where the host reads now and removes this copy",
    )


def check_drift(run: Run, host: str, target: str, key: str, owned: Owned) -> str:
    """present, gone or broken (the file does not parse); a fail names what is wrong."""
    try:
        now = current_digest(target, key)
    except TargetParseError as exc:
        message = str(exc).removeprefix(f"{target}: ").split(". Fix:")[0]
        run.add(
            host,
            PARSE,
            "fail",
            target,
            f"does not parse: {message}",
            "repair the file (memhub writes nothing to it until it parses)",
        )
        return "broken"
    what = what_of(key) or Path(target).name
    if now is None:
        run.add(
            host,
            DRIFT,
            "fail",
            target,
            f"{what}: memhub applied it and it is gone",
            "`memhub apply` writes it again; to give it up, remove it from the hub and apply",
        )
        return "gone"
    if now != owned.digest:
        run.add(
            host,
            DRIFT,
            "fail",
            target,
            f"{what}: edited by hand since memhub applied it",
            "`memhub apply --force` puts memhub's version back (plain apply refuses to overwrite "
            "the edit; `memhub undo` brings it back); to keep the edit, "
            + (
                "make it in the hub's copy of the skill and apply"
                if EntryKey.parse(key).kind == "tree"
                else f"carry it into the hub (`overrides.{owned.host.split(',')[0]}`) and apply"
            ),
        )
        return "present"
    run.add(host, DRIFT, "ok", target, f"{what}: as applied")
    return "present"


def check_skill(run: Run, host: str, target: str) -> bool:
    """A real folder whose SKILL.md the hosts accept; False when there is no folder to diff."""
    folder = Path(target)
    if folder.is_symlink():
        run.add(
            host,
            SKILL,
            "fail",
            target,
            f"is a link to {os.readlink(folder)}, not a copy; hosts may not follow it",
            "`memhub apply` replaces it with a copy (memhub copies skills, never links)",
        )
        return False
    if not folder.is_dir():
        run.add(
            host,
            SKILL,
            "fail",
            target,
            "the skill folder memhub applied is gone",
            "`memhub apply` copies it again",
        )
        return False
    problems: list[Problem] = []
    read_skill(folder, shown=target, problems=problems)
    for problem in problems:
        where = problem.origin.file.removeprefix(target).lstrip("/") or "the folder"
        run.add(host, SKILL, "fail", target, f"{where}: {problem.message}", problem.fix)
    if not problems:
        run.add(host, SKILL, "ok", target, "a real folder; name and description within limits")
    return True
