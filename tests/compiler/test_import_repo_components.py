"""`memhub import --from-repo` on agents, commands, skills and rules shaped as Claude Code
loads them and the hub's own checks would refuse: an agent or command whose `name:` is not
its file name, an agent without `name:`, a command without front matter, a SKILL.md whose
front matter strict YAML refuses, a folder of skills/ without SKILL.md, a file of agents/
that is no agent, a rules/ folder of a plugin Cursor does not load. Each comes back byte
for byte: modelled where the hub can hold it, else shipped as it is (`files:`), with a note
where the hub refused it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from memhub.compiler.build import build
from memhub.compiler.cli.main import main
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip
from memhub.hubspec import load

from tests.hubs import REPO

FIXTURE = REPO / "tests" / "data" / "repos" / "component-shapes"
KIT = "plugins/kit"


@pytest.fixture
def reply(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    into = tmp_path / "hub"
    code = main(["import", "--from-repo", str(FIXTURE), "--into", str(into), "--yes", "--json"])
    data = json.loads(capsys.readouterr().out)["data"]
    assert code == 0, data["round_trip"]["cannot_reproduce"]
    data["into"] = into
    return data


def test_every_file_comes_back(reply: dict[str, object]) -> None:
    trip = reply["round_trip"]
    total = sum(1 for p in FIXTURE.rglob("*") if p.is_file())
    assert trip["files"] == {"reproduced": total, "total": total}  # type: ignore[index]
    assert trip["cannot_reproduce"] == []  # type: ignore[index]


def test_names_apart_from_files_and_bare_commands_are_hub_components(
    reply: dict[str, object],
) -> None:
    hub = load(Path(str(reply["into"])) / KIT)
    assert [(a.name, a.title) for a in hub.agents] == [
        ("api-reviewer", "kit-api-reviewer"),
        ("helper", "helper"),  # no `name:`: Claude Code lists it by its file name
    ]
    assert [(c.name, c.declared, c.description) for c in hub.commands] == [
        ("publish-all", None, ""),
        ("scan", "kit:scan", "Scan the project."),
    ]
    gemini = {a.path: a.content for a in build(hub, ["gemini"]).artifacts}
    assert b'name: "kit-api-reviewer"' in gemini["gemini/kit/agents/api-reviewer.md"]
    assert gemini["gemini/kit/commands/publish-all.toml"].startswith(b"prompt = ")


def test_what_the_hub_cannot_hold_ships_as_it_is_with_a_note(reply: dict[str, object]) -> None:
    data = yaml.safe_load((Path(str(reply["into"])) / KIT / "hub.yaml").read_text())
    shipped = [entry["from"] for entry in data["files"]]
    as_is = ["agents/notes.agent.md", "skills/loose", "skills/references"]
    assert {*as_is, "agents/.gitkeep", "skills/README.md", "rules/style.md"} <= set(shipped)
    assert "rules" not in data  # a plugin Cursor does not load has no Cursor rules
    notes = [n for n in reply["notes"] if "shipped as it is" in n]  # type: ignore[attr-defined]
    assert [n.split(":", 1)[0] for n in notes] == [f"{KIT}/{p}" for p in as_is]
    loose = next(n for n in notes if "skills/loose" in n)
    assert "YAML syntax error" in loose and "memhub-roundtrip" not in "".join(notes)
    hub = load(Path(str(reply["into"])) / KIT)
    assert [s.name for s in hub.skills] == ["good"]


def test_a_rule_of_a_plugin_cursor_does_not_load_ships_as_a_file(tmp_path: Path) -> None:
    """A valid Cursor rule in a Claude-only plugin: the hub's `rules:` are written for Cursor
    alone, so the build would leave it out; it ships as a plain file instead."""
    repo = tmp_path / "repo"
    (repo / ".claude-plugin").mkdir(parents=True)
    (repo / ".claude-plugin" / "plugin.json").write_text(
        '{"name": "r", "version": "1.0.0", "description": "R."}'
    )
    (repo / "rules").mkdir()
    (repo / "rules" / "style.mdc").write_text("---\nalwaysApply: true\n---\nBody\n")
    tree = read_tree(repo)
    trip = round_trip(tree, import_repo(tree))
    assert trip.unreproduced == [] and trip.files_same == trip.files_total == 2
