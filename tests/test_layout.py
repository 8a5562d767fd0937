"""The house rules CONTRIBUTING.md states: one room per role, small modules, short functions."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.pyparse import parse

REPO = Path(__file__).resolve().parents[1]
CODE = ("compiler", "hubspec", "runtime", "schemas", "templates")
MODULE_LINES = 430  # "under ~400": a module past this wants splitting by job
FUNCTION_LINES = 80
ROOMS = {
    "compiler": ("cli", "hosts", "formats", "install", "importing", "doctor", "safewrite"),
    "runtime": ("capture", "transcripts", "backends", "memory", "server"),
}
HOT_PATH = ("hook.py", "dispatch.py", "events.py", "handlers.py", "lowos.py")


def _modules() -> list[Path]:
    return sorted(
        path
        for folder in CODE
        for path in (REPO / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    )


def test_every_room_of_the_layout_is_a_package() -> None:
    for top, rooms in ROOMS.items():
        for room in rooms:
            assert (REPO / top / room / "__init__.py").is_file(), f"{top}/{room}/ is missing"
    for name in HOT_PATH:  # the hook's hot path stays flat: one import each
        assert (REPO / "runtime" / name).is_file(), f"runtime/{name} moved"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(REPO)))
def test_modules_and_functions_stay_small(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    lines = text.count("\n")
    assert lines <= MODULE_LINES, f"{path.name}: {lines} lines; split it by job"
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines, line {node.lineno})"
        for node in ast.walk(parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > FUNCTION_LINES
    ]
    assert not long, f"{path.name}: functions over {FUNCTION_LINES} lines: {', '.join(long)}"


def test_toml_is_parsed_in_one_place() -> None:
    """Install, doctor, import and diff read TOML through compiler/formats (document.parsed),
    never with a parser of their own that could read a file differently."""
    others = [
        str(path.relative_to(REPO))
        for path in _modules()
        if "formats" not in path.parts
        and any(word in path.read_text(encoding="utf-8") for word in ("tomllib", "tomlkit"))
    ]
    assert not others, others
