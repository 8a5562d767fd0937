"""One host list: ADAPTERS, and everything that names hosts agrees with it.

`disagreements()` is the check: the published hub schema, the schema hubspec validates with,
a hub's default `hosts:`, INSTALLERS, `memhub hosts`, each adapter's events and tool classes,
and each install adapter's `locations` against the files its `install_entries` writes. A
throwaway adapter (tests/compiler/throwaway_host.py) is registered with one line and seen by
every registry; a host whose pieces disagree is named.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from memhub.compiler import hosts
from memhub.compiler.build import build
from memhub.compiler.cli.main import main
from memhub.compiler.doctor.places import places
from memhub.compiler.hosts import ADAPTERS, INSTALLERS
from memhub.compiler.hosts.base import CoverageRow
from memhub.compiler.install.engine import gather_entries
from memhub.compiler.install.entries import Entry
from memhub.compiler.install.scope import Scope
from memhub.hubspec import load, schema_check
from memhub.hubspec.model import Hub
from memhub.hubspec.vocabulary import EVENTS
from memhub.schemas import SCHEMA_FILE, schema_hosts

from tests.compiler import throwaway_host
from tests.hubs import HUBS, REPO

PUBLISHED = REPO / "schemas" / SCHEMA_FILE


def _scopes(tmp: Path) -> list[Scope]:
    return [Scope("user", tmp / "home"), Scope("project", tmp / "home", tmp / "work")]


def _location_problems(host: str, hub: Hub, tmp: Path) -> list[str]:
    """Files `install_entries` writes that the adapter's `locations` does not name."""
    found = []
    for scope in _scopes(tmp):
        held = places(host, scope)
        for entry in INSTALLERS[host].install_entries(hub, scope)[0]:
            if not held.holds(entry.target):
                found.append(f"{host}: {scope.kind} scope writes {entry.target}, not a location")
    return found


def disagreements(hub: Hub, tmp: Path) -> list[str]:
    """Every way the host registries disagree with ADAPTERS (empty: they agree)."""
    names = list(ADAPTERS)
    found = []
    published = schema_hosts(json.loads(PUBLISHED.read_text("utf-8")))
    if published != names:
        found.append(f"{SCHEMA_FILE} names {published}; run `python -m memhub.schemas`")
    if schema_hosts(schema_check.hub_schema()) != names:
        found.append(f"the loaded hub schema names {schema_hosts(schema_check.hub_schema())}")
    for name, adapter in INSTALLERS.items():
        if ADAPTERS.get(name) is not adapter:
            found.append(f"INSTALLERS[{name!r}] is not ADAPTERS[{name!r}]")
    tools = set(schema_check.hub_schema()["$defs"]["hook"]["properties"]["tools"]["items"]["enum"])
    for name, adapter in ADAPTERS.items():
        if adapter.name != name:
            found.append(f"ADAPTERS[{name!r}] is named {adapter.name!r}")
        if tuple(adapter.EVENTS) != EVENTS:
            found.append(f"{name}: EVENTS names {list(adapter.EVENTS)}, not {list(EVENTS)}")
        if adapter.TOOLS and set(adapter.TOOLS) != tools:
            found.append(f"{name}: TOOLS names {sorted(adapter.TOOLS)}, not {sorted(tools)}")
    for name in INSTALLERS:
        found += _location_problems(name, hub, tmp)
    return found


