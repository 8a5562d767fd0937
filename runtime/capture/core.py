"""Session capture: ship each host's transcript to a backend in bounded, acknowledged deltas.

This module is capture's public face; the work is in one module per job beside it:
`settings` (paths, the backend, the log), `state` (a session's cursor file and lock),
`watermark` (SQLite), `sources` (which transcripts may be read), `flush` (one flush under
the session's lock), `reading` and `sending` (one session's flush: records in, payloads
out), `health` (what is broken, `status`; `handlers.py` keeps the hook's
memo of a healthy verdict).

Stdlib only, relative imports only (bundles vendor this folder). Importing this module is
cheap: the readers, SQLite and the backends load only when a flush actually runs, so
`pending()` can serve as a hook's prefilter.

State, under `$MEMHUB_HOME/capture/`:

- `<host>-<session>.json`: the session's byte cursor (`offset`, the end of the last record
  the backend acknowledged), its `mark` (the digest of the bytes just before it, so a file
  rewritten in place is noticed), the reader's `context` at that offset, the payload cap, title,
  counters and the last error. Written atomically (temp file + rename), 0600.
- `<host>-<session>.lock`: an fcntl lock held for the whole flush, so concurrent hook
  processes on one session take turns.
- `watermark.sqlite`: per backend and conversation id, every record id acknowledged and the
  digest of the version sent. A record already acknowledged in the same version is never
  sent again; a new version of an id (Gemini rewrites messages) is.

A flush (`flush(host, session_id, transcript_path, mode)`):

- reads from the cursor to the last complete newline (a half-written last line waits);
- cuts payloads at record boundaries under the session's cap (`MEMHUB_CAPTURE_CAP`, default
  3.5 MB); a record larger than the cap goes alone;
- sends one payload (`turn`) or all of them (`commit`, `session_end`, within a deadline);
- moves the cursor only after the backend acknowledged the payload, to the end of the last
  record it confirmed (`ack_through`), then records the ids in the watermark;
- on 413 halves the session's cap (persisted) and retries smaller; a single record refused
  with 413 is stepped over and logged (`stepped_over` in the state), not retried forever;
- on any other failure leaves the cursor where it was and records the error (see `health`).

Capture reads only regular files under the host's own transcript folders (`admit`): a hook
payload is untrusted input, and a path elsewhere (or a link out, or a FIFO) is refused and
logged, never opened.

Modes: `turn` (the per-turn delta, `flush: "auto"`), `commit` (after a real `git commit`,
`gh pr create` or `gh pr merge`: everything pending, `flush: "now"`), `session_end` (the
backstop: the whole transcript from its first byte, deduplicated by the watermark, so it
captures a session whose per-turn path never worked; it moves the cursor forward only).

Codex threads Codex runs for itself (`thread_source` subagent, guardian_review,
memory_consolidation) are skipped; an unknown value is captured and logged.
`MEMHUB_CAPTURE=0` (or off/false/no) turns capture off. Failures go to
`$MEMHUB_HOME/logs/capture.log`.

Backend: `MEMHUB_BACKEND=local|remote` and `MEMHUB_REMOTE_URL`, else
`$MEMHUB_HOME/capture.json` (`{"backend": "remote", "remote_url": "https://..."}`), else
the local store.
"""

from .flush import flush
from .health import health, recent_failures, status
from .sending import FlushResult
from .settings import (
    FAULT_EXIT,
    HOSTS,
    MODES,
    backend_config,
    capture_dir,
    conversation_id,
    enabled,
    log,
    log_path,
    memhub_home,
    open_backend,
)
from .sources import admit, open_transcript, transcript_roots
from .state import all_states, load_state, pending, state_path
from .watermark import Watermark

__all__ = [
    "FAULT_EXIT",
    "HOSTS",
    "MODES",
    "FlushResult",
    "Watermark",
    "admit",
    "all_states",
    "backend_config",
    "capture_dir",
    "conversation_id",
    "enabled",
    "flush",
    "health",
    "load_state",
    "log",
    "log_path",
    "memhub_home",
    "open_backend",
    "open_transcript",
    "pending",
    "recent_failures",
    "state_path",
    "status",
    "transcript_roots",
]
