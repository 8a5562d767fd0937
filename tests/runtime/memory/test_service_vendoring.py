"""Bundles vendor runtime/ except NOT_VENDORED: every module needing memhub.compiler or mcp."""

from __future__ import annotations

import ast
from pathlib import Path

from memhub.compiler.hosts.common import NOT_VENDORED, runtime_artifacts
from memhub.hubspec import load

from tests.pyparse import parse

REPO = Path(__file__).resolve().parents[3]
RUNTIME = REPO / "runtime"


def _imports(path: Path) -> set[str]:
    """Every module name `path` imports anywhere (inside functions too)."""
    names: set[str] = set()
    for node in ast.walk(parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def _needs_more_than_the_bundle(path: Path) -> bool:
    return any(
        name == "mcp" or name.startswith(("mcp.", "memhub.compiler")) for name in _imports(path)
    )


def test_every_module_importing_compiler_or_mcp_is_not_vendored() -> None:
    offenders = [
        str(p.relative_to(RUNTIME))
        for p in sorted(RUNTIME.rglob("*.py"))
        if "__pycache__" not in p.parts and _needs_more_than_the_bundle(p)
    ]
    missing = [name for name in offenders if not name.startswith(NOT_VENDORED)]
    assert missing == []


def test_not_vendored_parts_stay_out_of_bundles() -> None:
    hub = load(REPO / "examples" / "memhub")
    shipped = [a.path.partition("/memhub_runtime/")[2] for a in runtime_artifacts(hub, "b")]
    assert shipped and not [name for name in shipped if name.startswith(NOT_VENDORED)]
    assert "memory/records.py" in shipped and "memory/service.py" in shipped
