"""A marketplace hub's bundle through the real hosts, offline: Claude Code validates every
marketplace and plugin (--strict) and installs each relative-path plugin from it; Codex lists
every plugin of its marketplace with each source kind as memhub wrote it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .harness import describe, run, validation_problems

pytestmark = pytest.mark.e2e

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "marketplace"
# (marketplace folder in the bundle, its name, the plugins built in the bundle that it lists)
LOCAL = [
    ("", "acme-tools", ["alpha", "beta"]),
    ("internal", "acme-internal", ["gamma-staging"]),
]
PLUGIN_FOLDERS = ["plugins/alpha", "tools/beta", "plugins/gamma", "internal/gamma-staging"]


def _validate(claude: Path, target: Path, env: dict[str, str], kind: str) -> list[str]:
    proc = run([claude, "plugin", "validate", "--strict", "--json", target], env=env)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        return [f"no JSON report\n{describe(proc)}"]
    problems = validation_problems(report)
    if (report.get("manifest") or {}).get("type") != kind:
        problems.append(f"validated as {(report.get('manifest') or {}).get('type')!r}")
    if report.get("success") is not True or proc.returncode != 0:
        problems.append(f"success={report.get('success')!r}\n{describe(proc)}")
    return problems


def test_claude_validates_every_marketplace_and_plugin_strict(
    claude_cli: Path, isolated_home, bundle_for
) -> None:
    bundle = bundle_for(FIXTURE)
    failures = []
    targets = [(bundle / folder, "marketplace") for folder, _, _ in LOCAL]
    targets += [(bundle / folder, "plugin") for folder in PLUGIN_FOLDERS]
    for target, kind in targets:
        problems = _validate(claude_cli, target, isolated_home.env, kind)
        if problems:
            failures.append(f"{target}:\n  " + "\n  ".join(problems))
    assert not failures, "claude plugin validate --strict reported:\n" + "\n".join(failures)


def test_claude_validate_rejects_a_bad_pin(claude_cli: Path, isolated_home, tmp_path) -> None:
    """The oracle is real: a git-subdir entry pinned to a short sha is refused."""
    market = tmp_path / "bad" / ".claude-plugin" / "marketplace.json"
    market.parent.mkdir(parents=True)
    source = {"source": "git-subdir", "url": "https://x.example/y.git", "path": "p", "sha": "abc"}
    document = {
        "name": "acme-tools",
        "owner": {"name": "Acme"},
        "plugins": [{"name": "g", "source": source}],
    }
    market.write_text(json.dumps(document))
    assert _validate(claude_cli, tmp_path / "bad", isolated_home.env, "marketplace")


@pytest.mark.parametrize(("folder", "market", "plugins"), LOCAL, ids=[m for _, m, _ in LOCAL])
def test_claude_installs_each_local_plugin_from_its_marketplace(
    folder: str, market: str, plugins: list[str], claude_cli: Path, isolated_home, bundle_for
) -> None:
    env = isolated_home.env
    root = bundle_for(FIXTURE) / folder
    added = run([claude_cli, "plugin", "marketplace", "add", root], env=env)
    assert added.returncode == 0, describe(added)
    assert f"Successfully added marketplace: {market}" in added.stdout, describe(added)
    for plugin in plugins:
        ref = f"{plugin}@{market}"
        installed = run([claude_cli, "plugin", "install", ref], env=env)
        assert installed.returncode == 0, describe(installed)
        assert f"Successfully installed plugin: {ref}" in installed.stdout, describe(installed)
    state = json.loads(
        (isolated_home.claude_dir / "plugins" / "installed_plugins.json").read_text()
    )
    assert all(f"{p}@{market}" in json.dumps(state) for p in plugins), state


def test_codex_lists_every_plugin_with_its_source(
    codex_cli: Path, isolated_home, bundle_for
) -> None:
    env = isolated_home.env
    bundle = bundle_for(FIXTURE)
    added = run([codex_cli, "plugin", "marketplace", "add", bundle], env=env)
    assert added.returncode == 0, describe(added)
    assert "Added marketplace `acme-tools`" in added.stdout + added.stderr, describe(added)
    listed = run(
        [codex_cli, "plugin", "list", "-m", "acme-tools", "--available", "--json"], env=env
    )
    assert listed.returncode == 0, describe(listed)
    available = {p["name"]: p for p in json.loads(listed.stdout)["available"]}
    assert list(available) == ["alpha", "beta", "gamma", "delta", "epsilon"], listed.stdout
    assert available["beta"]["source"] == {"source": "local", "path": str(bundle / "tools/beta")}
    assert available["beta"]["installPolicy"] == "INSTALLED_BY_DEFAULT"  # the entry override
    gamma = available["gamma"]["source"]
    assert gamma["source"] == "git-subdir" and gamma["path"] == "plugins/gamma", gamma
    assert gamma["ref"] == "gamma--v1.4.0" and len(gamma["sha"]) == 40, gamma
    assert available["delta"]["source"] == {
        "source": "git",
        "url": "https://github.com/acme/delta.git",
        "ref": "v2",
    }
    assert available["epsilon"]["source"]["url"] == "git@git.acme.example:tools/epsilon.git"

    installed = run([codex_cli, "plugin", "add", "alpha@acme-tools", "--json"], env=env)
    assert installed.returncode == 0, describe(installed)
    assert json.loads(installed.stdout).get("pluginId") == "alpha@acme-tools", installed.stdout
