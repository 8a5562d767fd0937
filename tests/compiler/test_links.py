"""Links kept as links (`files: [{from: X, link: true}]`): loaded, checked in the bundle
(compiler/links.py), planned, diffed and written by `memhub build --out`, attacked.

Every hub here is the fixture repository tests/data/repos/linked imported for real (its
plugin tools-dev has skills/, hooks/ and scripts/ as links into ../tools), then bent.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from memhub.compiler.artifact import Artifact
from memhub.compiler.cli.main import main
from memhub.compiler.diff import plan_json, render
from memhub.compiler.links import settle
from memhub.compiler.marketplace import compile_any
from memhub.compiler.output import bundle_plan, write_build
from memhub.compiler.safewrite.durable import build_tree
from memhub.compiler.safewrite.errors import WriteError
from memhub.hubspec.errors import HubError, MemhubError
from memhub.hubspec.files import link_problem

from tests.hubs import REPO

FIXTURE = REPO / "tests" / "data" / "repos" / "linked"
DEV = "plugins/tools-dev"


@pytest.fixture
def hub(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The fixture imported into tmp_path/hub (its links written into the hub folder)."""
    into = tmp_path / "hub"
    assert main(["import", "--from-repo", str(FIXTURE), "--into", str(into), "--yes"]) == 0
    capsys.readouterr()
    return into


def relink(hub: Path, name: str, target: str) -> None:
    (hub / DEV / name).unlink()
    os.symlink(target, hub / DEV / name)


def refused(hub: Path) -> str:
    with pytest.raises(HubError) as caught:
        compile_any(hub / "hub.yaml", ())
    return str(caught.value)


def test_the_build_keeps_each_link_and_writes_its_target_once(hub: Path) -> None:
    built = compile_any(hub / "hub.yaml", ())
    links = {a.path: a.link for a in built.artifacts if a.link is not None}
    assert links == {
        f"{DEV}/hooks": "../tools/hooks",
        f"{DEV}/scripts": "../tools/scripts",
        f"{DEV}/skills": "../tools/skills",
    }
    paths = {a.path for a in built.artifacts}
    assert not any(p.startswith(f"{DEV}/hooks/") for p in paths)  # through the link only
    assert "plugins/tools/hooks/hooks.json" in paths
    caveats = [r for r in built.coverage if r.component == "file" and r.status == "caveat"]
    assert {r.id for r in caveats} == {"hooks", "scripts", "skills"}  # they leave the folder


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("../../../../../etc", "its target leaves the bundle"),
        ("../tools/nothing-here", "it dangles: the build writes nothing at plugins/tools/nothing"),
        (".", "its target holds the link itself"),
        ("..", "its target holds the link itself"),
    ],
)
def test_a_link_leaving_the_bundle_dangling_or_looping_is_refused_at_its_entry(
    hub: Path, target: str, said: str
) -> None:
    relink(hub, "skills", target)
    message = refused(hub)
    assert "plugins/tools-dev/hub.yaml:" in message and "files:" in message
    assert f"{DEV}/skills -> {target}: {said}" in message
    assert "Fix:" in message


def test_a_chain_of_links_that_leaves_the_bundle_is_refused() -> None:
    """one/a -> ../two/b stays inside on its own; b -> ../../.. takes it out."""
    a = Artifact("plugins/one/a", b"", link="../two/b")
    b = Artifact("plugins/two/b", b"", link="../../..")
    with pytest.raises(HubError) as caught:
        settle([a, b, Artifact("plugins/two/f", b"x")])
    assert "plugins/one/a -> ../two/b: its target leaves the bundle" in str(caught.value)
    assert "plugins/two/b -> ../../..: its target leaves the bundle" in str(caught.value)


def test_two_links_pointing_at_each_other_are_a_loop() -> None:
    a = Artifact("p/a", b"", link="b", origin=None)
    b = Artifact("p/b", b"", link="a")
    with pytest.raises(HubError) as caught:
        settle([a, b, Artifact("p/f", b"x")])
    assert "loops" in str(caught.value)


def test_an_absolute_target_is_refused_when_the_hub_loads(hub: Path) -> None:
    relink(hub, "skills", str(hub / "plugins" / "tools" / "skills"))
    message = refused(hub)
    assert "the target is an absolute path" in message


