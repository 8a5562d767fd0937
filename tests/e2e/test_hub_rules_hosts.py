"""A rule the hub declares (`rulebooks:` in examples/team-memory) fires through the real hosts.

team-memory declares one book, `team-migrations`: an edit of `migrations/*` gets the advisory
"run the migration check". No book is held in memory here: what fires is the hub's own.

- Claude Code runs the built bundle: `memhub build`, then `claude plugin marketplace add` and
  `plugin install`; the book is read from beside the bundle's vendored runtime.
- Gemini CLI runs the built bundle too (`gemini extensions install <bundle>/gemini/team-memory`),
  and Codex (`codex plugin marketplace add`, `plugin add`, its hooks trusted as in /hooks).
- Codex and Gemini CLI run an install (`memhub apply --scope user`): the book is read from
  `$MEMHUB_HOME/rules/hub/team-memory/`, where apply wrote it.

The scripted model writes a migration twice: the advisory is in the request right after the
first write, and exactly once in the session's last request (once per session). The fire
ledger names the hub's rule; the hook logged no failure.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from . import scripted
from .fake_tools import Call
from .harness import codex_trust_hooks, describe, read_hub, run
from .test_capture_hosts import _trust_user_hooks
from .test_gemini_extension import install_extension
from .test_recall_hosts import HUB, _env, _memhub

pytestmark = pytest.mark.e2e

RULE = "run the migration check (`make migration-check`)"
BOOK, RULE_ID = "team-migrations", "migration-check"
MIGRATION = "migrations/0002_add_invoices.py"
PROMPT = "add the invoices migration"


def _assert_advised(session: scripted.Session) -> None:
    sent = session.sent()
    scripted.first_after(sent, RULE, 0)  # right after the first write
    final = scripted.last(sent)
    assert final.count(f"{BOOK} \\u00b7 {RULE_ID}") + final.count(f"{BOOK} · {RULE_ID}") == 1, (
        final[-6000:]
    )


def _assert_recorded(env: dict[str, str], repo: Path, host: str) -> None:
    log = Path(env["MEMHUB_HOME"]) / "logs" / "hook.log"
    assert not log.exists(), log.read_text()[-3000:]
    proc = _memhub(["rules", "fires", "--json"], env, repo)
    fires = [f for f in json.loads(proc.stdout)["data"]["fires"] if f["host"] == host]
    assert [(f["book"], f["rule"]) for f in fires] == [(BOOK, RULE_ID)], fires


def _migrations(repo: Path) -> str:
    (repo / "migrations").mkdir()
    return str(repo / MIGRATION)


def test_claude_fires_the_hubs_rule_from_the_built_bundle(
    claude_cli: Path, isolated_home: Any, git_repo: Path, bundle_for: Any
) -> None:
    env = _env(isolated_home)
    bundle = bundle_for(HUB)
    info = read_hub(HUB)
    for argv in (["plugin", "marketplace", "add", str(bundle)],
                 ["plugin", "install", f"{info.plugin}@{info.marketplace}"]):  # fmt: skip
        proc = run([claude_cli, *argv], env=env, cwd=isolated_home.root)
        assert proc.returncode == 0, describe(proc)
    assert not (Path(env["MEMHUB_HOME"]) / "rules").exists()  # nothing installed, nothing held
    path = _migrations(git_repo)
    calls = [
        Call("Write", {"file_path": path, "content": "UP = 1\n"}),
        Call("Write", {"file_path": path, "content": "UP = 2\n"}),
    ]
    session = scripted.claude(claude_cli, env, git_repo, PROMPT, calls, "--allowedTools", "Write")
    assert [r.is_error for r in session.fake.results()] == [False] * 2, session.fake.results()
    _assert_advised(session)
    _assert_recorded(env, git_repo, "claude")


def _trust_plugin_hooks(codex: Path, env: dict[str, str], cwd: Path) -> list[dict]:
    """Trust the plugin's hooks as a person does in /hooks (app-server)."""

    def ours(listed: dict[str, Any]) -> list[dict[str, Any]]:
        return [h for e in listed["data"] for h in e["hooks"] if h.get("source") == "plugin"]

    return codex_trust_hooks(codex, env, cwd, ours)


