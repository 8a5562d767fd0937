"""Where memory lives under `$MEMHUB_HOME/memory/`: record folders, MEMORY.md, projects.json.

Every id and project id that becomes part of a path is checked first: only a safe single path
component (lowercase letters, digits and `-`, starting with a letter or digit, bounded length)
is accepted, so no caller-supplied value can climb out of the memory folder (`..`, `/`, an
absolute path, NUL) or name a file other than the one meant.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

SCOPES = ("shared", "project")
INDEX_FILE = "index.sqlite"
MAX_NAME_LENGTH = 64
_SAFE_NAME = re.compile(r"[a-z0-9][a-z0-9-]*")


class UnsafeName(ValueError):
    """An id or project id that is not a safe single path component."""

    def __init__(self, what: str, value: object) -> None:
        self.what = what
        self.value = value
        super().__init__(
            f"{what} {_shown(value)} is not a valid name: use 1-{MAX_NAME_LENGTH} lowercase "
            "letters, digits and '-', starting with a letter or digit"
        )


class UnknownScope(ValueError):
    """A scope other than `shared` or `project`, or a project id that does not fit the scope."""


def _shown(value: object) -> str:
    """The value for a message: its repr, cut short so a 10k-character id stays readable."""
    text = repr(value)
    if len(text) > 80:
        return f"{text[:60]}... ({len(value) if isinstance(value, str) else '?'} characters)"
    return text


def check_name(value: object, what: str = "record id") -> str:
    """`value` if it is a safe path component; raise UnsafeName otherwise."""
    if (
        not isinstance(value, str)
        or len(value) > MAX_NAME_LENGTH
        or not _SAFE_NAME.fullmatch(value)
    ):
        raise UnsafeName(what, value)
    return value


def check_scope(scope: str, project_id: str | None) -> None:
    """A known scope, with a project id exactly when the scope is `project`."""
    if scope not in SCOPES:
        raise UnknownScope(f"scope {_shown(scope)} is unknown: use 'shared' or 'project'")
    if scope == "project":
        if project_id is None:
            raise UnknownScope("scope 'project' needs a project id")
        check_name(project_id, "project id")
    elif project_id is not None:
        raise UnknownScope(f"scope 'shared' takes no project id (got {_shown(project_id)})")


def memory_root(home: str | Path) -> Path:
    """The memory folder of a memhub home (`$MEMHUB_HOME/memory`)."""
    return Path(home) / "memory"


def shared_dir(root: Path) -> Path:
    """The folder of the shared scope."""
    return root / "shared"


def project_dir(root: Path, project_id: str) -> Path:
    """The folder of one project's scope."""
    return root / "projects" / check_name(project_id, "project id")


def scope_dir(root: Path, scope: str, project_id: str | None) -> Path:
    """The folder of a scope: `shared/` or `projects/<project-id>/`."""
    check_scope(scope, project_id)
    return project_dir(root, project_id) if project_id is not None else shared_dir(root)


def shared_records(root: Path) -> Path:
    """`shared/records/`."""
    return shared_dir(root) / "records"


def project_records(root: Path, project_id: str) -> Path:
    """`projects/<project-id>/records/`."""
    return project_dir(root, project_id) / "records"


def records_dir(root: Path, scope: str, project_id: str | None) -> Path:
    """The records folder of a scope."""
    return scope_dir(root, scope, project_id) / "records"


def memory_index_md(root: Path, scope: str, project_id: str | None = None) -> Path:
    """The derived MEMORY.md of a scope, beside its records folder."""
    return scope_dir(root, scope, project_id) / "MEMORY.md"


def projects_file(root: Path) -> Path:
    """The project registry, `projects.json`."""
    return root / "projects.json"


def record_path(root: Path, scope: str, project_id: str | None, record_id: str) -> Path:
    """The file of one record: `<scope folder>/records/<id>.md`."""
    return records_dir(root, scope, project_id) / f"{check_name(record_id)}.md"


def index_file(root: Path) -> Path:
    """The derived search index, `index.sqlite`."""
    return root / INDEX_FILE


def records_folders(
    root: Path, pairs: Iterable[tuple[str, str | None]]
) -> list[tuple[str, str | None, Path]]:
    """The records folder of each (scope, project) pair; pairs with an unsafe project id or
    an unknown scope name none."""
    out = []
    for scope, project in pairs:
        try:
            out.append((scope, project, records_dir(root, scope, project)))
        except (UnsafeName, UnknownScope):
            continue
    return out