def test_link_true_on_a_folder_that_is_no_link_is_refused(hub: Path) -> None:
    (hub / DEV / "scripts").unlink()
    shutil.copytree(hub / "plugins" / "tools" / "scripts", hub / DEV / "scripts")
    assert "is not a link (`link: true` ships a link as a link)" in refused(hub)


def test_a_link_landing_on_a_file_memhub_generates_is_refused(hub: Path) -> None:
    os.symlink("../tools/.claude-plugin/plugin.json", hub / DEV / "manifest-link")
    yaml_file = hub / DEV / "hub.yaml"
    entry = "- from: manifest-link\n  to: .mcp.json\n  link: true\n"
    yaml_file.write_text(yaml_file.read_text().replace("\nfiles:\n", "\nfiles:\n" + entry))
    assert "it would land on .mcp.json, which memhub writes itself" in refused(hub)


def test_a_link_in_a_folder_that_leaves_the_hub_is_refused(hub: Path, tmp_path: Path) -> None:
    away = tmp_path / "away"
    away.mkdir()
    os.symlink("../tools/skills", away / "skills")
    os.symlink(away, hub / DEV / "elsewhere")
    yaml_file = hub / DEV / "hub.yaml"
    entry = "- from: elsewhere/skills\n  to: more\n  link: true\n"
    yaml_file.write_text(yaml_file.read_text().replace("\nfiles:\n", "\nfiles:\n" + entry))
    assert "lies in a folder that resolves outside the hub folder" in refused(hub)


def test_the_tree_writer_writes_a_link_entry_as_a_link(tmp_path: Path) -> None:
    files = {"a": (b"../elsewhere", 0o120777), "b/c.txt": (b"text", 0o644)}
    build_tree(tmp_path / "new", files, file_mode=None, root_mode=0o755, dir_mode=0o755)
    assert os.readlink(tmp_path / "new" / "a") == "../elsewhere"
    assert (tmp_path / "new" / "b" / "c.txt").read_bytes() == b"text"


def test_a_hook_file_under_a_link_that_is_not_its_targets_is_refused(hub: Path) -> None:
    """tools-dev's hub generates hooks/hooks.json under its linked hooks/: it must be the very
    file the link reaches (tools' own), or the plugin would run other hooks than its hub says."""
    yaml_file = hub / DEV / "hub.yaml"
    yaml_file.write_text(yaml_file.read_text().replace("hello.sh", "other.sh"))
    message = refused(hub)
    assert f"{DEV}/hooks -> ../tools/hooks" in message
    assert "which the build writes otherwise" in message


def test_a_plugin_hub_built_alone_cannot_reach_its_sibling(hub: Path) -> None:
    with pytest.raises(HubError) as caught:
        compile_any(hub / DEV / "hub.yaml", ())
    assert "it dangles" in str(caught.value)


def test_plan_and_diff_show_a_link_as_its_target(hub: Path, tmp_path: Path) -> None:
    built = compile_any(hub / "hub.yaml", ())
    out = tmp_path / "out"
    plan = bundle_plan(built, out)
    text = render(plan)
    assert f"+++ b/{DEV}/skills\n+ -> ../tools/skills\n" in text
    listed = {c["path"]: c for c in plan_json(plan)["changes"]}
    assert listed[f"{DEV}/skills"]["target"] == "link:../tools/skills"
    assert "keys" not in listed[f"{DEV}/skills"]
    assert write_build(built, out, plan)
    assert os.readlink(out / DEV / "skills") == "../tools/skills"
    assert (out / DEV / "skills" / "greet" / "SKILL.md").is_file()
    assert not bundle_plan(built, out).pending  # a link with the same target is unchanged
    os.unlink(out / DEV / "skills")
    os.symlink("../tools/scripts", out / DEV / "skills")
    again = bundle_plan(built, out)
    assert [c.path for c in again.pending] == [f"{DEV}/skills"]
    assert "- -> ../tools/scripts\n+ -> ../tools/skills" in render(again)
    record = json.loads((out / ".memhub-build.json").read_text())
    assert f"{DEV}/skills" in record["files"]


def test_writing_never_follows_a_link_already_at_the_destination(hub: Path, tmp_path: Path) -> None:
    """A hostile link at the link's place (pointing at a folder outside) is replaced, and
    nothing is written into what it pointed at."""
    built = compile_any(hub / "hub.yaml", ())
    out = tmp_path / "out"
    write_build(built, out)
    victim = tmp_path / "victim"
    victim.mkdir()
    os.unlink(out / DEV / "skills")
    os.symlink(victim, out / DEV / "skills")
    write_build(built, out)
    assert os.readlink(out / DEV / "skills") == "../tools/skills"
    assert list(victim.iterdir()) == []


