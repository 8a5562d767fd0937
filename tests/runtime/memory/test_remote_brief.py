"""The session brief and prompt recall from a remote server: `recall.brief`'s detached child
and `recall.prompt` against a real `memhub mcp serve --http`.

The server holds the project `shop`; each test's own home holds no memory at all, only the
`recall.json` an install would, and a checkout whose branch touches `app/models.py` (branch
`feature/ENG-42-models`, a commit naming PR #7). The session start itself opens no socket
(an audit hook in a real hook process proves it); failures use real sockets.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from memhub.runtime import dispatch, handlers
from memhub.runtime.dispatch import Output
from memhub.runtime.events import normalise
from memhub.runtime.memory import (
    brief_cache,
    brief_render,
    brief_where,
    injections,
    remote_brief,
)
from memhub.runtime.memory.recall_ids import Ident
from memhub.runtime.memory.records import Triggers

from .remotehelp import (
    FAILURES,
    KEY_ENV,
    WRONG_KEY,
    Seed,
    Served,
    configure,
    failing,
    hook_log,
    serving,
)  # fmt: skip
from .test_brief import commit, git

SEEDS: list[Seed] = [
    ("r-models", "lesson", "Models need a migration", "Run makemigrations after models.",
     Triggers(paths=("app/models.py",))),
    ("r-tf", "lesson", "Plan before apply", "Terraform: plan first.",
     Triggers(paths=("deploy/main.tf",))),
    ("r-fact", "fact", "Where the schema lives", "app/models.py holds the schema.", Triggers()),
    ("r-pr", "decision", "Nullable field", "Reviewed in PR #7: keep it nullable.", Triggers()),
    ("r-near", "fact", "Models in general", "The models folder app/models is old.", Triggers()),
]  # fmt: skip


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with serving(tmp_path_factory.mktemp("remote-brief"), "shop", SEEDS) as found:
        yield found


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout on a branch touching app/models.py, in a home with no memory."""
    monkeypatch.setenv("HOME", str(tmp_path / "jane"))
    for name in ("MEMHUB_BRIEF_TOKEN_BUDGET", "MEMHUB_BRIEF_POINTERS"):
        monkeypatch.delenv(name, raising=False)
    repo = tmp_path / "checkout"
    repo.mkdir()
    git(repo, "init", "-q")
    commit(repo, "README.md", "init")
    git(repo, "branch", "-M", "main")
    git(repo, "checkout", "-qb", "feature/ENG-42-models")
    commit(repo, "app/models.py", "models: a field (PR #7)")
    return repo


@pytest.fixture
def remote(served: Served, app: Path, monkeypatch: pytest.MonkeyPatch) -> Served:
    monkeypatch.setenv(KEY_ENV, served.key)
    configure(served.url)
    return served


def home() -> str:
    return os.environ["MEMHUB_HOME"]


def start(app: Path, session: str, *, child: bool = True) -> Output:
    """The handler as the dispatcher runs it, then its job here, as the child would."""
    event = normalise("claude", "SessionStart", {"session_id": session, "cwd": str(app)})
    out = Output(home())
    handlers.HANDLERS["recall.brief"](event, out)
    if child and out.jobs:
        for callback in out.started:
            callback()
        dispatch.run_jobs(out.jobs, home(), "test")
    return out


def prompt(app: Path, text: str, session: str) -> Output:
    payload = {"session_id": session, "cwd": str(app), "prompt": text}
    out = Output(home())
    handlers.HANDLERS["recall.prompt"](normalise("claude", "UserPromptSubmit", payload), out)
    return out


def cached(app: Path) -> dict[str, object] | None:
    """The branch's pointer cache (this home holds one checkout's)."""
    docs = [brief_cache.load(str(p)) for p in Path(brief_cache.folder(home())).glob("ptr-*")]
    return docs[0] if docs else None


def fresh(app: Path, served: Served) -> bool:
    where = brief_where.checkout(str(app))
    assert isinstance(where, brief_where.Where)
    from memhub.runtime.memory.recall_scope import account_name

    signature = f"remote:{served.url}"
    return brief_cache.pointers_of(home(), where, signature, account_name()).fresh


# --- the child fills the cache; the brief and the first prompt show it ----------------------


