"""Memory records: parse, validate, render; hostile text round-trips, bad files name their line."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from memhub.runtime.memory import records as R
from memhub.runtime.memory.records import (
    Record,
    RecordError,
    Source,
    Triggers,
    parse_record,
    render_record,
)

STAMP = "2026-12-01T15:00:00Z"


@pytest.fixture(params=["libyaml", "pure-python"])
def loader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with libyaml's loader and again with PyYAML's own (where libyaml is absent)."""
    if request.param == "pure-python":
        monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    elif not hasattr(yaml, "CSafeLoader"):
        pytest.skip("libyaml is not installed")
    return str(request.param)


def make(**changes: object) -> Record:
    """A valid project fact, with `changes` applied."""
    fields: dict[str, object] = {
        "id": "r-20261201150000-0a1b2c3d",
        "title": "The build uses uv",
        "kind": "fact",
        "scope": "project",
        "project": "p-1",
        "created": STAMP,
        "updated": STAMP,
        "source": Source(kind="user"),
        "body": "Run `uv sync` first.\n",
    }
    fields.update(changes)
    return Record(**fields)  # type: ignore[arg-type]


VALID = """\
---
memhub: 1
id: r-1
title: A fact
kind: fact
scope: project
project: p-1
created: 2026-12-01T15:00:00Z
updated: "2026-12-01T15:00:00Z"
tags: [build]
source:
  kind: user
status: active
---
The body.
"""


def test_a_hand_written_record_parses(loader: str) -> None:
    record = parse_record(VALID.encode(), "f.md")
    assert record == Record(
        id="r-1",
        title="A fact",
        kind="fact",
        scope="project",
        project="p-1",
        created=STAMP,
        updated=STAMP,
        tags=("build",),
        source=Source(kind="user"),
        body="The body.\n",
    )


def test_render_is_canonical_and_deterministic() -> None:
    record = make(tags=("b", "a"), source=Source(kind="agent", session="s-1", record="42"))
    first = render_record(record)
    assert first == render_record(make(tags=("b", "a"), source=record.source))
    assert first.decode() == (
        "---\nmemhub: 1\n"
        'id: "r-20261201150000-0a1b2c3d"\ntitle: "The build uses uv"\n'
        'kind: fact\nscope: project\nproject: "p-1"\n'
        f'created: "{STAMP}"\nupdated: "{STAMP}"\n'
        'tags: ["b", "a"]\nsource:\n  kind: agent\n  session: "s-1"\n  record: "42"\n'
        "status: active\n---\nRun `uv sync` first.\n"
    )
    # Rendering what was parsed gives the same bytes again.
    assert render_record(parse_record(first, "f.md")) == first


# --- round trip over hostile text ---------------------------------------------------------

HOSTILE = [
    '"',
    "'",
    ":",
    ": ",
    "- x",
    "#",
    "&a",
    "*a",
    "!!python/object",
    "---",
    "...",
    "\n---\n",
    "\r",
    "\r\n",
    "\x00",
    "\x1b",
    "\x7f",
    "\x85",
    "\u2028",
    "\u2029",
    "\ufeff",
    "\ufffe",
    "\uffff",
    "\t",
    "\\",
    "\\n",
    "{a: 1}",
    "[1, 2]",
    "yes",
    "null",
    "~",
    "1e3",
    "0x1f",
    "%YAML",
    "@",
    "`",
    "|",
    ">",
    "é",
    "日本",
    "\U0001f600",
    " ",
    "  lead",
    "trail  ",
]
hostile_text = st.lists(st.sampled_from(HOSTILE) | st.text(max_size=8), max_size=6).map("".join)
some_text = hostile_text | st.text()
non_blank = (some_text | st.text(min_size=1)).filter(lambda s: bool(s.strip()) and len(s) < 900)
one_line = non_blank.filter(lambda s: len(s.splitlines()) == 1)
names = st.from_regex(r"[a-z0-9][a-z0-9-]{0,20}", fullmatch=True)
stamps = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 1, 1)).map(
    lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ")
)
texts = st.lists(non_blank, max_size=4, unique=True).map(tuple)


