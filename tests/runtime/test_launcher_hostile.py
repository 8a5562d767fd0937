"""The MCP launcher under hostile input, run as the real process a host starts (the vendored
`python3 -S .../launcher.py` form): nothing hangs, every refusal is one line on stderr with
exit 2 and no secret value, and the server's own exit code and signals come through."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from memhub.runtime import launcher

SCRIPT = launcher.__file__
SECRET = "hunter2-s3cr3t-value"


def launch(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-S", SCRIPT, *argv],
        capture_output=True,
        text=True,
        timeout=20,
        env={"PATH": os.environ["PATH"], **(env or {})},
    )


def refused(proc: subprocess.CompletedProcess[str], *words: str) -> None:
    assert proc.returncode == 2, proc
    assert proc.stderr.startswith("memhub-launch: "), proc.stderr
    assert "Traceback" not in proc.stderr and SECRET not in proc.stderr + proc.stdout
    assert proc.stderr.count("\n") == 1, proc.stderr
    for word in words:
        assert word in proc.stderr


def needs_env_file(hub: Path) -> subprocess.CompletedProcess[str]:
    return launch("--hub", str(hub), "--server", "s", "--", "echo", "%{env:FROM_FILE}")


def test_a_fifo_env_file_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".env")
    refused(needs_env_file(tmp_path), "not a regular file", str(tmp_path / ".env"))


def test_an_env_file_linked_to_an_endless_device_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".env").symlink_to("/dev/zero")
    refused(needs_env_file(tmp_path), "not a regular file")


def test_a_huge_env_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("X=" + "a" * (launcher.MAX_ENV_BYTES + 1) + "\n")
    refused(needs_env_file(tmp_path), "bytes, over")


def test_a_non_utf8_env_file_names_its_line(tmp_path: Path) -> None:
    (tmp_path / ".env").write_bytes(b"OK=1\nFROM_FILE=\xff\xfe\n")
    refused(needs_env_file(tmp_path), f"{tmp_path / '.env'}:2: not UTF-8")


def test_a_nul_byte_in_the_env_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".env").write_bytes(b"FROM_FILE=a\0b\n")
    refused(needs_env_file(tmp_path), ":1: holds a NUL byte")


def test_a_moved_hub_names_the_missing_variable(tmp_path: Path) -> None:
    refused(needs_env_file(tmp_path / "moved-away"), "FROM_FILE", "moved-away")


def test_a_value_is_never_expanded_again(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("FROM_FILE=%{env:OTHER}\n")
    proc = launch(
        "--hub", str(tmp_path), "--server", "s", "--", "echo", "%{env:FROM_FILE}",
        env={"OTHER": SECRET},
    )  # fmt: skip
    assert proc.returncode == 0 and proc.stdout == "%{env:OTHER}\n"


def test_a_missing_command_does_not_print_its_expanded_secret() -> None:
    proc = launch("--server", "s", "--", "%{env:S}", env={"S": SECRET})
    assert proc.returncode == 127 and SECRET not in proc.stderr
    assert "cannot start '%{env:S}'" in proc.stderr and "Traceback" not in proc.stderr


def test_a_missing_working_folder_does_not_print_its_expanded_secret() -> None:
    proc = launch(
        "--server", "s", "--cwd", "/nonexistent/%{env:S}", "--", "true", env={"S": SECRET}
    )
    refused(proc, "'/nonexistent/%{env:S}'")


@pytest.mark.parametrize("argv", [["--", ""], ["--"], ["--env", "--", "--", "true"]])
def test_an_empty_or_smuggled_command_is_refused(argv: list[str]) -> None:
    refused(launch("--server", "s", *argv))


def test_the_server_replaces_the_launcher_and_its_exit_code_comes_through() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-S", SCRIPT, "--server", "s", "--", "sh", "-c", "echo $$; exit 7"],
        stdout=subprocess.PIPE,
        text=True,
    )
    out, _ = proc.communicate(timeout=20)
    assert proc.returncode == 7
    assert int(out) == proc.pid, "exec, not a child: the host's signals reach the server"


def test_a_signal_that_kills_the_server_is_the_launchers_status() -> None:
    proc = launch("--server", "s", "--", "sh", "-c", "kill -TERM $$")
    assert proc.returncode == -signal.SIGTERM
