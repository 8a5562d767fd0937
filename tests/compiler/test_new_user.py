"""What a new user hits first: the starter hub, host defaults, restore, import then apply."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.compiler.installkit import HUB, run

# -- ${env:NAME} counts only in values -------------------------------------------------------


def test_the_starter_hub_plans_without_a_warning(tmp_path: Path, capsys) -> None:
    """`memhub init` writes `${env:NAME}` in a comment; a comment is not a reference."""
    assert run(capsys, "init", str(tmp_path / "hub"))[0] == 0
    assert "${env:NAME}" in (tmp_path / "hub" / "hub.yaml").read_text()
    project = tmp_path / "project"
    project.mkdir()
    code, out, err = run(
        capsys,
        "plan",
        str(tmp_path / "hub"),
        "--scope",
        "project",
        "--project",
        str(project),
        "--hosts",
        "claude",
        "--json",
    )
    assert code == 0, err
    assert json.loads(out)["warnings"] == []
    assert "warning" not in err


def test_only_values_reference_variables(tmp_path: Path) -> None:
    from memhub.compiler.install.secrets import referenced_names
    from memhub.hubspec import load

    hub = tmp_path / "hub"
    shutil.copytree(HUB, hub)
    text = (hub / "hub.yaml").read_text()
    text = "# ${env:IN_A_COMMENT} is how a secret is named\n" + text
    text = text.replace("mcp:\n", "mcp:  # e.g. ${env:AFTER_A_KEY}\n", 1)
    (hub / "hub.yaml").write_text(text)
    names = referenced_names(load(hub))
    assert "IN_A_COMMENT" not in names and "AFTER_A_KEY" not in names
    assert "PROBE_TOKEN" in names


# -- the hub's `hosts:` bounds the default ---------------------------------------------------


def _path_with(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *exes: str) -> None:
    """PATH holding only executables named like host CLIs (which is all the default reads)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for exe in exes:
        (bin_dir / exe).write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / exe).chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))


def _hub_for(tmp_path: Path, hosts: str) -> Path:
    hub = tmp_path / "hub"
    shutil.copytree(HUB, hub)
    text = (hub / "hub.yaml").read_text()
    (hub / "hub.yaml").write_text(text.replace("mcp:\n", f"hosts: [{hosts}]\nmcp:\n", 1))
    return hub


def test_the_hubs_hosts_bound_the_default_and_plan_apply_say_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    home = Path(os.environ["HOME"])
    _path_with(tmp_path, monkeypatch, "claude", "codex", "gemini")
    hub = _hub_for(tmp_path, "claude, cursor, agent-plugins")
    code, out, err = run(capsys, "plan", str(hub), "--json")
    assert code == 0, err
    assert json.loads(out)["data"]["hosts"] == ["claude"]
    assert "hosts: claude (" in err and "not on PATH: cursor" in err
    assert "on PATH but not in `hosts:`: codex, gemini" in err
    code, out, err = run(capsys, "apply", str(hub))
    assert code == 0, err
    assert "hosts: claude (" in err
    assert (Path(os.environ["CLAUDE_CONFIG_DIR"]) / ".claude.json").is_file()
    assert not Path(os.environ["CODEX_HOME"]).exists(), "codex is not in the hub's hosts"
    assert not (home / ".gemini").exists()
    code, out, err = run(capsys, "apply", str(hub), "--hosts", "codex")
    assert code == 0, err
    assert "hosts: codex (as named by --hosts)" in err
    assert (Path(os.environ["CODEX_HOME"]) / "config.toml").is_file()


def test_a_hub_whose_hosts_have_no_cli_on_path_is_refused_naming_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    _path_with(tmp_path, monkeypatch, "codex")
    hub = _hub_for(tmp_path, "claude, gemini")
    code, _, err = run(capsys, "apply", str(hub))
    assert code == 2
    assert "claude, gemini" in err and "--hosts" in err and "Traceback" not in err
    assert not Path(os.environ["CODEX_HOME"]).exists()
    hub.joinpath("hub.yaml").write_text(
        hub.joinpath("hub.yaml").read_text().replace("[claude, gemini]", "[agent-plugins]")
    )
    code, _, err = run(capsys, "plan", str(hub))
    assert code == 2
    assert "hub.yaml: `hosts:` (agent-plugins) names no host memhub installs into" in err


