"""A flush's sending: payloads under the cap, acknowledgements, the cursor moving forward."""

from __future__ import annotations

import json
import os
import time
from typing import Any

from .reading import Group, Item, Reading, mark_digest
from .settings import DEFAULT_CAP, MIN_CAP, STEPPED_KEEP, env_int, log, now
from .sources import initial_context
from .state import fault, load_state, new_state, save_state
from .watermark import Watermark


class FlushResult:
    """What one flush did. `status`: ok, nothing, disabled, skipped, busy, refused (the
    transcript is not a regular file under the host's transcript folders) or failed."""

    __slots__ = ("cursor", "error", "payloads", "sent", "status", "stepped_over")

    def __init__(self, status: str, **values: Any):
        self.status = status
        self.sent = values.get("sent", 0)
        self.payloads = values.get("payloads", 0)
        self.cursor = values.get("cursor", 0)
        self.stepped_over = values.get("stepped_over", 0)
        self.error = values.get("error")

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __repr__(self) -> str:
        return f"FlushResult({self.as_dict()})"


class Flush(Reading):
    """One session's flush: read from the cursor, send, move the cursor (see `core`)."""

    def run(self) -> FlushResult:

        state = load_state(self.host, self.session_id) or new_state(
            self.host, self.session_id, self.path
        )
        self.state = state
        try:
            info = os.stat(self.path)
        except OSError as exc:
            raise OSError(f"transcript not readable: {exc}") from exc
        if state.get("skip"):
            return FlushResult("skipped", cursor=state.get("offset", 0), error=state["skip"])
        reader = self._reader()
        if self.host == "codex" and not self._codex_allowed(state):
            return FlushResult(
                "skipped" if state.get("skip") else "nothing", cursor=state.get("offset", 0)
            )
        if state.get("subagent") is None:  # [agent id, parent session] or [None, None]
            subagent_of = getattr(reader, "subagent_of", None)
            state["subagent"] = list(subagent_of(self.path)) if subagent_of else [None, None]
        if state.get("initial_context") is None:
            state["initial_context"] = initial_context(reader, self.path)
        if state.get("cap") is None:
            state["cap"] = env_int("MEMHUB_CAPTURE_CAP", DEFAULT_CAP)
        offset = int(state.get("offset") or 0)
        rewritten = self._rewritten(info, offset)
        if rewritten:
            log(
                f"{self.host} {self.session_id}: transcript rewritten ({rewritten});"
                " reading it again from the start (the watermark drops what was stored)"
            )
            offset = 0
            state["mark"] = None
            state["context"] = None
            state["initial_context"] = initial_context(reader, self.path)
        fresh = state.get("inode") != info.st_ino
        state["inode"] = info.st_ino
        state["offset"] = offset
        state["transcript"] = str(self.path)
        if fresh:  # persist the reader's initial context before anything is sent
            save_state(state)
        self.watermark = Watermark()
        try:
            if not hasattr(reader, "parse_lines") or self.path.suffix not in (".jsonl", ""):
                return self._whole_source(reader)
            return self._stream(reader, info.st_size)
        finally:
            self.watermark.close()

    def _stream(self, reader: Any, size: int) -> FlushResult:
        state = self.state
        if self.mode == "session_end":
            start = 0
            context = json.loads(json.dumps(state["initial_context"]))
        else:
            start = int(state["offset"])
            context = state.get("context") or json.loads(json.dumps(state["initial_context"]))
        if start >= size:
            return FlushResult("nothing", cursor=state["offset"])
        groups = self._groups(reader, start, size, context)
        ahead: list[Group] = []  # read, not yet placed in a payload (oldest first)
        exhausted = force_single = False
        while True:
            payload: list[Group] = []
            payload_bytes = 0
            while True:
                if ahead:
                    group = ahead.pop(0)
                else:
                    found = next(groups, None)
                    if found is None:
                        exhausted = True
                        break
                    group = found
                    group.items = self._unsent(group.items)
                    group.size = sum(item.size for item in group.items)
                if payload_bytes and (
                    payload_bytes + group.size > state["cap"] or (force_single and group.size)
                ):
                    ahead.insert(0, group)
                    break
                if not group.size and not payload_bytes:
                    payload = [group]  # only the last of a run of empty lines matters
                else:
                    payload.append(group)
                    payload_bytes += group.size
            if not payload:
                break
            if not payload_bytes:
                # nothing to send (blank lines, records already acknowledged): move past them
                self._advance(payload[-1], acked=[])
            elif time.monotonic() > self.deadline:
                log(f"{self.host} {self.session_id}: {self.mode} flush stopped at its deadline")
                break
            else:
                outcome = self._send(payload, payload_bytes)
                if outcome == "too-large":  # the cap is halved: rebuild smaller
                    ahead[:0] = payload
                    force_single = state["cap"] >= payload_bytes
                    continue
                force_single = False
                if self.mode == "turn" and outcome == "sent":
                    break
            if exhausted and not ahead:
                break
        return self._done()

    def _unsent(self, items: list[Item], stream: bool = True) -> list[Item]:
        """The items the backend has not acknowledged. In a byte stream, every version of
        a rewritten record is a line of its own: one is unsent unless that very line was
        acknowledged. A whole source holds one version per id: it is unsent unless it is
        the latest acknowledged (a record changed back is sent again)."""
        if not items:
            return items
        assert self.watermark is not None
        ids = [item.id for item in items]
        if stream:
            acked = self.watermark.versions(self.mark_key, ids)
            return [item for item in items if item.digest not in acked.get(item.id, ())]
        known = self.watermark.known(self.mark_key, ids)
        return [item for item in items if known.get(item.id) != item.digest]

    def _send(self, payload: list[Group], payload_bytes: int) -> str:
        """Send one payload: 'sent', 'stepped' (refused for size) or 'too-large' (cap halved).

        A partial or unconfirmed ack raises BackendError after saving what was confirmed.
        """
        from ..backends.base import PayloadTooLarge

        state = self.state
        items = [item for group in payload for item in group.items]
        header = self._header()
        try:
            ack = self.backend.import_conversation(header, [item.record for item in items])
        except PayloadTooLarge:
            sending = [g for g in payload if g.items]
            if len(sending) == 1 and len(sending[0].items) >= 1:
                self._step_over(payload, payload_bytes)
                return "stepped"
            old = state["cap"]
            state["cap"] = max(MIN_CAP, min(old, payload_bytes) // 2)
            log(
                f"{self.host} {self.session_id}: 413 for {payload_bytes} bytes in"
                f" {len(items)} records; payload cap {old} -> {state['cap']}"
            )
            save_state(state)
            return "too-large"
        fault("after_send")
        through = ack.get("ack_through") if isinstance(ack, dict) else None
        if not isinstance(ack, dict) or ack.get("conversation_id") != self.conversation:
            from ..backends.base import BackendError

            raise BackendError("the backend's ack does not name this conversation")
        ids = [item.id for item in items]
        confirmed = payload if through == ids[-1] else self._confirmed_prefix(payload, through)
        acked = [item for group in confirmed for item in group.items]
        if acked:
            assert self.watermark is not None
            self.watermark.add(self.mark_key, [(item.id, item.digest) for item in acked])
            fault("after_watermark")
        if confirmed:
            self._advance(confirmed[-1], acked)
        self.sent += len(acked)
        self.payloads += 1 if acked else 0
        if len(confirmed) < len(payload):
            from ..backends.base import BackendError

            raise BackendError(
                f"the backend confirmed {len(acked)} of {len(items)} records"
                f" (ack_through {through!r})"
            )
        return "sent"

    @staticmethod
    def _confirmed_prefix(payload: list[Group], through: Any) -> list[Group]:
        """The groups wholly at or before the record `through` (None: nothing)."""
        if not isinstance(through, str):
            return []
        last = None
        for index, group in enumerate(payload):
            if any(item.id == through for item in group.items):
                last = index
        if last is None:
            return []
        group = payload[last]
        # a line is confirmed only when its last record is
        whole = group.items and group.items[-1].id == through
        return payload[: last + 1] if whole else payload[:last]

    def _step_over(self, payload: list[Group], payload_bytes: int) -> None:
        state = self.state
        ids = [item.id for group in payload for item in group.items]
        log(
            f"{self.host} {self.session_id}: stepped over {len(ids)} record(s)"
            f" {', '.join(ids[:5])} ({payload_bytes} bytes): too large for the backend"
        )
        stepped = list(state.get("stepped_over") or [])
        stepped.append({"ids": ids[:20], "bytes": payload_bytes, "at": now()})
        state["stepped_over"] = stepped[-STEPPED_KEEP:]
        self.stepped += len(ids)
        self._advance(payload[-1], acked=[])

    def _advance(self, group: Group, acked: list[Item]) -> None:
        """Move the cursor to `group.end` (forward only) and save the state."""
        state = self.state
        if group.end > int(state["offset"]):
            state["offset"] = group.end
            state["context"] = json.loads(group.context)
            if group.tail:
                tail = group.tail
                state["mark"] = {"at": group.end, "len": len(tail), "digest": mark_digest(tail)}
            else:
                state["mark"] = None
        if acked:
            state["records_acked"] = int(state.get("records_acked") or 0) + len(acked)
            state["payloads"] = int(state.get("payloads") or 0) + 1
            state["last_ok_at"] = now()
            state["last_error"] = state["last_error_detail"] = state["last_error_at"] = None
            state["fail_streak"] = 0
        save_state(state)
        self.saved = True

    def _done(self) -> FlushResult:
        state = self.state
        if not self.saved:
            save_state(state)
        if self.sent or self.stepped:
            log(
                f"{self.host} {self.session_id}: {self.mode} +{self.sent} records in"
                f" {self.payloads} payload(s), cursor {state['offset']}"
                + (f", stepped over {self.stepped}" if self.stepped else "")
            )
        return FlushResult(
            "ok" if self.sent or self.stepped else "nothing",
            sent=self.sent,
            payloads=self.payloads,
            cursor=state["offset"],
            stepped_over=self.stepped,
        )

    # --- sources that are not byte streams (Cursor store.db, Gemini .json) --------------------

    def _whole_source(self, reader: Any) -> FlushResult:
        session, records = reader.read_session(self.path)
        if session.title:
            key = "user" if session.title_source == "user" else session.title_source or "host"
            key = "host" if key == "prompt" else key
            if session.title_source == "prompt":
                self.state["first_prompt"] = session.title
            else:
                self.state["titles"] = {**(self.state.get("titles") or {}), key: session.title}
        if session.cwd and not self.state.get("cwd"):
            self.state["cwd"] = session.cwd
        # one group per record; the "offset" counts records for display only
        groups = []
        for index, record in enumerate(records, 1):
            groups.append(Group(index, "null", [self._item(record)]))
        payload: list[Group] = []
        payload_bytes = 0
        queue = groups
        while queue:
            group = queue.pop(0)
            group.items = self._unsent(group.items, stream=False)
            group.size = sum(item.size for item in group.items)
            if payload and payload_bytes + group.size > self.state["cap"]:
                queue.insert(0, group)
            else:
                payload.append(group)
                payload_bytes += group.size
                if queue:
                    continue
            if payload_bytes:
                outcome = self._send(payload, payload_bytes)
                if outcome == "too-large":
                    queue[:0] = payload
            payload, payload_bytes = [], 0
            if time.monotonic() > self.deadline:
                break
        self.state["offset"] = 0
        return self._done()
