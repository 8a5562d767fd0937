"""Adversarial arguments over the CLI: another project's ids, paths for ids, scopes not granted,
FTS syntax in queries. Nothing outside the caller's scopes is returned, counted or named, and
every refusal is one message, never a traceback."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests.compiler.cli.memkit import Memhub, add, connected, record_files, revision_of


@pytest.fixture
def mh(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Memhub:
    return Memhub(capsys, monkeypatch, tmp_path)


@pytest.fixture
def two(mh: Memhub, tmp_path: Path) -> dict[str, object]:
    """Project `secret` with one record, and project `mine` where the caller works."""
    secret, secret_id = connected(mh, tmp_path / "secret", name="secretproj")
    rid = add(mh, secret, "Zanzibar launch codes", "xylophone quartz")
    mine, mine_id = connected(mh, tmp_path / "mine")
    add(mh, mine, "My own fact", "ordinary")
    return {
        "secret": secret, "secret_id": secret_id, "rid": rid, "rev": revision_of(mh, secret, rid),
        "mine": mine, "mine_id": mine_id,
    }  # fmt: skip


def _leaks(text: str, two: dict[str, object]) -> bool:
    return (
        any(str(two[k]) in text for k in ("secret_id",))
        or "secretproj" in text
        or ("Zanzibar" in text or "xylophone" in text)
    )


def test_another_projects_record_is_not_there(mh: Memhub, two: dict[str, object]) -> None:
    mine, rid, rev = two["mine"], str(two["rid"]), str(two["rev"])
    assert isinstance(mine, Path)
    before = {p: p.read_bytes() for p in record_files("*")}
    runs = [
        ("memory", "get", rid),
        ("memory", "get", rid, "--json"),
        ("memory", "edit", rid, "--revision", rev, "--title", "pwned", "--yes"),
        ("memory", "rm", rid, "--revision", rev, "--yes"),
        ("memory", "accept", rid, "--yes"),
        ("memory", "export", rid, "--to", str(mine / "out"), "--yes"),
    ]
    for args in runs:
        ran = mh(*args, cwd=mine)
        assert ran.code == 1, (args, ran.err)
        assert f"no record {rid} in this memory" in (ran.err + ran.out)
        assert not _leaks(ran.out + ran.err.replace(rid, ""), two), (args, ran.err)
    assert {p: p.read_bytes() for p in record_files("*")} == before
    assert not (mine / "out").exists()


def test_an_absent_id_reads_the_same_as_another_projects(
    mh: Memhub, two: dict[str, object]
) -> None:
    mine, rid = two["mine"], str(two["rid"])
    assert isinstance(mine, Path)
    absent = "r-20990101000000-deadbeef"
    theirs = mh("memory", "get", rid, cwd=mine).err.replace(rid, "ID")
    nothing = mh("memory", "get", absent, cwd=mine).err.replace(absent, "ID")
    assert theirs == nothing


def test_search_list_and_counts_stay_in_scope(mh: Memhub, two: dict[str, object]) -> None:
    mine = two["mine"]
    assert isinstance(mine, Path)
    for query in ("Zanzibar", "xylophone quartz", "launch", "*"):
        ran = mh("memory", "search", query, "--json", cwd=mine)
        assert ran.code == 0 and ran.data["hits"] == [], query
        # the answer names the query's own words as found nowhere the caller can see: the
        # other project's record is neither returned nor counted
        assert ran.data["unmatched_terms"] == [w for w in query.split() if w != "*"], query
        echoed = ran.out
        for word in query.split():
            echoed = echoed.replace(f'"{word}"', "")
        assert not _leaks(echoed, two), query
    listed = mh("memory", "list", "--all", "--json", cwd=mine)
    assert [r["title"] for r in listed.data["records"]] == ["My own fact"]
    index = mh("memory", "index", "--json", cwd=mine)
    assert sum(index.data["counts"].values()) == 1 and not _leaks(index.out, two)


@pytest.mark.parametrize(
    "bad",
    ["../x", "../../secret/records/r-1", "/etc/passwd", "r-1/../../x", "R-UPPER", "", "-", "x" * 5000,
     "r-1\x00", "..", ".", "r-\udcff"],
)  # fmt: skip
def test_path_like_ids_get_nothing(mh: Memhub, two: dict[str, object], bad: str) -> None:
    mine = two["mine"]
    assert isinstance(mine, Path)
    before = {p: p.read_bytes() for p in record_files("*")}
    for args in (
        ("memory", "get", "--", bad),
        ("memory", "rm", "--revision", "0", "--yes", "--", bad),
        ("memory", "edit", "--revision", "0", "--title", "t", "--yes", "--", bad),
        (
            "memory",
            "add",
            "--kind",
            "fact",
            "--title",
            "t",
            "--body",
            "b",
            "--supersedes",
            bad,
            "--yes",
        ),
    ):
        ran = mh(*args, cwd=mine)
        assert ran.code in (1, 2), (args, ran.err)
        assert ran.err.startswith("memhub: ") or ran.err.startswith("Error: "), ran.err
        assert not _leaks(ran.out + ran.err, two)
    assert {p: p.read_bytes() for p in record_files("*")} == before


@pytest.mark.parametrize(
    "query", ['/etc/passwd', '"unbalanced', "-x", "a*", "title:x", "(x", "[x", "x)", "NEAR(", "^",
              "a OR", "AND", "NOT x", "''", "\\", "🙂", "x" * 3000, " ", "a\x00b"],
)  # fmt: skip
def test_any_text_is_a_valid_query(mh: Memhub, two: dict[str, object], query: str) -> None:
    mine = two["mine"]
    assert isinstance(mine, Path)
    ran = mh("memory", "search", "--json", "--", query, cwd=mine)
    assert ran.code == 0, ran.err
    assert not _leaks(ran.out, two)
    assert mh("memory", "search", "--kind", "session", "--", query, cwd=mine).code == 0


def test_scopes_not_granted(mh: Memhub, two: dict[str, object]) -> None:
    tmp = Path(tempfile.gettempdir())
    listed = mh("memory", "list", "--scope", "project", cwd=tmp)
    assert listed.code == 1 and "not inside a git checkout" in listed.err
    assert mh("memory", "list", "--scope", "everything", cwd=tmp).code == 2
    assert mh("memory", "search", "x", "--scope", "../secret", cwd=tmp).code == 2
    shared_only = mh("memory", "list", "--json", cwd=tmp)
    assert shared_only.code == 0 and shared_only.data["records"] == []
    assert not _leaks(shared_only.out + shared_only.err, two)
    # --project pointing into the other project is the caller's explicit word; a path that
    # is not a checkout is simply no project
    nowhere = mh("memory", "list", "--project", "/etc", "--scope", "project", cwd=tmp)
    assert nowhere.code == 1 and not _leaks(nowhere.err, two)


def test_writes_outside_the_granted_scopes(
    mh: Memhub, two: dict[str, object], tmp_path: Path
) -> None:
    mine, rid = two["mine"], str(two["rid"])
    assert isinstance(mine, Path)
    before = {p: p.read_bytes() for p in record_files("*")}
    sup = mh("memory", "add", "--kind", "fact", "--title", "t", "--body", "b",
             "--supersedes", rid, "--yes", cwd=mine)  # fmt: skip
    assert sup.code == 1 and f"no record {rid} in this memory" in sup.err
    private, _ = connected(mh, tmp_path / "private")
    mh("project", "connect", "--no-shared", cwd=private)
    shared = mh("memory", "add", "--kind", "fact", "--title", "t", "--body", "b",
                "--scope", "shared", "--yes", cwd=private)  # fmt: skip
    assert shared.code == 1 and "--shared" in shared.err
    assert {p: p.read_bytes() for p in record_files("*")} == before


def test_arguments_that_are_not_utf8_are_refused(mh: Memhub, two: dict[str, object]) -> None:
    """Bytes that are not UTF-8 reach Python as lone surrogates: refused, never a crash."""
    mine = two["mine"]
    assert isinstance(mine, Path)
    before = {p: p.read_bytes() for p in record_files("*")}
    for args in (
        ("memory", "add", "--kind", "fact", "--title", "bad\udcff", "--body", "b", "--yes"),
        ("memory", "add", "--kind", "fact", "--title", "t", "--body", "\udcff", "--yes"),
        ("memory", "search", "\udcff\udcfe", "--json"),
        ("project", "connect", "--name", "\udcff"),
    ):
        ran = mh(*args, cwd=mine)
        assert ran.code == 2 and "not UTF-8" in ran.err + ran.out, (args, ran.err)
    assert {p: p.read_bytes() for p in record_files("*")} == before


def test_the_crash_log_survives_arguments_that_are_not_utf8(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from memhub.compiler.cli import main as cli_main

    monkeypatch.setattr("sys.argv", ["memhub", "memory", "get", "r-\udcff"])
    log = cli_main._crash_log(RuntimeError("boom"))
    assert log is not None and "r-\\udcff" in log.read_text()
