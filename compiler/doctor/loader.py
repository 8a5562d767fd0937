"""The host-loader check: each host whose CLI is on PATH loads its own config."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping

from memhub.compiler.doctor.records import LOADER, Run
from memhub.compiler.hosts import INSTALLERS

LOADER_TIMEOUT_S = 60
# Offline: a host CLI's own requests (updates, telemetry, server probes) go to a closed
# loopback port through the proxy variables every one of them honours.
_OFFLINE_PROXY = "http://127.0.0.1:9"
_OFFLINE = {
    **{name: _OFFLINE_PROXY for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy")},
    "NO_PROXY": "",
    "no_proxy": "",
}


def _host_executable(host: str, env: Mapping[str, str]) -> str | None:
    names = INSTALLERS[host].executables
    return next((found for n in names if (found := shutil.which(n, path=env.get("PATH")))), None)


def check_loader(run: Run, host: str) -> None:
    """Ask the host's own CLI to load its config: the only oracle for what it accepts."""
    loader = INSTALLERS[host].loader
    exe = _host_executable(host, run.env) if loader else None
    if loader is None or exe is None:
        return  # no loader, or not installed here: nothing to ask, and not a failure
    args = loader.args
    shown = " ".join([os.path.basename(exe), *args])
    env = {**run.env, **_OFFLINE, **loader.env}
    with tempfile.TemporaryDirectory(prefix="memhub-doctor-") as empty:
        # User scope: an empty folder, so no project config (and no trusted folder) joins in.
        cwd = str(run.scope.base) if run.scope.kind == "project" else empty
        try:
            proc = subprocess.run(
                [exe, *args],
                env=env,
                cwd=cwd,
                capture_output=True,
                text=True,
                timeout=LOADER_TIMEOUT_S,
                stdin=subprocess.DEVNULL,
            )
        except subprocess.TimeoutExpired:
            run.add(host, LOADER, "warn", exe, f"`{shown}` gave no answer in {LOADER_TIMEOUT_S} s")
            return
        except OSError as exc:
            run.add(host, LOADER, "warn", exe, f"`{shown}` did not start: {exc.strerror}")
            return
    refusal = loader.refusal(proc.returncode, proc.stdout, proc.stderr)
    if refusal is None:
        run.add(host, LOADER, "ok", exe, f"`{shown}` loads the config")
        return
    run.add(
        host,
        LOADER,
        "fail",
        exe,
        f"`{shown}` refuses the config: {refusal}",
        "fix the entry it names; if memhub wrote it, `memhub undo` reverts the last apply",
    )
