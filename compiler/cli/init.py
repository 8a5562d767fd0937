"""`memhub init`: a starter hub that validates and builds with no warning."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import click
from memhub.compiler.cli.options import EXIT_OK, json_option, reply
from memhub.compiler.errors import OutputError
from memhub.hubspec.schema_check import hub_schema
from memhub.templates import render


def _kebab(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words)[:64].strip("-") or "my-hub"


def init_hub(directory: Path, name: str | None = None) -> list[Path]:
    """Write the starter files into `directory`; refuse if a hub is already there."""
    plugin = _kebab(name or directory.absolute().name)
    if name is not None and plugin != name:
        raise OutputError(f"--name {name!r} is not kebab-case. Fix: use e.g. {plugin!r}")
    if (directory / "hub.yaml").exists():
        raise OutputError(
            f"{directory / 'hub.yaml'}: a hub already exists. Fix: edit it, or "
            "choose an empty folder"
        )
    title = plugin.replace("-", " ").title()
    context = {
        "name": plugin,
        "title": title,
        "author": title,
        "skill": f"{plugin}-help",
        "hub_id": uuid.uuid4().hex,  # random, so two hubs of one plugin name stay apart
    }
    files = {
        "hub.yaml": render("init/hub.yaml.j2", **context),
        f"skills/{plugin}-help/SKILL.md": render("init/SKILL.md.j2", **context),
        ".gitignore": render("init/gitignore.j2", **context),
        ".memhub/hub.schema.json": json.dumps(hub_schema(), indent=2) + "\n",
    }
    written = []
    for rel, text in files.items():
        target = directory / rel
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, "utf-8")
        written.append(target)
    return written


def next_steps(directory: Path) -> list[dict[str, str]]:
    """What to run after `init`, for each way of using a hub."""
    return [
        {"use": "check it", "run": f"memhub validate {directory}"},
        {
            "use": "publish it as a bundle",
            "run": f"memhub build {directory} --out {directory}/dist",
        },
        {
            "use": "use it in your own hosts",
            "run": f"memhub diff {directory} --scope user, then memhub apply {directory}",
        },
    ]


@click.command("init")
@click.argument("directory", required=False, default=".", type=click.Path(path_type=Path))
@click.option("--name", help="Plugin name (kebab-case). Default: from the folder name.")
@json_option
def command(directory: Path, name: str | None, as_json: bool) -> int:
    """Create a working starter hub in DIRECTORY (never overwrites).

    Ends with the next steps for both uses: a bundle to publish (`memhub build`), or your
    own hosts' config (`memhub diff --scope`, then `memhub apply`).
    """
    created = init_hub(directory, name)
    steps = next_steps(directory)
    if as_json:
        data = {"directory": str(directory), "created": [str(p) for p in created], "next": steps}
        return reply(data)
    for path in created:
        click.echo(f"create  {path}")
    click.echo("\nNext:")
    width = max(len(step["use"]) for step in steps)
    for step in steps:
        click.echo(f"  to {step['use'] + ':':<{width + 1}}  {step['run']}")
    return EXIT_OK
