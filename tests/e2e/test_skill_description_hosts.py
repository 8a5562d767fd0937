"""A skill whose `description` is 1,100 and 5,000 characters, built for every host and handed
to the real CLIs: what each does with it. The `SKILL_DESCRIPTION_MAX` of each adapter and its
coverage row (compiler/skilldescriptions.py) say what these tests see.

* Claude Code 2.1.332: `plugin validate --strict` passes it and `plugin details` lists it;
  the model's request lists a description of up to 1536 characters whole (1100 here), a
  longer one cut to 1535 characters and "\u2026" (caveat; 1537 characters, seen once, is cut).
* Codex 0.171: `debug prompt-input` lists it with its description cut to 1021 characters
  and "..." (caveat).
* Gemini CLI 0.61: `skills list` shows the whole description.
* OpenCode 1.18.33: `debug skill` has the whole description.
* Copilot CLI 1.0.102: drops it ("Skill description must be at most 1024 characters" on
  stderr of `skill list`); memhub does not write it in Copilot's own folder (unsupported).
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
plugin: {name: lng, version: 1.0.0, description: Long descriptions., author: {name: memhub}}
marketplace: {name: lng-market, owner: {name: memhub}}
hosts: [claude, codex, gemini, opencode, copilot]
"""
REF = "lng@lng-market"
SHORT = "---\nname: short\ndescription: A short one.\n---\nShort\n"


def description(length: int) -> str:
    """`length` characters, each word numbered so a cut shows where it falls, ending in END."""
    text = "Use when probing long descriptions. " + "".join(f"w{i:04d} " for i in range(length))
    return text[: length - 3] + "END"


@pytest.fixture(params=[1100, 5000])
def built(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path]:
    """(the long description, the bundle built from a hub with it and a short skill)."""
    hub, out = tmp_path / "hub", tmp_path / "bundle"
    text = description(request.param)
    for name, skill in {"long": f"---\nname: long\ndescription: {text}\n---\nLong\n"}.items():
        (hub / "skills" / name).mkdir(parents=True)
        (hub / "skills" / name / "SKILL.md").write_text(skill)
    (hub / "skills" / "short").mkdir(parents=True)
    (hub / "skills" / "short" / "SKILL.md").write_text(SHORT)
    (hub / "hub.yaml").write_text(HUB)
    argv = [sys.executable, "-m", "memhub.compiler.cli.main", "build", hub, "--out", out]
    proc = run(argv, env={})
    assert proc.returncode == 0, describe(proc)
    return text, out


def test_claude_code_lists_it_whole_up_to_1536_characters(
    built: tuple[str, Path], claude_cli: Path, isolated_home, git_repo: Path, fake_anthropic
) -> None:
    text, out = built
    env = isolated_home.with_env(
        ANTHROPIC_BASE_URL=fake_anthropic.base_url,
        ANTHROPIC_API_KEY="sk-memhub-e2e-fake",
        IS_SANDBOX="1",
    )
    argv = [claude_cli, "plugin", "validate", "--strict", "--json", out / "plugins/lng"]
    report = json.loads(run(argv, env=env).stdout)
    assert report["manifest"]["errors"] == [] and report["manifest"]["warnings"] == [], report
    assert "lng:long" in report["provides"]["skills"], report
    assert run([claude_cli, "plugin", "marketplace", "add", out], env=env).returncode == 0
    installed = run([claude_cli, "plugin", "install", REF], env=env)
    assert installed.returncode == 0, describe(installed)
    details = run([claude_cli, "plugin", "details", REF], env=env)
    assert parse_claude_details(details.stdout)["Skills"] == (2, ["long", "short"]), details
    start = len(fake_anthropic.requests)
    proc = run([claude_cli, "-p", "hi"], env=env, cwd=git_repo, timeout=120)
    assert proc.returncode == 0, describe(proc)
    bodies = [json.dumps(r.body, ensure_ascii=False) for r in fake_anthropic.requests[start:]]
    shown = text if len(text) <= 1536 else text[:1535] + "\u2026"
    listed = f"- lng:long: {shown}\\n"  # as json.dumps writes the listing's line break
    assert any(listed in body for body in bodies), f"{listed[:80]}... is in no request"


def test_codex_lists_it_cut_to_1021_characters(
    built: tuple[str, Path], codex_cli: Path, isolated_home, git_repo: Path
) -> None:
    text, out = built
    env = isolated_home.env
    assert run([codex_cli, "plugin", "marketplace", "add", out], env=env).returncode == 0
    added = run([codex_cli, "plugin", "add", REF, "--json"], env=env)
    assert added.returncode == 0, describe(added)
    prompt = run([codex_cli, "debug", "prompt-input", "hello"], env=env, cwd=git_repo)
    assert f"lng:long: {text[:1021]}... (file: " in prompt.stdout, describe(prompt)
    assert text[:1022] not in prompt.stdout
    assert "lng:short: A short one." in prompt.stdout


def test_gemini_lists_it_whole(
    built: tuple[str, Path], gemini_cli: Path, isolated_home, git_repo: Path
) -> None:
    text, out = built
    env = isolated_home.env
    argv = [str(gemini_cli), "extensions", "install", str(out / "gemini" / "lng"), "--consent"]
    proc = subprocess.run(
        argv, env=env, cwd=git_repo, input="y\n", capture_output=True, text=True,
        timeout=CLI_TIMEOUT_S,
    )  # fmt: skip
    assert proc.returncode == 0, describe(proc)
    listed = run([gemini_cli, "skills", "list"], env=env, cwd=git_repo)
    assert "long [Enabled]" in listed.stdout and text in listed.stdout, listed.stdout


def test_opencode_loads_it_whole(built: tuple[str, Path], isolated_home) -> None:
    text, out = built
    env = isolated_home.with_env(
        OPENCODE_CONFIG_DIR=str(out / "opencode" / "lng"),
        OPENCODE_DISABLE_AUTOUPDATE="1",
        OPENCODE_DISABLE_MODELS_FETCH="1",
    )
    work = isolated_home.root / "work"
    work.mkdir()
    proc = run([_host_cli("opencode"), "debug", "skill"], env=env, cwd=work)
    assert proc.returncode == 0, describe(proc)
    found = {s["name"]: s["description"] for s in json.loads(proc.stdout)}
    assert found["long"] == text


def test_copilot_drops_it(built: tuple[str, Path], isolated_home, git_repo: Path) -> None:
    from . import hostcli

    text, out = built
    copilot = _host_cli("copilot")
    cache = hostcli.cache_root() / "copilot-cache"
    cache.mkdir(parents=True, exist_ok=True)
    env = isolated_home.with_env(
        COPILOT_OFFLINE="true", COPILOT_CACHE_HOME=str(cache), COPILOT_AUTO_UPDATE="false"
    )
    folder = out / "copilot" / "lng"
    assert not (folder / "skills" / "long").exists()  # memhub leaves it out (unsupported)
    # the real CLI's own verdict, on the folder as memhub would have written it
    (folder / "skills" / "long").mkdir()
    (folder / "skills" / "long" / "SKILL.md").write_text(
        f"---\nname: long\ndescription: {text}\n---\nLong\n"
    )
    installed = run([copilot, "plugin", "install", folder], env=env, cwd=git_repo)
    assert installed.returncode == 0, describe(installed)
    listed = run([copilot, "skill", "list", "--json"], env=env, cwd=git_repo)
    assert listed.returncode == 0, describe(listed)
    found = {s["name"] for s in json.loads(listed.stdout)}
    assert "short" in found and "long" not in found, found
    assert "long/SKILL.md: Skill description must be at most 1024 characters" in listed.stderr
