"""Skills without `name:` or with a name that is not kebab-case: each host's coverage row.

SKILL.md ships as written to every host; where a host skips such a skill (Gemini CLI and
OpenCode skip one without `name`) or lists it otherwise (Copilot CLI hyphenates spaces), its
row says so. Claude Code and Codex load both as they are: no row."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from memhub.compiler.build import build
from memhub.hubspec import load

from tests.hubspec.test_load import write_hub

NO_NAME = "---\ndescription: Use when x.\n---\n\nBody.\n"
SPACED = "---\nname: Agent Development\ndescription: Use when y.\n---\n\nBody.\n"
PLAIN = "---\nname: plain\ndescription: Use when z.\n---\n\nBody.\n"


def _rows(tmp_path: Path) -> dict[tuple[str, str], tuple[str, str]]:
    root = write_hub(
        tmp_path,
        files={
            "skills/handoff/SKILL.md": NO_NAME,
            "skills/agent-development/SKILL.md": SPACED,
            "skills/plain/SKILL.md": PLAIN,
        },
    )
    hub = load(root)
    result = build(replace(hub, hosts=(*hub.hosts, "copilot")))
    return {
        (row.host, row.id): (row.status, row.reason)
        for row in result.coverage
        if row.component == "skill"
    }


def test_each_host_says_how_it_takes_such_skills(tmp_path: Path) -> None:
    rows = _rows(tmp_path)
    assert "plain" not in {skill for _, skill in rows}, "a kebab name equal to its folder"
    for host in ("claude", "codex", "cursor"):  # Cursor: unproven without its binary
        assert (host, "handoff") not in rows and (host, "agent-development") not in rows
    for host in ("gemini", "opencode"):
        status, reason = rows[(host, "handoff")]
        assert status == "unsupported" and "skips a SKILL.md without `name`" in reason
        assert (host, "agent-development") not in rows  # listed as written
    assert (("copilot", "handoff")) not in rows
    status, reason = rows[("copilot", "agent-development")]
    assert status == "caveat" and "'Agent-Development'" in reason
    for host in ("agent-plugins",):
        assert rows[(host, "handoff")][0] == rows[(host, "agent-development")][0] == "caveat"


def test_the_skill_ships_byte_for_byte_everywhere(tmp_path: Path) -> None:
    root = write_hub(tmp_path, files={"skills/handoff/SKILL.md": NO_NAME})
    result = build(load(root))
    shipped = [a for a in result.artifacts if a.path.endswith("skills/handoff/SKILL.md")]
    assert shipped and all(a.content == NO_NAME.encode() for a in shipped)
