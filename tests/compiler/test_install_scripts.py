"""Installed hooks run this installation's own interpreter and runtime by absolute path.

After the Quickstart memhub is in .venv, which is not on the PATH a host gives its hooks; a
bare `memhub-hook` or `python3` then fails (or, as a pyenv shim, costs 6.9 interpreter
starts) on every event. The hook commands `memhub apply` writes are run here from a shell
whose PATH lacks the venv. The launcher is still a console script, named by absolute path.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest
from memhub.compiler.cli.main import main
from memhub.hubspec.statsig import RACY_NS

BARE_PATH = "/usr/local/bin:/usr/bin:/bin"
SCRIPTS = Path(sysconfig.get_path("scripts"))


def hub_with_a_handler(tmp_path: Path) -> Path:
    hub = tmp_path / "hub"
    hub.mkdir()
    (hub / "hub.yaml").write_text(
        "version: 1\n"
        "plugin: {name: hook-probe, version: 0.1.0, description: Hook probe}\n"
        "marketplace: {name: probe-market, owner: {name: Probe}}\n"
        "hooks:\n  - {id: health, event: session_start, handler: capture.health}\n"
    )
    return hub


def test_installed_hooks_run_this_installations_memhub_hook(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hub = hub_with_a_handler(tmp_path)
    code = main(["apply", str(hub), "--scope", "user", "--hosts", "claude,codex,gemini"])
    assert code == 0, capsys.readouterr()
    home = Path(os.environ["HOME"])
    files = {
        "claude": Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json",
        "codex": Path(os.environ["CODEX_HOME"]) / "hooks.json",
        "gemini": home / ".gemini" / "settings.json",
    }
    for host, path in files.items():
        hooks = json.loads(path.read_text())["hooks"]["SessionStart"]
        command = hooks[0]["hooks"][0]["command"]
        python, flag, script, *_ = shlex.split(command)
        assert (python, flag) == (sys.executable, "-S"), (host, command)
        assert Path(script).is_file() and Path(script).name == "hook.py", (host, command)
        proc = subprocess.run(
            ["/bin/sh", "-c", command],
            input="{}",
            env={"PATH": BARE_PATH, "HOME": str(home), "MEMHUB_HOME": str(tmp_path / "m")},
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert proc.returncode == 0 and proc.stdout.strip().startswith("{"), (host, proc)


# -- a memhub that pip never installed says what it writes bare -------------------------


def hub_with_a_hook_and_a_launched_server(tmp_path: Path) -> Path:
    """A handler hook (memhub-hook) and a server Codex can only start through the
    launcher (a renamed variable: memhub-launch)."""
    hub = hub_with_a_handler(tmp_path)
    with (hub / "hub.yaml").open("a") as out:
        out.write(
            "mcp:\n  servers:\n    github:\n      command: github-mcp\n"
            '      env: {GITHUB_PERSONAL_ACCESS_TOKEN: "${env:GITHUB_TOKEN}"}\n'
        )
    return hub


def uninstalled_python(tmp_path: Path) -> Path:
    """A real interpreter that imports this memhub but has no console scripts beside it,
    as when memhub runs from a source tree pip never installed: a fresh venv whose only
    package path is this one's site-packages."""
    venv = tmp_path / "bare-venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import sysconfig; print(sysconfig.get_path('purelib'))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    here = sysconfig.get_path("purelib")
    Path(purelib, "memhub-here.pth").write_text(f"import site; site.addsitedir({here!r})\n")
    assert not (venv / "bin" / "memhub-hook").exists()
    return venv / "bin" / "python"


RUN_MEMHUB = "import sys; from memhub.compiler.cli.main import main; sys.exit(main())"


