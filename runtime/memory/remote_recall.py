"""Recall from a MemHub-compatible remote server, when the hub says so (`remote_settings`).

- `answer(...)`: `recall.directives` asks the server's `recall_directives` with the call's
  handles instead of the local index; the answer then goes through the local code exactly as
  a local lookup does: the precision gate (`directives.select`), once per session
  (`directives_state`), the budget and the rendering (`directives_render`). The published
  plugin's call: `{tool, args, [output], [repo], [already_fired], [session_id]}`, and once
  more with `{tool, args, [output]}` when a server refuses the extra arguments.
- The brief's child and the prompt ask `get_brain_overview` and `search_memory` through
  remote_brief.py, which shares `_call`, `gate`, `items_of` and `overview_of` with this module.

Fail open: no key, a server down, slow, refusing the key or answering garbage gives no
directives, one line in `hook.log` (the key never in it) and
nothing cached, so the next call asks again. Stdlib; imported only when recall is remote.
"""

from __future__ import annotations

import json
import time

from ..dispatch import log
from ..lowos import getenv
from . import directives, directives_state
from .directives_answer import Answer, empty, opening
from .directives_render import DEFAULT_BUDGET, render
from .remote_client import Client, RemoteFailure, redact
from .remote_settings import Remote, configured

# typing.TYPE_CHECKING without importing typing
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = [
    "answer", "client_of", "configured", "directive_of", "gate", "items_of", "overview_of",
    "repo_of", "wire_session",
]  # fmt: skip

WHERE = "recall.remote"
ARG_CAP = 500  # a string of a whole tool input sent as args is cut here (the plugin's)
RETRY_MARKS = ("unexpected", "repo", "already_fired", "session_id", "validation")
RENDER_MARGIN_S = 0.15  # of the hook's time, kept for the gate, the rendering and the state
_WILD = "*?["


FENCE_MARGIN = 120  # a bullet's kind and its `fired on` tail, beside the fenced text


def repo_of(cwd: str) -> str:
    """The name the gate blocks as the repository's: the folder of `cwd`'s checkout (the
    nearest folder holding `.git`), else `cwd`'s own name. No git process: stats only."""
    import os

    folder = os.path.abspath(cwd)
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return os.path.basename(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            return os.path.basename(os.path.abspath(cwd))
        folder = parent


def wire_session(host: str, session_id: str) -> str:
    """The session id as capture sends it: Claude's bare, the other hosts' prefixed."""
    return session_id if host == "claude" or not session_id else f"{host}-{session_id}"


def _key(remote: Remote) -> str | None:
    if remote.key_env:
        return (getenv(remote.key_env) or "").strip() or None
    from ..backends.credential import load_credential  # capture's: MEMHUB_API_KEY, the file

    credential = load_credential()
    return credential["api_key"] if credential else None


def _call(
    home: str, remote: Remote, name: str, arguments: dict[str, Any], *, deadline: float,
    session_dir: str | None = None, fallback: dict[str, Any] | None = None,
    client: Client | None = None,
) -> dict[str, Any] | None:  # fmt: skip
    """The tool's result, or None (logged: why, never the key). `client`: one already made
    (`client_of`), so that several calls share one MCP session."""
    if client is not None:
        client.deadline = deadline  # this call's share of the client's conversation
    client = client or client_of(home, remote, deadline, session_dir, name)
    if client is None:
        return None
    key = client.key
    started = time.monotonic()
    try:
        result = client.call(name, arguments)
        if result.get("isError") and fallback is not None and _refused_extras(result):
            result = client.call(name, fallback)
    except RemoteFailure as exc:
        spent = time.monotonic() - started
        log(home, WHERE, f"{name} at {remote.url} failed after {spent:.2f}s, {exc}: fail open")
        return None
    if result.get("isError"):
        text = _text(result)[:200]
        log(home, WHERE, f"{name} at {remote.url}: tool error {redact(text, key)}: fail open")
        return None
    return result


def client_of(
    home: str, remote: Remote, deadline: float, session_dir: str | None = None, name: str = ""
) -> Client | None:
    """A client for `remote` with its key; None (logged) when there is no key."""
    key = _key(remote)
    if not key:
        where = f"${remote.key_env}" if remote.key_env else "MEMHUB_API_KEY or `memhub login`"
        log(home, WHERE, f"{name or 'recall'}: no key for {remote.url} ({where}): nothing recalled")
        return None
    return Client(remote.url, key, deadline, session_dir)


def _text(result: Mapping[str, Any]) -> str:
    blocks = result.get("content") or []
    return " ".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict))


