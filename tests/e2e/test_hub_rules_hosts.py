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

from .fake_responses import FakeResponses
from .fake_tools import (
    Call,
    ToolsAnthropic,
    ToolsGemini,
    _claude_results,
    _gemini_results,
    _responses_results,
)
from .harness import CodexAppServer, describe, read_hub, run
from .test_capture_hosts import _trust_user_hooks, write_codex_fake, write_gemini_settings
from .test_gemini_extension import install_extension
from .test_recall_hosts import HUB, TIMEOUT_S, _env, _memhub

pytestmark = pytest.mark.e2e

RULE = "run the migration check (`make migration-check`)"
BOOK, RULE_ID = "team-migrations", "migration-check"
MIGRATION = "migrations/0002_add_invoices.py"
PROMPT = "add the invoices migration"


def _assert_advised(fake: Any, results: Any) -> None:
    requests = [r.body for r in fake.requests if isinstance(r.body, dict)]
    sent = [json.dumps(body) for body in requests]
    answered = [len(results(body)) for body in requests]
    last = max(range(len(sent)), key=lambda i: (answered[i], len(sent[i])))
    first = next((i for i, text in enumerate(sent) if RULE in text), None)
    assert first is not None, f"the hub's rule never reached the model\n{sent[last][-4000:]}"
    assert answered[first] == 1, (answered, first)  # right after the first write
    assert (
        sent[last].count(f"{BOOK} \\u00b7 {RULE_ID}") + sent[last].count(f"{BOOK} · {RULE_ID}") == 1
    ), sent[last][-6000:]


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
    with ToolsAnthropic(calls) as fake:
        run_env = {**env, "ANTHROPIC_BASE_URL": fake.base_url,
                   "ANTHROPIC_API_KEY": "sk-memhub-e2e-fake", "IS_SANDBOX": "1"}  # fmt: skip
        argv = [claude_cli, "-p", PROMPT, "--output-format", "json", "--allowedTools", "Write"]
        proc = run(argv, env=run_env, cwd=git_repo, timeout=TIMEOUT_S)
        assert proc.returncode == 0, describe(proc)
        assert [r.is_error for r in fake.results()] == [False] * 2, fake.results()
        _assert_advised(fake, _claude_results)
    _assert_recorded(env, git_repo, "claude")


def _trust_plugin_hooks(codex: Path, env: dict[str, str], cwd: Path) -> list[dict]:
    """Trust the plugin's hooks as a person does in /hooks (app-server)."""

    def ours(listed: dict[str, Any]) -> list[dict[str, Any]]:
        return [h for e in listed["data"] for h in e["hooks"] if h.get("source") == "plugin"]

    with CodexAppServer(codex, env=env, cwd=cwd) as server:
        hooks = ours(server.call("hooks/list", {"cwds": [str(cwd)]}))
        edits = [
            {"keyPath": f"hooks.state.{json.dumps(hook['key'])}", "mergeStrategy": "upsert",
             "value": {"trusted_hash": hook["currentHash"]}}
            for hook in hooks if hook["trustStatus"] in ("untrusted", "modified")
        ]  # fmt: skip
        if edits:
            server.call("config/batchWrite", {"edits": edits})
        return ours(server.call("hooks/list", {"cwds": [str(cwd)]}))


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
    with FakeResponses(commands) as fake:
        write_codex_fake(isolated_home.codex_home, fake.base_url)
        setup(env, isolated_home, git_repo, codex_cli)
        _migrations(git_repo)
        flags = ["--json", "--dangerously-bypass-approvals-and-sandbox"]
        proc = run([codex_cli, "exec", *flags, PROMPT], env=env, cwd=git_repo,
                   timeout=TIMEOUT_S)  # fmt: skip
        assert proc.returncode == 0, describe(proc)
        assert fake.issued == len(commands), fake.answers()
        # Codex writes through the shell: the edit rule sees the file after the command
        _assert_advised(fake, _responses_results)
    _assert_recorded(env, git_repo, "codex")


def test_gemini_fires_the_hubs_rule_from_the_install(
    gemini_cli: Path, isolated_home: Any, git_repo: Path
) -> None:
    env = _env(isolated_home)
    write_gemini_settings(isolated_home.home)
    _memhub(["apply", str(HUB), "--scope", "user", "--hosts", "gemini"], env, isolated_home.root)
    _gemini_session(gemini_cli, env, git_repo)


def test_gemini_fires_the_hubs_rule_from_the_built_extension(
    gemini_cli: Path, isolated_home: Any, git_repo: Path, bundle_for: Any
) -> None:
    env = _env(isolated_home)
    write_gemini_settings(isolated_home.home)
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
    with ToolsGemini(calls) as fake:
        run_env = {**env, "GEMINI_API_KEY": "memhub-e2e-fake",
                   "GOOGLE_GEMINI_BASE_URL": fake.base_url}  # fmt: skip
        argv = [gemini_cli, "-m", "fake-model", "--yolo", "--skip-trust", "-o", "json",
                "-p", PROMPT]  # fmt: skip
        proc = run(argv, env=run_env, cwd=git_repo, timeout=TIMEOUT_S)
        assert proc.returncode == 0, describe(proc)
        assert len(fake.results()) == 2, (fake.results(), sorted(fake.offered))
        _assert_advised(fake, _gemini_results)
    _assert_recorded(env, git_repo, "gemini")
