"""`files:`: shipped folders and files read byte for byte, and every hostile input refused."""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path
from typing import Any

import pytest
import yaml
from memhub.compiler.cli.main import main
from memhub.hubspec import HubError, load
from memhub.hubspec.files import MAX_FILE_BYTES

HUB: dict[str, Any] = {
    "version": 1,
    "plugin": {"name": "ship-test", "version": "0.1.0", "description": "Ships files."},
    "marketplace": {"name": "ship-market", "owner": {"name": "Ann"}},
}


def write_hub(root: Path, files: Any, **extra: Any) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "hub.yaml").write_text(yaml.safe_dump({**HUB, "files": files, **extra}))
    return root


def script(root: Path, rel: str, text: str = "#!/bin/sh\necho hi\n", mode: int = 0o644) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)
    return path


def problems(root: Path) -> list[str]:
    with pytest.raises(HubError) as caught:
        load(root)
    found = [str(p) for p in caught.value.problems]
    assert all("Fix:" in text for text in found)
    return found


def test_a_folder_ships_every_file_with_its_executable_bit(tmp_path: Path) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "scripts"}, {"from": "refs", "to": "docs/refs"}])
    script(hub, "scripts/run.sh", mode=0o755)
    script(hub, "scripts/lib/util.py", "X = 1\n")
    script(hub, "refs/guide.md", "# Guide\n")
    loaded = load(hub)
    assert [(f.path, f.source, f.executable) for f in loaded.files] == [
        ("scripts/lib/util.py", "scripts/lib/util.py", False),
        ("scripts/run.sh", "scripts/run.sh", True),
        ("docs/refs/guide.md", "refs/guide.md", False),
    ]
    assert loaded.files[1].content == b"#!/bin/sh\necho hi\n"
    assert all(f.hosts is None for f in loaded.files)


def test_a_single_file_lands_on_its_to_and_keeps_its_hosts(tmp_path: Path) -> None:
    hub = write_hub(
        tmp_path / "hub", [{"from": "extras/a.md", "to": "notes/a.md", "hosts": ["claude"]}]
    )
    script(hub, "extras/a.md", "a\n")
    (only,) = load(hub).files
    assert (only.path, only.hosts, only.content) == ("notes/a.md", ("claude",), b"a\n")


def test_to_dot_is_the_plugin_folder_and_build_leftovers_stay_home(tmp_path: Path) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "payload", "to": "."}])
    script(hub, "payload/bin/tool", mode=0o755)
    script(hub, "payload/__pycache__/x.cpython-311.pyc", "junk")
    script(hub, "payload/mod.pyc", "junk")
    assert [f.path for f in load(hub).files] == ["bin/tool"]


def test_links_inside_the_hub_ship_their_targets_bytes(tmp_path: Path) -> None:
    """Decision: a bundle holds files only, so a link inside the hub (to a file or a whole
    folder, as the published memhub-staging plugin links into ../memhub) ships what it
    points at, with the target's mode."""
    hub = write_hub(tmp_path / "hub", [{"from": "staging"}])
    script(hub, "real/scripts/go.sh", mode=0o755)
    script(hub, "real/one.md", "one\n")
    (hub / "staging").mkdir()
    (hub / "staging" / "scripts").symlink_to("../real/scripts")
    (hub / "staging" / "one.md").symlink_to("../real/one.md")
    shipped = {f.path: (f.content, f.executable) for f in load(hub).files}
    assert shipped == {
        "staging/one.md": (b"one\n", False),
        "staging/scripts/go.sh": (b"#!/bin/sh\necho hi\n", True),
    }


def test_a_from_that_is_itself_a_link_inside_the_hub_is_followed(tmp_path: Path) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "scripts"}])
    script(hub, "vendor/x.sh")
    (hub / "scripts").symlink_to("vendor")
    assert [f.path for f in load(hub).files] == ["scripts/x.sh"]


