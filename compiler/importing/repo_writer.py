"""Write an imported repository's hubs into INTO: staged in a temp folder inside it, checked
(the hub must load and build), then moved into place; nothing is written on any failure."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from memhub.compiler.errors import OutputError
from memhub.compiler.importing.writer import HUB_FILE, refuse_existing_hub
from memhub.compiler.safewrite import durable, fsops


def write_repo_hub(files: dict[str, tuple[bytes, int]], into: Path) -> None:
    """Write `files` (INTO-relative path -> bytes, mode) into the new or empty folder INTO."""
    refuse_existing_hub(into)
    into.mkdir(parents=True, exist_ok=True)
    tops = sorted({rel.split("/", 1)[0] for rel in files})
    taken = [top for top in tops if (into / top).exists()]
    if taken:
        raise OutputError(
            f"{into}: already holds {', '.join(taken)}; nothing written. Fix: import into a "
            "new or empty folder"
        )
    staging = Path(tempfile.mkdtemp(prefix=".memhub-import-", dir=into))
    try:
        fsops.stage_tree(staging / "hub", dict(files), dir_mode=0o755)
        _check_builds(staging / "hub")
        refuse_existing_hub(into)  # a hub that appeared meanwhile is never replaced
        for top in tops:
            os.rename(staging / "hub" / top, into / top)
        durable.fsync_dir(into)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _check_builds(hub: Path) -> None:
    """The staged hub loads and builds as `memhub build` would, or nothing is written (the
    round trip takes out what the build refuses first, so this is a memhub bug)."""
    from memhub.compiler.marketplace import compile_any
    from memhub.hubspec import MemhubError

    try:
        compile_any(hub / HUB_FILE, ())
    except MemhubError as exc:
        shown = str(exc).replace(f"{hub}{os.sep}", "")
        raise MemhubError(
            f"the imported hub would not build ({shown}); nothing written. Fix: this is a "
            "memhub bug; please report it with the preview"
        ) from None