def test_the_child_asks_the_remote_and_the_briefs_show_what_it_found(
    remote: Served, app: Path
) -> None:
    first = start(app, "s-1", child=False)
    (text,) = first.contexts
    assert f"the remote server at {remote.url}" in text and "### Map" in text
    assert "Models need a migration" not in text  # not fetched yet: the child's job
    assert [j["call"] for j in first.jobs] == ["memory.brief_pointers.refresh"]
    assert first.messages == [f"🧠 memhub: memory in this repo is the remote server at "
                                     f"{remote.url}"]  # fmt: skip
    for callback in first.started:
        callback()
    dispatch.run_jobs(first.jobs, home(), "test")
    doc = cached(app)
    assert doc is not None and [i["id"] for i in doc["apply"]] == ["r-models"]  # type: ignore[index]
    assert {i["id"] for i in doc["recall"]} == {"r-fact", "r-pr"}  # type: ignore[index]
    assert str(doc["overview"]).startswith("shop: ")
    assert fresh(app, remote)
    # the first prompt delivers what the child found (no identifier in it: no search)
    late = prompt(app, "let us start", "s-1")
    (delivered,) = late.contexts
    assert delivered.startswith(brief_render.LATE_HEAD)
    assert "Models need a migration" in delivered and "fires on: app/models.py" in delivered
    assert "Where the schema lives" in delivered and "Nullable field" in delivered
    assert brief_render.OVERVIEW_HEAD in delivered and "shop: " in delivered
    # the next session start shows it all at once, from the cache: no job
    second = start(app, "s-2", child=False)
    (brief,) = second.contexts
    assert second.jobs == [] and second.messages == []
    assert brief.index("### Map") < brief.index(brief_render.OVERVIEW_HEAD)
    assert brief.index(brief_render.OVERVIEW_HEAD) < brief.index(brief_render.APPLY_HEAD)
    assert "Models need a migration" in brief and "Where the schema lives" in brief
    pointers = brief.split(brief_render.APPLY_HEAD, 1)[1]  # the overview lists every record
    assert "Plan before apply" not in pointers and "Models in general" not in pointers
    assert hook_log() == ""


def test_the_overview_is_clipped_and_the_map_is_never_cut() -> None:
    overview = "\n".join(f"line {n}: " + "x" * 60 for n in range(100))
    brief = brief_render.render_items(
        ["## head"], {}, [], [], [], 900 * 3 // 2 * 4, overview=overview, total="remote"
    )
    assert brief_render.OVERVIEW_HEAD in brief.text
    kept = brief.text.split(brief_render.OVERVIEW_HEAD + "\n", 1)[1]
    assert len(kept) <= brief_render.OVERVIEW_CHARS and kept.endswith("…")
    items = [{"id": f"r-{n}", "line": "- x" * 80} for n in range(5)]
    small = brief_render.render_items(["## head"], {}, [], items, items, 700 * 3, overview=kept)
    assert small.cut and brief_render.OVERVIEW_HEAD in small.text and small.shown == []


def test_a_prompt_naming_a_file_gets_its_pointer_from_the_remote(remote: Served, app: Path) -> None:
    out = prompt(app, f"what does {app}/app/models.py hold?", "p-1")
    (text,) = out.contexts
    assert "Where the schema lives" in text and "`r-fact`" in text and len(text) <= 600
    assert "Models in general" not in text  # the server's full-text hit, not an exact one
    kept = Path(injections.session_dir(home(), "claude", "p-1"), "remote.session")
    assert kept.read_text().startswith(remote.url) and remote.key not in kept.read_text()
    assert prompt(app, f"and {app}/app/models.py again?", "p-1").contexts == []  # shown once
    assert prompt(app, "nothing named here", "p-2").contexts == []
    assert hook_log() == ""


def test_what_the_brief_showed_is_not_pointed_at_again(remote: Served, app: Path) -> None:
    start(app, "s-1")
    prompt(app, "go", "s-1")  # the late part: r-fact among it
    assert prompt(app, "look at app/models.py", "s-1").contexts == []


def test_a_prompt_without_identifiers_imports_no_remote_code(remote: Served, app: Path) -> None:
    code = (
        "import sys, json; from memhub.runtime import handlers;"
        "from memhub.runtime.dispatch import Output; from memhub.runtime.events import normalise;"
        f"e = normalise('claude', 'UserPromptSubmit', {{'session_id': 'x', 'cwd': {str(app)!r},"
        " 'prompt': 'please go on'}); handlers.HANDLERS['recall.prompt'](e, Output(sys.argv[1]));"
        "print(json.dumps(sorted(m for m in sys.modules if 'remote' in m or m == 'socket')))"
    )
    done = subprocess.run([sys.executable, "-c", code, home()], capture_output=True, text=True,
                          check=True)  # fmt: skip
    assert done.stdout.strip() == "[]"


