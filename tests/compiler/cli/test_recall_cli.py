"""`memhub recall stats`: what the recall hooks injected, read back per session and overall."""

from __future__ import annotations

from pathlib import Path

import pytest
from memhub.runtime.dispatch import Output
from memhub.runtime.events import normalise
from memhub.runtime.memory import directives_hook
from memhub.runtime.memory.recall_stats import percentile, stats

from .memkit import Memhub, connected, home


@pytest.fixture
def mh(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Memhub:
    return Memhub(capsys, monkeypatch, tmp_path)


def directive(mh: Memhub, cwd: Path, title: str, *triggers: str) -> str:
    ran = mh(
        "memory", "add", "--kind", "lesson", "--title", title, "--body", f"why {title}",
        *[w for t in triggers for w in ("--trigger", t)], "--yes", "--json", cwd=cwd,
    )  # fmt: skip
    assert ran.code == 0, ran.err + ran.out
    rid = next(c["record_id"] for c in ran.data["plan"]["changes"] if c["action"] == "create")
    assert mh("memory", "search", title, "--json", cwd=cwd).code == 0  # the index is current
    return str(rid)


def edit(cwd: Path, path: str, session: str) -> Output:
    payload = {"session_id": session, "cwd": str(cwd), "tool_name": "Edit"}
    payload["tool_input"] = {"file_path": str(cwd / path)}
    out = Output(str(home()))
    directives_hook.run(normalise("claude", "PreToolUse", payload), out)
    return out


def test_stats_count_what_each_session_injected_and_what_never_fired(
    mh: Memhub, tmp_path: Path
) -> None:
    top, _ = connected(mh, tmp_path / "shop")
    fires = directive(mh, top, "billing models", "path:billing/models.py")
    never = directive(mh, top, "ledger rules", "path:ledger/rules.py")
    theirs, _ = connected(mh, tmp_path / "other")
    directive(mh, theirs, "their rules", "path:their/rules.py")  # another project's: not listed
    assert edit(top, "billing/models.py", "s1").contexts
    assert edit(top, "billing/models.py", "s2").contexts
    ran = mh("recall", "stats", "--json", cwd=top)
    assert ran.code == 0, ran.err
    data = ran.data
    assert [row["name"] for row in data["sessions"]] == ["claude-s1", "claude-s2"]
    one = data["sessions"][0]
    cost = one["handlers"]["recall.directives"]
    assert cost["injections"] == 1 and cost["tokens"] == -(-cost["chars"] // 4) > 0
    assert one["fired"][0]["id"] == fires and one["fired"][0]["event"] == "before_tool"
    assert data["top_directives"] == [{"id": fires, "fires": 2, "sessions": 2}]
    assert data["never_fired"] == [never]
    spent = data["tokens_per_session"]
    assert spent["sessions"] == 2 and spent["p50"] == spent["p95"] == cost["tokens"]
    only = mh("recall", "stats", "--session", "s2", "--json", cwd=top).data
    assert [row["session"] for row in only["sessions"]] == ["s2"]
    text = mh("recall", "stats", cwd=top).out
    assert "p50" in text and f"fired {fires} on 'billing/models.py'" in text
    assert mh("recall", "stats", "--session", "nope", cwd=top).code != 0


def test_percentiles_are_nearest_rank_and_an_empty_session_counts_zero() -> None:
    assert percentile([], 0.5) == 0 and percentile([5], 0.95) == 5
    assert percentile(list(range(1, 101)), 0.5) == 50
    assert percentile(list(range(1, 101)), 0.95) == 95
    got = stats([("a", []), ("b", [{"handler": "h", "chars": 40, "tokens": 10, "fired": []}])])
    assert got["tokens_per_session"] == {"sessions": 2, "p50": 0, "p95": 10, "total": 10}
