"""Write a Build into a folder as one swap, so a reader never sees half a bundle (through
safewrite's staged-tree primitive: built beside, one sync, swapped in whole).

Ownership: `.memhub-build.json` records, per build (a plugin hub's or a marketplace hub's),
the files it wrote. A build replaces only its own files: another build's files in the same
folder are kept as they are, and a root marketplace file that two plugin hubs both write
lists both plugins (their entries merged, each build's own replaced in place; the file's
other keys are the first build's). A file of this
build that it no longer makes is deleted, as is any file no build claims."""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from memhub.compiler.artifact import LINK_MODE, Artifact, is_link_entry
from memhub.compiler.build import Build
from memhub.compiler.errors import OutputError
from memhub.compiler.formats import jsondump
from memhub.compiler.marketplace import MarketplaceBuild
from memhub.compiler.marketplace_hosts import ROOT_FILES
from memhub.compiler.plan import BUILD_MARKER, Change, Plan, existing_files, plan
from memhub.compiler.safewrite.fsops import stage_and_swap
from memhub.hubspec.files import link_problem

AnyBuild = Build | MarketplaceBuild


def own_record(build: AnyBuild, files: list[str] | None = None) -> dict[str, Any]:
    """This build's entry in the marker (a lone plugin build's is the whole marker)."""
    paths = files if files is not None else [a.path for a in build.artifacts]
    if isinstance(build, MarketplaceBuild):
        return {
            "generator": "memhub",
            "marketplace": build.name,
            "plugins": [e.name for e in build.market.entries],
            "hosts": list(build.hosts),
            "files": paths,
        }
    return {
        "generator": "memhub",
        "plugin": build.hub.plugin.name,
        "hosts": list(build.hosts),
        "files": paths,
    }


def _key(record: dict[str, Any]) -> str:
    if "marketplace" in record:
        return f"marketplace:{record['marketplace']}"
    return f"plugin:{record.get('plugin', '')}"


def marker_bytes(build: AnyBuild) -> bytes:
    """The record that marks a folder as memhub output (deterministic, no timestamps)."""
    return _dump(own_record(build))


def _dump(record: dict[str, Any]) -> bytes:
    return (jsondump.dumps(record, indent=2, ensure_ascii=True) + "\n").encode()


def read_records(out: Path) -> list[dict[str, Any]]:
    """The builds the marker in `out` records (none when it is absent or unreadable)."""
    try:
        data = json.loads((out / BUILD_MARKER).read_bytes())
    except (OSError, ValueError):
        return []
    if isinstance(data, dict) and isinstance(data.get("builds"), list):
        found = [r for r in data["builds"] if isinstance(r, dict)]
    else:
        found = [data] if isinstance(data, dict) else []
    return [r for r in found if isinstance(r.get("files"), list)]


@dataclass(frozen=True, slots=True)
class Layout:
    """What `out` should hold after this build: its files, the others kept, the marker."""

    artifacts: tuple[Artifact, ...]  # this build's, marketplace files merged
    kept: dict[str, tuple[bytes, int]]  # other builds' files, as they are on disk
    marker: bytes


def layout(build: AnyBuild, out: Path) -> Layout:
    """This build laid over what the other builds recorded in `out` left there."""
    mine = own_record(build)
    records = [r for r in read_records(out) if _key(r) not in _superseded(build)]
    others = [r for r in records if _key(r) != _key(mine)]
    claimed: dict[str, str] = {}
    for record in others:
        for path in record["files"]:
            claimed.setdefault(str(path), _key(record))
    artifacts = []
    for artifact in build.artifacts:
        owner = claimed.get(artifact.path)
        if owner is not None:
            artifact = _shared(artifact, out, owner, isinstance(build, Build))
        artifacts.append(artifact)
    mine_paths = {a.path for a in artifacts}
    kept: dict[str, tuple[bytes, int]] = {}
    for path in sorted(set(claimed) - mine_paths):
        found = _read_inside(out, path)
        if found is not None:
            kept[path] = found
    builds = []
    for record in records if _key(mine) in map(_key, records) else [*records, mine]:
        if _key(record) == _key(mine):
            builds.append(mine)
            continue
        files = [p for p in record["files"] if p in kept or p in mine_paths]
        if files:  # a build with nothing left here owns nothing
            builds.append({**record, "files": files})
    if builds == [mine]:
        return Layout(tuple(artifacts), kept, _dump(mine))
    return Layout(tuple(artifacts), kept, _dump({"generator": "memhub", "builds": builds}))


