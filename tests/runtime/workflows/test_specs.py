"""Spec ownership: which specs own a path, which went unreviewed on a branch, and that
retired or malformed specs never fire (malformed ones are reported, not raised)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from memhub.runtime.workflows.specs import (
    before_push,
    load_specs,
    owning_specs,
    spec_dir,
    unreviewed_specs,
)

AUTH = "---\ntitle: Authentication\nstatus: active\nowns:\n  - src/auth/**\n  - src/login.py\n---\n# Auth\n"
BILLING = "---\nowns: [src/billing/**, 'src/{invoice,tax}.py']\n---\n"
RETIRED = "---\ntitle: Old auth\nstatus: retired\nowns:\n  - src/auth/**\n---\n"
BROKEN = "---\ntitle: Broken\nowns:\n  a: b\n---\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    specs = tmp_path / "docs" / "specs"
    (specs / "money").mkdir(parents=True)
    (specs / "auth.md").write_text(AUTH, encoding="utf-8")
    (specs / "money" / "billing.md").write_text(BILLING, encoding="utf-8")
    (specs / "old-auth.md").write_text(RETIRED, encoding="utf-8")
    (specs / "broken.md").write_text(BROKEN, encoding="utf-8")
    (specs / "README.md").write_text("# Specs\n\nowns: src/**\n", encoding="utf-8")
    (specs / "notes.txt").write_text(AUTH, encoding="utf-8")  # not Markdown: not a spec
    return tmp_path


def test_load_reads_specs_and_reports_the_rest(repo: Path) -> None:
    found = load_specs(str(repo))
    assert sorted(spec.path for spec in found.specs) == [
        "docs/specs/auth.md",
        "docs/specs/money/billing.md",
        "docs/specs/old-auth.md",
    ]
    auth = next(s for s in found.specs if s.path == "docs/specs/auth.md")
    assert (auth.title, auth.status, auth.owns) == (
        "Authentication",
        "active",
        ("src/auth/**", "src/login.py"),
    )
    billing = next(s for s in found.specs if s.path.endswith("billing.md"))
    assert (billing.title, billing.status) == ("billing", "active")  # defaults: stem, active
    assert sorted(found.problems) == [
        ("docs/specs/README.md", "no front matter"),
        ("docs/specs/broken.md", "line 3: `owns` lists globs as `- glob` lines"),
    ]
    assert [s.path for s in found.active()] == ["docs/specs/auth.md", "docs/specs/money/billing.md"]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("src/auth/tokens.py", ["docs/specs/auth.md"]),  # the retired spec does not fire
        ("./src/login.py", ["docs/specs/auth.md"]),
        ("src\\auth\\x.py", ["docs/specs/auth.md"]),
        ("src/tax.py", ["docs/specs/money/billing.md"]),
        ("src/billing/a/b.py", ["docs/specs/money/billing.md"]),
        ("src/other.py", []),
        ("docs/specs/auth.md", []),  # a spec file is owned by none
        ("docs/specs/broken.md", []),
    ],
)
def test_owning_specs(repo: Path, path: str, expected: list[str]) -> None:
    assert [spec.path for spec in owning_specs(str(repo), path)] == expected


def test_owning_specs_takes_absolute_paths_inside_the_repo_only(repo: Path, tmp_path: Path) -> None:
    assert [s.path for s in owning_specs(str(repo), str(repo / "src" / "auth" / "x.py"))] == [
        "docs/specs/auth.md"
    ]
    assert owning_specs(str(repo), str(repo.parent / "src" / "auth" / "x.py")) == []
    assert owning_specs(str(repo), "../src/auth/x.py") == []
    assert [s.path for s in owning_specs(str(repo), "src/../src/login.py")] == [
        "docs/specs/auth.md"
    ]


def test_owning_specs_reuses_a_loaded_set(repo: Path) -> None:
    found = load_specs(str(repo))
    (repo / "docs" / "specs" / "auth.md").unlink()
    assert [s.path for s in owning_specs(str(repo), "src/login.py", found)] == [
        "docs/specs/auth.md"
    ]


def test_unreviewed_specs(repo: Path) -> None:
    found = load_specs(str(repo))
    changed = ["src/auth/tokens.py", "src/login.py", "src/tax.py", "README.md"]
    hits = unreviewed_specs(changed, [], found)
    assert [(spec.path, paths) for spec, paths in hits] == [
        ("docs/specs/auth.md", ["src/auth/tokens.py", "src/login.py"]),
        ("docs/specs/money/billing.md", ["src/tax.py"]),
    ]
    # a spec edited on the branch was reviewed, whether named apart or among the changes
    assert [s.path for s, _ in unreviewed_specs(changed, ["docs/specs/auth.md"], found)] == [
        "docs/specs/money/billing.md"
    ]
    assert [
        s.path for s, _ in unreviewed_specs([*changed, "docs/specs/money/billing.md"], [], found)
    ] == ["docs/specs/auth.md"]
    assert unreviewed_specs(["README.md", "docs/specs/broken.md"], [], found) == []
    assert unreviewed_specs([], [], found) == []


def test_spec_dir_follows_the_environment(repo: Path) -> None:
    root = str(repo)
    assert spec_dir(root, {}) == os.path.join(root, "docs/specs")
    assert spec_dir(root, {"MEMHUB_SPEC_DIR": "design/specs"}) == os.path.join(root, "design/specs")
    assert spec_dir(root, {"MEMHUB_SPEC_DIR": "/abs/specs"}) == "/abs/specs"
    assert spec_dir(root, {"MEMHUB_SPEC_DIR": "  "}) == os.path.join(root, "docs/specs")


def test_memhub_spec_dir_moves_the_specs(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (repo / "design").mkdir()
    (repo / "design" / "core.md").write_text("---\nowns: core/**\n---\n", encoding="utf-8")
    monkeypatch.setenv("MEMHUB_SPEC_DIR", "design")
    assert [s.path for s in owning_specs(str(repo), "core/x.py")] == ["design/core.md"]
    assert owning_specs(str(repo), "src/login.py") == []


def test_no_spec_directory_is_no_specs(tmp_path: Path) -> None:
    found = load_specs(str(tmp_path))
    assert (found.specs, found.problems) == ([], [])
    assert owning_specs(str(tmp_path), "src/a.py") == []


def test_hostile_spec_directories_are_refused_quickly(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    specs = repo / "docs" / "specs"
    outside = tmp_path_factory.mktemp("outside")
    (outside / "evil.md").write_text("---\nowns: '**'\n---\n", encoding="utf-8")
    (specs / "link.md").symlink_to(outside / "evil.md")
    (specs / "linked-dir").symlink_to(outside, target_is_directory=True)
    os.mkfifo(specs / "fifo.md")
    (specs / "huge.md").write_text("---\n" + "x: y\n" * 40_000 + "owns: a\n---\n", encoding="utf-8")
    found = load_specs(str(repo))
    assert "docs/specs/link.md" not in found.paths()
    assert not any("evil" in p or "fifo" in p for p in found.paths())
    assert (
        "docs/specs/huge.md",
        "front matter is not closed (no line `---` after it)",
    ) in found.problems
    assert owning_specs(str(repo), "anything/at/all.py") == []


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git push", True),
        ("git push -u origin HEAD 2>&1 | tail -3", True),
        ("git -C ../repo push origin main", True),
        ("cd repo && git add -A && git commit -m x && git push", True),
        ("gh pr create --fill", True),
        (["bash", "-lc", "git push --force-with-lease"], True),
        ("git push --dry-run", False),
        ("git push -n", False),
        ("gh pr create --dry-run --fill", False),
        ("echo git push", False),
        ("git log --grep push", False),
        ("git pull", False),
        ("cat > notes.md <<'EOF'\ngit push\nEOF", False),
        ("", False),
        (None, False),
    ],
)
def test_before_push(command: object, expected: bool) -> None:
    assert before_push(command) is expected
