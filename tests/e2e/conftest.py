"""Fixtures for the real-host e2e tests (see tests/e2e/README.md).

* ``claude_cli`` / ``codex_cli`` / ``gemini_cli``: the pinned real CLIs from the npm registry
  (hostcli.PINS).
  Skipped with a reason when they cannot be had; with ``CI=true`` that is a failure instead.
* ``isolated_home``: a temp HOME (CLAUDE_CONFIG_DIR, CODEX_HOME, XDG dirs under it) and a
  scrubbed environment, so no test reads or writes the real user's host configuration.
* ``fake_anthropic`` / ``fake_responses`` / ``fake_gemini``: scripted fake Anthropic Messages /
  OpenAI Responses / Gemini v1beta APIs on 127.0.0.1 (ephemeral port), for Claude Code, Codex
  and Gemini CLI.
* ``bundle_for``: builds a hub with the real ``memhub build`` once per session.
* ``cpu_load``: two busy processes for a module's tests (the memory e2e use it): a busy
  machine is where the memory server once lost its sessions.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from . import harness, hostcli
from .fake_anthropic import FakeAnthropic
from .fake_gemini import FakeGemini
from .fake_responses import FakeResponses
from .refusing_proxy import RefusingProxy

# Variables passed from the outer environment to host CLIs; everything else is dropped.
_PASS_THROUGH = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM", "SYSTEMROOT")

# Prefixes of outer variables that must never reach a host CLI, nor this process while a
# test runs (real credentials, config locations, proxies).
_SCRUB_PREFIXES = (
    "ANTHROPIC_",
    "CLAUDE",
    "CODEX_",
    "OPENAI_",
    "GEMINI_",
    "GOOGLE_",
    "CURSOR_",
    "AWS_",
    "AZURE_",
    "VERTEX_",
    "XDG_",
    "MEMHUB_HOME",
    "MCP_",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "NODE_OPTIONS",
    "NPM_CONFIG_",
    "npm_config_",
    "GIT_",
)


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() == "true"


def _unavailable(reason: str) -> None:
    if _in_ci():
        pytest.fail(f"{reason} (CI=true: a missing host CLI fails the run instead of skipping)")
    pytest.skip(reason)


def _host_cli(name: str) -> Path:
    try:
        cli = hostcli.ensure_cli(name)
    except hostcli.HostCliError as exc:
        _unavailable(f"{name} CLI unavailable: {exc}")
        raise  # unreachable; pytest.skip/fail raise
    if cli is None:
        package, version, _ = hostcli.PINS[name]
        _unavailable(f"{name} CLI unavailable: npm is not on PATH to install {package}@{version}")
    assert cli is not None
    return cli.path


@pytest.fixture(scope="session")
def refusing_proxy() -> Iterator[RefusingProxy]:
    """One refusing loopback proxy for the session; every isolated home routes through it."""
    proxy = RefusingProxy().start()
    try:
        yield proxy
    finally:
        proxy.stop()


@pytest.fixture(scope="session")
def claude_cli() -> Path:
    return _host_cli("claude")


@pytest.fixture(scope="session")
def codex_cli() -> Path:
    return _host_cli("codex")


@pytest.fixture(scope="session")
def gemini_cli() -> Path:
    return _host_cli("gemini")


@dataclass
class IsolatedHome:
    root: Path
    home: Path
    claude_dir: Path
    codex_home: Path
    env: dict[str, str]

    def with_env(self, **extra: str) -> dict[str, str]:
        return {**self.env, **extra}


@pytest.fixture
def isolated_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, refusing_proxy: RefusingProxy
) -> Iterator[IsolatedHome]:
    root = tmp_path / "iso"
    home = root / "home"
    claude_dir = home / ".claude"
    codex_home = home / ".codex"
    tmp = root / "tmp"
    for d in (
        claude_dir,
        codex_home,
        tmp,
        home / ".config",
        home / ".cache",
        home / ".local" / "share",
        home / ".local" / "state",
    ):
        d.mkdir(parents=True, exist_ok=True)

    env = {k: os.environ[k] for k in _PASS_THROUGH if k in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(
        HOME=str(home),
        USER=os.environ.get("USER", "e2e"),
        SHELL=shutil.which("bash") or "/bin/sh",
        TMPDIR=str(tmp),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        CLAUDE_CONFIG_DIR=str(claude_dir),
        CODEX_HOME=str(codex_home),
        MEMHUB_HOME=str(home / ".memhub"),
        HTTPS_PROXY=refusing_proxy.url,
        HTTP_PROXY=refusing_proxy.url,
        https_proxy=refusing_proxy.url,
        http_proxy=refusing_proxy.url,
        NO_PROXY="127.0.0.1,localhost,::1",
        no_proxy="127.0.0.1,localhost,::1",
        # Claude Code: no updater, telemetry, error reports or other non-essential traffic.
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_TELEMETRY="1",
        DISABLE_ERROR_REPORTING="1",
        # git inside temp repos: no system or user config, a fixed identity.
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="memhub-e2e",
        GIT_AUTHOR_EMAIL="e2e@example.invalid",
        GIT_COMMITTER_NAME="memhub-e2e",
        GIT_COMMITTER_EMAIL="e2e@example.invalid",
    )

    # This process too: code run in-process during the test sees only the temp home.
    for key in list(os.environ):
        if key.startswith(_SCRUB_PREFIXES):
            monkeypatch.delenv(key, raising=False)
    for key in (
        "HOME",
        "TMPDIR",
        "XDG_CONFIG_HOME",
        "XDG_CACHE_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "MEMHUB_HOME",
    ):
        monkeypatch.setenv(key, env[key])

    yield IsolatedHome(root=root, home=home, claude_dir=claude_dir, codex_home=codex_home, env=env)


@pytest.fixture
def fake_anthropic() -> Iterator[FakeAnthropic]:
    """A started fake Anthropic API; set ``.bash_commands`` before running the host."""
    server = FakeAnthropic().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def fake_responses() -> Iterator[FakeResponses]:
    """A started fake OpenAI Responses API; set ``.shell_commands`` before running Codex."""
    server = FakeResponses().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def fake_gemini() -> Iterator[FakeGemini]:
    """A started fake Gemini API; set ``.shell_commands`` before running Gemini CLI."""
    server = FakeGemini().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def git_repo(isolated_home: IsolatedHome) -> Path:
    """An empty git repository (one empty commit) to run hosts in."""
    repo = isolated_home.root / "repo"
    repo.mkdir()
    harness.run(["git", "init", "-q", repo], env=isolated_home.env, check=True, timeout=30)
    harness.run(
        ["git", "-C", repo, "commit", "-q", "--allow-empty", "-m", "init"],
        env=isolated_home.env,
        check=True,
        timeout=30,
    )
    return repo


@pytest.fixture(scope="session")
def bundle_for(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Path]:
    """``bundle_for(hub_dir)`` -> the bundle that ``memhub build`` wrote for that hub.

    Each hub is built once per session; tests only read the bundle (hosts copy on install).
    """
    built: dict[Path, Path] = {}

    def build(hub: Path) -> Path:
        hub = hub.resolve()
        if hub not in built:
            if not harness.memhub_importable():
                pytest.fail(
                    "memhub is not importable from this Python; install the checkout first: "
                    "pip install -e '.[test]'"
                )
            out = tmp_path_factory.mktemp(f"bundle-{hub.name}") / "bundle"
            harness.build_bundle(hub, out)
            built[hub] = out
        return built[hub]

    return build


# Busy until its parent (this test process) is gone: a run killed before the fixture's
# teardown (a CI timeout, ^C twice) must not leave both cores spinning for ever.
BUSY = "import os\nparent = os.getppid()\nwhile os.getppid() == parent: pass"
BUSY_PROCESSES = 2  # both cores of a 2-core machine (a developer's VM, a small CI runner)


@pytest.fixture(scope="module")
def cpu_load() -> Iterator[None]:
    """Two processes kept busy while the module's tests run, at the tests' own priority, as
    other work on a developer's machine or a shared CI runner does: the memory server must
    start and be offered in time all the same (a slow SDK import once cost Claude Code its
    memory tools and Codex its first turn's)."""
    busy = [
        subprocess.Popen([sys.executable, "-c", BUSY], stdin=subprocess.DEVNULL)
        for _ in range(BUSY_PROCESSES)
    ]
    try:
        yield
    finally:
        for process in busy:
            process.kill()
        for process in busy:
            process.wait()