def _listed_hosts(capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The host names `memhub hosts --json` prints (whatever envelope holds them)."""
    capsys.readouterr()
    assert main(["hosts", "--json"]) == 0

    def names(value: Any) -> Iterator[str]:
        if isinstance(value, dict):
            if "events" in value and isinstance(value.get("name"), str):
                yield value["name"]
            for item in value.values():
                yield from names(item)
        elif isinstance(value, list):
            for item in value:
                yield from names(item)

    return list(names(json.loads(capsys.readouterr().out)))


@pytest.fixture
def full_hub() -> Hub:
    return load(HUBS["full"])


def _clear_schema_caches() -> None:
    for cached in (schema_check.hub_schema, schema_check._fast_validator, schema_check._validator):
        cached.cache_clear()


@pytest.fixture
def with_throwaway() -> Iterator[None]:
    """The throwaway adapter registered: the one line a new host adds, for this test only."""
    saved = dict(ADAPTERS), dict(INSTALLERS)
    adapters, installers = hosts.registries(
        (*hosts.INSTALL_HOSTS, throwaway_host), hosts.BUNDLE_ONLY_HOSTS
    )
    # In place: every module imported these very dicts.
    ADAPTERS.clear(), ADAPTERS.update(adapters)
    INSTALLERS.clear(), INSTALLERS.update(installers)
    _clear_schema_caches()
    try:
        yield
    finally:
        ADAPTERS.clear(), ADAPTERS.update(saved[0])
        INSTALLERS.clear(), INSTALLERS.update(saved[1])
        _clear_schema_caches()


def _throwaway_hub(tmp: Path) -> Path:
    folder = tmp / "hub"
    (folder / "skills" / "greet").mkdir(parents=True)
    (folder / "skills" / "greet" / "SKILL.md").write_text(
        "---\nname: greet\ndescription: Say hello.\n---\nSay hello.\n"
    )
    (folder / "AGENTS.md").write_text("Be kind.\n")
    (folder / "hub.yaml").write_text(
        "version: 1\n"
        "plugin: {name: demo, version: 0.1.0, description: Demo., author: {name: me}}\n"
        "marketplace: {name: demo-market, owner: {name: me}}\n"
        "hosts: [claude, throwaway]\n"
        "mcp: {servers: {files: {command: npx, args: [-y, files]}}}\n"
        "instructions: AGENTS.md\n"
        "hooks:\n  - {id: hello, event: session_start, command: echo hi}\n"
        "overrides: {throwaway: {manifest: {extra: 1}}}\n"
    )
    return folder


def test_every_registry_agrees_with_adapters(full_hub: Hub, tmp_path: Path) -> None:
    assert disagreements(full_hub, tmp_path) == []


def test_a_hub_without_hosts_is_built_for_every_adapter(tmp_path: Path) -> None:
    """Every adapter but the opt-in ones (OPT_IN_HOSTS), which a hub names to get."""
    from memhub.compiler.hosts import OPT_IN_HOSTS

    every = tuple(h for h in ADAPTERS if h not in OPT_IN_HOSTS)
    hub = load(REPO / "examples" / "minimal")
    assert hub.hosts == every
    assert build(hub).hosts == every


def test_memhub_hosts_lists_every_adapter(capsys: pytest.CaptureFixture[str]) -> None:
    assert _listed_hosts(capsys) == list(ADAPTERS)


def test_a_throwaway_host_is_seen_by_every_registry(
    with_throwaway: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert list(ADAPTERS)[-2:] == ["throwaway", "agent-plugins"]
    assert "throwaway" in INSTALLERS
    # The schema hubspec validates with names it: `hosts:` and `overrides:` accept it.
    hub = load(_throwaway_hub(tmp_path))
    assert hub.hosts == ("claude", "throwaway")
    result = build(hub)
    assert result.hosts == ("claude", "throwaway")
    assert "plugins/demo/.throwaway-plugin/plugin.json" not in {a.path for a in result.artifacts}
    manifest = result.artifact("throwaway/demo/.throwaway-plugin/plugin.json")
    assert manifest is not None and json.loads(manifest.content)["extra"] == 1
    assert result.artifact("throwaway/demo/skills/greet/SKILL.md") is not None
    assert {(r.component, r.id) for r in result.coverage if r.host == "throwaway"} == {
        ("mcp", "files"),
        ("hook", "hello"),
    }
    assert _listed_hosts(capsys) == list(ADAPTERS)
    # An install (plan, apply, doctor) reaches it through INSTALLERS.
    scope = Scope("project", tmp_path / "home", tmp_path / "work")
    entries, _ = gather_entries(hub, scope, ["throwaway"])
    assert {Path(e.target).name for e in entries} == {"mcp.json", "hooks.json", "greet", "NOTES.md"}
    assert places("throwaway", scope).holds(str(tmp_path / "work/.throwaway/mcp.json"))
    # Everything agrees but the published schema file, which names it once regenerated.
    assert disagreements(hub, tmp_path) == [
        f"{SCHEMA_FILE} names {[n for n in ADAPTERS if n != 'throwaway']}; "
        "run `python -m memhub.schemas`"
    ]


def test_a_host_whose_pieces_disagree_is_named(
    with_throwaway: None, full_hub: Hub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = throwaway_host.install_entries

    def elsewhere(hub: Hub, scope: Scope) -> tuple[list[Entry], list[CoverageRow]]:
        """Install writes one folder over from where `locations` says the host reads."""
        entries, rows = written(hub, scope)
        moved = [replace(e, target=e.target.replace(".throwaway", ".elsewhere")) for e in entries]
        return moved, rows

    monkeypatch.setattr(throwaway_host, "install_entries", elsewhere)
    monkeypatch.setattr(throwaway_host, "TOOLS", {"shell": ("Run",)})
    found = disagreements(full_hub, tmp_path)
    assert any(p.startswith("throwaway: TOOLS names ['shell']") for p in found), found
    assert any(p.startswith("throwaway: user scope writes") for p in found), found
    assert any(p.startswith("throwaway: project scope writes") for p in found), found
