"""What the memory service refuses, as one exception family the CLI and MCP server map to
exit codes and tool errors.

Every error carries a message (what, naming the record), a fix (what to do) and an exit code.
No message ever names another project's id or name: an id outside the caller's scopes reads
exactly like one that does not exist. Stdlib only (vendored).
"""

from __future__ import annotations

__all__ = [
    "BodyTooLarge",
    "DuplicateRecord",
    "ImportConflict",
    "IndexDamaged",
    "MemoryServiceError",
    "NoProject",
    "NotFound",
    "ReadOnly",
    "StaleRevision",
    "Unwritable",
]


class MemoryServiceError(Exception):
    """A refused memory operation: `message`, `fix` and the CLI's `exit_code`."""

    exit_code = 1

    def __init__(self, message: str, fix: str = "", *, exit_code: int | None = None) -> None:
        self.message = message
        self.fix = fix
        if exit_code is not None:
            self.exit_code = exit_code
        super().__init__(f"{message}: {fix}" if fix else message)


class NotFound(MemoryServiceError):
    """A record that is absent or outside the caller's scopes (the same text for both)."""

    def __init__(self, record_id: str) -> None:
        self.record_id = record_id
        super().__init__(
            f"no record {_shown(record_id)} in this memory",
            "`memhub memory list` shows the records you can see",
        )


class StaleRevision(MemoryServiceError):
    """The record changed since the caller read it: the expected revision is not current."""

    exit_code = 3

    def __init__(self, record_id: str, expected: str | None, current: str | None) -> None:
        self.record_id, self.expected, self.current = record_id, expected, current
        super().__init__(
            f"record {record_id} changed: expected revision {expected or '(absent)'},"
            f" it is now {current or '(deleted)'}",
            "read it again (`memhub memory get`) and redo the change with the new revision",
        )


class DuplicateRecord(MemoryServiceError):
    """The new record says what an existing active one says."""

    def __init__(self, existing_id: str, how: str = "the same title and body") -> None:
        self.existing_id = existing_id
        super().__init__(
            f"record {existing_id} already holds {how}",
            "edit that record, or add this one anyway with --force",
        )


class NoProject(MemoryServiceError):
    """The caller's folder files under no project (the Resolution's message says why)."""

    def __init__(self, message: str) -> None:
        super().__init__(
            message or "no project is resolved here",
            "run `memhub project connect` in the checkout, or use --scope shared",
        )


class ImportConflict(MemoryServiceError):
    """A source imported before has changed since: the user decides, memhub never overwrites."""

    exit_code = 3

    def __init__(self, conflicts: list[tuple[str, str]]) -> None:
        self.conflicts = list(conflicts)  # (origin, record id of its earlier import)
        listed = "; ".join(f"{origin} (imported as {rid})" for origin, rid in self.conflicts)
        super().__init__(
            f"changed since their import: {listed}",
            "edit the imported record, or remove it and import again",
        )


class ReadOnly(MemoryServiceError):
    """A write asked of a workspace opened read-only."""

    exit_code = 2

    def __init__(self, what: str = "this change") -> None:
        super().__init__(
            f"{what} needs write access and this memory was opened read-only",
            "enable write tools in the configuration, or use the CLI",
        )


class Unwritable(MemoryServiceError):
    """memhub's own folder refused a write (permissions, a read-only or full disk). Exit 2,
    as the write layer's own WriteError for the same failure (compiler/safewrite).

    Nothing was changed: a write is one transaction, rolled back when any part fails."""

    exit_code = 2

    def __init__(self, path: object, reason: str, *, full: bool = False) -> None:
        self.path = str(path)
        fix = (
            "free space on the disk that holds it (or point MEMHUB_HOME at another disk), "
            "then run the command again"
            if full
            else "make it writable (`chmod u+w` on it and its folder, or remount the disk "
            "read-write) or point MEMHUB_HOME at a folder you can write"
        )
        super().__init__(
            f"cannot write {self.path}: {reason}; nothing was changed, and reads still work",
            fix,
        )

    @classmethod
    def from_os(cls, error: OSError, where: object) -> Unwritable:
        """The error for an OSError of the disk (`where`: the path when it names none)."""
        import errno

        full = error.errno in (errno.ENOSPC, errno.EDQUOT)
        return cls(error.filename or where, error.strerror or str(error), full=full)


class IndexDamaged(MemoryServiceError):
    """The search index file is damaged in a way only a full rebuild repairs: exit 4, a
    source that could not be read (the records themselves are untouched)."""

    exit_code = 4

    def __init__(self, path: object, reason: str) -> None:
        self.path = str(path)
        super().__init__(
            f"the search index {self.path} is damaged ({reason}); the records are untouched",
            "run `memhub memory index --rebuild` (it is made again from the record files)",
        )


def _shown(value: object) -> str:
    """An id for a message, cut short (a hostile 10k-character id stays readable)."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:60] + "..."


class BodyTooLarge(MemoryServiceError):
    """A record body over records.MAX_BODY_BYTES: refused before anything is planned."""

    exit_code = 2

    def __init__(self, size: int, limit: int) -> None:
        self.size, self.limit = size, limit
        super().__init__(
            f"the body is {size:,} bytes of UTF-8, over the {limit:,}-byte ({limit // 1024} KiB)"
            " limit of a record body",
            "split it into several records, or keep the document in a file (in the"
            " repository) and save its path and a summary",
        )
