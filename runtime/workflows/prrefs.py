"""Pull requests named in text and arguments: web URLs (`https://HOST/OWNER/REPO/pull/N`),
REST endpoints (`repos/OWNER/REPO/pulls/N`, on api.github.com or `/api/v3/`), and `gh`'s own
ways of naming one (a number, a URL, `--repo OWNER/REPO`). Plain string scanning, no regex."""

from __future__ import annotations

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
_STOP = " \t\r\n\"'<>()[]{},;`|\\"


class PullRequest:
    """One pull request; `owner`, `repo` and `url` are "" when the call did not say."""

    __slots__ = ("number", "owner", "repo", "url")

    def __init__(self, owner: str, repo: str, number: int, url: str = "") -> None:
        self.owner = owner
        self.repo = repo
        self.number = number
        self.url = url

    def key(self) -> tuple[str, str, int]:
        return (self.owner.lower(), self.repo.lower(), self.number)

    def label(self) -> str:
        """`owner/repo#N`, or `#N` when the repository is not known."""
        where = f"{self.owner}/{self.repo}" if self.owner and self.repo else ""
        return f"{where}#{self.number}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PullRequest) and (self.key(), self.url) == (
            other.key(),
            other.url,
        )

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        return f"PullRequest({self.owner!r}, {self.repo!r}, {self.number!r}, {self.url!r})"


def _name(text: str) -> bool:
    return bool(text) and text not in (".", "..") and all(ch in _NAME_CHARS for ch in text)


def _number(text: str) -> int | None:
    """The PR number at the start of `text` (digits up to a non-digit), else None."""
    end = 0
    while end < len(text) and text[end].isdigit():
        end += 1
    if not end or end > 9 or (end < len(text) and (text[end].isalpha() or text[end] == "_")):
        return None
    value = int(text[:end])
    return value if value > 0 else None


def _token_around(text: str, i: int) -> tuple[int, int]:
    """The bounds of the URL-ish token holding index `i`."""
    start = i
    while start > 0 and text[start - 1] not in _STOP:
        start -= 1
    end = i
    while end < len(text) and text[end] not in _STOP:
        end += 1
    return start, end


def _web(token: str) -> PullRequest | None:
    """`https://HOST/OWNER/REPO/pull/N[...]` -> its PR."""
    scheme, sep, rest = token.partition("://")
    if not sep or scheme.lower() not in ("http", "https"):
        return None
    parts = rest.split("/")
    if len(parts) < 5 or parts[3] != "pull" or not parts[0] or "@" in parts[0]:
        return None
    owner, repo = parts[1], parts[2]
    number = _number(parts[4])
    if number is None or not (_name(owner) and _name(repo)):
        return None
    return PullRequest(
        owner, repo, number, f"{scheme.lower()}://{parts[0]}/{owner}/{repo}/pull/{number}"
    )


def endpoint(token: str) -> PullRequest | None:
    """A REST pulls endpoint (`[/]repos/OWNER/REPO/pulls/N[...]`, bare or in a URL)."""
    at = token.find("repos/")
    while at >= 0:
        if at == 0 or token[at - 1] == "/":
            parts = token[at:].split("/")
            if len(parts) >= 5 and parts[3] == "pulls":
                number = _number(parts[4])
                owner, repo = parts[1], parts[2]
                if number is not None and owner and repo:
                    placeholder = owner.startswith("{") or repo.startswith("{")
                    if placeholder or (_name(owner) and _name(repo)):
                        return PullRequest(*(("", "") if placeholder else (owner, repo)), number)
        at = token.find("repos/", at + 1)
    return None


def _api_url(token: str) -> PullRequest | None:
    """An API URL naming one PR, on api.github.com or a GitHub Enterprise `/api/v3/`."""
    lowered = token.lower()
    if not (lowered.startswith(("https://", "http://"))):
        return None
    host = lowered.split("/", 3)[2]
    if host != "api.github.com" and "/api/v3/repos/" not in lowered:
        return None
    found = endpoint(token.split("://", 1)[1].split("/", 1)[-1])
    if found is None or not found.owner:
        return None
    web = "github.com" if host == "api.github.com" else token.split("/", 3)[2]
    found.url = f"https://{web}/{found.owner}/{found.repo}/pull/{found.number}"
    return found


def in_text(text: str, limit: int = 64) -> list[PullRequest]:
    """The distinct PRs that `text` names by URL (web or API), in order of first mention;
    at most `limit` (a listing naming that many is not about one PR anyway)."""
    found: dict[tuple[str, str, int], PullRequest] = {}
    for marker in ("/pull/", "/pulls/"):
        at = text.find(marker)
        while at >= 0 and len(found) < limit:
            start, end = _token_around(text, at)
            token = text[start:end]
            pr = _web(token) if marker == "/pull/" else _api_url(token)
            if pr is not None:
                found.setdefault(pr.key(), pr)
            at = text.find(marker, max(end, at + 1))
    return list(found.values())


def web_url(token: str) -> PullRequest | None:
    """The PR a whole word names as a web URL (`gh pr view URL`), else None."""
    return _web(token.strip())


def repo_option(value: str) -> tuple[str, str]:
    """(owner, repo) of a `--repo` value, `OWNER/REPO` or `HOST/OWNER/REPO`; ("", "") else."""
    parts = value.strip().rstrip("/").split("/")
    if len(parts) in (2, 3) and _name(parts[-2]) and _name(parts[-1]):
        return parts[-2], parts[-1].removesuffix(".git")
    return "", ""


def number_word(word: str) -> int | None:
    """A PR number as gh takes it: `12` or `#12`."""
    digits = word[1:] if word.startswith("#") else word
    return int(digits) if digits.isdigit() and 0 < len(digits) <= 9 and int(digits) else None
