"""`ast.parse` for the tests that read the repository's own source.

CPython 3.11 can raise `SystemError: AST constructor recursion depth mismatch` when a parse
runs in a thread whose recursion bookkeeping an earlier error left off (python/cpython#106905,
fixed in 3.12); the source is fine. A fresh thread has fresh bookkeeping, so such a parse is
retried once there instead of failing a test that has nothing to do with it.
"""

from __future__ import annotations

import ast
import threading


def parse(source: str) -> ast.Module:
    """The module's AST."""
    try:
        return ast.parse(source)
    except SystemError:
        found: list[ast.Module] = []
        errors: list[BaseException] = []

        def again() -> None:
            try:
                found.append(ast.parse(source))
            except BaseException as exc:
                errors.append(exc)

        worker = threading.Thread(target=again)
        worker.start()
        worker.join()
        if errors:
            raise errors[0] from None
        return found[0]
