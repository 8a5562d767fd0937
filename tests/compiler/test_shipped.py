"""Shipped files, agents and commands in each host's plugin folder (compiler/hosts/shipped.py)."""

from __future__ import annotations

import tomllib
from dataclasses import replace

import pytest
import yaml
from memhub.compiler.artifact import EXEC_MODE, FILE_MODE
from memhub.compiler.build import build
from memhub.compiler.hosts import gemini_prompts, opencode_prompts
from memhub.compiler.hosts.shipped import for_host
from memhub.hubspec import load
from memhub.hubspec.model import Agent, Command, ShippedFile
from memhub.hubspec.skills import split_front_matter

from tests.hubs import REPO, text_files

FIXTURE = REPO / "tests" / "data" / "shipped"
PLUGIN = "plugins/shipped-demo"
GEMINI = "gemini/shipped-demo"
AGENTS = "agent-plugins/shipped-demo"


@pytest.fixture(scope="module")
def result():
    return build(load(FIXTURE))


def test_every_plugin_folder_gets_the_files_byte_for_byte_with_modes(result) -> None:
    hub = result.hub
    for base in (PLUGIN, GEMINI, AGENTS):
        for item in hub.files:
            if item.hosts is not None:
                continue
            artifact = result.artifact(f"{base}/{item.path}")
            assert artifact is not None, (base, item.path)
            assert artifact.content == (FIXTURE / item.source).read_bytes()
            assert artifact.mode == (EXEC_MODE if item.executable else FILE_MODE)
    assert result.artifact(f"{PLUGIN}/scripts/mark.sh").mode == EXEC_MODE
    assert result.artifact(f"{PLUGIN}/scripts/lib/helpers.py").mode == FILE_MODE


def test_a_file_limited_to_claude_lands_only_in_its_folder(result) -> None:
    assert result.artifact(f"{PLUGIN}/claude-notes.md").owners == ("claude",)
    assert result.artifact(f"{GEMINI}/claude-notes.md") is None
    assert result.artifact(f"{AGENTS}/claude-notes.md") is None
    codex_only = build(result.hub, ["codex"])
    assert codex_only.artifact(f"{PLUGIN}/claude-notes.md") is None
    assert codex_only.artifact(f"{PLUGIN}/scripts/mark.sh") is not None


def test_the_shared_plugin_folder_holds_one_copy_owned_by_its_hosts(result) -> None:
    shared = result.artifact(f"{PLUGIN}/scripts/mark.sh")
    assert shared.owners == ("claude", "codex", "cursor")
    agent = result.artifact(f"{PLUGIN}/agents/code-reviewer.md")
    assert agent.owners == ("claude", "cursor")  # Codex reads no agents
    assert agent.content == (FIXTURE / "agents" / "code-reviewer.md").read_bytes()


def test_the_hook_names_the_shipped_script_through_each_hosts_root(result) -> None:
    claude = result.artifact(f"{PLUGIN}/hooks/claude-hooks.json").content.decode()
    gemini = result.artifact(f"{GEMINI}/hooks/hooks.json").content.decode()
    assert '\\"${CLAUDE_PLUGIN_ROOT}/scripts/mark.sh\\"' in claude
    assert '\\"${extensionPath}/scripts/mark.sh\\"' in gemini


def test_every_agent_and_command_has_a_row_on_every_host(result) -> None:
    rows = {(r.host, r.component, r.id): r for r in result.coverage}
    names = [("agent", a.name) for a in result.hub.agents]
    names += [("command", c.name) for c in result.hub.commands]
    for host in result.hosts:
        for component, name in names:
            assert (host, component, name) in rows
    assert rows[("codex", "agent", "code-reviewer")].status == "unsupported"
    assert rows[("agent-plugins", "command", "review-pr")].status == "unsupported"
    assert rows[("cursor", "command", "review-pr")].target == "commands/review-pr.md"
    gemini = rows[("gemini", "agent", "code-reviewer")]
    assert gemini.status == "caveat" and "tools, model, color left out" in gemini.reason


def test_gemini_commands_are_toml_with_args(result) -> None:
    text = result.artifact(f"{GEMINI}/commands/review-pr.toml").content.decode()
    parsed = tomllib.loads(text)
    assert parsed["description"] == "Review a pull request by number"
    assert parsed["prompt"] == (
        "Review pull request {{args}}. Summarise the change, then list problems by severity.\n"
    )
    assert "$ARGUMENTS" not in text


@pytest.mark.parametrize(
    "body",
    [
        "plain\n",
        "has ''' three quotes\n",
        "ends in a quote'",
        "a tab\tand a bell \x07\n",
        'quotes " and \\ backslashes\n',
    ],
)
def test_gemini_prompts_survive_any_text(body: str) -> None:
    command = Command("c", 'say "hi"', b"", body, hosts=None)
    parsed = tomllib.loads(gemini_prompts.command(command).content.decode())
    assert parsed == {"description": 'say "hi"', "prompt": body}