# --- the session start opens no socket --------------------------------------------------------

AUDIT = (
    "import os, sys\n"
    "log = sys.argv.pop(1)\n"
    "def audit(event, args):\n"
    "    if event == 'socket.connect':\n"
    "        with open(log, 'a') as f: f.write(f'{os.getpid()}\\n')\n"
    "sys.addaudithook(audit)\n"
    "from memhub.runtime.hook import main\n"
    "sys.exit(main())\n"
)


def test_the_session_start_hook_process_opens_no_socket(
    remote: Served, app: Path, tmp_path: Path
) -> None:
    import json

    connects = tmp_path / "connects"
    payload = {"session_id": "h-1", "cwd": str(app), "hook_event_name": "SessionStart"}
    hook = subprocess.Popen(
        [sys.executable, "-c", AUDIT, str(connects), "claude", "SessionStart", "recall.brief"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={**os.environ},
    )  # fmt: skip
    stdout, _ = hook.communicate(json.dumps(payload), timeout=60)
    assert hook.returncode == 0
    context = json.loads(stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"the remote server at {remote.url}" in context
    deadline = time.monotonic() + 30
    while not fresh(app, remote) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert fresh(app, remote)  # the detached child asked the server...
    pids = set(connects.read_text().split())
    assert pids and str(hook.pid) not in pids  # ...and the hook itself opened no socket


# --- fail open ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("case", "reason"), FAILURES)
def test_a_failing_remote_leaves_the_brief_and_the_prompt_silent_and_logged(
    served: Served, app: Path, monkeypatch: pytest.MonkeyPatch, case: str, reason: str
) -> None:
    monkeypatch.setenv(KEY_ENV, WRONG_KEY if case == "unauthorized" else served.key)
    with failing(served) as urls:
        configure(urls[case], timeout_ms=500)
        started = time.monotonic()
        out = start(app, "f-1")
        assert time.monotonic() - started < remote_brief.CHILD_BUDGET_S + 2
        assert "the remote server at" in out.contexts[0]
        assert "Models need a migration" not in out.contexts[0]
        doc = cached(app)
        assert doc is not None and doc["key"] == "" and not fresh(app, served)  # asks again
        started = time.monotonic()
        assert prompt(app, "go", "f-1").contexts == []  # the late part: nothing found
        assert prompt(app, "fix app/models.py", "f-1").contexts == []
        assert time.monotonic() - started < remote_brief.PROMPT_BUDGET_S + 1
    log = hook_log()
    assert f"get_brain_overview at {urls[case]} failed" in log and f"{reason}:" in log, log
    assert f"search_memory at {urls[case]} failed" in log
    assert served.key not in log and WRONG_KEY not in log
    assert start(app, "f-2", child=False).jobs  # the next start asks again


def test_an_empty_local_memory_still_gets_the_remote_brief(remote: Served, app: Path) -> None:
    memhub = Path(sys.executable).parent / "memhub"
    subprocess.run([str(memhub), "memory", "list"], check=True, capture_output=True,
                   env={**os.environ})  # fmt: skip
    assert (Path(home()) / "memory" / "index.sqlite").is_file()  # an index, holding nothing
    start(app, "e-1")
    (text,) = start(app, "e-2", child=False).contexts
    assert f"the remote server at {remote.url}" in text and "Models need a migration" in text


def test_no_remote_and_no_memory_is_silent(app: Path) -> None:
    out = start(app, "n-1")
    assert out.contexts == [] and out.jobs == [] and out.messages == []
    assert prompt(app, "fix app/models.py", "n-1").contexts == []


def test_search_hits_count_only_when_they_name_the_identifier_exactly() -> None:
    ident = Ident("path", "app/models.py")
    item = {"id": "r-1", "title": "T", "content": "see app/models.py.", "kind": "fact"}
    named = remote_brief.named_of(item, ident)
    assert (
        named is not None
        and named.id == "r-1"
        and [i.text for i in named.idents] == ["app/models.py"]
    )
    assert remote_brief.named_of({**item, "content": "see app/models.pyc"}, ident) is None
    assert remote_brief.named_of({**item, "content": "xapp/models.py"}, ident) is None
    assert remote_brief.named_of({"title": "no id", "content": "app/models.py"}, ident) is None
