"""The exit codes of every verb; `memhub --help` lists them. No click: a plain apply needs
them before (and without) the command tree."""

EXIT_OK = 0  # done; nothing found
EXIT_CHANGES = 1  # changes found (diff --exit-code), a check failed, or nothing confirmed
EXIT_INVALID = 2  # invalid input or usage
EXIT_STALE = 3  # a target or input changed since it was read or planned; nothing written
EXIT_INCOMPLETE = 4  # some sources could not be read (sessions)
EXIT_NOTHING = EXIT_CHANGES  # nothing to undo (undo): not a success a script should miss
EXIT_UNEXPECTED = 70  # a memhub bug: a crash log is written
EXIT_INTERRUPTED = 130  # interrupted (Ctrl-C)

EXIT_CODES = (
    (EXIT_OK, "ok"),
    (
        EXIT_CHANGES,
        "changes found (diff --exit-code), a check failed (doctor), not confirmed, "
        "or nothing to undo",
    ),
    (EXIT_INVALID, "invalid input or usage, or a conflict (plan, apply)"),
    (EXIT_STALE, "a target or input changed since it was read or planned: nothing written"),
    (EXIT_INCOMPLETE, "incomplete: a source could not be read (sessions)"),
    (EXIT_UNEXPECTED, "unexpected error (a crash log is written; --debug shows the traceback)"),
    (EXIT_INTERRUPTED, "interrupted"),
)
