"""(d) Real Claude Code, headless, against the fake model: every generated hook fires.

The probe hub (tests/e2e/hubs/probe) has one command hook per logical event; each appends the
host's stdin payload to ``$MEMHUB_E2E_OUT/<logical event>.jsonl``. The plugin is installed from
the generated marketplace, then two headless turns run in a git repo:

1. ``claude -p`` : the fake model calls Bash twice, once succeeding and once failing, then ends
   the turn. Fires session_start, prompt_submit, before_tool (x2), after_tool,
   after_tool_failure, turn_end, session_end.
2. ``claude -p /compact --resume <session>``: fires pre_compact (trigger "manual").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .harness import CLAUDE_EVENTS, HUBS_DIR, describe, read_hub, read_jsonl, run

pytestmark = pytest.mark.e2e

OK_COMMAND = "echo memhub-e2e-ok"
FAILING_COMMAND = "ls /memhub-e2e-does-not-exist"
TURN_TIMEOUT_S = 120


def _headless(
    claude: Path, prompt: str, *, env: dict[str, str], cwd: Path, resume: str | None = None
) -> dict:
    argv: list = [claude, "-p", prompt, "--output-format", "json", "--allowedTools", "Bash"]
    if resume:
        argv += ["--resume", resume]
    proc = run(argv, env=env, cwd=cwd, timeout=TURN_TIMEOUT_S)
    assert proc.returncode == 0, describe(proc)
    try:
        result = json.loads(proc.stdout)
    except ValueError as exc:
        raise AssertionError(f"claude -p printed no JSON result\n{describe(proc)}") from exc
    assert result.get("is_error") is False, describe(proc)
    return result


def test_claude_headless_fires_every_hook(
    claude_cli: Path, isolated_home, git_repo: Path, fake_anthropic, bundle_for
) -> None:
    hub = HUBS_DIR / "probe"
    info = read_hub(hub)
    assert set(info.hook_events) == set(CLAUDE_EVENTS), "the probe hub must cover every event"
    bundle = bundle_for(hub)
    out = isolated_home.root / "hook-out"
    out.mkdir()
    env = isolated_home.with_env(
        MEMHUB_E2E_OUT=str(out),
        ANTHROPIC_BASE_URL=fake_anthropic.base_url,
        ANTHROPIC_API_KEY="sk-memhub-e2e-fake",
        IS_SANDBOX="1",  # runs as root here; --dangerously-skip-permissions is refused as root
    )
    ref = f"{info.plugin}@{info.marketplace}"
    for argv in (["plugin", "marketplace", "add", bundle], ["plugin", "install", ref]):
        proc = run([claude_cli, *argv], env=env)
        assert proc.returncode == 0, describe(proc)

    # Turn 1: one succeeding and one failing Bash call, then text + end_turn.
    fake_anthropic.bash_commands = [OK_COMMAND, FAILING_COMMAND]
    first = _headless(claude_cli, "run the memhub e2e probe steps", env=env, cwd=git_repo)
    session_id = first["session_id"]
    assert first.get("result") == fake_anthropic.final_text, first
    assert fake_anthropic.tool_use_count() == 2, [r.answer for r in fake_anthropic.requests]

    # Turn 2: manual compaction of the same session.
    second = _headless(claude_cli, "/compact", env=env, cwd=git_repo, resume=session_id)
    assert second.get("session_id") == session_id, second

    fired: dict[str, list[dict]] = {}
    for logical, host_event in CLAUDE_EVENTS.items():
        path = out / f"{logical}.jsonl"
        payloads = read_jsonl(path) if path.exists() else []
        fired[logical] = payloads
        for payload in payloads:
            assert payload.get("hook_event_name") == host_event, (logical, payload)
            assert payload.get("session_id") == session_id, (logical, payload)
    not_fired = [f"{e} ({CLAUDE_EVENTS[e]})" for e, p in fired.items() if not p]
    assert not not_fired, (
        f"hooks that never fired: {not_fired}; files: {sorted(p.name for p in out.iterdir())}"
    )

    # The payloads carry what each event is about.
    assert fired["session_start"][0]["source"] == "startup"
    assert fired["prompt_submit"][0]["prompt"] == "run the memhub e2e probe steps"
    before = [p["tool_input"]["command"] for p in fired["before_tool"]]
    assert before == [OK_COMMAND, FAILING_COMMAND], fired["before_tool"]
    assert all(p["tool_name"] == "Bash" for p in fired["before_tool"])
    after = fired["after_tool"]
    assert [p["tool_input"]["command"] for p in after] == [OK_COMMAND], after
    assert "memhub-e2e-ok" in json.dumps(after[0]["tool_response"]), after
    failure = fired["after_tool_failure"]
    assert [p["tool_input"]["command"] for p in failure] == [FAILING_COMMAND], failure
    assert failure[0].get("error"), failure
    assert any(
        p.get("last_assistant_message") == fake_anthropic.final_text for p in fired["turn_end"]
    ), fired["turn_end"]
    assert fired["pre_compact"][0]["trigger"] == "manual", fired["pre_compact"]
    assert len(fired["session_end"]) >= 1, fired["session_end"]