@st.composite
def records(draw: st.DrawFn) -> Record:
    kind = draw(st.sampled_from(R.KINDS))
    scope = draw(st.sampled_from(R.SCOPES))
    ref = draw(st.sampled_from(["none", "session", "session+record", "file", "import"]))
    source = Source(
        kind=draw(st.sampled_from(R.SOURCE_KINDS)),
        session=draw(one_line) if ref.startswith("session") else None,
        record=draw(one_line) if ref == "session+record" else None,
        file=draw(one_line) if ref == "file" else None,
        imported=draw(one_line) if ref == "import" else None,
    )
    record_id = draw(names)
    superseded = draw(st.booleans())
    created, updated = sorted([draw(stamps), draw(stamps)])
    triggers = Triggers()
    if kind in R.DIRECTIVES:
        triggers = Triggers(
            paths=draw(texts), commands=draw(texts), identifiers=draw(texts), errors=draw(texts)
        )
    return Record(
        id=record_id,
        title=draw(non_blank),
        kind=kind,
        scope=scope,
        project=draw(names) if scope == "project" else None,
        created=created,
        updated=updated,
        tags=draw(texts),
        source=source,
        status="superseded" if superseded else draw(st.sampled_from(["active", "proposed"])),
        supersedes=draw(st.none() | names.filter(lambda n: n != record_id)),
        superseded_by=draw(names.filter(lambda n: n != record_id)) if superseded else None,
        name=draw(one_line) if kind == "artifact" else None,
        triggers=triggers,
        body=draw(some_text),
    )


@settings(max_examples=400, deadline=None)
@given(records())
def test_every_valid_record_round_trips(record: Record) -> None:
    data = render_record(record)
    assert parse_record(data, "f.md") == record
    assert render_record(record) == data
    assert R.is_record_text(data)


@settings(max_examples=100, deadline=None)
@given(records())
def test_pyyaml_own_loader_reads_the_same_records(record: Record) -> None:
    """Without libyaml (a bundle's interpreter may lack it) the pure-Python loader agrees."""
    data = render_record(record)
    with pytest.MonkeyPatch.context() as patch:
        patch.delattr(yaml, "CSafeLoader", raising=False)
        assert parse_record(data, "f.md") == record


def test_a_huge_body_round_trips(loader: str) -> None:
    body = ("x" * 99 + "\n") * 10_000 + "---\nnot front matter\n---\n"
    record = make(body=body)
    data = render_record(record)
    assert len(data) > 1_000_000
    assert parse_record(data, "big.md") == record


def test_a_body_that_starts_with_a_fence_stays_body() -> None:
    record = make(body="---\nid: other\n---\n")
    assert parse_record(render_record(record), "f.md").body == "---\nid: other\n---\n"


def test_crlf_files_and_a_bom_parse(loader: str) -> None:
    crlf = VALID.replace("\n", "\r\n").encode()
    assert parse_record(crlf, "f.md").title == "A fact"
    assert parse_record(crlf, "f.md").body == "The body.\r\n"
    assert parse_record(b"\xef\xbb\xbf" + VALID.encode(), "f.md").id == "r-1"


# --- errors name the file line ------------------------------------------------------------


def edit(old: str, new: str) -> bytes:
    assert old in VALID
    return VALID.replace(old, new, 1).encode()


