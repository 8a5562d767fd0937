"""`memhub build` is a pure function of the hub: same hub, same bytes, whatever the machine.

Each example hub is built by the real CLI in subprocesses
(`python -m memhub.compiler.cli.main build HUB --out OUT`) that differ in everything a build must
not depend on: the hub's location (the repository checkout and a copy elsewhere), the
working directory, relative against absolute paths, HOME, MEMHUB_HOME, TZ, LANG/LC_ALL,
PYTHONHASHSEED and SOURCE_DATE_EPOCH (builds A and B). The two output trees must be
identical: same paths, same bytes, same modes. A third build C differs from A only in the
umask (077 instead of 022): same paths, bytes and modes.

Then, against the first tree: a second build into the same folder reports every file
`unchanged` and leaves the tree as it was; `diff --against` it with `--exit-code` exits 0 and
prints nothing; after the hub's plugin version is edited, `diff --exit-code` exits 1 and shows
the version as a key-path change in every JSON manifest.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
EXAMPLE_HUBS = ["memhub", "minimal"]
BUILD_MARKER = ".memhub-build.json"
TIMEOUT_S = 120

# Tree entry: (kind, permission bits, bytes for files / link target / None for folders).
Entry = tuple[str, int, bytes | str | None]


@dataclass(frozen=True)
class Setting:
    """Everything about one run of the CLI that the build output must not depend on."""

    name: str
    tz: str
    locale: str
    hashseed: str
    source_date_epoch: str
    umask: int


SETTING_A = Setting("a", "UTC", "C", "0", "0", 0o022)
SETTING_B = Setting("b", "Pacific/Kiritimati", "tr_TR.UTF-8", "4242", "1700000000", 0o022)
SETTING_C = Setting("c", "UTC", "C", "0", "0", 0o077)  # A with another umask


def environment(setting: Setting, home: Path) -> dict[str, str]:
    """A clean environment: PATH, plus this setting's home, clock, locale and hash seed."""
    home.mkdir(parents=True, exist_ok=True)
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "MEMHUB_HOME": str(home / ".memhub"),
        "TZ": setting.tz,
        "LANG": setting.locale,
        "LC_ALL": setting.locale,
        "PYTHONHASHSEED": setting.hashseed,
        "SOURCE_DATE_EPOCH": setting.source_date_epoch,
    }


