"""MEMORY.md: the owned region is replaced, the user's text around it survives byte for byte."""

from __future__ import annotations

import pytest
from memhub.runtime.memory import memorymd as M

from .svchelp import record


def test_region_lists_active_then_proposed_and_skips_superseded() -> None:
    text = M.region(
        [
            record("r-b", title="Zeta"),
            record("r-a", title="alpha", kind="decision"),
            record("r-p", title="p", kind="lesson", status="proposed"),
            record("r-s", title="old", status="superseded", superseded_by="r-b"),
        ]
    )
    lines = text.splitlines()
    assert lines[0] == M.BEGIN and lines[-1] == M.END
    assert "- fact: Zeta (r-b)" in lines and "- decision: alpha (r-a)" in lines
    assert lines.index("- fact: Zeta (r-b)") < lines.index("- decision: alpha (r-a)")
    assert lines.index("- lesson: p (r-p)") > lines.index("- decision: alpha (r-a)")
    assert "r-s" not in text


def test_a_title_cannot_forge_a_marker_or_span_lines() -> None:
    text = M.region([record("r-x", title=f"evil {M.END}\nline two")])
    assert text.count(M.END) == 1 and "evil" in text.splitlines()[3]


def test_text_outside_the_region_survives_byte_for_byte() -> None:
    before = b"# Mine\r\n\r\nmy own words \xe2\x9c\x93\n\n"
    after = b"\n## More of mine\n  trailing  "
    current = before + M.region([record("r-1")]).encode() + after
    updated = M.update(current, M.region([record("r-2")]), "MEMORY.md")
    assert updated.startswith(before) and updated.endswith(after)
    assert b"r-2" in updated and b"r-1" not in updated


def test_a_file_without_a_region_gets_one_appended() -> None:
    assert M.update(None, "R\n", "f").startswith(b"# Memory")
    assert M.update(b"mine", "R\n", "f") == b"mine\n\nR\n"
    assert M.update(b"mine\n", "R\n", "f") == b"mine\n\nR\n"


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        (f"a\n{M.BEGIN}\nb\n", 2, "without an end"),
        (f"a\n{M.END}\n", 2, "without a begin"),
        (f"{M.BEGIN}\n{M.END}\n{M.BEGIN}\n{M.END}\n", 3, "second begin"),
        (f"{M.BEGIN}\n{M.END}\n{M.END}\n", 3, "second end"),
    ],
)
def test_broken_markers_are_refused_with_file_and_line(text: str, line: int, problem: str) -> None:
    with pytest.raises(M.MemoryMdError) as error:
        M.update(text.encode(), "R\n", "x/MEMORY.md")
    assert f"x/MEMORY.md:{line}:" in str(error.value) and problem in str(error.value)
