"""The credential detector compiles its rules on first use: importing it compiles none, and
it finds exactly what the same rule tables compiled up front find.

The eager reference is a second copy of the package, loaded from the same files, whose
`Lazy` is plain `re.compile`: every rule there is a real compiled pattern, built at import.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memhub.runtime import credentials
from memhub.runtime.credentials import lazy

from tests.runtime import test_credentials_time, test_redact
from tests.test_credentials import as_text, corpus

PACKAGE = Path(credentials.__file__).parent
EAGER = "memhub_eager_credentials"


def _load_eager() -> types.ModuleType:
    """The credentials package loaded again under another name, each rule compiled at import."""
    stub = types.ModuleType(f"{EAGER}.lazy")
    stub.Lazy = re.compile  # type: ignore[attr-defined]
    spec = importlib.util.spec_from_file_location(
        EAGER, PACKAGE / "__init__.py", submodule_search_locations=[str(PACKAGE)]
    )
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules[EAGER], sys.modules[stub.__name__] = package, stub
    try:
        spec.loader.exec_module(package)
    finally:
        for name in [n for n in sys.modules if n == EAGER or n.startswith(EAGER + ".")]:
            del sys.modules[name]
    return package


eager = _load_eager()


def test_the_eager_reference_holds_compiled_patterns() -> None:
    shapes = sys.modules[credentials.__name__ + ".shapes"]
    assert isinstance(eager.PEM, re.Pattern) and isinstance(eager.RUN, re.Pattern)
    assert all(isinstance(p, re.Pattern) for p in eager.SHAPES_BY_FIRST.values())
    assert eager.SHAPES_BY_FIRST.keys() == shapes.SHAPES_BY_FIRST.keys()
    for (gate, _, mine), (same_gate, _, ref) in zip(credentials.RULES, eager.RULES, strict=True):
        assert gate == same_gate
        if isinstance(mine, lazy.Lazy):
            assert isinstance(ref, re.Pattern) and ref.pattern == mine.pattern
            continue
        assert type(ref).__name__ == type(mine).__name__
        fields = {**vars(type(mine)), **vars(mine)}
        held = [name for name, value in fields.items() if isinstance(value, lazy.Lazy)]
        assert held and all(isinstance(getattr(ref, name), re.Pattern) for name in held)
    assert isinstance(credentials.PEM, lazy.Lazy)


def _existing_cases() -> Iterator[str]:
    """Every string of the existing credential tests."""
    for case in corpus():
        yield as_text(case)
        yield from (v for v in case.values() if isinstance(v, str))
        yield from case.get("args", [])
    yield from test_redact.LEAKS + test_redact.NORMAL + test_redact.EMAILS
    for test in (
        test_credentials_time.test_the_linear_rules_find_what_the_regular_expressions_found,
        test_credentials_time.test_the_linear_rules_leave_what_the_regular_expressions_left,
    ):
        for mark in getattr(test, "pytestmark", []):
            for params in mark.args[1]:
                yield params[0] if isinstance(params, tuple) else params
    for make in test_credentials_time.CASES.values():
        yield make()[:3000]  # the hostile shapes, short: equivalence, not time


EXISTING = sorted(set(_existing_cases()))


def _reset_all() -> None:
    for holder in lazy.HOLDERS:
        holder.reset()


def _assert_same(text: str) -> None:
    assert credentials.find(text) == eager.find(text), text
    for key in ("GITHUB_TOKEN", "Authorization", "X-Api-Key", "MAX_TOKENS", "x"):
        assert credentials.literal_for_key(key, text) == eager.literal_for_key(key, text), text
    assert credentials.names_secret(text) == eager.names_secret(text), text


def test_the_existing_cases_are_many() -> None:
    assert len(EXISTING) > 400


def test_every_existing_case_finds_what_the_eager_reference_finds() -> None:
    _reset_all()
    for text in EXISTING:
        _assert_same(text)
    _reset_all()  # and again, each rule compiled by the case that first needs it
    for text in reversed(EXISTING):
        _assert_same(text)


FRAGMENTS = (
    "ghp_", "gho_", "github_pat_", "AKIA", "ASIA", "sk-", "sk-ant-api03-", "sk_live_",
    "xoxb-", "xoxe.xoxp-", "glpat-", "AIza", "eyJ", "npm_", "hf_", "mhk_", "xtk_",
    "Bearer ", "bearer ", "Authorization: ", "authorization=", "X-Api-Key: ", "Cookie: a=b;",
    "password=", "PASSWORD=", "DB_PASS=", "token: ", "api_key = ", '"auth": "', "--token ",
    "--password=", "-u bob:", "://user:pw@", "https://", "postgres://", "?api_key=", "&sig=",
    "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----",
    "hooks.slack.com/services/", "discord.com/api/webhooks/123/", ".atlasv1.", ":AA", "-us1",
    "Q~", "mysql -p", "docker login -p ", "sshpass -p ", "redis-cli -a ", "ldapsearch -w ",
    "-pass pass:", "login bob password ", "export ", "${env:X}", "$X", "<token>", "xxxx",
    "\n", " ", "\t", '"', "'", "=", ":", "@", ";", "|", "#",
)  # fmt: skip
_RUN = st.text(alphabet="abcdefXYZ0123456789_-./+=~", min_size=1, max_size=48) | st.text(
    min_size=1, max_size=8
)
TEXTS = st.lists(st.sampled_from(FRAGMENTS) | _RUN, max_size=14).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXTS, fresh=st.booleans())
def test_mixed_strings_find_what_the_eager_reference_finds(text: str, fresh: bool) -> None:
    if fresh:
        _reset_all()  # half the examples run each rule's first use, half its built state
    _assert_same(text)


_PROBE = """
import re, sys
sys.path.append(sys.argv[1])
compiled = []
compile_ = re.compile
def spy(pattern, flags=0):
    if sys._getframe(1).f_globals.get("__name__", "").startswith("credentials"):
        compiled.append(pattern)
    return compile_(pattern, flags)
