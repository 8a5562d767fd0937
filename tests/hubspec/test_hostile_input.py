"""Hostile hubs and targets: the real `memhub` CLI refuses each one fast and cleanly.

Every case builds its input under tmp_path (a hub folder, and for install cases a HOME with
host files and a MEMHUB_HOME), then runs `python -m memhub.compiler.cli.main ...` as a real
subprocess with a timeout, and asserts:

  * exit code 2;
  * stderr names the place (`hub.yaml:<line>:`, a file path, a variable) the case expects;
  * no `Traceback` anywhere, and no crash log under MEMHUB_HOME;
  * the command took less than 2 seconds (CLI start-up included);
  * nothing the command was refused for was written (the host files and the hub folder
    are byte-identical afterwards).

Cases that need a file the CLI cannot read run the CLI without the capabilities that let
root read anything (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), so they prove the refusal when
the suite runs as root too.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from memhub.hubspec.statsig import RACY_NS

LIMIT_S = 2.0

MINIMAL = """version: 1
plugin:
  name: hostile-hub
  version: 0.1.0
  description: A hub for the hostile-input corpus.
  author: {name: Ann}
marketplace:
  name: hostile-market
  owner: {name: Ann}
"""
WITH_SERVER = (
    MINIMAL
    + """mcp:
  servers:
    files:
      command: npx
      args: ["-y", "server-filesystem", "${env:FILES_ROOT}"]
"""
)
SKILL = "---\nname: alpha\ndescription: Use when testing hostile input.\n---\n\n# alpha\n"


@dataclass
class Env:
    """One case's world: tmp_path holds hub/ and home/ (HOME, with .memhub as MEMHUB_HOME)."""

    root: Path
    extra_env: dict[str, str] = field(default_factory=dict)
    drop_read_capabilities: bool = False

    @property
    def hub(self) -> Path:
        return self.root / "hub"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def memhub_home(self) -> Path:
        return self.home / ".memhub"

    def environ(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("MEMHUB", "CLAUDE", "CODEX", "GEMINI", "CURSOR"))
        }
        env.update(HOME=str(self.home), MEMHUB_HOME=str(self.memhub_home), FILES_ROOT="/srv")
        env.update(self.extra_env)
        return env

    def write_hub(self, text: str | bytes = MINIMAL, *, skill: bool = True) -> None:
        self.hub.mkdir(parents=True, exist_ok=True)
        data = text if isinstance(text, bytes) else text.encode("utf-8")
        (self.hub / "hub.yaml").write_bytes(data)
        if skill:
            (self.hub / "skills" / "alpha").mkdir(parents=True, exist_ok=True)
            (self.hub / "skills" / "alpha" / "SKILL.md").write_text(SKILL, "utf-8")


