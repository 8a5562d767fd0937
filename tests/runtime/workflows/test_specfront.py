"""The small front matter reader: the shapes specs use, and every malformed one refused."""

from __future__ import annotations

import pytest
from memhub.runtime.workflows.specfront import FrontMatterError, block, parse


def _fields(text: str) -> dict[str, object]:
    lines = block(text)
    assert lines is not None
    return parse(lines)


GOOD = [
    (
        "---\ntitle: Auth\nowns:\n  - src/auth/**\n  - 'src/login.py'\n---\nbody",
        ["src/auth/**", "src/login.py"],
    ),
    ('---\nowns:\n- src/a/**  # the service\n- "src/b c.py"\n---\n', ["src/a/**", "src/b c.py"]),
    ("---\nowns: [src/a/**, 'src/b.py', \"c/\"]\n---\n", ["src/a/**", "src/b.py", "c/"]),
    ("---\nowns: src/a/**\n---\n", ["src/a/**"]),
    ("\ufeff---\r\nowns:\r\n  - src/a/**\r\n---\r\n", ["src/a/**"]),
    (
        "---\nowns:\n  - src/**\nreviewers:\n  alice: lead\n  bob: [x, y]\ndescription: |\n  many: lines\n  - here\n...\n",
        ["src/**"],
    ),
    ("---\n# a comment\nowns:\n\n  # another\n  - src/**\n---\n", ["src/**"]),
    ("---\nowns: ['it''s/**']\n---\n", ["it's/**"]),
]


@pytest.mark.parametrize(("text", "owns"), GOOD)
def test_owns_shapes(text: str, owns: list[str]) -> None:
    assert _fields(text)["owns"] == owns


def test_scalars() -> None:
    fields = _fields(
        "---\ntitle: 'Billing: rules'\nstatus: retired # gone\nname: x\nowns: a\n---\n"
    )
    assert fields == {"title": "Billing: rules", "status": "retired", "name": "x", "owns": ["a"]}


def test_no_front_matter_is_none() -> None:
    assert block("# Title\n\nowns: src/**\n") is None
    assert block("") is None


BAD = [
    ("---\nowns: [a\n---\n", "unterminated list"),
    ("---\nowns:\n  a: b\n---\n", "`- glob`"),
    ("---\nowns: a\nowns: b\n---\n", "given twice"),
    ("---\ntitle: [x]\nowns: a\n---\n", "one line of text"),
    ("---\ntitle:\n  nested: x\nowns: a\n---\n", "one line of text"),
    ("---\njust some text\n---\n", "expected `key: value`"),
    ("---\n  - a\nowns: x\n---\n", "before any key"),
    ("---\nowns: 'a\n---\n", "unterminated quote"),
    ("---\nowns: 'a' b\n---\n", "text after a quoted value"),
    ("---\nowns: a\n  - b\n---\n", "both a value and lines"),
]


@pytest.mark.parametrize(("text", "reason"), BAD)
def test_malformed_is_refused_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(FrontMatterError, match=reason):
        _fields(text)


def test_unclosed_front_matter() -> None:
    with pytest.raises(FrontMatterError, match="not closed"):
        block("---\nowns: a\n")


def test_flow_lists_keep_commas_inside_quotes_and_braces() -> None:
    text = "---\nowns: ['a,b/**', src/{x,y}.py, \"c\"]\n---\n"
    assert _fields(text)["owns"] == ["a,b/**", "src/{x,y}.py", "c"]
