"""Reading a transcript into records to send: groups per line, the cursor's mark, titles."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from .settings import (
    DEADLINE_S,
    FLUSH_VALUE,
    KNOWN_THREAD_SOURCES,
    READ_BLOCK,
    SKIP_THREAD_SOURCES,
    backend_id,
    conversation_id,
    log,
)
from .sources import open_transcript, reader_module
from .state import save_state
from .watermark import Watermark


class Item:
    """One record ready to send: its dict, canonical size and digest."""

    __slots__ = ("digest", "id", "record", "size")

    def __init__(self, record: dict[str, Any], size: int, digest: str):
        self.record, self.size, self.digest = record, size, digest
        self.id = record["id"]


class Group:
    """The records of one transcript line, the offset just past it, the context there, and
    the last bytes before that offset (`tail`, for the cursor's mark)."""

    __slots__ = ("context", "end", "items", "size", "tail")

    def __init__(self, end: int, context: str, items: list[Item], tail: bytes = b""):
        self.end, self.context, self.items, self.tail = end, context, items, tail
        self.size = sum(item.size for item in items)


MARK_BYTES = 256  # how much of the bytes before the cursor its mark covers


def mark_digest(data: bytes) -> str:
    import hashlib

    return hashlib.blake2b(data, digest_size=16).hexdigest()


class Reading:
    """One session's flush, its reading half: the transcript's lines as groups of records,
    the cursor's mark, the session's title and working directory (`sending.Flush` sends)."""

    def __init__(
        self,
        host: str,
        session_id: str,
        path: Path,
        mode: str,
        backend: Any,
        title: str | None,
        cwd: str | None,
    ):
        self.host, self.session_id, self.path, self.mode = host, session_id, path, mode
        self.backend = backend
        self.remote = getattr(backend, "kind", "") == "remote"
        self.given_title, self.given_cwd = title, cwd
        self.conversation = conversation_id(host, session_id)
        self.mark_key = f"{backend_id(backend)}|{self.conversation}"
        self.deadline = time.monotonic() + float(
            os.environ.get("MEMHUB_FLUSH_DEADLINE_S") or DEADLINE_S[mode]
        )
        self.watermark: Watermark | None = None
        self.state: dict[str, Any] = {}  # the session's state, loaded by `run`
        self.sent = self.payloads = self.stepped = 0
        self.saved = False

    def _rewritten(self, info: os.stat_result, offset: int) -> str | None:
        """Why the transcript is no longer the one the cursor points into, else None.

        A new inode or a file shorter than the cursor is plainly another file. A file
        rewritten in place (or truncated, then appended past the cursor) is caught by the
        cursor's mark: the digest of the last bytes the cursor moved past. When those bytes
        changed, the cursor points into the middle of some other record.
        """
        if self.state.get("inode") not in (None, info.st_ino):
            return "a new file"
        if info.st_size < offset:
            return f"size {info.st_size} < cursor {offset}"
        mark = self.state.get("mark")
        if not offset or not isinstance(mark, dict) or mark.get("at") != offset:
            return None
        length = int(mark.get("len") or 0)
        with open_transcript(self.path) as handle:
            handle.seek(offset - length)
            tail = handle.read(length)
        if mark_digest(tail) != mark.get("digest"):
            return f"the {length} bytes before cursor {offset} changed"
        return None

    def _reader(self) -> Any:
        return reader_module(self.host)

    def _codex_allowed(self, state: dict[str, Any]) -> bool:
        """Skip Codex's own threads by `thread_source`; log a value never seen before."""
        if state.get("thread_checked"):
            return True
        try:
            with open_transcript(self.path) as handle:
                first = handle.readline(1 << 24)
        except OSError:
            return False
        if not first.endswith(b"\n"):
            return False  # the header line is still being written
        from ..transcripts.lines import load_line

        value = load_line(first)  # any bytes: a JSON value (cleaned) or INVALID
        payload = value.get("payload") if isinstance(value, dict) else None
        source = None
        if isinstance(value, dict) and value.get("type") == "session_meta":
            raw = payload.get("thread_source") if isinstance(payload, dict) else None
            if isinstance(raw, str):
                source = raw or None
            elif isinstance(raw, dict) and raw:
                source = str(next(iter(raw)))
        state["thread_source"] = source
        state["thread_checked"] = True
        if source in SKIP_THREAD_SOURCES:
            state["skip"] = f"codex thread_source {source}"
            log(f"codex {self.session_id}: not captured (thread_source {source!r})")
            save_state(state)
            return False
        if source is not None and source not in KNOWN_THREAD_SOURCES:
            log(f"codex {self.session_id}: unknown thread_source {source!r}; captured")
        save_state(state)
        return True

    # --- reading ----------------------------------------------------------------------------

    def _groups(self, reader: Any, start: int, size: int, context: dict[str, Any]) -> Any:
        """(`Group` per complete line from `start` to `size`); `context` is updated in place."""
        parse = reader.parse_lines
        with open_transcript(self.path) as handle:
            handle.seek(start)
            position = start  # file offset of the first byte not yet read
            parts: list[bytes] = []  # the unfinished line so far (a long line spans blocks)
            while position < size:
                block = handle.read(min(READ_BLOCK, size - position))
                if not block:
                    break
                position += len(block)
                if block.rfind(b"\n") < 0:
                    parts.append(block)
                    continue
                data = b"".join([*parts, block])
                base = position - len(data)
                parts, cut = [], 0
                while True:
                    newline = data.find(b"\n", cut)
                    if newline < 0:
                        break
                    records = parse(self.session_id, data[cut : newline + 1], base + cut, context)
                    self._note(records)
                    items = [self._item(record) for record in records]
                    tail = data[max(0, newline + 1 - MARK_BYTES) : newline + 1]
                    yield Group(base + newline + 1, json.dumps(context), items, tail)
                    cut = newline + 1
                if cut < len(data):
                    parts = [data[cut:]]
            if parts and self.mode == "session_end":
                yield from self._unterminated(parse, b"".join(parts), position, context)

    def _unterminated(self, parse: Any, line: bytes, end: int, context: dict[str, Any]) -> Any:
        """The backstop's last line without its final newline: a record when it is whole
        JSON (a host may never write that newline; `memhub sessions` counts the line too),
        else nothing (it is half-written, and a later flush reads it whole)."""
        from ..transcripts.lines import INVALID, load_line

        if not line.strip() or load_line(line) is INVALID:
            return
        records = parse(self.session_id, line + b"\n", end - len(line), context)
        for record in records:
            # where the line ends once its newline is written: the record keeps one version
            # (one digest for the watermark) whether or not the host ever writes it
            record.end = end + 1
        self._note(records)
        items = [self._item(record) for record in records]
        yield Group(end, json.dumps(context), items, line[-MARK_BYTES:])

    def _item(self, record: Any) -> Item:
        from ..backends.base import digest, storable

        data = record.to_json() if hasattr(record, "to_json") else dict(record)
        if self.remote:
            from .redact import redact

            data = redact(data)
        data, body = storable(data)  # the readers clean their text; this is the backstop
        return Item(data, len(body), digest(body))

    def _note(self, records: list[Any]) -> None:
        """Collect the session's name and working directory from its records, by the same
        title rule as the readers (`titles.fold_title`), so `memhub sessions` and the store
        name a session alike."""
        from ..transcripts.titles import fold_title

        state = self.state
        for record in records:
            raw = record.raw if isinstance(getattr(record, "raw", None), dict) else {}
            titles = state.get("titles")
            if not isinstance(titles, dict):
                titles = state["titles"] = {}
            fold_title(titles, record)
            if state.get("cwd") is None:
                payload = raw.get("payload")
                if not isinstance(payload, dict):
                    payload = raw
                if isinstance(payload.get("cwd"), str):
                    state["cwd"] = payload["cwd"]
            if not state.get("first_prompt") and self._is_prompt(record, raw):
                from ..transcripts.titles import prompt_title

                text = record.text
                if self.host == "codex":
                    text = self._reader().clean_prompt(text) if text else text
                state["first_prompt"] = prompt_title(text)

    def _is_prompt(self, record: Any, raw: dict[str, Any]) -> bool:
        """A typed prompt, by the reader's own rule where it has one."""
        own = getattr(self._reader(), "is_prompt", None)
        if own is not None:
            return bool(own(record, self.path.name.startswith("agent-")))
        return (
            record.role == "user"
            and record.kind in ("message", "event")
            and bool(record.text)
            and not record.sidechain
            and not raw.get("isMeta")
        )

    def _title(self) -> tuple[str | None, str | None]:
        """What the host calls the session (a rename first), else the first prompt."""
        from ..transcripts.titles import choose_title

        if self.given_title:
            return self.given_title, "host"
        if self.host == "codex":
            index = self._codex_index_title()
            if index:
                return index, "host"
        return choose_title(self.state.get("titles") or {}, self.state.get("first_prompt"))

    def _codex_index_title(self) -> str | None:
        reader = self._reader()
        index_title = getattr(reader, "_index_title", None)
        if index_title is None:
            return None
        try:
            home = reader.home_of(self.path) or reader.codex_home()
            return index_title(home, self.session_id)[0]
        except Exception:
            return None

    def _header(self) -> dict[str, Any]:
        title, source = self._title()
        header = {
            "conversation_id": self.conversation,
            "session_id": self.session_id,
            "host": self.host,
            "title": title,
            "title_source": source,
            "cwd": self.given_cwd or self.state.get("cwd"),
            "source": str(self.path),
            "flush": FLUSH_VALUE[self.mode],
        }
        agent_id, parent = self.state.get("subagent") or (None, None)
        if agent_id:  # a subagent transcript: a session of its own, linked to its parent
            header["agent_id"] = agent_id
            header["parent"] = conversation_id(self.host, parent) if parent else None
        if self.remote:
            from .redact import redact

            header = redact(header)
        from ..backends.base import storable_header

        header = storable_header(header)  # a hook payload's title or path may hold surrogates
        if title:
            self.state["title"], self.state["title_source"] = header["title"], source
        return header

    # --- the byte-stream path --------------------------------------------------------------
