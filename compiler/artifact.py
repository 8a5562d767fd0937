"""Artifact: one generated file (or link), the unit that build produces and plan compares."""

from __future__ import annotations

import stat
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from memhub.compiler.digest import file_digest
from memhub.hubspec.errors import Origin
from memhub.hubspec.files import link_problem

FILE_MODE = 0o644
EXEC_MODE = 0o755
# How a link travels where entries are (bytes, mode) pairs (safewrite's Tree, the build
# record's kept files): the mode says link, the bytes are its target text.
LINK_MODE = stat.S_IFLNK | 0o777


@dataclass(frozen=True, slots=True)
class Artifact:
    """A file to write: a relative POSIX path, its bytes, its mode and who produced it; or,
    with `link`, a symbolic link holding that relative target text (no bytes of its own)."""

    path: str
    content: bytes
    mode: int = FILE_MODE
    owners: tuple[str, ...] = field(default=())
    link: str | None = None
    origin: Origin | None = field(default=None, compare=False)  # the hub entry of a link

    def __post_init__(self) -> None:
        if self.path.startswith("./"):  # under a plugin folder at the bundle root (`.`)
            object.__setattr__(self, "path", self.path[2:])
        pure = PurePosixPath(self.path)
        if pure.is_absolute() or ".." in pure.parts or not self.path or "\\" in self.path:
            raise ValueError(f"artifact path {self.path!r} is not a relative POSIX path")
        if self.link is not None:
            why = link_problem(self.link)
            if why or self.content:
                raise ValueError(f"artifact link {self.path!r} -> {self.link!r}: {why or 'bytes'}")
            object.__setattr__(self, "mode", LINK_MODE)

    @property
    def fingerprint(self) -> str:
        """sha256 of the content, as `sha256:<hex>`; a link's is `link:<target>`."""
        return f"link:{self.link}" if self.link is not None else file_digest(self.content)

    @property
    def is_executable(self) -> bool:
        return self.link is None and bool(self.mode & 0o111)

    @property
    def entry(self) -> tuple[bytes, int]:
        """(bytes, mode) as safewrite writes it: a link as LINK_MODE and its target text."""
        if self.link is not None:
            return self.link.encode("utf-8"), LINK_MODE
        return self.content, self.mode


def is_link_entry(mode: int) -> bool:
    """Whether a (bytes, mode) entry stands for a link (see LINK_MODE)."""
    return stat.S_ISLNK(mode)
