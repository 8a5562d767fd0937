"""`owns` globs: segments, `**`, classes, braces, and plain paths owning what is under them."""

from __future__ import annotations

import pytest
from memhub.runtime.workflows.globs import expand, matches

CASES = [
    ("src/**", "src/a/b.py", True),
    ("src/**", "srcx/a.py", False),
    ("**/*.py", "a/b/c.py", True),
    ("**/*.py", "c.py", True),
    ("*.py", "a/b.py", False),  # `*` stays inside one segment
    ("*.py", "b.py", True),
    ("src/*", "src/a/b.py", False),
    ("src/?.py", "src/a.py", True),
    ("src/?.py", "src/ab.py", False),
    ("src/{a,b}/*.ts", "src/b/x.ts", True),
    ("src/{a,b}/*.ts", "src/c/x.ts", False),
    ("src/{api,web/{ui,css}}/**", "src/web/css/x.css", True),
    ("src/auth", "src/auth/x.py", True),  # a plain path owns what is under it
    ("src/auth", "src/auth", True),
    ("src/auth", "src/authz.py", False),
    ("docs/", "docs/x/y.md", True),
    ("./src/auth/", "src/auth/x.py", True),
    ("/src/auth/**", "src/auth/x.py", True),
    ("src/[ab]*.py", "src/bx.py", True),
    ("src/[!ab]*.py", "src/bx.py", False),
    ("src/[a-c]x.py", "src/bx.py", True),
    ("src/[x.py", "src/[x.py", True),  # an unclosed class is a literal
    ("src/**/test_*.py", "src/test_a.py", True),
    ("src/**/test_*.py", "src/a/b/test_a.py", True),
    ("a/*/c", "a/b/x/c", False),
    ("**/**/**/x", "a/b/c/d/e/f/g/x", True),
    ("src/*.py", "src\\a.py", True),  # Windows separators in the path
    ("", "src/a.py", False),
    ("src/**", "", False),
    ("src/{a", "src/{a", True),  # an unmatched brace is a literal
]


@pytest.mark.parametrize(("pattern", "path", "expected"), CASES)
def test_matches(pattern: str, path: str, expected: bool) -> None:
    assert matches(pattern, path) is expected


def test_brace_expansion_is_bounded() -> None:
    assert expand("{a,b}{c,d}") == ["ac", "ad", "bc", "bd"]
    assert len(expand("{a,b}" * 12)) == 64


def test_many_double_stars_stay_fast() -> None:
    assert not matches("**/a/" * 30 + "z", "/".join("a" * 200))


def test_absurdly_deep_paths_are_owned_by_nothing() -> None:
    assert not matches("**", "/".join("a" * 5000))
