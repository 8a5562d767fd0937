"""(e) Real Codex, headless (`codex exec`), against the fake Responses API: the generated
plugin hooks fire.

The probe hub's plugin is installed from the generated marketplace, its hooks are trusted the
supported way (app-server `hooks/list` + `config/batchWrite`, as a person does in `/hooks`),
then one `codex exec` turn runs a succeeding and a failing shell command. A tiny
`model_auto_compact_token_limit` makes Codex compact automatically between calls, which fires
PreCompact (trigger "auto"); Codex has no manual compaction in `exec`.

Codex has no failure event: after_tool_failure maps to PostToolUse, which runs after every
shell call, so its payloads include the failing call (and the succeeding one).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .harness import (
    CODEX_EVENTS,
    HUBS_DIR,
    codex_trust_plugin_hooks,
    describe,
    read_hub,
    read_jsonl,
    run,
)

pytestmark = pytest.mark.e2e

OK_COMMAND = "echo memhub-e2e-ok"
FAILING_COMMAND = "ls /memhub-e2e-does-not-exist"
PROMPT = "run the memhub e2e probe steps"
EXEC_TIMEOUT_S = 120


def test_codex_exec_fires_plugin_hooks(
    codex_cli: Path, isolated_home, git_repo: Path, fake_responses, bundle_for
) -> None:
    hub = HUBS_DIR / "probe"
    info = read_hub(hub)
    bundle = bundle_for(hub)
    out = isolated_home.root / "hook-out"
    out.mkdir()
    env = isolated_home.with_env(MEMHUB_E2E_OUT=str(out), MEMHUB_E2E_FAKE_KEY="sk-fake")
    (isolated_home.codex_home / "config.toml").write_text(
        'model = "fake-model"\n'
        'model_provider = "memhub-e2e-fake"\n'
        "model_auto_compact_token_limit = 12\n"
        "\n"
        '[model_providers."memhub-e2e-fake"]\n'
        'name = "memhub e2e fake"\n'
        f'base_url = "{fake_responses.base_url}"\n'
        'env_key = "MEMHUB_E2E_FAKE_KEY"\n'
        'wire_api = "responses"\n'
    )
    ref = f"{info.plugin}@{info.marketplace}"
    for argv in (["plugin", "marketplace", "add", bundle], ["plugin", "add", ref, "--json"]):
        proc = run([codex_cli, *argv], env=env)
        assert proc.returncode == 0, describe(proc)

    hooks = codex_trust_plugin_hooks(codex_cli, env=env, cwd=git_repo, plugin_id=ref)
    assert hooks, (
        f"Codex loaded none of {ref}'s hooks, so none can fire (see test_codex_plugin_hooks_listed)"
    )
    assert all(h["trustStatus"] == "trusted" for h in hooks), json.dumps(hooks, indent=1)

    fake_responses.shell_commands = [OK_COMMAND, FAILING_COMMAND]
    proc = run(
        [codex_cli, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", PROMPT],
        env=env,
        cwd=git_repo,
        timeout=EXEC_TIMEOUT_S,
    )
    assert proc.returncode == 0, describe(proc)
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    thread_id = next(e["thread_id"] for e in events if e.get("type") == "thread.started")
    assert any(e.get("type") == "turn.completed" for e in events), describe(proc)
    assert fake_responses.issued == 2, fake_responses.answers()

    fired: dict[str, list[dict]] = {}
    for logical, host_event in CODEX_EVENTS.items():
        path = out / f"{logical}.jsonl"
        fired[logical] = read_jsonl(path) if path.exists() else []
        for payload in fired[logical]:
            assert payload.get("hook_event_name") == host_event, (logical, payload)
            assert payload.get("session_id") == thread_id, (logical, payload)
    not_fired = [f"{e} ({CODEX_EVENTS[e]})" for e, p in fired.items() if not p]
    assert not not_fired, (
        f"hooks that never fired: {not_fired}; files: {sorted(p.name for p in out.iterdir())}"
    )

    assert fired["session_start"][0]["source"] == "startup"
    assert fired["prompt_submit"][0]["prompt"] == PROMPT
    before = [p["tool_input"]["command"] for p in fired["before_tool"]]
    assert before == [OK_COMMAND, FAILING_COMMAND], fired["before_tool"]
    assert all(p["tool_name"] == "Bash" for p in fired["before_tool"])
    after = [p["tool_input"]["command"] for p in fired["after_tool"]]
    assert after == [OK_COMMAND, FAILING_COMMAND], fired["after_tool"]
    failure = [p["tool_input"]["command"] for p in fired["after_tool_failure"]]
    assert FAILING_COMMAND in failure, fired["after_tool_failure"]
    assert fired["turn_end"][-1].get("last_assistant_message") == fake_responses.final_text
    assert all(p["trigger"] == "auto" for p in fired["pre_compact"]), fired["pre_compact"]
    assert len(fired["session_end"]) == 1, fired["session_end"]
