"""Session <-> PR linking and PR babysitting: what one finished tool call means.

`pr_decision(tool, command_or_args, output, exit_ok)` answers one of three ways:
- "self-link": this call opened the PR and the URL provably came from that create (a
  `gh pr create` that is the line's last command, not in a pipeline, `||`, background or
  compound command, stdout not redirected, whose output ends with the bare URL gh prints; or a
  GitHub MCP create tool's result). The caller records the link; the text arms the babysit loop.
- "judged": a GitHub call naming exactly one PR (a `gh pr` action, `gh api` / curl to a pulls
  endpoint, a GitHub MCP PR tool, or a create whose failure a pipeline could hide); the text
  asks the agent to link only if this session wrote that code.
- "none": anything else, including every failed call and every odd input (never raises).
"""

from __future__ import annotations

from ..events import loads
from ..shellcmd import SHELLS, commands
from . import prrefs
from .ghcalls import GhCall, github_call
from .prrefs import PullRequest
from .shellshape import shape

MAX_OUTPUT = 100_000  # the output's tail that is read; gh prints the URL last
_ARGS_NUMBER = ("pullNumber", "pull_number", "number", "pr_number", "prNumber")


class PrDecision:
    """The answer for one call: kind, the PR (when one), the text to inject ("" for none),
    whether the text arms the babysit loop, and a short reason for stats and logs."""

    __slots__ = ("babysit", "kind", "pr", "reason", "text")

    def __init__(
        self, kind: str, pr: PullRequest | None, reason: str, text: str = "", babysit: bool = False
    ) -> None:
        self.kind = kind
        self.pr = pr
        self.reason = reason
        self.text = text
        self.babysit = babysit

    def __repr__(self) -> str:
        return f"PrDecision({self.kind!r}, {self.pr!r}, {self.reason!r})"


def _none(reason: str) -> PrDecision:
    return PrDecision("none", None, reason)


def pr_decision(
    tool: str,
    command_or_args: object,
    output: object,
    exit_ok: bool,
    *,
    skills: str = "/memhub:",
) -> PrDecision:
    """What a finished call means for PR linking. `tool` is "shell" (then `command_or_args` is
    the command line or argv list) or an MCP tool's name (then it is the tool's arguments);
    `output` is the call's stdout (or its whole output); `exit_ok` whether the host reported
    success. `skills` prefixes the skill names in the text (a host's skill syntax)."""
    try:
        if exit_ok is not True:
            return _none("failed")
        text = output if isinstance(output, str) else ""
        text = text[-MAX_OUTPUT:]
        if tool == "shell":
            decision = _shell(command_or_args, text)
        elif isinstance(tool, str) and tool:
            decision = _mcp(tool, command_or_args, text)
        else:
            return _none("unknown-tool")
        if decision.kind != "none" and decision.pr is not None:
            from .prtexts import render  # the texts only when something fires

            decision.text, decision.babysit = render(decision, skills)
        return decision
    except Exception:  # a hook never fails the agent: an odd input is silence
        return _none("error")


def _shell(command: object, output: str) -> PrDecision:
    if isinstance(command, str):
        if "gh" not in command and "github" not in command:
            return _none("not-github")  # the common case costs no parse
    elif not (isinstance(command, (list, tuple)) and all(isinstance(w, str) for w in command)):
        return _none("no-command")
    calls = [call for argv in commands(command) if (call := github_call(argv)) is not None]
    if not calls:
        return _none("not-github")
    creates = sum(call.creates for call in calls)
    if creates == 1 and "already exists" not in output:
        pr = _last_line_url(output)
        if pr is not None and _create_is_provable(command, 0):
            return PrDecision("self-link", pr, "create-url")
    named = prrefs.in_text(output)
    pr = _resolve(calls, named, output)
    if pr is None:
        return _none("several-prs" if len(named) > 1 else "no-pr")
    return PrDecision("judged", pr, "create-unproven" if creates else "names-one-pr")


def _last_line_url(output: str) -> PullRequest | None:
    """The PR whose URL is the output's last line, exactly as gh prints it."""
    lines = output.rstrip().rsplit("\n", 1)
    last = lines[-1].strip() if lines else ""
    pr = prrefs.web_url(last)
    return pr if pr is not None and pr.url == last else None


def _shell_script(argv: list[str]) -> str | None:
    """The script of `bash -c SCRIPT` (after assignments), else None."""
    i = 0
    while i < len(argv) and "=" in argv[i] and not argv[i].startswith("-"):
        i += 1
    if i >= len(argv) or argv[i].rsplit("/", 1)[-1] not in SHELLS:
        return None
    i += 1
    has_c = False
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "--":
        has_c = has_c or (not argv[i].startswith("--") and "c" in argv[i][1:])
        i += 1
    i += argv[i : i + 1] == ["--"]
    return argv[i] if has_c and i < len(argv) else None


