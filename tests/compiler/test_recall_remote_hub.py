"""`memory.recall.remote` in hub.yaml: checked, then compiled into the `recall.json` the
runtime's recall reads (beside a bundle's vendored runtime, under MEMHUB_HOME for an
install), and nothing at all for a hub that recalls locally."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from memhub.compiler.build import build
from memhub.hubspec import HubError, load
from memhub.runtime.memory import remote_settings

from tests.compiler.installkit import ALL, run
from tests.hubs import REPO

URL = "https://memhub.example.com/mcp-server/mcp"
RECALL = f"  recall:\n    remote: {{url: {URL}, key_env: TEAM_MEMHUB_KEY, timeout_ms: 900}}\n"


def _team(tmp_path: Path, recall: str = RECALL) -> Path:
    """A copy of examples/team-memory with `recall` added to its memory section."""
    hub = tmp_path / "hub"
    shutil.copytree(REPO / "examples" / "team-memory", hub)
    text = (hub / "hub.yaml").read_text()
    anchor = "  scopes: [shared, project]\n"
    assert anchor in text
    (hub / "hub.yaml").write_text(text.replace(anchor, anchor + recall, 1))
    return hub


def test_the_setting_is_read_into_the_hub(tmp_path: Path) -> None:
    hub = load(_team(tmp_path))
    assert hub.memory is not None and hub.memory.recall is not None
    recall = hub.memory.recall
    assert (recall.url, recall.key_env, recall.timeout_ms) == (URL, "TEAM_MEMHUB_KEY", 900)
    assert load(_team(tmp_path / "b", "")).memory.recall is None  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("remote", "says"),
    [
        ("{url: 'http://memhub.example.com/mcp'}", "plain http is refused"),
        ("{url: 'https://ann:pw@memhub.example.com/mcp'}", "no credentials"),
        ("{url: 'https://memhub.example.com/mcp?key=abc'}", "no credentials"),
        ("{url: 'ftp://memhub.example.com/mcp'}", "not an http(s) URL"),
        ("{url: 'https://memhub.example.com/mcp', key_env: 'my key'}", "key_env"),
        ("{url: 'https://memhub.example.com/mcp', timeout_ms: 9000}", "timeout_ms"),
        ("{url: 'https://memhub.example.com/mcp', key: mhk_abc}", "key"),
        ("{key_env: K}", "url"),
    ],
)
def test_an_unusable_setting_is_a_problem_at_its_line(
    tmp_path: Path, remote: str, says: str
) -> None:
    with pytest.raises(HubError) as caught:
        load(_team(tmp_path, f"  recall:\n    remote: {remote}\n"))
    problems = [str(p) for p in caught.value.problems]
    assert any(says in p and "hub.yaml:" in p for p in problems), problems


def test_each_bundle_carries_the_settings_beside_its_runtime(tmp_path: Path) -> None:
    result = build(load(_team(tmp_path)))
    found = {a.path: a.content for a in result.artifacts if a.path.endswith("/recall.json")}
    assert found and all("/memhub_runtime/recall.json" in p for p in found)
    for content in found.values():
        remote, problem = remote_settings.parse(content.decode())
        assert problem == "" and remote is not None
        assert (remote.url, remote.key_env, remote.timeout_s) == (URL, "TEAM_MEMHUB_KEY", 0.9)
    local = build(load(_team(tmp_path / "b", "")))
    assert not [a for a in local.artifacts if a.path.endswith("/recall.json")]


def test_the_vendored_runtime_reads_its_own_settings(tmp_path: Path) -> None:
    result = build(load(_team(tmp_path)))
    out = tmp_path / "out"
    for artifact in result.artifacts:
        target = out / artifact.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(artifact.content)
    vendored = next(out.rglob("memhub_runtime/recall.json")).parent
    probe = (
        f"import sys; sys.path.insert(0, {str(vendored.parent)!r})\n"
        "from memhub_runtime.memory import remote_settings as s\n"
        "r = s.configured('/nonexistent-home'); print(r.url if r else None)\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-I", "-c", probe], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == URL


def test_apply_writes_the_settings_under_memhub_home_and_uninstall_removes_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hub = _team(tmp_path)
    code, _, err = run(capsys, "apply", str(hub), "--hosts", ALL)
    assert code == 0, err
    home = os.environ["MEMHUB_HOME"]
    data = json.loads(Path(home, "recall.json").read_text())
    assert data["remote"] == {"url": URL, "key_env": "TEAM_MEMHUB_KEY", "timeout_ms": 900}
    remote = remote_settings.configured(home)  # what the installed runtime reads
    assert remote is not None and remote.url == URL
    code, out, err = run(capsys, "apply", str(hub), "--hosts", ALL)
    assert code == 0 and "0 create, 0 update, 0 delete" in out + err
    code, _, err = run(capsys, "uninstall", str(hub), "--hosts", ALL)
    assert code == 0, err
    assert remote_settings.configured(home) is None  # back to local recall


def test_a_hub_that_recalls_locally_writes_no_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "apply", str(_team(tmp_path, "")), "--hosts", ALL)
    assert code == 0, err
    assert not Path(os.environ["MEMHUB_HOME"], "recall.json").exists()


def test_doctor_knows_the_runtime_reads_the_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hub = _team(tmp_path)
    code, _, err = run(capsys, "apply", str(hub), "--hosts", "claude")
    assert code == 0, err
    _, out, _ = run(capsys, "doctor", str(hub), "--hosts", "claude", "--json")
    checks = json.loads(out)["data"]["checks"]
    about = [c for c in checks if str(c.get("target", "")).endswith("recall.json")]
    assert about and all(c["status"] == "ok" for c in about), about  # no `location` fail
