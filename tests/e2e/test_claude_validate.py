"""(a) `claude plugin validate --strict` accepts every generated plugin folder and the bundle root."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .harness import describe, hub_params, plugin_dirs, read_hub, run, validation_problems

pytestmark = pytest.mark.e2e


def _validate(claude: Path, target: Path, env: dict[str, str]) -> tuple[dict, str]:
    proc = run([claude, "plugin", "validate", "--strict", "--json", target], env=env)
    try:
        report = json.loads(proc.stdout)
    except ValueError as exc:
        raise AssertionError(f"validate printed no JSON report\n{describe(proc)}") from exc
    return report, describe(proc) if proc.returncode != 0 else ""


@pytest.mark.parametrize("hub", hub_params())
def test_claude_validate_strict(hub: Path, claude_cli: Path, isolated_home, bundle_for) -> None:
    info = read_hub(hub)
    if "claude" not in info.hosts:
        pytest.skip(f"{hub.name} does not target claude")
    bundle = bundle_for(hub)
    plugins = plugin_dirs(bundle)
    assert [p.name for p in plugins] == [info.plugin], f"plugins/ holds {plugins}"

    failures: list[str] = []
    for target, kind in [(bundle, "marketplace")] + [(p, "plugin") for p in plugins]:
        report, failed_run = _validate(claude_cli, target, isolated_home.env)
        manifest = report.get("manifest") or {}
        problems = validation_problems(report)
        if manifest.get("type") != kind:
            problems.append(f"validated as {manifest.get('type')!r}, expected {kind!r}")
        if report.get("success") is not True or report.get("strict") is not True:
            problems.append(f"success={report.get('success')!r} strict={report.get('strict')!r}")
        if failed_run:
            problems.append(failed_run)
        if problems:
            failures.append(f"{target}:\n  " + "\n  ".join(problems))
        # Findings of the (separate) plugin-directory submission checks do not change the
        # validation result; show them in -rA output for the record.
        for finding in (report.get("directory") or {}).get("findings") or []:
            print(f"directory check {target.name}: {finding.get('severity')} {finding.get('code')}")
    assert not failures, "claude plugin validate --strict reported:\n" + "\n".join(failures)
