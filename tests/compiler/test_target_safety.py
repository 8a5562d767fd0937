"""Writes stay inside their target: links out of a project, dangling links, special files,
read-only and foreign-owned targets, and hub instructions that carry memhub's own markers.

Every case runs on real files: real symlinks, a real FIFO (`os.mkfifo`), real `chmod` and
`chown`. The cases that used to hang run memhub in a child process under a timeout, so a
regression fails the test instead of blocking the suite.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.compiler.installkit import claude_json, run


def run_child(*args: str, cwd: Path | None = None, timeout: float = 30) -> tuple[int, str]:
    """memhub in its own process, killed after `timeout` s: a blocked read fails the test."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "memhub.compiler.cli.main", *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=cwd,
            env=dict(os.environ),
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"memhub {' '.join(args)} still running after {timeout} s (blocked)")
    return done.returncode, done.stderr


def files_under(root: Path) -> dict[str, bytes]:
    """Every file below `root` (links not followed), memhub's own home left out."""
    found = {}
    for folder, dirs, names in os.walk(root):
        for name in dirs + names:
            path = Path(folder, name)
            if ".memhub" in path.parts:
                continue
            if path.is_symlink():
                found[str(path.relative_to(root))] = b"-> " + os.fsencode(os.readlink(path))
            elif path.is_file():
                found[str(path.relative_to(root))] = path.read_bytes()
    return found


# -- instructions that carry memhub's markers -----------------------------------------------


def test_instructions_holding_a_memhub_marker_are_refused_at_validate(
    hub: Path, home: Path, capsys
) -> None:
    text = (hub / "INSTRUCTIONS.md").read_text()
    (hub / "INSTRUCTIONS.md").write_text(text + "\nquoted:\n<!-- memhub:end install-probe -->\n")
    code, _, err = run(capsys, "validate", str(hub))
    assert code == 2
    assert f"{hub / 'INSTRUCTIONS.md'}:6:1" in err
    assert "memhub block marker" in err and "Fix:" in err
    assert "Traceback" not in err
    before = files_under(home)
    code, _, err = run(capsys, "apply", str(hub), "--hosts", "claude,codex,gemini")
    assert code == 2 and "memhub block marker" in err
    assert files_under(home) == before, "nothing is written"


def test_marker_like_lines_that_memhub_does_not_read_as_markers_are_fine(hub: Path, capsys) -> None:
    text = (hub / "INSTRUCTIONS.md").read_text()
    (hub / "INSTRUCTIONS.md").write_text(
        text + "\n    <!-- memhub:end install-probe -->\nsee `<!-- memhub:begin x -->`\n"
    )
    code, _, err = run(capsys, "validate", str(hub))
    assert code == 0, err


# -- project scope: links out of the project ------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "checkout"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("command", ["apply", "plan", "diff"])
def test_project_scope_refuses_an_instruction_file_linked_out_of_the_project(
    hub: Path, home: Path, project: Path, command: str, capsys
) -> None:
    bashrc = home / ".bashrc"
    bashrc.write_text("export PATH=$PATH:~/bin\n")
    (project / "AGENTS.md").symlink_to(bashrc)
    before = files_under(home), files_under(project)
    args = ("--scope", "project", "--project", str(project), "--hosts", "codex")
    code, out, err = run(capsys, command, str(hub), *args)
    assert code == 2, out + err
    assert f"{project / 'AGENTS.md'}: is a link to {bashrc}, which leaves the project" in err
    assert "Fix:" in err and "Traceback" not in err
    assert (files_under(home), files_under(project)) == before, "nothing is written"
    assert "memhub" not in out, "no diff of a file outside the project is shown"


def test_project_scope_refuses_a_skills_folder_linked_out_of_the_project(
    hub: Path, home: Path, project: Path, capsys
) -> None:
    ssh = home / ".ssh"
    ssh.mkdir()
    (ssh / "config").write_text("Host *\n")
    (project / ".claude").mkdir()
    (project / ".claude" / "skills").symlink_to(ssh, target_is_directory=True)
    before = files_under(home), files_under(project)
    args = ("--scope", "project", "--project", str(project), "--hosts", "claude")
    code, _, err = run(capsys, "apply", str(hub), *args)
    assert code == 2
    assert f"{project / '.claude' / 'skills'}: is a link to {ssh}, which leaves the project" in err
    assert (files_under(home), files_under(project)) == before
    assert sorted(p.name for p in ssh.iterdir()) == ["config"]


