"""The hubs the compiler tests run on: every example plus the full-feature probe."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from memhub.compiler.build import Build, build
from memhub.hubspec import load

REPO = Path(__file__).resolve().parent.parent
HUBS: dict[str, Path] = {
    **{p.name: p for p in sorted((REPO / "examples").iterdir()) if (p / "hub.yaml").is_file()},
    "full": REPO / "tests" / "data" / "full",
}


@cache
def built(name: str) -> Build:
    """The build of one named hub for all of its hosts (cached: builds are pure)."""
    return build(load(HUBS[name]))


RUNTIME_FOLDER = "/memhub_runtime/"


def text_files(result: Build, owner: str) -> dict[str, str]:
    """path -> text of the files `owner` produced (binary files shown by fingerprint).

    The vendored runtime folder is one line: its files are the runtime package's own, byte
    for byte (`test_snapshots.test_vendored_runtime_is_the_package` checks that), so work on
    the runtime does not rewrite every bundle snapshot."""
    out = {}
    for artifact in result.artifacts:
        if owner in artifact.owners:
            if RUNTIME_FOLDER in artifact.path:
                folder = artifact.path[: artifact.path.index(RUNTIME_FOLDER) + len(RUNTIME_FOLDER)]
                out[folder] = "<the memhub.runtime package, vendored>"
                continue
            try:
                body = artifact.content.decode("utf-8")
            except UnicodeDecodeError:
                body = f"<binary {artifact.fingerprint}>"
            out[f"{artifact.path} (mode {artifact.mode:o})"] = body
    return out
