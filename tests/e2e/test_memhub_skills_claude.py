"""examples/team-memory's MemHub skills run by the real Claude Code against memhub's server.

`memhub apply examples/team-memory --scope user --hosts claude` installs the skills, the
`memhub-memory` server and the hooks; the checkout is connected with `memhub project
connect`. Two `claude -p` sessions, the scripted model making the calls each skill asks for:

* `/save-artifact docs/deploy.md Deploy runbook`: the skill's text (with the arguments in
  place) reaches the model, its `save_artifact` call goes to memhub's server, and the
  artifact lands as a record file in the project's memory (kind, name, body, source agent).
* `/search-memory deploy runbook`: the skill's text reaches the model, `search_memory` finds
  the artifact and `get_artifact` reads it back, version 1 of 1.

Claude Code installs a person's skills under their own names (`/save-artifact`); a plugin's
are `/<plugin>:<skill>`, so `/memhub:save-artifact` is the MemHub plugin's own spelling.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from memhub.runtime.memory import layout, records

from . import scripted
from .fake_tools import Call
from .harness import REPO_ROOT, describe, run

pytestmark = [pytest.mark.e2e, pytest.mark.memory_e2e, pytest.mark.usefixtures("cpu_load")]

SKILLS = REPO_ROOT / "examples" / "team-memory" / "skills"
SERVER = "memhub-memory"
BIN = Path(sys.executable).parent  # memhub and memhub-hook for the host, from PATH
DOC = "# Deploys\n\nDeploy from the blue-kiwi runner, never from a laptop.\n"
NAME = "Deploy runbook"


def skill_line(skill: str) -> str:
    """A line of the skill's body, as the host puts it in a request (JSON-escaped)."""
    text = (SKILLS / skill / "SKILL.md").read_text(encoding="utf-8")
    body = text.split("\n---\n", 1)[1]
    line = next(line for line in body.splitlines() if len(line) > 40)
    return json.dumps(line)[1:-1]


@pytest.fixture
def checkout(isolated_home: Any) -> tuple[dict[str, str], Path, str]:
    """(env, checkout, project id): team-memory applied for Claude Code, a connected
    checkout holding docs/deploy.md."""
    env = isolated_home.env
    env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"
    scripted.apply("claude", env, isolated_home.root)
    repo = isolated_home.root / "shop"
    (repo / "docs").mkdir(parents=True)
    (repo / "docs" / "deploy.md").write_text(DOC, encoding="utf-8")
    run(["git", "init", "-q", str(repo)], env=env, check=True, timeout=30)
    proc = scripted.memhub(["project", "connect", str(repo), "--json"], env, repo)
    return env, repo, json.loads(proc.stdout)["data"]["project"]["id"]


def session(cli: Path, env: dict[str, str], repo: Path, prompt: str, calls: list[Call]) -> Any:
    """One Claude Code session running `prompt`; every scripted call answered."""
    done = scripted.claude(
        cli, env, repo, prompt, calls, "--allowedTools", f"mcp__{SERVER}", final_text="Done."
    )
    assert json.loads(done.proc.stdout).get("is_error") is False, describe(done.proc)
    results = done.fake.results()
    listed = f"mcp__{SERVER}__" in "".join(text for _, text in done.sent())
    assert len(results) == len(calls), (
        f"{len(results)} of {len(calls)} calls answered; {SERVER}'s tools"
        f" {'were' if listed else 'were never'} offered to the model",
        results,
        describe(done.proc),
    )
    return done, results


def test_claude_runs_save_artifact_then_search_memory_against_memhubs_server(
    claude_cli: Path, checkout: tuple[dict[str, str], Path, str]
) -> None:
    env, repo, pid = checkout
    save = Call("save_artifact", {"name": NAME, "content": DOC, "artifact_type": "runbook",
                                  "tags": ["deploys"]})  # fmt: skip
    done, (saved,) = session(claude_cli, env, repo, f"/save-artifact docs/deploy.md {NAME}", [save])
    sent = "\n".join(text for _, text in done.sent())
    assert skill_line("save-artifact") in sent, "the skill's text never reached the model"
    assert f"docs/deploy.md {NAME}" in sent  # $ARGUMENTS in place
    assert not saved.is_error, saved
    folder = layout.project_records(layout.memory_root(Path(env["MEMHUB_HOME"])), pid)
    (path,) = sorted(folder.glob("*.md"))
    record = records.parse_record(path.read_bytes(), str(path))
    assert (record.kind, record.name, record.body) == ("artifact", NAME, DOC), record
    assert record.source.kind == "agent" and record.status == "active", record
    assert set(record.tags) == {"deploys", "type:runbook"} and record.id in saved.text

    calls = [
        Call("search_memory", {"query": "blue-kiwi runner"}),
        Call("get_artifact", {"name": NAME}),
    ]
    done, (found, read) = session(claude_cli, env, repo, "/search-memory deploy runbook", calls)
    sent = "\n".join(text for _, text in done.sent())
    assert skill_line("search-memory") in sent, "the skill's text never reached the model"
    assert not found.is_error and record.id in found.text and "blue-kiwi" in found.text, found
    assert not read.is_error, read
    got = json.loads(read.text)
    assert (got["id"], got["version"], got["version_count"], got["content"]) == (
        record.id, 1, 1, DOC
    )  # fmt: skip