def _superseded(build: AnyBuild) -> set[str]:
    """Records this build takes over: a marketplace hub builds its plugins itself, so their
    earlier lone builds in the folder are its files now."""
    if isinstance(build, Build):
        return set()
    return {f"plugin:{e.name}" for e in build.market.entries if e.hub is not None}


def _shared(artifact: Artifact, out: Path, owner: str, is_plugin: bool) -> Artifact:
    """`artifact` where another build wrote the same path: two plugin hubs' root marketplace
    files merge; any other file is a conflict."""
    if not (is_plugin and owner.startswith("plugin:") and artifact.path in ROOT_FILES):
        raise OutputError(
            f"{out / artifact.path}: written by the build of {owner.replace(':', ' ')} in "
            f"{out} too. Fix: build into another --out, or list both plugins in one marketplace "
            "hub"
        )
    found = _read_inside(out, artifact.path)
    if found is None:
        return artifact
    try:
        theirs = json.loads(found[0])
    except ValueError:
        theirs = None
    ours = json.loads(artifact.content)
    if not isinstance(theirs, dict) or theirs.get("name") != ours.get("name"):
        name = theirs.get("name") if isinstance(theirs, dict) else None
        raise OutputError(
            f"{out / artifact.path}: holds marketplace {name!r}, and this plugin's is "
            f"{ours.get('name')!r}. Fix: give both plugin hubs the same marketplace, or build "
            "into another --out"
        )
    from memhub.compiler.hosts.common import json_bytes

    # the file's own keys stay (the first plugin built here set them: rebuilding either
    # plugin then changes only its entry); a marketplace hub describes a shared one once
    merged = {**theirs, "plugins": _merged_entries(theirs.get("plugins"), ours["plugins"])}
    return Artifact(artifact.path, json_bytes(merged), artifact.mode, artifact.owners)


def _merged_entries(theirs: Any, ours: list[dict[str, Any]]) -> list[Any]:
    """Their entries in their order, each of ours replacing its namesake or appended."""
    entries = list(theirs) if isinstance(theirs, list) else []
    for entry in ours:
        names = [e.get("name") if isinstance(e, dict) else None for e in entries]
        if entry["name"] in names:
            entries[names.index(entry["name"])] = entry
        else:
            entries.append(entry)
    return entries


def _read_inside(out: Path, relative: str) -> tuple[bytes, int] | None:
    """A file another build recorded, read only if it is a plain file inside `out` reached
    through no link: a marker is not trusted to name paths (a hostile one could name
    `../x` or a link out, and the build would copy what it reached into the bundle)."""
    pure = PurePosixPath(relative)
    if not relative or "\\" in relative or pure.is_absolute() or ".." in pure.parts:
        return None
    if relative == BUILD_MARKER or pure.parts[0] in (".git",):
        return None
    folder = out
    for part in pure.parts[:-1]:
        folder = folder / part
        if folder.is_symlink() or not folder.is_dir():
            return None
    return _read(out / relative)


def _read(path: Path) -> tuple[bytes, int] | None:
    """A regular file's bytes and mode, or a link's target text and LINK_MODE (kept as it
    is, never followed); None when it is gone, special, or a link no bundle may hold."""
    try:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            target = os.readlink(path)
            return (target.encode("utf-8"), LINK_MODE) if link_problem(target) is None else None
        if not stat.S_ISREG(info.st_mode):
            return None
        return path.read_bytes(), stat.S_IMODE(info.st_mode)
    except (OSError, UnicodeEncodeError):
        return None


