"""Errors raised while loading a hub, and the base error every memhub command reports."""

from __future__ import annotations

from dataclasses import dataclass


class MemhubError(Exception):
    """A failure memhub explains to the user in one message, with an exit code."""

    exit_code = 2

    def to_json(self) -> dict[str, object]:
        return {"error": type(self).__name__, "message": str(self), "problems": []}


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a value came from: file, 1-based line and column."""

    file: str
    line: int = 1
    col: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a hub: where, which key, what, and how to fix it."""

    origin: Origin
    key_path: str
    message: str
    fix: str

    def __str__(self) -> str:
        where = f"{self.origin}: " + (f"{self.key_path}: " if self.key_path else "")
        return f"{where}{self.message}. Fix: {self.fix}"

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.origin.file,
            "line": self.origin.line,
            "col": self.origin.col,
            "key": self.key_path,
            "message": self.message,
            "fix": self.fix,
        }


class HubError(MemhubError):
    """The hub is invalid; carries every problem found, sorted by position."""

    exit_code = 2

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(
            problems, key=lambda p: (p.origin.file, p.origin.line, p.origin.col, p.key_path)
        )
        count = len(self.problems)
        head = f"invalid hub: {count} problem{'s' if count != 1 else ''}"
        super().__init__("\n".join([head, *(f"  {p}" for p in self.problems)]))

    def to_json(self) -> dict[str, object]:
        return {
            "error": "HubError",
            "message": str(self).splitlines()[0],
            "problems": [p.to_json() for p in self.problems],
        }
