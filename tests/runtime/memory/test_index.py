"""The derived FTS5 index: scoping enforced in SQL, any text a valid query, a file that heals."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from memhub.runtime.memory import fts
from memhub.runtime.memory.index import IndexDoc, MemoryIndex

ROOT = Path(__file__).resolve().parents[3]
SHARED = ("shared", None)


def doc(doc_id: str, scope: str = "project", project: str | None = "p1", **kw) -> IndexDoc:
    fields = {
        "kind": "fact",
        "title": f"title {doc_id}",
        "tags": (),
        "status": "active",
        "body": "body text",
        "path": f"{scope}/{project}/{doc_id}.md",
        "revision": "r1",
        "updated": "2026-01-01T00:00:00Z",
        "source": "record",
    }
    fields.update(kw)
    return IndexDoc(id=doc_id, scope=scope, project=project, **fields)


@pytest.fixture
def index(tmp_path: Path):
    with MemoryIndex(tmp_path / "index.sqlite") as opened:
        yield opened


def ids(hits) -> list[str]:
    return [hit.doc.id for hit in hits]


# --- build, refresh, get ------------------------------------------------------------------


def test_rebuild_then_search_and_get(index: MemoryIndex) -> None:
    assert index.created
    assert index.rebuild([doc("a", body="sqlite locking"), doc("b", SHARED[0], None)]) == 2
    assert ids(index.search("locking", [("project", "p1")])) == ["a"]
    assert index.get("b", [SHARED]) == doc("b", "shared", None)
    assert index.get("b", [("project", "p1")]) is None
    assert index.rebuild([doc("c", body="locking")]) == 1
    assert ids(index.search("locking", [("project", "p1")])) == ["c"]


def test_refresh_counts_what_changed(index: MemoryIndex) -> None:
    first = [doc("a", body="alpha"), doc("b", body="beta"), doc("c", body="gamma")]
    assert index.refresh(first).added == 3
    assert index.refresh(first).total == 0
    second = [doc("a", body="alpha"), doc("b", body="delta", revision="r2"), doc("d")]
    changes = index.refresh(second)
    assert (changes.added, changes.updated, changes.removed) == (1, 1, 1)
    mine = [("project", "p1")]
    assert ids(index.search("delta", mine)) == ["b"]
    assert index.search("beta", mine) == [] and index.search("gamma", mine) == []
    assert index.revisions() == {d.path: d.revision for d in second}


def test_refresh_of_records_leaves_sessions_alone(index: MemoryIndex) -> None:
    session = doc("s1", source="session", kind="session", body="we talked about caching")
    index.refresh([session], sources=("session",))
    index.refresh([doc("a", body="caching policy")])
    assert index.refresh([]).removed == 1
    mine = [("project", "p1")]
    assert ids(index.search("caching", mine, sources=("session",))) == ["s1"]
    with pytest.raises(ValueError, match="outside sources"):
        index.refresh([session])


def test_bad_documents_and_duplicate_keys_are_refused(index: MemoryIndex) -> None:
    for bad in (
        {"scope": "shared", "project": "p1"},
        {"scope": "project", "project": None},
        {"scope": "project", "project": ""},
        {"scope": "global", "project": None},
        {"status": "deleted"},
        {"source": "web"},
        {"tags": ["list"]},
    ):
        scope = str(bad.pop("scope", "project"))
        project = bad.pop("project", "p1")
        with pytest.raises(ValueError):
            doc("x", scope, project, **bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="share the key"):
        index.rebuild([doc("a"), doc("a", revision="r2")])


# --- ranking, snippets, filters -------------------------------------------------------------


def test_title_outranks_body_and_snippet_is_short(index: MemoryIndex) -> None:
    long_body = "filler words " * 200 + "the migration script lives in tools " + "more " * 200
    index.rebuild(
        [
            doc("body", title="Notes", body=long_body),
            doc("title", title="Migration script", body="see the wiki"),
        ]
    )
    hits = index.search("migration", [("project", "p1")], marks=("[", "]"))
    assert ids(hits) == ["title", "body"]
    assert hits[0].score > hits[1].score
    assert "[migration]" in hits[1].snippet and len(hits[1].snippet.split()) <= 14


def test_filters(index: MemoryIndex) -> None:
    index.rebuild(
        [
            doc("fact", body="cache", tags=("Perf", "db")),
            doc("lesson", kind="lesson", body="cache", tags=("perf",)),
            doc("old", body="cache", status="superseded"),
            doc("new", body="cache", status="proposed"),
        ]
    )
    mine = [("project", "p1")]
    assert sorted(ids(index.search("cache", mine))) == ["fact", "lesson", "new"]
    assert ids(index.search("cache", mine, kinds=("lesson",))) == ["lesson"]
    assert sorted(ids(index.search("cache", mine, tags=("perf",)))) == ["fact", "lesson"]
    assert ids(index.search("cache", mine, tags=("perf", "DB"))) == ["fact"]
    assert "old" in ids(index.search("cache", mine, include_superseded=True))
    assert "new" not in ids(index.search("cache", mine, include_proposed=False))
    assert len(index.search("cache", mine, limit=2)) == 2
    assert index.search("cache", mine, limit=0) == []
    assert index.count("cache", mine) == 3


def test_all_and_any_modes_and_stemming(index: MemoryIndex) -> None:
    index.rebuild([doc("a", body="the tests fail on café"), doc("b", body="tests pass")])
    mine = [("project", "p1")]
    assert ids(index.search("test failing", mine)) == ["a"]
    assert ids(index.search("cafe", mine)) == ["a"]
    assert sorted(ids(index.search("failing passing", mine, mode="any"))) == ["a", "b"]
    assert index.search("failing passing", mine) == []
    # "two": any two of the terms
    assert sorted(ids(index.search("tests fail pass", mine, mode="two"))) == ["a", "b"]
    assert ids(index.search("fail pass café", mine, mode="two")) == ["a"]


# --- scopes: an adversarial matrix --------------------------------------------------------

ADVERSARIAL = [
    ("project", "p2"),
    ("project", "P1"),
    ("project", " p1"),
    ("project", "p1 "),
    ("project", "../p1"),
    ("project", "p1/.."),
    ("project", "./p1"),
    ("project", "p1\x00"),
    ("project", "\ud800"),
    ("project", "%"),
    ("project", "p%"),
    ("project", "*"),
    ("project", "p1' OR '1'='1"),
    ("project", ""),
    ("project", None),
    ("shared", "p1"),
    ("shared", ""),
    ("Shared", None),
    ("SHARED", None),
    ("project ", "p1"),
    ("", "p1"),
    ("", None),
    ("*", None),
    (None, None),
    (None, "p1"),
    ("project", 1),
    ("project", ["p1"]),
    ("p1", None),
    ("p1", "project"),
]


@pytest.fixture
def populated(index: MemoryIndex) -> MemoryIndex:
    index.rebuild(
        [
            doc("mine", body="secret token alpha", tags=("alpha",)),
            doc("shared", "shared", None, body="secret token alpha"),
            doc("other", "project", "../p1", body="secret token alpha"),
            doc("pct", "project", "%", body="secret token alpha"),
            doc("sess", source="session", kind="session", body="secret token alpha"),
        ]
    )
    return index


@pytest.mark.parametrize("grant", ADVERSARIAL, ids=repr)
def test_nothing_outside_the_given_scopes(populated: MemoryIndex, grant) -> None:
    allowed = [grant]
    leaked = {"mine", "shared", "sess"}  # "other" and "pct" are filed under those literal ids
    for query in ("secret", "alpha", "token secret", "secret OR alpha"):
        for sources in (("record",), ("session",), ()):
            found = ids(populated.search(query, allowed, sources=sources, limit=100))
            assert populated.count(query, allowed, sources=sources) == len(found)
            found += ids(populated.search(query, allowed, sources=sources, mode="any"))
            assert not set(found) & leaked, (grant, query, found)
    for doc_id in ("mine", "shared", "sess"):
        assert populated.get(doc_id, allowed) is None


def test_exact_grants_see_exactly_their_own(populated: MemoryIndex) -> None:
    mine = [("project", "p1")]
    assert ids(populated.search("secret", mine)) == ["mine"]
    assert ids(populated.search("secret", [SHARED])) == ["shared"]
    assert ids(populated.search("secret", [("project", "../p1")])) == ["other"]
    both = sorted(ids(populated.search("secret", [*mine, SHARED, SHARED])))
    assert both == ["mine", "shared"]
    assert populated.count("secret", [*mine, SHARED], sources=()) == 3
    assert populated.search("secret", []) == [] and populated.count("secret", []) == 0
    # of the whole matrix, only the two literal ids grant anything: their own documents
    found = ids(populated.search("secret", [*ADVERSARIAL, *mine], limit=100))
    assert sorted(found) == ["mine", "other", "pct"]


def test_query_text_cannot_name_a_scope(populated: MemoryIndex) -> None:
    mine = [("project", "p1")]
    for query in ('project:"%"', "scope:shared", "p1 OR ../p1", 'secret" OR "x', "title:* secret"):
        assert set(ids(populated.search(query, mine, mode="any"))) <= {"mine"}


# --- query escaping -------------------------------------------------------------------------

NASTY = [
    "",
    "   \t\n ",
    "/",
    '"',
    '""',
    '"unbalanced',
    "'single",
    "-",
    "-secret",
    "secret*",
    "*",
    ":",
    "title:secret",
    "^secret",
    "(secret",
    "secret)",
    "[secret",
    "{secret}",
    "secret AND",
    "OR",
    "NOT secret",
    "NEAR(secret token)",
    "secret NEAR/2 token",
    "a + b",
    "src/memhub/index.py:12",
    "ModuleNotFoundError: No module named 'yaml'",
    "\x00secret\x00",
    "\ud800 secret",
    "секрет тест 日本語 🚀",
    "x" * 10_000,
    "secret " * 2_000,
    "( " * 5_000,
]


@pytest.mark.parametrize("query", NASTY, ids=lambda q: repr(q[:30]))
def test_any_text_is_a_valid_query(populated: MemoryIndex, query: str) -> None:
    mine = [("project", "p1")]
    for mode in ("all", "any", "two"):
        hits = populated.search(query, mine, mode=mode)  # type: ignore[arg-type]
        assert populated.count(query, mine, mode=mode) == len(hits)  # type: ignore[arg-type]


def test_empty_and_punctuation_queries_find_nothing(populated: MemoryIndex) -> None:
    for query in ("", "  ", "\n\t", "---", "* : ^", '""'):
        assert fts.match_expression(query) is None
        assert populated.search(query, [("project", "p1")]) == []


def test_operators_are_words_and_long_queries_are_capped(populated: MemoryIndex) -> None:
    mine = [("project", "p1")]
    assert ids(populated.search("-secret", mine)) == ["mine"]
    assert ids(populated.search('"secret', mine)) == ["mine"]
    assert populated.search("NOT secret", mine) == []  # "not" is a term the doc lacks
    assert len(fts.terms("w " * 50 + " ".join(f"t{i}" for i in range(500)))) == fts.MAX_TERMS


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(max_size=200))
def test_random_text_never_raises(populated: MemoryIndex, query: str) -> None:
    for mode in ("all", "any", "two"):
        populated.search(query, [("project", "p1"), SHARED], mode=mode)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab \"*():^-+/NEAROTD\\'{}[]"), max_size=60))
def test_syntax_soup_never_raises(query: str) -> None:
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5(x, tokenize='{fts.TOKENIZER}')")
    db.execute("INSERT INTO t VALUES ('a b ab near or not and')")
    for mode in ("all", "any", "two"):
        expression = fts.match_expression(query, mode)  # type: ignore[arg-type]
        if expression is not None:
            db.execute("SELECT count(*) FROM t WHERE t MATCH ?", (expression,)).fetchone()


# --- the file: invalid, other versions, deleted, concurrent -----------------------------


def test_a_file_that_is_not_an_index_is_moved_aside(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    path.write_bytes(b"not a database at all, just text " * 100)
    with MemoryIndex(path) as index:
        assert index.created and index.rebuild([doc("a")]) == 1
    assert (tmp_path / "index.sqlite.bad").read_bytes().startswith(b"not a database")
    with MemoryIndex(path) as index:
        assert not index.created and index.get("a", [("project", "p1")]) is not None


def test_another_schema_or_another_database_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    with MemoryIndex(path) as index:
        index.rebuild([doc("a")])
        index._db.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
    with MemoryIndex(path) as index:
        assert index.created and index.get("a", [("project", "p1")]) is None
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE users (name TEXT)")
    db.commit()
    db.close()
    with MemoryIndex(other) as index:
        assert index.created and index.search("x", [SHARED]) == []


def test_a_deleted_index_is_recreated_on_next_open(tmp_path: Path) -> None:
    path = tmp_path / "memory" / "index.sqlite"
    with MemoryIndex(path) as index:
        index.rebuild([doc("a", body="kept")])
    path.unlink()
    with MemoryIndex(path) as index:
        assert index.created and index.search("kept", [("project", "p1")]) == []
        assert index.refresh([doc("a", body="kept")]).added == 1
    with MemoryIndex(path) as index:
        assert ids(index.search("kept", [("project", "p1")])) == ["a"]


WRITER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {root!r})
    from memhub.runtime.memory.index import IndexDoc, MemoryIndex
    worker, path = int(sys.argv[1]), sys.argv[2]
    for round in range(15):
        docs = [
            IndexDoc(id=f"d{{i}}", scope="project", project="p1", kind="fact",
                     title=f"doc {{i}}", tags=("t",), status="active",
                     body=f"common words round{{round}} worker{{worker}}", path=f"d{{i}}.md",
                     revision=f"{{worker}}-{{round}}-{{i % 3}}", updated="2026-01-01")
            for i in range(40 + (round + worker) % 7)
        ]
        with MemoryIndex(path) as index:
            index.refresh(docs)
    """
)