ERRORS = [
    (b"# just markdown\n", 1, "no front matter"),
    (b"---\nmemhub: 1\nid: r-1\n", 1, "never closed"),
    (edit("title: A fact", "title: caf\xe9").replace("caf\xe9".encode(), b"caf\xe9"), 4, "UTF-8"),
    (edit("kind: fact", "kind: [fact"), 6, "YAML error"),
    (edit("kind: fact", "kind: fact\n  bad: indent"), 6, "YAML error"),
    (edit("title: A fact", "title: A\x07fact"), 4, "not allowed"),
    (edit("status: active", "status: active\ncolour: blue"), 14, "unknown key 'colour'"),
    (edit("title: A fact", "title: A fact\ntitle: B"), 5, "appears twice"),
    (edit("title: A fact\n", ""), 1, "missing key 'title'"),
    (edit("memhub: 1", "memhub: 2"), 2, "not a known format"),
    (edit("memhub: 1", "memhub: true"), 2, "not a known format"),
    (edit("memhub: 1", "memhub: '1'"), 2, "not a known format"),
    (edit("title: A fact", "title: yes"), 4, "title must be a string"),
    (edit("title: A fact", "title: 12"), 4, "title must be a string"),
    (edit("title: A fact", 'title: "  "'), 4, "title is empty"),
    (edit("kind: fact", "kind: rumour"), 5, "not one of"),
    (edit("scope: project", "scope: team"), 6, "not one of"),
    (edit("project: p-1\n", ""), 6, "no project id"),
    (edit("scope: project\nproject: p-1", "scope: shared\nproject: p-1"), 7, "shared record"),
    (edit("project: p-1", "project: ../x"), 7, "project id"),
    (edit("id: r-1", "id: ../../etc/passwd"), 3, "record id"),
    (edit("id: r-1", "id: R 1"), 3, "record id"),
    (edit("created: 2026-12-01T15:00:00Z", "created: yesterday"), 8, "not a UTC time"),
    (edit("created: 2026-12-01T15:00:00Z", "created: 2026-02-30T15:00:00Z"), 8, "real time"),
    (edit("created: 2026-12-01T15:00:00Z", "created: 2026-12-01"), 8, "not a UTC time"),
    (edit('updated: "2026-12-01T15:00:00Z"', 'updated: "2026-11-01T15:00:00Z"'), 9, "earlier"),
    (edit("tags: [build]", "tags: build"), 10, "tags must be a list"),
    (edit("tags: [build]", "tags:\n  - build\n  - 3"), 12, "tags must be a string"),
    (edit("tags: [build]", "tags: [a, a]"), 10, "twice"),
    (edit("source:\n  kind: user", "source: user"), 11, "source must be a mapping"),
    (edit("  kind: user", "  kind: robot"), 11, "not one of"),
    (edit("  kind: user", "  kind: user\n  url: x"), 13, "unknown key source.url"),
    (edit("  kind: user", "  kind: user\n  file: a\n  import: b"), 11, "more than one"),
    (edit("  kind: user", "  kind: user\n  record: '4'"), 11, "no session"),
    (edit("  kind: user", "  kind: user\n  session: 4"), 13, "session must be a string"),
    (edit("source:\n  kind: user\n", ""), 1, "missing key 'source'"),
    (edit("  kind: user", "  session: s-1"), 11, "source has no kind"),
    (edit("source:\n  kind: user", "source: {}"), 11, "source has no kind"),
    (edit("source:\n  kind: user", "source:"), 11, "source must be a mapping"),
    (edit("status: active", "status: done"), 13, "not one of"),
    (edit("status: active", "status: superseded"), 13, "go together"),
    (edit("status: active", "status: active\nsuperseded_by: r-2"), 13, "go together"),
    (edit("status: active", "status: active\nsupersedes: r-1"), 14, "names itself"),
    (edit("status: active", "status: active\nname: notes"), 14, "only artifacts"),
    (edit("kind: fact", "kind: artifact"), 5, "needs a name"),
    (edit("status: active", "status: active\ntriggers:\n  paths: [a]"), 14, "a fact has no"),
    (
        edit("kind: fact", "kind: lesson").replace(b"active", b"active\ntriggers: [x]"),
        14,
        "mapping",
    ),
    (
        edit("kind: fact", "kind: lesson").replace(b"active", b"active\ntriggers:\n  globs: [x]"),
        15,
        "unknown key triggers.globs",
    ),
    (b"---\n---\nbody\n", 1, "empty"),
    (b"---\n- a list\n---\n", 2, "not a mapping"),
    (b"---\n[a]: 1\n---\n", 2, "not a plain name"),
    (b"---\n1: 1\n---\n", 2, "not a plain name"),
]


