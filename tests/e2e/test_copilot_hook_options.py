"""What memhub writes into a Copilot CLI hooks file beyond `bash`, `matcher` and `timeoutSec`
runs as the hub says in a real session (the fake model behind it): the `cwd` option
(`cwd`), with a `command_windows` (`powershell`) beside it that Linux does not run, and a
hook bound to a Copilot event natively (`event: {copilot: agentStop}`). These are what
import --from-repo reads back from a Copilot hooks file (copilot_repo.HOOKS)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import IsolatedHome
from .harness import read_jsonl
from .test_copilot_host import (  # noqa: F401 (fixtures)
    CopilotFake,
    _env,
    _install_bundle,
    _session,
    copilot_cli,
    fake_model,
    hub,
)

pytestmark = pytest.mark.e2e

HOOKS = """  - id: cwd-probe
    event: session_start
    command: 'pwd > "${MEMHUB_E2E_OUT:?}/cwd.txt"'
    options: {cwd: sub, command_windows: "Get-Location"}
  - id: native-stop
    event: {copilot: agentStop}
    hosts: [copilot]
    command: 'cat >> "${MEMHUB_E2E_OUT:?}/native_stop.jsonl"; echo >> "${MEMHUB_E2E_OUT:?}/native_stop.jsonl"'
"""


def test_cwd_option_and_a_native_event_reach_copilot(
    copilot_cli: Path,  # noqa: F811
    isolated_home: IsolatedHome,
    git_repo: Path,
    hub: Path,  # noqa: F811
    fake_model: CopilotFake,  # noqa: F811
) -> None:
    text = (hub / "hub.yaml").read_text(encoding="utf-8")
    (hub / "hub.yaml").write_text(text.replace("hooks:\n", "hooks:\n" + HOOKS, 1))
    (git_repo / "sub").mkdir()
    out = isolated_home.root / "out"
    env = _env(isolated_home, out)
    bundle = isolated_home.root / "bundle"
    _install_bundle(copilot_cli, env, git_repo, hub, bundle)
    written = json.loads((bundle / "copilot/e2e-probe/hooks/hooks.json").read_text())
    (probe,) = [h for h in written["hooks"]["sessionStart"] if "cwd.txt" in h["bash"]]
    assert (probe["cwd"], probe["powershell"]) == ("sub", "Get-Location"), probe
    _session(copilot_cli, env, git_repo, fake_model)
    assert (out / "cwd.txt").read_text().strip() == str(git_repo / "sub")
    (stopped,) = read_jsonl(out / "native_stop.jsonl")
    assert stopped["stopReason"] == "end_turn", stopped
