"""runtime/launcher.py on its own: its `.env` reading agrees with the one apply uses, and its
template syntax round-trips what the compiler writes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from dotenv import dotenv_values
from memhub.compiler.hosts.launcher import launch_template
from memhub.runtime import launcher

# Lines a person writes in a .env: apply checks leaks with python-dotenv's reading of them,
# so the launcher must hand the server the same values.
ENV_LINES = [
    "PLAIN=value-1",
    "export EXPORTED=value-2",
    "SPACED = value-3",
    "SINGLE='single quoted # not a comment'",
    'DOUBLE="double \\"quoted\\" \\\\ with\\nnewline"',
    "COMMENTED=value-4 # a comment",
    "HASH=val#ue",
    "EMPTY=",
    "# COMMENT=not-a-value",
    "",
    "URL=https://example.com/a?b=c&d=e",
    "EQUALS=a=b=c",
    "  INDENTED=value-5",
    "TAB=\tvalue-6",
]


def test_the_launcher_reads_a_env_file_as_python_dotenv_does(tmp_path: Path) -> None:
    text = "\n".join(ENV_LINES) + "\n"
    (tmp_path / ".env").write_text(text)
    expected = {
        k: v
        for k, v in dotenv_values(tmp_path / ".env", interpolate=False).items()
        if v is not None
    }
    assert launcher.parse_env_file(text) == expected


@pytest.mark.parametrize(
    "hub_text",
    ["plain", "${env:TOKEN}", "Bearer ${env:TOKEN}", "%{env:LITERAL} and ${env:TOKEN}", "50%{x}"],
)
def test_a_template_expands_to_the_hub_value(hub_text: str) -> None:
    template = launch_template(hub_text, plugin_root="R", plugin_data="D")
    values = {"TOKEN": "t0ken"}
    assert launcher.expand(template, values.__getitem__) == hub_text.replace(
        "${env:TOKEN}", "t0ken"
    )


def test_bad_launcher_arguments_get_one_message_and_exit_2() -> None:
    for argv in (
        ["--server", "x"],
        ["--bogus", "1", "--", "true"],
        ["--env", "NOEQUALS", "--", "true"],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "memhub.runtime.launcher", *argv],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert proc.returncode == 2, (argv, proc)
        assert proc.stderr.startswith("memhub-launch: ") and "Traceback" not in proc.stderr


def test_a_missing_server_command_says_how_to_fix_it(capsys: pytest.CaptureFixture[str]) -> None:
    code = launcher.main(["--server", "s", "--", "/nonexistent/memhub-probe-server"])
    assert code == 127
    assert "cannot start '/nonexistent/memhub-probe-server'" in capsys.readouterr().err


def test_plugin_root_is_the_folder_the_vendored_launcher_sits_in(tmp_path: Path) -> None:
    """Codex expands no ${PLUGIN_ROOT} in a plugin server's command line: the vendored
    launcher resolves %{plugin_root} from its own place, `<root>/memhub_runtime/`."""
    root = tmp_path / "plugin"
    (root / "memhub_runtime").mkdir(parents=True)
    (root / "memhub_runtime" / "launcher.py").write_bytes(Path(launcher.__file__).read_bytes())
    template = launch_template(
        "${plugin_root}/bin/tool", plugin_root="%{plugin_root}", plugin_data=""
    )
    start = [sys.executable, "-S", str(root / "memhub_runtime" / "launcher.py"), "--server", "s"]
    proc = subprocess.run(
        [*start, "--", sys.executable, "-c", "import sys; print(sys.argv[1])", template],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"{root}/bin/tool"
    assert launcher.to_hub(template) == "${plugin_root}/bin/tool"
