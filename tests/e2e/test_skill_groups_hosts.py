"""A skill in a group folder (`skills/<group>/<name>/SKILL.md`) beside a plain one, built for
every host and handed to the real CLIs: which of them load it where memhub writes it. The
`SKILL_GROUPS` of each adapter and its coverage row say what these tests see.

* Claude Code 2.1: `plugin details` lists only the plain skill (coverage row unsupported).
* Codex 0.171: `debug prompt-input` lists the grouped skill from `skills/group/hello/`.
* Gemini CLI 0.61: loads only `skills/<name>/`; memhub writes its extension flat, so
  `skills list` shows both.
* OpenCode 1.18.33: `debug skill` lists it from `skills/group/hello/` (it scans **/SKILL.md).
* Copilot CLI 1.0.102: `skill list --json` lists it from `skills/group/hello/`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import _host_cli
from .harness import CLI_TIMEOUT_S, describe, parse_claude_details, run

pytestmark = pytest.mark.e2e

HUB = """\
version: 1
plugin: {name: grp, version: 1.0.0, description: Skill groups., author: {name: memhub}}
marketplace: {name: grp-market, owner: {name: memhub}}
hosts: [claude, codex, gemini, opencode, copilot]
"""
SKILLS = {
    "group/hello": "---\nname: hello\ndescription: Says hello from a group folder.\n---\nHello\n",
    "flat": "---\nname: flat\ndescription: A plain skill.\n---\nFlat\n",
}
REF = "grp@grp-market"


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    hub, out = tmp_path / "hub", tmp_path / "bundle"
    for folder, text in SKILLS.items():
        (hub / "skills" / folder).mkdir(parents=True)
        (hub / "skills" / folder / "SKILL.md").write_text(text)
    (hub / "hub.yaml").write_text(HUB)
    proc = run(
        [sys.executable, "-m", "memhub.compiler.cli.main", "build", hub, "--out", out], env={}
    )
    assert proc.returncode == 0, describe(proc)
    return out


def test_claude_code_loads_only_the_plain_skill(
    bundle: Path, claude_cli: Path, isolated_home
) -> None:
    env = isolated_home.env
    assert (bundle / "plugins/grp/skills/group/hello/SKILL.md").is_file()
    assert run([claude_cli, "plugin", "marketplace", "add", bundle], env=env).returncode == 0
    installed = run([claude_cli, "plugin", "install", REF], env=env)
    assert installed.returncode == 0, describe(installed)
    details = run([claude_cli, "plugin", "details", REF], env=env)
    assert parse_claude_details(details.stdout)["Skills"] == (1, ["flat"]), details.stdout


def test_codex_loads_the_grouped_skill(
    bundle: Path, codex_cli: Path, isolated_home, git_repo: Path
) -> None:
    env = isolated_home.env
    assert run([codex_cli, "plugin", "marketplace", "add", bundle], env=env).returncode == 0
    added = run([codex_cli, "plugin", "add", REF, "--json"], env=env)
    assert added.returncode == 0, describe(added)
    prompt = run([codex_cli, "debug", "prompt-input", "hello"], env=env, cwd=git_repo)
    assert "grp:hello: Says hello from a group folder." in prompt.stdout, describe(prompt)
    assert "group/hello/SKILL.md" in prompt.stdout and "grp:flat:" in prompt.stdout


def test_gemini_loads_the_skill_written_flat(
    bundle: Path, gemini_cli: Path, isolated_home, git_repo: Path
) -> None:
    env = isolated_home.env
    folder = bundle / "gemini" / "grp"
    assert sorted(p.name for p in (folder / "skills").iterdir()) == ["flat", "hello"]
    argv = [str(gemini_cli), "extensions", "install", str(folder), "--consent"]
    proc = subprocess.run(
        argv, env=env, cwd=git_repo, input="y\n", capture_output=True, text=True,
        timeout=CLI_TIMEOUT_S,
    )  # fmt: skip
    assert proc.returncode == 0, describe(proc)
    listed = run([gemini_cli, "skills", "list"], env=env, cwd=git_repo)
    assert "hello [Enabled]" in listed.stdout and "flat [Enabled]" in listed.stdout, listed.stdout


def test_opencode_loads_the_grouped_skill(bundle: Path, isolated_home) -> None:
    opencode = _host_cli("opencode")
    folder = bundle / "opencode" / "grp"
    env = isolated_home.with_env(
        OPENCODE_CONFIG_DIR=str(folder),
        OPENCODE_DISABLE_AUTOUPDATE="1",
        OPENCODE_DISABLE_MODELS_FETCH="1",
    )
    work = isolated_home.root / "work"
    work.mkdir()
    proc = run([opencode, "debug", "skill"], env=env, cwd=work)
    assert proc.returncode == 0, describe(proc)
    found = {s["name"]: s["location"] for s in json.loads(proc.stdout)}
    assert found["hello"] == str(folder / "skills" / "group" / "hello" / "SKILL.md"), found
    assert "flat" in found


def test_copilot_loads_the_grouped_skill(bundle: Path, isolated_home, git_repo: Path) -> None:
    from . import hostcli

    copilot = _host_cli("copilot")
    cache = hostcli.cache_root() / "copilot-cache"
    cache.mkdir(parents=True, exist_ok=True)
    env = isolated_home.with_env(
        COPILOT_OFFLINE="true", COPILOT_CACHE_HOME=str(cache), COPILOT_AUTO_UPDATE="false"
    )
    installed = run(
        [copilot, "plugin", "install", bundle / "copilot" / "grp"], env=env, cwd=git_repo
    )
    assert installed.returncode == 0, describe(installed)
    listed = run([copilot, "skill", "list", "--json"], env=env, cwd=git_repo)
    assert listed.returncode == 0, describe(listed)
    found = {s["name"]: s for s in json.loads(listed.stdout)}
    assert found["hello"]["source"] == "plugin", found
    assert json.dumps(found["hello"]).count("group/hello") >= 1, found["hello"]
    assert found["flat"]["source"] == "plugin", found
