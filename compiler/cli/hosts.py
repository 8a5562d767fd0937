"""`memhub hosts`: the supported hosts and how each carries logical events and tool classes."""

from __future__ import annotations

from typing import Any

import click
from memhub.compiler.cli.options import EXIT_OK, json_option, reply
from memhub.compiler.hosts import ADAPTERS


def hosts_data() -> list[dict[str, Any]]:
    """One record per host adapter: name, title, summary, events and tool classes."""
    return [
        {
            "name": adapter.name,
            "title": adapter.title,
            "summary": adapter.summary,
            "events": {
                event: {
                    "host_event": support.host_event,
                    "caveat": support.caveat,
                    "unsupported": support.unsupported,
                }
                for event, support in adapter.EVENTS.items()
            },
            "tools": {k: list(v) if v else None for k, v in adapter.TOOLS.items()},
        }
        for adapter in ADAPTERS.values()
    ]


@click.command("hosts")
@json_option
def command(as_json: bool) -> int:
    """List supported hosts and how each carries logical events and tool classes."""
    data = hosts_data()
    if as_json:
        return reply(data)
    for host in data:
        click.echo(f"{host['name']}  ({host['title']}): {host['summary']}")
        for event, support in host["events"].items():
            target = support["host_event"] or f"unsupported: {support['unsupported']}"
            note = f"  ({support['caveat']})" if support["caveat"] else ""
            click.echo(f"  {event:<20} {target}{note}")
        if host["tools"]:
            tools = ", ".join(f"{k}={'|'.join(v) if v else '-'}" for k, v in host["tools"].items())
            click.echo(f"  tools: {tools}")
        click.echo()
    return EXIT_OK