def memhub(
    args: list[str], *, cwd: Path, env: dict[str, str], umask: int = 0o022
) -> subprocess.CompletedProcess[str]:
    cwd.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "memhub.compiler.cli.main", *args],
        cwd=cwd,
        env=env,
        umask=umask,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def ok(result: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert result.returncode == 0, (
        f"{result.args} exited {result.returncode}\n"
        f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    )
    assert "Traceback" not in result.stdout + result.stderr
    return result


def tree(root: Path) -> dict[str, Entry]:
    """Every path under `root` (links not followed) with its kind, mode bits and content."""
    found: dict[str, Entry] = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        rel = path.relative_to(root).as_posix()
        mode = stat.S_IMODE(info.st_mode)
        if stat.S_ISLNK(info.st_mode):
            found[rel] = ("link", mode, os.readlink(path))
        elif stat.S_ISDIR(info.st_mode):
            found[rel] = ("dir", mode, None)
        else:
            found[rel] = ("file", mode, path.read_bytes())
    return found


def files_only(entries: dict[str, Entry]) -> dict[str, Entry]:
    return {rel: entry for rel, entry in entries.items() if entry[0] != "dir"}


def describe_differences(a: dict[str, Entry], b: dict[str, Entry]) -> str:
    lines = [f"only in A: {rel}" for rel in sorted(a.keys() - b.keys())]
    lines += [f"only in B: {rel}" for rel in sorted(b.keys() - a.keys())]
    for rel in sorted(a.keys() & b.keys()):
        (kind_a, mode_a, body_a), (kind_b, mode_b, body_b) = a[rel], b[rel]
        if kind_a != kind_b:
            lines.append(f"{rel}: {kind_a} vs {kind_b}")
        if mode_a != mode_b:
            lines.append(f"{rel}: mode {mode_a:o} vs {mode_b:o}")
        if body_a != body_b:
            lines.append(f"{rel}: contents differ")
    return "\n".join(lines)


@dataclass
class Builds:
    """Two builds of one example hub under different settings, and what came after."""

    name: str
    hub: Path  # the hub in the repository checkout
    out_a: Path
    out_b: Path
    tree_a: dict[str, Entry]
    tree_b: dict[str, Entry]
    tree_c: dict[str, Entry]
    homes: list[Path]
    rebuild: subprocess.CompletedProcess[str]  # `build --json` into out_a again
    tree_a_after_rebuild: dict[str, Entry]
    diff: subprocess.CompletedProcess[str]  # `diff --against out_a --exit-code`
    tree_a_after_diff: dict[str, Entry]


def build_twice(name: str, root: Path) -> Builds:
    hub = EXAMPLES / name
    # Build A: the hub in the checkout, by absolute path; --out relative to the cwd.
    cwd_a = root / "cwd-a"
    home_a = root / "home-a"
    env_a = environment(SETTING_A, home_a)
    # Build B: a copy of the hub elsewhere, by a relative path from a deeper cwd; --out absolute.
    hub_b = root / "elsewhere" / "nested" / name
    shutil.copytree(hub, hub_b, symlinks=True)
    cwd_b = root / "cwd-b" / "x" / "y"
    cwd_b.mkdir(parents=True)
    home_b = root / "home-b"
    env_b = environment(SETTING_B, home_b)
    out_b = root / "outs" / "b"
    # Build C: as A (same cwd layout, same env) but under umask 077.
    cwd_c = root / "cwd-c"
    home_c = root / "home-c"
    env_c = environment(SETTING_C, home_c)

    with ThreadPoolExecutor(max_workers=3) as pool:
        run_a = pool.submit(
            memhub,
            ["build", str(hub), "--out", "out"],
            cwd=cwd_a,
            env=env_a,
            umask=SETTING_A.umask,
        )
        run_b = pool.submit(
            memhub,
            ["build", os.path.relpath(hub_b, cwd_b), "--out", str(out_b)],
            cwd=cwd_b,
            env=env_b,
            umask=SETTING_B.umask,
        )
        run_c = pool.submit(
            memhub,
            ["build", str(hub), "--out", "out"],
            cwd=cwd_c,
            env=env_c,
            umask=SETTING_C.umask,
        )
        ok(run_a.result())
        ok(run_b.result())
        ok(run_c.result())
    out_a = cwd_a / "out"
    tree_a, tree_b, tree_c = tree(out_a), tree(out_b), tree(cwd_c / "out")

    # The same hub into the same folder again, from yet another cwd and setting B's env.
    elsewhere = root / "cwd-d"
    rebuild = ok(
        memhub(
            ["build", str(hub), "--out", str(out_a), "--json"],
            cwd=elsewhere,
            env=env_b,
            umask=SETTING_B.umask,
        )
    )
    tree_after_rebuild = tree(out_a)
    diff = memhub(
        ["diff", str(hub), "--against", str(out_a), "--exit-code"], cwd=elsewhere, env=env_a
    )
    return Builds(
        name,
        hub,
        out_a,
        out_b,
        tree_a,
        tree_b,
        tree_c,
        [home_a, home_b, home_c],
        rebuild,
        tree_after_rebuild,
        diff,
        tree(out_a),
    )


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Builds]:
    with ThreadPoolExecutor(max_workers=len(EXAMPLE_HUBS)) as pool:
        futures = {
            name: pool.submit(build_twice, name, tmp_path_factory.mktemp(f"determinism-{name}"))
            for name in EXAMPLE_HUBS
        }
        return {name: future.result() for name, future in futures.items()}


@pytest.mark.parametrize("name", EXAMPLE_HUBS)
def test_builds_are_not_empty(builds: dict[str, Builds], name: str) -> None:
    b = builds[name]
    files = files_only(b.tree_a)
    assert BUILD_MARKER in files
    manifests = [rel for rel in files if rel.endswith("plugin.json")]
    assert len(manifests) >= 3, sorted(files)
    assert len(files) > 5


@pytest.mark.parametrize("name", EXAMPLE_HUBS)
def test_two_builds_are_byte_identical(builds: dict[str, Builds], name: str) -> None:
    """A and B: same paths (files and folders), same bytes, same modes."""
    b = builds[name]
    assert sorted(b.tree_a) == sorted(b.tree_b), describe_differences(b.tree_a, b.tree_b)
    assert b.tree_a == b.tree_b, describe_differences(b.tree_a, b.tree_b)


@pytest.mark.parametrize("name", EXAMPLE_HUBS)
def test_umask_does_not_change_paths_or_bytes(builds: dict[str, Builds], name: str) -> None:
    b = builds[name]
    assert sorted(b.tree_a) == sorted(b.tree_c), describe_differences(b.tree_a, b.tree_c)
    bodies_a = {rel: entry[2] for rel, entry in b.tree_a.items()}
    bodies_c = {rel: entry[2] for rel, entry in b.tree_c.items()}
    assert bodies_a == bodies_c


@pytest.mark.parametrize("name", EXAMPLE_HUBS)
def test_umask_does_not_change_modes(builds: dict[str, Builds], name: str) -> None:
    b = builds[name]
    assert b.tree_a == b.tree_c, describe_differences(b.tree_a, b.tree_c)


@pytest.mark.parametrize("name", EXAMPLE_HUBS)
def test_build_writes_nothing_in_home(builds: dict[str, Builds], name: str) -> None:
    b = builds[name]
    for home in b.homes:
        assert list(home.iterdir()) == [], home


