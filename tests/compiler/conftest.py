from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.compiler.installkit import HUB


@pytest.fixture
def home() -> Path:
    """The test's home folder (tests/conftest.py points HOME at a temporary one)."""
    return Path(os.environ["HOME"])


@pytest.fixture
def hub(tmp_path: Path) -> Path:
    """A copy of the install probe hub, free to edit, move or delete."""
    target = tmp_path / "hub"
    shutil.copytree(HUB, target)
    return target
