"""The project registry (projects.json): stable local ids bound explicitly to git checkouts."""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import time
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from .gitcheckout import Checkout, checkout_of

FILENAME = "projects.json"
VERSION = 1
CONNECTED = "connected"
DISCONNECTED = "disconnected"
STATES = (CONNECTED, DISCONNECTED)
MAX_BYTES = 16 * 1024 * 1024  # a registry is small; a huge file is refused, not parsed
ID_PATTERN = re.compile(r"p-[0-9a-f]{12}")

# What connect() did, for the CLI to report.
CREATED = "created"  # a new project for a repository no project was bound to
CREATED_NAMESAKE = "created-namesake"  # new, although another project has the same name
WORKTREE = "worktree"  # another worktree of a repository already bound: same project
ALREADY = "already-connected"  # this exact checkout was bound already
RECONNECTED = "reconnected"  # a disconnected project is connected again
REBOUND = "rebound"  # explicit project id: its gone bindings replaced by this checkout
ATTACHED = "attached"  # explicit project id: another clone added beside live bindings


class RegistryError(ValueError):
    """projects.json is malformed, or a registry operation was asked something impossible."""


class Binding(NamedTuple):
    """One checkout bound to a project: the shared repository, the working tree, when."""

    common_dir: str
    toplevel: str
    connected_at: str


class Project(NamedTuple):
    """A registered project: a stable id, a display name, its bindings and its state."""

    id: str
    name: str
    bindings: tuple[Binding, ...] = ()
    state: str = CONNECTED
    shared: bool = True  # whether this project reads shared records (`connect --no-shared`)


class Registry(NamedTuple):
    """Every registered project by id."""

    projects: Mapping[str, Project] = MappingProxyType({})
    version: int = VERSION


class Connected(NamedTuple):
    """What connect() returns: the new registry, the project id and what happened."""

    registry: Registry
    project_id: str
    action: str


class Resolution(NamedTuple):
    """The project a folder files under, or None with a message saying why and what to do."""

    project_id: str | None
    message: str = ""
    checkout: Checkout | None = None
    reason: str = ""  # "", no-checkout, not-connected, disconnected, moved


def new_project_id(taken: Mapping[str, object]) -> str:
    """A random local id, never derived from a folder name or a remote URL."""
    from secrets import token_hex  # imported on use: reads never make an id

    while True:
        candidate = "p-" + token_hex(6)
        if candidate not in taken:
            return candidate


def project_for_common_dir(registry: Registry, common_dir: str) -> Project | None:
    """The project one of whose bindings shares this repository (worktrees share it)."""
    for project in registry.projects.values():
        if any(b.common_dir == common_dir for b in project.bindings):
            return project
    return None


def _get(registry: Registry, project_id: str) -> Project:
    """The project with this id, or a RegistryError saying where the ids are."""
    project = registry.projects.get(project_id)
    if project is None:
        raise RegistryError(f"no project {project_id}; `memhub project list` shows the ids")
    return project


def _with(registry: Registry, project: Project) -> Registry:
    """The registry with `project` added or replaced."""
    return registry._replace(projects={**registry.projects, project.id: project})


def connect(
    registry: Registry,
    checkout: Checkout,
    name: str | None = None,
    *,
    project_id: str | None = None,
    now: str | None = None,
    exists: Callable[[str], bool] = os.path.isdir,
) -> Connected:
    """Bind `checkout`: its repository's project, a new project, or (explicit id) a rebind."""
    stamp = now or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    binding = Binding(checkout.common_dir, checkout.toplevel, stamp)
    owner = project_for_common_dir(registry, checkout.common_dir)
    if owner is not None:
        if project_id is not None and project_id != owner.id:
            raise RegistryError(
                f"{checkout.toplevel} is already bound to project {owner.id}:"
                f" a repository and its worktrees belong to one project, not also {project_id}"
            )
        return _connect_known(registry, owner, binding)
    if project_id is not None:
        return _rebind(registry, project_id, binding, exists)
    label = name or os.path.basename(checkout.toplevel) or checkout.toplevel
    pid = new_project_id(registry.projects)
    namesake = any(p.name == label for p in registry.projects.values())
    project = Project(pid, label, (binding,), CONNECTED)
    return Connected(_with(registry, project), pid, CREATED_NAMESAKE if namesake else CREATED)


