"""What the memory and project CLI tests share: real git checkouts, and `memhub` run in this
process (from a chosen working directory) or as a separate process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler.cli.main import main

from tests.gitrepos import git, repo, worktree  # noqa: F401 (the CLI tests import them here)

ENVELOPE = {"command", "ok", "exit_code", "data", "warnings", "errors"}


@dataclass
class Ran:
    """One run of `memhub`: its exit code and what it printed."""

    code: int
    out: str
    err: str

    def json(self) -> dict[str, Any]:
        document = json.loads(self.out)
        assert set(document) == ENVELOPE, document
        assert document["exit_code"] == self.code
        return document

    @property
    def data(self) -> Any:
        return self.json()["data"]


class Memhub:
    """`memhub ARGS` in this process, from a working directory (default: the test's tmp)."""

    def __init__(
        self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, cwd: Path
    ) -> None:
        self.capsys, self.monkeypatch, self.cwd = capsys, monkeypatch, cwd

    def __call__(self, *args: str, cwd: Path | None = None) -> Ran:
        self.capsys.readouterr()
        self.monkeypatch.chdir(cwd or self.cwd)
        code = main(list(args))
        out, err = self.capsys.readouterr()
        assert "Traceback" not in err, err
        return Ran(code, out, err)


def home() -> Path:
    """The memhub home the tests run with (tests/conftest.py points MEMHUB_HOME at a tmp)."""
    return Path(os.environ["MEMHUB_HOME"])


def spawn(*args: str, cwd: Path) -> subprocess.Popen[str]:
    """`memhub ARGS` as a separate process (this interpreter), not waited for."""
    return subprocess.Popen(
        [sys.executable, "-m", "memhub.compiler.cli.main", *args],
        cwd=cwd,
        env=dict(os.environ),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def memhub_process(*args: str, cwd: Path) -> Ran:
    """`memhub ARGS` as a separate process, waited for."""
    child = spawn(*args, cwd=cwd)
    out, err = child.communicate(timeout=120)
    assert "Traceback" not in err, err
    return Ran(child.returncode, out, err)


def connected(mh: Memhub, path: Path, *, name: str | None = None) -> tuple[Path, str]:
    """A new git repository at `path`, connected: (its folder, the project id)."""
    top = repo(path, commit=True)
    args = ["project", "connect", "--json"] + (["--name", name] if name else [])
    ran = mh(*args, cwd=top)
    assert ran.code == 0, ran.err
    return top, ran.data["project"]["id"]


def add(mh: Memhub, cwd: Path, title: str, body: str = "", *extra: str) -> str:
    """`memhub memory add --yes` of a fact (unless `extra` names a kind): the new record id."""
    kind = [] if "--kind" in extra else ["--kind", "fact"]
    ran = mh(
        "memory", "add", *kind, "--title", title, "--body", body or f"about {title}",
        *extra, "--yes", "--json", cwd=cwd,
    )  # fmt: skip
    assert ran.code == 0, ran.err + ran.out
    created = [c for c in ran.data["plan"]["changes"] if c["action"] == "create"]
    return str(created[-1]["record_id"])


def revision_of(mh: Memhub, cwd: Path, record_id: str) -> str:
    ran = mh("memory", "get", record_id, "--json", cwd=cwd)
    assert ran.code == 0, ran.err
    return str(ran.data["revision"])


def record_files(project_id: str | None = None) -> list[Path]:
    """Every record file of a project (or of the shared scope, or of all with "*")."""
    root = home() / "memory"
    if project_id == "*":
        return sorted(root.glob("**/records/*.md"))
    folder = root / "shared" if project_id is None else root / "projects" / project_id
    return sorted((folder / "records").glob("*.md"))
