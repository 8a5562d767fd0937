"""Which simple commands address GitHub about pull requests, and which PR their arguments
name: `gh pr ACTION [TARGET]`, `gh api ENDPOINT`, `gh search prs`, and curl-like clients
sent to the REST API or a PR page."""

from __future__ import annotations

from ..shellcmd import milestone
from . import prrefs
from .prrefs import PullRequest

# `gh pr` actions that address one PR (the argument, or the current branch's PR)
ONE_PR = {"create", "new", "view", "checkout", "co", "merge", "edit", "ready", "checks", "diff",
          "review", "comment", "close", "reopen", "update-branch", "lock", "unlock"}  # fmt: skip
LISTING = {"list", "ls", "status"}
# options of gh that take a value (the next word), so that word is not the PR argument
_GH_VALUES = {"-R", "--repo", "--hostname", "-t", "--title", "-b", "--body", "-F", "--body-file",
              "-B", "--base", "-H", "--head", "-a", "--assignee", "-l", "--label", "-m",
              "--milestone", "-p", "--project", "-r", "--reviewer", "--json", "-q", "--jq",
              "-T", "--template", "--add-label", "--remove-label", "--add-assignee",
              "--remove-assignee", "--add-reviewer", "--remove-reviewer", "--add-project",
              "--remove-project", "-c", "--comment", "-s", "--subject", "--author-email",
              "--match-head-commit", "--branch", "-i", "--interval", "-S", "--search", "-L",
              "--limit", "--state", "-A", "--app", "--color", "-X", "--method", "-f",
              "--field", "--raw-field", "--header", "--input", "--preview", "--cache",
              "--reason", "--recover"}  # fmt: skip
_HTTP_CLIENTS = {"curl", "wget", "http", "https", "xh", "xhs", "httpie"}


class GhCall:
    """One simple command that addresses GitHub: the PR its arguments name (if any), whether
    it names one it cannot identify (a branch, the current branch), and whether it creates."""

    __slots__ = ("creates", "lists", "target", "unnamed")

    def __init__(self) -> None:
        self.target: PullRequest | None = None
        self.unnamed = False  # one PR, named by branch or implied by the checkout
        self.lists = False  # a listing: names as many PRs as its output shows
        self.creates = False  # a real `gh pr create` (not --help, --dry-run, --web)


def _operands(argv: list[str], start: int) -> tuple[list[str], str]:
    """The positional words after `start`, and the value of `-R/--repo` anywhere."""
    words: list[str] = []
    repo = ""
    i = start
    while i < len(argv):
        word = argv[i]
        name, eq, value = word.partition("=")
        if word == "--":
            words.extend(argv[i + 1 :])
            break
        if word.startswith("-") and word != "-":
            if name in ("-R", "--repo"):
                repo = value if eq else (argv[i + 1] if i + 1 < len(argv) else "")
            i += 2 if (not eq and name in _GH_VALUES) else 1
            continue
        words.append(word)
        i += 1
    return words, repo


def _gh(argv: list[str]) -> GhCall | None:
    words, repo = _operands(argv, 1)
    if not words or "--help" in argv or "-h" in argv:
        return None  # help text reaches no PR
    owner, name = prrefs.repo_option(repo)
    call = GhCall()
    if words[0] == "pr" and len(words) > 1:
        action = words[1]
        if action in LISTING:
            call.lists = True
            return call
        if action not in ONE_PR:
            return None
        if action in ("create", "new"):
            # --web, --dry-run and --help open nothing: not a call about a PR at all
            # gh pr create takes no operand: one means a line gh refuses (or misread here)
            web = any(w in ("-w", "--web") for w in argv)
            call.creates = not web and len(words) == 2 and milestone(argv) == "gh pr create"
            return call if call.creates else None
        target = words[2] if len(words) > 2 else ""
        number = prrefs.number_word(target)
        if number is not None:
            call.target = PullRequest(owner, name, number)
        elif target and (found := prrefs.web_url(target)) is not None:
            call.target = found
        else:
            call.unnamed = True
        return call
    if words[0] == "api" and len(words) > 1:
        found = prrefs.endpoint(words[1].split("?", 1)[0])
        call.target = found
        call.lists = found is None
        return call
    if words[0] == "search" and words[1:2] == ["prs"]:
        call.lists = True
        return call
    return None


def _http(argv: list[str]) -> GhCall | None:
    for word in argv[1:]:
        lowered = word.lower()
        if "api.github.com" in lowered or "/api/v3/" in lowered or "github.com/" in lowered:
            call = GhCall()
            found = prrefs.in_text(word, limit=2)
            if len(found) == 1:
                call.target = found[0]
            else:
                call.lists = True
            return call
    return None


def github_call(argv: list[str]) -> GhCall | None:
    """The GitHub PR call `argv` (one unwrapped simple command) makes, else None."""
    if not argv:
        return None
    name = argv[0].rsplit("/", 1)[-1]
    if name == "gh":
        return _gh(argv)
    if name in _HTTP_CLIENTS:
        return _http(argv)
    return None
