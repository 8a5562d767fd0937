"""The handler registry: one dict the dispatcher runs and the hub loader validates against."""

from __future__ import annotations

import inspect
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from memhub.hubspec import HubError, load
from memhub.hubspec.schema_check import hub_schema
from memhub.runtime import handlers

from tests.hubspec.test_load import write_hub

ROOT = Path(__file__).resolve().parents[2]
IGNORE = shutil.ignore_patterns("__pycache__")


def test_every_handler_is_a_documented_function() -> None:
    assert handlers.HANDLERS, "no runtime handler registered"
    for name, function in handlers.HANDLERS.items():
        assert callable(function), name
        assert inspect.getdoc(function), f"handler {name!r} has no docstring"
        summary = handlers.description(name)
        assert summary and len(summary) <= 200, (name, summary)
        params = list(inspect.signature(function).parameters)
        assert len(params) == 2, f"handler {name!r} takes (event, out), not {params}"


def test_every_handler_name_fits_the_schema() -> None:
    props = hub_schema()["$defs"]["hook"]["properties"]["handler"]
    for name in handlers.HANDLERS:
        assert re.fullmatch(props["pattern"], name), name


def test_the_loader_accepts_exactly_the_registry(tmp_path: Path) -> None:
    hooks = "".join(
        f"  - {{id: h{i}, event: session_start, handler: {name}}}\n"
        for i, name in enumerate(handlers.HANDLERS)
    )
    hub = load(write_hub(tmp_path / "known", "hooks:\n" + hooks))
    assert [h.handler for h in hub.hooks] == list(handlers.HANDLERS)

    root = write_hub(
        tmp_path / "unknown", "hooks:\n  - {id: a, event: turn_end, handler: no.such}\n"
    )
    with pytest.raises(HubError) as caught:
        load(root)
    (problem,) = (str(p) for p in caught.value.problems)
    # file:line:column of the value, the name, and every known handler as the fix
    assert problem.startswith(f"{root / 'hub.yaml'}:5:")
    assert "unknown runtime handler 'no.such'" in problem
    for name in handlers.HANDLERS:
        assert name in problem


def test_a_handler_is_one_decorated_function(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(handlers, "HANDLERS", dict(handlers.HANDLERS))

    @handlers.handler("probe.added")
    def probe(event: object, out: object) -> None:
        """turn_end: a probe.

        More text that is not the summary."""

    assert handlers.HANDLERS["probe.added"] is probe
    assert handlers.description("probe.added") == "turn_end: a probe."


def test_the_readme_lists_every_handler() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([a-z][a-z0-9_.]*)` \| `[a-z_]+`", text, re.MULTILINE))
    assert listed == set(handlers.HANDLERS)


def test_importing_the_registry_stays_cheap(tmp_path: Path) -> None:
    """The hook's hot path imports the registry: no typing, os, json, re or pathlib."""
    shutil.copytree(ROOT / "runtime", tmp_path / "memhub_runtime", ignore=IGNORE)
    code = (
        f"import sys; sys.path.append({str(tmp_path)!r}); import memhub_runtime.handlers; "
        "print(sorted(m for m in ('typing', 'os', 'json', 're', 'pathlib') if m in sys.modules))"
    )
    # -S: what a hook process runs (site.py would import os itself)
    proc = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "[]", proc.stdout + proc.stderr
