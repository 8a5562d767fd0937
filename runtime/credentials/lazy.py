"""A regular expression compiled on its first use.

Every command that loads a hub imports the detector, but each rule is gated by a cheap
substring test, so on most text most rules never run: compiling all of them at import
cost more than the rest of the import together.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

HOLDERS: list[Lazy] = []
"""Every holder made, so a test can see that importing the detector compiled none."""
_METHODS = ("match", "fullmatch", "search", "finditer")


class Lazy:
    """Stands in for `re.compile(pattern, flags)` in the methods the detector calls.

    The first call compiles the pattern and puts the compiled pattern's own methods in
    the instance, where they shadow these: a built holder costs what the pattern does.
    """

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        HOLDERS.append(self)

    @property
    def built(self) -> bool:
        """Whether the pattern has been compiled."""
        return "_compiled" in self.__dict__

    def reset(self) -> None:
        """Forget the compiled pattern, so the next call compiles it again (for tests)."""
        for name in ("_compiled", *_METHODS):
            self.__dict__.pop(name, None)

    @property
    def groups(self) -> int:
        return self._build().groups

    def _build(self) -> re.Pattern[str]:
        compiled: re.Pattern[str] | None = self.__dict__.get("_compiled")
        if compiled is not None:
            return compiled
        compiled = re.compile(self.pattern, self.flags)
        self.__dict__.update({name: getattr(compiled, name) for name in _METHODS})
        self.__dict__["_compiled"] = compiled
        return compiled

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self._build().match(string, pos, endpos)

    def fullmatch(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        return self._build().fullmatch(string, pos, endpos)

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self._build().search(string, pos, endpos)

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        return self._build().finditer(string, pos, endpos)
