"""One record file on disk: read safely (no links, no FIFOs, bounded), checked against the
folder it lies in, and turned into its index document. Stdlib only at import.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .frontmatter import RecordError
from .index import IndexDoc
from .records import Record, is_record_text, parse_record, revision

__all__ = [
    "MAX_RECORD_BYTES",
    "NotARecord",
    "quiet_read",
    "read_bytes",
    "read_record_file",
    "record_doc",
    "same_bytes",
]

MAX_RECORD_BYTES = 8 * 1024 * 1024  # an artifact may be long; a huge file is refused unread


class NotARecord(RecordError):
    """A Markdown file without the record marker: the user's, readable, never rewritten."""


def record_doc(record: Record, path: Path | str, rev: str) -> IndexDoc:
    """The index document of a record."""
    return IndexDoc(
        id=record.id,
        scope=record.scope,
        project=record.project,
        kind=record.kind,
        title=record.title,
        tags=record.tags,
        status=record.status,
        body=record.body,
        path=str(path),
        revision=rev,
        updated=record.updated,
    )


def read_bytes(path: Path) -> bytes | None:
    """A regular file's bytes (never through a link, never a FIFO), None when absent."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise RecordError(
                str(path), None, "a link: memhub never follows links in memory",
                "put the file itself here",
            ) from None  # fmt: skip
        raise RecordError(str(path), None, f"cannot be read ({error.strerror})", "fix it") from None
    try:
        info = os.fstat(fd)  # before fdopen, which refuses a folder with IsADirectoryError
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        what = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise RecordError(str(path), None, what, "move it out of the records folder")
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > MAX_RECORD_BYTES:
            raise RecordError(
                str(path), None, f"larger than {MAX_RECORD_BYTES} bytes", "split or shorten it"
            )
        return handle.read(MAX_RECORD_BYTES + 1)


def read_record_file(path: Path, scope: str, project: str | None) -> tuple[bytes, Record]:
    """The bytes and record of a record file in the folder of (scope, project).

    RecordError when it is not one: malformed, not a record at all (`state` FOREIGN on the
    error), or a record that does not belong where it lies (id vs file name, scope, project).
    """
    data = read_bytes(path)
    if data is None:
        raise FileNotFoundError(str(path))
    if not is_record_text(data):
        raise NotARecord(str(path), None, "not a memhub record", "import it to adopt it")
    record = parse_record(data, str(path))
    if f"{record.id}.md" != path.name:
        raise RecordError(str(path), 1, f"id {record.id} is not the file's name", "rename one")
    if (record.scope, record.project) != (scope, project):
        raise RecordError(
            str(path), 1, "the record's scope does not match its folder", "move the file"
        )
    return data, record


def same_bytes(path: Path, rev: str) -> bool:
    """Whether the file still holds the bytes of revision `rev` (a touch, a racy check)."""
    data = quiet_read(path)
    return data is not None and revision(data) == rev


def quiet_read(path: Path) -> bytes | None:
    """A file's bytes for its revision, None when it cannot be read."""
    try:
        return read_bytes(path)
    except (OSError, RecordError):
        return None
