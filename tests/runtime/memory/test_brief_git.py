"""brief_git: what the branch touches (diff against the default branch + the last commits)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from memhub.runtime.memory import brief_git
from memhub.runtime.memory.gitcheckout import checkout_of


def git(repo: Path, *args: str) -> None:
    ident = ["-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", "-C", str(repo), *ident, *args], check=True, capture_output=True)


def write(repo: Path, path: str, text: str = "x\n") -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text)


def test_files_names_and_subjects(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for i in range(25):  # older than the last 20 commits: only the diff can name them
        write(repo, f"old/f{i}.txt")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", f"old {i}")
    git(repo, "checkout", "-qb", "eng-7-feature")
    write(repo, "app/a.py")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "a (PR #3)")
    write(repo, "old/f0.txt", "changed, not committed\n")
    found = checkout_of(repo)
    assert found is not None
    branch = brief_git.branch_of(found.toplevel, found.common_dir)
    assert branch.name == "eng-7-feature"
    assert branch.subjects[0] == "a (PR #3)" and len(branch.subjects) == 20
    assert branch.files[:2] == ["app/a.py", "old/f0.txt"]  # the diff first, then the log
    assert "old/f1.txt" not in branch.files and "old/f24.txt" in branch.files


def test_the_default_branch_from_the_repository_files(tmp_path: Path) -> None:
    common = tmp_path / "git"
    (common / "refs" / "remotes" / "origin").mkdir(parents=True)
    assert brief_git._ref_files(str(common)) == ""
    (common / "packed-refs").write_text("# pack-refs\nabc refs/heads/master\n")
    assert brief_git._ref_files(str(common)) == "refs/heads/master"
    (common / "refs" / "heads").mkdir()
    (common / "refs" / "heads" / "main").write_text("abc\n")
    assert brief_git._ref_files(str(common)) == "refs/heads/main"
    (common / "refs" / "remotes" / "origin" / "HEAD").write_text("ref: refs/remotes/origin/dev\n")
    assert brief_git._ref_files(str(common)) == "refs/remotes/origin/dev"
    (common / "reftable").mkdir()
    assert brief_git._ref_files(str(common)) is None  # git is asked instead


def test_outside_git_nothing(tmp_path: Path) -> None:
    branch = brief_git.branch_of(str(tmp_path))
    assert (branch.name, branch.files, branch.subjects) == ("", [], [])
