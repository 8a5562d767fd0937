"""Links in a bundle (`files: [{from: X, link: true}]`): checked, and what they stand for
taken out of the file set. Pure.

A link artifact holds a relative target text. Resolved in the bundle (lexically, each link on
the way followed, as the system would once written), it must stay inside the bundle, end on
a file or folder the build writes, and not loop. A file the build generates under a link's
path (a hook file under a linked `hooks/`, a skill under a linked `skills/`) is reached
through the link once written, so it must be the very file at the link's target: then it is
left out (written once, at the target); otherwise the build is refused, naming both.
"""

from __future__ import annotations

from collections.abc import Sequence

from memhub.compiler.artifact import Artifact
from memhub.hubspec.errors import HubError, Origin, Problem

MAX_HOPS = 40  # the links followed resolving one path (the system's own limit is 40)
FIX_INSIDE = (
    "point the link at a file or folder the build writes, or ship it as files (drop `link: true`)"
)
FIX_SAME = (
    "make the hub's file the same as the link target's, or ship the folder as files (drop "
    "`link: true`)"
)


class Unresolvable(ValueError):
    """One path cannot be resolved in the bundle: why."""


def resolve(path: str, links: dict[str, str]) -> str:
    """`path` with every link on the way followed, relative to the bundle root."""
    done: list[str] = []
    todo = path.split("/")
    hops = 0
    while todo:
        part = todo.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not done:
                raise Unresolvable("its target leaves the bundle")
            done.pop()
            continue
        done.append(part)
        here = "/".join(done)
        if here in links:
            hops += 1
            if hops > MAX_HOPS:
                raise Unresolvable(f"it loops (more than {MAX_HOPS} links followed)")
            done.pop()
            todo = links[here].split("/") + todo
    return "/".join(done)


def _under(path: str, links: dict[str, str]) -> str | None:
    """The link whose path is `path` or a folder above it, if any (the outermost)."""
    parts = path.split("/")
    for depth in range(1, len(parts) + 1):
        here = "/".join(parts[:depth])
        if here in links:
            return here
    return None


def _own(artifact: Artifact) -> str | None:
    return artifact.path if artifact.link is not None else None


def settle(artifacts: Sequence[Artifact]) -> tuple[Artifact, ...]:
    """`artifacts` with each link checked and the files reached through one left out; a
    link that leaves the bundle, dangles or loops, or a file under a link that is not its
    target's, refuses the build (HubError at the hub entry of the link)."""
    links = {a.path: a.link for a in artifacts if a.link is not None}
    if not links:
        return tuple(artifacts)
    by_link = {a.path: a for a in artifacts if a.link is not None}
    # what is written as itself: files under no link, and links under no other link
    real = {a.path: a for a in artifacts if _under(a.path, links) in (None, _own(a))}
    folders = {"/".join(p.split("/")[:d]) for p in real for d in range(1, p.count("/") + 1)}
    problems: list[Problem] = []

    def refuse(link: Artifact, message: str, fix: str = FIX_INSIDE) -> None:
        origin = link.origin or Origin("hub.yaml")
        problems.append(Problem(origin, "files", f"{link.path} -> {link.link}: {message}", fix))

    for path, link in by_link.items():
        if _under(path, links) != path:
            continue  # a link under a linked folder: checked as a file of its target below
        try:
            target = resolve(path, links)
        except Unresolvable as exc:
            refuse(link, str(exc))
            continue
        if target == "" or path == target or path.startswith(target + "/"):
            refuse(link, "its target holds the link itself (a loop)")
        elif target not in real and target not in folders:
            refuse(link, f"it dangles: the build writes nothing at {target}")
    kept: list[Artifact] = []
    for artifact in artifacts:
        outer = _under(artifact.path, links)
        if outer is None or (outer == artifact.path and artifact.link is not None):
            kept.append(artifact)
            continue
        problem = _reached(artifact, links, real)
        if problem:
            refuse(by_link[outer], problem, FIX_SAME)
    if problems:
        raise HubError(problems)
    return tuple(kept)


def _reached(artifact: Artifact, links: dict[str, str], real: dict[str, Artifact]) -> str:
    """Why the file the build makes at `artifact.path` is not what the link there reaches
    ("" when it is)."""
    folder, _, name = artifact.path.rpartition("/")
    try:  # the last step is not followed: a link under a linked folder meets its twin
        target = "/".join(p for p in (resolve(folder, links), name) if p)
    except Unresolvable as exc:
        return f"{artifact.path}, which the build writes, cannot be reached: {exc}"
    found = real.get(target)
    made = f"the build writes {artifact.path} ({', '.join(artifact.owners) or 'shipped'})"
    if found is None:
        return f"{made}, and the link reaches {target}, which the build does not write"
    if (found.content, found.mode, found.link) != (artifact.content, artifact.mode, artifact.link):
        return f"{made}, and the link reaches {target}, which the build writes otherwise"
    return ""
