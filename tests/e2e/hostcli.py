"""Install pinned real host CLIs from the npm registry and locate their executables.

The CLIs are cached per package and version under ``$MEMHUB_HOST_CACHE`` (default
``~/.cache/memhub/host-clis``) as ``<cache>/<pkg>@<version>/node_modules/.bin/<bin>``.
An ``fcntl`` lock per package keeps parallel test processes from installing twice.

Usage from the command line (warms the cache, prints the paths)::

    python tests/e2e/hostcli.py [claude|codex|gemini ...]
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# One place for the pinned host CLI versions: short name -> (npm package, version, bin name).
PINS: dict[str, tuple[str, str, str]] = {
    "claude": ("@anthropic-ai/claude-code", "2.1.332", "claude"),
    "codex": ("@openai/codex", "0.171.0", "codex"),
    "gemini": ("@google/gemini-cli", "0.61.0", "gemini"),
    "opencode": ("opencode-ai", "1.18.33", "opencode"),
    "copilot": ("@github/copilot", "1.0.102", "copilot"),
}

# The default cache is resolved once, at import (test collection), from the real home:
# tests later point HOME at temp dirs, and the CLIs must not be installed again per test.
_DEFAULT_CACHE = Path.home() / ".cache" / "memhub" / "host-clis"

INSTALL_TIMEOUT_S = 600
PROBE_TIMEOUT_S = 60


@dataclass(frozen=True)
class HostCli:
    name: str
    package: str
    version: str
    path: Path


class HostCliError(RuntimeError):
    """The CLI could not be installed or does not run; the message says why."""


def cache_root() -> Path:
    env = os.environ.get("MEMHUB_HOST_CACHE")
    if env:
        return Path(env).expanduser()
    return _DEFAULT_CACHE


def _safe_dirname(package: str, version: str) -> str:
    # "@scope/name@1.2.3" -> "@scope+name@1.2.3": one directory level, still recognisable.
    return f"{package.replace('/', '+')}@{version}"


def install_dir(name: str) -> Path:
    package, version, _ = PINS[name]
    return cache_root() / _safe_dirname(package, version)


def _bin_path(name: str) -> Path:
    return install_dir(name) / "node_modules" / ".bin" / PINS[name][2]


def _installed_version(prefix: Path, package: str) -> str | None:
    import json

    pkg_json = prefix / "node_modules" / Path(*package.split("/")) / "package.json"
    try:
        return json.loads(pkg_json.read_text()).get("version")
    except (OSError, ValueError):
        return None


def _probe_version(path: Path) -> str:
    proc = subprocess.run(
        [str(path), "--version"],
        capture_output=True,
        text=True,
        timeout=PROBE_TIMEOUT_S,
        stdin=subprocess.DEVNULL,
    )
    if proc.returncode != 0:
        raise HostCliError(
            f"{path} --version exited {proc.returncode}: {(proc.stderr or proc.stdout).strip()[:2000]}"
        )
    return proc.stdout.strip()


def ensure_cli(name: str) -> HostCli | None:
    """Return the pinned CLI ``name`` (installing it first if needed).

    Returns None when ``npm`` is not on PATH. Raises HostCliError when npm is there but
    the install fails or the installed binary does not report the pinned version.
    """
    package, version, _bin = PINS[name]
    prefix = install_dir(name)
    exe = _bin_path(name)
    if not (exe.exists() and _installed_version(prefix, package) == version):
        npm = shutil.which("npm")
        if npm is None:
            return None
        prefix.mkdir(parents=True, exist_ok=True)
        lock_path = prefix.parent / (prefix.name + ".lock")
        with open(lock_path, "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            # Another process may have finished the install while we waited.
            if not (exe.exists() and _installed_version(prefix, package) == version):
                cmd = [
                    npm,
                    "install",
                    "--no-audit",
                    "--no-fund",
                    "--prefix",
                    str(prefix),
                    f"{package}@{version}",
                ]
                try:
                    proc = subprocess.run(
                        cmd,
                        capture_output=True,
                        text=True,
                        timeout=INSTALL_TIMEOUT_S,
                        stdin=subprocess.DEVNULL,
                    )
                except subprocess.TimeoutExpired as exc:
                    raise HostCliError(
                        f"{' '.join(cmd)} timed out after {INSTALL_TIMEOUT_S}s"
                    ) from exc
                if proc.returncode != 0:
                    raise HostCliError(
                        f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
                    )
                if not exe.exists():
                    raise HostCliError(
                        f"npm installed {package}@{version} but {exe} is missing:\n{proc.stderr[-4000:]}"
                    )
    reported = _probe_version(exe)
    if version not in reported:
        raise HostCliError(f"{exe} --version says {reported!r}, expected {version}")
    return HostCli(name=name, package=package, version=version, path=exe)


def main(argv: list[str]) -> int:
    names = argv or sorted(PINS)
    rc = 0
    for name in names:
        try:
            cli = ensure_cli(name)
        except HostCliError as exc:
            print(f"{name}: ERROR {exc}", file=sys.stderr)
            rc = 1
            continue
        print(f"{name}: {cli.path if cli else 'unavailable (npm not on PATH)'}")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
