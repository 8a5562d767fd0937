"""`memhub memory add` and `edit` refuse a body over the record body limit however it comes
(--body, --file, stdin): exit 2, the size, the limit and what to do, and nothing written."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from memhub.runtime.memory.records import MAX_BODY_BYTES

from tests.compiler.cli.memkit import Memhub, add, connected, record_files, revision_of

BIG = "x" * (MAX_BODY_BYTES + 1)
ADD = ("memory", "add", "--kind", "fact", "--title", "Too long")


@pytest.fixture
def mh(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Memhub:
    return Memhub(capsys, monkeypatch, tmp_path)


def said_why(text: str) -> None:
    assert "262,145 bytes" in text or "more than 262,144 bytes" in text, text
    assert "262,144-byte (256 KiB) limit of a record body" in text, text
    assert "split it into several records" in text, text


def test_add_refuses_a_body_over_the_limit_from_every_input(
    mh: Memhub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    top, pid = connected(mh, tmp_path / "app")
    ran = mh(*ADD, "--body", BIG, "--yes", cwd=top)
    assert ran.code == 2
    said_why(ran.err)
    big = tmp_path / "big.md"
    big.write_text(BIG)
    ran = mh(*ADD, "--file", str(big), "--yes", cwd=top)
    assert ran.code == 2
    said_why(ran.err)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(BIG.encode())))
    ran = mh(*ADD, "--file", "-", "--yes", "--json", cwd=top)
    assert ran.code == 2 and ran.json()["ok"] is False
    said_why(ran.out)
    assert record_files(pid) == []


def test_edit_refuses_a_body_over_the_limit(mh: Memhub, tmp_path: Path) -> None:
    top, _ = connected(mh, tmp_path / "app")
    rid = add(mh, top, "A note")
    rev = revision_of(mh, top, rid)
    ran = mh("memory", "edit", rid, "--revision", rev, "--body", BIG, "--yes", "--json", cwd=top)
    assert ran.code == 2, ran.err
    said_why(ran.out)
    assert revision_of(mh, top, rid) == rev
