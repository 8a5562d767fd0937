"""`memhub plan` and `memhub apply` show what a host carries with a difference (caveats)."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhub.compiler.cli.main import main

HUB = """version: 1
plugin: {name: caveat-probe, version: 0.1.0, description: Caveat probe}
marketplace: {name: probe-market, owner: {name: Probe}}
mcp:
  servers:
    local: {command: python3, args: ["-V"], cwd: ./work}
"""


def test_plan_and_apply_print_the_caveats_build_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "hub.yaml").write_text(HUB)
    for verb in ("plan", "apply"):
        code = main([verb, str(tmp_path), "--scope", "user", "--hosts", "claude"])
        out, err = capsys.readouterr()
        assert code == 0, out + err
        assert "installed with this caveat" in out, (verb, out)
        assert "Claude Code has no cwd for stdio servers" in out, (verb, out)
