"""A skill description longer than a host lists whole: a caveat row where the host cuts it
(Claude Code past 1536, Codex past 1024), unsupported where it drops the skill (Copilot CLI
past 1024, and memhub writes no copy in its own folder), nothing where it loads any length
(Gemini CLI, OpenCode); tests/e2e/test_skill_description_hosts.py runs the real CLIs."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhub.compiler.build import build
from memhub.compiler.hosts import ADAPTERS
from memhub.compiler.skilldescriptions import description_rows, without_dropped
from memhub.hubspec import HubError, load

from tests.hubspec.test_load import write_hub

HOSTS = "hosts: [claude, codex, cursor, gemini, opencode, copilot, agent-plugins]\n"


def hub_with(tmp_path: Path, length: int) -> Path:
    skill = f"---\nname: long\ndescription: {'d' * length}\n---\n\nLong.\n"
    short = "---\nname: short\ndescription: Short.\n---\n\nShort.\n"
    files = {"skills/long/SKILL.md": skill, "skills/short/SKILL.md": short}
    return write_hub(tmp_path / "hub", HOSTS, files)


def rows(tmp_path: Path, length: int) -> dict[str, tuple[str, str]]:
    found = build(load(hub_with(tmp_path, length))).coverage
    return {
        r.host: (r.status, r.reason) for r in found if r.component == "skill" and r.id == "long"
    }


def test_up_to_1024_characters_every_host_lists_it_whole(tmp_path: Path) -> None:
    assert rows(tmp_path, 1024) == {}


def test_past_1024_codex_cuts_it_and_copilot_drops_it(tmp_path: Path) -> None:
    found = rows(tmp_path, 1025)
    assert set(found) == {"codex", "copilot"}
    assert found["codex"] == (
        "caveat",
        "description is 1025 characters: Codex 0.171 lists it to the model cut to its first "
        "1021 characters and '...'",
    )
    status, reason = found["copilot"]
    assert status == "unsupported" and reason.endswith("; not written for GitHub Copilot CLI")


def test_past_1536_claude_code_cuts_it_too(tmp_path: Path) -> None:
    assert rows(tmp_path, 1536).keys() == {"codex", "copilot"}
    found = rows(tmp_path / "b", 1537)
    assert found.keys() == {"claude", "codex", "copilot"}
    assert found["claude"][0] == "caveat" and "cut to 1535 characters" in found["claude"][1]


def test_copilot_folder_holds_no_copy_of_a_skill_it_drops(tmp_path: Path) -> None:
    paths = {a.path for a in build(load(hub_with(tmp_path, 5000))).artifacts}
    assert "copilot/p/skills/short/SKILL.md" in paths
    assert "copilot/p/skills/long/SKILL.md" not in paths
    for folder in ("plugins/p", "gemini/p", "opencode/p", "agent-plugins/p"):
        assert f"{folder}/skills/long/SKILL.md" in paths, folder


def test_a_folder_shared_with_a_host_that_loads_it_keeps_it_and_says_so(tmp_path: Path) -> None:
    hub = load(hub_with(tmp_path, 5000))
    copilot, gemini = ADAPTERS["copilot"], ADAPTERS["gemini"]
    kept = without_dropped(hub, [copilot, gemini])
    assert [s.name for s in kept.skills] == ["long", "short"]
    assert [s.name for s in without_dropped(hub, [copilot]).skills] == ["short"]
    (row,) = description_rows(hub, copilot, [copilot, gemini])
    assert row.status == "unsupported"
    assert row.reason.endswith(
        "; but it is written in the skills folder GitHub Copilot CLI shares with Gemini CLI, "
        "where GitHub Copilot CLI reports it failing to load"
    )


def test_past_the_sanity_cap_the_hub_is_refused_for_every_host(tmp_path: Path) -> None:
    with pytest.raises(HubError, match="over memhub's sanity cap of 65536"):
        load(hub_with(tmp_path, 65537))


def test_an_install_for_copilot_leaves_out_a_skill_it_would_drop(tmp_path: Path) -> None:
    from memhub.compiler.hosts import copilot
    from memhub.compiler.install.scope import Scope

    hub = load(hub_with(tmp_path, 1025))
    entries, found = copilot.install_entries(hub, Scope("user", tmp_path / "home"))
    targets = {Path(e.target).name for e in entries if e.kind == "tree"}
    assert targets == {"short"}
    (row,) = [r for r in found if r.component == "skill"]
    assert (row.id, row.status) == ("long", "unsupported")
    assert row.reason.startswith("description is 1025 characters: Copilot CLI 1.0.102 refuses")
