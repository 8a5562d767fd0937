"""Write a Build into a folder as one swap, so a reader never sees half a bundle."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from memhub.compiler.build import Build
from memhub.compiler.errors import OutputError
from memhub.compiler.plan import BUILD_MARKER, Plan, existing_files


def marker_bytes(build: Build) -> bytes:
    """The record that marks a folder as memhub output (deterministic, no timestamps)."""
    record = {
        "generator": "memhub",
        "plugin": build.hub.plugin.name,
        "hosts": list(build.hosts),
        "files": [a.path for a in build.artifacts],
    }
    return (json.dumps(record, indent=2) + "\n").encode()


def check_output_dir(out: Path) -> None:
    """Refuse a folder that holds files memhub did not generate."""
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out}: exists and is not a folder. Fix: choose another --out")
    if out.is_dir() and existing_files(out) and not (out / BUILD_MARKER).is_file():
        raise OutputError(
            f"{out}: folder holds files memhub did not build (no {BUILD_MARKER}). "
            "Fix: choose an empty or new --out folder; memhub replaces its output folder whole"
        )


def _make_dirs(top: Path, folder: Path) -> None:
    """Create `folder` under `top` with mode 0755 whatever the umask (outputs are shared)."""
    missing = []
    while folder != top and not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for each in reversed(missing):
        each.mkdir()
        os.chmod(each, 0o755)


def write_build(build: Build, out: Path, plan: Plan | None = None) -> bool:
    """Replace `out` with exactly the build's files (plus the marker); False if nothing changed.

    `plan` (of this build against `out`) lets an up-to-date folder be left untouched.
    """
    check_output_dir(out)
    marker = out / BUILD_MARKER
    unchanged = plan is not None and not plan.pending
    if unchanged and marker.is_file() and marker.read_bytes() == marker_bytes(build):
        return False
    out = out.absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.memhub-", dir=out.parent))
    try:
        for artifact in build.artifacts:
            target = staging / artifact.path
            _make_dirs(staging, target.parent)
            # No fsync per file: the folder appears whole by one rename, and a build that
            # a power loss interrupts is simply run again (the hub is the source).
            target.write_bytes(artifact.content)
            os.chmod(target, artifact.mode)
        (staging / BUILD_MARKER).write_bytes(marker_bytes(build))
        os.chmod(staging / BUILD_MARKER, 0o644)
        os.chmod(staging, 0o755)
        if out.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.rename(out, retired / "tree")
            os.rename(staging, out)
            shutil.rmtree(retired, ignore_errors=True)
        else:
            os.rename(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return True
