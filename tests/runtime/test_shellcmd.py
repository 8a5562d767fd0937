"""The shell-command reader behind `capture.commit`: a run counts, a mention does not."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memhub.runtime.shellcmd import commands, milestones

COMMIT = ["git commit"]
CREATE = ["gh pr create"]
MERGE = ["gh pr merge"]

RUNS: list[tuple[str | list[str], list[str]]] = [
    # plain, and in every kind of chain
    ("git commit -m 'msg'", COMMIT),
    ('git commit -am "fix: handle empty input"', COMMIT),
    ("git commit", COMMIT),
    ("git\tcommit -m x", COMMIT),
    ("git commit -m x\n", COMMIT),
    ("git add -A && git commit -m x", COMMIT),
    ("git add . ; git commit -m x", COMMIT),
    ("git diff --quiet || git commit -am wip", COMMIT),
    ("make test | tee log && git commit -m x", COMMIT),
    ("git commit -m x 2>&1 | tail -5", COMMIT),
    ("git commit -m x > /tmp/out 2>&1", COMMIT),
    ("git commit -m x &", COMMIT),
    ("git status\ngit commit -m x", COMMIT),
    ("cd /repo; git commit -qm x", COMMIT),
    ("git commit -m x # commit it", COMMIT),
    ("git commit -m 'it'\\''s done'", COMMIT),
    ("git commit -m $'line1\\nline2'", COMMIT),
    ("! git commit -m x", COMMIT),
    # git's own options before the subcommand
    ("git -C ../repo commit -m x", COMMIT),
    ("git -c user.name=bot -c user.email=bot@example.com commit -m x", COMMIT),
    ("git --no-pager commit -m x", COMMIT),
    ("git --git-dir=.git --work-tree=. commit -m x", COMMIT),
    ("/usr/bin/git commit -m x", COMMIT),
    ("git commit --amend --no-edit", COMMIT),
    # assignments and wrappers are skipped
    ("GIT_AUTHOR_NAME=x git commit -m y", COMMIT),
    ("FOO=1 BAR='a b' git commit -m y", COMMIT),
    ("sudo git commit -m x", COMMIT),
    ("sudo -u alice -E git commit -m x", COMMIT),
    ("command git commit -m x", COMMIT),
    ("env GIT_EDITOR=true git commit", COMMIT),
    ("env -i PATH=/usr/bin git commit -m x", COMMIT),
    ("nohup git commit -m x &", COMMIT),
    ("time git commit -m x", COMMIT),
    ("timeout 30 git commit -m x", COMMIT),
    ("timeout -s KILL 30s git commit -m x", COMMIT),
    ("exec git commit -m x", COMMIT),
    ("nice -n 10 git commit -m x", COMMIT),
    # shells and eval are unwrapped
    ("bash -lc \"git commit -m 'x'\"", COMMIT),
    ("bash -c 'git add . && git commit -m x'", COMMIT),
    ('sh -c "cd repo && git commit -m x"', COMMIT),
    ("zsh -ic 'git commit -m x'", COMMIT),
    ("bash -o pipefail -c 'git commit -m x | cat'", COMMIT),
    ("bash --login -c 'git commit -m x'", COMMIT),
    ("/bin/bash -lc 'git commit -m x'", COMMIT),
    ("sudo bash -lc 'git commit -m x'", COMMIT),
    ("bash -lc \"bash -c 'git commit -m nested'\"", COMMIT),
    ("eval 'git commit -m x'", COMMIT),
    ("eval git commit -m x", COMMIT),
    # command substitutions run
    ("echo $(git commit -m x)", COMMIT),
    ("x=`git commit -m x`", COMMIT),
    ('echo "$(git commit -m x)"', COMMIT),
    ("diff <(git commit -m x) /dev/null", COMMIT),
    # groups and compound commands
    ("(cd repo && git commit -m x)", COMMIT),
    ("{ git add .; git commit -m x; }", COMMIT),
    ("if git diff --quiet; then echo clean; else git commit -am wip; fi", COMMIT),
    ("while false; do :; done; git commit -m x", COMMIT),
    # heredocs: the body is data, unless a shell reads it
    ("git commit -F - <<'EOF'\nSubject\n\nBody mentions gh pr create\nEOF", COMMIT),
    ("cat <<EOF | git commit -F -\nmessage\nEOF", COMMIT),
    ("bash <<'EOF'\ngit commit -m from-heredoc\nEOF", COMMIT),
    ("sh -s <<EOF\n  git commit -m x\nEOF\n", COMMIT),
    (
        "git commit -m \"$(cat <<'EOF'\nAdd the parser\n\ngh pr create comes later\nEOF\n)\"",
        COMMIT,
    ),
    ("cat <<-EOF\n\tgit commit\n\tEOF\ngit commit -m real", COMMIT),
    # gh
    ("gh pr create --title t --body b", CREATE),
    ("gh pr create -R owner/repo --fill", CREATE),
    ("gh pr new --fill", CREATE),
    ("GH_TOKEN=$TOKEN gh pr create --fill", CREATE),
    ("gh pr merge 123 --squash --delete-branch", MERGE),
    ("gh pr create --fill && gh pr merge --auto --squash", [*CREATE, *MERGE]),
    ("git commit -m x; gh pr create", [*COMMIT, *CREATE]),
    ("bash -lc 'gh pr merge 7'", MERGE),
    # argv lists (Codex's shell tool)
    (["bash", "-lc", "git commit -m x"], COMMIT),
    (["git", "commit", "-m", "x"], COMMIT),
    (["gh", "pr", "merge", "1"], MERGE),
    # broken input still reads what it can
    ("git commit -m 'unterminated", COMMIT),
]

MENTIONS: list[str | list[str]] = [
    "",
    "   ",
    "ls -la",
    "git status",
    "git log -1 --format=%s",
    "echo git commit",
    "echo 'git commit -m x'",
    'echo "gh pr create"',
    "printf '%s\\n' 'git commit'",
    "grep -r 'git commit' .",
    "git log --grep='commit'",
    "git show HEAD --stat # after git commit",
    "# git commit -m x",
    "cat <<'EOF'\ngit commit -m x\nEOF",
    "cat > notes.md <<EOF\nRun gh pr create when ready\nEOF\n",
    "cat > f <<'EOF'\ngh pr create\nEOF\ngit push",
    "bash -lc \"cat <<'EOF'\ngit commit\nEOF\"",
    "command -v git",
    "command -V gh && gh pr view",
    "which git && git status",
    "git commit --dry-run -m x",
    "git commit --help",
    "gh pr create --help",
    "gh pr create --dry-run",
    "gh pr view 12",
    "gh pr list --search 'merge'",
    "gh pr checks",
    "gh issue create --title 'gh pr create'",
    "git commit-tree HEAD^{tree}",
    "git commit-graph write",
    "bash -lc 'echo git commit'",
    "sh -c \"echo 'gh pr merge'\"",
    "echo $GIT commit",
    "alias gc='git commit'",
    "git add . && echo 'now run git commit'",
    "echo gh pr create | tee file",
    "for f in commit merge; do echo $f; done",
    "bash commit-everything.sh",
    "vim COMMIT_EDITMSG",
    "echo $((1 + 2)) commit",
    "git stash && git checkout main",
    ["echo", "git", "commit"],
    ["bash", "-lc", "echo gh pr create"],
]


@pytest.mark.parametrize(("command", "expected"), RUNS, ids=[repr(c)[:60] for c, _ in RUNS])
def test_runs_are_found(command: str | list[str], expected: list[str]) -> None:
    assert milestones(command) == expected


@pytest.mark.parametrize("command", MENTIONS, ids=[repr(c)[:60] for c in MENTIONS])
def test_mentions_are_not_runs(command: str | list[str]) -> None:
    assert milestones(command) == []


def test_commands_drop_wrappers_and_quotes() -> None:
    assert commands("FOO=1 sudo -u me git -C repo commit -m 'a b' && ls") == [
        ["git", "-C", "repo", "commit", "-m", "a b"],
        ["ls"],
    ]
    assert commands("cat <<EOF\nbody\nEOF\necho done") == [["cat"], ["echo", "done"]]
    assert commands('echo "a $(date) b"') == [["echo", "a $(date) b"], ["date"]]


def test_not_a_command_line_reads_as_nothing() -> None:
    assert milestones(None) == []  # type: ignore[arg-type]
    assert milestones(42) == []  # type: ignore[arg-type]


def test_deep_nesting_stops() -> None:
    deep = "echo $(" * 30 + "git commit -m x" + ")" * 30
    assert milestones(deep) == []  # past MAX_DEPTH nothing is followed (no hang, no crash)
    assert milestones("echo $(" * 5 + "git commit -m x" + ")" * 5) == COMMIT
    assert milestones("bash -c " + repr("bash -c 'git commit -m x'")) == COMMIT


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("gitcomh pr\"'`$()<>|&;\\\n\t#{}=-EOF")), max_size=80))
def test_never_raises(text: str) -> None:
    for found in milestones(text):
        assert found in ("git commit", "gh pr create", "gh pr merge")
