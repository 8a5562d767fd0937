"""The credential detector runs on every captured transcript line: hostile or just unlucky
text (1 MB of token characters, thousands of `password=` or `docker login` without a value,
nested quotes, `${${${...`) must cost time linear in its size.

Each case is timed against a plain linear regex scan of the same text, so the bound is a
ratio, not an absolute time, and both are this process's CPU time, not the wall clock: other
work on a busy machine stretches the wall time of one and not the other, never the CPU time
either spends. A quadratic rule costs thousands of times the scan at 1 MB; a SIGVTALRM at the
bound (a timer on this process's CPU time) stops it (the regex engine checks signals), so
the test fails in seconds instead of hanging.
"""

from __future__ import annotations

import re
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from memhub.runtime.capture.redact import redact_text
from memhub.runtime.credentials import find

SIZE = 1_000_000
# The slowest honest case measured about 100 times the scan; a quadratic one at 1 MB
# measured more than 10,000 times it.
RATIO = 400
_SCAN = re.compile(r"\w+")
# Text that opens every gate of the contextual rules, put before some runs so that each
# rule actually scans them.
GATES = (
    " token= token: --token -p -u :// bearer authorization cookie docker mysql sshpass"
    " redis-cli ldapx login password pass: sig hook PRIVATE KEY "
)


def repeat(unit: str, tail: str = "", head: str = "") -> str:
    return head + unit * ((SIZE - len(head) - len(tail)) // len(unit)) + tail


CASES: dict[str, Callable[[], str]] = {
    "word run": lambda: repeat("a"),
    "token characters": lambda: repeat("aB3_-.+/=~"),
    "base64 blob": lambda: repeat("QUJDREVGR0hJSktMTU5PUA==/+"),
    "password= without value": lambda: repeat("password="),
    "password: without value": lambda: repeat("password: "),
    "Bearer without value": lambda: repeat("Bearer "),
    "://user: without host": lambda: repeat("://user:"),
    "scheme characters after ://": lambda: repeat("sk-", head="x :// "),
    "dashes after gates": lambda: repeat("a-", head=GATES),
    "prose": lambda: repeat("the quick brown fox jumps over the lazy dog. "),
    "nested quotes": lambda: repeat("'", head='password="'),
    "alternating quotes": lambda: repeat("\"'"),
    "percent signs": lambda: repeat("%", head="token="),
    "dollar signs": lambda: repeat("$", head="token="),
    "${ openings": lambda: repeat("${", head="token="),
    "%{ openings": lambda: repeat("%{", head="token="),
    "{{ openings": lambda: repeat("{{", head="token="),
    "unicode letters": lambda: repeat("é", head=GATES),
    "unicode name chain": lambda: repeat("ü_", tail="token=x"),
    "docker login without -p": lambda: repeat("docker login ", head="-p "),
    "mysql without -p": lambda: repeat("mysql -x ", head="-p "),
    "redis-cli without -a": lambda: repeat("redis-cli "),
    "ldapsearch without -w": lambda: repeat("ldapsearch "),
    "sshpass options without -p": lambda: repeat("sshpass -a "),
    "cookie: without pair": lambda: repeat("cookie:"),
    "dotted name chain": lambda: repeat("a.b-c_", tail="password=x"),
    "dotted chain then quoted key": lambda: repeat("a.", tail='"token": "'),
    "digits and dots": lambda: repeat("0.", head=GATES),
    "upper-case name chain": lambda: repeat("A_", tail="=x"),
    "flag chain": lambda: repeat("a-", head="--", tail="token"),
    "email-like": lambda: repeat("a@a"),
    "many lines of settings": lambda: repeat("a_token: x y\n"),
    "spaces before value": lambda: repeat(" ", head="token=", tail="x y"),
    "mixed secrets": lambda: repeat("password=x token: y Bearer zzzzzzzzz ://u:p@h "),
}


class TooSlow(Exception):
    pass


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    def expire(signum: int, frame: object) -> None:
        raise TooSlow

    previous = signal.signal(signal.SIGVTALRM, expire)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds)  # this process's CPU time in user mode
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


def scan_seconds(text: str) -> float:
    best = float("inf")
    for _ in range(5):
        started = time.process_time()
        _SCAN.findall(text)
        best = min(best, time.process_time() - started)
    return best


@pytest.mark.parametrize("name", list(CASES))
def test_redaction_is_linear_in_the_size_of_hostile_text(name: str) -> None:
    text = CASES[name]()
    assert len(text) > SIZE * 0.9
    bound = RATIO * scan_seconds(text)
    # A quadratic rule never fits in any of three; an honest one fits in every one.
    for _ in range(3):
        started = time.process_time()
        try:
            with deadline(bound):
                redact_text(text)
        except TooSlow:
            continue
        taken = time.process_time() - started
        assert taken <= bound
        return
    pytest.fail(f"{name}: redacting {len(text)} characters took over {RATIO}x a linear scan")


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("docker login -u a -p S3cretXyz docker login -p Other9xyz", ["S3cretXyz", "Other9xyz"]),
        ("mysql -u root -pS3cret9 db | mysql -pAnother1", ["S3cret9", "Another1"]),
        ("redis-cli -h h -a S3cretXyz", ["S3cretXyz"]),
        ("ldapsearch -x -D cn -w S3cretXyz", ["S3cretXyz"]),
        ("sshpass -f f -P prompt -p S3cretXyz ssh h", ["S3cretXyz"]),
        ("git+ssh://bob:Pw12345x@h/r and HTTPS://amy:Qw12345x@h", ["Pw12345x", "Qw12345x"]),
        ("Cookie: session=abc123xyz; other=1", ["session=abc123xyz; other=1"]),
        ('config.password="S3cretXyz"', ["S3cretXyz"]),
    ],
)
def test_the_linear_rules_find_what_the_regular_expressions_found(
    text: str, secrets: list[str]
) -> None:
    assert [text[f.start : f.end] for f in find(text)] == secrets


@pytest.mark.parametrize(
    "text", ["9http://bob:Pw12345x@h", "token=${env:X}", "token={{x}}", "token=%{env:X}"]
)
def test_the_linear_rules_leave_what_the_regular_expressions_left(text: str) -> None:
    assert find(text) == []