def test_a_link_that_stays_inside_the_project_is_written_through(
    hub: Path, project: Path, capsys
) -> None:
    (project / "AGENTS.md").write_text("# Team notes\n")
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    args = ("--scope", "project", "--project", str(project), "--hosts", "claude")
    code, _, err = run(capsys, "apply", str(hub), *args)
    assert code == 0, err
    assert (project / "CLAUDE.md").is_symlink()
    text = (project / "AGENTS.md").read_text()
    assert text.startswith("# Team notes\n") and "memhub:begin install-probe" in text


@pytest.mark.parametrize("scope", ["project", "user", "user-folder"])
def test_a_dangling_link_is_never_written_through(
    hub: Path, home: Path, project: Path, tmp_path: Path, scope: str, capsys
) -> None:
    nowhere = tmp_path / "nowhere" / "deeper" / "CLAUDE.md"
    if scope == "project":
        link = project / "CLAUDE.md"
        args = ("--scope", "project", "--project", str(project))
    elif scope == "user":
        link = claude_json()
        args = ("--scope", "user")
    else:  # the host's whole folder is the dangling link (CLAUDE_CONFIG_DIR)
        link = Path(os.environ["CLAUDE_CONFIG_DIR"])
        args = ("--scope", "user")
    link.symlink_to(nowhere)
    code, _, err = run(capsys, "apply", str(hub), *args, "--hosts", "claude")
    assert code == 2
    assert f"{link}: is a link to {nowhere}, which does not exist" in err and "Fix:" in err
    assert not (tmp_path / "nowhere").exists(), "no file or folder is created where it points"
    assert link.is_symlink()


def test_a_user_scope_dotfile_link_is_written_through_and_kept(
    hub: Path, home: Path, capsys
) -> None:
    real = home / "dotfiles" / "claude.json"
    real.parent.mkdir()
    real.write_text('{"numStartups": 3}\n')
    claude_json().symlink_to(real)
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    assert claude_json().is_symlink()
    assert "probe-stdio" in json.loads(real.read_text())["mcpServers"]
    assert run(capsys, "uninstall", str(hub), "--hosts", "claude")[0] == 0
    assert claude_json().is_symlink() and real.read_text() == '{"numStartups": 3}\n'


def test_a_user_scope_skills_folder_link_is_written_through_and_kept(
    hub: Path, home: Path, capsys
) -> None:
    skills = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "skills"
    real = home / "dotfiles" / "claude-skills"
    real.mkdir(parents=True)
    skills.parent.mkdir(parents=True)
    skills.symlink_to(real, target_is_directory=True)
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    assert skills.is_symlink() and (real / "tidy" / "SKILL.md").is_file()
    assert run(capsys, "undo")[0] == 0
    assert skills.is_symlink() and not (real / "tidy").exists()


# -- targets that are not regular files -------------------------------------------------------


def make_fifo(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)


def make_device(path: Path) -> None:
    """A character device node (the null device's numbers), made where the test says."""
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))


SPECIAL = {"fifo": (make_fifo, "is a FIFO"), "device": (make_device, "is a character device")}


@pytest.mark.parametrize("kind", sorted(SPECIAL))
@pytest.mark.parametrize("command", ["apply", "plan", "diff", "doctor", "import"])
def test_a_special_file_target_is_refused_without_blocking(
    hub: Path, home: Path, tmp_path: Path, kind: str, command: str
) -> None:
    make, said = SPECIAL[kind]
    make(claude_json())
    if command == "import":
        args = ["import", "--into", str(tmp_path / "imported"), "--hosts", "claude", "--yes"]
    else:
        args = [command, str(hub), "--scope", "user", "--hosts", "claude"]
    code, err = run_child(*args)
    assert code == 2, err
    assert f"{claude_json()}: {said}" in err and "Fix:" in err and "Traceback" not in err
    info = os.lstat(claude_json())
    assert stat.S_ISFIFO(info.st_mode) or stat.S_ISCHR(info.st_mode), "left as it was"
    assert not (tmp_path / "imported").exists()