@pytest.mark.parametrize(("data", "line", "message"), ERRORS)
def test_each_error_names_its_line(data: bytes, line: int, message: str, loader: str) -> None:
    with pytest.raises(RecordError) as caught:
        parse_record(data, "notes/f.md")
    error = caught.value
    assert (error.file, error.line) == ("notes/f.md", line), str(error)
    assert message in error.message, str(error)
    assert error.fix
    assert str(error).startswith(f"notes/f.md:{line}: ")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, len(VALID)), st.integers(0, 12), hostile_text),
        min_size=1,
        max_size=4,
    )
)
def test_a_mangled_record_parses_or_raises_record_error_only(
    edits: list[tuple[int, int, str]],
) -> None:
    """Whatever an editor does to a record, the parser answers a Record or a RecordError."""
    text = VALID
    for at, cut, insert in edits:
        text = text[:at] + insert + text[at + cut :]
    try:
        parse_record(text.encode(), "f.md")
    except RecordError as error:
        assert error.file == "f.md"
        assert error.line is None or 1 <= error.line <= text.count("\n") + 2


def test_an_alias_bomb_is_refused_at_once(loader: str) -> None:
    lines = ["---", "memhub: 1", 'a0: &a0 ["lol"]']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 40)]
    data = ("\n".join([*lines, "---", ""])).encode()
    started = time.process_time()
    with pytest.raises(RecordError, match="aliases are not allowed") as caught:
        parse_record(data, "bomb.md")
    assert caught.value.line == 4
    assert time.process_time() - started < 5  # CPU seconds; an expansion would never finish


@pytest.mark.parametrize("depth", [10, 100_000])
def test_deep_nesting_is_refused(depth: int, loader: str) -> None:
    data = ("---\nmemhub: 1\ntags: " + "[" * depth + "]" * depth + "\n---\n").encode()
    with pytest.raises(RecordError, match=r"nested deeper|nesting depth") as caught:
        parse_record(data, "deep.md")
    assert caught.value.line == 3


def test_oversized_front_matter_is_refused(loader: str) -> None:
    data = ("---\nmemhub: 1\ntitle: " + "x" * 300_000 + "\n---\n").encode()
    with pytest.raises(RecordError, match="too large"):
        parse_record(data, "big.md")


@pytest.mark.parametrize(
    "value",
    [
        "!!python/object/apply:os.system ['true']",
        "!!python/name:os.system",
        "!!binary aGVsbG8=",
        "!!set {a: null}",
        "!custom x",
        "!!str",
    ],
)
def test_yaml_tags_beyond_plain_types_are_refused(value: str, loader: str) -> None:
    data = edit("title: A fact", f"title: {value}")
    with pytest.raises(RecordError) as caught:
        parse_record(data, "f.md")
    assert caught.value.line == 4
    if value != "!!str":
        assert "tag" in caught.value.message


# --- a Record validates itself ------------------------------------------------------------


@pytest.mark.parametrize(
    "changes",
    [
        {"kind": "rumour"},
        {"project": None},
        {"scope": "shared"},
        {"id": "../x"},
        {"tags": ["a"]},
        {"tags": ("",)},
        {"title": "x" * (R.MAX_TITLE + 1)},
        {"kind": "fact", "triggers": Triggers(paths=("*.py",))},
        {"kind": "artifact"},
        {"kind": "artifact", "name": "two\nlines"},
        {"status": "superseded"},
        {"source": "user"},
        {"source": Source(kind="user", file="")},
        {"created": "2026-12-01 15:00:00"},
        {"body": b"bytes"},
    ],
)
def test_an_invalid_record_cannot_be_built(changes: dict[str, object]) -> None:
    with pytest.raises(RecordError):
        make(**changes)


# --- what is a record at all --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "claims"),
    [
        (VALID, True),
        ("---\nmemhub: 1\n", True),  # unclosed: still a claim, so the parser reports it
        ("---\nid: x\nkind: fact\n---\n", True),
        ("\ufeff---\nmemhub: 1\n---\n", True),
        ("--- \r\nmemhub: 1\r\n---\r\n", True),
        ("----\nmemhub: 1\n---\n", False),
        ("# My notes\n\nSome text.\n", False),
        ("---\ntitle: Blog post\ntags: [a]\n---\nbody\n", False),
        ("---\nid: x\n---\nkind: fact\n", False),  # kind is in the body, not the front matter
        ("---\nkind: fact\n---\n", False),
        ("text\n---\nmemhub: 1\n---\n", False),
        ("", False),
    ],
)
def test_is_record_text(text: str, claims: bool) -> None:
    assert R.is_record_text(text.encode()) is claims


