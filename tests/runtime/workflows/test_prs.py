"""PR linking decisions: a self-link only where the URL provably came from this call's
create, the judged lane for any other call naming one PR, silence for everything else."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from memhub.runtime.workflows.prs import pr_decision

from .ghoutputs import (
    ALREADY_EXISTS,
    API_LIST,
    API_PULL,
    COMMENT,
    CREATE_COMBINED,
    CREATE_FAILED,
    CREATE_STDOUT,
    DRY_RUN,
    LIST_RAW,
    MCP_CREATE,
    MCP_ENVELOPE,
    URL,
    VIEW_JSON,
    VIEW_RAW,
)

BODY = "--body-file - <<'EOF'\nIt's a fix | tail -5\ngh pr view 40; echo done\nEOF\n"

SELF_LINKS: list[tuple[object, str]] = [
    ("gh pr create --fill", CREATE_STDOUT),
    ("gh pr create --title 'Fix it' " + BODY, CREATE_STDOUT),
    ("git push -u origin HEAD && gh pr create --fill", CREATE_COMBINED),
    ("cd widgets && GH_TOKEN=x gh pr create -t x -b y 2>&1", CREATE_COMBINED),
    ("gh pr create --fill 2>/dev/null", CREATE_STDOUT),
    ("gh -R acme/widgets pr create --fill", CREATE_STDOUT),
    ("timeout 60 gh pr create --fill", CREATE_STDOUT),
    ("sudo -E env GH_TOKEN=x gh pr create --fill", CREATE_STDOUT),
    ("gh pr new --fill", CREATE_STDOUT),
    ("git push\ngh pr create --fill\n", CREATE_COMBINED),
    (
        "gh pr view 40 --json url -q .url; gh pr create --fill",
        "https://github.com/acme/widgets/pull/40\n" + URL,
    ),
    (["bash", "-lc", "gh pr create --fill"], CREATE_STDOUT),
    ("bash -lc 'git push && gh pr create --fill'", CREATE_COMBINED),
    ("gh pr create --fill", CREATE_STDOUT.replace("\n", "\r\n")),
]


@pytest.mark.parametrize(("command", "output"), SELF_LINKS)
def test_a_create_whose_url_provably_came_from_it_self_links(command: object, output: str) -> None:
    decision = pr_decision("shell", command, output, True)
    assert decision.kind == "self-link", decision
    assert decision.pr is not None
    assert (decision.pr.owner, decision.pr.repo, decision.pr.number) == ("acme", "widgets", 42)
    assert decision.pr.url == URL
    assert decision.babysit
    assert f"/loop /memhub:pr-babysit {URL}" in decision.text


UNPROVEN: list[tuple[object, str, int]] = [
    ("gh pr create --fill 2>&1 | tail -5", CREATE_STDOUT, 42),
    ("gh pr create --fill 2>&1 | tail -5", ALREADY_EXISTS, 17),  # the failure a pipeline hides
    ("gh pr create --fill | cat", CREATE_STDOUT, 42),
    ("gh pr create --fill || true", CREATE_STDOUT, 42),
    ("gh pr create --fill && echo done", CREATE_STDOUT + "done\n", 42),
    ("gh pr create --fill; gh pr view --json url -q .url", CREATE_STDOUT + CREATE_STDOUT, 42),
    ("gh pr create --fill &\nwait", CREATE_STDOUT, 42),
    ("if true; then gh pr create --fill; fi", CREATE_STDOUT, 42),
    ("(gh pr create --fill)", CREATE_STDOUT, 42),
    ("{ gh pr create --fill; }", CREATE_STDOUT, 42),
    ('url=$(gh pr create --fill); echo "$url"', CREATE_STDOUT, 42),
    ("gh pr create --fill > pr.txt; cat pr.txt", CREATE_STDOUT, 42),
    ("gh pr create --fill >&2", CREATE_STDOUT, 42),
    ("exec > log.txt; gh pr create --fill", CREATE_STDOUT, 42),
    ("bash -c 'gh pr create --fill | tail -1'", CREATE_STDOUT, 42),
    ("sudo -u bot bash -c 'gh pr create --fill | tail -1'", CREATE_STDOUT, 42),
    ("gh pr create --fill &&", CREATE_STDOUT, 42),  # a dangling operator: the shell refuses it
    ("gh pr create --fill |", CREATE_STDOUT, 42),
    ("env X=1 sh -c 'gh pr create --fill || true'", CREATE_STDOUT, 42),
    # an unreliable exit status: gh's own "already exists" error is never a self-link
    ("gh pr create --fill", ALREADY_EXISTS, 17),
    # the URL is not the bare last line gh prints
    ("gh pr create --fill", "Created: " + URL + "\n", 42),
    ("gh pr create --fill --title 'unterminated", CREATE_STDOUT, 42),  # a shell refuses it
]


@pytest.mark.parametrize(("command", "output", "number"), UNPROVEN)
def test_a_create_the_shell_could_have_hidden_goes_to_the_judged_lane(
    command: object, output: str, number: int
) -> None:
    decision = pr_decision("shell", command, output, True)
    assert decision.kind == "judged", decision
    assert decision.reason == "create-unproven"
    assert decision.pr is not None and decision.pr.number == number
    assert not decision.babysit
    assert "If the create succeeded" in decision.text


JUDGED: list[tuple[object, str, tuple[str, str, int, str]]] = [
    ("gh pr view 42", VIEW_RAW, ("acme", "widgets", 42, URL)),
    ("gh pr view", VIEW_RAW, ("acme", "widgets", 42, URL)),  # body names 40 and 41 too
    ("gh pr view --json number,url", VIEW_JSON, ("acme", "widgets", 42, URL)),
    (
        "gh pr view '#42' --json body",
        '{"body":"after https://github.com/acme/widgets/pull/40"}',
        ("", "", 42, ""),
    ),
    ("gh pr checkout 42", "Switched to branch 'feat/x'\n", ("", "", 42, "")),
    ("gh pr merge 42 --squash --delete-branch", "", ("", "", 42, "")),
    ("gh pr view 42 -R acme/widgets", "", ("acme", "widgets", 42, "")),
    ("gh pr view 42 --repo=github.com/acme/widgets", "", ("acme", "widgets", 42, "")),
    (f"gh pr merge {URL} --squash", "", ("acme", "widgets", 42, URL)),
    ("gh pr comment 42 --body 'LGTM 7'", COMMENT, ("acme", "widgets", 42, URL)),
    (
        "gh pr checks 42 --watch",
        "build\tpass\t1m\thttps://github.com/acme/widgets/actions/runs/1\n",
        ("", "", 42, ""),
    ),
    ("gh api repos/acme/widgets/pulls/42", API_PULL, ("acme", "widgets", 42, URL)),
    ("gh api repos/{owner}/{repo}/pulls/42/comments --paginate", "[]", ("", "", 42, "")),
    (
        "curl -s -H 'Authorization: token x' https://api.github.com/repos/acme/widgets/pulls/42",
        API_PULL,
        ("acme", "widgets", 42, URL),
    ),
    # a hand-rolled create is not a creation: judged, the safe direction
    (
        'curl -X POST https://api.github.com/repos/acme/widgets/pulls -d \'{"title":"x"}\'',
        API_PULL,
        ("acme", "widgets", 42, URL),
    ),
    (
        "gh pr view 40 --json url -q .url; gh pr create --web",
        "https://github.com/acme/widgets/pull/40\n",
        ("acme", "widgets", 40, "https://github.com/acme/widgets/pull/40"),
    ),
    (
        "gh pr list --head feat/x --json url",
        '[{"url":"https://github.com/acme/widgets/pull/42"}]',
        ("acme", "widgets", 42, URL),
    ),
]


@pytest.mark.parametrize(("command", "output", "expected"), JUDGED)
def test_a_call_naming_one_pr_is_judged(
    command: object, output: str, expected: tuple[str, str, int, str]
) -> None:
    decision = pr_decision("shell", command, output, True)
    assert decision.kind == "judged", decision
    assert decision.pr is not None
    assert (decision.pr.owner, decision.pr.repo, decision.pr.number, decision.pr.url) == expected
    assert "If this session wrote that PR's code" in decision.text
    assert "find-contributing-sessions" in decision.text
    assert not decision.babysit


NONE: list[tuple[object, object]] = [
    ("gh pr create --fill", CREATE_FAILED),  # silent on failure
    ("gh pr create --dry-run --fill", DRY_RUN),  # creates nothing
    ("gh pr create --help", "Create a pull request on GitHub.\n"),
    ("gh pr create --fill extra words", CREATE_STDOUT),  # gh takes no operand: refused
    ("gh api graphql --help 2>&1 | head -30", CREATE_STDOUT),  # from the shell corpus
    ("gh pr view -h", CREATE_STDOUT),
    ("gh pr list", LIST_RAW),
    ("gh pr status", "Current branch\n  #42  Fix the thing [feat/x]\n"),
    ("gh api repos/acme/widgets/pulls", API_LIST),  # a listing naming several
    ("gh pr view 41 && gh pr view 42", ""),
    ("gh pr merge --squash", ""),  # the current branch's PR: not identifiable here
    ("gh repo view acme/widgets", URL),
    ("echo " + URL, CREATE_STDOUT),  # a mention, not a GitHub call
    ("git log --grep 'PR #42'", "commit abc\n    Merge pull request #42\n"),
    ("cat notes.md", CREATE_STDOUT),
    ("grep -rn 'gh pr create' .", "x.md:1:gh pr create " + URL + "\n"),
    (
        "python3 - <<'PY'\nimport subprocess\nsubprocess.run(['gh', 'pr', 'create'])\nPY",
        CREATE_STDOUT,
    ),
    ("cat > notes.md <<'EOF'\ngh pr create --fill\nEOF", CREATE_STDOUT),
    ("git push -u origin HEAD", CREATE_COMBINED.replace(URL, "")),
    ("", CREATE_STDOUT),
    (None, CREATE_STDOUT),
    (12, CREATE_STDOUT),
    (["gh", 1], CREATE_STDOUT),
    ({"command": "gh pr create"}, CREATE_STDOUT),
    ("gh pr create --fill", None),
    ("gh pr create --fill", b"https://github.com/acme/widgets/pull/42\n"),
]


@pytest.mark.parametrize(("command", "output"), NONE)
def test_everything_else_is_silent(command: object, output: object) -> None:
    decision = pr_decision("shell", command, output, True)
    assert decision.kind == "none", decision
    assert decision.pr is None and decision.text == "" and not decision.babysit


@pytest.mark.parametrize(
    ("command", "output"), [(c, o) for c, o in SELF_LINKS[:3]] + [("gh pr view 42", VIEW_RAW)]
)
def test_a_failed_call_is_silent(command: object, output: str) -> None:
    for exit_ok in (False, None, 0):
        assert pr_decision("shell", command, output, exit_ok).kind == "none"  # type: ignore[arg-type]


def test_odd_tools_are_silent() -> None:
    for tool in ("", None, 3, ["shell"]):
        assert pr_decision(tool, "gh pr create", CREATE_STDOUT, True).kind == "none"  # type: ignore[arg-type]


def test_the_skill_syntax_is_the_callers() -> None:
    decision = pr_decision("shell", "gh pr create --fill", CREATE_STDOUT, True, skills="$")
    assert f"/loop $pr-babysit {URL}" in decision.text and "/memhub:" not in decision.text


MCP: list[tuple[str, object, str, str, int]] = [
    (
        "mcp__github__create_pull_request",
        {"owner": "acme", "repo": "widgets", "title": "x"},
        MCP_CREATE,
        "self-link",
        42,
    ),
    ("mcp__github__create_pull_request", {}, MCP_ENVELOPE, "self-link", 42),
    (
        "mcp__github__get_pull_request",
        {"owner": "acme", "repo": "widgets", "pullNumber": 42},
        MCP_ENVELOPE,
        "judged",
        42,
    ),
    ("mcp__github__get_pull_request", {}, MCP_ENVELOPE, "judged", 42),
    (
        "mcp_github_pull_request_read",
        {"owner": "acme", "repo": "widgets", "pullNumber": "42", "method": "get"},
        "{}",
        "judged",
        42,
    ),
    (
        "MCP:github-get_pull_request_files",
        {"owner": "acme", "repo": "widgets", "pull_number": 42},
        "[]",
        "judged",
        42,
    ),
    (
        "mcp__github__merge_pull_request",
        {"owner": "acme", "repo": "widgets", "pullNumber": 42},
        '{"merged":true}',
        "judged",
        42,
    ),
    (
        "mcp__github__create_pull_request_with_copilot",
        {"owner": "acme", "repo": "widgets"},
        MCP_CREATE,
        "judged",
        42,
    ),
]


@pytest.mark.parametrize(("tool", "args", "output", "kind", "number"), MCP)
def test_github_mcp_tools(tool: str, args: object, output: str, kind: str, number: int) -> None:
    decision = pr_decision(tool, args, output, True)
    assert decision.kind == kind, decision
    assert decision.pr is not None and decision.pr.number == number


@pytest.mark.parametrize(
    ("tool", "args", "output"),
    [
        ("mcp__github__create_pull_request", {"owner": "acme"}, '{"error":"validation failed"}'),
        ("mcp__github__list_pull_requests", {"owner": "acme", "repo": "widgets"}, API_LIST),
        (
            "mcp__github__get_issue",
            {"owner": "acme", "repo": "widgets", "issue_number": 42},
            API_PULL,
        ),
        ("mcp__memhub__search_memory", {"query": "pull request 42"}, URL),
        ("mcp__github__get_pull_request", {"pullNumber": True}, "{}"),
        ("mcp__github__get_pull_request", "not a dict", "{"),
    ],
)
def test_mcp_calls_that_name_no_single_pr_are_silent(tool: str, args: object, output: str) -> None:
    assert pr_decision(tool, args, output, True).kind == "none"


def test_a_failed_mcp_create_is_silent() -> None:
    assert pr_decision("mcp__github__create_pull_request", {}, MCP_CREATE, False).kind == "none"


_PIECES = ["gh pr create --fill", "gh pr view 42", "| tail -5", "&&", "||", ";", "&", "2>&1",
           "> out", "<<'EOF'\nx | y\nEOF\n", "$(", ")", "'", '"', "bash -lc", "\n", "if", "fi"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_PIECES), max_size=8).map(" ".join),
    st.sampled_from([CREATE_STDOUT, ALREADY_EXISTS, VIEW_RAW, "", "\x00\n"]),
    st.booleans(),
)
def test_never_raises(command: str, output: str, exit_ok: bool) -> None:
    decision = pr_decision("shell", command, output, exit_ok)
    assert decision.kind in ("self-link", "judged", "none")
    assert (decision.pr is None) == (decision.kind == "none")
    if decision.kind == "self-link":  # only a line that ends in the create
        # a here-document is the create's own stdin: its body and end marker are no new command
        ended = command.replace("<<'EOF'\nx | y\nEOF\n", "").rstrip(" \n;")
        assert ended.endswith(("gh pr create --fill", "2>&1"))
