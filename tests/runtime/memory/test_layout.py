"""Where memory records live, and that no id or project id can leave the memory folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from memhub.runtime.memory import layout
from memhub.runtime.memory.layout import UnknownScope, UnsafeName

ROOT = Path("/h/memory")

ATTACKS = [
    "../x",
    "..",
    ".",
    "/abs",
    "/etc/passwd",
    "a/b",
    "a\\b",
    "a\0b",
    "\0",
    "",
    "x" * 10_000,
    "x" * (layout.MAX_NAME_LENGTH + 1),
    "-rf",
    "Upper",
    "a b",
    "a.md",
    "a\n",
    "é",
    "~",
    "C:x",
]


def test_the_layout_under_the_memory_root() -> None:
    assert layout.memory_root("/h") == ROOT
    assert layout.shared_records(ROOT) == ROOT / "shared" / "records"
    assert layout.project_records(ROOT, "p-1") == ROOT / "projects" / "p-1" / "records"
    assert layout.memory_index_md(ROOT, "shared") == ROOT / "shared" / "MEMORY.md"
    assert layout.memory_index_md(ROOT, "project", "p-1") == ROOT / "projects/p-1/MEMORY.md"
    assert layout.projects_file(ROOT) == ROOT / "projects.json"
    assert layout.record_path(ROOT, "shared", None, "r-1") == ROOT / "shared/records/r-1.md"
    assert (
        layout.record_path(ROOT, "project", "p-1", "r-1")
        == ROOT / "projects" / "p-1" / "records" / "r-1.md"
    )


def test_the_longest_name_is_accepted() -> None:
    name = "a" * layout.MAX_NAME_LENGTH
    assert layout.record_path(ROOT, "project", name, name).name == f"{name}.md"


@pytest.mark.parametrize("bad", ATTACKS)
def test_an_unsafe_record_id_is_refused_by_name(bad: str) -> None:
    with pytest.raises(UnsafeName) as caught:
        layout.record_path(ROOT, "shared", None, bad)
    assert caught.value.what == "record id"
    assert caught.value.value == bad
    assert "record id" in str(caught.value)
    assert len(str(caught.value)) < 300  # a 10k-character id is shown cut short


@pytest.mark.parametrize("bad", ATTACKS)
def test_an_unsafe_project_id_is_refused_everywhere(bad: str) -> None:
    calls = [
        lambda: layout.project_records(ROOT, bad),
        lambda: layout.memory_index_md(ROOT, "project", bad),
        lambda: layout.record_path(ROOT, "project", bad, "r-1"),
    ]
    for call in calls:
        with pytest.raises(UnsafeName, match="project id"):
            call()


@pytest.mark.parametrize("bad", [None, 1, b"r-1", ["r-1"]])
def test_a_name_that_is_not_a_string_is_refused(bad: object) -> None:
    with pytest.raises(UnsafeName):
        layout.check_name(bad)


def test_unsafe_name_is_a_value_error() -> None:
    assert issubclass(UnsafeName, ValueError)
    assert issubclass(UnknownScope, ValueError)


def test_scopes_and_project_ids_must_agree() -> None:
    with pytest.raises(UnknownScope, match="'team'"):
        layout.record_path(ROOT, "team", None, "r-1")
    with pytest.raises(UnknownScope, match="needs a project id"):
        layout.record_path(ROOT, "project", None, "r-1")
    with pytest.raises(UnknownScope, match="takes no project id"):
        layout.memory_index_md(ROOT, "shared", "p-1")


def test_every_path_stays_under_the_root() -> None:
    for scope, project in (("shared", None), ("project", "p")):
        path = layout.record_path(ROOT, scope, project, "r-0-a")
        assert path.resolve().is_relative_to(ROOT.resolve())


def test_layout_imports_under_python_s_i() -> None:
    """The runtime is vendored into bundles: the module imports with the standard library only."""
    package = Path(layout.__file__).parent
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('layout', {str(package / 'layout.py')!r})\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
        "print(module.record_path(module.memory_root('/h'), 'shared', None, 'r-1'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-I", "-c", code], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "/h/memory/shared/records/r-1.md"