def test_non_utf8_markdown_is_not_a_claim_and_does_not_raise() -> None:
    assert R.is_record_text(b"\xff\xfe# notes\n") is False
    assert R.is_record_text(b"---\nmemhub: 1\ntitle: \xff\n---\n") is True


# --- revision, content hash, ids, the directive rule --------------------------------------


def test_revision_is_the_hash_of_the_bytes() -> None:
    data = render_record(make())
    assert R.revision(data) == hashlib.sha256(data).hexdigest()
    assert R.revision(data + b"\n") != R.revision(data)


def test_content_hash_ignores_case_spacing_and_metadata() -> None:
    first = make(title="The build uses uv", body="Run uv sync\nfirst.")
    same = make(id="r-2", title="  the BUILD uses  uv ", body="run uv  sync first.\n", tags=("x",))
    other = make(title="The build uses uv", body="Run pip install first.")
    assert R.content_hash(first) == R.content_hash(same)
    assert R.content_hash(first) != R.content_hash(other)
    assert re.fullmatch(r"[0-9a-f]{64}", R.content_hash(first))


def test_new_record_ids_are_valid_unique_and_sort_by_time() -> None:
    early = R.new_record_id(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC))
    late = R.new_record_id(datetime(2026, 1, 2, 3, 4, 6, tzinfo=UTC))
    assert re.fullmatch(r"r-20260102030405-[0-9a-f]{8}", early)
    assert early < late
    ids = {R.new_record_id() for _ in range(2000)}
    assert len(ids) == 2000
    for record_id in list(ids)[:20]:
        assert make(id=record_id).id == record_id  # a valid id and a safe file name


def test_now_timestamp_is_a_valid_record_time() -> None:
    stamp = R.now_timestamp()
    assert make(created=stamp, updated=stamp).created == stamp
    assert R.now_timestamp(datetime(2026, 5, 6, 7, 8, 9, 999, tzinfo=UTC)) == (
        "2026-05-06T07:08:09Z"
    )


@pytest.mark.parametrize("kind", R.KINDS)
@pytest.mark.parametrize("source", R.SOURCE_KINDS)
def test_directives_from_agents_and_tools_start_proposed(kind: str, source: str) -> None:
    proposed = kind in ("lesson", "procedure") and source in ("agent", "tool-output")
    assert R.proposed_status(kind, source) == ("proposed" if proposed else "active")


def test_records_import_without_pyyaml_under_python_s_i(tmp_path: Path) -> None:
    """The runtime is vendored: importing the modules needs only the standard library."""
    package = Path(R.__file__).parent
    target = tmp_path / "vendored" / "memory"
    target.mkdir(parents=True)
    for name in ("__init__.py", "layout.py", "kinds.py", "frontmatter.py", "records.py"):
        (target / name).write_bytes((package / name).read_bytes())
    code = (
        f"import sys; sys.path.insert(0, {str(tmp_path / 'vendored')!r})\n"
        "import memory.records as r\n"
        "assert 'yaml' not in sys.modules, 'PyYAML imported at module level'\n"
        "print(r.proposed_status('lesson', 'agent'), r.is_record_text(b'---\\nmemhub: 1\\n'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-I", "-c", code], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["proposed", "True"]


@pytest.mark.parametrize("field", ["title", "body", "tags", "name"])
def test_a_lone_surrogate_is_refused_before_anything_is_written(field: str) -> None:
    # MCP clients can send "\ud800" in JSON; the CLI turns undecodable argv bytes into such
    # characters. A record holding one could never be written as UTF-8: refuse it at once.
    bad = "deploy \ud800 notes"
    fields: dict[str, object] = {"kind": "artifact", "name": "runbook"}
    fields[field] = (bad,) if field == "tags" else bad
    with pytest.raises(RecordError, match="not valid Unicode"):
        _surrogate_record(**fields)


def _surrogate_record(**fields: object) -> Record:
    base: dict[str, object] = {
        "id": "r-20260101000000-0a1b2c3d",
        "title": "a title",
        "kind": "fact",
        "scope": "shared",
        "created": "2026-01-01T00:00:00Z",
        "updated": "2026-01-01T00:00:00Z",
        "source": Source(kind="agent"),
        "body": "b\n",
    }
    base.update(fields)
    return Record(**base)  # type: ignore[arg-type]
