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
from memhub.runtime.memory.gitcheckout import git_env

ENVELOPE = {"command", "ok", "exit_code", "data", "warnings", "errors"}


def git(*args: str, cwd: Path) -> None:
    """Run git in `cwd` with a clean environment and a throwaway identity."""
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=cwd,
        env=git_env(),
        check=True,
        capture_output=True,
    )


def repo(path: Path, *, commit: bool = False) -> Path:
    """A fresh git repository at `path` (with one empty commit when a worktree needs it)."""
    path.mkdir(parents=True)
    git("init", "-q", cwd=path)
    if commit:
        git("commit", "-q", "--allow-empty", "-m", "first", cwd=path)
    return path


def worktree(main_checkout: Path, at: Path) -> Path:
    """A second worktree of `main_checkout` at `at`."""
    git("worktree", "add", "-q", "-b", at.name, str(at), cwd=main_checkout)
    return at


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
