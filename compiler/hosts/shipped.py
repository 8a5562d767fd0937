"""The hub's shipped files, agents and commands in one host's plugin folder. Pure.

Every host whose bundle is a plugin folder gets the shipped files byte for byte; agents
and commands go where the host has them, in the form its adapter names (a `Writer`), or
become an `unsupported` coverage row with the adapter's reason. Each adapter calls
`with_shipped` once, with its `Shipping`.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from memhub.compiler.artifact import EXEC_MODE, FILE_MODE, Artifact
from memhub.compiler.hosts.base import CoverageRow, CoverageStatus, HostBuild
from memhub.compiler.hosts.common import plugin_dir
from memhub.hubspec.model import Hub, PromptFile, ShippedFile


class Limited(Protocol):
    """A component a hub may limit to some hosts."""

    @property
    def hosts(self) -> tuple[str, ...] | None: ...


@dataclass(frozen=True, slots=True)
class Written:
    """One agent or command as a host has it: its plugin-relative path, bytes, and the
    caveat of the conversion ("" when the host reads the file as the hub has it)."""

    path: str
    content: bytes
    caveat: str = ""


# An agent or command in a host's form.
Writer = Callable[[PromptFile], Written]


@dataclass(frozen=True, slots=True)
class Shipping:
    """How one host carries what a plugin ships: a Writer, or why it has no such thing."""

    host: str
    root: str  # the bundle folder holding this host's plugin copy
    agents: Writer | str
    commands: Writer | str


def for_host(item: Limited, host: str) -> bool:
    """Whether `item` goes to `host` (its `hosts:` limit, when it has one)."""
    return item.hosts is None or host in item.hosts


def as_markdown(folder: str) -> Writer:
    """The host reads `<folder>/<name>.md` as the hub has it, byte for byte."""

    def write(prompt: PromptFile) -> Written:
        return Written(f"{folder}/{prompt.name}.md", prompt.content)

    return write


def dropped_keys(prompt: PromptFile, kept: tuple[str, ...], title: str) -> str:
    """The caveat of a conversion that keeps only `kept` of the front matter ("" if none
    is left out)."""
    left = [key for key in prompt.front if key not in kept]
    return f"front matter {', '.join(left)} left out ({title} has no such key)" if left else ""


LINK_OUT = (
    "a link whose target leaves the plugin folder: it works where the plugin is used from "
    "the bundle (a local marketplace); a copy of the plugin folder alone (a host's plugin "
    "cache, a git-subdir source) finds it dangling"
)


def link_row(host: str, item: ShippedFile) -> CoverageRow | None:
    """A caveat for a shipped link reaching out of its plugin folder (None otherwise)."""
    if item.link is None:
        return None
    reached = posixpath.normpath(posixpath.join(posixpath.dirname(item.path), item.link))
    if reached != ".." and not reached.startswith("../"):
        return None
    return CoverageRow(host, "file", item.path, "caveat", f"{item.path} -> {item.link}", LINK_OUT)


def with_shipped(
    hub: Hub, how: Shipping, artifacts: Iterable[Artifact], rows: Iterable[CoverageRow]
) -> HostBuild:
    """The adapter's build with the hub's shipped files, agents and commands added."""
    base = plugin_dir(hub, how.root)
    produced = list(artifacts)
    coverage = list(rows)
    produced += [
        Artifact(
            f"{base}/{item.path}",
            item.content,
            EXEC_MODE if item.executable else FILE_MODE,
            (how.host,),
            item.link,
            item.origin if item.link is not None else None,
        )
        for item in hub.files
        if for_host(item, how.host)
    ]
    for item in hub.files:
        row = link_row(how.host, item) if for_host(item, how.host) else None
        coverage += [row] if row is not None else []
    for component, items, writer in (
        ("agent", hub.agents, how.agents),
        ("command", hub.commands, how.commands),
    ):
        for prompt in items:
            if not for_host(prompt, how.host):
                continue
            if isinstance(writer, str):
                coverage.append(
                    CoverageRow(how.host, component, prompt.name, "unsupported", "-", writer)
                )
                continue
            written = writer(prompt)
            produced.append(Artifact(f"{base}/{written.path}", written.content, owners=(how.host,)))
            status: CoverageStatus = "caveat" if written.caveat else "mapped"
            coverage.append(
                CoverageRow(how.host, component, prompt.name, status, written.path, written.caveat)
            )
    return HostBuild(tuple(produced), tuple(coverage))