def bundle_plan(build: AnyBuild, out: Path) -> Plan:
    """What writing `build` into `out` changes; other builds' files are not listed."""
    laid = layout(build, out)
    kept = [_kept(p, content, mode) for p, (content, mode) in laid.kept.items()]
    full = plan([*laid.artifacts, *kept], out)
    changes: list[Change] = [c for c in full.changes if c.path not in laid.kept]
    return Plan(full.root, tuple(changes))


def _kept(path: str, content: bytes, mode: int) -> Artifact:
    if is_link_entry(mode):
        return Artifact(path, b"", link=content.decode("utf-8"))
    return Artifact(path, content, mode)


def check_link_places(
    artifacts: tuple[Artifact, ...], out: Path, records: list[dict[str, Any]]
) -> None:
    """Refuse to put a link where `out` holds something no build recorded: a FIFO, socket or
    device, a file or folder of someone else's (a folder is fine when every file in it is a
    build's: an earlier copy the link now replaces). A link already there is replaced, never
    followed (the folder is built beside and swapped in)."""
    recorded = {str(p) for r in records for p in r["files"]}
    for artifact in (a for a in artifacts if a.link is not None):
        place = out / artifact.path
        try:
            info = place.lstat()
        except OSError:
            continue  # nothing there (or a parent is gone): the link is simply created
        if stat.S_ISLNK(info.st_mode) or (artifact.path in recorded and stat.S_ISREG(info.st_mode)):
            continue
        if stat.S_ISDIR(info.st_mode):
            inside = existing_files(place)
            foreign = [p for p in inside if f"{artifact.path}/{p}" not in recorded]
            if not foreign and _only_plain(place):
                continue
            what = "a folder holding files no build recorded"
        elif stat.S_ISREG(info.st_mode):
            what = "a file no build recorded"
        else:
            what = "a FIFO, socket or device"
        raise OutputError(
            f"{place}: is {what}, where the build puts the link {artifact.path} -> "
            f"{artifact.link}; nothing written. Fix: move it out of {out}"
        )


def _only_plain(folder: Path) -> bool:
    """Whether `folder` holds only folders and regular files (no link, FIFO, socket, device)."""
    for base, dirs, names in os.walk(folder):
        for name in dirs + names:
            mode = os.lstat(os.path.join(base, name)).st_mode
            if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
                return False
    return True


def check_output_dir(out: Path) -> None:
    """Refuse a folder that holds files memhub did not generate."""
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out}: exists and is not a folder. Fix: choose another --out")
    if out.is_dir() and existing_files(out) and not (out / BUILD_MARKER).is_file():
        raise OutputError(
            f"{out}: folder holds files memhub did not build (no {BUILD_MARKER}). "
            "Fix: choose an empty or new --out folder; memhub owns the folders it builds into"
        )


def write_build(build: AnyBuild, out: Path, plan: Plan | None = None) -> bool:
    """Replace this build's files in `out` (the other builds' stay, plus the marker); False
    if nothing changed.

    `plan` (of this build against `out`) lets an up-to-date folder be left untouched.
    """
    check_output_dir(out)
    marker = out / BUILD_MARKER
    laid = layout(build, out)
    unchanged = plan is not None and not plan.pending
    if unchanged and marker.is_file() and marker.read_bytes() == laid.marker:
        return False
    out = out.absolute()
    check_link_places(laid.artifacts, out, read_records(out))
    out.parent.mkdir(parents=True, exist_ok=True)
    files = dict(laid.kept)
    files.update({a.path: a.entry for a in laid.artifacts})
    files[BUILD_MARKER] = (laid.marker, 0o644)
    # Folders 0755 whatever the umask: a bundle is shared.
    stage_and_swap(out, files, root_mode=0o755, dir_mode=0o755)
    return True
