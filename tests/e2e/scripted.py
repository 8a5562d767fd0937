"""One runner for the scripted-host e2e tests: a real claude, codex or gemini CLI in an
isolated HOME, its model a local fake that issues the test's tool calls in order.

`claude`, `codex` and `gemini` each start the fake, run the host's headless mode in the
checkout and return a `Session`: the fake (what the host sent the model), the process and
how to count the tool results a request carries. What the hub is and how it is installed
stays with the test (`apply`, or a `setup` callback run once the fake's address is known).
`Session.sent()` and `first_after` / `once_in_last` are the shared reading of the requests:
a text first reaches the model in the request right after the call that caused it, and the
session's last request holds it once.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .fake_responses import FakeResponses
from .fake_tools import (
    Call,
    Result,
    ToolsAnthropic,
    ToolsGemini,
    ToolsResponses,
    _claude_results,
    _gemini_results,
    _responses_results,
)
from .harness import REPO_ROOT, describe, run
from .test_capture_hosts import _trust_user_hooks, write_codex_fake, write_gemini_settings

HUB = REPO_ROOT / "examples" / "team-memory"
TIMEOUT_S = 150
FAKE_KEY = "sk-memhub-e2e-fake"
CODEX_FLAGS = ("--json", "--dangerously-bypass-approvals-and-sandbox")


def host_env(iso: Any, *first: Path, **extra: str) -> dict[str, str]:
    """The isolated environment with `first` folders, then this interpreter's scripts
    (memhub, memhub-hook), ahead on PATH."""
    env = iso.with_env(**extra)
    front = [str(p) for p in first] + [os.path.dirname(sys.executable)]
    env["PATH"] = os.pathsep.join([*front, env.get("PATH", "")])
    return env


def memhub(args: Sequence[str], env: dict[str, str], cwd: Path) -> Any:
    """`memhub ARGS` in `cwd`, which must succeed."""
    proc = run([sys.executable, "-m", "memhub.compiler.cli.main", *args], env=env, cwd=cwd)
    assert proc.returncode == 0, describe(proc)
    return proc


def apply(host: str, env: dict[str, str], cwd: Path, hub: Path = HUB) -> None:
    """The hub installed for `host` at user scope."""
    memhub(["apply", str(hub), "--scope", "user", "--hosts", host], env, cwd)


@dataclass
class Session:
    """One scripted host session: the fake model's record, the host's process."""

    fake: Any
    proc: Any
    results: Callable[[dict[str, Any]], list[Result]]
    hooks: list[dict[str, Any]] = field(default_factory=list)  # Codex: the trusted hooks

    def bodies(self) -> list[dict[str, Any]]:
        return [r.body for r in self.fake.requests if isinstance(r.body, dict)]

    def sent(self) -> list[tuple[int, str]]:
        """(tool results it carries, its JSON text) for each request the host sent."""
        return [(len(self.results(body)), json.dumps(body)) for body in self.bodies()]


def last(sent: list[tuple[int, str]]) -> str:
    """The session's last request: the one carrying the most results, the longest."""
    return max(sent, key=lambda pair: (pair[0], len(pair[1])))[1]


def first_after(sent: list[tuple[int, str]], text: str, call: int) -> None:
    """`text` first reaches the model in the request carrying call `call`'s result (0-based)."""
    first = next((n for n, body in sent if text in body), None)
    assert first is not None, f"{text!r} never reached the model\n{last(sent)[-4000:]}"
    assert first == call + 1, (text, [n for n, _ in sent], first)


def once_in_last(sent: list[tuple[int, str]], text: str) -> None:
    final = last(sent)
    assert final.count(text) == 1, (text, final[-6000:])


def gemini_settings(iso: Any) -> None:
    """Gemini CLI's user settings for a scripted session (before `apply`: it adds to them)."""
    write_gemini_settings(iso.home)


def claude(
    cli: Path,
    env: dict[str, str],
    cwd: Path,
    prompt: str,
    calls: list[Call],
    *args: str,
    final_text: str | None = None,
) -> Session:
    """Claude Code headless (`-p`, JSON output; `args` after, e.g. --allowedTools); the fake
    ends with `final_text` once the calls are made."""
    extra = {} if final_text is None else {"final_text": final_text}
    with ToolsAnthropic(calls, **extra) as fake:
        run_env = {**env, "ANTHROPIC_BASE_URL": fake.base_url,
                   "ANTHROPIC_API_KEY": FAKE_KEY, "IS_SANDBOX": "1"}  # fmt: skip
        argv = [cli, "-p", prompt, "--output-format", "json", *args]
        proc = run(argv, env=run_env, cwd=cwd, timeout=TIMEOUT_S)
        assert proc.returncode == 0, describe(proc)
    return Session(fake, proc, _claude_results)


def codex(
    cli: Path,
    iso: Any,
    env: dict[str, str],
    cwd: Path,
    prompt: str,
    script: Sequence[str] | Sequence[Call],
    setup: Callable[[], None],
    *,
    trust: bool = True,
) -> Session:
    """`codex exec` against a fake that runs `script`: shell commands (FakeResponses) or
    tool calls (ToolsResponses; none: it only answers). `setup` installs the hub once the fake's config is written;
    the user hooks are then trusted as in /hooks unless `trust` is False (a plugin's setup
    trusts its own). The fake's key is MEMHUB_E2E_FAKE_KEY in `env`."""
    tools = not script or isinstance(script[0], Call)  # no calls: the model only answers
    fake_of = ToolsResponses(list(script)) if tools else FakeResponses(list(script))  # type: ignore[arg-type]
    with fake_of as fake:
        write_codex_fake(iso.codex_home, fake.base_url)
        setup()
        hooks = _trust_user_hooks(cli, env, iso.codex_home, cwd) if trust else []
        proc = run([cli, "exec", *CODEX_FLAGS, prompt], env=env, cwd=cwd, timeout=TIMEOUT_S)
        assert proc.returncode == 0, describe(proc)
        assert fake.issued == len(script), fake.answers()
    return Session(fake, proc, _responses_results, hooks)


def gemini(
    cli: Path,
    env: dict[str, str],
    cwd: Path,
    prompt: str,
    calls: list[Call],
    *args: str,
    final_text: str | None = None,
) -> Session:
    """Gemini CLI headless (`--yolo`, JSON output; `args` before the prompt); the user
    settings (`gemini_settings`) go in before the hub is applied."""
    extra = {} if final_text is None else {"final_text": final_text}
    with ToolsGemini(calls, **extra) as fake:
        run_env = {**env, "GEMINI_API_KEY": "memhub-e2e-fake",
                   "GOOGLE_GEMINI_BASE_URL": fake.base_url}  # fmt: skip
        argv = [cli, "-m", "fake-model", "--yolo", "--skip-trust", "-o", "json", *args,
                "-p", prompt]  # fmt: skip
        proc = run(argv, env=run_env, cwd=cwd, timeout=TIMEOUT_S)
        assert proc.returncode == 0, describe(proc)
        assert len(fake.results()) == len(calls), (fake.results(), sorted(fake.offered))
    return Session(fake, proc, _gemini_results)
