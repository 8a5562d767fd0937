"""Where Gemini CLI keeps a project's private memory, as the real CLI says it, and the reader.

Gemini CLI 0.61 has no save_memory tool: its system prompt tells the model to keep private
project notes in "**Private Project Memory** (`<folder>/MEMORY.md`)", a folder under
`~/.gemini/tmp/<id>/memory` whose id the CLI registers in `~/.gemini/projects.json`. A
headless `gemini -p` against the fake model, in a checkout and in a subfolder of it, names
that file; a bullet written there is what `native.discover` reads for the same folder.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from memhub.runtime.memory import native

from . import test_install_hosts as install
from .harness import describe, run

pytestmark = pytest.mark.e2e
home = install.home  # a person's own host settings (Gemini's API-key auth) in a temp home

ANNOUNCED = re.compile(r"\*\*Private Project Memory\*\* \(`([^`]+)`\)")


def _announced(gemini_cli: Path, env: dict[str, str], cwd: Path, fake_gemini) -> Path:
    start = len(fake_gemini.requests)
    argv = [gemini_cli, "-m", "fake-model", "-p", "hi", "--yolo", "--skip-trust", "-o", "json"]
    proc = run(argv, env=env, cwd=cwd, timeout=150)
    assert proc.returncode == 0, describe(proc)
    for request in fake_gemini.requests[start:]:
        found = ANNOUNCED.search(str(request.body))
        if found:
            return Path(found.group(1))
    raise AssertionError(f"no private memory file in Gemini CLI's prompt\n{describe(proc)}")


def test_gemini_names_the_private_memory_the_reader_reads(
    gemini_cli: Path, home: install.Home, git_repo: Path, fake_gemini
) -> None:
    fake_gemini.shell_commands = []
    env = install.gemini_env(home, fake_gemini)
    subfolder = git_repo / "pkg"
    subfolder.mkdir()
    for cwd, fact in ((git_repo, "The repo uses uv"), (subfolder, "pkg builds with hatch")):
        index = _announced(gemini_cli, env, cwd, fake_gemini)
        assert index.name == "MEMORY.md" and index.parent.name == "memory", index
        assert index.is_relative_to(home.gemini_dir / "tmp"), index
        index.parent.mkdir(parents=True, exist_ok=True)
        index.write_text(f"- {fact}\n")  # computeProjectMemoryContent's shape
        found, _ = native.discover("gemini", cwd=cwd, env=env)
        assert fact in [c.draft.title for c in found], (cwd, found)
