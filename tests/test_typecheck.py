"""mypy keeps the package clean, and `.ci/typecheck.py` checks what the package really is.

The package folders install as `memhub.<folder>` (setuptools package-dir), which plain mypy
cannot see through the editable install's import hook. The wrapper names each file as
installed; these tests run it for real: on the repository (clean), and on a small tree of
its own, to prove that `memhub.*` imports resolve across folders, that `[tool.mypy]` is
applied, and that each error names the file as it is in the repository.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.hubs import REPO

WRAPPER = REPO / ".ci" / "typecheck.py"


def typecheck(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(WRAPPER), str(root), *(("--", *extra) if extra else ())],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_package_is_mypy_clean() -> None:
    result = typecheck(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def test_errors_name_the_real_file_and_memhub_imports_resolve(tmp_path: Path) -> None:
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    for folder in ("hubspec", "compiler"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "hubspec" / "numbers.py").write_text("def one() -> int:\n    return 1\n")
    (tmp_path / "compiler" / "use.py").write_text(
        "from memhub.hubspec.numbers import one\n"
        "\n"
        "text: str = one()\n"
        "\n"
        "\n"
        "def untyped(value):\n"
        "    return value\n"
    )
    result = typecheck(tmp_path, "--cache-dir", str(tmp_path / "cache"))
    lines = result.stdout.splitlines()
    assert result.returncode == 1, result.stdout + result.stderr
    # Resolved across folders: an unresolved import would make one() Any and hide this.
    assert any(
        line.startswith("compiler/use.py:3: error: Incompatible types in assignment")
        for line in lines
    ), result.stdout
    # disallow_untyped_defs from [tool.mypy], reported at the file's own path.
    assert any(
        line.startswith("compiler/use.py:6: error: Function is missing a type annotation")
        for line in lines
    ), result.stdout
    assert "import-not-found" not in result.stdout
    assert "Found 2 errors in 1 file" in result.stdout
