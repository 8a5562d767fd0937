"""Per-host content through the real CLIs (tests/e2e/perhost_hub): `claude plugin validate
--strict` accepts the bundles (an unquoted `${plugin_root}` comes out quoted), real Claude Code
fires a hook on its native PostToolBatch and honours the `if` option, a hook limited to Claude
stays out of the Codex and Cursor files, a Codex-only hook fires in real Codex, and real Gemini
CLI fires a hook on its native BeforeModel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .harness import (
    codex_trust_plugin_hooks,
    describe,
    read_hub,
    read_jsonl,
    run,
    validation_problems,
)

pytestmark = pytest.mark.e2e

HUB = Path(__file__).resolve().parent / "perhost_hub"
DATA_HUB = Path(__file__).resolve().parents[1] / "data" / "perhost"
ECHO, GIT = "echo memhub-perhost", "git status --short"
TIMEOUT_S = 120


def _fired(out: Path, hook_id: str) -> list[dict]:
    path = out / f"{hook_id}.jsonl"
    return read_jsonl(path) if path.exists() else []


# the e2e hub, and the build-test fixture: its hooks carry Claude's if, asyncRewake,
# rewakeMessage and rewakeSummary, and native SubagentStop
VALIDATED = [(HUB, "perhost-e2e"), (DATA_HUB, "perhost-probe")]


@pytest.mark.parametrize(("hub", "plugin"), VALIDATED, ids=["e2e-hub", "data-hub"])
def test_claude_validate_strict_accepts_the_perhost_bundle(
    hub: Path, plugin: str, claude_cli: Path, isolated_home, bundle_for
) -> None:
    bundle = bundle_for(hub)
    for target in (bundle, bundle / "plugins" / plugin):
        argv = [claude_cli, "plugin", "validate", "--strict", "--json", target]
        proc = run(argv, env=isolated_home.env)
        report = json.loads(proc.stdout)
        assert report.get("success") is True, validation_problems(report) or describe(proc)
        assert report.get("strict") is True
        assert not validation_problems(report), validation_problems(report)


def test_claude_only_hook_is_not_in_other_hosts_files(bundle_for) -> None:
    hooks = bundle_for(HUB) / "plugins" / "perhost-e2e" / "hooks"
    claude = (hooks / "claude-hooks.json").read_text()
    assert "claude-stop.jsonl" in claude and "PostToolBatch" in claude
    for other in ("codex-hooks.json", "cursor-hooks.json"):
        text = (hooks / other).read_text()
        assert "claude-stop.jsonl" not in text and "CLAUDE_PLUGIN_ROOT" not in text, other
    assert "codex-stop.jsonl" in (hooks / "codex-hooks.json").read_text()
    assert "codex-stop.jsonl" not in claude


def test_claude_fires_native_event_and_if_option(
    claude_cli: Path, isolated_home, git_repo: Path, fake_anthropic, bundle_for
) -> None:
    info = read_hub(HUB)
    out = isolated_home.root / "hook-out"
    out.mkdir()
    env = isolated_home.with_env(
        MEMHUB_E2E_OUT=str(out),
        ANTHROPIC_BASE_URL=fake_anthropic.base_url,
        ANTHROPIC_API_KEY="sk-memhub-e2e-fake",
        IS_SANDBOX="1",
    )
    ref = f"{info.plugin}@{info.marketplace}"
    for argv in (["plugin", "marketplace", "add", bundle_for(HUB)], ["plugin", "install", ref]):
        proc = run([claude_cli, *argv], env=env)
        assert proc.returncode == 0, describe(proc)
    fake_anthropic.bash_commands = [ECHO, GIT]
    argv = [claude_cli, "-p", "run the probe", "--output-format", "json", "--allowedTools", "Bash"]
    proc = run(argv, env=env, cwd=git_repo, timeout=TIMEOUT_S)
    assert proc.returncode == 0, describe(proc)
    assert fake_anthropic.tool_use_count() == 2

    batches = _fired(out, "native-batch")
    assert batches and all(p["hook_event_name"] == "PostToolBatch" for p in batches), batches
    echoed = [p["tool_input"]["command"] for p in _fired(out, "if-echo")]
    gitted = [p["tool_input"]["command"] for p in _fired(out, "if-git")]
    assert (echoed, gitted) == ([ECHO], [GIT]), (echoed, gitted)
    assert [p["hook_event_name"] for p in _fired(out, "claude-stop")] == ["Stop"]
    assert _fired(out, "rooted"), "the quoted ${CLAUDE_PLUGIN_ROOT} hook did not run"
    assert not _fired(out, "codex-stop")


def test_codex_fires_its_own_hook_only(
    codex_cli: Path, isolated_home, git_repo: Path, fake_responses, bundle_for
) -> None:
    info = read_hub(HUB)
    out = isolated_home.root / "hook-out"
    out.mkdir()
    env = isolated_home.with_env(MEMHUB_E2E_OUT=str(out), MEMHUB_E2E_FAKE_KEY="sk-fake")
    (isolated_home.codex_home / "config.toml").write_text(
        'model = "fake-model"\nmodel_provider = "memhub-e2e-fake"\n\n'
        '[model_providers."memhub-e2e-fake"]\nname = "memhub e2e fake"\n'
        f'base_url = "{fake_responses.base_url}"\nenv_key = "MEMHUB_E2E_FAKE_KEY"\n'
        'wire_api = "responses"\n'
    )
    ref = f"{info.plugin}@{info.marketplace}"
    for argv in (
        ["plugin", "marketplace", "add", bundle_for(HUB)],
        ["plugin", "add", ref, "--json"],
    ):
        proc = run([codex_cli, *argv], env=env)
        assert proc.returncode == 0, describe(proc)
    hooks = codex_trust_plugin_hooks(codex_cli, env=env, cwd=git_repo, plugin_id=ref)
    assert hooks and all(h["trustStatus"] == "trusted" for h in hooks), hooks
    fake_responses.shell_commands = [ECHO]
    argv = [codex_cli, "exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "probe"]
    proc = run(argv, env=env, cwd=git_repo, timeout=TIMEOUT_S)
    assert proc.returncode == 0, describe(proc)
    assert [p["hook_event_name"] for p in _fired(out, "codex-stop")] == ["Stop"]
    assert _fired(out, "rooted"), "the quoted ${PLUGIN_ROOT} hook did not run"
    assert not _fired(out, "claude-stop") and not _fired(out, "if-echo")


def test_gemini_fires_its_native_event(
    gemini_cli: Path, isolated_home, git_repo: Path, fake_gemini, bundle_for
) -> None:
    from .test_gemini_extension import GEMINI_REJECTS, gemini_home, install_extension

    gemini_home(isolated_home.home)
    folder = bundle_for(HUB) / "gemini" / "perhost-e2e"
    install_extension(gemini_cli, folder, isolated_home.env, isolated_home.root)
    out = isolated_home.root / "hook-out"
    out.mkdir()
    fake_gemini.shell_commands = [ECHO]
    env = isolated_home.with_env(
        GEMINI_API_KEY="memhub-e2e-fake",
        GOOGLE_GEMINI_BASE_URL=fake_gemini.base_url,
        MEMHUB_E2E_OUT=str(out),
    )
    argv = [gemini_cli, "-m", "fake-model", "-p", "probe", "--yolo", "--skip-trust", "-o", "json"]
    proc = run(argv, env=env, cwd=git_repo, timeout=TIMEOUT_S)
    assert proc.returncode == 0, describe(proc)
    assert GEMINI_REJECTS not in proc.stderr, describe(proc)
    fired = _fired(out, "gemini-model")
    assert fired and all(p["hook_event_name"] == "BeforeModel" for p in fired), fired
    assert len(fired) == len(fake_gemini.requests), (len(fired), len(fake_gemini.requests))
    assert not _fired(out, "claude-stop") and not _fired(out, "codex-stop")