def test_concurrent_refreshes_do_not_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "index.sqlite"
    path.write_bytes(b"garbage: every process races to replace it")
    script = WRITER.format(root=str(ROOT))
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(n), str(path)], stderr=subprocess.PIPE)
        for n in range(4)
    ]
    errors = [proc.communicate(timeout=120)[1] for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), errors
    with MemoryIndex(path) as index:
        assert not index.created
        assert index._db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        index._db.execute("INSERT INTO fts(fts, rank) VALUES ('integrity-check', 1)")
        listed = index.revisions()
        assert index.count("common", [("project", "p1")]) == len(listed)
        assert index._db.execute("SELECT count(*) FROM doc_tags").fetchone() == (len(listed),)


def test_imports_under_a_bare_interpreter(tmp_path: Path) -> None:
    """Bundles vendor runtime/ as memhub_runtime; a hook runs it under -S -I, without PyYAML."""
    shutil.copytree(ROOT / "runtime", tmp_path / "memhub_runtime")
    code = (
        f"import sys; sys.path.append({str(tmp_path)!r}); "
        "from memhub_runtime.memory.index import IndexDoc, MemoryIndex; "
        f"ix = MemoryIndex({str(tmp_path / 'i.sqlite')!r}); "
        "ix.rebuild([IndexDoc('a', 'shared', None, 'fact', 'T', (), 'active', 'hello', 'a.md',"
        " 'r', '2026')]); "
        "print(len(ix.search('hello', [('shared', None)])), 'yaml' in sys.modules)"
    )
    proc = subprocess.run(
        [sys.executable, "-S", "-I", "-c", code], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "1 False", proc.stderr


def test_any_project_id_is_its_own_scope(index: MemoryIndex) -> None:
    odd = ["ünï/код", "a b", '"quoted"', "x" * 500, "e\u0301"]
    index.rebuild([doc(f"d{n}", "project", project, body="word") for n, project in enumerate(odd)])
    for n, project in enumerate(odd):
        assert ids(index.search("word", [("project", project)])) == [f"d{n}"]
    assert fts.scope_key("project", "é") != fts.scope_key("project", "e\u0301")
    assert index.search("word", [("project", "\ud800")]) == []
    assert index.get("\ud800", [("project", "ünï/код")]) is None
    with pytest.raises(ValueError, match="UTF-8"):
        doc("bad", "project", "\ud800")
