"""The HostAdapter protocol and the records every adapter returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from memhub.compiler.artifact import Artifact
from memhub.hubspec.model import Hub

if TYPE_CHECKING:  # common imports this module
    from memhub.compiler.hosts.common import EventSupport

CoverageStatus = Literal["mapped", "caveat", "unsupported"]


@dataclass(frozen=True, slots=True)
class CoverageRow:
    """How one hub component lands on one host (`component` is hook, mcp or instructions)."""

    host: str
    component: str
    id: str
    status: CoverageStatus
    target: str
    reason: str = ""
    required: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "host": self.host,
            "component": self.component,
            "id": self.id,
            "status": self.status,
            "target": self.target,
            "reason": self.reason,
            "required": self.required,
        }


@dataclass(frozen=True, slots=True)
class HostBuild:
    """What one adapter produced for one hub."""

    artifacts: tuple[Artifact, ...]
    coverage: tuple[CoverageRow, ...]


class HostAdapter(Protocol):
    """One module per host; the only place that knows that host's formats."""

    name: str
    title: str
    summary: str
    bundle_root: str  # folder of the bundle holding this host's plugin copy
    runs_hooks: bool  # whether the vendored runtime can be called from this host
    shows_icon: bool  # whether the manifest can reference the plugin's icon
    EVENTS: dict[str, EventSupport]  # logical event -> how this host carries it (`memhub hosts`)

    def install_steps(self, hub: Hub) -> list[str]:
        """Commands a person runs to install the built bundle in this host."""
        ...

    def build(self, hub: Hub) -> HostBuild:
        """The host's bundle files for `hub`, and the coverage of each component."""
        ...
