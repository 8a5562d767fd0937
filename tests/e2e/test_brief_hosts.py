"""The session brief and prompt pointers through the real hosts, as the scripted model sees them.

`memhub apply examples/team-memory --scope user` installs the hub's hooks (`recall.brief` on
session_start, `recall.prompt` on prompt_submit, beside capture) into Claude Code, Codex and
Gemini CLI in an isolated HOME. The session runs in a real git checkout connected with
`memhub project connect`, on a branch whose commit touches `app/models.py`; the memory holds
a lesson triggered by that file, a fact naming it, and a fact naming `docs/deploy.md`, added
with `memhub memory add`. The prompt names `docs/deploy.md`.

Asserted on what the fake model server received: the first request of the conversation (the
one carrying the prompt) holds the brief (the project's memory and its Map) and, since the
brief's caches are cold here, the rest the brief's detached child worked out, delivered by
the first prompt's hook (the lesson under Apply, the fact under Recall & Consult), and the
pointer to the fact naming the prompt's file; and the hook entry logged no failure.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from . import scripted
from .fake_tools import ToolsResponses
from .harness import REPO_ROOT, describe, run
from .test_capture_hosts import _trust_user_hooks
from .test_install_hosts import DEAD_BASE_URL, GEMINI_SETTINGS, codex_config

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.memory_e2e,
    pytest.mark.usefixtures("cpu_load"),
]  # the memory server starts in every session

HUB = REPO_ROOT / "examples" / "team-memory"
BIN = Path(sys.executable).parent  # memhub and memhub-hook for the hosts, from PATH
TIMEOUT_S = 150
PROMPT = "What does docs/deploy.md say about releases?"
LESSON = "Models need a migration"  # a lesson triggered by app/models.py (Apply)
MODELS_FACT = "The models module"  # a fact naming app/models.py (Recall & Consult)
DEPLOY_FACT = "Deploy checklist"  # a fact naming docs/deploy.md (the prompt's pointer)
LATE = "the rest of this session's brief"  # brief_render.LATE_HEAD: what the child found


def memhub(env: dict[str, str], cwd: Path, *args: str) -> Any:
    proc = run([sys.executable, "-m", "memhub.compiler.cli.main", *args], env=env, cwd=cwd)
    assert proc.returncode == 0, describe(proc)
    return proc


def git(env: dict[str, str], repo: Path, *args: str) -> None:
    ident = ["-c", "user.name=e2e", "-c", "user.email=e2e@example.org"]
    run(["git", "-C", str(repo), *ident, *args], env=env, check=True, timeout=30)


@pytest.fixture
def world(isolated_home: Any) -> tuple[dict[str, str], Path]:
    """(env, checkout): team-memory applied for the three hosts, a connected checkout on a
    branch touching app/models.py, and the memory the brief and the pointer come from."""
    env = isolated_home.env
    env["PATH"] = f"{BIN}{os.pathsep}{env['PATH']}"
    gemini = isolated_home.home / ".gemini"
    gemini.mkdir(parents=True, exist_ok=True)
    (gemini / "settings.json").write_text(GEMINI_SETTINGS)
    (isolated_home.codex_home / "config.toml").write_text(codex_config(DEAD_BASE_URL))
    memhub(env, isolated_home.root, "apply", str(HUB), "--scope", "user",
           "--hosts", "claude,codex,gemini")  # fmt: skip
    repo = isolated_home.root / "shop"
    (repo / "app").mkdir(parents=True)
    run(["git", "init", "-q", "-b", "main", str(repo)], env=env, check=True, timeout=30)
    git(env, repo, "commit", "-q", "--allow-empty", "-m", "init")
    git(env, repo, "checkout", "-q", "-b", "feature/models")
    (repo / "app" / "models.py").write_text("class Order:\n    pass\n")
    git(env, repo, "add", "app/models.py")
    git(env, repo, "commit", "-q", "-m", "models: an order")
    memhub(env, repo, "project", "connect", str(repo))
    add = ("memory", "add", "--yes")
    memhub(env, repo, *add, "--kind", "lesson", "--title", LESSON,
           "--body", "Write the migration with the model change.",
           "--trigger", "path:app/models.py")  # fmt: skip
    memhub(env, repo, *add, "--kind", "fact", "--title", MODELS_FACT,
           "--body", "app/models.py holds the order schema.")  # fmt: skip
    memhub(env, repo, *add, "--kind", "fact", "--title", DEPLOY_FACT,
           "--body", "docs/deploy.md lists the release steps; tag before you push.")  # fmt: skip
    return env, repo


def first_request(bodies: list[Any]) -> str:
    """The first request of the conversation: the first one carrying the prompt."""
    texts = [json.dumps(body) for body in bodies]
    found = [text for text in texts if "docs/deploy.md say about releases" in text]
    assert found, f"no request carried the prompt; {len(texts)} requests"
    return found[0]


def assert_brief_and_pointer(sent: str, home: Path) -> None:
    # the texts as the host serialised them (JSON strings): compare inside them
    brief = sent.split("memhub memory: **", 1)  # the brief's title names the project
    assert len(brief) == 2, f"no brief in the first request: {sent[:3000]}"
    after = brief[1]
    assert "### Map" in after and "3 records" not in after  # counts by kind, not a total
    assert "2 facts, 1 lesson" in after.split("### Map", 1)[1][:200], after[:3000]
    # a cold cache (nothing ran here before): Apply and Recall come with the first prompt,
    # from the brief's detached child, still in the first request
    rest = sent.split(LATE, 1)
    assert len(rest) == 2, f"the brief's rest did not reach the first request: {sent[:4000]}"
    apply = rest[1].split("### Apply", 1)
    assert len(apply) == 2 and LESSON in apply[1], rest[1][:3000]
    recall = rest[1].split("### Recall & Consult", 1)
    assert len(recall) == 2 and MODELS_FACT in recall[1], rest[1][:3000]
    pointer = sent.split("memhub memory names what this prompt names", 1)
    assert len(pointer) == 2 and DEPLOY_FACT in pointer[1], sent[:4000]
    assert "docs/deploy.md" in pointer[1]
    log = home / "logs" / "hook.log"
    assert not log.exists(), log.read_text()[-3000:]


def test_claude_gets_the_brief_and_the_pointer(
    claude_cli: Path, world: tuple[dict[str, str], Path]
) -> None:
    env, repo = world
    session = scripted.claude(claude_cli, env, repo, PROMPT, [], final_text="Noted.")
    assert_brief_and_pointer(first_request(session.bodies()), Path(env["MEMHUB_HOME"]))


def test_codex_gets_the_brief_and_the_pointer(
    codex_cli: Path, world: tuple[dict[str, str], Path]
) -> None:
    env, repo = world
    codex_home = Path(env["CODEX_HOME"]) if "CODEX_HOME" in env else Path(env["HOME"]) / ".codex"
    hooks = _trust_user_hooks(codex_cli, env, codex_home, repo)
    assert {"sessionStart", "userPromptSubmit"} <= {h["eventName"] for h in hooks}, hooks
    with ToolsResponses([], final_text="Noted.") as fake:
        config = codex_home / "config.toml"
        url = f'base_url = "{fake.base_url}"'
        config.write_text(re.sub(r'^base_url = ".*"$', url, config.read_text(), count=1,
                                 flags=re.M))  # fmt: skip
        argv = [codex_cli, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", PROMPT]
        env = {**env, "MEMHUB_E2E_FAKE_KEY": "sk-memhub-e2e-fake"}
        proc = run(argv, env=env, cwd=repo, timeout=TIMEOUT_S)
        assert proc.returncode == 0, describe(proc)
        sent = first_request([r.body for r in fake.requests])
    assert_brief_and_pointer(sent, Path(env["MEMHUB_HOME"]))


def test_gemini_gets_the_brief_and_the_pointer(
    gemini_cli: Path, world: tuple[dict[str, str], Path]
) -> None:
    env, repo = world
    trusted = Path(env["HOME"]) / ".gemini" / "trustedFolders.json"
    trusted.write_text(json.dumps({str(repo): "TRUST_FOLDER"}))
    session = scripted.gemini(gemini_cli, env, repo, PROMPT, [], final_text="Noted.")
    assert_brief_and_pointer(first_request(session.bodies()), Path(env["MEMHUB_HOME"]))
