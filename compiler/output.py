"""Write a Build into a folder as one swap, so a reader never sees half a bundle."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from .build import Build
from .errors import OutputError
from .plan import BUILD_MARKER, existing_files


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


def write_build(build: Build, out: Path) -> None:
    """Replace `out` with exactly the build's files (plus the marker)."""
    check_output_dir(out)
    out = out.absolute()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.memhub-", dir=out.parent))
    try:
        for artifact in build.artifacts:
            target = staging / artifact.path
            target.parent.mkdir(parents=True, exist_ok=True)
            with open(target, "wb") as handle:
                handle.write(artifact.content)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(target, artifact.mode)
        (staging / BUILD_MARKER).write_bytes(marker_bytes(build))
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
