"""Project registry and worktree-aware resolution, against real git repositories and worktrees."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from memhub.runtime.memory import projects as P
from memhub.runtime.memory.gitcheckout import Checkout, checkout_of, git_env

from tests.gitrepos import git, repo, worktree


def checkout(path: Path) -> Checkout:
    """The checkout of `path`, which must be one."""
    found = checkout_of(path)
    assert found is not None, path
    return found


# -- gitcheckout ---------------------------------------------------------------------------


def test_a_subfolder_is_the_same_checkout(tmp_path: Path) -> None:
    top = repo(tmp_path / "app")
    (top / "src" / "deep").mkdir(parents=True)
    assert checkout(top / "src" / "deep") == checkout(top)
    assert checkout(top) == Checkout(str(top.resolve()), str((top / ".git").resolve()))


def test_worktrees_share_the_common_dir(tmp_path: Path) -> None:
    main = repo(tmp_path / "app", commit=True)
    second = worktree(main, tmp_path / "app-feature")
    a, b = checkout(main), checkout(second)
    assert a.common_dir == b.common_dir == str((main / ".git").resolve())
    assert b.toplevel == str(second.resolve()) != a.toplevel


def test_no_checkout_outside_bare_or_broken(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    assert checkout_of(tmp_path / "plain") is None
    assert checkout_of(tmp_path / "missing") is None
    bare = tmp_path / "bare.git"
    bare.mkdir()
    git("init", "-q", "--bare", cwd=bare)
    assert checkout_of(bare) is None
    assert checkout_of(repo(tmp_path / "r") / ".git") is None  # inside the git folder itself
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / ".git").write_text("gitdir: /nonexistent/repo/.git/worktrees/x\n")
    assert checkout_of(broken) is None


def test_tmpdir_is_never_a_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert checkout_of(tempfile.gettempdir()) is None
    # Even a TMPDIR inside a repository: neither it nor a scratch folder in it is that project.
    top = repo(tmp_path / "app")
    scratch = top / "tmp" / "session-1"
    scratch.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(top / "tmp"))
    assert checkout_of(top / "tmp") is None
    assert checkout_of(scratch) is None
    assert checkout(top).toplevel == str(top.resolve())


def test_git_variables_do_not_redirect_the_probe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine, other = repo(tmp_path / "mine"), repo(tmp_path / "other")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_COMMON_DIR", str(other / ".git"))
    assert checkout(mine).common_dir == str((mine / ".git").resolve())
    assert "GIT_DIR" not in git_env() and git_env()["GIT_TERMINAL_PROMPT"] == "0"


def test_a_symlink_resolves_to_its_target(tmp_path: Path) -> None:
    top = repo(tmp_path / "app")
    (tmp_path / "link").symlink_to(top)
    assert checkout(tmp_path / "link") == checkout(top)


def test_no_git_binary_is_no_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    top = repo(tmp_path / "app")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert checkout_of(top) is None


def test_a_hung_git_times_out_to_no_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    top = repo(tmp_path / "app")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text("#!/bin/sh\nexec sleep 30\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    assert checkout_of(top, timeout=0.3) is None


def test_a_git_that_prints_without_end_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memhub.runtime.memory.gitcheckout import run_git

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").write_text("#!/bin/sh\nexec yes /a/very/long/path\n")
    (bin_dir / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    started = time.monotonic()
    assert run_git(["git"], dict(os.environ), 20.0) is None
    assert time.monotonic() - started < 10
    (bin_dir / "git").write_text('#!/bin/sh\necho "$@"; cat; echo oops >&2; exit 3\n')
    assert run_git(["git", "a b"], dict(os.environ), 20.0) == (3, b"a b\n")  # stdin is empty


@pytest.mark.parametrize("tmpdir", ["{tmp}", "{tmp}/missing", "{tmp}/file", None])
def test_the_temporary_folder_is_found_as_tempfile_finds_it(
    tmp_path: Path, tmpdir: str | None
) -> None:
    """Without tempfile imported, gitcheckout finds the same folder tempfile would."""
    (tmp_path / "file").write_text("")
    env = {k: v for k, v in os.environ.items() if k not in ("TMPDIR", "TEMP", "TMP")}
    if tmpdir is not None:
        env["TMPDIR"] = tmpdir.format(tmp=tmp_path)
    code = (
        "import sys; from memhub.runtime.memory import gitcheckout as g\n"
        "assert 'tempfile' not in sys.modules\n"
        "lean = g._tempdir(); import os, tempfile\n"
        "print(lean == os.path.realpath(tempfile.gettempdir()), lean)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=False
    )
    assert done.stdout.startswith("True "), done.stdout + done.stderr


def test_odd_characters_in_the_path_survive(tmp_path: Path) -> None:
    top = repo(tmp_path / "a\rb c\x1cd é")
    assert checkout(top).toplevel == str(top.resolve())


# -- connect / resolve: the matrix ----------------------------------------------------------


def test_connect_gives_a_random_id_not_the_folder_name(tmp_path: Path) -> None:
    top = repo(tmp_path / "app")
    reg, pid, action = P.connect(P.Registry(), checkout(top), now="2026-01-01T00:00:00Z")
    assert action == P.CREATED and P.ID_PATTERN.fullmatch(pid) and "app" not in pid
    project = reg.projects[pid]
    assert project.name == "app" and project.state == P.CONNECTED
    assert project.bindings == (
        P.Binding(str((top / ".git").resolve()), str(top.resolve()), "2026-01-01T00:00:00Z"),
    )
    assert P.connect(reg, checkout(top)) == (reg, pid, P.ALREADY)


def test_a_subfolder_files_under_the_project(tmp_path: Path) -> None:
    top = repo(tmp_path / "app")
    (top / "pkg" / "sub").mkdir(parents=True)
    reg, pid, _ = P.connect(P.Registry(), checkout(top))
    assert P.resolve(reg, top / "pkg" / "sub").project_id == pid


def test_a_second_worktree_shares_the_project(tmp_path: Path) -> None:
    main = repo(tmp_path / "app", commit=True)
    reg, pid, _ = P.connect(P.Registry(), checkout(main))
    second = worktree(main, tmp_path / "elsewhere" / "feature")
    assert P.resolve(reg, second).project_id == pid  # before it is even bound
    reg2, pid2, action = P.connect(reg, checkout(second))
    assert (pid2, action) == (pid, P.WORKTREE)
    assert [b.toplevel for b in reg2.projects[pid].bindings] == [
        str(main.resolve()),
        str(second.resolve()),
    ]
    assert len(reg2.projects) == 1


def test_two_repos_with_the_same_folder_name_are_two_projects(tmp_path: Path) -> None:
    a, b = repo(tmp_path / "one" / "app"), repo(tmp_path / "two" / "app")
    reg, pa, _ = P.connect(P.Registry(), checkout(a))
    before = P.resolve(reg, b)
    assert before.project_id is None and before.reason == "not-connected"
    assert "memhub project connect" in before.message
    reg, pb, action = P.connect(reg, checkout(b))
    assert action == P.CREATED_NAMESAKE and pb != pa
    assert (P.resolve(reg, a).project_id, P.resolve(reg, b).project_id) == (pa, pb)


def test_a_moved_checkout_needs_an_explicit_rebind(tmp_path: Path) -> None:
    old = repo(tmp_path / "app")
    reg, pid, _ = P.connect(P.Registry(), checkout(old))
    new = tmp_path / "moved" / "app"
    new.parent.mkdir()
    old.rename(new)
    moved = P.resolve(reg, new)
    assert moved.project_id is None and moved.reason == "moved"
    # The message never names another project: the caller may be working in an unrelated one.
    assert pid not in moved.message and "--project" in moved.message
    assert "`memhub project list` shows ids" in moved.message
    # Without the id it is not silently attached: a new project.
    _, fresh, action = P.connect(reg, checkout(new))
    assert fresh != pid and action == P.CREATED_NAMESAKE
    rebound, same, action = P.connect(reg, checkout(new), project_id=pid)
    assert (same, action) == (pid, P.REBOUND)
    assert [b.toplevel for b in rebound.projects[pid].bindings] == [str(new.resolve())]
    assert P.resolve(rebound, new).project_id == pid


def test_an_explicit_id_attaches_another_live_clone(tmp_path: Path) -> None:
    a, b = repo(tmp_path / "a"), repo(tmp_path / "b")
    reg, pid, _ = P.connect(P.Registry(), checkout(a))
    reg, same, action = P.connect(reg, checkout(b), project_id=pid)
    assert (same, action) == (pid, P.ATTACHED) and len(reg.projects[pid].bindings) == 2
    assert P.resolve(reg, a).project_id == P.resolve(reg, b).project_id == pid


def test_a_checkout_bound_elsewhere_or_an_unknown_id_is_refused(tmp_path: Path) -> None:
    a, b, c = repo(tmp_path / "a"), repo(tmp_path / "b"), repo(tmp_path / "c")
    reg, pa, _ = P.connect(P.Registry(), checkout(a))
    reg, pb, _ = P.connect(reg, checkout(b))
    with pytest.raises(P.RegistryError, match=f"already bound to project {pa}"):
        P.connect(reg, checkout(a), project_id=pb)
    with pytest.raises(P.RegistryError, match="no project p-000000000000"):
        P.connect(reg, checkout(c), project_id="p-000000000000")
    with pytest.raises(P.RegistryError, match="no project"):
        P.disconnect(reg, "p-000000000000")


def test_a_session_in_tmpdir_files_under_no_project(tmp_path: Path) -> None:
    reg, _, _ = P.connect(P.Registry(), checkout(repo(tmp_path / "app")))
    got = P.resolve(reg, tempfile.gettempdir())
    assert got.project_id is None and got.reason == "no-checkout" and got.checkout is None
    assert "not inside a git checkout" in got.message


@pytest.mark.parametrize("kind", ["bare", "git-file-to-nowhere", "plain"])
def test_no_checkout_resolves_to_no_project_with_a_message(tmp_path: Path, kind: str) -> None:
    folder = tmp_path / kind
    folder.mkdir()
    if kind == "bare":
        git("init", "-q", "--bare", cwd=folder)
    elif kind == "git-file-to-nowhere":
        (folder / ".git").write_text("gitdir: ../nowhere\n")
    got = P.resolve(P.Registry(), folder)
    assert (got.project_id, got.reason) == (None, "no-checkout") and got.message


def test_disconnect_keeps_the_project_behind_a_gate(tmp_path: Path) -> None:
    main = repo(tmp_path / "app", commit=True)
    second = worktree(main, tmp_path / "wt")
    reg, pid, _ = P.connect(P.Registry(), checkout(main))
    off = P.disconnect(reg, pid)
    assert off.projects[pid].bindings == reg.projects[pid].bindings
    assert off.projects[pid].state == P.DISCONNECTED and P.list_projects(off)[0].id == pid
    for folder in (main, second):
        got = P.resolve(off, folder)
        assert (got.project_id, got.reason) == (None, "disconnected") and pid in got.message
    back, same, action = P.connect(off, checkout(second))
    assert (same, action) == (pid, P.RECONNECTED) and P.resolve(back, main).project_id == pid
    assert P.disconnect(off, pid) == off  # idempotent


def test_list_projects_by_name_then_id(tmp_path: Path) -> None:
    reg = P.Registry()
    for folder in ("zeta", "alpha", "x/alpha"):
        reg, _, _ = P.connect(reg, checkout(repo(tmp_path / folder)))
    names = [p.name for p in P.list_projects(reg)]
    assert names == ["alpha", "alpha", "zeta"]
    reg, pid, _ = P.connect(reg, checkout(repo(tmp_path / "n")), name="Named")
    assert reg.projects[pid].name == "Named"


# -- projects.json -------------------------------------------------------------------------


def test_load_missing_is_empty_and_save_round_trips_0600(tmp_path: Path) -> None:
    path = tmp_path / "memory" / P.FILENAME
    assert P.load_registry(path) == P.Registry()
    reg, pid, _ = P.connect(P.Registry(), checkout(repo(tmp_path / "app")))
    reg = P.disconnect(reg, pid)
    P.save_registry(path, reg)
    assert P.load_registry(path) == reg
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    doc = json.loads(path.read_text())
    assert doc["version"] == 1 and set(doc["projects"][pid]) == {
        "name",
        "bindings",
        "state",
        "shared",
    }
    assert sorted(os.listdir(path.parent)) == [P.FILENAME]


GOOD = {
    "name": "app",
    "state": "connected",
    "bindings": [{"common_dir": "/r/.git", "toplevel": "/r", "connected_at": "t"}],
}


def _doc(**project: object) -> str:
    return json.dumps({"version": 1, "projects": {"p-0123456789ab": {**GOOD, **project}}})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"version": 1, "projects": {', r":1:\d+: not valid JSON"),
        ("[]", "must be an object"),
        ('{"version": 2, "projects": {}}', "unsupported `version` 2"),
        ('{"version": 1}', "`projects` must be an object"),
        (json.dumps({"version": 1, "projects": {"app": GOOD}}), "`app` is not a project id"),
        (_doc(state="gone"), "`state` must be one of"),
        (_doc(name=""), "`name` must be a non-empty string"),
        (_doc(bindings={}), "`bindings` must be a list"),
        (_doc(bindings=[1]), "a binding must be an object"),
        (_doc(bindings=[{**GOOD["bindings"][0], "toplevel": "r"}]), "must be absolute"),  # type: ignore[index]
        (
            json.dumps(
                {"version": 1, "projects": {"p-0123456789ab": GOOD, "p-ba9876543210": GOOD}}
            ),
            "bound to both p-0123456789ab and p-ba9876543210",
        ),
    ],
)
def test_a_malformed_registry_is_a_clear_error(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / P.FILENAME
    path.write_text(text)
    with pytest.raises(P.RegistryError, match=expected) as info:
        P.load_registry(path)
    assert str(info.value).startswith(str(path))
    assert path.read_text() == text  # never repaired


def test_non_utf8_fifo_and_symlink_are_refused(tmp_path: Path) -> None:
    path = tmp_path / P.FILENAME
    path.write_bytes(b'{"version": 1, "projects": {}, "x": "\xff"}')
    with pytest.raises(P.RegistryError, match="not UTF-8"):
        P.load_registry(path)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    with pytest.raises(P.RegistryError, match="not a regular file"):
        P.load_registry(fifo)
    link = tmp_path / "link.json"
    link.symlink_to(path)
    with pytest.raises(P.RegistryError, match="must be a regular file"):
        P.load_registry(link)
    folder = tmp_path / "dir.json"
    folder.mkdir()
    with pytest.raises(P.RegistryError, match="not a regular file"):
        P.load_registry(folder)


def test_save_replaces_a_link_never_writes_through_it(tmp_path: Path) -> None:
    outside = tmp_path / "outside.json"
    outside.write_text("keep")
    link = tmp_path / P.FILENAME
    link.symlink_to(outside)
    P.save_registry(link, P.Registry())
    assert outside.read_text() == "keep" and not link.is_symlink()
    assert P.load_registry(link) == P.Registry()


def test_a_failed_write_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / P.FILENAME
    old, _, _ = P.connect(P.Registry(), checkout(repo(tmp_path / "app")))
    P.save_registry(path, old)
    before = path.read_bytes()
    new, _, _ = P.connect(old, checkout(repo(tmp_path / "other")))

    def crash(fd: int, data: bytes) -> None:
        os.write(fd, data[: len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(P, "_write_all", crash)
    with pytest.raises(OSError, match="No space"):
        P.save_registry(path, new)
    assert path.read_bytes() == before and P.load_registry(path) == old
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]


WRITER = """
import sys
from memhub.runtime.memory import projects as P
path, tag, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(rounds):
    projects = {}
    for j in range(20):
        pid = P.new_project_id(projects)
        where = f"/{tag}/{j}"
        projects[pid] = P.Project(pid, tag * 200, (P.Binding(where + "/.git", where, str(i)),))
    P.save_registry(path, P.Registry(projects))
"""


def test_concurrent_saves_never_tear_the_file(tmp_path: Path) -> None:
    path = tmp_path / P.FILENAME
    P.save_registry(path, P.Registry())
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path), tag, "150"])
        for tag in ("a", "b")
    ]
    seen, reads = set(), 0
    while any(w.poll() is None for w in writers):
        reg = P.load_registry(path)  # raises on a torn or partial file
        names = {p.name for p in reg.projects.values()}
        assert len(names) <= 1
        seen |= names
        reads += 1
    assert [w.returncode for w in writers] == [0, 0]
    final = P.load_registry(path)
    assert len(final.projects) == 20 and {p.name for p in final.projects.values()} in (
        {"a" * 200},
        {"b" * 200},
    )
    assert not [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
    assert reads > 10 and seen and all(re.fullmatch("[ab]{200}", n) for n in seen)
