"""Write an import's hub into its folder: the one function of `memhub import` that writes.

`write_hub` stages every file in a temp folder inside INTO, checks that the staged hub loads
and builds, and only then moves it into place; `.env` is replaced atomically with mode 0600.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from memhub.compiler.errors import OutputError
from memhub.compiler.importing.planner import ImportPlan
from memhub.compiler.safewrite import durable
from memhub.hubspec import MemhubError

HUB_FILE = "hub.yaml"  # hubspec.load's; imported lazily with the loader
ENV_FILE = ".env"
ENV_MODE = 0o600


def refuse_existing_hub(into: Path) -> None:
    """Refuse INTO when it holds a hub already, or is not a folder."""
    if (into / HUB_FILE).exists():
        raise OutputError(
            f"{into / HUB_FILE}: a hub already exists; nothing written. Fix: import into a "
            "new or empty folder"
        )
    if into.exists() and not into.is_dir():
        raise OutputError(f"{into}: exists and is not a folder. Fix: choose another --into")


def write_hub(plan: ImportPlan, into: Path) -> None:
    """Write the hub: files staged in a temp folder inside INTO and checked (the hub must load
    and build) before any is moved into place; `.env` replaced atomically, mode 0600."""
    into.mkdir(parents=True, exist_ok=True)
    files = plan.files()
    tops = sorted({rel.split("/", 1)[0] for rel, _, _ in files})
    taken = [top for top in tops if (into / top).exists() and top != ".gitignore"]
    taken += [rel for rel, _, _ in files if rel == ".gitignore" and (into / rel).exists()]
    if taken:
        raise OutputError(
            f"{into}: already holds {', '.join(taken)}; nothing written. Fix: import into a "
            "new or empty folder"
        )
    staging = Path(tempfile.mkdtemp(prefix=".memhub-import-", dir=into))
    try:
        for rel, data, mode in files:
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            os.chmod(target, mode)
        _check_hub(staging)
        refuse_existing_hub(into)  # a hub that appeared meanwhile is never replaced
        for top in tops:
            os.rename(staging / top, into / top)
        if plan.env_text is not None:
            _write_env(into / ENV_FILE, plan.env_text)
        durable.fsync_dir(into)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _check_hub(folder: Path) -> None:
    """The staged hub loads and builds, or nothing is written (a memhub bug if not)."""
    try:
        from memhub.compiler.build import build
        from memhub.hubspec import load

        build(load(folder))
    except MemhubError as exc:
        raise MemhubError(
            f"the imported hub would not load ({exc}); nothing written. Fix: this is a memhub "
            "bug; please report it with the preview (it holds no secret values)"
        ) from None


def _write_env(path: Path, text: str) -> None:
    """`.env` holding `text`, mode 0600, replaced atomically (temp file beside it, rename)."""
    temp = path.with_name(f".{path.name}.memhub-import.tmp")
    temp.unlink(missing_ok=True)
    durable.create_file(temp, text.encode("utf-8"), ENV_MODE)
    os.replace(temp, path)