def test_a_fifo_or_a_foreign_folder_where_a_link_goes_is_refused(hub: Path, tmp_path: Path) -> None:
    built = compile_any(hub / "hub.yaml", ())
    out = tmp_path / "out"
    write_build(built, out)
    before = sorted(p.relative_to(out).as_posix() for p in out.rglob("*"))
    os.unlink(out / DEV / "hooks")
    os.mkfifo(out / DEV / "hooks")
    with pytest.raises(MemhubError, match="is a FIFO, socket or device, where the build"):
        write_build(built, out)
    os.unlink(out / DEV / "hooks")
    (out / DEV / "hooks").mkdir()
    (out / DEV / "hooks" / "mine.txt").write_text("someone's")
    with pytest.raises(MemhubError, match="a folder holding files no build recorded"):
        write_build(built, out)
    assert (out / DEV / "hooks" / "mine.txt").read_text() == "someone's"
    now = sorted(p.relative_to(out).as_posix() for p in out.rglob("*"))
    assert now == sorted([*before, f"{DEV}/hooks/mine.txt"])


def test_an_earlier_copy_where_a_link_now_goes_is_replaced(hub: Path, tmp_path: Path) -> None:
    """A build that shipped skills/ as files, rebuilt with the link: its own copy goes."""
    out = tmp_path / "out"
    yaml_file = hub / DEV / "hub.yaml"
    linked = yaml_file.read_text()
    (hub / DEV / "skills").unlink()
    shutil.copytree(hub / "plugins" / "tools" / "skills", hub / DEV / "skills")
    yaml_file.write_text(linked.replace("- from: skills\n  link: true\n", ""))
    write_build(compile_any(hub / "hub.yaml", ()), out)
    assert (out / DEV / "skills" / "greet" / "SKILL.md").is_file()
    assert not (out / DEV / "skills").is_symlink()
    shutil.rmtree(hub / DEV / "skills")
    os.symlink("../tools/skills", hub / DEV / "skills")
    yaml_file.write_text(linked)
    write_build(compile_any(hub / "hub.yaml", ()), out)
    assert os.readlink(out / DEV / "skills") == "../tools/skills"


def test_the_tree_writer_never_writes_under_a_link_entry(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    files = {"a": (os.fsencode(outside), 0o120777), "a/x": (b"data", 0o644)}
    with pytest.raises(WriteError, match="lies under a, which is a link"):
        build_tree(tmp_path / "new", files, file_mode=None, root_mode=0o755, dir_mode=0o755)
    assert list(outside.iterdir()) == []


def test_memhub_build_out_in_a_real_process_writes_the_links(hub: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "memhub.compiler.cli.main",
            "build",
            str(hub / "hub.yaml"),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    found = {
        p.relative_to(out).as_posix(): os.readlink(p) for p in out.rglob("*") if p.is_symlink()
    }
    assert found == {
        f"{DEV}/hooks": "../tools/hooks",
        f"{DEV}/scripts": "../tools/scripts",
        f"{DEV}/skills": "../tools/skills",
    }


@pytest.mark.parametrize(
    ("target", "said"),
    [
        ("", "empty"),
        ("/etc", "absolute"),
        ("~/x", "absolute"),
        ("a\\b", "backslash"),
        ("a\nb", "control character"),
        ("a\udcffb", "not UTF-8"),
        ("x/" * 600, "longer than 1024"),
    ],
)
def test_a_target_no_bundle_can_hold_is_refused(target: str, said: str) -> None:
    why = link_problem(target)
    assert why is not None and said in why
    with pytest.raises(ValueError):
        Artifact("p/a", b"", link=target)


def test_a_file_under_a_link_that_its_target_lacks_is_refused() -> None:
    link = Artifact("plugins/dev/hooks", b"", link="../main/hooks")
    main_file = Artifact("plugins/main/hooks/run.sh", b"echo\n")
    extra = Artifact("plugins/dev/hooks/hooks.json", b"{}", owners=("claude",))
    with pytest.raises(HubError) as caught:
        settle([link, main_file, extra])
    assert "reaches plugins/main/hooks/hooks.json, which the build does not write" in str(
        caught.value
    )
    same = Artifact("plugins/dev/hooks/run.sh", b"echo\n")
    assert settle([link, main_file, same]) == (link, main_file)
