"""The words a record's front matter chooses from: its kind, its source's kind, its status.

A module of its own (stdlib, nothing else) so a plain `memhub memory search` can name the
kinds without importing the record parser (compiler/cli/memory_search.py).
"""

KINDS = ("fact", "preference", "decision", "lesson", "procedure", "artifact")
DIRECTIVES = ("lesson", "procedure")  # the kinds that carry triggers and steer sessions
SOURCE_KINDS = ("user", "agent", "import", "tool-output")
STATUSES = ("active", "proposed", "superseded")