# --- refusals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ({"from": "../outside"}, "climbs out with '..'"),
        ({"from": "/etc"}, "is an absolute path"),
        ({"from": "/"}, "is an absolute path"),
        ({"from": "scripts", "to": "/"}, "is an absolute path"),
        ({"from": "~/x"}, "is an absolute path"),
        ({"from": "scripts", "to": "../up"}, "climbs out with '..'"),
        ({"from": "scripts", "to": "/abs"}, "is an absolute path"),
        ({"from": "scripts\\x"}, "backslash"),
        ({"from": "missing"}, "'missing' does not exist"),
    ],
)
def test_paths_leaving_the_hub_or_missing_are_refused(
    tmp_path: Path, entry: dict[str, str], words: str
) -> None:
    hub = write_hub(tmp_path / "hub", [entry])
    script(hub, "scripts/a.sh")
    (found,) = problems(hub)
    assert words in found
    assert found.startswith(f"{hub / 'hub.yaml'}:")


def test_a_link_whose_target_leaves_the_hub_is_refused(tmp_path: Path) -> None:
    outside = script(tmp_path, "secret/id_rsa", "PRIVATE\n")
    hub = write_hub(tmp_path / "hub", [{"from": "scripts"}])
    script(hub, "scripts/ok.sh")
    (hub / "scripts" / "key").symlink_to(outside)
    (found,) = problems(hub)
    assert f"{hub / 'scripts' / 'key'}:1:1:" in found
    assert "link whose target leaves the hub folder" in found


def test_a_from_link_leaving_the_hub_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    hub = write_hub(tmp_path / "hub", [{"from": "scripts"}])
    (hub / "scripts").symlink_to(tmp_path / "elsewhere")
    (found,) = problems(hub)
    assert "resolves outside the hub folder" in found


def test_a_link_loop_inside_the_hub_is_refused(tmp_path: Path) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "scripts"}])
    script(hub, "scripts/a.sh")
    (hub / "scripts" / "again").symlink_to("..")  # the hub folder: holds scripts/ again
    found = problems(hub)
    assert any("loops back" in text for text in found)


def test_a_dangling_link_is_refused(tmp_path: Path) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "scripts"}])
    script(hub, "scripts/a.sh")
    (hub / "scripts" / "gone").symlink_to("nowhere")
    (found,) = problems(hub)
    assert "broken or looping link" in found


def test_a_fifo_is_refused_without_being_opened_for_a_blocking_read(tmp_path: Path) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "scripts"}])
    script(hub, "scripts/a.sh")
    os.mkfifo(hub / "scripts" / "pipe")
    (found,) = problems(hub)  # a blocking read would hang here
    assert f"{hub / 'scripts' / 'pipe'}:1:1:" in found
    assert "not a regular file" in found


def test_a_socket_is_refused(tmp_path: Path) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "s"}])
    (hub / "s").mkdir()
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(hub / "s" / "sock"))
        (found,) = problems(hub)
    finally:
        server.close()
    assert "not a regular file" in found


def test_a_file_over_the_limit_is_refused_naming_the_limit(tmp_path: Path) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "big.bin"}])
    with open(hub / "big.bin", "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: no disk used
    (found,) = problems(hub)
    assert f"over the {MAX_FILE_BYTES:,}" in found


@pytest.mark.parametrize(
    "dest",
    [
        ".claude-plugin/plugin.json",
        ".codex-plugin/plugin.json",
        ".cursor-plugin/marketplace.json",
        "hooks/claude-hooks.json",
        "hooks/hooks.json",
        "plugin.json",
        "gemini-extension.json",
        "memhub_runtime/hook.py",
    ],
)
def test_a_destination_memhub_generates_is_refused(tmp_path: Path, dest: str) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "x.txt", "to": dest}])
    script(hub, "x.txt", "x\n")
    (found,) = problems(hub)
    assert f"would land on {dest}" in found


