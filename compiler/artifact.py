"""Artifact: one generated file, the unit that build produces and plan compares."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath

from memhub.compiler.digest import file_digest

FILE_MODE = 0o644
EXEC_MODE = 0o755


@dataclass(frozen=True, slots=True)
class Artifact:
    """A file to write: a relative POSIX path, its bytes, its mode and who produced it."""

    path: str
    content: bytes
    mode: int = FILE_MODE
    owners: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.path.startswith("./"):  # under a plugin folder at the bundle root (`.`)
            object.__setattr__(self, "path", self.path[2:])
        pure = PurePosixPath(self.path)
        if pure.is_absolute() or ".." in pure.parts or not self.path or "\\" in self.path:
            raise ValueError(f"artifact path {self.path!r} is not a relative POSIX path")

    @property
    def fingerprint(self) -> str:
        """sha256 of the content, as `sha256:<hex>`."""
        return file_digest(self.content)

    @property
    def is_executable(self) -> bool:
        return bool(self.mode & 0o111)