@pytest.mark.parametrize("name", EXAMPLE_HUBS)
def test_rebuild_into_same_folder_is_all_unchanged(builds: dict[str, Builds], name: str) -> None:
    b = builds[name]
    report = json.loads(b.rebuild.stdout)["data"]
    statuses = {item["path"]: item["status"] for item in report["files"]}
    expected = set(files_only(b.tree_a)) - {BUILD_MARKER}
    assert set(statuses) == expected
    changed = {path: status for path, status in statuses.items() if status != "unchanged"}
    assert changed == {}
    assert b.tree_a_after_rebuild == b.tree_a, describe_differences(
        b.tree_a, b.tree_a_after_rebuild
    )


@pytest.mark.parametrize("name", EXAMPLE_HUBS)
def test_diff_against_fresh_build_is_empty(builds: dict[str, Builds], name: str) -> None:
    b = builds[name]
    assert b.diff.returncode == 0, b.diff.stderr
    assert b.diff.stdout == ""
    assert "Traceback" not in b.diff.stderr
    assert b.tree_a_after_diff == b.tree_a  # diff writes nothing


# ---- a version bump shows up as a key-path change ---------------------------------------


def bumped(version: str) -> str:
    match = re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", version)
    assert match, f"example version {version!r} is not plain major.minor.patch"
    major, minor, patch = (int(part) for part in match.groups())
    return f"{major}.{minor}.{patch + 1}"


def diff_blocks(text: str) -> dict[str, list[str]]:
    """path -> body lines, from `memhub diff` output (`--- a/P` / `+++ b/P` headers)."""
    blocks: dict[str, list[str]] = {}
    current: list[str] | None = None
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if (
            line.startswith("--- ")
            and index + 1 < len(lines)
            and lines[index + 1].startswith("+++ ")
        ):
            target = lines[index + 1][4:]
            path = target[2:] if target.startswith("b/") else line[4:].removeprefix("a/")
            current = blocks.setdefault(path, [])
            index += 2
            continue
        assert current is not None, f"diff text before the first header: {line!r}"
        current.append(line)
        index += 1
    return blocks


def contains(value: Any, wanted: str) -> bool:
    if isinstance(value, dict):
        return any(contains(v, wanted) for v in value.values())
    if isinstance(value, list):
        return any(contains(v, wanted) for v in value)
    return value == wanted


@pytest.mark.parametrize("name", EXAMPLE_HUBS)
def test_version_edit_shows_as_key_path_change(
    builds: dict[str, Builds], name: str, tmp_path: Path
) -> None:
    b = builds[name]
    hub = tmp_path / name
    shutil.copytree(b.hub, hub, symlinks=True)
    text = (hub / "hub.yaml").read_text("utf-8")
    old = str(yaml.safe_load(text)["plugin"]["version"])
    new = bumped(old)
    edited, count = re.subn(
        rf"^(\s+version:\s*){re.escape(old)}\s*$", rf"\g<1>{new}", text, flags=re.M
    )
    assert count == 1, "could not find the plugin version line to edit"
    (hub / "hub.yaml").write_text(edited, "utf-8")
    assert str(yaml.safe_load(edited)["plugin"]["version"]) == new

    env = environment(SETTING_A, tmp_path / "home")
    result = memhub(
        ["diff", str(hub), "--against", str(b.out_a), "--exit-code"], cwd=tmp_path, env=env
    )
    assert result.returncode == 1, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    assert "Traceback" not in result.stdout + result.stderr
    assert "\x1b[" not in result.stdout  # no colour when not on a terminal
    blocks = diff_blocks(result.stdout)

    change = f'version: "{old}" -> "{new}"'
    files = files_only(b.tree_a)
    manifests = sorted(rel for rel in files if rel.endswith("plugin.json"))
    assert manifests
    for rel in manifests:
        assert rel in blocks, f"{rel} missing from the diff:\n{result.stdout}"
        assert f"~ {change}" in blocks[rel], f"{rel}: {blocks[rel]}"
    # Every other JSON file that carries the version changes only there, by key path.
    for rel, (_, _, body) in files.items():
        if not rel.endswith(".json") or rel == BUILD_MARKER:
            continue
        assert isinstance(body, bytes)
        if contains(json.loads(body), old):
            assert rel in blocks, f"{rel} carries {old} but is not in the diff"
            assert blocks[rel], rel
            for line in blocks[rel]:
                assert line.startswith("~ ") and line.endswith(change), f"{rel}: {line}"
        else:
            assert rel not in blocks, f"{rel} changed but does not carry the version"
    # Nothing changed that did not hold the old version string.
    for rel in blocks:
        body = files[rel][2]
        assert isinstance(body, bytes) and old.encode() in body, f"{rel} changed unexpectedly"
    # Writing nothing: the earlier build is untouched.
    assert tree(b.out_a) == b.tree_a
