"""Doctor's checks of a hub's installed rulebooks (`$MEMHUB_HOME/rules/hub/<plugin>/`).

No host reads that folder: memhub's runtime does, in every host's hooks. So it is checked as
memhub's own place: a real folder, unchanged since apply, every book in it one the runtime
reads (the runtime skips one it cannot, and the rule never fires).
"""

from __future__ import annotations

import os
from pathlib import Path

from memhub.compiler.doctor.records import Run
from memhub.compiler.install.state import Owned
from memhub.runtime.rules import is_book_file
from memhub.runtime.rules import store as runtime_store

RULEBOOK = "rulebook"


def is_rulebook_folder(target: str) -> bool:
    """Whether `target` is a hub's installed rulebook folder (`.../rules/hub/<name>`)."""
    return Path(target).parent.parts[-2:] == ("rules", "hub")


def in_scope(owned: Owned, kind: str) -> bool:
    """A rulebook folder belongs to the scope its apply recorded (no host place says)."""
    return (owned.scope == "user") == (kind == "user")


def check_rulebooks(run: Run, host: str, target: str) -> bool:
    """The folder is real and each book in it reads; False when there is no folder to diff."""
    folder = Path(target)
    fix = "replace a link with the folder itself, and run `memhub apply` to write the books again"
    linked = folder.is_symlink() or folder.parent.is_symlink()
    if linked or not folder.is_dir():
        what = (
            f"is a link, or {folder.parent} is (the runtime reads no book through one)"
            if linked
            else "is missing"
        )
        run.add(host, RULEBOOK, "fail", target, f"the hub's rulebook folder {what}", fix)
        return False
    names = sorted(n for n in os.listdir(folder) if is_book_file(n))
    for name in names:
        try:
            runtime_store.read_book(str(folder / name))
        except (OSError, runtime_store.RuleError) as exc:
            run.add(
                host,
                RULEBOOK,
                "fail",
                str(folder / name),
                f"the runtime cannot read it: {exc}",
                fix,
            )
            return True
    run.add(host, RULEBOOK, "ok", target, f"{len(names)} book(s) the runtime reads")
    return True
