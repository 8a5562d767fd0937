"""open_workspace: the project from the git checkout, the scopes granted, messages that never leak."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from memhub.runtime.memory import layout
from memhub.runtime.memory import projects as P
from memhub.runtime.memory.errors import MemoryServiceError
from memhub.runtime.memory.workspace import Workspace, open_workspace

from .svchelp import connect, git_repo


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def test_the_project_comes_from_the_checkout_of_a_subfolder(home: Path, tmp_path: Path) -> None:
    app = git_repo(tmp_path / "app")
    pid = connect(home, app, "app")
    (app / "src" / "deep").mkdir(parents=True)
    ws = open_workspace(home, cwd=app / "src" / "deep")
    assert (ws.project_id, ws.project_name, ws.scopes, ws.writable) == (
        pid,
        "app",
        ("shared", "project"),
        True,
    )
    assert ws.allowed() == [("project", pid), ("shared", None)]
    assert ws.message == ""


def test_project_folder_overrides_cwd(home: Path, tmp_path: Path) -> None:
    a, b = git_repo(tmp_path / "a"), git_repo(tmp_path / "b")
    pa, pb = connect(home, a), connect(home, b)
    assert open_workspace(home, cwd=a, project=str(b)).project_id == pb
    assert open_workspace(home, cwd=a).project_id == pa


def test_outside_a_checkout_only_shared_and_a_message(home: Path, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    ws = open_workspace(home, cwd=plain)
    assert ws.project_id is None and ws.scopes == ("shared",)
    assert ws.allowed() == [("shared", None)]
    assert "memhub project connect" in ws.message


def test_an_unconnected_checkout_names_no_other_project(home: Path, tmp_path: Path) -> None:
    other = git_repo(tmp_path / "secret-client")
    pid = connect(home, other, "secret-client")
    gone = tmp_path / "secret-client"
    gone.rename(tmp_path / "elsewhere")  # its checkout is gone: the "moved" case
    mine = git_repo(tmp_path / "mine")
    ws = open_workspace(home, cwd=mine)
    assert ws.project_id is None
    assert pid not in ws.message and "secret-client" not in ws.message
    assert "memhub project list" in ws.message


def test_a_project_without_shared_reads_only_its_own(home: Path, tmp_path: Path) -> None:
    app = git_repo(tmp_path / "app")
    pid = connect(home, app, shared=False)
    ws = open_workspace(home, cwd=app)
    assert ws.scopes == ("project",) and ws.allowed() == [("project", pid)]


def test_scopes_narrow_and_never_widen(home: Path, tmp_path: Path) -> None:
    app = git_repo(tmp_path / "app")
    pid = connect(home, app)
    assert open_workspace(home, cwd=app, scopes=("project",)).allowed() == [("project", pid)]
    assert open_workspace(home, cwd=app, scopes=("shared",)).allowed() == [("shared", None)]
    assert open_workspace(home, cwd=app, scopes=()).allowed() == []
    assert not open_workspace(home, cwd=app, writable=False).writable
    with pytest.raises(MemoryServiceError, match="unknown"):
        open_workspace(home, cwd=app, scopes=("project", "../other"))


def test_a_malformed_registry_is_a_service_error(home: Path, tmp_path: Path) -> None:
    path = layout.projects_file(layout.memory_root(home))
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    with pytest.raises(MemoryServiceError, match=r"projects\.json"):
        open_workspace(home, cwd=tmp_path)


def test_registries_without_the_shared_key_read_shared(home: Path, tmp_path: Path) -> None:
    app = git_repo(tmp_path / "app")
    pid = connect(home, app)
    path = layout.projects_file(layout.memory_root(home))
    doc = json.loads(path.read_text())
    del doc["projects"][pid]["shared"]
    path.write_text(json.dumps(doc))
    assert P.load_registry(path).projects[pid].shared is True
    doc["projects"][pid]["shared"] = "no"
    path.write_text(json.dumps(doc))
    with pytest.raises(P.RegistryError, match="shared"):
        P.load_registry(path)


def test_set_shared_round_trips(home: Path, tmp_path: Path) -> None:
    app = git_repo(tmp_path / "app")
    pid = connect(home, app, shared=False)
    path = layout.projects_file(layout.memory_root(home))
    assert P.load_registry(path).projects[pid].shared is False
    P.save_registry(path, P.set_shared(P.load_registry(path), pid, True))
    assert P.load_registry(path).projects[pid].shared is True


def test_grants_checks_pairs() -> None:
    ws = Workspace(Path("/h"), "p-000000000001", "x", ("project",), True)
    assert ws.grants("project", "p-000000000001")
    assert not ws.grants("shared", None) and not ws.grants("project", "p-000000000002")
