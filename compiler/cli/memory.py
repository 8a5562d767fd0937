"""`memhub memory ...`: the local memory's records, over the memory service.

Each subcommand lives in a helper module and is imported only when it runs (`memory search`
never loads the write path). The service (runtime/memory/service.py) does the work; these
commands parse, call it, preview plans and print.
"""

from __future__ import annotations

import click
from memhub.compiler.cli.memory_common import MemoryGroup

# subcommand -> "module:attribute" under memhub.compiler.cli
SUBCOMMANDS = {
    "list": "memory_read:list_command",
    "get": "memory_read:get_command",
    "search": "memory_read:search_command",
    "index": "memory_read:index_command",
    "add": "memory_write:add_command",
    "edit": "memory_write:edit_command",
    "rm": "memory_write:rm_command",
    "accept": "memory_write:accept_command",
    "import": "memory_move:import_command",
    "export": "memory_move:export_command",
}


@click.group("memory", cls=MemoryGroup, lazy=SUBCOMMANDS)
def command() -> None:
    """Search, add and edit the local memory's records.

    Records live under $MEMHUB_HOME/memory. A record is one Markdown file with YAML front matter (kind, title, tags, triggers,
    source). The project is the one of the working directory's git checkout (`memhub
    project connect` binds it); --project DIR reads another's. Shared records are seen by
    every project that enables them (`memhub project connect --no-shared` turns them off).

    Writes (add, edit, rm, accept, import, export) show their plan first and write only
    with --yes, or on a terminal after you answer yes. edit and rm take the --revision
    `memhub memory get --json` printed: if the file changed since (an editor, another
    process), nothing is written and the exit code is 3. Each write is one run in
    memhub's journal: `memhub undo` reverts the last one (`memhub history` lists them).
    With --json a write prints {plan: {changes, notes}, written, result: {run, changed}}.

    \b
    Examples:
      memhub memory add --kind fact --title "CI runs on Python 3.12" --body "..." --yes
      memhub memory search "connection refused" --kind lesson
      memhub memory get r-20260101120000-0a1b2c3d --json
    """