def run_cli(env: Env, *args: str, timeout: float = 60) -> tuple[subprocess.CompletedProcess, float]:
    preexec = _without_read_capabilities if env.drop_read_capabilities else None
    start, used = time.monotonic(), _children_cpu()
    done = subprocess.run(
        [sys.executable, "-m", "memhub.compiler.cli.main", *args],
        cwd=env.root,
        env=env.environ(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        preexec_fn=preexec,
    )
    wall, cpu = time.monotonic() - start, _children_cpu() - used
    # The bound is on the CPU the command used: on a shared CI machine wall time also
    # counts other processes. Wall time still has a generous bound, so a hang fails.
    assert wall < 5 * LIMIT_S, f"took {wall:.2f} s of wall time"
    return done, cpu


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _without_read_capabilities() -> None:
    """In the child before exec: as root, drop the two capabilities that bypass file modes
    from the bounding set, so exec leaves root unable to read a mode-000 file."""
    if os.geteuid() != 0:
        return
    libc = ctypes.CDLL(None, use_errno=True)
    pr_capbset_drop, cap_dac_override, cap_dac_read_search = 24, 1, 2
    for cap in (cap_dac_override, cap_dac_read_search):
        if libc.prctl(pr_capbset_drop, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


def applied(env: Env, hosts: str = "claude,codex") -> None:
    """Set-up step: a real, successful apply (not timed)."""
    env.home.mkdir(parents=True, exist_ok=True)
    (env.home / ".claude.json").write_text('{"numStartups": 3}\n', "utf-8")
    done, _ = run_cli(env, "apply", "hub", "--scope", "user", "--hosts", hosts)
    assert done.returncode == 0, done.stderr


def snapshot(root: Path) -> dict[str, bytes | str | None]:
    """Every path under root (links not followed), skipping memhub's own folder, lock and
    caches (taking the lock is not a write to anything the case refuses)."""
    found: dict[str, bytes | str | None] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.endswith(("/.memhub", "/.memhub/lock")) or "/.memhub/cache" in rel:
            continue
        if path.is_symlink():
            found[rel] = "link:" + os.readlink(path)
        elif path.is_file():
            try:
                found[rel] = path.read_bytes() if path.stat().st_size < 1_000_000 else "big"
            except PermissionError:
                found[rel] = "unreadable"
        else:
            found[rel] = None
    return found


# --------------------------------------------------------------------------------------------
# The cases
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    id: str
    setup: Callable[[Env], None]
    where: str  # a substring of stderr that names the place
    args: tuple[str, ...] = ("validate", "hub")
    expect: str = ""  # a substring of stderr that says what is wrong


CASES: list[Case] = []


def case(id: str, where: str, args: tuple[str, ...] = ("validate", "hub"), expect: str = ""):
    def register(setup: Callable[[Env], None]) -> Callable[[Env], None]:
        CASES.append(Case(id, setup, where, args, expect))
        return setup

    return register


APPLY = ("apply", "hub", "--scope", "user", "--hosts", "claude")


def _bomb(levels: int) -> str:
    lines = ["x-lol:", '  l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for level in range(1, levels + 1):
        refs = ",".join([f"*l{level - 1}"] * 9)
        lines.append(f"  l{level}: &l{level} [{refs}]")
    return MINIMAL + "\n".join(lines) + "\n"


# ---- YAML structure -------------------------------------------------------------------------


@case("alias-bomb-9-levels", "hub.yaml:", expect="alias bomb")
def _(env: Env) -> None:
    env.write_hub(_bomb(9))


@case("alias-bomb-in-server-args", "hub.yaml:", expect="alias bomb")
def _(env: Env) -> None:
    bomb = _bomb(8).replace("x-lol:", "x-lol:", 1)
    env.write_hub(bomb + "mcp:\n  servers:\n    s:\n      command: x\n      args: *l8\n")


@case("recursive-alias-sequence", "hub.yaml:10:", expect="recursive alias")
def _(env: Env) -> None:
    env.write_hub(MINIMAL + "hosts: &h [*h]\n")


@case("recursive-alias-mapping", "hub.yaml:", expect="recursive alias")
def _(env: Env) -> None:
    env.write_hub(MINIMAL + "x-a: &a\n  k: 1\n  again: *a\n")


@case("recursive-merge-key", "hub.yaml:", expect="recursive merge")
def _(env: Env) -> None:
    env.write_hub(MINIMAL + "overrides: &o\n  claude:\n    manifest: {}\n  <<: *o\n")


@case("merge-key-bomb", "hub.yaml:")
def _(env: Env) -> None:
    # Wide merges of merges: PyYAML flattens each level; distinct keys make it grow.
    lines = ["x-m:", "  m0: &m0 {" + ", ".join(f"k{i}: {i}" for i in range(50)) + "}"]
    for level in range(1, 12):
        refs = ", ".join([f"*m{level - 1}"] * 9)
        lines.append(f"  m{level}: &m{level} {{<<: [{refs}], own{level}: 1}}")
    env.write_hub(MINIMAL + "\n".join(lines) + "\n")


@case("nested-brackets-100000", "hub.yaml:10:", expect="nested")
def _(env: Env) -> None:
    env.write_hub(MINIMAL + "hosts: " + "[" * 100_000 + "]" * 100_000 + "\n")


@case("nested-mappings-2000-block", "hub.yaml:", expect="nesting depth")
def _(env: Env) -> None:
    body = "".join("  " * i + f"k{i}:\n" for i in range(2000)) + "  " * 2000 + "v\n"
    env.write_hub(MINIMAL + "x-deep:\n" + "".join("  " + line + "\n" for line in body.split("\n")))


@case("nested-flow-150-under-limit-of-libyaml", "hub.yaml:10:", expect="nested deeper")
def _(env: Env) -> None:
    env.write_hub(MINIMAL + "x-deep: " + "[" * 150 + "]" * 150 + "\n")


@case("integer-5000-digits", "hub.yaml:1:", expect="5000 digits")
def _(env: Env) -> None:
    env.write_hub(MINIMAL.replace("version: 1", "version: " + "9" * 5000))


@case("impossible-date", "hub.yaml:4:")
def _(env: Env) -> None:
    env.write_hub(MINIMAL.replace("version: 0.1.0", "version: 2024-13-45"))


@case("python-object-tag", "hub.yaml:10:")
def _(env: Env) -> None:
    env.write_hub(MINIMAL + "skills: !!python/object/apply:os.system [ls]\n")


@case("duplicate-keys", "hub.yaml:10:", expect="duplicate key")
def _(env: Env) -> None:
    env.write_hub(MINIMAL + "version: 1\n")


@case("tab-indentation", "hub.yaml:")
def _(env: Env) -> None:
    env.write_hub(MINIMAL.replace("  name: hostile-hub", "\tname: hostile-hub"))


# ---- bytes --------------------------------------------------------------------------------


@case("binary-png-bytes", "hub.yaml:")
def _(env: Env) -> None:
    env.write_hub(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + os.urandom(4096))


@case("nul-bytes", "hub.yaml:2:")
def _(env: Env) -> None:
    env.write_hub(MINIMAL.replace("plugin:", "plugin:\x00\x00"))


@case("bom-in-the-middle", "hub.yaml:")
def _(env: Env) -> None:
    env.write_hub(MINIMAL.replace("  version: 0.1.0", "  version: \ufeff0.1.0\ufeff"))


@case("utf16-with-bom", "hub.yaml", expect="UTF-8")
def _(env: Env) -> None:
    env.write_hub(MINIMAL.encode("utf-16"))


@case("huge-string-20mb-name", "hub.yaml:3:")
def _(env: Env) -> None:
    env.write_hub(MINIMAL.replace("name: hostile-hub", "name: " + "a" * 20_000_000, 1))


@case("huge-file-300mb-sparse", "hub.yaml", expect="bytes, more than")
def _(env: Env) -> None:
    env.write_hub(MINIMAL)
    with open(env.hub / "hub.yaml", "r+b") as handle:
        handle.truncate(300 * 1024 * 1024)


# ---- the file system around the hub --------------------------------------------------------


@case("hub-yaml-is-a-fifo", "hub.yaml", expect="no hub file")
def _(env: Env) -> None:
    env.hub.mkdir(parents=True)
    os.mkfifo(env.hub / "hub.yaml")


@case("hub-yaml-is-a-directory", "hub.yaml", expect="no hub file")
def _(env: Env) -> None:
    (env.hub / "hub.yaml").mkdir(parents=True)


@case("hub-yaml-unreadable", "hub.yaml", expect="cannot be read")
def _(env: Env) -> None:
    env.write_hub()
    (env.hub / "hub.yaml").chmod(0)
    env.drop_read_capabilities = True


@case("skill-folder-symlink-loop", "skills/loop", expect="not a skill folder")
def _(env: Env) -> None:
    env.write_hub()
    (env.hub / "skills" / "loop").symlink_to("loop")


@case("skill-file-unreadable", "skills/alpha/notes.md", expect="cannot be read")
def _(env: Env) -> None:
    env.write_hub()
    notes = env.hub / "skills" / "alpha" / "notes.md"
    notes.write_text("private\n", "utf-8")
    notes.chmod(0)
    env.drop_read_capabilities = True


@case("skill-md-unreadable", "skills/alpha/SKILL.md", expect="cannot be read")
def _(env: Env) -> None:
    env.write_hub()
    (env.hub / "skills" / "alpha" / "SKILL.md").chmod(0)
    env.drop_read_capabilities = True


@case("skill-subfolder-unreadable", "skills/alpha/refs", expect="cannot be read")
def _(env: Env) -> None:
    env.write_hub()
    refs = env.hub / "skills" / "alpha" / "refs"
    refs.mkdir()
    (refs / "a.md").write_text("a\n", "utf-8")
    refs.chmod(0)
    env.drop_read_capabilities = True


@case("skill-holds-a-socket", "skills/alpha/sock", expect="not a regular file")
def _(env: Env) -> None:
    env.write_hub()
    server = socket.socket(socket.AF_UNIX)
    cwd = os.getcwd()
    os.chdir(env.hub / "skills" / "alpha")  # a short relative name: AF_UNIX paths are short
    try:
        server.bind("sock")
    finally:
        os.chdir(cwd)
        server.close()


# ---- install inputs: .env, state.json, host folders, undo ----------------------------------


@case(".env-not-utf8", ".env:2", APPLY, expect="not UTF-8")
def _(env: Env) -> None:
    env.write_hub(WITH_SERVER)
    (env.hub / ".env").write_bytes(b"A=1\nFILES_ROOT=\xff\xfe/srv\n")


@case(".env-is-a-fifo", ".env", APPLY, expect="not a regular file")
def _(env: Env) -> None:
    env.write_hub(WITH_SERVER)
    os.mkfifo(env.hub / ".env")


@case(".env-is-a-directory", ".env", APPLY, expect="not a regular file")
def _(env: Env) -> None:
    env.write_hub(WITH_SERVER)
    (env.hub / ".env").mkdir()


@case(".env-becomes-a-fifo-after-a-remembered-no-op", ".env", APPLY, expect="not a regular file")
def _(env: Env) -> None:
    env.write_hub(WITH_SERVER)
    (env.hub / ".env").write_text("FILES_ROOT=/srv\n", "utf-8")
    applied(env, hosts="claude")
    time.sleep(RACY_NS / 1e9 + 0.2)  # the no-op memo trusts only files this old (ctime too)
    done, _ = run_cli(env, *APPLY)
    assert done.returncode == 0, done.stderr
    assert list(env.memhub_home.glob("cache/noop/*.json")), "no no-op memo was remembered"
    (env.hub / ".env").unlink()
    os.mkfifo(env.hub / ".env")


def _state(document: object) -> Callable[[Env], None]:
    def setup(env: Env) -> None:
        env.write_hub(WITH_SERVER)
        env.memhub_home.mkdir(parents=True)
        (env.memhub_home / "state.json").write_text(json.dumps(document), "utf-8")

    return setup


for _label, _document in {
    "list": [],
    "targets-list": {"targets": []},
    "target-number": {"targets": {"x": 5}},
    "entry-number": {"targets": {"x": {"k": 5}}},
    "entry-missing-fields": {"targets": {"x": {"k": {"hub": "h"}}}},
}.items():
    CASES.append(Case(f"state-json-{_label}", _state(_document), "state.json", APPLY))


def _undo_after_unparseable(file: str, text: str) -> Callable[[Env], None]:
    def setup(env: Env) -> None:
        env.write_hub(WITH_SERVER)
        applied(env)
        (env.home / file).write_text(text, "utf-8")

    return setup


CASES.append(
    Case(
        "undo-after-claude-json-unparseable",
        _undo_after_unparseable(".claude.json", '{"numStartups": 3, broken'),
        ".claude.json",
        ("undo",),
        expect="no longer parses",
    )
)
CASES.append(
    Case(
        "undo-after-codex-config-unparseable",
        _undo_after_unparseable(".codex/config.toml", "[mcp_servers.files\ncommand = 1\n"),
        "config.toml",
        ("undo",),
        expect="no longer parses",
    )
)


@case("codex-home-relative", "CODEX_HOME='codex-here'", (*APPLY[:-1], "codex"))
def _(env: Env) -> None:
    env.write_hub(WITH_SERVER)
    env.extra_env["CODEX_HOME"] = "codex-here"


@case("claude-config-dir-relative", "CLAUDE_CONFIG_DIR='claude-here'", APPLY)
def _(env: Env) -> None:
    env.write_hub(WITH_SERVER)
    env.extra_env["CLAUDE_CONFIG_DIR"] = "claude-here"


CASE_IDS = [c.id for c in CASES]


def test_corpus_is_large_and_distinct() -> None:
    assert len(CASES) >= 30, len(CASES)
    assert len(set(CASE_IDS)) == len(CASE_IDS)


@pytest.mark.parametrize("c", [pytest.param(c, id=c.id) for c in CASES])
def test_hostile_input_is_refused_fast(c: Case, tmp_path: Path) -> None:
    env = Env(tmp_path)
    env.home.mkdir()
    c.setup(env)
    before = snapshot(tmp_path)

    done, elapsed = run_cli(env, *c.args, timeout=15)

    output = done.stdout + done.stderr
    assert "Traceback" not in output, output[-3000:]
    assert done.returncode == 2, f"exit {done.returncode}\n{output[-3000:]}"
    assert c.where in done.stderr, f"{c.where!r} not in stderr:\n{done.stderr[-3000:]}"
    assert c.expect in done.stderr, f"{c.expect!r} not in stderr:\n{done.stderr[-3000:]}"
    assert "Fix" in done.stderr, done.stderr[-3000:]
    assert len(done.stderr) < 20_000, "the message repeats the hostile input"
    assert not list(env.memhub_home.glob("logs/crash-*")), "a crash log was written"
    assert snapshot(tmp_path) == before, "something was written for refused input"
    assert elapsed < LIMIT_S, f"took {elapsed:.2f} s of CPU (limit {LIMIT_S} s)"


# --------------------------------------------------------------------------------------------
# Both YAML loaders (libyaml, and the pure-Python one used without it) bound the same input
# --------------------------------------------------------------------------------------------

STRUCTURAL = {
    "alias-bomb": (_bomb(9), "alias bomb"),
    "recursive-alias": (MINIMAL + "hosts: &h [*h]\n", "recursive alias"),
    "recursive-merge": (MINIMAL + "x: &o\n  a: 1\n  <<: *o\n", "recursive merge"),
    "deep-flow": (MINIMAL + "x: " + "[" * 5000 + "]" * 5000 + "\n", "nested"),
    "deep-block": (MINIMAL + "".join("  " * i + f"k{i}:\n" for i in range(3000)) + "  v\n", ""),
}


@pytest.mark.parametrize("loader", ["libyaml", "pure-python"])
@pytest.mark.parametrize("label", list(STRUCTURAL))
def test_each_yaml_loader_refuses_structural_bombs_fast(
    label: str, loader: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memhub.hubspec import yamlsrc

    if loader == "pure-python":  # as on a machine whose PyYAML has no libyaml
        monkeypatch.setattr(yamlsrc, "_FAST_LOADER", yamlsrc._BoundedSafeLoader)
    text, expect = STRUCTURAL[label]
    start = time.process_time()  # CPU of this process: other load on the machine is not ours
    with pytest.raises(yamlsrc.YamlProblems) as refused:
        yamlsrc.parse_yaml(text, "hub.yaml")
    assert time.process_time() - start < LIMIT_S
    message = str(refused.value)
    assert "hub.yaml:" in message and expect in message, message


def test_generous_alias_reuse_is_accepted() -> None:
    """1,000 servers sharing one 60-item args list through an alias: 60,000 values added by
    aliases, under the bound; the bound is for bombs, not for a hub that shares a block."""
    from memhub.hubspec import yamlsrc

    shared = "[" + ", ".join(f'"--flag-{i}"' for i in range(60)) + "]"
    servers = "".join(
        f"    s{n}:\n      command: x\n      args: {'&shared ' + shared if n == 0 else '*shared'}\n"
        for n in range(1000)
    )
    data, _ = yamlsrc.parse_yaml(MINIMAL + "mcp:\n  servers:\n" + servers, "hub.yaml")
    assert len(data["mcp"]["servers"]) == 1000
    assert data["mcp"]["servers"]["s999"]["args"][59] == "--flag-59"


def test_reading_a_env_swapped_for_a_fifo_after_its_check_does_not_block(tmp_path: Path) -> None:
    """check_env_file looks first; the read itself must not block either, since the file may
    be replaced by a FIFO between the two."""
    fifo = tmp_path / ".env"
    os.mkfifo(fifo)
    code = (
        "import sys; from pathlib import Path; from memhub.compiler.install import secrets\n"
        "try:\n    secrets._env_text(Path(sys.argv[1]))\n"
        "except Exception as exc:\n    print(type(exc).__name__, exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(fifo)], capture_output=True, text=True, timeout=20
    )
    assert "FIFO" in done.stdout and str(fifo) in done.stdout, done.stdout + done.stderr
