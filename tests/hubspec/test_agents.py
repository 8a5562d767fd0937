"""`agents:` and `commands:`: Markdown files with front matter, read like skills."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from memhub.hubspec import HubError, load
from memhub.hubspec.agents import lenient_front
from memhub.hubspec.files import MAX_FILE_BYTES
from memhub.hubspec.model import Agent, Command

from tests.hubs import REPO

FIXTURE = REPO / "tests" / "data" / "shipped"
HUB: dict[str, Any] = {
    "version": 1,
    "plugin": {"name": "prompt-test", "version": "0.1.0", "description": "Agents."},
    "marketplace": {"name": "prompt-market", "owner": {"name": "Ann"}},
}
AGENT = "---\nname: {name}\ndescription: Use when reviewing.\n---\n\nReview it.\n"
COMMAND = "---\ndescription: Do the thing\n---\n\nDo $ARGUMENTS.\n"


def write_hub(root: Path, **keys: Any) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "hub.yaml").write_text(yaml.safe_dump({**HUB, **keys}))
    return root


def put(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def problems(root: Path) -> list[str]:
    with pytest.raises(HubError) as caught:
        load(root)
    found = [str(p) for p in caught.value.problems]
    assert found and all("Fix:" in text for text in found)
    return found


def test_the_fixture_reads_two_agents_and_two_commands_byte_for_byte() -> None:
    hub = load(FIXTURE)
    assert [(type(a), a.name) for a in hub.agents] == [
        (Agent, "code-reviewer"),
        (Agent, "doc-writer"),
    ]
    assert [(type(c), c.name) for c in hub.commands] == [
        (Command, "release_notes"),
        (Command, "review-pr"),
    ]
    for item in (*hub.agents, *hub.commands):
        assert item.content == Path(item.origin.file).read_bytes()
        assert item.hosts is None
    reviewer = hub.agents[0]
    assert dict(reviewer.front)["tools"] == "Read, Grep, Glob"
    assert reviewer.body.startswith("\nYou are a careful code reviewer.")


def test_front_matter_yaml_refuses_is_read_as_claude_reads_it() -> None:
    """`description: ... Examples: <example>...` is no valid YAML (a second `: `), and the
    published Claude Code agents are full of it."""
    (_, writer) = load(FIXTURE).agents
    assert writer.description.startswith("Use this agent to write or update documentation.")
    assert writer.description.endswith("<example>user: document this</example>")
    assert lenient_front("a: one: two\n  more\nb:\n") == {"a": "one: two\nmore", "b": ""}


def test_the_mapping_form_limits_the_hosts(tmp_path: Path) -> None:
    hub = write_hub(tmp_path / "hub", agents={"from": "ag", "hosts": ["claude", "cursor"]})
    put(hub, "ag/rev.md", AGENT.format(name="rev"))
    (agent,) = load(hub).agents
    assert agent.hosts == ("claude", "cursor")


def test_dotfiles_are_skipped(tmp_path: Path) -> None:
    hub = write_hub(tmp_path / "hub", commands="cmds")
    put(hub, "cmds/go.md", COMMAND)
    put(hub, "cmds/.DS_Store", b"\0\1")
    assert [c.name for c in load(hub).commands] == ["go"]


# --- refusals, each naming file:line ------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "text", "line", "words"),
    [
        ("agents", "no front matter\n", 1, "has no front matter"),
        ("agents", "---\nname: rev\n---\nbody\n", 2, "no `description` text"),
        ("agents", "---\nname: rev\ndescription: '  '\n---\n", 3, "no `description` text"),
        ("agents", "---\ndescription: x\nname: [a]\n---\n", 3, "is not one line of text"),
        ("commands", "---\ndescription: [1, 2]\n---\n", 2, "no `description` text"),
    ],
)
def test_bad_front_matter_is_refused(
    tmp_path: Path, key: str, text: str, line: int, words: str
) -> None:
    hub = write_hub(tmp_path / "hub", **{key: "p"})
    file = put(hub, "p/rev.md", text)
    (found,) = problems(hub)
    assert found.startswith(f"{file}:{line}:1:"), found
    assert words in found


# --- what Claude Code loads: names apart from the file, commands without front matter ------


@pytest.mark.parametrize(
    ("text", "declared", "title"),
    [
        ("---\nname: api-rev\ndescription: x\n---\nbody\n", "api-rev", "api-rev"),
        ("---\ndescription: x\n---\nbody\n", None, "rev"),  # listed by its file name
        ("---\nname: rev\ndescription: x\n---\nbody\n", "rev", "rev"),
    ],
)
def test_an_agent_keeps_its_file_name_apart_from_its_name(
    tmp_path: Path, text: str, declared: str | None, title: str
) -> None:
    hub = write_hub(tmp_path / "hub", agents="p")
    file = put(hub, "p/rev.md", text)
    (agent,) = load(hub).agents
    assert (agent.name, agent.declared, agent.title) == ("rev", declared, title)
    assert agent.content == file.read_bytes()


@pytest.mark.parametrize(
    ("text", "description", "declared"),
    [
        ("Review $ARGUMENTS now.\n", "", None),  # no front matter: the body is the prompt
        ("---\ndescription: x\n", "", None),  # an unclosed fence is no front matter
        ("---\nargument-hint: x\n---\nbody\n", "", None),
        ("---\nname: tob:rev\ndescription: Go.\n---\nbody\n", "Go.", "tob:rev"),
    ],
)
def test_a_command_needs_no_front_matter_and_keeps_its_name(
    tmp_path: Path, text: str, description: str, declared: str | None
) -> None:
    hub = write_hub(tmp_path / "hub", commands="p")
    file = put(hub, "p/rev.md", text)
    (command,) = load(hub).commands
    assert (command.name, command.description, command.declared) == ("rev", description, declared)
    assert command.content == file.read_bytes()
    if not text.startswith("---\nn") and not text.startswith("---\na"):
        assert command.body == text


@pytest.mark.parametrize("stem", ["Bad Name", "UPPER", "-lead", "a--b", "x" * 65])
def test_names_hosts_refuse_are_refused(tmp_path: Path, stem: str) -> None:
    hub = write_hub(tmp_path / "hub", commands="p")
    put(hub, f"p/{stem}.md", COMMAND)
    (found,) = problems(hub)
    assert "is not lowercase words joined by - or _" in found


def test_not_utf8_is_refused(tmp_path: Path) -> None:
    hub = write_hub(tmp_path / "hub", commands="p")
    file = put(hub, "p/go.md", b"---\ndescription: \xff\n---\n")
    (found,) = problems(hub)
    assert found.startswith(f"{file}:1:1:") and "not UTF-8" in found


@pytest.mark.parametrize("make", ["folder", "link", "text", "fifo"])
def test_anything_but_a_md_file_is_refused(tmp_path: Path, make: str) -> None:
    import os

    hub = write_hub(tmp_path / "hub", agents="p")
    put(hub, "p/ok.md", AGENT.format(name="ok"))
    odd = hub / "p" / ("odd" if make != "text" else "notes.txt")
    if make == "folder":
        put(hub, "p/odd/x.md", AGENT.format(name="x"))
    elif make == "link":
        odd.symlink_to(hub / "p" / "ok.md")
    elif make == "fifo":
        os.mkfifo(odd)
    else:
        odd.write_text("notes")
    (found,) = problems(hub)
    assert found.startswith(f"{odd}:1:1:") and "holds only <name>.md files" in found


def test_a_file_over_the_limit_is_refused(tmp_path: Path) -> None:
    hub = write_hub(tmp_path / "hub", agents="p")
    with open(put(hub, "p/big.md", ""), "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    (found,) = problems(hub)
    assert f"over {MAX_FILE_BYTES:,}" in found


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("missing", "folder 'missing' does not exist"),
        ("../up", "climbs out of the hub folder"),
        ("/abs", "is an absolute path"),
        (3, "agents: expected"),
        ({"hosts": ["claude"]}, "missing required key 'from'"),
        ({"from": "p", "color": "red"}, "unknown key 'color'"),
    ],
)
def test_a_bad_folder_key_is_refused_in_hub_yaml(tmp_path: Path, value: Any, words: str) -> None:
    hub = write_hub(tmp_path / "hub", agents=value)
    found = problems(hub)
    assert any(words in text for text in found), found
    assert all(text.startswith(f"{hub / 'hub.yaml'}:") for text in found)


def test_a_folder_link_leaving_the_hub_is_refused(tmp_path: Path) -> None:
    put(tmp_path, "elsewhere/a.md", AGENT.format(name="a"))
    hub = write_hub(tmp_path / "hub", agents="p")
    (hub / "p").symlink_to(tmp_path / "elsewhere")
    (found,) = problems(hub)
    assert "resolves outside the hub folder" in found
