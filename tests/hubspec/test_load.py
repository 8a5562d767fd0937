"""hubspec.load: the model it builds, and the positions and fixes of what it rejects."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from memhub.hubspec import HubError, RemoteServer, StdioServer, load
from memhub.hubspec.refs import env_only, literal_secret, reference_problems, substitute

from tests.hubs import HUBS

BASE = """\
version: 1
plugin: {name: p, version: 0.1.0, description: d}
marketplace: {name: m, owner: {name: o}}
"""


def write_hub(root: Path, extra: str = "", files: dict[str, str] | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "hub.yaml").write_text(BASE + textwrap.dedent(extra))
    for rel, text in (files or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def problems_of(root: Path) -> list[str]:
    with pytest.raises(HubError) as caught:
        load(root)
    return [str(p) for p in caught.value.problems]


def test_full_hub_loads_into_a_frozen_model() -> None:
    hub = load(HUBS["full"])
    assert hub.plugin.title == "Full Probe"
    servers = {s.name: s for s in hub.mcp_servers}
    assert isinstance(servers["local-tool"], StdioServer)
    assert isinstance(servers["remote-api"], RemoteServer)
    assert servers["remote-api"].oauth.scopes == ("read", "write")
    assert [s.name for s in hub.skills] == ["triage"]
    assert {f.path: f.executable for f in hub.skills[0].files} == {
        "SKILL.md": False,
        "scripts/repro.sh": True,
    }
    assert hub.instructions and hub.instructions.text.startswith("# Probe instructions")
    with pytest.raises(AttributeError):
        hub.plugin.name = "other"  # type: ignore[misc]
    with pytest.raises(TypeError):
        hub.overrides["claude"]["manifest"]["x"] = 1  # type: ignore[index]


def test_problem_names_file_line_column_key_and_fix(tmp_path: Path) -> None:
    root = write_hub(tmp_path, "hooks:\n  - {id: a, event: turn_end, commnd: x}\n")
    missing, typo = problems_of(root)
    assert "a hook needs `handler` or `command`" in missing
    problem = typo
    assert problem.startswith(f"{root / 'hub.yaml'}:5:30: hooks[0].commnd: unknown key 'commnd'")
    assert "did you mean 'command'?" in problem
    assert "Fix: remove it or use one of:" in problem


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    root = write_hub(
        tmp_path,
        """
        hosts: [claude, vscode]
        hooks:
          - {id: Bad_Id, event: turn_end, command: x}
          - {id: ok, event: nope, command: x}
        """,
    )
    found = problems_of(root)
    assert len(found) == 3
    assert any("hosts[1]" in p for p in found)
    assert any("is not kebab-case" in p for p in found)
    assert any("hooks[1].event" in p for p in found)


def test_duplicate_yaml_keys_are_errors(tmp_path: Path) -> None:
    root = write_hub(tmp_path, "hosts: [claude]\nhosts: [codex]\n")
    (problem,) = problems_of(root)
    assert ":5:1: hosts: duplicate key 'hosts' (first defined at line 4)" in problem


def test_yaml_syntax_error_points_at_the_position(tmp_path: Path) -> None:
    root = write_hub(tmp_path, "hooks: [\n")
    (problem,) = problems_of(root)
    assert "YAML syntax error" in problem
    assert f"{root / 'hub.yaml'}:" in problem


def test_skill_front_matter_problems_point_into_skill_md(tmp_path: Path) -> None:
    root = write_hub(
        tmp_path,
        files={"skills/tidy/SKILL.md": '---\nname: "tidy\\nup"\ndescription: x\n---\nbody\n'},
    )
    (problem,) = problems_of(root)
    assert problem.startswith(
        f"{root / 'skills/tidy/SKILL.md'}:2:7: name: skill name 'tidy\\nup' has a line break"
    )


def test_skill_description_sanity_cap(tmp_path: Path) -> None:
    """Past 64 KiB a description is refused for every host; below it each host's adapter
    says what its CLI does (compiler/skilldescriptions.py)."""
    long = "d" * 65537
    root = write_hub(
        tmp_path, files={"skills/a/SKILL.md": f"---\nname: a\ndescription: {long}\n---\n"}
    )
    (problem,) = problems_of(root)
    assert f"{root / 'skills/a/SKILL.md'}:3:" in problem
    assert "65537 characters, over memhub's sanity cap of 65536" in problem


def test_a_long_description_under_the_cap_loads(tmp_path: Path) -> None:
    long = "d" * 5000
    root = write_hub(
        tmp_path, files={"skills/a/SKILL.md": f"---\nname: a\ndescription: {long}\n---\n"}
    )
    (skill,) = load(root).skills
    assert skill.description == long


def test_skill_links_are_refused(tmp_path: Path) -> None:
    root = write_hub(tmp_path, files={"skills/a/SKILL.md": "---\nname: a\ndescription: x\n---\n"})
    (root / "skills/a/leak").symlink_to("/etc/hostname")
    (problem,) = problems_of(root)
    assert "skills may not contain links" in problem


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("../outside", "climbs out of the hub folder"),
        ("/etc", "is an absolute path"),
        ("~/skills", "is an absolute path"),
        ("missing", "folder 'missing' does not exist"),
    ],
)
def test_skills_path_must_stay_inside_the_hub(tmp_path: Path, value: str, message: str) -> None:
    root = write_hub(tmp_path, f"skills: {value!r}\n")
    (problem,) = problems_of(root)
    assert message in problem


def test_skills_folder_linked_outside_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    root = write_hub(tmp_path / "hub", "skills: linked\n")
    (root / "linked").symlink_to(outside)
    (problem,) = problems_of(root)
    assert "resolves outside the hub folder" in problem


@pytest.mark.parametrize(
    ("where", "value"),
    [
        ("env: {GITHUB_TOKEN: ghp_abcdefghijklmnopqrstuvwxyz0123456789}", "credential token"),
        ("env: {API_KEY: hunter2}", "names a secret but its value is a literal"),
        ("env: {X: sk-abcdefghijklmnopqrstuvwx}", "credential token"),
    ],
)
def test_literal_secrets_in_env_are_errors(tmp_path: Path, where: str, value: str) -> None:
    root = write_hub(tmp_path, f"mcp:\n  servers:\n    s:\n      command: x\n      {where}\n")
    (problem,) = problems_of(root)
    assert value in problem
    assert "write ${env:" in problem


def test_literal_bearer_header_is_an_error_but_a_reference_is_fine(tmp_path: Path) -> None:
    bad = write_hub(
        tmp_path / "bad",
        "mcp:\n  servers:\n    s:\n      url: https://x.example\n"
        "      headers: {Authorization: Bearer abc123}\n",
    )
    assert "literal credential after the auth scheme" in problems_of(bad)[0]
    good = write_hub(
        tmp_path / "good",
        "mcp:\n  servers:\n    s:\n      url: https://x.example\n"
        '      headers: {Authorization: "Bearer ${env:TOKEN}"}\n',
    )
    assert load(good).mcp_servers[0].headers["Authorization"] == "Bearer ${env:TOKEN}"


def test_credentials_in_a_url_are_an_error(tmp_path: Path) -> None:
    root = write_hub(tmp_path, "mcp:\n  servers:\n    s:\n      url: https://u:p@x.example/mcp\n")
    assert "carries user credentials" in problems_of(root)[0]


def test_stdio_keys_on_a_remote_server_are_errors(tmp_path: Path) -> None:
    root = write_hub(
        tmp_path, "mcp:\n  servers:\n    s:\n      url: https://x.example\n      cwd: ./a\n"
    )
    assert "'cwd' applies to stdio servers only" in problems_of(root)[0]


@pytest.mark.parametrize("cwd", ["../up", "/abs", "${plugin_root}/../x", "work"])
def test_cwd_must_stay_in_the_plugin(tmp_path: Path, cwd: str) -> None:
    root = write_hub(tmp_path, f"mcp:\n  servers:\n    s:\n      command: x\n      cwd: '{cwd}'\n")
    assert "cwd" in problems_of(root)[0]


def test_tools_only_on_tool_events(tmp_path: Path) -> None:
    root = write_hub(tmp_path, "hooks:\n  - {id: a, event: turn_end, tools: [shell], command: x}\n")
    assert "`tools` only applies to tool events" in problems_of(root)[0]


def test_unknown_handler_names_the_fix(tmp_path: Path) -> None:
    root = write_hub(tmp_path, "hooks:\n  - {id: a, event: turn_end, handler: capture.turn}\n")
    problem = problems_of(root)[0]
    assert "unknown runtime handler 'capture.turn'" in problem and "command:" in problem


def test_reference_rules() -> None:
    assert reference_problems("${env:OK_1}", allow_plugin=True, allow_unknown=False) == []
    assert reference_problems("${env:1BAD}", allow_plugin=True, allow_unknown=False)
    assert reference_problems("${HOME}", allow_plugin=True, allow_unknown=False)
    assert reference_problems("${HOME}", allow_plugin=True, allow_unknown=True) == []
    assert reference_problems("${plugin_root}", allow_plugin=False, allow_unknown=False)
    assert reference_problems("${env:X", allow_plugin=True, allow_unknown=False)
    assert env_only("${env:X}") == "X"
    assert env_only("a${env:X}") is None
    assert (
        substitute(
            "${plugin_root}/b ${env:T}", env=lambda n: f"$({n})", plugin_root="R", plugin_data="D"
        )
        == "R/b $(T)"
    )


@pytest.mark.parametrize(
    ("key", "value", "secret"),
    [
        ("LOG_LEVEL", "info", False),
        ("TOKEN", "${env:TOKEN}", False),
        ("Authorization", "Bearer ${env:T}", False),
        ("X-Client", "memhub", False),
        ("AWS_ACCESS_KEY_ID", "AKIAABCDEFGHIJKLMNOP", True),
        ("SLACK", "xoxb-1234567890-abcdef", True),
        ("PASSWORD", "p", True),
        ("Authorization", "Basic dXNlcjpwYXNz", True),
    ],
)
def test_literal_secret_detection(key: str, value: str, secret: bool) -> None:
    assert (literal_secret(key, value) is not None) is secret


def test_icon_must_be_an_image_inside_the_hub(tmp_path: Path) -> None:
    root = write_hub(tmp_path, "", files={"icon.png": "not a png"})
    text = (
        (root / "hub.yaml")
        .read_text()
        .replace("description: d}", "description: d, icon: icon.png}")
    )
    (root / "hub.yaml").write_text(text)
    assert "'icon.png' is not a PNG, JPEG or SVG image" in problems_of(root)[0]
    (root / "hub.yaml").write_text(text.replace("icon: icon.png", "icon: ../icon.png"))
    assert "climbs out of the hub folder" in problems_of(root)[0]


def test_plain_files_beside_skill_folders_are_ignored(tmp_path: Path) -> None:
    root = write_hub(
        tmp_path,
        files={
            "skills/README.md": "notes for people",
            "skills/a/SKILL.md": "---\nname: a\ndescription: x\n---\n",
        },
    )
    assert [s.name for s in load(root).skills] == ["a"]


def test_load_is_the_function_whichever_import_comes_first() -> None:
    """hubspec imports its loader lazily; importing the module first must not shadow it."""
    import subprocess
    import sys

    code = (
        "import memhub.hubspec.loader, memhub.compiler.importing.planner\n"
        "from memhub.hubspec import load, find_hub_file\n"
        "assert callable(load) and callable(find_hub_file), load\n"
        "import memhub.hubspec as h; assert 'memhub.hubspec.loader' in __import__('sys').modules\n"
    )
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert fresh.returncode == 0, fresh.stderr
    cold = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, memhub.compiler.cli.main; print('yaml' in sys.modules)",
        ],
        capture_output=True,
        text=True,
    )
    assert cold.stdout.strip() == "False", "the CLI should not import YAML at start-up"