def _create_is_provable(command: object, depth: int) -> bool:
    """Whether the line's only create is its last command, wired so that its exit status is
    the call's and its stdout the output's end."""
    if depth > 3:
        return False
    if isinstance(command, (list, tuple)):
        script = _shell_script(list(command))
        if script is not None:
            return _create_is_provable(script, depth + 1)
        return _creates(list(command))
    if not isinstance(command, str):
        return False
    lines = shape(command)
    if lines.compound or not lines.steps:
        return False
    if any(step.after == "&" or step.before == "&" for step in lines.steps):
        return False
    last = lines.steps[-1]
    if last.before not in ("", ";", "&&", "\n") or last.stdout_redirected():
        return False
    if any(step.argv[:1] == ["exec"] and step.stdout_redirected() for step in lines.steps):
        return False
    script = _shell_script(last.argv)
    if script is not None:
        return _create_is_provable(script, depth + 1)
    return _creates(last.argv)


def _creates(argv: list[str]) -> bool:
    return any(
        (call := github_call(words)) is not None and call.creates for words in commands(argv)
    )


def _resolve(calls: list[GhCall], named: list[PullRequest], output: str) -> PullRequest | None:
    """The one PR the calls' arguments and the output name together, else None."""
    targets = {call.target.key(): call.target for call in calls if call.target is not None}
    if len(targets) > 1:
        numbers = {key[2] for key in targets}
        known = [t for t in targets.values() if t.owner]
        if len(numbers) > 1 or len(known) > 1:
            return None
        targets = {known[0].key(): known[0]} if known else dict(list(targets.items())[:1])
    if targets:
        (target,) = targets.values()
        same = [pr for pr in named if pr.number == target.number]
        if target.owner:
            same = [pr for pr in same if pr.key() == target.key()]
        if len(same) == 1:
            return same[0]
        return target
    if len(named) == 1:
        return named[0]
    if len(named) > 1:
        return _view_url_line(output)
    return None


def _view_url_line(output: str) -> PullRequest | None:
    """`gh pr view`'s own `url:` field when its body names other PRs too."""
    found = [
        pr
        for line in output.split("\n")
        if line.startswith("url:\t") and (pr := prrefs.web_url(line[5:])) is not None
    ]
    return found[0] if len({pr.key() for pr in found}) == 1 else None


def _mcp(tool: str, args: object, output: str) -> PrDecision:
    name = tool.lower().replace("-", "_")
    if "github" not in name:
        return _none("not-github")
    if "pull_request" not in name and "pullrequest" not in name:
        return _none("not-a-pr-tool")
    args = args if isinstance(args, dict) else {}
    target = _mcp_target(args)
    primary = _mcp_primary(output)
    named = prrefs.in_text(output)
    if name.endswith(("create_pull_request", "createpullrequest")):
        pr = primary or (named[0] if len(named) == 1 else None)
        if pr is not None:
            return PrDecision("self-link", pr, "mcp-create")
        return _none("no-pr")
    call = GhCall()
    call.target = target
    pr = _resolve([call], [primary] if primary and not target else named, output)
    return PrDecision("judged", pr, "names-one-pr") if pr is not None else _none("several-prs")


def _mcp_target(args: dict) -> PullRequest | None:
    owner, repo = args.get("owner"), args.get("repo")
    if not (isinstance(owner, str) and isinstance(repo, str)):
        owner = repo = ""
    for key in _ARGS_NUMBER:
        value = args.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            continue
        number = prrefs.number_word(str(value))
        if number is not None:
            return PullRequest(owner, repo, number)
    return None


def _mcp_primary(output: str) -> PullRequest | None:
    """The PR an MCP result describes at its top level (`html_url` / `url`), JSON or an
    MCP envelope of JSON text."""
    data = loads(output) if output.lstrip()[:1] in ("{", "[") else None
    for _ in range(3):
        if isinstance(data, dict) and isinstance(data.get("structuredContent"), dict):
            data = data["structuredContent"]
        elif isinstance(data, dict) and isinstance(data.get("content"), list):
            data = data["content"]
        if isinstance(data, list):
            texts = [i.get("text") for i in data if isinstance(i, dict)]
            data = next((loads(t) for t in texts if isinstance(t, str)), None)
            continue
        break
    if not isinstance(data, dict):
        return None
    for key in ("html_url", "url"):
        value = data.get(key)
        if isinstance(value, str):
            found = prrefs.in_text(value, limit=1)
            if found:
                return found[0]
    return None
