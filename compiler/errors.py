"""Compiler errors; each carries its exit code and says what, where and how to fix."""

from __future__ import annotations

from memhub.hubspec.errors import HubError, MemhubError

__all__ = ["BuildError", "HubError", "MemhubError", "OutputError"]


class BuildError(MemhubError):
    """The hub is valid but cannot be compiled for a selected host."""

    exit_code = 2


class OutputError(MemhubError):
    """The output folder cannot be written safely."""

    exit_code = 2
