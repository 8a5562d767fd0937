"""Shared fixtures: no test can reach the real home; shared material is found or required."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
EXAMPLE_HUBS = sorted(p.name for p in EXAMPLES.iterdir() if (p / "hub.yaml").is_file())


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


# CI runs every property test on a fixed sequence of examples, so a run never turns red by the
# luck of its seed; a local run explores new examples each time (and keeps what failed).
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if in_ci():
    settings.load_profile("ci")


def material_root() -> Path | None:
    """The shared research material: $MEMHUB_SHARED_MATERIAL, else ../shared/material."""
    configured = os.environ.get("MEMHUB_SHARED_MATERIAL")
    candidate = Path(configured) if configured else REPO.parent / "shared" / "material"
    return candidate if candidate.is_dir() else None


@pytest.fixture(scope="session")
def material() -> Path:
    """Path of the shared material; skips locally when absent, fails in CI."""
    root = material_root()
    if root is None:
        message = (
            "shared material not found (set MEMHUB_SHARED_MATERIAL or place ../shared/material)"
        )
        if in_ci():
            pytest.fail(message + "; CI requires it")
        pytest.skip(message)
    return root


@pytest.fixture(autouse=True)
def _no_real_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Point HOME, MEMHUB_HOME and every host config dir at a throwaway folder."""
    home = tmp_path_factory.mktemp("home")
    for name, value in {
        "HOME": home,
        "MEMHUB_HOME": home / ".memhub",
        "CLAUDE_CONFIG_DIR": home / ".claude",
        "CODEX_HOME": home / ".codex",
        "XDG_CONFIG_HOME": home / ".config",
    }.items():
        monkeypatch.setenv(name, str(value))
    yield
