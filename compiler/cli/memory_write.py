"""`memhub memory add | edit | rm | accept`: planned writes, previewed, written with --yes.

The service plans (and refuses: a duplicate, a stale revision, an id outside your scopes);
these commands only gather the arguments and hand the plan to `confirm_and_apply`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from memhub.compiler.cli.memory_common import (
    apply_options,
    json_option,
    open_service,
    project_option,
    yes_option,
)
from memhub.compiler.cli.memory_input import TRIGGER_HELP, InputError, parse_triggers, read_body
from memhub.compiler.cli.memory_show import confirm_and_apply
from memhub.runtime.memory.records import KINDS, MAX_BODY_BYTES

if TYPE_CHECKING:
    from memhub.runtime.memory.service import MemoryService

body_options = [
    click.option(
        "--body",
        metavar="TEXT",
        help=f"The record's text (Markdown, at most {MAX_BODY_BYTES // 1024} KiB of UTF-8).",
    ),
    click.option(
        "--file",
        "body_file",
        metavar="F",
        help="Read the text from file F (`-`: stdin). A folder, a FIFO or a file over "
        f"{MAX_BODY_BYTES // 1024} KiB is refused. Example: --file notes/db.md",
    ),
]
trigger_option = click.option(
    "--trigger", "triggers", multiple=True, metavar="T", help=TRIGGER_HELP
)
tags_option = click.option(
    "--tag", "tags", multiple=True, metavar="TAG", help="A tag (repeatable). Example: --tag db"
)
revision_option = click.option(
    "--revision",
    required=True,
    metavar="REV",
    help="The revision you read (`memhub memory get ID --json` prints it): if the file "
    "changed since, nothing is written (exit 3).",
)


@click.command("add")
@click.option("--kind", required=True, type=click.Choice(KINDS), help="What the record is.")
@click.option("--title", required=True, metavar="TITLE", help="One line naming what it says.")
@apply_options([trigger_option, tags_option, *body_options])
@click.option(
    "--scope",
    type=click.Choice(["project", "shared"]),
    default="project",
    show_default=True,
    help="Where it goes: the current project, or `shared` (seen by every project that "
    "enables shared memory; must be asked for).",
)
@click.option("--supersedes", metavar="ID", help="The record this one replaces (kept, marked).")
@click.option(
    "--name",
    metavar="NAME",
    help="Artifacts: the document's stable name; saving a name again supersedes the last.",
)
@click.option("--force", is_flag=True, help="Add it even if an active record says the same.")
@apply_options([yes_option, project_option, json_option])
def add_command(
    kind: str,
    title: str,
    triggers: tuple[str, ...],
    tags: tuple[str, ...],
    body: str | None,
    body_file: str | None,
    scope: str,
    supersedes: str | None,
    name: str | None,
    force: bool,
    yes: bool,
    project: Path | None,
    as_json: bool,
) -> int:
    """Add a record (a plan first; written with --yes or your yes on a terminal).

    A record that says what an active one says (same title and body, or nearly) is
    refused unless --force. Triggers are for lessons and procedures.

    \b
    Examples:
      memhub memory add --kind fact --title "Staging DB is Postgres 16" --body "..." --yes
      memhub memory add --kind lesson --title "Run migrations first" \\
          --trigger "cmd:alembic upgrade" --trigger "path:migrations/**" --file - < note.md
    """
    from memhub.runtime.memory.plans import Draft

    text = read_body(body, body_file, required=True)
    assert text is not None  # required=True
    service = open_service(project)
    _need_project(service, scope)
    draft = Draft(
        kind=kind,
        title=title,
        body=text,
        tags=tags,
        triggers=parse_triggers(triggers),
        scope=scope,
        name=name,
        supersedes=supersedes,
    )
    plan = service.plan_add(draft, force=force)
    return confirm_and_apply(service, plan, yes=yes, as_json=as_json)


def _need_project(service: MemoryService, scope: str) -> None:
    """Refuse a write to a scope this workspace lacks, saying why: no project resolves here
    (NoProject, with the resolution's message), or the project does not read shared records."""
    from memhub.runtime.memory.errors import MemoryServiceError, NoProject

    workspace = service.workspace
    if scope == "project" and workspace.project_id is None:
        raise NoProject(workspace.message)
    if scope == "shared" and "shared" not in workspace.scopes:
        raise MemoryServiceError(
            f"project {workspace.project_id} does not read shared records, so it cannot write one",
            "`memhub project connect --shared` enables them for it",
        )


@click.command("edit")
@click.argument("record_id", metavar="ID")
@revision_option
@click.option("--title", metavar="TITLE", help="A new title.")
@apply_options([*body_options, tags_option, trigger_option])
@click.option("--clear-tags", is_flag=True, help="Remove every tag (then add any --tag given).")
@click.option(
    "--clear-triggers", is_flag=True, help="Remove every trigger (then add any --trigger given)."
)
@apply_options([yes_option, project_option, json_option])
def edit_command(
    record_id: str,
    revision: str,
    title: str | None,
    body: str | None,
    body_file: str | None,
    tags: tuple[str, ...],
    triggers: tuple[str, ...],
    clear_tags: bool,
    clear_triggers: bool,
    yes: bool,
    project: Path | None,
    as_json: bool,
) -> int:
    """Change a record's title, body, tags or triggers (given tags and triggers replace
    the old ones; --clear-tags, --clear-triggers remove them). A stale --revision exits 3
    naming the record.

    Example: memhub memory edit r-20260101120000-0a1b2c3d --revision 3f2a... --title "..."
    """
    text = read_body(body, body_file, required=False)
    if title is None and text is None and not (tags or triggers or clear_tags or clear_triggers):
        raise InputError(
            "nothing to change. Fix: pass --title, --body/--file, --tag, --trigger, "
            "--clear-tags or --clear-triggers"
        )
    service = open_service(project)
    plan = service.plan_edit(
        record_id,
        revision=revision,
        title=title,
        body=text,
        tags=tags if tags or clear_tags else None,
        triggers=parse_triggers(triggers) if triggers or clear_triggers else None,
    )
    return confirm_and_apply(service, plan, yes=yes, as_json=as_json)


@click.command("rm")
@click.argument("record_id", metavar="ID")
@revision_option
@apply_options([yes_option, project_option, json_option])
def rm_command(
    record_id: str, revision: str, yes: bool, project: Path | None, as_json: bool
) -> int:
    """Delete a record's file; the plan shows the text that goes. A stale --revision exits
    3 naming the record.

    Example: memhub memory rm r-20260101120000-0a1b2c3d --revision 3f2a... --yes
    """
    service = open_service(project)
    plan = service.plan_remove(record_id, revision=revision)
    return confirm_and_apply(service, plan, yes=yes, as_json=as_json)


@click.command("accept")
@click.argument("record_id", metavar="ID")
@click.option("--revision", metavar="REV", help="The revision you reviewed (optional).")
@apply_options([yes_option, project_option, json_option])
def accept_command(
    record_id: str, revision: str | None, yes: bool, project: Path | None, as_json: bool
) -> int:
    """Make a proposed directive active (an agent's lesson or procedure fires only once a
    person accepts it). Example: memhub memory accept r-20260101120000-0a1b2c3d --yes
    """
    service = open_service(project)
    plan = service.plan_accept(record_id, revision=revision)
    return confirm_and_apply(service, plan, yes=yes, as_json=as_json)