SERVER = {"servers": {"docs": {"url": "https://example.com/mcp"}}}
# (dest, extra hub keys under which this hub's build writes dest)
WRITTEN = [
    (".mcp.json", {"mcp": SERVER}),
    (".mcp.json", {"mcp": SERVER, "hosts": ["claude"]}),
    (".mcp.json", {"mcp": {"servers": {}, "file": True}, "hosts": ["claude"]}),
    (
        ".mcp.json",
        {
            "mcp": SERVER,
            "hosts": ["codex"],
            "overrides": {"codex": {"manifest": {"mcpServers": "./.mcp.json"}}},
        },
    ),
    ("GEMINI.md", {"hosts": ["gemini"], "instructions": "AGENTS.md"}),
    ("GEMINI.md", {"instructions": "AGENTS.md"}),  # the default hosts hold gemini
    ("assets/icon.svg", {"plugin": {**HUB["plugin"], "icon": "icon.svg"}}),
]


@pytest.mark.parametrize(("dest", "extra"), WRITTEN)
def test_a_path_this_hubs_build_writes_is_refused(
    tmp_path: Path, dest: str, extra: dict[str, Any]
) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "x.txt", "to": dest}], **extra)
    script(hub, "x.txt", "x\n")
    script(hub, "AGENTS.md", "Be brief.\n")
    script(hub, "icon.svg", '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"/>\n')
    (found,) = problems(hub)
    assert f"would land on {dest}" in found


@pytest.mark.parametrize(
    ("dest", "extra"),
    [
        (".mcp.json", {}),  # no servers: no host writes it
        (".mcp.json", {"mcp": SERVER, "hosts": ["codex", "cursor"]}),  # nor a manifest naming it
        ("GEMINI.md", {"hosts": ["claude", "codex"]}),  # a plain document without Gemini
        ("GEMINI.md", {"hosts": ["gemini"]}),  # no instructions: the extension has no context
        ("assets/icon.png", {}),  # no plugin.icon
    ],
)
def test_a_path_this_hubs_build_does_not_write_is_shipped(
    tmp_path: Path, dest: str, extra: dict[str, Any]
) -> None:
    """GEMINI.md, .mcp.json and assets/icon.* are memhub's only where this hub's build
    writes them; elsewhere they are the plugin's own files, shipped byte for byte."""
    hub = write_hub(tmp_path / "hub", [{"from": "x.txt", "to": dest}], **extra)
    script(hub, "x.txt", "x\n")
    assert [(f.path, f.content) for f in load(hub).files] == [(dest, b"x\n")]


@pytest.mark.parametrize(
    "dest", [".cursor-plugin/plugins/kit.json", ".claude-plugin/README.md", ".codex-plugin/x.json"]
)
def test_a_file_beside_a_manifest_memhub_writes_is_shipped(tmp_path: Path, dest: str) -> None:
    """Cursor marketplaces keep each plugin's manifest in .cursor-plugin/plugins/<name>.json:
    memhub writes only plugin.json and marketplace.json in those folders."""
    hub = write_hub(tmp_path / "hub", [{"from": "x.txt", "to": dest}])
    script(hub, "x.txt", "x\n")
    assert [f.path for f in load(hub).files] == [dest]
    for written in (".cursor-plugin/plugin.json", ".claude-plugin/marketplace.json"):
        other = write_hub(tmp_path / written.replace("/", "_"), [{"from": "x", "to": written}])
        script(other, "x", "x\n")
        assert any(f"would land on {written}" in p for p in problems(other))


def test_a_file_beside_a_hosts_manifest_ships(tmp_path: Path) -> None:
    """memhub writes only plugin.json and marketplace.json in a host's manifest folder."""
    hub = write_hub(tmp_path / "hub", [{"from": "x.txt", "to": ".codex-plugin/x.json"}])
    script(hub, "x.txt", "x\n")
    assert [f.path for f in load(hub).files] == [".codex-plugin/x.json"]


@pytest.mark.parametrize(
    ("to", "lands"), [("./memhub_runtime", "memhub_runtime/x.txt"), ("hooks//", "hooks/x.txt")]
)
def test_a_destination_is_normalised_before_it_is_checked(
    tmp_path: Path, to: str, lands: str
) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "d", "to": to}, {"from": "d2/x.txt", "to": lands}])
    script(hub, "d/x.txt", "x\n")
    script(hub, "d2/x.txt", "x\n")
    found = problems(hub)
    if lands.startswith("memhub_runtime"):
        assert any("would land on memhub_runtime/x.txt" in text for text in found), found
    else:
        assert any("lands on hooks/x.txt, as d/x.txt of files[0] does" in text for text in found)