def _install_codex(env: dict[str, str], isolated_home: Any, git_repo: Path, codex: Path) -> None:
    _memhub(["apply", str(HUB), "--scope", "user", "--hosts", "codex"], env, isolated_home.root)
    folder = Path(env["MEMHUB_HOME"]) / "rules" / "hub" / "team-memory"
    assert (folder / f"{BOOK}.json").is_file()
    _trust_user_hooks(codex, env, isolated_home.codex_home, git_repo)


def _codex_plugin(
    env: dict[str, str], isolated_home: Any, git_repo: Path, codex: Path, *, bundle: str
) -> None:
    info = read_hub(HUB)
    for argv in (["marketplace", "add", bundle], ["add", f"{info.plugin}@{info.marketplace}"]):
        proc = run([codex, "plugin", *argv], env=env, cwd=isolated_home.root)
        assert proc.returncode == 0, describe(proc)
    assert not (Path(env["MEMHUB_HOME"]) / "rules").exists()  # nothing installed, nothing held
    hooks = _trust_plugin_hooks(codex, env, git_repo)
    assert hooks and all(h["trustStatus"] == "trusted" for h in hooks), hooks


def test_codex_fires_the_hubs_rule_from_the_install(
    codex_cli: Path, isolated_home: Any, git_repo: Path
) -> None:
    env = _env(isolated_home, MEMHUB_E2E_FAKE_KEY="sk-memhub-e2e-fake")
    _codex_session(codex_cli, env, isolated_home, git_repo, _install_codex)


def test_codex_fires_the_hubs_rule_from_the_built_plugin(
    codex_cli: Path, isolated_home: Any, git_repo: Path, bundle_for: Any
) -> None:
    env = _env(isolated_home, MEMHUB_E2E_FAKE_KEY="sk-memhub-e2e-fake")
    setup = functools.partial(_codex_plugin, bundle=str(bundle_for(HUB)))
    _codex_session(codex_cli, env, isolated_home, git_repo, setup)


def _codex_session(
    codex_cli: Path, env: dict[str, str], isolated_home: Any, git_repo: Path, setup: Any
) -> None:
    commands = [f"printf 'UP = 1\\n' > {MIGRATION}", f"printf 'UP = 2\\n' > {MIGRATION}"]

    def install() -> None:
        setup(env, isolated_home, git_repo, codex_cli)  # trusts the hooks it installed
        _migrations(git_repo)

    session = scripted.codex(codex_cli, isolated_home, env, git_repo, PROMPT, commands, install,
                             trust=False)  # fmt: skip
    # Codex writes through the shell: the edit rule sees the file after the command
    _assert_advised(session)
    _assert_recorded(env, git_repo, "codex")


def test_gemini_fires_the_hubs_rule_from_the_install(
    gemini_cli: Path, isolated_home: Any, git_repo: Path
) -> None:
    env = _env(isolated_home)
    scripted.gemini_settings(isolated_home)
    _memhub(["apply", str(HUB), "--scope", "user", "--hosts", "gemini"], env, isolated_home.root)
    _gemini_session(gemini_cli, env, git_repo)


def test_gemini_fires_the_hubs_rule_from_the_built_extension(
    gemini_cli: Path, isolated_home: Any, git_repo: Path, bundle_for: Any
) -> None:
    env = _env(isolated_home)
    scripted.gemini_settings(isolated_home)
    extension = bundle_for(HUB) / "gemini" / read_hub(HUB).plugin
    install_extension(gemini_cli, extension, env, isolated_home.root)
    assert not (Path(env["MEMHUB_HOME"]) / "rules").exists()  # nothing installed, nothing held
    _gemini_session(gemini_cli, env, git_repo)


def _gemini_session(gemini_cli: Path, env: dict[str, str], git_repo: Path) -> None:
    path = _migrations(git_repo)
    calls = [
        Call("write_file", {"file_path": path, "content": "UP = 1\n"}),
        Call("write_file", {"file_path": path, "content": "UP = 2\n"}),
    ]
    _assert_advised(scripted.gemini(gemini_cli, env, git_repo, PROMPT, calls))
    _assert_recorded(env, git_repo, "gemini")
