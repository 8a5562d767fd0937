"""Skill names as the hosts take them: no `name:` (the folder stands in), names that are not
kebab-case, and what stays refused (unsafe folders, folders two groups deep, names equal in
any case)."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhub.hubspec import HubError, load
from memhub.hubspec.skills import unsafe_folder_name

from tests.hubspec.test_load import write_hub

NO_NAME = "---\ndescription: Use when x.\n---\n\nBody.\n"
SPACED = "---\nname: Agent Development\ndescription: Use when y.\n---\n\nBody.\n"


def problems_of(root: Path) -> list[str]:
    with pytest.raises(HubError) as caught:
        load(root)
    return [str(p) for p in caught.value.problems]


def test_a_skill_without_name_is_named_by_its_folder(tmp_path: Path) -> None:
    root = write_hub(tmp_path, files={"skills/handoff/SKILL.md": NO_NAME})
    (skill,) = load(root).skills
    assert (skill.name, skill.declared, skill.title) == ("handoff", None, "handoff")
    # SKILL.md ships as it is: nothing is added to its front matter.
    assert [(f.path, f.content) for f in skill.files] == [("SKILL.md", NO_NAME.encode())]


def test_a_name_that_is_not_kebab_case_is_kept_as_written(tmp_path: Path) -> None:
    root = write_hub(tmp_path, files={"skills/agent-development/SKILL.md": SPACED})
    (skill,) = load(root).skills
    assert (skill.name, skill.declared, skill.title) == (
        "agent-development",
        "Agent Development",
        "Agent Development",
    )


def test_folder_names_the_hosts_accept(tmp_path: Path) -> None:
    """Mixed case, underscores, dots and more than 64 characters: hosts decide (coverage)."""
    names = ["Mixed_Case", "v1.2", "k" * 70]
    root = write_hub(tmp_path, files={f"skills/{n}/SKILL.md": NO_NAME for n in names})
    assert sorted(s.name for s in load(root).skills) == sorted(names)


@pytest.mark.parametrize("name", ["a\\b", "a\x00b", "a\x1fb", "a\x7fb", ".", "..", ""])
def test_unsafe_folder_names(name: str) -> None:
    assert unsafe_folder_name(name)


@pytest.mark.parametrize("name", ["tidy", "Agent Development", "café", "a.b", "a b"])
def test_safe_folder_names(name: str) -> None:
    assert not unsafe_folder_name(name)


def test_a_folder_with_a_control_character_is_refused(tmp_path: Path) -> None:
    root = write_hub(tmp_path, files={"skills/a\x01b/SKILL.md": NO_NAME})
    (problem,) = problems_of(root)
    assert problem.startswith(f"{root / 'skills'}/a\x01b:1:1: skills: skill folder 'a\\x01b'")
    assert "is not a safe name" in problem and "Fix: rename the folder" in problem


def test_a_skill_two_group_folders_deep_is_refused(tmp_path: Path) -> None:
    """skills/<group>/<name>/ loads (test_skill_groups.py); one level deeper no host was seen
    loading, so it is refused where it sits."""
    root = write_hub(tmp_path, files={"skills/a/b/inner/SKILL.md": NO_NAME})
    (problem,) = problems_of(root)
    assert problem.startswith(f"{root / 'skills/a/SKILL.md'}:1:1: ")
    assert "a skill folder two group folders deep (b/inner)" in problem
    assert f"Fix: move {root / 'skills/a/b/inner'} up to a group folder" in problem


@pytest.mark.parametrize(
    ("first", "second", "said"),
    [
        # two declared names equal but for case
        (("one", SPACED), ("two", SPACED.replace("Agent Development", "agent development")),
         "skill name 'agent development' is the name of skill 'one' too"),
        # a declared name equal to another skill's folder (its name, when it declares none)
        (("alpha", NO_NAME), ("beta", SPACED.replace("Agent Development", "Alpha")),
         "skill name 'Alpha' is the name of skill 'alpha' too"),
    ],
)  # fmt: skip
def test_names_equal_in_any_case_are_refused(
    tmp_path: Path, first: tuple[str, str], second: tuple[str, str], said: str
) -> None:
    files = {f"skills/{name}/SKILL.md": text for name, text in (first, second)}
    (problem,) = problems_of(write_hub(tmp_path, files=files))
    assert problem.startswith(f"{tmp_path / 'skills' / second[0] / 'SKILL.md'}:1:1: name: ")
    assert said in problem and "Fix: give each skill its own name and folder" in problem


@pytest.mark.parametrize(
    ("front", "expect"),
    [
        ("name: 12", "skill name 12 is not text"),
        ("name: ''", "skill name '' is not text"),
        ('name: "a\\nb"', "has a line break"),
        ("name: ' a'", "spaces at an end"),
    ],
)
def test_names_still_refused(tmp_path: Path, front: str, expect: str) -> None:
    text = f"---\n{front}\ndescription: Use when x.\n---\n"
    root = write_hub(tmp_path, files={"skills/tidy/SKILL.md": text})
    (problem,) = problems_of(root)
    assert problem.startswith(f"{root / 'skills/tidy/SKILL.md'}:2:7: name: "), problem
    assert expect in problem and "Fix: " in problem
