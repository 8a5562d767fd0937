"""Host documents doctor reads: JSON and TOML files parsed once per run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memhub.compiler.formats import jsonedit, tomledit
from memhub.compiler.formats.document import format_of, parsed
from memhub.compiler.safewrite import targetfs


class Documents:
    """Parsed JSON and TOML files, read once; a missing or broken file reads as None."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[Any, str | None]] = {}

    def load(self, path: Path | str) -> tuple[Any, str | None]:
        """(data, parse error): (None, None) when absent or not JSON/TOML."""
        key = str(path)
        if key not in self._cache:
            self._cache[key] = self._parse(Path(path))
        return self._cache[key]

    def read(self, path: Path | str) -> Any:
        return self.load(path)[0]

    @staticmethod
    def _parse(path: Path) -> tuple[Any, str | None]:
        fmt = format_of(path.name)
        if fmt is None:
            return None, None
        try:
            text = targetfs.read_text(path)  # a FIFO or folder there is refused, not read
        except UnicodeDecodeError as exc:
            return None, f"cannot be read: {exc}"
        if text is None:
            return None, None
        try:
            return parsed(fmt, text), None
        except (jsonedit.JsonEditError, tomledit.TomlEditError) as exc:
            return None, str(exc)


def at(data: Any, path: Sequence[str]) -> Any:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data
