"""`memhub memory search`, runnable without click: the one read people (and scripts) run
over and over, so a plain invocation is parsed here and answered before the command tree is
imported (cli/main.py); anything this parser does not fully understand (help, a bad value,
an unknown option) goes to click, which explains it. The click command calls `run_search` too.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from memhub.compiler.cli.echo import echo
from memhub.compiler.cli.envelope import send
from memhub.compiler.cli.exitcodes import EXIT_OK
from memhub.compiler.cli.memory_text import one_line, project_json
from memhub.runtime.memory.kinds import KINDS

if TYPE_CHECKING:
    from memhub.runtime.memory.found import Found, Results
    from memhub.runtime.memory.service import MemoryService
    from memhub.runtime.memory.workspace import Workspace

COMMAND = "memory search"
SEARCH_KINDS = (*KINDS, "session")
SCOPES = ("shared", "project")
_VALUED = ("--project", "--scope", "--kind", "--tag", "--limit")


class SearchArgs(NamedTuple):
    """A `memhub memory search` invocation."""

    query: str
    project: Path | None = None
    scope: str | None = None
    kinds: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    include_all: bool = False
    limit: int = 20
    as_json: bool = False


def memhub_home() -> Path:
    """MEMHUB_HOME, else ~/.memhub (as compiler/install/state.py reads it, without its imports)."""
    configured = os.environ.get("MEMHUB_HOME")
    return (
        Path(configured) if configured else Path(os.environ.get("HOME") or Path.home()) / ".memhub"
    )


def parse_search(args: Sequence[str]) -> SearchArgs | None:
    """The invocation `memhub memory search ARGS`, or None for anything that is not a plain,
    valid one (click then parses it and explains what is wrong)."""
    words = list(args)
    if any(not _utf8(word) for word in words):
        return None
    query: str | None = None
    values: dict[str, list[str]] = {name: [] for name in _VALUED}
    flags = {"--json": False, "--all": False}
    at = 0
    while at < len(words):
        word = words[at]
        if word in flags:
            flags[word] = True
        elif word in _VALUED and at + 1 < len(words):
            values[word].append(words[at + 1])
            at += 1
        elif word.startswith("-") or query is not None:
            return None  # `--`, help, an unknown option, a second query: click's to explain
        else:
            query = word
        at += 1
    return _checked_args(query, values, flags)


def _checked_args(
    query: str | None, values: dict[str, list[str]], flags: dict[str, bool]
) -> SearchArgs | None:
    if query is None or len(values["--project"]) > 1 or len(values["--scope"]) > 1:
        return None
    if len(values["--limit"]) > 1 or any(k not in SEARCH_KINDS for k in values["--kind"]):
        return None
    scope = values["--scope"][0] if values["--scope"] else None
    if scope is not None and scope not in SCOPES:
        return None
    limit = 20
    if values["--limit"]:
        raw = values["--limit"][0]
        if not raw.isdigit() or int(raw) < 1:
            return None
        limit = int(raw)
    project = Path(values["--project"][0]) if values["--project"] else None
    if project is not None and project.exists() and not project.is_dir():
        return None  # click says a folder is wanted
    return SearchArgs(
        query=query,
        project=project,
        scope=scope,
        kinds=tuple(values["--kind"]),
        tags=tuple(values["--tag"]),
        include_all=flags["--all"],
        limit=limit,
        as_json=flags["--json"],
    )


def _utf8(word: str) -> bool:
    try:
        word.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def open_service(project: Path | None, scopes: tuple[str, ...] = SCOPES) -> MemoryService:
    """The service over the workspace of `project` (default: the working directory)."""
    from memhub.runtime.memory.service import MemoryService

    return MemoryService(open_caller(project, scopes))


def open_caller(project: Path | None, scopes: tuple[str, ...] = SCOPES) -> Workspace:
    """The workspace of `project` (default: the working directory)."""
    from memhub.runtime.memory.workspace import open_workspace

    return open_workspace(
        memhub_home(),
        project=project.resolve() if project is not None else None,
        scopes=scopes,
        writable=True,
    )


def read_warnings(workspace: Workspace, scope: str | None) -> list[str]:
    """The warnings of a read: no project here (only shared records are seen), or a project
    that does not read shared ones. A read of `--scope project` without a project is refused
    (NoProject), never an empty success."""
    from memhub.runtime.memory.errors import NoProject

    if workspace.project_id is not None:
        if "shared" in workspace.scopes or scope == "project":
            return []
        return [
            f"project {workspace.project_id} does not read shared records "
            "(`memhub project connect --shared` enables them)"
        ]
    if scope == "project":
        raise NoProject(workspace.message)
    return [f"no project: {workspace.message}; only shared records are read"]


def run_search(service: MemoryService, a: SearchArgs) -> int:
    """Search, print the hits (text, or the --json envelope) and return the exit code."""
    warnings = read_warnings(service.workspace, a.scope)
    if "session" in a.kinds and len(set(a.kinds)) > 1:
        from memhub.compiler.cli.memory_common import InputError  # only on this error path

        raise InputError(
            "--kind session searches captured sessions only, not records too. "
            "Fix: search sessions and records in two runs"
        )
    sources = ("session",) if "session" in a.kinds else ("record",)
    hits = service.search(
        a.query,
        scope=a.scope,
        kinds=a.kinds,
        tags=a.tags,
        sources=sources,
        limit=a.limit,
        include_superseded=a.include_all,
    )
    if service.fallback:  # the index file could not be written (read-only, full disk)
        warnings.append(service.fallback)
    return show_hits(service.workspace, a, hits, warnings)


def show_hits(workspace: Workspace, a: SearchArgs, hits: Results, warnings: list[str]) -> int:
    """Print the hits (text, or the --json envelope); the exit code."""
    unmatched, ignored = list(hits.unmatched), list(hits.ignored)
    if a.as_json:
        data = {
            "project": project_json(workspace),
            "hits": [hit_json(h) for h in hits],
            "unmatched_terms": unmatched,
            "ignored_terms": ignored,
        }
        return send(COMMAND, data, warnings=warnings)
    for warning in warnings:
        echo(f"memhub: {warning}", err=True)
    if not hits:
        echo("no matches" + (f": nothing holds {', '.join(unmatched)}" if unmatched else ""))
        if ignored:
            echo(f"    (left out as too common: {', '.join(ignored)})")
    for hit in hits:
        where = f"session {hit.id} ({hit.host or '?'})" if hit.source == "session" else None
        where = where or f"{hit.id} ({hit.scope}, {hit.kind})"
        echo(f"{one_line(where)}  {one_line(hit.title)}")
        if hit.snippet:
            echo(f"    {one_line(hit.snippet)}")
        if hit.match != "strict":
            echo(f"    {hit.match}: holds {one_line(', '.join(hit.matched_terms))}")
    return EXIT_OK


def from_index(a: SearchArgs) -> int | None:
    """A plain search of records answered from the index alone, inside the trust window
    (scanwindow.search_within) and without the service's imports; None when the files
    must be checked first (the service then answers)."""
    from memhub.runtime.memory import layout, scanwindow
    from memhub.runtime.memory.found import results_of
    from memhub.runtime.memory.index import MemoryIndex

    if "session" in a.kinds:
        return None
    window = scanwindow.trust_window()
    workspace = open_caller(a.project)
    warnings = read_warnings(workspace, a.scope)
    path = layout.index_file(workspace.root)
    if window <= 0 or not path.is_file():
        return None
    pairs = [pair for pair in workspace.allowed() if a.scope is None or pair[0] == a.scope]
    with MemoryIndex(path) as index:
        if index.created:
            return None  # an unusable index was remade: the service fills it
        answer = scanwindow.search_within(
            index,
            workspace.root,
            pairs,
            window,
            a.query,
            kinds=a.kinds,
            tags=a.tags,
            include_superseded=a.include_all,
            limit=a.limit,
        )
    if answer is None:
        return None
    return show_hits(workspace, a, results_of(answer), warnings)


def run_plain(a: SearchArgs) -> int:
    """A plain search, its memory-layer errors turned into the CLI's (as the group does)."""
    try:
        code = from_index(a)
        if code is not None:
            return code
        service = open_service(a.project)
        try:
            return run_search(service, a)
        finally:
            service.close()
    except Exception as exc:
        from memhub.compiler.cli.memory_common import translated

        error = translated(exc)
        if error is None:
            raise
        raise error from exc


def hit_json(hit: Found) -> dict[str, Any]:
    return {
        "source": hit.source,
        "id": hit.id,
        "title": hit.title,
        "kind": hit.kind,
        "scope": hit.scope,
        "host": hit.host,
        "snippet": hit.snippet,
        "score": hit.score,
        "revision": hit.revision,
        "updated": hit.updated,
        "tags": list(hit.tags),
        "match": hit.match,
        "matched_terms": list(hit.matched_terms),
    }