def _refused_extras(result: Mapping[str, Any]) -> bool:
    text = _text(result).lower()
    return any(mark in text for mark in RETRY_MARKS)


def _structured(result: Mapping[str, Any]) -> dict[str, Any] | None:
    """The tool's structured answer: `structuredContent` (or its `result`), else JSON text."""
    found = result.get("structuredContent")
    if not isinstance(found, dict):
        try:
            found = json.loads(_text(result))
        except ValueError:
            return None
    if isinstance(found, dict) and isinstance(found.get("result"), dict):
        found = found["result"]
    return found if isinstance(found, dict) else None


def items_of(result: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """A tool result's `items` ([] when it names none); None when it is not an answer."""
    found = _structured(result)
    if found is None:
        return None
    items = found.get("items", [])
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else None


# --- recall_directives --------------------------------------------------------------------


def _kind_of(trigger: str) -> tuple[str, ...]:
    """How a trigger of a flat list is matched: a path-like one as a path, several words as
    a command or an error, one word as an identifier."""
    t = trigger.strip()
    if any(ch in t for ch in _WILD) or "/" in t or "\\" in t:
        return ("paths",)
    stem, dot, ext = t.rpartition(".")
    if dot and stem and ext.isalnum() and len(ext) <= 8 and not any(c.isspace() for c in t):
        return ("paths",)
    if len(t.split()) > 1:
        return ("commands", "errors")
    return ("identifiers",)


def _triggers(raw: object) -> dict[str, list[str]]:
    kinds: dict[str, list[str]] = {k: [] for k in directives.KINDS}
    if isinstance(raw, dict):  # memhub's own shape: triggers by kind
        for kind, values in raw.items():
            if kind in kinds and isinstance(values, list):
                kinds[kind] += [v for v in values if isinstance(v, str) and v.strip()]
    elif isinstance(raw, list):
        for value in raw:
            if isinstance(value, str) and value.strip():
                for kind in _kind_of(value):
                    kinds[kind].append(value)
    return kinds


def directive_of(item: Mapping[str, Any]) -> directives.Directive | None:
    """The matcher's view of one `recall_directives` item; None without an id."""
    rid = item.get("id")
    if not isinstance(rid, str) or not rid:
        return None
    content = str(item.get("content") or item.get("title") or "")
    title, _, body = content.strip().partition("\n")
    seen = item.get("seen")
    return directives.Directive(
        rid, str(item.get("type") or "directive").lower(), title, body.strip(),
        _triggers(item.get("triggers")), str(item.get("as_of") or ""),
        seen if isinstance(seen, int) and not isinstance(seen, bool) else 1,
    )  # fmt: skip


def _args(tool_input: Mapping[str, Any]) -> dict[str, Any]:
    """The call's handles as the server's tool takes them: paths and command, else the whole
    input with its strings cut to ARG_CAP."""
    args: dict[str, Any] = {}
    for k in directives.PATH_KEYS:
        if isinstance(v := tool_input.get(k), str):
            args[k] = v[: directives.MAX_HANDLE]
    for k in directives.COMMAND_KEYS:
        v = tool_input.get(k)
        if isinstance(v, list):
            v = " ".join(str(w) for w in v)
        if isinstance(v, str):
            args["command"] = v[: directives.MAX_HANDLE]
            break
    if args:
        return args
    return {k: v[:ARG_CAP] if isinstance(v, str) else v for k, v in tool_input.items()}


def gate(
    items: list[dict[str, Any]], call: directives.Call, stop: frozenset[str], fired: list[str],
    limit: int = directives.MAX_DIRECTIVES,
) -> list[directives.Hit]:  # fmt: skip
    """The local gate over the server's items: matched ones by the local matcher, then those
    declaring no trigger (kept, as the published plugin keeps them), at most `limit`."""
    matched, bare = [], []
    for item in items:
        d = directive_of(item)
        if d is None or d.id in fired:
            continue
        if d.all_triggers():
            matched.append(d)
        else:
            bare.append(directives.Hit(d, str(item.get("match") or "the server's match"), ""))
    hits = directives.select(matched, call, stop, fired, limit=limit)
    return (hits + bare)[:limit]


def answer(
    home: str, remote: Remote, tool: str, tool_input: Mapping[str, Any], *, cwd: str,
    session_dir: str, deadline: float, output: str | None = None, account: str = "",
    repo: str | None = None, session_id: str = "", budget: int = DEFAULT_BUDGET,
) -> Answer:  # fmt: skip
    """`directives_answer.answer`, asking the server instead of the local index: the hook's
    `deadline` (less RENDER_MARGIN_S) or the remote's own timeout, whichever comes first."""
    deadline = min(deadline - RENDER_MARGIN_S, time.monotonic() + remote.timeout_s)
    repo = repo_of(cwd) if repo is None else repo
    reactive = output is not None
    key, skip = opening(tool, tool_input, cwd, session_dir, reactive)
    if skip is not None:
        return skip
    fired = directives_state.already_fired(session_dir)
    call = directives.call_of(tool_input, output)
    plain: dict[str, Any] = {"tool": tool, "args": _args(tool_input)}
    if output is not None:  # the failing output's tail, as the host gave it
        plain["output"] = output[-directives.OUTPUT_TAIL :]
    arguments = dict(plain)
    if repo:
        arguments["repo"] = repo
    if fired:
        arguments["already_fired"] = fired
    if session_id:
        arguments["session_id"] = session_id
    result = _call(
        home, remote, "recall_directives", arguments, deadline=deadline,
        session_dir=session_dir, fallback=plain,
    )  # fmt: skip
    items = items_of(result) if result is not None else None
    if items is None:
        if result is not None:
            log(home, WHERE, f"recall_directives at {remote.url}: no items in the answer")
        return Answer(empty(), key, "remote failed")  # not remembered: the next call asks again
    if not reactive:
        directives_state.remember(session_dir, key)
    hits = gate(items, call, directives.blocked(account, repo), fired)
    accepted = {i.get("id") for i in items if i.get("reviewed") is True}
    for hit in hits:
        if hit.directive.id not in accepted:
            fence(hit.directive, budget // max(len(hits), 1))
    return Answer(render(hits, budget, reactive=reactive), key)


def fence(d: directives.Directive, room: int) -> None:
    """Fence a remote directive no person is said to have accepted (a MemHub server says
    nothing of who wrote it: unreviewed unless the item says `reviewed: true`, as memhub's
    own server does): its title and body as one fenced line, short enough for `room`."""
    from .unreviewed import REMOTE, inline

    room = max(room - FENCE_MARGIN, 60)
    d.title, d.body = inline(f"{d.title} {d.body}", REMOTE, room), ""


# --- the brief's pointer cache ---------------------------------------------------------------


def overview_of(result: Mapping[str, Any]) -> str | None:
    """A `get_brain_overview` result's text (`overview`, else `text`, else the content)."""
    found = _structured(result)
    text = _text(result) if found is None else found.get("overview") or found.get("text")
    return (text.strip() or None) if isinstance(text, str) else None