def _connect_known(registry: Registry, project: Project, binding: Binding) -> Connected:
    """A checkout of a repository `project` is bound to already: add the worktree, reconnect."""
    known = any(b.toplevel == binding.toplevel for b in project.bindings)
    bindings = project.bindings if known else (*project.bindings, binding)
    action = RECONNECTED if project.state == DISCONNECTED else ALREADY if known else WORKTREE
    updated = project._replace(bindings=bindings, state=CONNECTED)
    return Connected(_with(registry, updated), project.id, action)


def _rebind(
    registry: Registry, project_id: str, binding: Binding, exists: Callable[[str], bool]
) -> Connected:
    """Bind another repository to an existing project on the caller's explicit word."""
    project = _get(registry, project_id)
    live = tuple(b for b in project.bindings if exists(b.common_dir))
    action = ATTACHED if live else REBOUND
    updated = project._replace(bindings=(*live, binding), state=CONNECTED)
    return Connected(_with(registry, updated), project_id, action)


def set_shared(registry: Registry, project_id: str, shared: bool) -> Registry:
    """Enable or disable shared records for a project (`memhub project connect [--no-shared]`)."""
    project = _get(registry, project_id)
    return _with(registry, project._replace(shared=shared))


def disconnect(registry: Registry, project_id: str) -> Registry:
    """Mark a project disconnected: its bindings and records stay, nothing resolves to it."""
    project = _get(registry, project_id)
    return _with(registry, project._replace(state=DISCONNECTED))


def resolve_checkout(
    registry: Registry, checkout: Checkout | None, *, exists: Callable[[str], bool] = os.path.isdir
) -> Resolution:
    """The project `checkout` files under, or None and why (pure but for `exists`)."""
    if checkout is None:
        why = (
            "not inside a git checkout: nothing is filed under a project (`memhub project connect`)"
        )
        return Resolution(None, why, None, "no-checkout")
    project = project_for_common_dir(registry, checkout.common_dir)
    top = checkout.toplevel
    if project is not None and project.state == CONNECTED:
        return Resolution(project.id, "", checkout, "")
    if project is not None:
        why = (
            f"project {project.id} ({project.name}) is disconnected: `memhub project connect {top}`"
        )
        return Resolution(None, why + " reconnects it", checkout, "disconnected")
    # A project none of whose bindings exists any more may be this one, moved: say so, never
    # guess, and never name it (the caller may be another project's agent).
    if any(
        p.bindings and not any(exists(b.common_dir) for b in p.bindings)
        for p in registry.projects.values()
    ):
        why = f"{top} is not connected; a registered project's checkout is gone"
        how = (
            f"if this is it, moved, `memhub project connect --project ID {top}` rebinds it;"
            " `memhub project list` shows ids"
        )
        return Resolution(None, f"{why}: {how}", checkout, "moved")
    why = f"{top} is not connected to a project: run `memhub project connect`"
    return Resolution(None, why, checkout, "not-connected")


def resolve(registry: Registry, cwd: str | os.PathLike[str]) -> Resolution:
    """The project the folder `cwd` files under, from its git checkout (worktree-aware)."""
    return resolve_checkout(registry, checkout_of(cwd))


def list_projects(registry: Registry) -> list[Project]:
    """Every project, by name then id."""
    return sorted(registry.projects.values(), key=lambda p: (p.name, p.id))


def to_json(registry: Registry) -> dict[str, Any]:
    """The registry as projects.json's document."""
    return {
        "version": registry.version,
        "projects": {
            pid: {
                "name": p.name,
                "state": p.state,
                "shared": p.shared,
                "bindings": [b._asdict() for b in p.bindings],
            }
            for pid, p in sorted(registry.projects.items())
        },
    }


def _text(where: str, value: object, key: str) -> str:
    """A non-empty string field, or a RegistryError naming it."""
    if not isinstance(value, str) or not value:
        raise RegistryError(f"{where}: `{key}` must be a non-empty string")
    return value


