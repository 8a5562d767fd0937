"""Worktree-aware checkout probing, against real git repositories and worktrees."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest
from memhub.runtime.memory.gitcheckout import Checkout, checkout_of, git_env


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


def worktree(main: Path, at: Path) -> Path:
    """A second worktree of `main` at `at`."""
    git("worktree", "add", "-q", "-b", at.name, str(at), cwd=main)
    return at


def checkout(path: Path) -> Checkout:
    """The checkout of `path`, which must be one."""
    found = checkout_of(path)
    assert found is not None, path
    return found


# -- gitcheckout ---------------------------------------------------------------------------


def test_a_subfolder_is_the_same_checkout(tmp_path: Path) -> None:
    top = repo(tmp_path / "app")
    (top / "src" / "deep").mkdir(parents=True)
    assert checkout(top / "src" / "deep") == checkout(top)
    assert checkout(top) == Checkout(str(top.resolve()), str((top / ".git").resolve()))


def test_worktrees_share_the_common_dir(tmp_path: Path) -> None:
    main = repo(tmp_path / "app", commit=True)
    second = worktree(main, tmp_path / "app-feature")
    a, b = checkout(main), checkout(second)
    assert a.common_dir == b.common_dir == str((main / ".git").resolve())
    assert b.toplevel == str(second.resolve()) != a.toplevel


def test_no_checkout_outside_bare_or_broken(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    assert checkout_of(tmp_path / "plain") is None
    assert checkout_of(tmp_path / "missing") is None
    bare = tmp_path / "bare.git"
    bare.mkdir()
    git("init", "-q", "--bare", cwd=bare)
    assert checkout_of(bare) is None
    assert checkout_of(repo(tmp_path / "r") / ".git") is None  # inside the git folder itself
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / ".git").write_text("gitdir: /nonexistent/repo/.git/worktrees/x\n")
    assert checkout_of(broken) is None


def test_tmpdir_is_never_a_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert checkout_of(tempfile.gettempdir()) is None
    # Even a TMPDIR inside a repository: neither it nor a scratch folder in it is that project.
    top = repo(tmp_path / "app")
    scratch = top / "tmp" / "session-1"
    scratch.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(top / "tmp"))
    assert checkout_of(top / "tmp") is None
    assert checkout_of(scratch) is None
    assert checkout(top).toplevel == str(top.resolve())


def test_git_variables_do_not_redirect_the_probe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine, other = repo(tmp_path / "mine"), repo(tmp_path / "other")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_COMMON_DIR", str(other / ".git"))
    assert checkout(mine).common_dir == str((mine / ".git").resolve())
    assert "GIT_DIR" not in git_env() and git_env()["GIT_TERMINAL_PROMPT"] == "0"


def test_a_symlink_resolves_to_its_target(tmp_path: Path) -> None:
    top = repo(tmp_path / "app")
    (tmp_path / "link").symlink_to(top)
    assert checkout(tmp_path / "link") == checkout(top)


def test_no_git_binary_is_no_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    top = repo(tmp_path / "app")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert checkout_of(top) is None


def test_a_hung_git_times_out_to_no_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    top = repo(tmp_path / "app")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text("#!/bin/sh\nexec sleep 30\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert checkout_of(top, timeout=0.3) is None


def test_odd_characters_in_the_path_survive(tmp_path: Path) -> None:
    top = repo(tmp_path / "a\rb c\x1cd é")
    assert checkout(top).toplevel == str(top.resolve())