# -- restore previews, confirms, archives, and brings an archive back ------------------------


def _claude_json() -> Path:
    folder = Path(os.environ["CLAUDE_CONFIG_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    return folder / ".claude.json"


SEED = '{\n  "numStartups": 1\n}\n'


def _applied_then_edited(hub: Path, capsys) -> str:
    """Apply to Claude over a seeded .claude.json, then add a server of the person's own."""
    _claude_json().write_text(SEED)
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    data = json.loads(_claude_json().read_text())
    data["mcpServers"]["added-later"] = {"command": "mine", "args": []}
    edited = json.dumps(data, indent=2) + "\n"
    _claude_json().write_text(edited)
    return edited


def test_restore_originals_previews_and_needs_yes_without_a_terminal(
    tmp_path: Path, capsys
) -> None:
    hub = tmp_path / "hub"
    shutil.copytree(HUB, hub)
    edited = _applied_then_edited(hub, capsys)
    code, out, err = run(capsys, "restore", "--originals")
    assert code == 1, err
    assert f"update  {_claude_json()}" in out
    assert "- mcpServers.added-later" in out and "- mcpServers.probe-stdio" in out
    assert "--yes" in err and "nothing written" in err
    assert _claude_json().read_text() == edited
    assert run(capsys, "restore", "--originals", "--dry-run")[0] == 0
    code, out, err = run(capsys, "restore", "--originals", "--json")
    assert code == 1
    doc = json.loads(out)
    [claude] = [c for c in doc["changes"] if c["path"] == str(_claude_json())]
    assert {"op": "remove", "key": "mcpServers.added-later"} in claude["keys"]
    assert doc["restored"] is False and doc["archive"] is None
    assert "mine" not in out, "values stay hidden (they may be secrets)"
    assert _claude_json().read_text() == edited


def test_restore_prints_its_archive_and_restore_archive_brings_it_back(
    tmp_path: Path, capsys
) -> None:
    hub = tmp_path / "hub"
    shutil.copytree(HUB, hub)
    edited = _applied_then_edited(hub, capsys)
    code, out, err = run(capsys, "restore", "--originals", "--yes")
    assert code == 0, err
    assert _claude_json().read_text() == SEED
    [line] = [x for x in out.splitlines() if x.startswith("archived the state it replaced as ")]
    archive = line.split()[6]
    assert f"`memhub restore --archive {archive}` brings it back" in line
    code, out, err = run(capsys, "restore", "--archive", "no-such-id", "--yes")
    assert code == 2 and archive in err and "Traceback" not in err
    code, out, err = run(capsys, "restore", "--archive", archive, "--yes")
    assert code == 0, err
    assert _claude_json().read_text() == edited, "the person's server is back"
    assert "- mcpServers.added-later" not in out and "+ mcpServers.added-later" in out
    code, _, err = run(capsys, "restore", "--originals")
    assert code == 1, "each restore archives again and previews again"
    code, _, err = run(capsys, "restore", "--originals", "--archive", archive)
    assert code == 2 and "exactly one" in err


def test_restore_refuses_a_path_changed_after_its_preview(tmp_path: Path, capsys) -> None:
    from memhub.compiler.safewrite.errors import StaleTargetError
    from memhub.compiler.safewrite.restore import plan_restore, restore

    hub = tmp_path / "hub"
    shutil.copytree(HUB, hub)
    _applied_then_edited(hub, capsys)
    home = Path(os.environ["MEMHUB_HOME"])
    shown = plan_restore(home)
    later = _claude_json().read_text().replace("added-later", "added-after-the-preview")
    _claude_json().write_text(later)
    with pytest.raises(StaleTargetError, match="changed since the preview"):
        restore(home, shown)
    assert _claude_json().read_text() == later
    assert not (home / "recovery" / "archives").exists()


def _on_a_terminal(answer: bytes, *args: str) -> tuple[int, str]:
    """Run memhub with a real pseudo-terminal as stdin and answer its prompt."""
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    memhub = Path(sys.executable).parent / "memhub"
    with subprocess.Popen(
        [str(memhub), *args], stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    ) as proc:
        os.close(follower)
        os.write(leader, answer + b"\n")
        output, _ = proc.communicate(timeout=60)
    os.close(leader)
    return proc.returncode, output.decode()


def test_restore_asks_on_a_terminal(tmp_path: Path, capsys) -> None:
    hub = tmp_path / "hub"
    shutil.copytree(HUB, hub)
    edited = _applied_then_edited(hub, capsys)
    code, output = _on_a_terminal(b"n", "restore", "--originals")
    assert code == 1 and "Restore these" in output and "nothing written" in output
    assert _claude_json().read_text() == edited
    code, output = _on_a_terminal(b"y", "restore", "--originals")
    assert code == 0, output
    assert "archived the state it replaced as " in output
    assert _claude_json().read_text() == SEED


# -- import then apply: the person's instruction text is adopted, not written twice ----------

MY_TEXT = "# My rules\n\nAlways run the tests before you commit.\n"


def test_import_then_apply_adopts_the_instruction_text_instead_of_duplicating_it(
    tmp_path: Path, capsys
) -> None:
    claude_md = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "CLAUDE.md"
    claude_md.parent.mkdir(parents=True)
    claude_md.write_text(MY_TEXT)
    hub = tmp_path / "hub"
    code, _, err = run(capsys, "import", "--into", str(hub), "--hosts", "claude", "--yes")
    assert code == 0, err
    assert (hub / "instructions" / "AGENTS.md").read_text() == MY_TEXT
    code, _, err = run(capsys, "apply", str(hub), "--hosts", "claude,codex")
    assert code == 0, err
    text = claude_md.read_text()
    assert text.count("Always run the tests") == 1, text
    assert text == f"<!-- memhub:begin {hub.name} -->\n{MY_TEXT}<!-- memhub:end {hub.name} -->\n"
    codex_md = Path(os.environ["CODEX_HOME"]) / "AGENTS.md"
    assert codex_md.read_text().count("Always run the tests") == 1
    code, out, _ = run(capsys, "plan", str(hub), "--hosts", "claude,codex", "--json")
    assert {t["kind"] for t in json.loads(out)["data"]["targets"]} == {"unchanged"}
    # the hub is the source now: an edit reaches the adopted block, in place
    edited = MY_TEXT + "Keep commits small.\n"
    (hub / "instructions" / "AGENTS.md").write_text(edited)
    assert run(capsys, "apply", str(hub), "--hosts", "claude,codex")[0] == 0
    text = claude_md.read_text()
    assert text.count("Always run the tests") == 1 and "Keep commits small." in text
    # uninstall gives the person their own text back, as it was before memhub
    assert run(capsys, "uninstall", str(hub), "--hosts", "claude,codex")[0] == 0
    assert claude_md.read_text() == MY_TEXT
    assert not codex_md.exists()


def test_adopting_needs_the_whole_text_verbatim_outside_every_block() -> None:
    from memhub.compiler.formats import textblock

    around = "intro\n" + MY_TEXT + "outro"
    new, wrapped = textblock.adopt(around, "hub", MY_TEXT) or ("", "")
    assert wrapped == MY_TEXT
    assert new == "intro\n" + textblock.render("hub", MY_TEXT) + "outro"
    assert textblock.unwrap(new, "hub", wrapped) == around
    assert textblock.adopt("x" + MY_TEXT, "hub", MY_TEXT) is None, "not at a line start"
    assert textblock.adopt(MY_TEXT.replace("tests", "test"), "hub", MY_TEXT) is None
    inside = textblock.render("other", MY_TEXT)
    assert textblock.adopt(inside, "hub", MY_TEXT) is None, "another plugin's block"


def test_restore_with_nothing_kept_says_so_and_writes_nothing(capsys) -> None:
    code, out, _ = run(capsys, "restore", "--originals")
    assert code == 0 and "kept no originals yet; nothing to restore" in out
    assert not (Path(os.environ["MEMHUB_HOME"]) / "recovery").exists()