def _binding(where: str, raw: object) -> Binding:
    """One binding of the document, validated."""
    if not isinstance(raw, dict):
        raise RegistryError(f"{where}: a binding must be an object")
    common, top = (_text(where, raw.get(k), k) for k in ("common_dir", "toplevel"))
    if not (os.path.isabs(common) and os.path.isabs(top)):
        raise RegistryError(f"{where}: `common_dir` and `toplevel` must be absolute paths")
    return Binding(common, top, _text(where, raw.get("connected_at"), "connected_at"))


def _project(where: str, pid: str, raw: object) -> Project:
    """One project of the document, validated."""
    if not ID_PATTERN.fullmatch(pid):
        raise RegistryError(f"{where}: `{pid}` is not a project id (p- and 12 hex digits)")
    if not isinstance(raw, dict):
        raise RegistryError(f"{where}: project {pid} must be an object")
    state = raw.get("state")
    if state not in STATES:
        raise RegistryError(f"{where}: project {pid}: `state` must be one of {', '.join(STATES)}")
    bindings = raw.get("bindings")
    if not isinstance(bindings, list):
        raise RegistryError(f"{where}: project {pid}: `bindings` must be a list")
    parsed = tuple(_binding(f"{where}: project {pid}", b) for b in bindings)
    shared = raw.get("shared", True)  # registries written before the key existed read shared
    if not isinstance(shared, bool):
        raise RegistryError(f"{where}: project {pid}: `shared` must be true or false")
    name = _text(f"{where}: project {pid}", raw.get("name"), "name")
    return Project(pid, name, parsed, state, shared)


def from_json(document: object, where: str = FILENAME) -> Registry:
    """A registry from projects.json's parsed document; RegistryError naming what is wrong."""
    if not isinstance(document, dict):
        raise RegistryError(f"{where}: the document must be an object")
    version = document.get("version")
    if version != VERSION:
        raise RegistryError(
            f"{where}: unsupported `version` {version!r} (this memhub reads {VERSION})"
        )
    projects = document.get("projects")
    if not isinstance(projects, dict):
        raise RegistryError(f"{where}: `projects` must be an object of project id -> project")
    parsed = {pid: _project(where, pid, raw) for pid, raw in projects.items()}
    owners: dict[str, str] = {}
    for project in parsed.values():
        for b in project.bindings:
            other = owners.setdefault(b.common_dir, project.id)
            if other != project.id:
                raise RegistryError(
                    f"{where}: {b.common_dir} is bound to both {other} and {project.id}"
                )
    return Registry(parsed, VERSION)


def load_registry(path: str | os.PathLike[str]) -> Registry:
    """Read projects.json: a missing file is an empty registry, a malformed one a RegistryError."""
    where = os.fspath(path)
    try:
        fd = os.open(where, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return Registry()
    except OSError as exc:
        raise RegistryError(
            f"{where}: cannot be read ({exc.strerror}): it must be a regular file"
        ) from exc
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
        os.close(fd)
        raise RegistryError(f"{where}: not a regular file under {MAX_BYTES} bytes")
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_BYTES + 1)
    try:
        document = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise RegistryError(f"{where}: not UTF-8 (byte {exc.start}): fix or remove it") from exc
    except json.JSONDecodeError as exc:
        raise RegistryError(
            f"{where}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}): fix or remove the file"
        ) from exc
    return from_json(document, where)


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of `data` to `fd` (os.write may write fewer)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def save_registry(path: str | os.PathLike[str], registry: Registry) -> None:
    """Replace projects.json atomically (temp file, fsync, rename, 0600); readers see old or new."""
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    os.makedirs(folder, mode=0o700, exist_ok=True)
    data = (json.dumps(to_json(registry), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    import tempfile  # writes only: reads (every search, every hook) never pay for it

    # mkstemp: a unique 0600 name per writer, so two processes never write into one temp file.
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder)
    try:
        try:
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(folder)


def _fsync_dir(folder: str) -> None:
    """Make the rename durable; a filesystem that cannot fsync a folder is left as is."""
    with contextlib.suppress(OSError):
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