# `memhub restore --originals` may ask first; the function it runs is what reads targets.
RESTORE = (
    "import sys; from pathlib import Path; from memhub.compiler.safewrite import restore as safewrite, targetfs\n"
    "try:\n    safewrite.restore_originals(Path(sys.argv[1]))\n"
    "except targetfs.TargetError as exc:\n"
    "    print(f'memhub: {exc}', file=sys.stderr)\n    sys.exit(exc.exit_code)"
)


def restore_child(timeout: float = 30) -> tuple[int, str]:
    """restore_originals in its own process, killed after `timeout` s."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", RESTORE, os.environ["MEMHUB_HOME"]],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"restore_originals still running after {timeout} s (blocked)")
    return done.returncode, done.stderr


@pytest.mark.parametrize("command", ["undo", "restore"])
def test_undo_and_restore_refuse_a_target_turned_into_a_fifo_without_blocking(
    hub: Path, home: Path, capsys, command: str
) -> None:
    claude_json().write_text("{}\n")
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    claude_json().unlink()
    make_fifo(claude_json())
    code, err = run_child("undo") if command == "undo" else restore_child()
    assert code == 2, err
    assert f"{claude_json()}: is a FIFO" in err
    assert stat.S_ISFIFO(os.lstat(claude_json()).st_mode)


def make_loop(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(path.name)


def make_folder(path: Path) -> None:
    path.mkdir(parents=True)


@pytest.mark.parametrize(
    ("make", "said"),
    [(make_loop, "is a symbolic link loop"), (make_folder, "is a folder where memhub")],
    ids=["loop", "folder"],
)
@pytest.mark.parametrize("command", ["apply", "doctor", "import"])
def test_a_link_loop_or_folder_at_the_target_is_exit_2_not_a_crash(
    hub: Path, tmp_path: Path, make, said: str, command: str, capsys
) -> None:
    make(claude_json())
    if command == "import":
        args = ["import", "--into", str(tmp_path / "imported"), "--hosts", "claude", "--yes"]
    else:
        args = [command, str(hub), "--hosts", "claude"]
    code, _, err = run(capsys, *args)
    assert code == 2, err
    assert f"{claude_json()}: {said}" in err and "Fix:" in err


@pytest.mark.parametrize("variable", ["CLAUDE_CONFIG_DIR", "CODEX_HOME"])
def test_a_host_folder_that_is_a_file_is_exit_2_naming_it(
    hub: Path, home: Path, variable: str, capsys
) -> None:
    folder = Path(os.environ[variable])
    folder.write_text("not a folder\n")
    host = "claude" if variable == "CLAUDE_CONFIG_DIR" else "codex"
    code, _, err = run(capsys, "apply", str(hub), "--hosts", host)
    assert code == 2, err
    assert f"{folder}: is a file where memhub needs a folder" in err
    assert variable in err and "Fix:" in err
    assert folder.read_text() == "not a folder\n"


# -- read-only and foreign-owned targets -----------------------------------------------------

ORIGINAL = '{"numStartups": 3}\n'


def test_a_read_only_target_is_refused_with_the_chmod_fix(hub: Path, capsys) -> None:
    claude_json().write_text(ORIGINAL)
    claude_json().chmod(0o444)
    code, _, err = run(capsys, "apply", str(hub), "--hosts", "claude")
    assert code == 2
    assert f"{claude_json()}: is read-only (mode 0444)" in err
    assert f"chmod u+w {claude_json()}" in err
    assert claude_json().read_text() == ORIGINAL
    assert stat.S_IMODE(claude_json().stat().st_mode) == 0o444


def test_a_read_only_target_needing_no_change_is_fine_but_undo_refuses(hub: Path, capsys) -> None:
    claude_json().write_text(ORIGINAL)
    assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    claude_json().chmod(0o444)
    code, _, err = run(capsys, "apply", str(hub), "--hosts", "claude")
    assert code == 0, err
    code, _, err = run(capsys, "undo")
    assert code == 2 and "is read-only" in err, "undo would replace it: refused too"
    assert stat.S_IMODE(claude_json().stat().st_mode) == 0o444


def test_a_target_owned_by_another_user_is_refused(hub: Path, capsys) -> None:
    claude_json().write_text(ORIGINAL)
    other = os.geteuid() + 4242
    os.chown(claude_json(), other, -1)
    code, _, err = run(capsys, "apply", str(hub), "--hosts", "claude")
    assert code == 2
    assert f"{claude_json()}: is owned by uid {other}, not by you" in err
    assert "Fix:" in err and "chown" in err
    assert claude_json().read_text() == ORIGINAL
    assert claude_json().stat().st_uid == other


def test_an_edit_behind_a_dotfile_link_is_seen_by_the_next_no_op_run(
    hub: Path, home: Path, capsys, monkeypatch
) -> None:
    from memhub.hubspec import statsig

    monkeypatch.setattr(statsig, "RACY_NS", 0)  # everything here was written a moment ago
    real = home / "dotfiles" / "claude.json"
    real.parent.mkdir()
    real.write_text("{}\n")
    claude_json().symlink_to(real)
    for _ in range(3):  # applied, then a no-op that is remembered, then replayed
        assert run(capsys, "apply", str(hub), "--hosts", "claude")[0] == 0
    real.write_text("{}\n")  # the person's dotfile manager puts back its own copy
    code, out, err = run(capsys, "apply", str(hub), "--hosts", "claude")
    assert code == 0, err
    assert f"update  {claude_json()}" in out
    assert "probe-stdio" in json.loads(real.read_text())["mcpServers"]


def test_undo_of_a_project_apply_writes_nothing_through_a_link_out_of_the_project(
    hub: Path, home: Path, project: Path, capsys
) -> None:
    args = ("--scope", "project", "--project", str(project), "--hosts", "codex")
    assert run(capsys, "apply", str(hub), *args)[0] == 0
    notes = home / "notes" / "AGENTS.md"  # moved out and linked back, bytes unchanged
    notes.parent.mkdir()
    shutil.move(project / "AGENTS.md", notes)
    (project / "AGENTS.md").symlink_to(notes)
    kept = notes.read_bytes()
    code, _, err = run(capsys, "undo")
    assert code == 2, err
    assert f"{project / 'AGENTS.md'}: is a link to {notes}, which leaves the project" in err
    assert notes.read_bytes() == kept, "the file outside the project is left alone"


def test_a_link_loop_on_the_way_is_named_where_it_loops(hub: Path, capsys) -> None:
    skills = Path(os.environ["CLAUDE_CONFIG_DIR"]) / "skills"
    skills.parent.mkdir(parents=True)
    skills.symlink_to("skills")
    code, _, err = run(capsys, "apply", str(hub), "--hosts", "claude")
    assert code == 2, err
    assert f"memhub: {skills}: is a symbolic link loop" in err and f"rm {skills}`" in err


def test_restoring_originals_writes_nothing_through_a_link_out_of_the_project(
    hub: Path, home: Path, project: Path, capsys
) -> None:
    from memhub.compiler.safewrite.restore import restore_originals
    from memhub.compiler.safewrite.targetfs import TargetError

    args = ("--scope", "project", "--project", str(project), "--hosts", "codex")
    assert run(capsys, "apply", str(hub), *args)[0] == 0
    notes = home / "notes" / "AGENTS.md"
    notes.parent.mkdir()
    shutil.move(project / "AGENTS.md", notes)
    (project / "AGENTS.md").symlink_to(notes)
    kept = notes.read_bytes()
    with pytest.raises(TargetError, match="which leaves the project"):
        restore_originals(Path(os.environ["MEMHUB_HOME"]))
    assert notes.read_bytes() == kept, "the original (no AGENTS.md) is not restored out there"


@pytest.mark.parametrize("linked", ["CLAUDE.md", ".claude/skills"])
def test_a_project_import_reads_nothing_through_a_link_out_of_the_project(
    home: Path, project: Path, tmp_path: Path, linked: str, capsys
) -> None:
    secret = home / "keys" / "ssh" / "SKILL.md"  # skill-shaped: a followed link imports it
    secret.parent.mkdir(parents=True)
    secret.write_text("---\nname: ssh\ndescription: private key notes\n---\nprivate-7f3a\n")
    link = project / linked
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(secret if linked == "CLAUDE.md" else secret.parent.parent)
    into = tmp_path / "imported"
    args = ("--into", str(into), "--hosts", "claude", "--scope", "project", "--yes")
    code, out, err = run(capsys, "import", *args, "--project", str(project))
    assert code == 2, out + err
    assert f"{link}: is a link to" in err and "which leaves the project" in err
    assert "private-7f3a" not in out + err and not into.exists()
