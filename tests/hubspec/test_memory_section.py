"""`memory:` in hub.yaml: checked like every section (file:line:col, a fix) and expanded into
the hub's servers and instructions."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhub.hubspec import HubError, load
from memhub.hubspec.memory import GUIDANCE_SOURCE, SERVER_NAME
from memhub.hubspec.model import Memory, StdioServer

HEAD = """version: 1
plugin: {name: demo, version: 0.1.0, description: A demo.}
marketplace: {name: demo-market, owner: {name: Ann}}
hosts: [claude, codex, gemini, cursor]
"""


def _hub(tmp_path: Path, tail: str, files: dict[str, str] | None = None) -> Path:
    (tmp_path / "hub.yaml").write_text(HEAD + tail, "utf-8")
    for name, text in (files or {}).items():
        (tmp_path / name).write_text(text, "utf-8")
    return tmp_path


def _problems(tmp_path: Path, tail: str) -> list[str]:
    with pytest.raises(HubError) as caught:
        load(_hub(tmp_path, tail))
    return [str(p) for p in caught.value.problems]


def _server(hub_dir: Path) -> StdioServer:
    hub = load(hub_dir)
    found = [s for s in hub.mcp_servers if s.name == SERVER_NAME]
    assert len(found) == 1
    assert isinstance(found[0], StdioServer)
    return found[0]


def test_an_empty_section_means_read_tools_both_scopes_and_guidance(tmp_path: Path) -> None:
    hub = load(_hub(tmp_path, "memory: {}\n"))
    assert hub.memory is not None
    assert (hub.memory.server, hub.memory.instructions) == ("read", True)
    assert hub.memory.scopes == ("shared", "project")
    server = _server(tmp_path)
    assert server.command == "memhub"
    assert server.args == ("mcp", "serve", "--scope", "shared", "--scope", "project")
    assert server.project_option == "--project"  # for a host that starts it elsewhere
    assert hub.instructions is not None and hub.instructions.source == GUIDANCE_SOURCE
    assert "search_memory" in hub.instructions.text
    assert "save_memory" not in hub.instructions.text  # read-only: no save tool to call


def test_write_adds_the_write_flag_and_the_saving_guidance(tmp_path: Path) -> None:
    hub_dir = _hub(tmp_path, "memory: {server: write, scopes: [project]}\n")
    assert _server(hub_dir).args == ("mcp", "serve", "--write", "--scope", "project")
    text = load(hub_dir).instructions.text  # type: ignore[union-attr]
    for words in ("before you start work", "unfamiliar error", "earlier work or decisions"):
        assert words in text
    for words in ("a decision made", "a lesson learned from a failure", "preference the user"):
        assert words in text
    assert "proposed" in text and "memhub memory accept" in text


def test_off_installs_nothing(tmp_path: Path) -> None:
    hub = load(_hub(tmp_path, "memory: {server: off}\n"))
    assert hub.mcp_servers == () and hub.instructions is None
    assert hub.memory == Memory(server="off", origin=hub.memory.origin)  # type: ignore[union-attr]


def test_instructions_false_keeps_the_server_only(tmp_path: Path) -> None:
    hub = load(_hub(tmp_path, "memory: {instructions: false}\n"))
    assert [s.name for s in hub.mcp_servers] == [SERVER_NAME]
    assert hub.instructions is None


def test_the_guidance_follows_the_hubs_own_instructions(tmp_path: Path) -> None:
    own = "# Team rules\n\nRun the tests.\n"
    hub_dir = _hub(tmp_path, "instructions: RULES.md\nmemory: {}\n", {"RULES.md": own})
    hub = load(hub_dir)
    assert hub.instructions is not None
    assert hub.instructions.source == "RULES.md"
    assert hub.instructions.text.startswith(own + "\n## Memory\n")


def test_the_hubs_own_servers_come_first(tmp_path: Path) -> None:
    tail = "mcp:\n  servers:\n    files: {command: npx}\nmemory: {}\n"
    assert [s.name for s in load(_hub(tmp_path, tail)).mcp_servers] == ["files", SERVER_NAME]


@pytest.mark.parametrize(
    ("tail", "line", "words"),
    [
        ("memory: {server: readwrite}\n", 5, "readwrite"),
        ("memory: {instructions: sometimes}\n", 5, "true or false"),
        ("memory: {scopes: [shared, other]}\n", 5, "other"),
        ("memory: {scopes: []}\n", 5, "scopes"),
        ("memory: {scopes: [project, project]}\n", 5, "scopes"),
        ("memory:\n  server: read\n  recall: true\n", 7, "recall"),
        ("memory: [read]\n", 5, "memory"),
    ],
)
def test_bad_values_and_unknown_keys_name_file_line_and_a_fix(
    tmp_path: Path, tail: str, line: int, words: str
) -> None:
    problems = _problems(tmp_path, tail)
    assert len(problems) == 1, problems
    text = problems[0]
    assert f"hub.yaml:{line}:" in text, text
    assert words in text and "Fix:" in text, text


def test_a_server_of_the_same_name_is_refused_at_its_key(tmp_path: Path) -> None:
    tail = "mcp:\n  servers:\n    memhub-memory: {command: other}\nmemory: {}\n"
    (problem,) = _problems(tmp_path, tail)
    assert "hub.yaml:7:5:" in problem and "memory:" in problem and "rename" in problem


@pytest.mark.parametrize("where", ["url", "headers"])
def test_project_dir_is_for_stdio_servers_only(tmp_path: Path, where: str) -> None:
    spec = (
        "{url: 'https://example.com/${project_dir}'}"
        if where == "url"
        else "{url: 'https://example.com', headers: {X-Dir: '${project_dir}'}}"
    )
    (problem,) = _problems(tmp_path, f"mcp:\n  servers:\n    remote: {spec}\n")
    assert "${project_dir} is not allowed here" in problem
