"""The deciding half of `prs.pr_decision`, imported only once a call mentions GitHub: the
shell wiring that proves a create's URL, and the PR a call's arguments and output name."""

from __future__ import annotations

from ..events import loads
from ..shellcmd import SHELLS, commands
from . import prrefs
from .ghcalls import GhCall, github_call
from .prrefs import PullRequest
from .prs import PrDecision, none
from .shellshape import shape

_ARGS_NUMBER = ("pullNumber", "pull_number", "number", "pr_number", "prNumber")


def shell(command: object, output: str) -> PrDecision:
    """The decision for a shell call (the gate in `pr_decision` has passed)."""
    if not isinstance(command, str) and not (
        isinstance(command, (list, tuple)) and all(isinstance(w, str) for w in command)
    ):
        return none("no-command")
    calls = [call for argv in commands(command) if (call := github_call(argv)) is not None]
    if not calls:
        return none("not-github")
    creates = sum(call.creates for call in calls)
    if creates == 1 and "already exists" not in output:
        pr = _last_line_url(output)
        if pr is not None and _create_is_provable(command, 0):
            return PrDecision("self-link", pr, "create-url")
    named = prrefs.in_text(output)
    pr = _resolve(calls, named, output)
    if pr is None:
        return none("several-prs" if len(named) > 1 else "no-pr")
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
    if last.before not in ("", ";", "&&", "\n") or last.after not in ("", ";", "\n"):
        return False  # piped into, after `||`, or a dangling operator the shell refuses
    if last.stdout_redirected():
        return False
    if any(step.argv[:1] == ["exec"] and step.stdout_redirected() for step in lines.steps):
        return False
    script = _shell_script(last.argv)
    if script is not None:
        return _create_is_provable(script, depth + 1)
    return _creates(last.argv)


def _creates(argv: list[str]) -> bool:
    """Whether `argv` itself is the create (after wrappers), not a shell it starts whose
    script holds one: unwrapping keeps the create's words as the tail of `argv`."""
    runs = commands(argv)
    if len(runs) != 1 or argv[len(argv) - len(runs[0]) :] != runs[0]:
        return False
    call = github_call(runs[0])
    return call is not None and call.creates


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


def mcp(tool: str, args: object, output: str) -> PrDecision:
    """The decision for an MCP tool call."""
    name = tool.lower().replace("-", "_")
    if "github" not in name:
        return none("not-github")
    if "pull_request" not in name and "pullrequest" not in name:
        return none("not-a-pr-tool")
    args = args if isinstance(args, dict) else {}
    target = _mcp_target(args)
    primary = _mcp_primary(output)
    named = prrefs.in_text(output)
    if name.endswith(("create_pull_request", "createpullrequest")):
        pr = primary or (named[0] if len(named) == 1 else None)
        if pr is not None:
            return PrDecision("self-link", pr, "mcp-create")
        return none("no-pr")
    call = GhCall()
    call.target = target
    pr = _resolve([call], [primary] if primary and not target else named, output)
    return PrDecision("judged", pr, "names-one-pr") if pr is not None else none("several-prs")


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
