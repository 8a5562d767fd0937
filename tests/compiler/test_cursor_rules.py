"""Several Cursor rules (`rules:`): each file copied byte for byte into the Cursor plugin's
rules/, its front matter checked as Cursor reads it, a row for the hosts without rules, and
a repository holding several rules read back whole by `import --from-repo`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from memhub.compiler.build import build
from memhub.compiler.importing.repo_market import import_repo
from memhub.compiler.importing.repo_tree import read_tree
from memhub.compiler.importing.roundtrip import round_trip
from memhub.hubspec import HubError, load

from tests.hubs import REPO
from tests.hubspec.test_load import write_hub

TS = "---\ndescription: TypeScript\nglobs: src/**/*.ts\nalwaysApply: false\n---\n\nNo any.\n"
LISTED = '---\nglobs:\n  - "tests/**"\n  - "*.py"\n---\nBody\n'
MANUAL = "Asked for by name.\r\n"
RULES = {"rules/ts.mdc": TS, "rules/listed.mdc": LISTED, "rules/manual.md": MANUAL}
HOSTS = "hosts: [claude, cursor]\nrules: rules\n"


def hub_with(tmp_path: Path, files: dict[str, str], extra: str = HOSTS) -> Path:
    return write_hub(tmp_path / "hub", extra, files)


def test_each_rule_ships_byte_for_byte_for_cursor(tmp_path: Path) -> None:
    result = build(load(hub_with(tmp_path, RULES)))
    for rel, text in RULES.items():
        built = result.artifact(f"plugins/p/{rel}")
        assert built is not None and built.content == text.encode() and built.owners == ("cursor",)
    manifest = result.artifact("plugins/p/.cursor-plugin/plugin.json")
    assert manifest is not None and json.loads(manifest.content)["rules"] == "./rules/"
    rows = {(r.host, r.id): r for r in result.coverage if r.component == "rule"}
    assert rows["cursor", "ts.mdc"].status == "mapped"
    assert rows["claude", "ts.mdc"].status == "unsupported"
    assert (
        rows["claude", "ts.mdc"].reason == "a Cursor rule (rules:); Claude Code has no such files"
    )


def test_rules_sit_beside_the_rule_of_the_instructions(tmp_path: Path) -> None:
    extra = HOSTS + "instructions: AGENTS.md\n"
    result = build(load(hub_with(tmp_path, {**RULES, "AGENTS.md": "Be brief.\n"}, extra)))
    rules = sorted(a.path for a in result.artifacts if "/rules/" in a.path)
    assert rules == [f"plugins/p/rules/{n}" for n in ("listed.mdc", "manual.md", "p.mdc", "ts.mdc")]


def test_a_rule_named_as_the_instructions_rule_is_refused(tmp_path: Path) -> None:
    extra = HOSTS + "instructions: AGENTS.md\n"
    root = hub_with(tmp_path, {"rules/p.mdc": TS, "AGENTS.md": "Be brief.\n"}, extra)
    with pytest.raises(HubError) as caught:
        load(root)
    assert "rules/p.mdc has the name of the rule memhub writes from `instructions`" in str(
        caught.value
    )


@pytest.mark.parametrize(
    ("name", "text", "line", "said"),
    [
        ("a.mdc", "---\nalwaysapply: true\n---\n", 2, "front matter key 'alwaysapply'"),
        ("a.mdc", "---\nalwaysApply: yes\n---\n", 2, "alwaysApply is 'yes'"),
        ("a.mdc", "---\ndescription: a\ndescription: b\n---\n", 3, "key 'description' twice"),
        ("a.mdc", "---\ndescription: a\njust words\n---\n", 3, "is no `key: value`"),
        ("a.mdc", "---\ndescription: a\n", 1, "the front matter is not closed"),
        ("notes.txt", "text\n", 1, "rules/ holds only rule files"),
    ],
)
def test_a_rule_cursor_would_misread_is_refused_where_it_is(
    tmp_path: Path, name: str, text: str, line: int, said: str
) -> None:
    root = hub_with(tmp_path, {f"rules/{name}": text})
    with pytest.raises(HubError) as caught:
        load(root)
    (problem,) = caught.value.problems
    assert str(problem).startswith(f"{root / 'rules' / name}:{line}:1: ")
    assert said in problem.message and problem.fix


def test_a_link_a_folder_and_bytes_that_are_not_utf8_are_refused(tmp_path: Path) -> None:
    root = hub_with(tmp_path, {"rules/sub/a.mdc": TS, "outside.mdc": TS})
    os.symlink(root / "outside.mdc", root / "rules" / "link.mdc")
    (root / "rules" / "latin.mdc").write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(HubError) as caught:
        load(root)
    refused = {Path(p.origin.file).name: p.message for p in caught.value.problems}
    assert set(refused) == {"sub", "link.mdc", "latin.mdc"}
    assert "links and folders are not followed" in refused["link.mdc"]
    assert "not UTF-8" in refused["latin.mdc"]


def test_a_repository_with_several_rules_round_trips_whole() -> None:
    tree = read_tree(REPO / "tests" / "data" / "repos" / "cursor-rules")
    imported = import_repo(tree)
    result = round_trip(tree, imported)
    assert result.unreproduced == []
    assert (result.files_same, result.files_total) == (9, 9)
    (style, _), *_ = imported.plugins
    assert sorted(r for r in style.files if r.startswith("rules/")) == [
        "rules/always.mdc",
        "rules/release.md",
        "rules/tests.mdc",
        "rules/typescript.mdc",
    ]


def test_a_rule_the_loader_refuses_ships_as_it_is_and_the_rest_imported(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    manifest = {"name": "style", "version": "1.0.0", "description": "S.", "rules": "./rules/"}
    (repo / ".cursor-plugin").mkdir(parents=True)
    (repo / ".cursor-plugin" / "plugin.json").write_text(json.dumps(manifest))
    (repo / "rules").mkdir()
    (repo / "rules" / "good.mdc").write_text(TS)
    (repo / "rules" / "bad.mdc").write_text("---\ntype: always\n---\n")
    tree = read_tree(repo)
    imported = import_repo(tree)
    result = round_trip(tree, imported)
    assert result.unreproduced == []  # Cursor reads the same bytes from the build
    (note,) = [n for n in imported.notes if n.startswith("rules/bad.mdc")]
    assert "shipped as it is" in note and "front matter key 'type'" in note
    (style, _), *_ = imported.plugins
    assert style.as_is == ["rules/bad.mdc"]


def test_a_rule_with_crlf_lines_ships_as_written(tmp_path: Path) -> None:
    text = "---\r\ndescription: Windows\r\nalwaysApply: true\r\n---\r\nBody\r\n"
    result = build(load(hub_with(tmp_path, {"rules/win.mdc": text})))
    built = result.artifact("plugins/p/rules/win.mdc")
    assert built is not None and built.content == text.encode()


def test_a_rule_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    root = hub_with(tmp_path, {"rules/ok.mdc": TS})
    with open(root / "rules" / "big.mdc", "wb") as handle:
        handle.truncate(10 * 1024 * 1024 + 1)
    with pytest.raises(HubError) as caught:
        load(root)
    (problem,) = caught.value.problems
    assert problem.origin.file.endswith("big.mdc") and "over 10,485,760" in problem.message
