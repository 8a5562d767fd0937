"""Asking a host's own CLI, offline and bounded: once per doctor run for the same question.

`claude mcp list` both loads Claude Code's config and starts each server; its one run
answers the `host-loader` and the `server-start` checks. A JSON-RPC app (Codex's
app-server) is sent its lines and kept open until it has answered.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import IO

from memhub.compiler.doctor.records import Run
from memhub.compiler.hosts import INSTALLERS

TIMEOUT_S = 60
# Offline: a host CLI's own requests (updates, telemetry, server probes) go to a closed
# loopback port through the proxy variables every one of them honours.
_OFFLINE_PROXY = "http://127.0.0.1:9"
OFFLINE = {
    **{name: _OFFLINE_PROXY for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy")},
    "NO_PROXY": "",
    "no_proxy": "",
}


@dataclass(frozen=True, slots=True)
class Answer:
    returncode: int
    stdout: str
    stderr: str


def host_executable(host: str, env: Mapping[str, str]) -> str | None:
    names = INSTALLERS[host].executables
    return next((found for n in names if (found := shutil.which(n, path=env.get("PATH")))), None)


def ask(
    run: Run,
    argv: list[str],
    env: Mapping[str, str],
    send: tuple[str, ...] = (),
    answered: Callable[[str], bool] | None = None,
) -> Answer | str:
    """The CLI's answer, or why there is none (it timed out, it did not start). User scope
    runs it in an empty folder, so no project config (and no trusted folder) joins in."""
    key = (tuple(argv), tuple(sorted(env.items())), send)
    if key not in run.asked:
        with tempfile.TemporaryDirectory(prefix="memhub-doctor-") as empty:
            cwd = str(run.scope.base) if run.scope.kind == "project" else empty
            full = {**run.env, **OFFLINE, **env}
            run.asked[key] = _converse(argv, full, cwd, send, answered)
    found: Answer | str = run.asked[key]
    return found


def _converse(
    argv: list[str],
    env: Mapping[str, str],
    cwd: str,
    send: tuple[str, ...],
    answered: Callable[[str], bool] | None,
) -> Answer | str:
    if answered is None:
        try:
            proc = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True,
                                  timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)  # fmt: skip
        except subprocess.TimeoutExpired:
            return f"gave no answer in {TIMEOUT_S} s"
        except OSError as exc:
            return f"did not start: {exc.strerror}"
        return Answer(proc.returncode, proc.stdout, proc.stderr)
    with tempfile.TemporaryFile() as err:
        try:
            proc2 = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=err)  # fmt: skip
        except OSError as exc:
            return f"did not start: {exc.strerror}"
        return _talk(proc2, send, answered, err)


def _talk(
    proc: subprocess.Popen[bytes],
    send: tuple[str, ...],
    answered: Callable[[str], bool],
    err: IO[bytes],
) -> Answer | str:
    """Send the lines, read until the answer, then end the app (its stdin stays open till
    then: Codex's app-server answers nothing once its input has ended)."""
    killer = threading.Timer(TIMEOUT_S, proc.kill)
    killer.start()
    lines: list[str] = []
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(line + "\n" for line in send).encode())
        proc.stdin.flush()
        for raw in proc.stdout:
            lines.append(raw.decode("utf-8", "replace"))
            if answered(lines[-1]):
                break
        else:
            if not killer.is_alive():
                return f"gave no answer in {TIMEOUT_S} s"
    except OSError as exc:
        return f"stopped: {exc.strerror}"
    finally:
        killer.cancel()
        proc.kill()
        proc.wait()
    err.seek(0)
    stderr = err.read().decode("utf-8", "replace")
    return Answer(proc.returncode, "".join(lines), stderr)


def shown(exe: str, args: tuple[str, ...]) -> str:
    return " ".join([os.path.basename(exe), *args])