SKILL = "---\nname: {0}\ndescription: Use when {0}.\n---\nbody\n"
AGENT = "---\nname: a\ndescription: Reviews.\n---\nbody\n"


@pytest.mark.parametrize(
    ("dest", "what"),
    [
        ("skills/x/SKILL.md", "skill 'x'"),
        ("skills/x/notes.md", "skill 'x'"),
        ("agents/a.md", "agent 'a'"),
        ("commands/c.md", "command 'c'"),
    ],
)
def test_a_shipped_file_on_a_components_path_is_refused(
    tmp_path: Path, dest: str, what: str
) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "x.txt", "to": dest}], agents="ag", commands="cm")
    script(hub, "x.txt", "x\n")
    script(hub, "skills/x/SKILL.md", SKILL.format("x"))
    script(hub, "ag/a.md", AGENT)
    script(hub, "cm/c.md", "Do it.\n")
    (found,) = problems(hub)
    assert f"x.txt would land on {dest}, where memhub writes {what}" in found


def test_what_files_ships_from_a_component_folder_is_no_component(tmp_path: Path) -> None:
    """A folder of skills/ without SKILL.md, a skill whose front matter the hub refuses, a
    file of agents/ no agent, shipped as they are beside the components."""
    shipped = ["skills/references", "skills/odd", "agents/README.md", "agents/.gitkeep"]
    hub = write_hub(
        tmp_path / "hub", [{"from": p} for p in shipped], agents="agents", skills="skills"
    )
    script(hub, "skills/x/SKILL.md", SKILL.format("x"))
    script(hub, "skills/references/cli.md", "# refs\n")
    script(hub, "skills/odd/SKILL.md", "---\ndescription: Use when: it: breaks\n---\n")
    script(hub, "agents/a.md", AGENT)
    script(hub, "agents/README.md", "# Agents\n")
    script(hub, "agents/.gitkeep", "")
    loaded = load(hub)
    assert [s.name for s in loaded.skills] == ["x"] and [a.name for a in loaded.agents] == ["a"]
    assert sorted(f.path for f in loaded.files) == sorted(
        ["skills/references/cli.md", "skills/odd/SKILL.md", "agents/README.md", "agents/.gitkeep"]
    )


def test_hook_programs_beside_the_generated_hooks_files_are_fine(tmp_path: Path) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "hooks"}])
    script(hub, "hooks/guard.py", mode=0o755)
    assert [f.path for f in load(hub).files] == ["hooks/guard.py"]


def test_two_sources_on_one_destination_are_refused(tmp_path: Path) -> None:
    hub = write_hub(
        tmp_path / "hub", [{"from": "a/run.sh", "to": "bin/run.sh"}, {"from": "b", "to": "bin"}]
    )
    script(hub, "a/run.sh")
    script(hub, "b/run.sh")
    (found,) = problems(hub)
    assert "b/run.sh lands on bin/run.sh, as a/run.sh of files[0] does" in found
    assert "files[1].to" in found


def test_the_hubs_env_is_never_shipped(tmp_path: Path) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": ".", "to": "all"}])
    (hub / ".env").write_text("TOKEN=x\n")
    found = problems(hub)
    assert any("the hub's .env" in text for text in found)


@pytest.mark.parametrize(
    ("files", "words"),
    [
        ("scripts", "files: expected a list"),
        ([{"to": "x"}], "missing required key 'from'"),
        ([{"from": "a", "mode": 755}], "files[0].mode: unknown key 'mode'"),
        ([{"from": "a", "hosts": ["vim"]}], 'files[0].hosts[0]: "vim" is not allowed'),
        ([{"from": ""}], "files[0].from: must not be empty"),
    ],
)
def test_malformed_entries_are_refused_by_the_schema(
    tmp_path: Path, files: Any, words: str
) -> None:
    hub = write_hub(tmp_path / "hub", files)
    found = problems(hub)
    assert any(words in text for text in found), found


