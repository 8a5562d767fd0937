"""Whether recall answers from a remote server: the hub's `memory.recall.remote`, compiled.

The compiler writes the hub's setting as `recall.json` (`{"version": 1, "remote": {"url",
"key_env"?, "timeout_ms"?}}`): beside the vendored runtime in a bundle
(`<plugin>/memhub_runtime/recall.json`), under `$MEMHUB_HOME` for an install (the installed
package is shared by every hub, the home is the person's). The hook reads it with one small
read, and only on a call that would look something up; no file means local recall (the
default). The key is never in the file: `key_env` names the variable holding it, else the
capture credential (`MEMHUB_API_KEY`, else `$MEMHUB_HOME/credentials.json`). Stdlib.
"""

from __future__ import annotations

__all__ = ["FILE", "MAX_TIMEOUT_MS", "Remote", "check", "configured", "load", "path", "render"]

FILE = "recall.json"
VENDORED = "memhub_runtime"  # compiler.hosts.common.RUNTIME_PACKAGE
MAX_BYTES = 8192
DEFAULT_TIMEOUT_MS = 1500  # within the recall handler's 2 s, with room for the rendering
MIN_TIMEOUT_MS = 100
MAX_TIMEOUT_MS = 2000  # recall.directives drops an answer later than its TIME_BUDGET_S
LOOPBACK = ("localhost", "127.0.0.1", "::1")


class Remote:
    """Where recall asks: the server's URL, the variable holding its key, the time allowed."""

    __slots__ = ("key_env", "timeout_s", "url")

    def __init__(self, url: str, key_env: str = "", timeout_ms: int = DEFAULT_TIMEOUT_MS) -> None:
        self.url, self.key_env, self.timeout_s = url, key_env, timeout_ms / 1000

    def __repr__(self) -> str:
        return f"Remote({self.url!r}, key_env={self.key_env!r}, timeout_s={self.timeout_s})"


def path(home: str) -> str:
    """The settings file this runtime reads: beside the vendored copy in a bundle, under
    `home` in an install."""
    from ..lowos import dirname, join  # not `os`: the hook's hot path has not imported it

    # a bundle imports its copy as `memhub_runtime`; an install as `memhub.runtime` (the
    # console script) or `runtime` (its hook.py run as a script). The import system gives
    # __file__ absolute (hook.py puts the vendored copy's parent on sys.path absolute).
    if (__package__ or "").partition(".")[0] == VENDORED:
        return join(dirname(dirname(__file__)), FILE)
    return join(home, FILE)


def _is_name(value: str) -> bool:
    head = value[:1]
    return bool(value) and (head.isalpha() or head == "_") and value.isascii() and all(
        ch.isalnum() or ch == "_" for ch in value
    )  # fmt: skip


def check(url: object, key_env: object = "", timeout_ms: object = None) -> str:
    """Why these settings are not usable ("" when they are): the URL must be http(s) with a
    host, plain http only to loopback, no credentials or query in it; `key_env` a variable
    name; `timeout_ms` between MIN_TIMEOUT_MS and MAX_TIMEOUT_MS."""
    from urllib.parse import urlsplit

    if not isinstance(url, str) or not url:
        return "url: an http(s) URL of a MemHub-compatible MCP endpoint is needed"
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return f"url: {url[:80]!r} is not a URL"
    if parts.scheme not in ("http", "https") or not host:
        return f"url: {url[:80]!r} is not an http(s) URL"
    if parts.scheme == "http" and host not in LOOPBACK:
        return "url: plain http is refused except to a loopback host (use https)"
    if parts.username or parts.password or parts.query or parts.fragment:
        return "url: no credentials, query or fragment in the URL (the key goes in key_env)"
    if key_env not in (None, "") and not (isinstance(key_env, str) and _is_name(key_env)):
        return "key_env: the name of an environment variable (letters, digits, _)"
    if timeout_ms is not None and (
        not isinstance(timeout_ms, int)
        or isinstance(timeout_ms, bool)
        or not MIN_TIMEOUT_MS <= timeout_ms <= MAX_TIMEOUT_MS
    ):
        return f"timeout_ms: a whole number from {MIN_TIMEOUT_MS} to {MAX_TIMEOUT_MS}"
    return ""


def parse(text: str) -> tuple[Remote | None, str]:
    """The remote of a settings file's text, or None and why it is not usable ("" when the
    file names no remote)."""
    import json

    try:
        data = json.loads(text)
    except ValueError:
        return None, "not JSON"
    remote = data.get("remote") if isinstance(data, dict) else None
    if remote is None:
        return None, ""
    if not isinstance(remote, dict):
        return None, "remote: a mapping (url, key_env, timeout_ms)"
    url, key_env = remote.get("url"), remote.get("key_env") or ""
    timeout_ms = remote.get("timeout_ms")
    problem = check(url, key_env, timeout_ms)
    if problem:
        return None, problem
    assert isinstance(url, str) and isinstance(key_env, str)  # check() said so
    timeout = timeout_ms if isinstance(timeout_ms, int) else DEFAULT_TIMEOUT_MS
    return Remote(url, key_env, timeout), ""


def load(home: str) -> tuple[Remote | None, str]:
    """The configured remote; (None, "") for local recall (no file, or one naming no remote),
    (None, why) for a file that cannot be used."""
    try:
        with open(path(home), "rb") as handle:
            raw = handle.read(MAX_BYTES)
    except (OSError, ValueError):
        return None, ""
    return parse(raw.decode("utf-8", "replace"))


def configured(home: str) -> Remote | None:
    """The remote recall asks, or None (local recall); an unusable settings file is logged
    and recall stays local."""
    remote, problem = load(home)
    if problem:
        from ..dispatch import log

        log(home, "recall.remote", f"{path(home)} is not usable ({problem}): recalling locally")
    return remote


def render(url: str, key_env: str = "", timeout_ms: int | None = None) -> str:
    """The settings file for a remote (what the compiler writes)."""
    import json

    remote: dict[str, object] = {"url": url}
    if key_env:
        remote["key_env"] = key_env
    if timeout_ms is not None:
        remote["timeout_ms"] = timeout_ms
    return json.dumps({"version": 1, "remote": remote}, indent=2) + "\n"
