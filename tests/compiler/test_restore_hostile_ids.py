"""`memhub restore --archive ID` with an id that tries to leave the archives folder: only a
name memhub listed there is an archive, so each is refused with exit 2 and nothing is made."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("archive", ["../..", "..", "", "/etc", "a/../../x", "x" * 10_000])
def test_an_archive_id_that_is_not_a_listed_name_is_refused(tmp_path: Path, archive: str) -> None:
    home, memhub_home = tmp_path / "home", tmp_path / "memhub"
    home.mkdir()
    # A folder outside the archives that looks like one must not be taken for one.
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "manifest.json").write_text("{}")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "memhub.compiler.cli.main",
            "restore",
            "--archive",
            archive,
            "--yes",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={**os.environ, "HOME": str(home), "MEMHUB_HOME": str(memhub_home)},
    )
    assert proc.returncode == 2, proc
    assert "no such archive" in proc.stderr and "Traceback" not in proc.stderr
    assert list(home.iterdir()) == []