def test_a_refused_hub_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "scripts", "to": "memhub_runtime"}])
    script(hub, "scripts/a.sh")
    out = tmp_path / "out"
    assert main(["build", str(hub), "--out", str(out)]) == 2
    assert not out.exists()
    err = capsys.readouterr().err
    assert f"{hub / 'scripts' / 'a.sh'}:1:1:" in err and "Fix:" in err


def test_modes_other_than_the_executable_bit_are_not_carried(tmp_path: Path) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "s"}])
    script(hub, "s/setuid", mode=0o4750)
    (only,) = load(hub).files
    assert only.executable is True
    assert stat.S_IMODE((hub / "s" / "setuid").stat().st_mode) & stat.S_ISUID


def test_a_link_to_the_hubs_env_is_never_shipped(tmp_path: Path) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "conf"}])
    (hub / ".env").write_text("TOKEN=x\n")
    (hub / "conf").mkdir()
    (hub / "conf" / "settings").symlink_to("../.env")
    (found,) = problems(hub)
    assert "the hub's .env" in found and f"{hub / 'conf' / 'settings'}:1:1:" in found


def test_the_total_size_is_limited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import memhub.hubspec.files as files

    monkeypatch.setattr(files, "MAX_TOTAL_BYTES", 10)
    hub = write_hub(tmp_path / "hub", [{"from": "s"}])
    script(hub, "s/a", "123456")
    script(hub, "s/b", "123456")
    (found,) = problems(hub)
    assert "the shipped files hold 12 bytes, more than the 10" in found


@pytest.mark.parametrize(
    "name", ["back\\slash", "new\nline", b"caf\xe9".decode("utf-8", "surrogateescape")]
)
def test_file_names_hosts_cannot_carry_are_refused(tmp_path: Path, name: str) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "s"}])
    (hub / "s").mkdir()
    with open(os.path.join(os.fsencode(hub / "s"), os.fsencode(name)), "wb") as handle:
        handle.write(b"x")
    (found,) = problems(hub)
    assert "has a name hosts cannot carry" in found


def test_a_shipped_readme_replaces_the_generated_one_in_every_plugin_folder(
    tmp_path: Path,
) -> None:
    from memhub.compiler.build import build

    hub = write_hub(tmp_path / "hub", [{"from": "docs/README.md", "to": "README.md"}])
    script(hub, "docs/README.md", "# Our own words\n")
    built = build(load(hub), ["claude", "codex", "cursor", "gemini", "agent-plugins"])
    readmes = {a.path: a.content for a in built.artifacts if a.path.endswith("/README.md")}
    folders = {f"{root}/ship-test/README.md" for root in ("plugins", "gemini", "agent-plugins")}
    assert set(readmes) == folders
    assert set(readmes.values()) == {b"# Our own words\n"}


def test_a_shipped_readme_cannot_be_limited_to_hosts(tmp_path: Path) -> None:
    hub = write_hub(tmp_path / "hub", [{"from": "README.md", "hosts": ["claude"]}])
    script(hub, "README.md", "# Ours\n")
    (found,) = problems(hub)
    assert "cannot be limited to hosts" in found


def test_an_mcp_json_ships_unless_the_agent_plugins_package_is_in_the_folder(
    tmp_path: Path,
) -> None:
    """A plugin folder's mcp.json is a plain file (a Cursor manifest names one:
    `"mcpServers": "./mcp.json"`), except where memhub writes the Agent Plugins one."""
    hub = write_hub(tmp_path / "hub", [{"from": "mcp.json"}])
    script(hub, "mcp.json", '{"mcpServers": {}}\n')
    assert [f.path for f in load(hub).files] == ["mcp.json"]
    shared = {**HUB["plugin"], "agent_plugins_folder": "shared"}
    hub = write_hub(tmp_path / "shared", [{"from": "mcp.json"}], plugin=shared)
    script(hub, "mcp.json", '{"mcpServers": {}}\n')
    (found,) = problems(hub)
    assert "lands on mcp.json, where memhub writes the Agent Plugins mcp.json" in found
