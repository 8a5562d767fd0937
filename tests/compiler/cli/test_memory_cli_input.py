"""What `memhub memory add/edit` read from their arguments: typed or inferred triggers, and a
body from --body, --file or stdin, refused when it is no regular UTF-8 file of bounded size."""

from __future__ import annotations

import io
import os
import threading
from pathlib import Path

import pytest
from memhub.compiler.cli import memory_input as I
from memhub.runtime.memory.records import Triggers


@pytest.mark.parametrize(
    ("raw", "kind", "text"),
    [
        ("path:src/**/*.py", "paths", "src/**/*.py"),
        ("cmd:alembic upgrade", "commands", "alembic upgrade"),
        ("id:FooBar", "identifiers", "FooBar"),
        ('error:"connection refused"', "errors", "connection refused"),
        ("ERROR: 'x y'", "errors", "x y"),
        ("src/**/*.py", "paths", "src/**/*.py"),
        ("migrations/", "paths", "migrations/"),
        ("setup.cfg", "paths", "setup.cfg"),
        ("alembic upgrade head", "commands", "alembic upgrade head"),
        ("pytest", "commands", "pytest"),
        ("FooBar", "identifiers", "FooBar"),
        ("parse_record", "identifiers", "parse_record"),
        ("getUserName", "identifiers", "getUserName"),
        ("connection refused", "errors", "connection refused"),
        ("ModuleNotFoundError: No module named x", "errors",
         "ModuleNotFoundError: No module named x"),
        ("permission denied", "errors", "permission denied"),
        ("other:thing", "commands", "other:thing"),
    ],
)  # fmt: skip
def test_a_trigger_is_typed_by_prefix_or_inferred(raw: str, kind: str, text: str) -> None:
    assert I.parse_trigger(raw) == (kind, text)


@pytest.mark.parametrize("raw", ["", "   ", "path:", 'error:""', "cmd:  "])
def test_an_empty_trigger_is_refused(raw: str) -> None:
    with pytest.raises(I.InputError, match="empty"):
        I.parse_trigger(raw)


def test_triggers_gather_in_order_each_once() -> None:
    got = I.parse_triggers(["path:a/*.py", "cmd:make", "a/*.py", "id:Foo", "error:boom failed"])
    assert got == Triggers(
        paths=("a/*.py",), commands=("make",), identifiers=("Foo",), errors=("boom failed",)
    )
    assert I.parse_triggers([]).empty()


def test_body_from_text_file_or_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert I.read_body("text", None, required=True) == "text"
    assert I.read_body(None, None, required=False) is None
    note = tmp_path / "note.md"
    note.write_text("héllo\n", encoding="utf-8")
    assert I.read_body(None, str(note), required=True) == "héllo\n"
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"from stdin\n")))
    assert I.read_body(None, "-", required=True) == "from stdin\n"


def test_body_refusals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(I.InputError, match="no body"):
        I.read_body(None, None, required=True)
    with pytest.raises(I.InputError, match="both"):
        I.read_body("a", "b", required=True)
    with pytest.raises(I.InputError, match="a folder"):
        I.read_body(None, str(tmp_path), required=True)
    with pytest.raises(I.InputError, match="cannot be read"):
        I.read_body(None, str(tmp_path / "missing.md"), required=True)
    big = tmp_path / "big.md"
    big.write_bytes(b"x" * (I.MAX_BODY_BYTES + 1))
    with pytest.raises(I.InputError, match="262,145 bytes, over the 262,144-byte"):
        I.read_body(None, str(big), required=True)
    latin = tmp_path / "latin.md"
    latin.write_bytes(b"caf\xe9\n")
    with pytest.raises(I.InputError, match="not UTF-8"):
        I.read_body(None, str(latin), required=True)
    flood = io.TextIOWrapper(io.BytesIO(b"y" * (I.MAX_BODY_BYTES + 10)))
    monkeypatch.setattr("sys.stdin", flood)
    with pytest.raises(I.InputError, match="more than 262,144 bytes"):
        I.read_body(None, "-", required=True)


def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done: list[BaseException] = []

    def read() -> None:
        try:
            I.read_body(None, str(fifo), required=True)
        except BaseException as exc:  # the thread reports what it got
            done.append(exc)

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(5)
    assert not worker.is_alive(), "reading a FIFO blocked"
    assert isinstance(done[0], I.InputError) and "not a regular file" in str(done[0])