def test_apply_warns_when_the_launcher_names_a_bare_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An uninstalled memhub has no scripts: the launcher is named bare (and said so), while
    hooks need none (its interpreter and source tree, by absolute path)."""
    hub = hub_with_a_hook_and_a_launched_server(tmp_path)
    python = uninstalled_python(tmp_path)
    proc = subprocess.run(
        [str(python), "-c", RUN_MEMHUB, "apply", str(hub), "--hosts", "claude,codex", "--json"],
        cwd=tmp_path,
        env={**os.environ, "PATH": BARE_PATH},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    warnings = json.loads(proc.stdout)["warnings"]
    assert not [w for w in warnings if "`memhub-hook` by bare name" in w]
    launch_warning = next(w for w in warnings if "`memhub-launch` by bare name" in w)
    assert "config.toml" in launch_warning
    assert "Fix: install memhub with pip" in launch_warning
    settings = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json"
    command = json.loads(settings.read_text())["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert shlex.split(command)[:2] == [str(python), "-S"]


def test_an_installed_memhub_warns_of_no_bare_script(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hub = hub_with_a_hook_and_a_launched_server(tmp_path)
    code = main(["apply", str(hub), "--hosts", "claude,codex", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert not [w for w in json.loads(out)["warnings"] if "bare name" in w]


def test_installing_memhub_after_a_bare_apply_rewrites_the_commands(tmp_path: Path) -> None:
    """The fix the warning gives works: once pip put the scripts beside the interpreter,
    the next apply names them by path (a remembered no-op must not replay the old answer)."""
    hub = hub_with_a_hook_and_a_launched_server(tmp_path)
    python = uninstalled_python(tmp_path)

    def apply() -> subprocess.CompletedProcess[str]:
        proc = subprocess.run(
            [str(python), "-c", RUN_MEMHUB, "apply", str(hub), "--hosts", "codex"],
            cwd=tmp_path,
            env={**os.environ, "PATH": BARE_PATH},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        return proc

    assert "`memhub-launch` by bare name" in apply().stderr
    time.sleep(RACY_NS / 1e9 + 0.2)  # old enough that the no-op below is remembered
    assert "`memhub-launch` by bare name" in apply().stderr, "a no-op says it again"
    for name in ("memhub-hook", "memhub-launch"):  # what `pip install` puts there
        script = python.parent / name
        script.write_text((SCRIPTS / name).read_text())
        script.chmod(0o755)
    assert "bare name" not in apply().stderr
    config = (Path(os.environ["CODEX_HOME"]) / "config.toml").read_text()
    assert f'"{python.parent / "memhub-launch"}"' in config


def test_hooks_name_the_interpreter_that_applied_them(tmp_path: Path) -> None:
    """Another interpreter applying the same hub rewrites the hook commands (a remembered
    no-op of the first is not replayed), and a path with a space stays one word."""
    hub = hub_with_a_handler(tmp_path)
    spaced = tmp_path / "with space"
    spaced.mkdir()
    python = uninstalled_python(spaced)
    settings = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "settings.json"

    def apply(interpreter: str) -> list[str]:
        proc = subprocess.run(
            [interpreter, "-c", RUN_MEMHUB, "apply", str(hub), "--hosts", "claude"],
            cwd=tmp_path,
            env={**os.environ, "PATH": BARE_PATH},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        hooks = json.loads(settings.read_text())["hooks"]["SessionStart"]
        return shlex.split(hooks[0]["hooks"][0]["command"])

    assert apply(sys.executable)[0] == sys.executable
    time.sleep(RACY_NS / 1e9 + 0.2)  # old enough that a no-op would be remembered
    assert apply(sys.executable)[0] == sys.executable
    words = apply(str(python))
    assert words[:2] == [str(python), "-S"] and " " in words[0]
    assert words[3:] == ["claude", "SessionStart", "capture.health"]


def test_the_noop_memo_is_keyed_on_the_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    from memhub.compiler.install import noopmemo

    key = noopmemo.memo_key(Path("hub.yaml"), {}, {})
    monkeypatch.setattr(sys, "executable", "/elsewhere/bin/python3")
    assert noopmemo.memo_key(Path("hub.yaml"), {}, {}) != key


def test_a_bare_memory_server_command_is_warned_of(tmp_path: Path) -> None:
    """An uninstalled memhub (no scripts beside its interpreter) names the memory server
    bare too: the warning says so; an installed one names it by path and says nothing."""
    from memhub.compiler.install.planner import gather_entries
    from memhub.compiler.install.scope import Scope
    from memhub.compiler.install.scripts import bare_script_warnings
    from memhub.hubspec import load

    hub = hub_with_a_handler(tmp_path)
    with (hub / "hub.yaml").open("a") as out:
        out.write("memory: {server: read}\n")
    model = load(hub)
    bare = Scope("user", tmp_path / "home", env={}, scripts=None)
    entries, _ = gather_entries(model, bare, ["codex"])
    (warning,) = [w for w in bare_script_warnings(entries, bare) if "`memhub` by" in w]
    assert "the memory server (`memory:`) runs `memhub` by bare name" in warning, warning
    assert str(tmp_path / "home" / ".codex" / "config.toml") in warning
    installed = Scope("user", tmp_path / "home", env={}, scripts=tmp_path / "bin")
    entries, _ = gather_entries(model, installed, ["codex"])
    assert not bare_script_warnings(entries, installed)
    (server,) = [e.value for e in entries if e.path[-1:] == ("memhub-memory",)]
    assert server["command"] == str(tmp_path / "bin" / "memhub")