re.compile = spy
import credentials
from credentials import lazy
print(len(lazy.HOLDERS), sum(h.built for h in lazy.HOLDERS), len(compiled))
credentials.find("export GITHUB_TOKEN=abcdefgh12345678 and Bearer abcdefgh12345678")
print(sum(h.built for h in lazy.HOLDERS))
"""


def test_importing_the_detector_compiles_no_rule() -> None:
    """A fresh `python -S -I` import of the package (as a bundle vendors it) builds no holder
    and calls `re.compile` from none of its modules; the first find() builds some."""
    result = subprocess.run(
        [sys.executable, "-S", "-I", "-B", "-c", _PROBE, str(PACKAGE.parent)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    counts, after_find = result.stdout.split("\n")[:2]
    holders, built, compiled = map(int, counts.split())
    assert holders > 60  # every rule, gate and literal test of the package
    assert (built, compiled) == (0, 0)
    assert 0 < int(after_find) < holders


@pytest.mark.parametrize("name", ["match", "fullmatch", "search", "finditer"])
def test_a_holder_behaves_as_its_pattern_before_and_after_it_is_built(name: str) -> None:
    holder, pattern = lazy.Lazy(r"(?i)a(b+)", re.M), re.compile(r"(?i)a(b+)", re.M)
    lazy.HOLDERS.remove(holder)
    for _ in range(2):  # the first call builds, the second uses the built pattern
        got, want = getattr(holder, name)("xABb ab", 1), getattr(pattern, name)("xABb ab", 1)
        if name == "finditer":
            got, want = [m.span() for m in got], [m.span() for m in want]
        elif got is not None and want is not None:
            got, want = got.span(), want.span()
        assert got == want
        assert holder.built and holder.groups == pattern.groups == 1
    holder.reset()
    assert not holder.built and holder.pattern == pattern.pattern
