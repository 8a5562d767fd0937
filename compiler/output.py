"""Write a Build into a folder as one swap, so a reader never sees half a bundle (through
safewrite's staged-tree primitive: built beside, one sync, swapped in whole)."""

from __future__ import annotations

from pathlib import Path

from memhub.compiler.build import Build
from memhub.compiler.errors import OutputError
from memhub.compiler.formats import jsondump
from memhub.compiler.plan import BUILD_MARKER, Plan, existing_files
from memhub.compiler.safewrite.fsops import stage_and_swap


def marker_bytes(build: Build) -> bytes:
    """The record that marks a folder as memhub output (deterministic, no timestamps)."""
    record = {
        "generator": "memhub",
        "plugin": build.hub.plugin.name,
        "hosts": list(build.hosts),
        "files": [a.path for a in build.artifacts],
    }
    return (jsondump.dumps(record, indent=2, ensure_ascii=True) + "\n").encode()


def check_output_dir(out: Path) -> None:
    """Refuse a folder that holds files memhub did not generate."""
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out}: exists and is not a folder. Fix: choose another --out")
    if out.is_dir() and existing_files(out) and not (out / BUILD_MARKER).is_file():
        raise OutputError(
            f"{out}: folder holds files memhub did not build (no {BUILD_MARKER}). "
            "Fix: choose an empty or new --out folder; memhub replaces its output folder whole"
        )


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
    files = {a.path: (a.content, a.mode) for a in build.artifacts}
    files[BUILD_MARKER] = (marker_bytes(build), 0o644)
    # Folders 0755 whatever the umask: a bundle is shared.
    stage_and_swap(out, files, root_mode=0o755, dir_mode=0o755)
    return True