def test_positional_arguments_are_a_caveat() -> None:
    written = gemini_prompts.command(Command("c", "d", b"", "Fix issue $1 now\n"))
    assert "no positional arguments" in written.caveat


def test_gemini_agents_keep_only_the_keys_gemini_accepts(result) -> None:
    text = result.artifact(f"{GEMINI}/agents/code-reviewer.md").content.decode()
    split = split_front_matter(text)
    assert split is not None
    assert yaml.safe_load(split[0]) == {
        "name": "code-reviewer",
        "description": "Use this agent when code was just written and needs a careful review.",
    }
    assert split[1] == result.hub.agents[0].body


@pytest.mark.parametrize(
    ("declared", "listed"),
    [("api-rev", "api-rev"), ("tob:rev", "rev"), (None, "rev")],  # not a Gemini name: the file's
)
def test_gemini_lists_an_agent_by_the_name_claude_code_lists(
    declared: str | None, listed: str
) -> None:
    agent = Agent("rev", "d", b"", "body\n", declared=declared)
    written = gemini_prompts.agent(agent)
    split = split_front_matter(written.content.decode())
    assert written.path == "agents/rev.md" and split is not None
    assert yaml.safe_load(split[0])["name"] == listed
    assert ("no Gemini name" in written.caveat) == (declared == "tob:rev")


def test_a_command_without_description_gets_none_in_gemini_and_opencode() -> None:
    bare = Command("go", "", b"Do $ARGUMENTS.\n", "Do $ARGUMENTS.\n")
    parsed = tomllib.loads(gemini_prompts.command(bare).content.decode())
    assert parsed == {"prompt": "Do {{args}}.\n"}
    assert opencode_prompts.command(bare).content == b"Do $ARGUMENTS.\n"


def test_for_host_reads_the_hosts_limit() -> None:
    item = ShippedFile("a", b"", hosts=("claude",))
    assert for_host(item, "claude") and not for_host(item, "gemini")
    assert for_host(replace(item, hosts=None), "gemini")


def test_a_hub_without_the_sections_builds_no_extra_file() -> None:
    plain = load(REPO / "examples" / "minimal")
    assert plain.files == () and plain.agents == () and plain.commands == ()
    assert not any("/agents/" in a.path or "/commands/" in a.path for a in build(plain).artifacts)


@pytest.mark.parametrize("owner", ["claude", "codex", "cursor", "gemini", "agent-plugins"])
def test_generated_files_match_snapshot(result, owner: str, snapshot) -> None:
    assert text_files(result, owner) == snapshot


def test_coverage_matches_snapshot(result, snapshot) -> None:
    assert [row.to_json() for row in result.coverage] == snapshot


def _copy_fixture(tmp_path):
    import shutil

    hub = tmp_path / "hub"
    shutil.copytree(FIXTURE, hub, symlinks=True)
    return hub


def test_the_shipped_bytes_and_mode_are_part_of_the_build(tmp_path) -> None:
    hub = _copy_fixture(tmp_path)
    before = build(load(hub)).artifact(f"{PLUGIN}/scripts/lib/helpers.py")
    (hub / "scripts" / "lib" / "helpers.py").write_text("GREETING = 'changed'\n")
    changed = build(load(hub)).artifact(f"{PLUGIN}/scripts/lib/helpers.py")
    assert changed.fingerprint != before.fingerprint
    (hub / "scripts" / "lib" / "helpers.py").chmod(0o755)
    assert build(load(hub)).artifact(f"{PLUGIN}/scripts/lib/helpers.py").mode == EXEC_MODE


def test_agents_and_commands_limited_to_hosts_go_nowhere_else(tmp_path) -> None:
    hub = _copy_fixture(tmp_path)
    data = yaml.safe_load((hub / "hub.yaml").read_text())
    data["agents"] = {"from": "agents", "hosts": ["claude"]}
    data["commands"] = {"from": "commands", "hosts": ["gemini"]}
    (hub / "hub.yaml").write_text(yaml.safe_dump(data))
    result = build(load(hub))
    prompts = [r for r in result.coverage if r.component in ("agent", "command")]
    placed = {(r.host, r.component) for r in prompts if "(hosts:)" not in r.reason}
    assert placed == {("claude", "agent"), ("gemini", "command")}
    # every other host is told why it has none (perhost: limited, not silently dropped)
    away = {(r.host, r.component) for r in prompts if "(hosts:)" in r.reason}
    assert ("codex", "agent") in away and ("claude", "command") in away
    assert not placed & away
    assert result.artifact(f"{PLUGIN}/agents/code-reviewer.md").owners == ("claude",)
    assert result.artifact(f"{PLUGIN}/commands/review-pr.md") is None
    assert result.artifact(f"{GEMINI}/agents/code-reviewer.md") is None
    assert result.artifact(f"{GEMINI}/commands/review-pr.toml") is not None
