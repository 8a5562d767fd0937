"""`memhub doctor` against the real Codex's own view of hook trust (codex app-server).

In an isolated HOME: `memhub apply tests/data/install --hosts codex`, then

1. doctor fails each Codex hook as untrusted, under the same trust keys Codex's `hooks/list`
   reports, and every hash memhub computes equals Codex's `currentHash`;
2. the hooks are trusted the supported way (app-server `hooks/list`, then `config/batchWrite`
   of each `trusted_hash`, as a person does in /hooks; memhub itself never writes trust);
3. doctor then reports every hook trusted and exits 0.

Every host call goes through the refusing loopback proxy (isolated_home), so nothing leaves
the machine.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from .harness import REPO_ROOT, CodexAppServer, describe, run

pytestmark = pytest.mark.e2e

HUB = REPO_ROOT / "tests" / "data" / "install"
_KEY = re.compile(r"\((/[^()]+:[a-z_]+:\d+:\d+)\)$")


def memhub(args: list[str], env: dict[str, str], cwd: Path) -> Any:
    return run([sys.executable, "-m", "memhub.compiler.cli.main", *args], env=env, cwd=cwd)


def doctor_trust(env: dict[str, str], cwd: Path) -> tuple[int, dict[str, str]]:
    """`memhub doctor --hosts codex --json`: exit code and {trust key: status}."""
    proc = memhub(["doctor", "--hosts", "codex", "--json"], env, cwd)
    assert proc.returncode in (0, 1), describe(proc)
    report = json.loads(proc.stdout)["data"]
    others = [c for c in report["checks"] if c["status"] == "fail" and c["name"] != "hook-trust"]
    assert not others, others
    found = {}
    for check in report["checks"]:
        if check["name"] == "hook-trust":
            match = _KEY.search(check["detail"])
            assert match, check
            found[match.group(1)] = check["status"]
    return proc.returncode, found


def listed_hooks(server: CodexAppServer, cwd: Path, source: str) -> list[dict[str, Any]]:
    listed = server.call("hooks/list", {"cwds": [str(cwd)]})
    problems = [
        p for e in listed["data"] for p in (e.get("warnings") or []) + (e.get("errors") or [])
    ]
    assert not problems, f"Codex reported problems loading hooks: {problems}"
    return [h for e in listed["data"] for h in e["hooks"] if h.get("sourcePath") == source]


def test_doctor_agrees_with_codex_on_hook_trust(
    codex_cli: Path, isolated_home, git_repo: Path
) -> None:
    from memhub.compiler.hosts import codex

    env = isolated_home.env
    proc = memhub(["apply", str(HUB), "--scope", "user", "--hosts", "codex"], env, git_repo)
    assert proc.returncode == 0, describe(proc)
    source = str(isolated_home.codex_home / "hooks.json")
    document = json.loads(Path(source).read_text())

    code, before = doctor_trust(env, git_repo)
    assert code == 1
    assert before and set(before.values()) == {"fail"}, before

    with CodexAppServer(codex_cli, env=env, cwd=git_repo) as server:
        hooks = listed_hooks(server, git_repo, source)
        assert {h["key"] for h in hooks} == set(before), (hooks, before)
        assert {h["trustStatus"] for h in hooks} == {"untrusted"}
        events = {codex.hook_trust_key("", e, 0, 0).split(":")[1]: e for e in document["hooks"]}
        for hook in hooks:  # memhub's hash is Codex's hash, for every hook it installed
            _, label, group, handler = hook["key"].rsplit(":", 3)
            event = events[label]
            item = document["hooks"][event][int(group)]
            computed = codex.hook_trust_hash(
                event, item.get("matcher"), item["hooks"][int(handler)]
            )
            assert computed == hook["currentHash"], (hook, computed)
        edits = [
            {
                "keyPath": f"hooks.state.{json.dumps(h['key'])}",
                "mergeStrategy": "upsert",
                "value": {"trusted_hash": h["currentHash"]},
            }
            for h in hooks
        ]
        server.call("config/batchWrite", {"edits": edits})
        assert {h["trustStatus"] for h in listed_hooks(server, git_repo, source)} == {"trusted"}

    code, after = doctor_trust(env, git_repo)
    assert code == 0
    assert after == dict.fromkeys(before, "ok")
